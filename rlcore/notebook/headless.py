"""``rlcore profile notebook.ipynb``: the notebook run headless in a real Jupyter kernel (nbclient), with the lab
inside it: one run across its cells (``rlcore.init`` in the kernel, before the first cell), steps found as in a
script, ``where`` as ``walk.ipynb, cell 7 (In [7]), line 3``. A cell that raises ends the run failed with the cell's
number and the error's last line; ``timeout`` bounds each cell (nbclient's own per-cell timeout).

Both ends live here: ``execute`` in the command's process drives the kernel; ``begin``/``next_cell``/``end`` run in
the kernel, called by cells the lab adds that store no history (so the notebook's own cells keep their ``In [N]``).
"""

from __future__ import annotations

import dataclasses
import os
import queue
import re
import tempfile
from pathlib import Path
from typing import Any

from rlcore.contract.status import RunStatus
from rlcore.tracking import kernel

INSTALL = "pip install -r requirements-notebook.txt"
_RUN: Any = None  # the kernel's run (an OwnRun), between begin and end
_RUN_LINE = re.compile(r"RLCORE_RUN (\d+)")
# A bound on the lab's own steps in the kernel (its start imports TensorFlow; its end reads the profile), never a speed.
ENDING_SECONDS = 300.0


class NotebookError(ValueError):
    """Why a notebook cannot be run, in one sentence (nothing stored)."""


@dataclasses.dataclass(frozen=True)
class Executed:
    """What running the notebook did: its run, and the error that ended it early ("" when every cell ran)."""

    run_id: int
    error: str = ""
    cells: int = 0  # code cells run


# ---------------------------------------------------------------- in the kernel

def begin(name: str, steps: int, warmup: int) -> None:
    """The notebook's run, started before its first cell; its id said for the command."""
    global _RUN
    import rlcore

    _RUN = rlcore.init(name=name, profile=steps, warmup=warmup)
    print(f"RLCORE_RUN {_RUN.id}")


def next_cell(index: int) -> None:
    kernel.next_cell(index)


def end(error: str = "") -> None:
    """The run ended: done, or failed with the cell and its error; nothing shown in the cell (the command says it)."""
    if _RUN is not None:  # the command prints the why, not the kernel's last cell
        _RUN.finish(RunStatus.FAILED, error, show=False) if error else _RUN.finish(show=False)


# ---------------------------------------------------------------- in the command's process

def read(path: str | Path) -> Any:
    """The notebook, or one sentence: no file, not a notebook nbformat reads, no code cells."""
    try:
        import nbformat
    except ImportError:
        raise NotebookError(f"Running a notebook needs the notebook extra: {INSTALL}.") from None
    path = Path(path)
    if not path.is_file():
        raise NotebookError(f"There is no notebook at {path}.")
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as e:  # JSON that is no notebook, a newer format, a binary file
        raise NotebookError(f"{path} is not a notebook nbformat can read ({type(e).__name__}: "
                            f"{str(e).strip().splitlines()[0][:160] if str(e).strip() else 'no reason'}).") from None
    if not any(c.cell_type == "code" and c.source.strip() for c in notebook.cells):
        raise NotebookError(f"{path} has no code cell to run.")
    return notebook


