"""Your code: the three ways in (copyable), the runs of your own code, a script run on this server again or anew
(an operator's; through the queue, as any run), and on a script run's view, "Run this script again" with a word
when the file changed since (its hash)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pandas as pd
import streamlit as st

from rlcore.contract import workloads
from rlcore.contract.params import ConfigError
from rlcore.runs.store import Run, Store
from rlcore.workloads.script import KIND
from rlcore.workloads.script.code import sha256
from ui import access, extras, fmt, queueing, run_view, runs_table

LAB = Path(__file__).resolve().parents[2]

SCRIPT = """rlcore profile --steps 20 train.py --epochs 3     # your script, unchanged; its flags after its name
rlcore profile --steps 20 --json why.json train.py  # ... and the result as JSON (the findings, the code that ran)"""
INIT = """import rlcore

with rlcore.init(name="my loop", profile=20) as run:   # stored from its first step, live in the dashboard
    for step in range(steps):
        loss = train_step(batch)                      # optimizer updates are found by themselves
        run.log(loss=loss, accuracy=acc)              # tensors are fetched only when a record is made"""
KERAS = """import rlcore.keras

model.fit(x, y, epochs=3, callbacks=[rlcore.keras.Callback(profile=20)])  # batches as steps, xprof's markers"""


def page() -> None:
    store = access.store()
    workload = workloads.get(KIND)
    st.title(workload.title)
    if run_view.show_from_url(store, KIND):
        return
    st.caption(workload.description + " Nothing leaves this machine: runs go to the lab's store, like any run.")
    st.markdown("**Three ways in**, each a run like any other: stored from its first step, live here, judged, "
                "profiled, comparable with the lab's runs. Install the lab into your own environment first: "
                f"`pip install -e {LAB}` (or use the lab's own: `{LAB}/.venv/bin/rlcore`).")
    first, second, third = st.tabs(["A script, unchanged", "One line in your loop", "Keras model.fit"])
    first.code(SCRIPT, language="bash")
    first.caption("Steps are found by themselves: each optimizer update run eagerly, each call of a tf.function "
                  "that applies gradients, each batch of model.fit (it gets the lab's callback).")
    second.code(INIT, language="python")
    third.code(KERAS, language="python")
    runs_table.of_kind(store, KIND, title="Runs of your code", key="your_runs",
                       none_yet="None yet: run one of the three above, or a script here.")
    _run_a_script(store)


def _run_a_script(store: Store) -> None:
    st.subheader("Run a script on this server")
    if not access.is_operator():
        st.caption("An operator can run a script here (its path on this server). " + access.viewer_help())
        return
    left, right = st.columns([2, 1])
    path = left.text_input("script", key="script_path", placeholder="/path/to/train.py",
                           help="A Python file on this server, run as `python FILE ARGS` would run it.")
    args = left.text_input("its arguments", key="script_args", placeholder="--epochs 3",
                           help="As you would type them after the file's name (shell quoting works).")
    steps = right.text_input("profile steps", value="10", key="script_steps",
                             help="Training steps to record with TensorFlow's profiler (0 = none).")
    warmup = right.text_input("warm-up steps", value="10", key="script_warmup",
                              help="Steps before the recorded ones: the first ones trace and compile.")
    if st.button("Run it", type="primary", key="run_script", disabled=not path.strip() or store.read_only) \
            and access.require_operator("run a script"):
        try:
            argv = shlex.split(args)
        except ValueError as e:
            st.error(fmt.md(f"its arguments cannot be read: {e}; close each quote you open.", 300))
            return
        _queue(store, {"path": path, "args": json.dumps(argv), "cwd": str(Path(path).expanduser().parent),
                       "profile": steps, "warmup": warmup, "name": ""}, label="")


def _queue(store: Store, values: dict, label: str) -> None:
    """Queue a script's run through the lab's queue and open its view; one sentence when it cannot be."""
    workload = workloads.get(KIND)
    try:
        prepared = workload.prepare(values) if workload.prepare else values
    except ConfigError as e:
        st.error(fmt.md(str(e), 400))
        return
    queueing.queue_and_open(store, KIND, prepared, label or prepared.get("name", ""))


def again(store: Store, run: Run, metrics: pd.DataFrame) -> None:
    """On a finished script run: the same script, path and arguments, through the queue; says first when the file
    is not what ran (its hash) or is gone."""
    if not access.is_operator() or not run.config.get("path"):
        return
    path = Path(run.config["path"])
    then = run.config.get("sha256") or ((run.environment or {}).get("code") or {}).get("sha256")
    try:
        now = sha256(path)
    except OSError:
        st.caption(fmt.md(f"The script {path} is no longer there as a script (gone, or no regular file now), so "
                          "this run cannot be run again; profile it where it is now: rlcore profile PATH.", 300))
        return
    if then and now != then:
        st.warning(fmt.md(f"{path.name} changed since this run (its content's hash is not the one that ran); "
                          "running it again runs the file as it is now.", 300))
    if st.button("Run this script again", key=f"again_script_{run.id}", icon=":material/replay:",
                 help="The same file, arguments, folder and profile, through the queue.") \
            and access.require_operator("run a script"):
        values = {k: run.config.get(k) for k in ("path", "args", "cwd", "profile", "warmup", "name")}
        _queue(store, values, run.label)


extras.register(KIND, extras.WorkloadViews(page=page, finished=again))
