"""Every ``RLCORE_*`` environment variable the lab reads, typed and documented in one place (as MLflow's
environment_variables.py): its name, its default and what it does. Code reads a setting through its object here
(``settings.HOME.path()``), never ``os.environ["RLCORE_..."]``, so the README's table and the code cannot drift.
Worker processes inherit them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Setting:
    """One environment variable: ``name``, its ``default`` (as text) and one sentence of what it does."""

    name: str
    default: str
    help: str

    def text(self, environ: Mapping[str, str] | None = None) -> str:
        """The value as set (surrounding spaces kept off), or the default."""
        value = (os.environ if environ is None else environ).get(self.name)
        return self.default if value is None else value.strip()

    def is_set(self, environ: Mapping[str, str] | None = None) -> bool:
        return bool((os.environ if environ is None else environ).get(self.name, "").strip())

    def flag(self, environ: Mapping[str, str] | None = None) -> bool:
        """A switch: on for 1, true, yes or on (any case), off otherwise."""
        return self.text(environ).lower() in ("1", "true", "yes", "on")

    def path(self, environ: Mapping[str, str] | None = None) -> Path:
        return Path(self.text(environ) or self.default)

    def items(self, environ: Mapping[str, str] | None = None) -> list[str]:
        """A comma-separated list, each item without surrounding spaces, empty items left out."""
        return [p.strip() for p in self.text(environ).split(",") if p.strip()]


HOME = Setting("RLCORE_HOME", ".rlcore", "Where the run store lives: runs.sqlite, each run's files, the XLA cache.")
EXECUTOR = Setting("RLCORE_EXECUTOR", "local", "The executor new runs go to (local, ray, or a plug-in's).")
EXECUTORS = Setting("RLCORE_EXECUTORS", "", "More executor modules to import, comma-separated (plug-ins).")
WORKLOADS = Setting("RLCORE_WORKLOADS", "", "More workload modules to import, comma-separated (plug-ins).")
CAUSES = Setting("RLCORE_CAUSES", "", "More cause rules to import, comma-separated (plug-ins of the why engine).")
VIEWS = Setting("RLCORE_VIEWS", "", "More dashboard view modules to import, comma-separated (plug-ins' pages).")
RAY_ADDRESS = Setting("RLCORE_RAY_ADDRESS", "", "The Ray cluster the ray executor uses (default: the local one).")
RAY_SLOT = Setting("RLCORE_RAY_SLOT", "1", "How much of a node's run slot each run takes (0.5: two runs per node).")
OPERATOR_HASH = Setting("RLCORE_OPERATOR_HASH", "", "The operator passphrase's scrypt hash (rlcore operator-hash).")
OPERATORS = Setting("RLCORE_OPERATORS", "", "With st.login: the e-mail addresses that operate, comma-separated.")
ALLOWED_HOSTS = Setting("RLCORE_ALLOWED_HOSTS", "", "More host names the shared dashboard answers to, "
                        "comma-separated.")
BEHIND_PROXY = Setting("RLCORE_BEHIND_PROXY", "", "1: a reverse proxy is in front, so loopback visitors are viewers.")
VIEWERS_DOWNLOAD_MODELS = Setting("RLCORE_VIEWERS_DOWNLOAD_MODELS", "",
                                  "1: viewers may download trained models and profiles' captures.")
SYSTEM_METRICS = Setting("RLCORE_SYSTEM_METRICS", "1", "0: no sampling of the machine while a run trains.")
VERBOSE = Setting("RLCORE_VERBOSE", "", "1: TensorFlow's own log lines stay on stderr (as --verbose).")
PROFILE_DIR = Setting("RLCORE_PROFILE_DIR", "", "Where this process keeps a profile's capture (set for a run).")
RUN_ID = Setting("RLCORE_RUN_ID", "", "The stored run a process trains for (set by the lab for a script's run).")
NOTEBOOK = Setting("RLCORE_NOTEBOOK", "", "The notebook a kernel runs (`rlcore profile NB.ipynb` sets it for its "
                   "kernel).")
NATIVE_LOGS = Setting("RLCORE_NATIVE_LOGS", "", "1: TensorFlow's C++ lines reach a notebook's cells (the lab "
                      "filters them out of a kernel).")
PROGRESS_SECONDS = Setting("RLCORE_PROGRESS_SECONDS", "10", "How often a terminal hears how a profiled script goes, "
                           "in seconds.")

ALL = (HOME, EXECUTOR, EXECUTORS, WORKLOADS, CAUSES, VIEWS, RAY_ADDRESS, RAY_SLOT, OPERATOR_HASH, OPERATORS,
       ALLOWED_HOSTS, BEHIND_PROXY, VIEWERS_DOWNLOAD_MODELS, SYSTEM_METRICS, VERBOSE, PROFILE_DIR, RUN_ID,
       NOTEBOOK, NATIVE_LOGS, PROGRESS_SECONDS)
