"""Config forms generated from the config dataclasses' metadata, every widget bound to the URL."""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from rlcore.config import BenchConfig, ConfigError, DQNConfig, HJBConfig, from_dict


def url_key(f: dataclasses.Field) -> str:
    return f.metadata.get("flag") or f.name


# Page-level widgets whose keys (URL names) more than one page uses.
SHARED_KEYS = ("label", "preset", "workload", "refresh")


def forget_other_pages(page: str) -> None:
    """On arriving at another page, drop the form widgets' state of the page left behind.

    Form keys are URL names, and pages share some (batch, exec, device) with different types and choices;
    Streamlit keeps a URL-bound widget's state across a page switch, so DQN's exec=naive would reach the
    HJB form, where naive is not a choice. The new page's values then come from its own URL or defaults.
    """
    if st.session_state.get("_form_page") == page:
        return
    st.session_state["_form_page"] = page
    for cls in (DQNConfig, HJBConfig, BenchConfig):
        for f in dataclasses.fields(cls):
            st.session_state.pop(url_key(f), None)
    for key in SHARED_KEYS:
        st.session_state.pop(key, None)


def check_url(cls: type, defaults: dict[str, Any]) -> set[str]:
    """Warn, one sentence per bad value, about URL params this form would not accept; returns their fields.

    Values are judged together first, so ?memory=5000&batch=2000 passes although batch 2000 alone would not.
    """
    given = {f.name: st.query_params[url_key(f)] for f in dataclasses.fields(cls) if url_key(f) in st.query_params}
    try:
        from_dict(cls, defaults | given)
        return set()
    except ConfigError:
        pass
    bad = set()
    for f in dataclasses.fields(cls):
        if f.name not in given:
            continue
        try:
            from_dict(cls, defaults | {f.name: given[f.name]})
        except ConfigError as e:
            st.warning(f"{e} The link's value was ignored; the default is shown.")
            st.query_params.pop(url_key(f))
            bad.add(f.name)
    return bad


def check_choice(key: str, options: list[str]) -> None:
    """Warn about a page-level choice in the link (preset, workload) that is not one of ``options``."""
    raw = st.query_params.get(key)
    if raw is not None and raw not in options:
        st.warning(f"{key} must be one of {', '.join(options)}, not {raw!r}. The link's value was ignored; the "
                   "default is shown.")
        st.query_params.pop(key)


def reset_fields(cls: type, names: tuple[str, ...] | None = None) -> None:
    """A callback for a choice that changes the defaults (preset, workload): forget what the user typed in
    the named fields (all by default), in the session and in the URL, so the new defaults show."""
    for f in dataclasses.fields(cls):
        if names is None or f.name in names:
            st.session_state.pop(url_key(f), None)
            st.query_params.pop(url_key(f), None)


def config_form(cls: type, defaults: dict[str, Any], *, disabled: dict[str, str] | None = None,
                fixed: dict[str, Any] | None = None, rejected: set[str] | None = None) -> dict[str, Any]:
    """One widget per field (less common ones in an expander); returns the chosen values by field name.

    ``fixed`` fields get no widget (the page chose them elsewhere, such as the bench's workload).
    ``rejected`` fields had a bad value in the link: Streamlit seeds a bound widget from the URL it was
    opened with, so for this render they get an unbound widget that shows the default.
    """
    disabled, rejected = disabled or {}, rejected or set()
    values: dict[str, Any] = dict(fixed or {})
    main = st.columns(3)
    more = st.expander("More settings").columns(3)
    n_main = n_more = 0
    for f in dataclasses.fields(cls):
        meta, default = f.metadata, defaults.get(f.name, f.default)
        if f.name in values:
            continue
        if meta.get("advanced"):
            box, n_more = more[n_more % 3], n_more + 1
        else:
            box, n_main = main[n_main % 3], n_main + 1
        label, key = url_key(f).replace("_", " "), url_key(f)
        common = {"key": key, "help": meta["help"], "bind": "query-params"}
        if f.name in rejected:
            common = {"key": f"{key}__default", "help": meta["help"]}
        if meta.get("choices"):
            options = list(meta["choices"])
            values[f.name] = box.selectbox(label, options, index=options.index(default), **common)
        elif str(f.type) == "str":
            values[f.name] = box.text_input(label, value=str(default), **common)
        elif str(f.type) == "int":
            values[f.name] = int(box.number_input(label, value=int(default), step=1, min_value=_bound(meta["lo"], int),
                                                  max_value=_bound(meta["hi"], int), **common))
        else:
            values[f.name] = float(box.number_input(label, value=float(default), format="%g",
                                                    min_value=_bound(meta["lo"], float),
                                                    max_value=_bound(meta["hi"], float), **common))
        if f.name in disabled:
            box.caption(disabled[f.name])
    return values


def _bound(value: float | None, kind: type) -> Any:
    return None if value is None else kind(value)
