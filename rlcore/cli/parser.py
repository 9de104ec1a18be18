"""The commands and their flags, generated from the workload registry and the configs."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from rlcore.cli.common import (
    Parser,
    add_config_flags,
)
from rlcore.contract import workloads
from rlcore.runs import executor as executors


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="rlcore", description="TF Training Lab: train and measure from the shell, your own code "
                                               "included (rlcore profile train.py).")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    # The engines there are, even when RLCORE_EXECUTORS names one that cannot be imported: that is said in one
    # sentence when a run is queued, never as a traceback while the flags are made.
    engines = [name for name, _ in executors.EXECUTORS.items()]
    forms = [w for w in workloads.all_workloads() if not w.from_code]
    for workload in forms:
        _workload_command(sub, workload, engines)
    _profile_command(sub, engines)
    kinds = [w.kind for w in forms]
    _sweep_commands(sub, kinds, engines)
    _runs_command(sub)
    _machine_commands(sub)
    _why_command(sub)
    for name in (*kinds, "profile", "sweep", "devices", "cluster", "why"):
        sub.choices[name].add_argument("--verbose", action="store_true",
                                       help="show TensorFlow's own log lines on stderr (default: hidden)")
    return parser


def _workload_command(sub: Any, workload: workloads.Workload, engines: list[str]) -> None:
    cmd = sub.add_parser(workload.kind, help=workload.title, description=workload.description)
    fields = {f.name for f in dataclasses.fields(workload.config)}
    if workload.presets and workload.preset_param not in fields:
        cmd.add_argument(f"--{workload.preset_param}", choices=list(workload.presets),
                         default=workload.default_preset,
                         help=f"named defaults; explicit flags override them (default: {workload.default_preset})")
    add_config_flags(cmd, workload)
    out = cmd.add_argument_group("Output")
    out.add_argument("--json", metavar="FILE", help="write the result as JSON here (default: none)")
    for output in workload.outputs:
        out.add_argument(output.flag, metavar="FILE" + output.suffix, help=f"{output.help} (default: none)")
    out.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
    out.add_argument("--detach", action="store_true",
                     help="queue the run for a background worker and print its id (default: run here)")
    out.add_argument("--label", default="", help="a name for the stored run (default: made from its settings)")
    out.add_argument("--executor", choices=engines, default=None,
                     help="with --detach: where the run executes (default: $RLCORE_EXECUTOR, else local)")


def _profile_command(sub: Any, engines: list[str]) -> None:
    own = sub.add_parser(
        "profile", help="run your own script under the lab: its steps, speed and why it is slow",
        description="Runs SCRIPT as `python SCRIPT ARGS` would (its __main__, its argv, this folder as its working "
                    "directory) and finds its training steps by itself: each optimizer update run eagerly, each call "
                    "of a tf.function that applies gradients, each batch of model.fit (which gets the lab's "
                    "callback). It records the speed, the loss where it is visible and the machine, and a profile "
                    "of --steps steps after --warmup; the run is stored from its first step (the dashboard shows it "
                    "live) and ends with why it is as fast as it is, in your code's words. The lab's flags come "
                    "before the script, the script's own after it. A notebook (NB.ipynb) runs headless in a Jupyter "
                    "kernel, its cells in order, one run across them (the notebook extra).",
        epilog="example: rlcore profile --steps 20 --json out.json train.py --epochs 3  (or: rlcore profile "
               "walk.ipynb)")
    own.add_argument("--steps", default="10", metavar="N",
                     help="training steps to record with TensorFlow's profiler (0 = none; default: 10)")
    own.add_argument("--warmup", default="10", metavar="W",
                     help="training steps before the recorded ones: the first trace and compile (default: 10)")
    own.add_argument("--name", default="", help="a name for the stored run (default: the script's file name)")
    own.add_argument("--try-fixes", action="store_true",
                     help="then run the script again once per fix its findings name that the lab can apply without "
                          "an edit (steps_per_execution, jit_compile, reduce_retracing, the model called instead of "
                          "model.predict, a parallel map and prefetch), and say what each one measured")
    own.add_argument("--fix", action="append", default=[], metavar="NAME",
                     help="run the script with one such fix applied (as --try-fixes does; default: none)")
    own.add_argument("--fix-of", default="0", metavar="RUN", help=argparse.SUPPRESS)
    own.add_argument("--json", metavar="FILE", help="write the result as JSON here (default: none)")
    own.add_argument("--timeout", default="600", metavar="SECONDS",
                     help="a notebook's cells: the longest one cell may run (default: 600)")
    own.add_argument("--detach", action="store_true",
                     help="queue the run for a background worker (it runs the script as here) and print its id")
    own.add_argument("--executor", choices=engines, default=None,
                     help="with --detach: where the run executes (default: $RLCORE_EXECUTOR, else local)")
    own.add_argument("program", metavar="SCRIPT", nargs="?", default="",
                     help="your script, run as python SCRIPT would run it")
    own.add_argument("args", nargs=argparse.REMAINDER, help="its own arguments")


def _sweep_commands(sub: Any, kinds: list[str], engines: list[str]) -> None:
    sweep = sub.add_parser(
        "sweep", help="run a grid or random search over settings x seeds, and say which setting wins",
        description="A sweep is one workload, fixed values (--set), value lists whose product is the grid (--grid), "
                    "ranges drawn --random times (--range), times a list of seeds. Names are the workload's flag "
                    "names (exec, lr, batch); values are checked like the flags'. Every member is validated "
                    "before anything is queued. Free-text fields (the bench's batch list) separate values with |.",
        epilog="example: python -m rlcore sweep turbo --grid lr=3e-3,1e-2,3e-2 --grid games=128,512 --seeds 0,1,2")
    sweep.add_argument("kind", choices=kinds, help="the workload")
    sweep.add_argument("--preset", help="named defaults of the workload (HJB: seed, accurate)")
    sweep.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a fixed value")
    sweep.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                       help="values to try; several --grid give their product")
    sweep.add_argument("--random", default="0", metavar="N", help="random draws from the --range settings")
    sweep.add_argument("--range", action="append", default=[], metavar="NAME=SCALE:LO:HI",
                       help="where a draw comes from: uniform:0:1, log:1e-4:1e-2, int:32:256, logint:16:1024, "
                            "choice:static,player")
    sweep.add_argument("--seeds", default="", metavar="0,1,2", help="run every setting once per seed")
    sweep.add_argument("--sweep-seed", default="0", metavar="S", help="seed of the random draws (default: 0)")
    sweep.add_argument("--label", default="", help="a name for the sweep")
    sweep.add_argument("--executor", choices=engines, default=None,
                       help="where the members execute (default: $RLCORE_EXECUTOR, else local)")
    sweep.add_argument("--detach", action="store_true", help="queue the members and print the sweep's id")
    sweep.add_argument("--json", metavar="FILE", help="write the sweep and its results per setting as JSON here")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")

    sweeps = sub.add_parser("sweeps", help="list, show, cancel, export or delete stored sweeps")
    sweeps_sub = sweeps.add_subparsers(dest="sweeps_command", required=True, parser_class=Parser)
    sweeps_sub.add_parser("list", help="every sweep, newest first").add_argument("--json", action="store_true")
    sweeps_show = sweeps_sub.add_parser("show", help="a sweep's members and its results per setting")
    sweeps_show.add_argument("id")
    sweeps_show.add_argument("--json", action="store_true", help="print JSON (default: a table)")
    sweeps_export = sweeps_sub.add_parser("export", help="a sweep's results per setting as CSV")
    sweeps_export.add_argument("id")
    sweeps_export.add_argument("--csv", required=True, metavar="FILE")
    for name, text in (("cancel", "cancel every live member"), ("delete", "delete the sweep and its runs")):
        sweeps_sub.add_parser(name, help=text).add_argument("id")


def _runs_command(sub: Any) -> None:
    runs = sub.add_parser("runs", help="list, show, export, cancel, label or delete stored runs ($RLCORE_HOME)")
    runs_sub = runs.add_subparsers(dest="runs_command", required=True, parser_class=Parser)
    runs_list = runs_sub.add_parser("list", help="every run, newest first")
    runs_list.add_argument("--json", action="store_true", help="print JSON (default: a table)")
    for flag, text in (("--kind", "of this workload"), ("--status", "with this status"), ("--style", "of this style"),
                       ("--tag", "filed under this tag"), ("--cause", "whose leading cause holds this (predict)"),
                       ("--script", "whose script's path holds this"), ("--label", "whose label holds this")):
        runs_list.add_argument(flag, action="append" if flag in ("--kind", "--status", "--style", "--tag") else None,
                               default=[] if flag in ("--kind", "--status", "--style", "--tag") else "",
                               help=f"only runs {text}")
    runs_list.add_argument("--min-speed", default=None, metavar="N", help="only runs at least this fast (steps/s)")
    runs_list.add_argument("--max-speed", default=None, metavar="N", help="only runs at most this fast (steps/s)")
    runs_show = runs_sub.add_parser("show", help="one run: status, verdict, error, config, summary")
    runs_show.add_argument("id")
    runs_show.add_argument("--json", action="store_true", help="print JSON (default: text)")
    runs_export = runs_sub.add_parser("export", help="a run's metrics as CSV, or as TensorBoard event files (with "
                                                     "its profile) for tensorboard --logdir")
    runs_export.add_argument("id")
    runs_export.add_argument("--csv", metavar="FILE", help="where to write the CSV")
    runs_export.add_argument("--tensorboard", metavar="DIR",
                             help="a folder to write the run's scalars and profile into (made if missing)")
    for name, text in (("cancel", "stop a queued or running run"), ("delete", "delete a run, its metrics and files")):
        runs_sub.add_parser(name, help=text).add_argument("id")
    for name, text in (("tag", "file a run under tags"), ("untag", "take tags off a run")):
        cmd = runs_sub.add_parser(name, help=text)
        cmd.add_argument("id")
        cmd.add_argument("tags", nargs="+", metavar="TAG")
    for name, text in (("label", "rename a run"), ("notes", "replace a run's notes")):
        cmd = runs_sub.add_parser(name, help=text)
        cmd.add_argument("id")
        cmd.add_argument("text")


def _why_command(sub: Any) -> None:
    why = sub.add_parser(
        "why", help="read a TensorFlow profile made anywhere (a logdir, a run folder, one .xplane.pb)",
        description="Reads a capture made anywhere: Keras's TensorBoard(profile_batch=...), "
                    "tf.profiler.experimental.start/stop, xprof on a GPU machine, a Colab logdir. PATH is a logdir "
                    "laid out as TensorBoard's profile plugin lays it out (LOGDIR/plugins/profile/RUN/HOST.xplane.pb: "
                    "its newest run, or --run NAME), a run's folder, or one .xplane.pb. It says each step's parts as "
                    "measured (on a GPU: the device's compute, its idle time, input, kernel launches, 16-bit share) "
                    "and what they point at; a capture the lab made is read with its own engine. The capture is stored "
                    "as a run (kind capture, a copy of the file in the run's folder): listed, its Why panel in the "
                    "dashboard, comparable with any run.",
        epilog="example: rlcore why logs/  (or: rlcore why logs/plugins/profile/2026_12_03/host.xplane.pb --json "
               "out.json)")
    why.add_argument("path", metavar="PATH", help="a logdir, a run folder or one .xplane.pb")
    why.add_argument("--run", metavar="NAME", help="the run of a logdir to read (default: the newest)")
    why.add_argument("--json", metavar="FILE", help="write the reading as JSON here (default: none)")
    why.add_argument("--name", default="", help="the run's name (default: the capture's run and file)")


def _machine_commands(sub: Any) -> None:
    sub.add_parser("operator-hash", help="ask for an operator passphrase and print the hash line the dashboard needs",
                   description="Reads a passphrase (twice at a terminal, one line from a pipe) and prints the line "
                               "to set (RLCORE_OPERATOR_HASH=...) or to paste into .streamlit/secrets.toml. The "
                               "passphrase itself is never printed or stored.")

    cluster = sub.add_parser("cluster", help="show the Ray cluster the Ray executor uses (nodes, CPUs, GPUs)")
    cluster.add_argument("--address", help="the cluster (default: $RLCORE_RAY_ADDRESS, else the local one)")
    cluster.add_argument("--json", action="store_true", help="print JSON")

    devices = sub.add_parser("devices", help="show the CPU, GPUs and TensorFlow version this machine offers")
    devices.add_argument("--json", action="store_true", help="print JSON instead of text (default: off)")
