"""A stored run in the tools people know: its scalars as TensorBoard event files, its profile where TensorBoard's
profile plugin and xprof look for it, so ``tensorboard --logdir DIR`` (or ``xprof --logdir DIR``) opens both.

The event files are written with TensorBoard's own pure-Python pieces (its protos, its record framing, its plugins'
metadata), the same records ``tf.summary`` writes, without starting TensorFlow: an export takes a second, not
TensorFlow's five of start-up.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from rlcore.tracking.capture import PROFILE_DIR


class ExportError(Exception):
    """An export that could not be finished: one sentence; nothing half-written is left behind."""


def to_tensorboard(run: Any, metrics: Any, run_dir: Path, out: Path) -> dict[str, int]:
    """Write ``run``'s metrics (the store's long format: step, name, value) under ``out`` as one TensorBoard run
    named after it (``out/run<id>``), and copy its profile's capture beside them. Returns what was written.

    Written whole or not at all: into a temporary folder beside the target, renamed into place at the end (a
    previous export of the run is replaced); on any fault (a full disk, a name too long) the temporary folder is
    removed and the fault is one sentence (``ExportError``)."""
    logdir = out / f"run{run.id}"
    try:
        if logdir.exists() and not logdir.is_dir():
            raise ExportError(f"{logdir} is a file, not a folder; the export writes the run's folder there: move the "
                              "file or choose another folder.")
        out.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".run{run.id}.partial-", dir=out))
    except OSError as e:
        raise ExportError(f"{out} cannot be written: {e.strerror or e}.") from None
    try:
        written, copied = _write(run, metrics, run_dir, partial)
        if logdir.is_dir():
            shutil.rmtree(logdir)
        os.rename(partial, logdir)
    except BaseException as e:
        shutil.rmtree(partial, ignore_errors=True)
        if isinstance(e, ExportError | KeyboardInterrupt):
            raise
        text = str(e).strip()
        reason = getattr(e, "strerror", None) or (text.splitlines()[0][:200] if text else type(e).__name__)
        raise ExportError(f"The export of run {run.id} to {out} could not be finished ({reason}); nothing of it "
                          "was left there.") from None
    return {"scalars": written, "profile_files": copied, "logdir": str(logdir)}


def _write(run: Any, metrics: Any, run_dir: Path, logdir: Path) -> tuple[int, int]:
    import numpy as np
    from tensorboard.compat.proto import event_pb2
    from tensorboard.plugins.scalar import metadata as scalar_plugin
    from tensorboard.plugins.text import summary_v2 as text_plugin
    from tensorboard.summary.writer.record_writer import RecordWriter
    from tensorboard.util import tensor_util

    now = time.time()
    name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{os.getpid()}.0"  # tf.summary's naming
    written = 0
    with open(logdir / name, "wb") as file:
        records = RecordWriter(file)
        records.write(event_pb2.Event(wall_time=now, file_version="brain.Event:2").SerializeToString())  # its first
        settings = text_plugin.text_pb("settings", "\n".join(f"{k} = {v}" for k, v in sorted(run.config.items())))
        records.write(event_pb2.Event(wall_time=now, step=0, summary=settings).SerializeToString())
        described: set[str] = set()
        for row in metrics.sort_values(["step", "rowid"] if "rowid" in metrics else ["step"]).itertuples():
            tag, event = str(row.name), event_pb2.Event(wall_time=now, step=int(row.step))
            # As float32, as tf.summary.scalar writes it (TensorBoard's fast loader shows no other scalar dtype): a
            # value past its range reads as infinity, never an error.
            with np.errstate(over="ignore"):
                number = np.float32(row.value)
            value = event.summary.value.add(tag=tag, tensor=tensor_util.make_tensor_proto(number))
            if tag not in described:  # a series' plugin, said with its first value (as tf.summary does)
                described.add(tag)
                value.metadata.CopyFrom(scalar_plugin.create_summary_metadata(display_name="", description=""))
            records.write(event.SerializeToString())
            written += 1
    profile = run_dir / PROFILE_DIR / "plugins"
    copied = 0
    if profile.is_dir():
        shutil.copytree(profile, logdir / "plugins", dirs_exist_ok=True)
        copied = sum(1 for p in (logdir / "plugins").rglob("*") if p.is_file())
    return written, copied


def to_csv(metrics: Any, path: Path) -> None:
    """The metrics as CSV at ``path``, written whole or not at all (a temporary file beside it, renamed)."""
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        metrics.to_csv(partial, index=False)
        os.replace(partial, path)
    except OSError as e:
        partial.unlink(missing_ok=True)
        raise ExportError(f"{path} could not be written ({e.strerror or e}); nothing of it was left there.") from None
