"""Config forms generated from the config dataclasses' metadata, every widget bound to the URL."""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from rlcore.config import ConfigError, from_dict


def url_key(f: dataclasses.Field) -> str:
    return f.metadata.get("flag") or f.name


def check_url(cls: type, defaults: dict[str, Any]) -> None:
    """Warn, one sentence per bad value, about URL params this form would not accept."""
    for f in dataclasses.fields(cls):
        raw = st.query_params.get(url_key(f))
        if raw is None:
            continue
        try:
            from_dict(cls, defaults | {f.name: raw})
        except ConfigError as e:
            st.warning(f"{e} The link's value was ignored; the default is shown.")


def config_form(cls: type, defaults: dict[str, Any], *, disabled: dict[str, str] | None = None) -> dict[str, Any]:
    """One widget per field (less common ones in an expander); returns the chosen values by field name."""
    disabled = disabled or {}
    values: dict[str, Any] = {}
    main = st.columns(3)
    more = st.expander("More settings").columns(3)
    n_main = n_more = 0
    for f in dataclasses.fields(cls):
        meta, default = f.metadata, defaults.get(f.name, f.default)
        if meta.get("advanced"):
            box, n_more = more[n_more % 3], n_more + 1
        else:
            box, n_main = main[n_main % 3], n_main + 1
        label, key = url_key(f).replace("_", " "), url_key(f)
        common = {"key": key, "help": meta["help"], "bind": "query-params"}
        if meta.get("choices"):
            options = list(meta["choices"])
            values[f.name] = box.selectbox(label, options, index=options.index(default), **common)
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
