"""The sweep form: a workload's settings as text, where each holds one value, a list (a grid) or a range (random
draws), plus seeds; the count of runs it makes, judged as a whole like the workload forms; Launch."""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from rlcore import search
from rlcore.contract import workloads
from rlcore.contract.params import LABEL_MAX, ConfigError, applies, check_text, parse_int
from rlcore.contract.text import number_text
from rlcore.runs import executor, sweeps
from rlcore.runs.store import Store, StoreError
from ui import access, fmt, forms, share

SEED_MAX = 2**31 - 1
HELP = ("One value; several separated by commas (a grid: every combination is run); or a range drawn at random: "
        "uniform:LOW:HIGH, log:LOW:HIGH, int:LOW:HIGH, logint:LOW:HIGH, choice:A,B. Free-text settings separate "
        "several values with |.")


@dataclasses.dataclass
class SweepForm:
    kind: str
    preset: str | None
    base: dict[str, Any]
    space: search.Space | None
    label: str
    error: ConfigError | None


def _reset(kind_key: str = "kind") -> None:
    """The workload choice's callback: every field shows the new workload's defaults."""
    workload = workloads.get(st.session_state[kind_key])
    for f in dataclasses.fields(workload.config):
        st.session_state[forms.url_key(f)] = fmt.field_text(workload.defaults(workload.default_preset)[f.name])


def _whole(text: str, name: str, hi: int) -> int:
    """A whole number from 0 to ``hi`` typed into one of the sweep's own fields, or one sentence at that field."""
    label = {"random": "random draws", "sweep_seed": "seed of the draws"}[name]
    try:
        value = parse_int(text, label)
    except ConfigError as e:
        raise ConfigError(str(e), name) from None
    if not 0 <= value <= hi:
        raise ConfigError(f"{label} must be from 0 to {hi:,}, not {number_text(value)}.", name)
    return value


def _styles(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()] or [""]


def form() -> SweepForm:
    kinds = workloads.kinds()
    raw_kind = st.query_params.get("kind")
    if raw_kind is not None and raw_kind not in kinds and forms.first_look():
        st.warning(fmt.md(f"kind must be one of {', '.join(kinds)}, not {raw_kind[:40]!r}. The link's value was "
                          "ignored; the default is shown.", 400))
    kind = st.selectbox("workload", kinds, key="kind", bind="query-params", on_change=_reset,
                        format_func=lambda k: f"{workloads.get(k).title} ({k})")
    workload = workloads.get(kind)
    preset = forms.preset_choice(workload) if workload.presets else None
    defaults = workload.defaults(preset)
    fields = dataclasses.fields(workload.config)
    texts: dict[str, str] = {}
    slots: dict[str, Any] = {}

    def box(container: Any, f: dataclasses.Field) -> None:
        texts[f.name] = container.text_input(forms.url_key(f).replace("_", " "), value=fmt.field_text(defaults[f.name]),
                                             key=forms.url_key(f), bind="query-params",
                                             help=f"{f.metadata['help']} {HELP}")
        slots[f.name] = container.empty()

    style_field = workload.field(workload.style_field) if workload.style_field else None
    if style_field is not None:
        box(st.container(), style_field)
    styles = _styles(texts.get(style_field.name, "") if style_field is not None else "")
    shown = [f for f in fields if f is not style_field and any(applies(f, s or None) for s in styles)]
    columns = st.columns(3)
    for i, f in enumerate(f for f in shown if not f.metadata.get("advanced")):
        box(columns[i % 3], f)
    more = st.expander("More settings").columns(3)
    for i, f in enumerate(f for f in shown if f.metadata.get("advanced")):
        box(more[i % 3], f)
    left, mid, right = st.columns(3)
    seeds = left.text_input("seeds", key="seeds", bind="query-params", placeholder="0,1,2",
                            help="Every setting runs once per seed (empty: once, with the seed setting above).")
    draws = mid.text_input("random draws", value="0", key="random", bind="query-params",
                           help=f"How many random settings the ranges give: a whole number from 0 to "
                                f"{search.MAX_MEMBERS:,}.")
    sweep_seed = right.text_input("seed of the draws", value="0", key="sweep_seed", bind="query-params",
                                  help=f"A whole number from 0 to {SEED_MAX:,}: the same seed draws the same settings.")
    slots["seeds"], slots["random"], slots["sweep_seed"] = left.empty(), mid.empty(), right.empty()
    label = st.text_input("label", key="label", bind="query-params", max_chars=LABEL_MAX,
                          placeholder="automatic: the workload and the number of runs")
    slots["label"] = st.empty()

    result = SweepForm(kind, preset, {}, None, label, None)
    try:
        result.base, grid, ranges = _parse(workload, {f.name: texts[f.name] for f in fields if f.name in texts},
                                           defaults)
        result.space = search.Space(grid, ranges, _whole(draws, "random", search.MAX_MEMBERS),
                                    search.parse_seeds(seeds) if seeds.strip() else [],
                                    _whole(sweep_seed, "sweep_seed", SEED_MAX))
        check_text(label, "label", LABEL_MAX)
        search.members(workload, result.base, result.space, preset)
    except ConfigError as e:
        result.error = e
        slot = slots.get(e.field) or slots.get(getattr(workload.field(e.field), "name", None)) or st.empty()
        slot.error(fmt.md(str(e), 400))
    return result


