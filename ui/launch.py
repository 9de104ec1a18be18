"""What the DQN and HJB pages share: open a run from ?run=ID, and launch a validated config."""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from rlcore.config import ConfigError
from rlcore.runs import worker
from rlcore.runs.store import Store
from ui import forms, run_view, share, sidebar


def workload_page(title: str) -> tuple[Store, dict]:
    """How the DQN, HJB and bench pages start: the store and the device card; a ?run=ID link shows that run
    instead of the form and stops the page."""
    store = Store()
    st.title(title)
    if run_from_url(store):
        st.stop()
    return store, sidebar.device_card()


def defaults_of(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(cls)}


def run_from_url(store: Store) -> bool:
    """Show the run named by ?run=ID (or warn about a bad id); True when the URL named one."""
    if "run" not in st.query_params:
        return False
    raw = st.query_params["run"]
    if raw.isdigit():
        run_view.show_run(store, int(raw))
    else:
        st.warning(f"run must be a run id like 3, not {raw!r}.")
    return True


def _wants_gpu(device: Any) -> bool:
    return "gpu" in str(device or "").split(",")


def config_and_launch(store: Store, card: dict, kind: str, cls: type, defaults: dict[str, Any],
                      link: dict[str, str] | None = None) -> None:
    """The form of a workload: URL values checked, GPU offered only where TensorFlow sees one, Share, Launch.

    ``link`` holds page-level choices (the HJB preset, the bench workload) that the share link must carry
    too; those that are config fields get no widget of their own in the form.
    """
    rejected = forms.check_url(cls, defaults)
    no_gpu = sidebar.gpu_reason(card)
    if no_gpu and _wants_gpu(st.query_params.get("device")):
        st.warning(f"device gpu is not available here ({no_gpu}); the default cpu is shown.")
        st.query_params.pop("device")
    fields = {f.name for f in dataclasses.fields(cls)}
    values = forms.config_form(cls, defaults, disabled={"device": f"GPU: {no_gpu}"} if no_gpu else None,
                               fixed={k: v for k, v in (link or {}).items() if k in fields}, rejected=rejected)
    label = st.text_input("label", key="label", bind="query-params")
    changed = {forms.url_key(f): values[f.name] for f in dataclasses.fields(cls)
               if values[f.name] != defaults.get(f.name, f.default)}
    with st.container(horizontal=True):
        clicked = st.button("Launch", type="primary", key="launch")
        share.share_button((link or {}) | changed | {"label": label}, "this form with these settings")
    if clicked:
        launch(store, kind, cls, values, label, no_gpu)


def launch(store: Store, kind: str, cls: type, values: dict[str, Any], label: str, no_gpu: str | None) -> None:
    """Validate, store as queued, start its worker, open its view. On a bad config: one sentence, nothing written."""
    try:
        if no_gpu and _wants_gpu(values["device"]):
            raise ConfigError(f"GPU requested but TensorFlow sees none: {no_gpu}.")
        run_id = store.create_run(kind, cls(**values), label)
    except ConfigError as e:
        st.error(str(e))
        return
    worker.launch(store, run_id)
    st.query_params["run"] = str(run_id)
    st.rerun()
