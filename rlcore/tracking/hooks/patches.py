"""Wrappers put on TensorFlow's and Keras's methods and taken off again, the span names the instruments put on
the timeline, and TensorFlow's classes looked up only when a hook is installed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SPAN = "rlcore:"  # the prefix of every span the instruments put on the timeline
PREDICT, SYNC, CALLBACK, LOGS = SPAN + "predict", SPAN + "sync", SPAN + "callback:", SPAN + "logs"
INDEX = SPAN + "index"  # tensor[i] run eagerly: a slice launched from Python
LAUNCHES = SPAN + "ops"  # ops launched eagerly outside the spans (counted at the person's lines, never traced)
CALLS = SPAN + "calls"  # tf.function calls outside the spans (counted at the person's lines, never traced)


@dataclass
class _Patch:
    owner: Any
    name: str
    original: Any


class Patches:
    """Wrappers put on methods of TensorFlow's and Keras's classes, each taken off by ``remove`` (in reverse)."""

    def __init__(self) -> None:
        self._patches: list[_Patch] = []

    def wrap(self, owner: Any, name: str, make: Callable[[Any], Any], *, static: bool = False) -> None:
        """``owner.name`` becomes ``make(original)``; ``static``: a static method stays one."""
        original = owner.__dict__[name] if name in owner.__dict__ else getattr(owner, name)
        self._patches.append(_Patch(owner, name, original))
        setattr(owner, name, staticmethod(make(original)) if static else make(original))

    def remove(self) -> None:
        for patch in reversed(self._patches):
            setattr(patch.owner, patch.name, patch.original)
        self._patches = []

    def __bool__(self) -> bool:
        return bool(self._patches)


def tf_function_class() -> type:
    from tensorflow.python.eager.polymorphic_function import polymorphic_function

    return polymorphic_function.Function


def tensor_class() -> type:
    from tensorflow.python.framework import tensor

    return tensor.Tensor  # its __getitem__ is every tensor's slicing, eager or symbolic


def eager_tensor_class() -> type:
    from tensorflow.python.framework import ops

    return ops._EagerTensorBase  # every fetch of an eager tensor's value goes through its _numpy
