"""What the script workload gives ``rlcore.init`` and ``rlcore.keras.Callback``: this process's own code as a
config (the script of ``__main__``, its arguments and folder), a session of it, and the run's name. The store and
the run's life are the front door's (``rlcore.runs.own``); nothing here knows where the records go."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from rlcore.contract import settings
from rlcore.contract.params import LABEL_MAX, check_text, readable_name
from rlcore.contract.reporting import Reporter
from rlcore.workloads.script.config import ScriptConfig

UNNAMED = "your code"


def config_of_this_process(name: str, profile: int, warmup: int) -> dict[str, Any]:
    """This process's code as a run's config values: the script ``__main__`` runs (none for ``python -c``), its
    arguments, the folder it runs in."""
    from rlcore.tracking import kernel

    check_text(name, "name", LABEL_MAX)
    if kernel.in_kernel():  # a notebook's kernel: the notebook is the code, never ipykernel_launcher.py
        notebook = kernel.notebook_path()
        return {"path": notebook if notebook and Path(notebook).is_file() else "", "args": "[]", "cwd": os.getcwd(),
                "profile": profile, "warmup": warmup, "name": name or kernel.notebook_name(),
                "causes": _checked_causes()}
    main = getattr(sys.modules.get("__main__"), "__file__", None) or (sys.argv[0] if sys.argv else "")
    script = str(Path(main).resolve()) if main and Path(main).is_file() else ""
    return {"path": script, "args": json.dumps(sys.argv[1:]), "cwd": os.getcwd(), "profile": profile,
            "warmup": warmup, "name": name, "causes": _checked_causes()}


def _checked_causes() -> str:
    causes = os.environ.get(settings.CAUSES.name, "")
    read_with(causes)  # a cause plug-in that cannot be imported: said now, before the loop trains
    return causes


def read_with(causes: str) -> None:
    """The run's why is read with the cause plug-ins its maker asked for (a queue runner started by another command
    must not lend it its own); one that cannot be imported is one sentence (ConfigError), before any training."""
    from rlcore.tracking.causes import RULES

    if os.environ.get(settings.CAUSES.name, "") != causes:
        os.environ[settings.CAUSES.name] = causes
        RULES.refresh()
    RULES.names()


def start(reporter: Reporter, cfg: ScriptConfig, profile_dir: str) -> Any:
    from rlcore.workloads.script.session import Session

    return Session(reporter, cfg, raise_on_cancel=False, profile_dir=profile_dir).start()


def joined() -> Any:
    from rlcore.workloads.script import session

    return session.active()


def label(cfg: ScriptConfig) -> str:
    """The name a person gave (checked in ``config_of_this_process``), else the script's file name made readable."""
    return cfg.name.strip() or (readable_name(Path(cfg.path).name) if cfg.path else UNNAMED)


def keras_callback() -> type:
    from rlcore.workloads.script.keras_callback import LabCallback

    return LabCallback
