"""The other frameworks, beside TensorFlow: the PyTorch original of the book's DQN (style ``pytorch``) and the
framework-step bench's PyTorch and JAX cells.

An optional extra (``requirements-frameworks.txt``), like the cluster: imported only in a run's own process and only
for those styles and cells, never by the dashboard. Whether a framework is installed is read from the installed
packages' metadata, which imports nothing.
"""

from __future__ import annotations

import importlib.metadata

INSTALL = ".venv/bin/pip install -r requirements-frameworks.txt"
PACKAGES = {"torch": "torch", "jax": "jax"}


def version(name: str) -> str | None:
    """The installed version of a framework (torch, jax), or None; nothing is imported."""
    try:
        return importlib.metadata.version(PACKAGES.get(name, name))
    except importlib.metadata.PackageNotFoundError:
        return None


def missing_sentence(name: str, what: str) -> str:
    """One sentence for a style or cell whose framework is not installed."""
    return f"{what} needs {name}, which is not installed: {INSTALL} (the frameworks extra)."
