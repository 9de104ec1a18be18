"""The lab's own Python on a tracked script's training thread, measured inside the run: the seed's HJB script under
`rlcore profile`, with a timer around the lab's wrapper of each tf.function call (less the call itself), and
Python's garbage collector timed by its callbacks. A process-level ratio (`tracking_cost.py`) moves by ±10% between
runs on this machine; this says what the lab's own per-step code costs, run by run. ``--fit``: the `model.fit`
script of tracking_cost.py instead (``--epochs`` its epochs of 128 batches), the lab's callback's two batch hooks
timed. ``--against TREE``: each run also with the lab's code of another checkout (a `git worktree add /tmp/old
COMMIT`), alternating, so a change is measured before and after in one run.

    .venv/bin/python benchmarks/tracking_per_call.py --runs 3 --epochs 10000 [--plain]
    .venv/bin/python benchmarks/tracking_per_call.py --runs 4 --epochs 8 --fit --against /tmp/old
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scripts import seed_hjb_script
from tracking_cost import FIT

# Loaded by the run's interpreter (sitecustomize) before the lab: times what it wraps, writes one line at exit.
TIMER = '''
import atexit, gc, os, statistics, sys, time
OUT = os.environ["PER_CALL_OUT"]
gc_time, gc_count, started = [0.0], [0, 0, 0], [0.0]
def _gc(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        gc_time[0] += time.perf_counter() - started[0]
        gc_count[info["generation"]] += 1
gc.callbacks.append(_gc)
lab = []
if os.environ.get("PER_CALL_TRACKED"):
    from rlcore.tracking.hooks import steps
    made = steps.AutoSteps._function_call
    def _function_call(self, original):
        inside = [0]
        def timed(function, *args, **kwargs):
            t0 = time.perf_counter_ns()
            try:
                return original(function, *args, **kwargs)
            finally:
                inside[0] += time.perf_counter_ns() - t0
        wrapped = made(self, timed)
        def outer(function, *args, **kwargs):
            t0, before = time.perf_counter_ns(), inside[0]
            try:
                return wrapped(function, *args, **kwargs)
            finally:
                lab.append(time.perf_counter_ns() - t0 - (inside[0] - before))
        return outer
    steps.AutoSteps._function_call = _function_call
if os.environ.get("PER_CALL_FIT"):
    from rlcore.workloads.script import keras_callback
    for hook in ("on_train_batch_begin", "on_train_batch_end"):
        def timed_hook(callback, batch, logs=None, _original=getattr(keras_callback.LabCallback, hook)):
            t0 = time.perf_counter_ns()
            try:
                return _original(callback, batch, logs)
            finally:
                lab.append(time.perf_counter_ns() - t0)
        setattr(keras_callback.LabCallback, hook, timed_hook)
def _report():
    calls = [a + b for a, b in zip(lab[400::2], lab[401::2])] if os.environ.get("PER_CALL_FIT") else lab[200:]
    with open(OUT, "a") as out:
        per_call = (f"lab per call median {statistics.median(calls) / 1e3:.1f} us, mean "
                    f"{statistics.mean(calls) / 1e3:.1f} us; " if calls else "")
        print(f"{per_call}gc {gc_time[0] * 1e3:.0f} ms in {gc_count} collections", file=out)
atexit.register(_report)
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=10000)
    parser.add_argument("--plain", action="store_true", help="also run the script plain (its GC time alone)")
    parser.add_argument("--fit", action="store_true", help="the model.fit script, the callback's batch hooks timed")
    parser.add_argument("--against", type=Path, help="another checkout's lab, run alternating with this one")
    args = parser.parse_args()
    if args.against is not None and not (args.against / "rlcore").is_dir():
        parser.error(f"--against {args.against}: no rlcore package there (a checkout of this repository is)")
    folder = Path(tempfile.mkdtemp(prefix="tracking-per-call-"))
    (folder / "shim").mkdir()
    (folder / "shim" / "sitecustomize.py").write_text(TIMER)
    script = folder / ("fit.py" if args.fit else "seed_hjb.py")
    script.write_text(FIT if args.fit else seed_hjb_script())
    out = folder / "lines.txt"
    env = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2", "RLCORE_HOME": str(folder / "home"), "PER_CALL_OUT": str(out),
                        "PYTHONPATH": os.pathsep.join([str(folder / "shim"), str(ROOT)])}
    tracked = [sys.executable, "-m", "rlcore", "profile", "--steps", "20"]
    hooks = {"PER_CALL_FIT": "1"} if args.fit else {"PER_CALL_TRACKED": "1"}
    sides = [("tracked", tracked, hooks)]
    if args.against is not None:
        other = os.pathsep.join([str(folder / "shim"), str(args.against.resolve())])
        sides.insert(0, (f"tracked by {args.against}", tracked, hooks | {"PYTHONPATH": other}))
    if args.plain:
        sides.append(("plain", [sys.executable], {}))
    for i in range(args.runs):
        for name, command, extra in sides:
            out.write_text("")
            subprocess.run([*command, str(script), str(args.epochs)], env=env | extra, cwd=folder,
                           capture_output=True, timeout=1800, check=True)
            print(f"run {i + 1} {name}: {out.read_text().strip()}", flush=True)


if __name__ == "__main__":
    main()
