"""The command line's entry: parse, keep TensorFlow's log lines off stderr, hand the command to its part."""


from __future__ import annotations

import os
from collections.abc import Sequence

from rlcore.cli.common import _fail
from rlcore.cli.machine import _run_cluster, _run_devices, _run_operator_hash
from rlcore.cli.parser import build_parser
from rlcore.cli.stored import _run_runs, _run_sweep, _run_sweeps
from rlcore.cli.train import _run_workload
from rlcore.contract import workloads
from rlcore.tracking.machine import quiet_native_logs

VERBOSE_ENV = "RLCORE_VERBOSE"  # 1: TensorFlow's own log lines stay on stderr (as --verbose)


def main(argv: Sequence[str] | None = None, *, process: bool = False) -> int:
    """The command line; ``process``: this is the process's own entry (``python -m rlcore``), whose stderr is
    then kept free of TensorFlow's C++ log lines."""
    from rlcore.runs.store import StoreError

    args = build_parser().parse_args(argv)
    if process and not (getattr(args, "verbose", False) or os.environ.get(VERBOSE_ENV) == "1"):
        quiet_native_logs()  # before TensorFlow is imported: its C++ start-up lines are noise to a user
    commands = {"devices": _run_devices, "runs": _run_runs, "sweep": _run_sweep,
                "sweeps": _run_sweeps, "cluster": _run_cluster, "operator-hash": _run_operator_hash}
    try:
        if args.command in commands:
            return commands[args.command](args)
        return _run_workload(workloads.get(args.command), args)
    except StoreError as e:
        return _fail(str(e))
