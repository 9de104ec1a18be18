"""One way to find the lab's named parts (workloads, executors, the dashboard's per-workload views), as MLflow's
store registries do: the built-in ones, plug-ins that installed packages declare as Python entry points, and modules
named in an environment variable, which worker processes inherit (a plug-in of a checkout that is not installed).

A part registers itself when its module is imported (``REGISTRY.register(name, part)``); the registry imports the
modules the first time it is asked. Built-ins are found without naming them: every subpackage (or module) of a
package (``builtin_package``), or a fixed list of modules. A plug-in that fails to import is one sentence, never a
traceback: an environment variable's module is the user's own request, so asking fails with it; an entry point of
some installed package is left out with the reason (``skipped``), and the rest of the lab is unaffected.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import os
import pkgutil
import threading
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from rlcore.contract.params import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """Named parts of one kind. ``what`` names them in sentences ("kind", "executor")."""

    def __init__(self, what: str, *, group: str, env: str, builtin_package: str | None = None,
                 builtin_modules: Iterable[str] = (), order: Callable[[T], Any] | None = None) -> None:
        self.what, self.group, self.env = what, group, env
        self._order = order  # how parts are listed (a menu's order); by default as they registered
        self.builtin_package, self.builtin_modules = builtin_package, tuple(builtin_modules)
        self._parts: dict[str, T] = {}
        self._builtin_names: frozenset[str] = frozenset()  # the lab's own parts: no plug-in may take their names
        self._loaded = False  # the loading thread began (a module it imports may ask the registry meanwhile)
        self._ready = False  # every module imported: other threads may read without the lock
        self._loading = threading.RLock()
        self._error: ConfigError | None = None
        self.skipped: dict[str, str] = {}  # entry points that could not be loaded, with why

    def refresh(self) -> None:
        """Look again at the next question (a plug-in installed or an environment variable set since)."""
        with self._loading:
            self._loaded, self._ready, self._error = False, False, None

    def register(self, name: str, part: T) -> T:
        """Add a part; a plug-in that takes the name of one of the lab's own is refused in one sentence (it would
        silently replace it: a rule named "predict" turned the seed's port into "the arithmetic itself")."""
        if name in self._builtin_names and self._parts.get(name) is not part:
            raise ConfigError(f"a plug-in {self.what} cannot be called {name!r}: that is the lab's own {self.what}; "
                              "give yours another name.", self.what)
        self._parts[name] = part
        if self._order is not None:
            self._parts = dict(sorted(self._parts.items(), key=lambda item: self._order(item[1])))
        return part

    def _load(self) -> None:
        if not self._ready:  # another thread may be importing: wait for it (reading now would see half the parts)
            with self._loading:
                if not self._loaded:  # (the loading thread itself, asked again by a module it imports, reads as is)
                    self._loaded = True
                    try:
                        self._import_all()
                    finally:
                        self._ready = True
        if self._error is not None:
            raise self._error

    def _import_all(self) -> None:
        for module in self._builtins():
            importlib.import_module(module)
        self._builtin_names = frozenset(self._parts)
        for entry in importlib.metadata.entry_points(group=self.group):
            try:
                entry.load()
            except Exception as e:  # another package's plug-in: the lab goes on without it, and says so
                why = str(e) if isinstance(e, ConfigError) else f"{type(e).__name__}: {e}"
                self.skipped[entry.name] = f"the {self.what} plug-in {entry.name!r} ({entry.value}) was left out: {why}"
        for module in (m.strip() for m in os.environ.get(self.env, "").split(",")):
            if module and self._error is None:
                self._error = self._import_named(module)

    def _builtins(self) -> list[str]:
        modules = list(self.builtin_modules)
        if self.builtin_package:
            package = importlib.import_module(self.builtin_package)
            modules += [f"{self.builtin_package}.{m.name}" for m in pkgutil.iter_modules(package.__path__)
                        if not m.name.startswith("_")]
        return modules

    def _import_named(self, module: str) -> ConfigError | None:
        shown = module if len(module) <= 80 else module[:80] + "…"
        try:
            importlib.import_module(module)
        except Exception as e:
            why = "no such module" if isinstance(e, ModuleNotFoundError) and e.name == module else \
                str(e) if isinstance(e, ConfigError) else f"{type(e).__name__}: {e}"
            return ConfigError(f"{self.env} names {shown!r}, which cannot be imported ({why}); name modules that "
                               f"register {self.what}s, separated by commas, or unset it.", self.env)
        return None

    def names(self) -> list[str]:
        self._load()
        return list(self._parts)

    def parts(self) -> list[T]:
        self._load()
        return list(self._parts.values())

    def loaded(self) -> list[T]:
        """The parts that registered, even when a module named in the environment variable failed to import (what
        must keep working regardless, such as reading the store, asks this)."""
        with contextlib.suppress(ConfigError):
            self._load()
        return list(self._parts.values())

    def find(self, name: str) -> T | None:
        """The part called ``name``, or None (never raises: a view that may have no part asks this)."""
        self.loaded()
        return self._parts.get(name)

    def items(self) -> list[tuple[str, T]]:
        """(name, part) of every part that registered."""
        self.loaded()
        return list(self._parts.items())

    def has(self, name: str) -> bool:
        """Whether a part is called ``name`` (never raises)."""
        return self.find(name) is not None

    def get(self, name: str) -> T:
        """The part called ``name``, or one sentence listing those there are."""
        self._load()
        if name not in self._parts:
            shown = name if len(name) <= 40 else name[:40] + "…"
            raise ConfigError(f"{self.what} must be one of {', '.join(self._parts)}, not {shown!r}.", self.what)
        return self._parts[name]
