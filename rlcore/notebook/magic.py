"""``%load_ext rlcore``: ``%%rlcore`` profiles a cell as ``rlcore profile`` profiles a script (its training steps
found by themselves: eager updates, ``tf.function`` steps, ``model.fit``), and shows the why in the cell with the
cell's own lines (``In [5], line 3``); ``%rlcore why`` shows the last run's why again, ``%rlcore runs`` lists this
notebook's runs. The cell runs as written, through IPython (its own magics and ``!`` lines included).

    %%rlcore --steps 20 --name "my loop"
    for step in range(300):
        loss = train_step(x, y)
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from rlcore.contract.status import RunStatus
from rlcore.tracking import kernel

USAGE = ("%%rlcore [--steps N] [--warmup N] [--name NAME] [--try-fixes] profiles the cell; %rlcore why shows "
         "the last run's why again; %rlcore runs lists this notebook's runs")
_RUNS: list[tuple[int, str, bool]] = []  # (run id, store home, a fix tried) of this kernel's runs, oldest first


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one sentence in the cell, never SystemExit's traceback
        raise ValueError(f"{message} ({USAGE})")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="%%rlcore", add_help=False)
    parser.add_argument("--steps", type=int, default=20, help="training steps to profile after warm-up (0: none)")
    parser.add_argument("--warmup", type=int, default=5, help="training steps before them (they trace, compile)")
    parser.add_argument("--name", default="", help="the run's name (default: the notebook's)")
    parser.add_argument("--try-fixes", action="store_true",
                        help="then run the cell again once per fix its causes name that the lab applies without "
                             "an edit")
    return parser


def rlcore_magic(line: str, cell: str | None = None) -> None:
    """``%%rlcore`` (a cell) or ``%rlcore why|runs`` (a line)."""
    if cell is None:
        return _line(line.strip())
    try:
        args = _parser().parse_args(shlex.split(line))
        if args.steps < 0 or args.warmup < 0:
            raise ValueError(f"--steps and --warmup are counts of steps, 0 or more ({USAGE})")
    except ValueError as e:
        print(f"rlcore: {e}")
        return None
    run_id = profile_cell(cell, steps=args.steps, warmup=args.warmup, name=args.name)
    if args.try_fixes and run_id is not None:
        try_fixes(cell, run_id, name=args.name)
    return None


def profile_cell(cell: str, *, steps: int, warmup: int, name: str = "", fix: str = "", fix_of: int = 0,
                 show: bool = True) -> int | None:
    """Run the cell as written under a run of the lab (``rlcore.init``; ``fix``: with that fix put on), then its
    why in the cell; the run's id."""
    from rlcore.runs.own import init  # rlcore.init, with the fix a try puts on

    shell = kernel.ipython()
    if shell is None:
        print("rlcore: %%rlcore runs in IPython or a Jupyter kernel.")
        return None
    try:
        run = init(name, profile=steps, warmup=warmup, fix=fix, fix_of=fix_of)
    except ValueError as e:  # a name that is no name, a plug-in that cannot load: one sentence
        print(f"rlcore: {e}")
        return None
    if run.id is not None:
        _RUNS.append((run.id, str(run._store.home) if run._store is not None else "", bool(fix)))
    # The cell is In [N]: the execution count moved past it as it began (IPython counts a stored cell first).
    this_cell = shell.execution_count - 1
    known = set(getattr(shell.compile, "_filename_map", {}))
    result = shell.run_cell(cell, store_history=False)
    # The cell's code ran as a nested cell, filed under the next count: it is this cell's (In [N]), said so.
    for filename in set(getattr(shell.compile, "_filename_map", {})) - known:
        kernel.ran_below_a_magic(filename, this_cell)
    error = result.error_in_exec or result.error_before_exec
    if error is None:
        run.finish(show=show)
    elif isinstance(error, KeyboardInterrupt):
        run.finish(RunStatus.CANCELLED, "interrupted (the kernel's stop button)", show=show)
    else:
        run.finish(RunStatus.FAILED, f"In [{this_cell}]: {type(error).__name__}: {error}"[:500], show=show)
    return run.id


def try_fixes(cell: str, run_id: int, *, name: str = "") -> None:
    """The cell run again once per fix its run's causes name that the lab applies without an edit (its patches on
    for that run only), each a run linked to the first; then what each measured beside it. Run again in the same
    kernel: a cell that depends on state it changes (a model it trains further) is measured as it then is."""
    from IPython.display import display

    from rlcore.runs import history
    from rlcore.runs.store import Store

    store = Store(next((home for i, home, _ in _RUNS if i == run_id), None) or None)
    run = store.get_run(run_id)
    profile = run.summary.profile if run is not None and run.summary is not None else None
    names = list(dict.fromkeys(f.try_fix for f in (profile.findings if profile is not None else ()) if f.try_fix))
    if not names:
        print("rlcore: no fix to try without an edit: the changes named above need one in the code.")
        return
    for fix in names:
        print(f"rlcore: trying {fix} on run {run_id}'s cell ...")
        profile_cell(cell, steps=0, warmup=0, name=f"{run.label} + {fix}"[:200], fix=fix, fix_of=run_id, show=False)
    tries = history.tries_of(store, run)
    said = ["Tried, the same cell with one change each:", *(f"  {line}" for line in history.tries_sentence(tries))]
    display({"text/plain": "\n".join(said)}, raw=True)


def _line(line: str) -> None:
    word = line.split()[0] if line else ""
    if word == "why":
        if not _RUNS:
            print("rlcore: no run yet in this kernel: profile a cell with %%rlcore first.")
            return
        from rlcore.notebook import display
        from rlcore.runs.store import Store

        run_id, home = next(((i, h) for i, h, tried in reversed(_RUNS) if not tried), _RUNS[-1][:2])
        display.show(run_id, Store(home or None))
        return
    if word == "runs":
        return _runs()
    print(f"rlcore: {USAGE}.")


def _runs() -> None:
    """This notebook's runs: those this kernel made, and the stored runs named after the notebook."""
    from IPython.display import display

    from rlcore.contract.summary import RunSummary
    from rlcore.notebook.display import headline
    from rlcore.runs.store import Store

    store = Store(_RUNS[-1][1] if _RUNS else None)
    mine = {run_id for run_id, _, _ in _RUNS}
    name = kernel.notebook_name()
    runs = [r for r in store.list_runs() if r.id in mine or (name != kernel.UNNAMED and r.label == name)]
    if not runs:
        print(f"rlcore: no runs of this notebook yet in {store.home}.")
        return
    rows = [(r.id, r.label, headline(r), RunSummary(r.summary or {}).steps) for r in sorted(runs, key=lambda r: r.id)]
    text = "\n".join(f"{i:>5}  {label[:40]:<40}  {said}" for i, label, said, _ in rows)
    table = "".join(f"<tr><td>{i}</td><td>{_escape(label)}</td><td>{_escape(said)}</td></tr>" for i, label, said, _
                    in rows)
    display({"text/plain": text, "text/html": f"<table><tr><th>run</th><th>name</th><th>result</th></tr>{table}"
                                              "</table>"}, raw=True)


def _escape(text: str) -> str:
    import html

    return html.escape(text)


def load(ipython: Any) -> None:
    """``%load_ext rlcore``: the magics registered, TensorFlow's C++ log lines kept out of the cells from now on
    (``RLCORE_NATIVE_LOGS=1`` keeps them)."""
    ipython.register_magic_function(rlcore_magic, magic_kind="line_cell", magic_name="rlcore")
    kernel.quiet_native_logs()
