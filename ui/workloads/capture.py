"""Captures: a TensorFlow profile made anywhere opened as a run (an operator's: a path on this server or an upload,
through the queue like any run), the runs of captures, and on a capture run's view what xprof measured per step
(the parts, each GPU's kernels and copies, xprof's own conclusion) under the Why panel every run has."""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path

import pandas as pd
import streamlit as st

from rlcore.contract import workloads
from rlcore.contract.params import ConfigError
from rlcore.runs.store import Run, Store
from rlcore.workloads.capture import KIND
from ui import access, extras, fmt, queueing, run_view, runs_table

UPLOAD_MOST_BYTES = 200 * 2**20  # an upload larger than this is refused (Streamlit's own default limit)
SUFFIX = ".xplane.pb"
COMMANDS = """rlcore why logs/                                      # a logdir: its newest run (or --run NAME)
rlcore why logs/plugins/profile/2026_12_03/host.xplane.pb --json why.json"""
MAKE_ONE = """# on the machine you train on (a GPU's too), around a few steps after warm-up:
tf.profiler.experimental.start("logs")
for _ in range(20):
    train_step(batch)
tf.profiler.experimental.stop()
# or Keras: model.fit(..., callbacks=[tf.keras.callbacks.TensorBoard("logs", profile_batch=(10, 20))])"""


def page() -> None:
    store = access.store()
    workload = workloads.get(KIND)
    st.title(workload.title)
    if run_view.show_from_url(store, KIND):
        return
    st.caption(workload.description + " Nothing leaves this machine.")
    left, right = st.columns(2)
    left.markdown("**Make a capture** where you train:")
    left.code(MAKE_ONE, language="python")
    right.markdown("**Read it** here, or from a terminal (each read is stored as a run):")
    right.code(COMMANDS, language="bash")
    runs_table.of_kind(store, KIND, title="Captures read", key="capture_runs",
                       none_yet="None yet: open one below, or read one with rlcore why.")
    _open(store)


def _open(store: Store) -> None:
    st.subheader("Open a capture")
    if not access.is_operator():
        st.caption("An operator can open a capture here (a path on this server, or an upload). "
                   + access.viewer_help())
        return
    path = st.text_input("a logdir, a run folder or one .xplane.pb on this server", key="capture_path",
                         placeholder="/path/to/logs")
    if st.button("Read it", type="primary", key="read_capture", disabled=not path.strip() or store.read_only) \
            and access.require_operator("open a capture"):
        _queue(store, {"source": path.strip()})
    upload = st.file_uploader(f"or upload one {SUFFIX} (at most {UPLOAD_MOST_BYTES // 2**20} MB)", type=["pb"],
                              key="capture_upload", disabled=store.read_only)
    if upload is not None and st.button("Read the upload", key="read_upload") \
            and access.require_operator("open a capture"):
        saved = _saved(store, upload.name, upload.getvalue())
        if saved is not None:
            _queue(store, {"source": str(saved), "name": upload.name}, upload=(saved, upload.name))


def _saved(store: Store, name: str, data: bytes) -> Path | None:
    """The upload kept under the store's home (the run reads and copies it there); one sentence when it is no
    capture's file."""
    if not name.endswith(SUFFIX):
        st.error(fmt.md(f"{name} is not a TensorFlow profile: a capture is a HOST{SUFFIX} file (TensorBoard's "
                        "profile plugin writes them under LOGDIR/plugins/profile/RUN/).", 300))
        return None
    if len(data) > UPLOAD_MOST_BYTES:
        st.error(f"The upload is {len(data) / 2**20:,.0f} MB, more than the {UPLOAD_MOST_BYTES // 2**20} MB this "
                 "page takes; read it on the server with rlcore why PATH.")
        return None
    folder = store.home / "uploads" / hashlib.sha256(data).hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    saved = folder / (re.sub(r"[^A-Za-z0-9._-]", "_", name.removesuffix(SUFFIX))[:100] + SUFFIX)
    saved.write_bytes(data)
    return saved


def _queue(store: Store, values: dict, upload: tuple[Path, str] | None = None) -> None:
    """Queue the capture's run and open its view; one sentence when it is no capture (an upload refused is removed,
    and named by its own name, not where it was kept)."""
    workload = workloads.get(KIND)
    try:
        prepared = workload.prepare(values) if workload.prepare else values
    except ConfigError as e:
        said = str(e)
        if upload is not None:
            saved, name = upload
            said = said.replace(str(saved), name)
            saved.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                saved.parent.rmdir()
        st.error(fmt.md(said, 400))
        return
    queueing.queue_and_open(store, KIND, prepared, prepared.get("name", ""))


def measured(store: Store, run: Run, metrics: pd.DataFrame) -> None:
    """What xprof measured per step (a GPU capture: the parts, each device's kernels and copies, xprof's words)."""
    summary = run.summary or {}
    parts = summary.get("parts") or []
    if not parts or summary.get("lab_made") or summary.get("lab_causes"):
        return  # a CPU capture is read by the lab's own engine: its Why panel says it all
    st.subheader("As xprof measured it", anchor="measured")
    st.dataframe(pd.DataFrame([{"part of the step": p.get("name"), "ms a step": round(float(p.get("ms") or 0), 2),
                                "share": f"{float(p.get('share') or 0):.1%}"} for p in parts]),
                 hide_index=True, width="stretch")
    devices = summary.get("device_steps") or []
    if devices:
        st.dataframe(pd.DataFrame([{
            "device": d.get("device"), "kernels a step": d.get("kernels"),
            "median kernel (µs)": d.get("kernel_median_us"), "kernel ms a step": d.get("kernel_ms"),
            "shorter than a launch (5 µs)": d.get("shorter_than_a_launch"), "copies a step": d.get("copies"),
            "synchronous copies": d.get("synchronous_copies"),
            "host µs per kernel (launching thread)": d.get("host_us_per_kernel")} for d in devices]),
            hide_index=True, width="stretch")
    if summary.get("half_precision") is not None:
        st.caption(f"The device's compute in 16-bit: {float(summary['half_precision']):.1%}.")
    if summary.get("xprof_says"):
        st.caption(fmt.md(f"xprof says: {summary['xprof_says']}", 500))
    source = summary.get("source") or run.config.get("source")
    if source and access.is_operator():
        st.caption(fmt.md(f"Read from {source} (host {summary.get('host') or '?'}).", 300))


extras.register(KIND, extras.WorkloadViews(page=page, finished=measured))
