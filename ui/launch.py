"""A workload's page: its form (preset, settings, label), Share and Launch; or, with ?run=ID, that run's view."""

from __future__ import annotations

from typing import Any

import streamlit as st

from rlcore.contract import workloads
from rlcore.runs.store import Store, store_error
from ui import access, extras, fmt, forms, queueing, router, run_view, share, sidebar


def workload_page(kind: str) -> None:
    """The whole page of a workload (its form, or with ?run=ID a run's view); what it adds comes from its views."""
    workload = workloads.get(kind)
    intro = extras.of(kind).intro
    store = access.store()
    st.title(workload.title)
    if run_view.show_from_url(store, kind):
        return
    moved = forms.moved_link(workload)
    if moved is not None:
        st.switch_page(router.page_of(moved[0]), query_params=moved[1])
    st.caption(workload.description + (f" {workload.yardstick}" if workload.yardstick else ""))
    no_gpu = sidebar.gpu_reason(sidebar.device_card())
    forms.check_link(workload, no_gpu)
    preset = forms.preset_choice(workload)
    if intro is not None:
        intro(preset)
    result = forms.config_form(workload, preset, no_gpu)
    operator = access.is_operator()
    with st.container(horizontal=True, vertical_alignment="center"):
        clicked = operator and st.button("Launch", type="primary", key="launch",
                                         disabled=not result.valid or store.read_only)
        share.share_button(link_params(workload, result), "this form with these settings")
    if not operator:
        st.caption("Viewers can look at every setting and share this form. " + access.viewer_help())
    elif store.read_only:
        st.caption(fmt.md(str(store_error(PermissionError(), store.path)), 400))
    elif not result.valid:
        st.caption("Launch is off until every setting marked above is fixed.")
    if clicked and result.valid and access.require_operator("launch a run"):
        launch(store, workload, result)


def link_params(workload: workloads.Workload, result: forms.FormResult) -> dict[str, Any]:
    """What a link to this form carries: the preset (if not the first), the fields that differ from it, the label."""
    return forms.link_of(workload, result.preset, result.values, result.label)


def launch(store: Store, workload: workloads.Workload, result: forms.FormResult) -> None:
    """Store the form's config as queued, start its worker, open its view. On a bad config or a storage fault:
    one sentence, nothing written."""
    queueing.queue_and_open(store, workload.kind, result.values, result.label, preset=result.preset)
