"""A workload's form, generated from its config metadata, every widget bound to the URL.

The form is judged as a whole on every change: a value the config rejects (alone or with others) is one
sentence at its field, and Launch stays off until the form is valid; what Launch queues is exactly what the
widgets show. Numbers are typed into text fields that hold exactly what was typed (a browser's number field
refuses -5 or 1e9 on its own, keeps its old value and lets Launch queue that): the configuration judges the text,
as it judges a link's or the command line's. A preset (or the bench's workload) sets every field it implies and
leaves the others as the user set them. Bound query parameters are never deleted here (Streamlit forbids it in
the browser): a choice from a link that its widget cannot take is ignored and named in one warning.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import streamlit as st

from rlcore.contract import workloads
from rlcore.contract.params import (
    FALSE,
    LABEL_MAX,
    TRUE,
    ConfigError,
    applies,
    check_text,
    field_error,
    label_of,
    parse_bool,
)
from rlcore.contract.text import number_text
from ui import fmt

# Page-level widgets whose keys (URL names) several pages use.
SHARED_KEYS = ("label", "preset", "workload", "refresh", "kind", "seeds", "random", "sweep_seed")


def url_key(f: dataclasses.Field) -> str:
    return label_of(f)


def form_keys() -> set[str]:
    keys = set(SHARED_KEYS)
    for workload in workloads.all_workloads():
        keys |= {url_key(f) for f in dataclasses.fields(workload.config)}
        keys.add(workload.preset_param)
    return keys


def forget_other_pages(page: str) -> None:
    """On arriving at another page, drop the form widgets' state of the page left behind.

    Form keys are URL names, and pages share some (batch, exec, device) with different types and choices;
    Streamlit keeps a URL-bound widget's state across a page switch, so DQN's exec=naive would reach the
    HJB form, where naive is not a choice. The new page's values then come from its own URL or defaults.
    """
    if st.session_state.get("_form_page") == page:
        return
    st.session_state["_form_page"] = page
    forget_values()


def forget_values() -> None:
    """Drop every form widget's state: the next form takes its values from its link (or its defaults)."""
    st.session_state.pop("_link_checked", None)
    for key in form_keys():
        st.session_state.pop(key, None)


def first_look() -> bool:
    """True once per page visit: the run that opened it, when link values are judged."""
    if st.session_state.get("_link_checked"):
        return False
    st.session_state["_link_checked"] = True
    return True


# ---------------------------------------------------------------- link values


def is_switch(f: dataclasses.Field) -> bool:
    """A setting that is on or off: a toggle in the form, true/false in a link."""
    return f.type in ("bool", bool)


def widget_rejection(f: dataclasses.Field, raw: str, options: list[str] | None = None) -> str | None:
    """Why a choice field's widget cannot show a link's text, or None. Numbers and text are typed into text
    fields, which take any text; the form judges them like typed text."""
    if is_switch(f):
        return f"{url_key(f)} must be true or false, not {raw[:40]!r}."
    choices = options if options is not None else f.metadata.get("choices")
    if choices is not None and raw not in choices:
        return f"{url_key(f)} must be one of {', '.join(choices)}, not {raw[:40]!r}."
    return None


def options_of(workload: workloads.Workload, no_gpu: str | None) -> dict[str, list[str]]:
    """The choices each choice field's widget offers: all of them, the GPU too where TensorFlow sees none (it
    shows why it is off, and choosing it says so and keeps Launch off, rather than vanishing)."""
    return {f.name: list(f.metadata["choices"]) for f in dataclasses.fields(workload.config)
            if f.metadata.get("choices")}


def unavailable_choices(no_gpu: str | None) -> dict[str, dict[str, str]]:
    """Per field, the choices this machine cannot run and why ({"device": {"gpu": "no GPU visible ..."}})."""
    return {"device": {"gpu": no_gpu}} if no_gpu else {}


def moved_link(workload: workloads.Workload) -> tuple[str, dict[str, str]] | None:
    """Where a link to this form opens when its values belong to another workload now (``/dqn?exec=turbo&
    turbo_lr=0.03``, made while turbo was the DQN's style): that workload's kind and the link's values in its names
    (its label kept); None when the link is this form's."""
    moved = workload.moved(st.query_params.to_dict())
    if moved is None or not workloads.WORKLOADS.has(moved.kind):
        return None
    fields = {f.name: f for f in dataclasses.fields(workloads.get(moved.kind).config)}
    params = {url_key(fields[name]): _link_text(fields[name], value) for name, value in moved.values.items()
              if name in fields}
    if "label" in st.query_params:
        params["label"] = st.query_params["label"]
    return moved.kind, params