def _parse(workload: workloads.Workload, texts: dict[str, str],
           defaults: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[Any]], dict[str, search.Range]]:
    base, grid, ranges = {}, {}, {}
    for name, text in texts.items():
        if not text.strip():
            continue
        scale = text.strip().partition(":")[0]
        if scale in search.SCALES and ":" in text:
            key, rng = search.parse_range(workload, name, text)
            ranges[key] = rng
            continue
        key, values = search.parse_values(workload, name, text)
        if len(values) > 1:
            grid[key] = values
        elif values[0] != defaults[key]:
            base[key] = values[0]
    return base, grid, ranges


def count_text(workload: workloads.Workload, space: search.Space) -> str:
    names = {f.name: forms.url_key(f) for f in dataclasses.fields(workload.config)}
    parts = [f"{len(v)} {names.get(k, k)}" for k, v in space.grid.items()]
    if space.ranges:
        parts.append(f"{space.random} random draws")
    if space.seeds:
        parts.append(f"{len(space.seeds)} seeds")
    total = space.count()
    return f"This sweep makes **{total:,} run{'s' if total != 1 else ''}**" + (
        f" ({' × '.join(parts)})." if len(parts) > 1 else ".")


def launch_section(store: Store, sweep: SweepForm) -> None:
    if sweep.space is not None and sweep.error is None:
        st.markdown(count_text(workloads.get(sweep.kind), sweep.space))
    operator = access.is_operator()
    with st.container(horizontal=True, vertical_alignment="center"):
        clicked = operator and st.button("Launch sweep", type="primary", key="launch_sweep",
                                         disabled=sweep.error is not None or store.read_only)
        share.share_button({k: v for k, v in st.query_params.to_dict().items()}, "this sweep's form")
    if not operator:
        st.caption("Viewers can describe a sweep and share its form. " + access.viewer_help())
    elif sweep.error is not None:
        st.caption("Launch is off until every setting marked above is fixed.")
    if clicked and sweep.error is None and access.require_operator("launch a sweep"):
        try:
            sweep_id, _ = sweeps.create(store, sweep.kind, sweep.base, sweep.space, label=sweep.label,
                                        preset=sweep.preset, engine=executor.current())
        except (ConfigError, StoreError) as e:
            st.error(fmt.md(str(e), 400))
            return
        st.query_params["sweep"] = str(sweep_id)
        st.rerun()
