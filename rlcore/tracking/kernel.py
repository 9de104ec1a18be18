"""This process as a Jupyter kernel (IPython's own APIs, nothing of the kernel's imported unless it is one): whether
it is one and where it runs (Colab, as TensorBoard's notebook module tells), the notebook it runs (its path where the
kernel knows it), and the file of a cell named as a person reads it: ``In [5]``, or ``walk.ipynb, cell 7 (In [7])``
when the lab runs the notebook itself (``rlcore profile walk.ipynb``).

A kernel compiles each cell under a file of its own (``$TMPDIR/ipykernel_<pid>/<hash>.py``) and keeps the execution
count of each in ``get_ipython().compile._filename_map``; plain IPython names cells ``<ipython-input-N-...>``. Some
front ends set ``IPYKERNEL_CELL_NAME``, which gives every cell one file name: a cell is then found by its line's code
in the input history.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

from rlcore.contract import settings


def quiet_native_logs() -> None:
    """In a kernel, TensorFlow's and its profiler's C++ log lines (written to the process's descriptor 2, which a
    kernel copies into the cell: "Profiler session started", "failed call to cuInit") are left out of the cells from
    now on, unless asked for (``RLCORE_NATIVE_LOGS=1``); Python's own stderr is the kernel's stream and still shows."""
    from rlcore.tracking.machine import quiet_native_logs as filtered

    if in_kernel() and not settings.NATIVE_LOGS.flag():
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # read when TensorFlow starts, if it has not yet
        filtered(python_stderr=False)
NOTEBOOK_ENV = settings.NOTEBOOK.name  # the lab's headless run (rlcore profile NB.ipynb) sets it for its kernel
UNNAMED = "notebook"
_LINES_ABOVE: dict[str, int] = {}  # a cell's file -> the lines above its code in the cell as shown (%%rlcore's)
_CELL_OF_COUNT: dict[int, int] = {}  # execution count -> the cell's place in the notebook (0-based), when the lab
# runs the notebook and says which cell comes next


def ipython() -> Any | None:
    """The running IPython shell, or None (IPython is never imported here)."""
    module = sys.modules.get("IPython")
    if module is None:
        return None
    try:
        return module.get_ipython()
    except Exception:  # an IPython half torn down at exit
        return None


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (TensorBoard's test: the shell has a ``kernel`` trait)."""
    shell = ipython()
    return shell is not None and bool(getattr(shell, "has_trait", lambda name: False)("kernel"))


def in_colab() -> bool:
    """Whether the kernel is Colab's (TensorBoard's test: ``google.colab`` imports), where the person's browser
    cannot reach a server on the kernel's machine by its loopback address."""
    if "google.colab" in sys.modules:
        return True
    try:
        return importlib.util.find_spec("google.colab") is not None
    except (ImportError, ValueError):
        return False


def notebook_path() -> str:
    """The notebook this kernel runs, as far as it is told: the lab's own headless run, Jupyter's server
    (``JPY_SESSION_NAME``), VS Code (``__vsc_ipynb_file__``); "" when nothing says."""
    said = settings.NOTEBOOK.text() or os.environ.get("JPY_SESSION_NAME") or ""
    shell = ipython()
    if not said and shell is not None:
        said = str(shell.user_ns.get("__vsc_ipynb_file__") or shell.user_ns.get("__session__") or "")
    return said if said.endswith(".ipynb") else ""


def notebook_name() -> str:
    """What a notebook's run is called: the notebook's file name, else "notebook" (never ipykernel_launcher.py)."""
    path = notebook_path()
    return Path(path).name if path else UNNAMED


def ran_below_a_magic(filename: str, count: int, lines_above: int = 1) -> None:
    """A cell magic ran the cell's code as a nested cell (``%%rlcore``): its file is the cell ``In [count]``, and
    its line 1 is the cell's line 2 as the person sees it."""
    shell = ipython()
    if shell is not None:
        shell.compile._filename_map[filename] = count
        _LINES_ABOVE[filename] = lines_above


def line_in_cell(filename: str, line: int) -> int:
    """A line of a cell's code as the person's cell numbers it (the magic's line above counted)."""
    return line + _LINES_ABOVE.get(filename, 0)


def next_cell(index: int) -> None:
    """The lab running a notebook says which cell (its place, 0-based) the next execution count runs."""
    shell = ipython()
    if shell is not None:
        _CELL_OF_COUNT[int(shell.execution_count)] = index


_INPUT = re.compile(r"<ipython-input-(\d+)-[0-9a-f]+>")


def cell_of(filename: str, line: int = 0, code: str = "") -> str | None:
    """A cell's file as a person reads it ("In [5]", "walk.ipynb, cell 7 (In [7])"), or None for a file that is no
    cell of this kernel."""
    shell = ipython()
    if shell is None:
        return None
    count = None
    if filename and filename == os.environ.get("IPYKERNEL_CELL_NAME"):
        count = _count_by_code(shell, line, code)
        if count is None:
            return "a cell"
    if count is None:
        count = getattr(getattr(shell, "compile", None), "_filename_map", {}).get(filename)
    if count is None:
        matched = _INPUT.match(filename or "")
        count = int(matched.group(1)) if matched else None
    if count is None:
        return None
    said = f"In [{count}]"
    index = _CELL_OF_COUNT.get(int(count))
    path = notebook_path()
    return f"{Path(path).name}, cell {index + 1} ({said})" if index is not None and path else said


def _count_by_code(shell: Any, line: int, code: str) -> int | None:
    """The latest cell whose line ``line`` is ``code`` (every cell shares one file name under IPYKERNEL_CELL_NAME)."""
    history = shell.user_ns.get("In") or []
    wanted = code.strip()
    if not wanted or line < 1:
        return None
    for count in range(len(history) - 1, 0, -1):
        lines = str(history[count]).splitlines()
        if len(lines) >= line and lines[line - 1].strip() == wanted:
            return count
    return None


def source_line(filename: str, line: int) -> str:
    """A cell's line from IPython's own cache (``linecache``, where a kernel keeps every cell's lines)."""
    import linecache

    return linecache.getline(filename, line).strip()