def _link_text(f: dataclasses.Field, value: Any) -> str:
    """A value as this form's link writes it: an old link's on/off or yes/no for a switch as true/false, which its
    toggle reads from the URL (and keeps there)."""
    if is_switch(f) and isinstance(value, str) and value.strip().lower() in TRUE + FALSE:
        value = parse_bool(value, url_key(f))
    return fmt.field_text(value)


def check_link(workload: workloads.Workload, no_gpu: str | None) -> None:
    """Warn once per page visit, one sentence per link value the form's widgets cannot take. Called before any
    widget exists: a bound widget drops a value it cannot take from the URL as it is created."""
    if not first_look():
        return
    options = options_of(workload, no_gpu)
    preset = st.query_params.get(workload.preset_param)
    if preset is not None and workload.presets and preset not in workload.presets:
        st.warning(fmt.md(f"{workload.preset_param} must be one of {', '.join(workload.presets)}, not "
                          f"{preset[:40]!r}. The link's value was ignored; the default is shown.", 400))
    for f in dataclasses.fields(workload.config):
        raw = st.query_params.get(url_key(f))
        if raw is None:
            continue
        if is_switch(f) and raw.strip().lower() in TRUE + FALSE:
            # A switch's toggle reads only true/false from a link: one made with on/off (before switches) or yes/no
            # is given to it through session state, as a bound widget requires.
            st.session_state[url_key(f)] = parse_bool(raw, url_key(f))
            continue
        why = widget_rejection(f, raw, options.get(f.name))
        if why:
            st.warning(fmt.md(f"{why} The link's value was ignored; the default is shown.", 400))


# ---------------------------------------------------------------- presets


def apply_preset(workload: workloads.Workload) -> None:
    """The preset selector's callback: every field a preset sets shows the new preset's value (its own default
    where this preset says nothing); fields no preset sets keep what the user typed. Set through session state,
    as bound widgets require."""
    preset = st.session_state.get(workload.preset_param)
    values = workload.defaults(preset)
    implied = {name for values_of in workload.presets.values() for name in values_of}
    for f in dataclasses.fields(workload.config):
        if url_key(f) != workload.preset_param and f.name in implied:
            st.session_state[url_key(f)] = values[f.name] if is_switch(f) else fmt.field_text(values[f.name])


def link_of(workload: workloads.Workload, preset: str | None, values: Mapping[str, Any],
            label: str) -> dict[str, str]:
    """The link's values of a form showing these settings: the preset (unless the first), the fields that differ
    from it, as the fields show them, and the label."""
    params: dict[str, str] = {}
    if preset and preset in workload.presets and preset != workload.default_preset:
        params[workload.preset_param] = preset
    base = workload.defaults(preset)
    for f in dataclasses.fields(workload.config):
        key = url_key(f)
        if key != workload.preset_param and f.name in values and \
                fmt.field_text(values[f.name]) != fmt.field_text(base[f.name]):
            params[key] = fmt.field_text(values[f.name])
    return params | ({"label": label} if label else {})


# ---------------------------------------------------------------- the form


@dataclasses.dataclass
class FormResult:
    # every field, by name: the configuration's values when the form is valid; else what the widgets show (text
    # for numbers), defaults for fields that do not apply
    values: dict[str, Any]
    label: str
    preset: str | None
    error: ConfigError | None

    @property
    def valid(self) -> bool:
        return self.error is None


def preset_choice(workload: workloads.Workload) -> str | None:
    if not workload.presets:
        return None
    options = list(workload.presets)
    chosen = st.selectbox(workload.preset_param, options, key=workload.preset_param, bind="query-params",
                          on_change=apply_preset, args=(workload,),
                          help="Named starting points: choosing one sets every field it implies; the settings no "
                               "preset sets keep your values.")
    if chosen in workload.preset_help:
        st.caption(workload.preset_help[chosen])
    return chosen


