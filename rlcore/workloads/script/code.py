"""Which code ran: the script's path, its content's sha256, the git commit and whether the checkout had changes,
the arguments. A run's environment card carries it, so a number can always be traced to the code that made it."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

MAX_BYTES = 16 << 20  # what a script can be (runner.MAX_BYTES): a larger file is not hashed


def sha256(path: str | Path) -> str:
    """The content hash of a regular file of at most 16 MB; OSError for anything else (a FIFO would block the
    reader, /dev/zero never end), so no view or worker ever hangs on a path that changed into one."""
    try:
        info = os.stat(path)
    except ValueError as e:  # a NUL byte in the path
        raise OSError(errno.EINVAL, str(e), str(path)) from None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
        raise OSError(errno.EINVAL, "not a regular file of at most 16 MB", str(path))
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
            if f.tell() > MAX_BYTES:
                raise OSError(errno.EFBIG, "larger than 16 MB", str(path))
    return digest.hexdigest()


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, timeout=10,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def card(path: str | Path, argv: list[str], cwd: str | Path) -> dict[str, Any]:
    """What the environment card says of the code: path, sha256, git commit and dirty flag where the script is in a
    repository (dirty: the checkout has changes not committed), the arguments and the folder it ran in."""
    script = Path(path).resolve()
    out: dict[str, Any] = {"path": str(script), "argv": [str(script), *argv], "cwd": str(Path(cwd).resolve()),
                           "python": sys.version.split()[0]}
    try:
        out["sha256"] = sha256(script)
    except OSError as e:
        out["sha256"] = None
        out["unreadable"] = e.strerror or str(e)
    commit = _git(script.parent, "rev-parse", "HEAD")
    if commit:
        out["git_commit"] = commit
        status = _git(script.parent, "status", "--porcelain")
        out["git_dirty"] = bool(status)
    return out
