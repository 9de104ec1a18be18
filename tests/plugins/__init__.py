"""Plug-ins the tests install as an installed package would: a folder on the path with the package and the
distribution's metadata (``<name>.dist-info`` with ``entry_points.txt``), which ``importlib.metadata`` finds in this
process and in every process started with the same ``PYTHONPATH`` (worker processes, the CLI)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def install(package: str, group: str, into: Path) -> dict[str, str]:
    """Copy ``tests/plugins/<package>`` into ``into`` with metadata that declares it as an entry point of ``group``;
    put ``into`` on this process's path. Returns the environment for child processes."""
    shutil.copytree(HERE / package, into / package, dirs_exist_ok=True)
    info = into / f"{package}-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{package} = {package}\n")
    if str(into) not in sys.path:
        sys.path.insert(0, str(into))
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(into), os.environ.get("PYTHONPATH", "")]))}