def config_form(workload: workloads.Workload, preset: str | None, no_gpu: str | None = None) -> FormResult:
    """One widget per field that applies to the chosen style (rarer ones under "More settings"), then the label;
    the values judged together, the offending field's sentence shown beside it."""
    defaults = workload.defaults(preset)
    fields = dataclasses.fields(workload.config)
    options = options_of(workload, no_gpu)
    off = unavailable_choices(no_gpu)

    values: dict[str, Any] = dict(defaults)
    slots: dict[str, Any] = {}
    style_field = workload.field(workload.style_field) if workload.style_field else None
    if style_field is not None:
        values[style_field.name] = _widget(st.container(), style_field, defaults, options, off)
        slots[style_field.name] = st.empty()
    style = values.get(style_field.name) if style_field is not None else None
    shown = [f for f in fields if f is not style_field and applies(f, style) and url_key(f) != workload.preset_param]
    restricted = [f for f in shown if f.metadata.get("styles") and set(f.metadata["styles"]) == {style}
                  and f.metadata.get("group")]
    common = [f for f in shown if f not in restricted]
    sections = [(None, [f for f in common if not f.metadata.get("advanced")])]
    if restricted:
        sections.append((f"{restricted[0].metadata['group']} settings ({style} only)",
                         [f for f in restricted if not f.metadata.get("advanced")]))
    more = [f for f in shown if f.metadata.get("advanced")]
    for title, members in sections:
        if title:
            st.markdown(f"**{title}**")
        columns = st.columns(3)
        for i, f in enumerate(members):
            box = columns[i % 3]
            values[f.name] = _widget(box, f, defaults, options, off)
            slots[f.name] = box.empty()
    if more:
        columns = st.expander("More settings").columns(3)
        for i, f in enumerate(more):
            box = columns[i % 3]
            values[f.name] = _widget(box, f, defaults, options, off)
            slots[f.name] = box.empty()
    label = st.text_input("label", key="label", bind="query-params", max_chars=LABEL_MAX,
                          placeholder="automatic: made from the style and the changed settings",
                          help="A name for the run; left empty, the run is named from what sets it apart.")
    slots["label"] = st.empty()

    cfg, error = judge(workload, values, label, no_gpu)
    if error is not None:
        # Every field that is wrong on its own says so beside itself, at once (batch -5 and steps abc: both), and
        # the whole's first error where no single field explains it.
        flagged = {f.name: e for f in fields if f.name in slots and f.name in values
                   and (e := field_error(f, values[f.name])) is not None}
        if error.field not in flagged:
            flagged[error.field or ""] = error
        for name, said in flagged.items():
            slot = slots.get(name) or slots.get(getattr(workload.field(name), "name", None)) or st.empty()
            slot.error(fmt.md(str(said), 400))
    else:
        values = dataclasses.asdict(cfg)  # what Launch queues: the typed text, parsed
    return FormResult(values, label, preset, error)


def judge(workload: workloads.Workload, values: dict[str, Any], label: str,
          no_gpu: str | None) -> tuple[Any, ConfigError | None]:
    """The form's values as Launch would queue them: (the config, None) when valid, else (None, the first error)."""
    try:
        cfg = workload.make_config(values)
        check_text(label, "label", LABEL_MAX)
    except ConfigError as e:
        return None, e
    if no_gpu and "gpu" in workloads.devices_of(cfg):
        return None, ConfigError(f"device gpu is off on this machine ({no_gpu}): choose cpu; a profiled CPU run's "
                                 "Why panel estimates what a GPU step would at least pay.", "device")
    missing = workload.unavailable(cfg)
    if missing:
        return None, ConfigError(missing, workload.style_field)
    return cfg, None


def _widget(box: Any, f: dataclasses.Field, defaults: Mapping[str, Any], options: Mapping[str, list[str]],
            unavailable: Mapping[str, Mapping[str, str]] | None = None) -> Any:
    meta, default = f.metadata, defaults.get(f.name, f.default)
    label, key = url_key(f).replace("_", " "), url_key(f)
    common = {"key": key, "help": meta["help"], "bind": "query-params"}
    off = (unavailable or {}).get(f.name, {})
    if f.name in options:
        choices = options[f.name]
        chosen = box.selectbox(label, choices, index=choices.index(default) if default in choices else 0,
                               format_func=lambda c: f"{c} (off here: {off[c]})" if c in off else c, **common)
        for choice, why in off.items():
            box.caption(fmt.md(f"{choice} is off on this machine: {why}. A profiled CPU run's Why panel estimates "
                               "what a GPU step would at least pay.", 300))
        return chosen
    if is_switch(f):
        return box.toggle(label, value=bool(default), **common)
    if str(f.type) != "str":
        common["help"] += f" {bounds_text(f)}"
    # Text, numbers included: the field holds exactly what was typed and the configuration judges it.
    return box.text_input(label, value=fmt.field_text(default), **common)


def bounds_text(f: dataclasses.Field) -> str:
    """What a number field takes, for its help: "A whole number from 1 to 10,000,000."."""
    lo, hi = f.metadata.get("lo"), f.metadata.get("hi")
    kind = "A whole number" if str(f.type) == "int" else "A number"
    if lo is not None and hi is not None:
        return f"{kind} from {number_text(lo)} to {number_text(hi)}."
    if lo is not None:
        return f"{kind}, at least {number_text(lo)}."
    return f"{kind}, at most {number_text(hi)}." if hi is not None else f"{kind}."
