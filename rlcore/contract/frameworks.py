"""Which optional frameworks this machine has, read from the installed packages' metadata (nothing is imported), and
the one sentence for a style or cell whose framework is missing. PyTorch and JAX are an optional extra
(``requirements-frameworks.txt``), like the cluster."""

from __future__ import annotations

import importlib.metadata

INSTALL = ".venv/bin/pip install -r requirements-frameworks.txt"
PACKAGES = {"torch": "torch", "jax": "jax", "tensorflow": "tensorflow", "keras": "keras"}


def version(name: str) -> str | None:
    """The installed version of a framework (torch, jax), or None; nothing is imported."""
    try:
        return importlib.metadata.version(PACKAGES.get(name, name))
    except importlib.metadata.PackageNotFoundError:
        return None


def missing_sentence(name: str, what: str) -> str:
    """One sentence for a style or cell whose framework is not installed."""
    return f"{what} needs {name}, which is not installed: {INSTALL} (the frameworks extra)."
