"""What a workload's dashboard shows beyond the generic views: one module per workload under ``ui/workloads/``
(found there without a list, as the workloads themselves are), or a plug-in's module (an entry point in the
``rlcore.views`` group, or named in ``RLCORE_VIEWS``), each registering its ``WorkloadViews``. A workload without one
gets the generic views; nothing generic names a workload.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import pandas as pd

from rlcore.contract import settings
from rlcore.contract.registry import Registry
from rlcore.runs.store import Run, Store


@dataclass(frozen=True)
class WorkloadViews:
    """A workload's own views; each is optional."""

    charts: Callable[[Run, pd.DataFrame], None] | None = None  # replaces the generic charts, live and after
    finished: Callable[[Store, Run, pd.DataFrame], None] | None = None  # drawn under the finished run's numbers
    intro: Callable[[str | None], None] | None = None  # drawn on the form under the preset (what the choice means)
    home: Callable[[Store], None] | None = None  # a section of the home page (the seed question's reproduction)
    # The headline of a comparison of this workload's runs, when it has a better one than the generic (the seed
    # question against the original): (runs, rated by the speed headline, that headline) -> sentence or None.
    compare: Callable[[list[Run], list[tuple[float, Run]], Any], str | None] | None = None
    # Drawn under a comparison's headline: why, with links to what backs it (the seed's port: its findings); returns
    # the ids of the runs it explained (their profile's sentence is not repeated under it).
    compare_why: Callable[[Store, list[Run]], set[int]] | None = None
    page: Callable[[], None] | None = None  # the workload's whole page, instead of the generic form
    # Drawn first on a finished run's view, above its verdict: the question the run answers (the HJB: the GPU's).
    headline: Callable[[Store, Run], None] | None = None


EXTRAS: Registry[WorkloadViews] = Registry("view", group="rlcore.views", env=settings.VIEWS.name,
                                    builtin_package="ui.workloads")
NONE = WorkloadViews()


def register(kind: str, extras: WorkloadViews) -> WorkloadViews:
    return EXTRAS.register(kind, extras)


def of(kind: str) -> WorkloadViews:
    """What a workload's own views add (nothing for a workload that has none)."""
    return EXTRAS.find(kind) or NONE


def every(name: str) -> list[tuple[str, Callable]]:
    """Each workload's view called ``name`` (home sections, say), with its kind."""
    if name not in {f.name for f in fields(WorkloadViews)}:
        raise ValueError(f"no view called {name!r}")
    return [(kind, getattr(extras, name)) for kind, extras in EXTRAS.items() if getattr(extras, name) is not None]
