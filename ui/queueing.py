"""Queue a run from a page and open its view: the form's Launch, Profile this run, a script run again."""

from __future__ import annotations

from typing import Any

import streamlit as st

from rlcore.contract.params import ConfigError
from rlcore.runs import executor, service
from rlcore.runs.store import Store, StoreError
from ui import fmt


def queue_and_open(store: Store, kind: str, values: dict[str, Any], label: str = "", *,
                   preset: str | None = None) -> None:
    """Store the run as queued, start its worker, open its view (this page, ?run=ID). On a bad config or a storage
    fault: one sentence, nothing written."""
    try:
        run_id = service.create_run(store, kind, values, label, preset=preset, executor=executor.current())
    except (ConfigError, StoreError) as e:
        st.error(fmt.md(str(e), 400))
        return
    executor.submit(store, [run_id])
    st.query_params["run"] = str(run_id)
    st.rerun()
