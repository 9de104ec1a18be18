"""A person's script run as ``python script.py args`` runs it: its ``__main__``, its ``sys.argv``, its folder first
on the import path, in its working directory; what it raised or exited with, told apart."""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

from rlcore.contract.params import ConfigError


class ScriptFailed(RuntimeError):
    """The script raised, or exited with a status other than 0; the message is the exception's last line."""


def check(path: str | Path) -> Path:
    """The script, readable and valid Python, or one sentence (before any run is made)."""
    script = Path(path)
    shown = str(path) if len(str(path)) <= 200 else str(path)[:200] + "…"
    if not str(path).strip():
        raise ConfigError("profile needs a script to run, like: rlcore profile train.py", "path")
    try:
        source = script.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"There is no script at {shown}.", "path") from None
    except IsADirectoryError:
        raise ConfigError(f"{shown} is a folder, not a script.", "path") from None
    except OSError as e:
        raise ConfigError(f"The script {shown} cannot be read: {e.strerror or e}.", "path") from None
    try:
        compile(source, str(script), "exec")
    except SyntaxError as e:
        raise ConfigError(f"The script {shown} is not valid Python: {e.msg} (line {e.lineno}).", "path") from None
    except ValueError as e:  # a NUL byte: not a Python file
        raise ConfigError(f"The script {shown} is not valid Python: {e}.", "path") from None
    return script


def run(path: str | Path, argv: list[str], cwd: str | Path | None = None) -> None:
    """Run the script to its end. Raises ``ScriptFailed`` for an exception or a non-zero exit (chained to it);
    ``KeyboardInterrupt`` and the lab's ``Cancelled`` pass through."""
    script = Path(path).resolve()
    saved_argv, saved_path, saved_cwd = sys.argv, list(sys.path), os.getcwd()
    sys.argv = [str(script), *argv]
    sys.path.insert(0, str(script.parent))
    try:
        if cwd:
            os.chdir(cwd)
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code not in (None, 0):
            raise ScriptFailed(f"the script exited with status {code}" if isinstance(code, int)
                               else f"the script exited: {code}") from None
    except Exception as e:
        raise ScriptFailed(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__) from e
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(saved_cwd)
