"""A person's script run as ``python script.py args`` runs it: its ``__main__``, its ``sys.argv``, its folder first
on the import path, in its working directory; what it raised or exited with, told apart.

Only a regular file of at most ``MAX_BYTES`` is read (a FIFO would hang, /dev/zero would fill the memory). A child
the script forks ends where the script would end it, without running any of the lab's code after the script:
only the process that started the run records it."""

from __future__ import annotations

import os
import runpy
import stat
import sys
from pathlib import Path

from rlcore.contract.params import ConfigError
from rlcore.contract.reporting import DivergedError

MAX_BYTES = 16 << 20  # a script larger than 16 MB is not a script a person wrote


class ScriptFailed(RuntimeError):
    """The script raised, or exited with a status other than 0; the message is the exception's last line."""


def printable(text: str, limit: int = 300) -> str:
    """Text a person's code made, safe to store and show: undecodable bytes written as escapes, cut at ``limit``."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[:limit] + "…"


def shown(path: str | Path) -> str:
    text = printable(str(path), 200)
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def check(path: str | Path) -> Path:
    """The script, a readable regular file of valid Python, or one sentence (before any run is made)."""
    script = Path(path)
    if not str(path).strip():
        raise ConfigError("profile needs a script to run, like: rlcore profile train.py", "path")
    try:
        info = os.stat(script)
    except FileNotFoundError:
        raise ConfigError(f"There is no script at {shown(path)}.", "path") from None
    except (OSError, ValueError) as e:  # a NUL byte, a name too long, no permission
        raise ConfigError(f"The script {shown(path)} cannot be read: {getattr(e, 'strerror', None) or e}; check "
                          "its path and that you may read it.",
                          "path") from None
    if stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"{shown(path)} is a folder, not a script.", "path")
    if script.suffix == ".ipynb":
        raise ConfigError(f"{shown(path)} is a notebook, not a Python script: rlcore profile {shown(path)} runs it in "
                          "a Jupyter kernel (the notebook extra: pip install -r requirements-notebook.txt).", "path")
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{shown(path)} is not a regular file (a device, a pipe or a socket), so it is not read as "
                          "a script.", "path")
    if info.st_size > MAX_BYTES:
        raise ConfigError(f"The script {shown(path)} is {info.st_size:,} bytes, more than a script's "
                          f"{MAX_BYTES >> 20} MB.", "path")
    try:
        source = script.read_bytes()
    except OSError as e:
        raise ConfigError(f"The script {shown(path)} cannot be read: {e.strerror or e}; check that you may read "
                          "it.", "path") from None
    try:
        compile(source, str(script), "exec")
    except SyntaxError as e:
        raise ConfigError(f"The script {shown(path)} is not valid Python: {e.msg} (line {e.lineno}).", "path") from None
    except ValueError as e:  # a NUL byte: not a Python file
        raise ConfigError(f"The script {shown(path)} is not valid Python: {e}.", "path") from None
    return script


def run(path: str | Path, argv: list[str], cwd: str | Path | None = None, *, passes: tuple[type, ...] = ()) -> None:
    """Run the script to its end. Raises ``ScriptFailed`` for an exception or a non-zero exit (chained to it);
    ``KeyboardInterrupt``, a divergence and the exceptions in ``passes`` (the lab's cancel) pass through. In a child
    the script forked, the script's end is the process's end."""
    script = Path(path).resolve()
    starter = os.getpid()
    saved_argv, saved_path, saved_cwd = sys.argv, list(sys.path), os.getcwd()
    sys.argv = [str(script), *argv]
    sys.path.insert(0, str(script.parent))
    code = 0
    try:
        if cwd:
            os.chdir(cwd)
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if os.getpid() == starter and e.code not in (None, 0):
            raise ScriptFailed(f"the script exited with status {e.code}" if isinstance(e.code, int)
                               else f"the script exited: {printable(str(e.code))}") from None
    except (KeyboardInterrupt, DivergedError, *passes):
        code = 130
        if os.getpid() == starter:
            raise
    except BaseException as e:  # any exception of the script's, a BaseException subclass and GeneratorExit too
        code = 1
        if os.getpid() == starter:
            raise ScriptFailed(printable(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)) from e
    finally:
        if os.getpid() != starter:  # a forked child: the lab's code after the script is not the child's to run
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(saved_cwd)
