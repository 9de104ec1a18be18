"""The command line's entry: parse, keep TensorFlow's log lines off stderr, hand the command to its part."""


from __future__ import annotations

import sys
from collections.abc import Sequence

from rlcore.cli.common import fail, moved_command
from rlcore.cli.machine_commands import run_cluster, run_devices, run_operator_hash
from rlcore.cli.parser import build_parser
from rlcore.cli.stored import run_runs, run_sweep, run_sweeps
from rlcore.cli.train import run_profile, run_workload
from rlcore.cli.why_command import run_why
from rlcore.contract import settings, workloads
from rlcore.tracking.machine import quiet_native_logs

VERBOSE_ENV = settings.VERBOSE.name  # 1: TensorFlow's own log lines stay on stderr (as --verbose)


def main(argv: Sequence[str] | None = None, *, process: bool = False) -> int:
    """The command line; ``process``: this is the process's own entry (``python -m rlcore``), whose stderr is
    then kept free of TensorFlow's C++ log lines."""
    from rlcore.contract.params import ConfigError
    from rlcore.runs.store import StoreError

    try:
        parser = build_parser()  # it lists the registered workloads: a bad RLCORE_WORKLOADS is one sentence
    except ConfigError as e:
        return fail(str(e))
    moved = moved_command(sys.argv[1:] if argv is None else argv)
    if moved is not None:
        return fail(moved)
    args = parser.parse_args(argv)
    if process and not (getattr(args, "verbose", False) or settings.VERBOSE.text() == "1"):
        quiet_native_logs()  # before TensorFlow is imported: its C++ start-up lines are noise to a user
    commands = {"devices": run_devices, "runs": run_runs, "sweep": run_sweep, "profile": run_profile,
                "sweeps": run_sweeps, "cluster": run_cluster, "operator-hash": run_operator_hash, "why": run_why}
    try:
        if args.command in commands:
            return commands[args.command](args)
        return run_workload(workloads.get(args.command), args)
    except (StoreError, ConfigError) as e:  # a storage fault; a bad setting found only once work began
        return fail(str(e))
    except BrokenPipeError:  # `rlcore runs list | head`: a reader that stopped reading is a normal end
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush writes nowhere
        return 0


def entry() -> None:
    """The ``rlcore`` console command (``pip install -e <lab>`` makes it)."""
    raise SystemExit(main(process=True))
