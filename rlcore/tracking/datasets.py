"""What a tf.data pipeline is made of, read from the dataset object itself (its stages, which maps run in parallel,
whether it prefetches, and the Python a map runs through ``tf.py_function`` or ``tf.numpy_function``), so a cause
of waiting for input can say which change is already made and what remains. ``Notes`` sees the datasets a person's
code builds and iterates (the line of each ``.map(...)``); nothing here runs until a run of their code installs it.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from typing import Any

from rlcore.tracking.hooks import Patches, person_frame

PY_OPS = {"EagerPyFunc": "tf.py_function", "PyFunc": "tf.numpy_function", "PyFuncStateless": "tf.numpy_function"}
SITE = "_rlcore_map_site"  # where a dataset's map was called, kept on the dataset object
GENERATOR = "_rlcore_generator"  # a from_generator dataset's generator and the call that made it, kept on it


def describe(dataset: Any) -> dict[str, Any]:
    """The pipeline as plain data: {"prefetch": bool, "maps": [{"parallel", "site", "python": [{"op",
    "function", "file", "line"}]}], "stages": [names, last first], "generators": [{"function", "file", "line",
    "site"}]} (a ``Dataset.from_generator`` source: its Python generator and the line that made it)."""
    stages, maps, generators = [], [], []
    current, seen = dataset, 0
    while current is not None and seen < 64:
        seen += 1
        name = type(current).__name__.strip("_").removesuffix("Dataset")
        stages.append(name)
        generator = getattr(current, GENERATOR, None)
        if generator is not None:
            generators.append(generator)
        if name.endswith("Map"):
            maps.append({"parallel": name.startswith("Parallel"), "site": getattr(current, SITE, None),
                         "python": _python_of(current)})
        inputs = current._inputs() if hasattr(current, "_inputs") else []
        current = inputs[0] if inputs else None
    return {"prefetch": "Prefetch" in stages, "maps": maps, "stages": stages, "generators": generators}


def _python_of(mapped: Any) -> list[dict[str, Any]]:
    """The Python functions a map's graph calls back into (tf.py_function, tf.numpy_function)."""
    out: list[dict[str, Any]] = []
    with contextlib.suppress(Exception):
        from tensorflow.python.ops import script_ops

        for op in mapped._map_func.function.graph.get_operations():
            if op.type not in PY_OPS:
                continue
            registered = script_ops._py_funcs.get(op.get_attr("token").decode())
            func = inspect.unwrap(getattr(registered, "_func", registered))  # autograph wraps what it is given
            code = getattr(func, "__code__", None)
            out.append({"op": PY_OPS[op.type], "function": getattr(func, "__name__", "a Python function"),
                        "file": code.co_filename if code else "", "line": code.co_firstlineno if code else 0})
    return out


class Notes:
    """The datasets a person's code iterates (``for batch in dataset``, ``model.fit(dataset)``), each described
    once, and the line of every ``.map(...)`` it calls; ``install`` when their code starts, ``remove`` after."""

    def __init__(self) -> None:
        self.patches = Patches()
        self.pipelines: list[dict[str, Any]] = []
        self._described: set[int] = set()

    def install(self) -> None:
        with contextlib.suppress(ImportError):
            from tensorflow.python.data.ops import dataset_ops

            self.patches.wrap(dataset_ops.DatasetV2, "map", self._mapped)
            self.patches.wrap(dataset_ops.DatasetV2, "from_generator", self._from_generator, static=True)
            self.patches.wrap(dataset_ops.DatasetV2, "__iter__", self._iterated)

    def note(self, dataset: Any) -> None:
        if id(dataset) in self._described or len(self.pipelines) >= 8:
            return
        self._described.add(id(dataset))
        with contextlib.suppress(Exception):
            self.pipelines.append(describe(dataset))

    def _mapped(self, original: Callable) -> Callable:
        def map(dataset: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(dataset, *args, **kwargs)
            site = person_frame()
            if site is not None:
                with contextlib.suppress(AttributeError):
                    setattr(result, SITE, site)
            return result
        return map

    def _from_generator(self, original: Callable) -> Callable:
        def from_generator(generator: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(generator, *args, **kwargs)
            site = person_frame()
            func = inspect.unwrap(generator)
            code = getattr(func, "__code__", None)
            with contextlib.suppress(AttributeError):
                setattr(result, GENERATOR, {"function": getattr(func, "__name__", "the generator"),
                                            "file": code.co_filename if code else "",
                                            "line": code.co_firstlineno if code else 0, "site": site})
            return result
        return from_generator

    def _iterated(self, original: Callable) -> Callable:
        notes = self

        def __iter__(dataset: Any) -> Any:
            notes.note(dataset)
            return original(dataset)
        return __iter__

    def remove(self) -> None:
        self.patches.remove()
