"""A stored run in the tools people know: its scalars as TensorBoard event files, its profile where TensorBoard's
profile plugin and xprof look for it, so ``tensorboard --logdir DIR`` (or ``xprof --logdir DIR``) opens both.

Writing event files takes TensorFlow's summary writer, so this runs in the CLI's process, never the dashboard's.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from rlcore.tracking.profiling import PROFILE_DIR


def to_tensorboard(run: Any, metrics: Any, run_dir: Path, out: Path) -> dict[str, int]:
    """Write ``run``'s metrics (the store's long format: step, name, value) under ``out`` as one TensorBoard run
    named after it, and copy its profile's capture beside them. Returns what was written."""
    import tensorflow as tf

    out.mkdir(parents=True, exist_ok=True)
    logdir = out / f"run{run.id}"
    writer = tf.summary.create_file_writer(str(logdir))
    written = 0
    with writer.as_default():
        tf.summary.text("settings", "\n".join(f"{k} = {v}" for k, v in sorted(run.config.items())), step=0)
        for row in metrics.sort_values(["step", "rowid"] if "rowid" in metrics else ["step"]).itertuples():
            tf.summary.scalar(str(row.name), float(row.value), step=int(row.step))
            written += 1
    writer.close()
    profile = run_dir / PROFILE_DIR / "plugins"
    copied = 0
    if profile.is_dir():
        shutil.copytree(profile, logdir / "plugins", dirs_exist_ok=True)
        copied = sum(1 for p in (logdir / "plugins").rglob("*") if p.is_file())
    return {"scalars": written, "profile_files": copied, "logdir": str(logdir)}
