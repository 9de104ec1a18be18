"""Where, in the person's code: the frame of their call behind a hook (the lab's and libraries' own frames
passed over), and a function's def line past its decorators."""

from __future__ import annotations

import functools
import os
import sys
from typing import Any


def _lab_and_library_roots() -> tuple[str, ...]:
    """Folders whose code is not the person's: Python's own and installed packages, and the lab's harness (the
    lab's own workloads are code like a person's: their lines are named)."""
    import sysconfig
    from pathlib import Path

    lab = Path(__file__).resolve().parents[2]  # rlcore/
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots |= {str(lab / part) for part in ("contract", "tracking", "runs", "cli", "workloads/script")}
    roots |= {str(lab / "__init__.py"), str(lab / "keras.py")}
    return tuple(os.path.realpath(r) for r in roots)


_NOT_THEIRS = _lab_and_library_roots()


@functools.lru_cache(maxsize=4096)
def _persons(filename: str) -> bool:
    if filename.startswith("<ipython-input-"):  # a cell of plain IPython
        return True
    if not filename or filename.startswith("<"):
        return False
    return not os.path.realpath(filename).startswith(_NOT_THEIRS)


def person_frame(skip: int = 2) -> tuple[str, int, str] | None:
    """(file, line, function) of the innermost frame of the person's own code that led here, or None."""
    frame = sys._getframe(skip)
    while frame is not None:
        if _persons(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
        frame = frame.f_back
    return None


NEAR = 4  # frames from a hook to the person's call: .numpy() -> _numpy, float() -> __float__ -> _numpy


def called_by_person(near: int = NEAR) -> bool:
    """Whether the person's own code made this call itself (within a few frames of the hook), not a library on its
    behalf (Keras's logs, a gradient's shape checks)."""
    frame = sys._getframe(2)
    for _ in range(near):
        if frame is None:
            return False
        if _persons(frame.f_code.co_filename):
            return True
        frame = frame.f_back
    return False


def defined_at(function: Any, *, persons_only: bool = False) -> tuple[str, int, str] | None:
    """The ``def`` line of a tf.function's Python function, or of a plain function (past its decorators);
    ``persons_only``: None for a library's own."""
    import linecache

    code = getattr(getattr(function, "_python_function", function), "__code__", None)
    if code is None or (persons_only and not _persons(code.co_filename)):
        return None
    line = code.co_firstlineno
    while linecache.getline(code.co_filename, line).lstrip().startswith("@"):
        line += 1
    return code.co_filename, line, code.co_name
