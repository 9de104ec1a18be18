"""TF Training Lab's package: the lab's workloads, its harness, its store and its CLI, and the ways in for your own
code (nothing heavy is imported here):

    run = rlcore.init(name="my loop", profile=50)         # your loop as a run of the lab (rlcore.runs.own)
    model.fit(..., callbacks=[rlcore.keras.Callback()])   # model.fit reports to the lab (rlcore.keras)
    rlcore profile train.py --epochs 3                    # a script, unchanged (the command line)
    %load_ext rlcore  then  %%rlcore                      # a notebook's cell (rlcore.notebook)
"""

from __future__ import annotations

from typing import Any


def init(name: str = "", *, profile: int = 0, warmup: int = 10, home: Any = None) -> Any:
    """Start a run of your own training loop, stored from its first step (see ``rlcore.runs.own``)."""
    from rlcore.runs.own import init as start

    return start(name, profile=profile, warmup=warmup, home=home)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext rlcore`` in a notebook: ``%%rlcore`` profiles a cell (see ``rlcore.notebook.magic``)."""
    from rlcore.notebook.magic import load

    load(ipython)


def __getattr__(name: str) -> Any:
    if name == "keras":  # ``rlcore.keras.Callback`` without importing Keras until it is asked for
        import importlib

        return importlib.import_module("rlcore.keras")
    raise AttributeError(f"module 'rlcore' has no attribute {name!r}")