def execute(path: str | Path, *, steps: int, warmup: int, name: str = "", timeout: float | None = 600,
            write_to: Path | None = None) -> Executed:
    """Run every code cell of the notebook in a fresh kernel (in the notebook's folder) under one run of the lab."""
    path = Path(path).resolve()
    notebook = read(path)
    try:
        from jupyter_core.utils import run_sync
        from nbclient import NotebookClient
        from nbclient.exceptions import DeadKernelError
    except ImportError:
        raise NotebookError(f"Running a notebook needs the notebook extra: {INSTALL}.") from None
    os.environ[kernel.NOTEBOOK_ENV] = str(path)  # the kernel inherits it: its run and cells are the notebook's
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})

    def control(code: str, bound: float = ENDING_SECONDS) -> str:
        """The lab's own code in the kernel, outside the notebook: no cell, no history, no execution count."""
        said: list[str] = []

        def heard(message: dict[str, Any]) -> None:
            content = message.get("content", {})
            if message.get("msg_type") == "stream":
                said.append(str(content.get("text", "")))
            elif message.get("msg_type") == "error":
                said.append(f"{content.get('ename')}: {content.get('evalue')}")

        run_sync(client.kc.execute_interactive)(code, store_history=False, output_hook=heard, timeout=bound)
        return "".join(said)

    # The kernel's own start-up lines ("Kernel is running over TCP without encryption" on loopback) are no cell's:
    # kept aside, and said only if the kernel dies.
    with tempfile.TemporaryFile() as kernel_log:
        try:
            with client.setup_kernel(stderr=kernel_log):
                run_id, error, ran = _cells(client, notebook, control, path, name, steps, warmup, timeout)
        except DeadKernelError:
            kernel_log.seek(0)
            last = kernel_log.read().decode("utf-8", "replace").strip().splitlines()[-1:]
            raise NotebookError(f"The notebook's kernel died ({last[0][:200] if last else 'no message'}).") from None
    _clean(notebook)
    if write_to is not None:
        import nbformat

        nbformat.write(notebook, write_to)
    return Executed(run_id, error, ran)


def _cells(client: Any, notebook: Any, control: Any, path: Path, name: str, steps: int, warmup: int,
           timeout: float | None) -> tuple[int, str, int]:
    """The lab's run begun, each code cell in order (the first that raises or overruns ends it), the run ended."""
    from jupyter_core.utils import run_sync
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    error, ran = "", 0
    said = control("import rlcore.notebook.headless as _rlcore_headless\n"
                   f"_rlcore_headless.begin({name or path.name!r}, {int(steps)}, {int(warmup)})")
    found = _RUN_LINE.search(said)
    if found is None:
        raise NotebookError(f"The kernel could not start the lab's run: {said.strip()[-300:] or 'no output'} "
                            "(the kernel's Python must have the lab: pip install -e THE_LAB).")
    run_id = int(found.group(1))
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        control(f"_rlcore_headless.next_cell({index})")
        try:
            client.execute_cell(cell, index)
            ran += 1
        except CellTimeoutError:
            error = f"cell {index + 1} ran longer than the {timeout:,.0f} s a cell may (--timeout)"
            break
        except CellExecutionError as e:
            last = str(getattr(e, "evalue", "") or "").strip().splitlines()
            count = f" (In [{cell.execution_count}])" if cell.get("execution_count") else ""
            error = (f"cell {index + 1}{count} raised {getattr(e, 'ename', 'an error')}"
                     + (f": {last[-1][:300]}" if last else ""))
            ran += 1
            break
    if error and "longer than" in error:
        run_sync(client.km.interrupt_kernel)()  # the cell that overran is stopped, so the run can end
    try:
        control(f"_rlcore_headless.end({error!r})")
    except (TimeoutError, RuntimeError, queue.Empty):  # a kernel that does not answer: its run is ended from here
        from rlcore.contract.status import RunStatus
        from rlcore.runs.lifecycle import RunLifecycle
        from rlcore.runs.store import Store

        RunLifecycle.ended_elsewhere(Store(), run_id, RunStatus.FAILED,
                                     (error or "the notebook's kernel stopped answering") + "; the kernel was stopped")
    return run_id, error, ran


def _clean(notebook: Any) -> None:
    """TensorFlow's own C++ lines (the kernel's start-up, before the lab's filter) out of the cells' outputs."""
    from rlcore.tracking.machine import NATIVE_LINE

    for cell in notebook.cells:
        kept = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                lines = str(output.get("text", "")).splitlines(keepends=True)
                output["text"] = "".join(line for line in lines if not NATIVE_LINE.match(line.encode()))
                if not output["text"]:
                    continue
            kept.append(output)
        cell["outputs"] = kept
