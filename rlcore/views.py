"""What the pages show, computed without Streamlit: run tables, comparisons, and parsing of link values.

Pages stay thin: they read widgets and call these. Every bad value from a URL raises ``ValueError``
with one sentence that the page shows as a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlencode

import pandas as pd

from rlcore.runs.store import Run

# The seed's question in small: the same short DQN in the slow port's style and compiled.
SEED_QUESTION = {"epochs": 15, "eval_every": 0, "test_games": 200}
SEED_QUESTION_STYLES = ("naive", "graph")


def parse_run_ids(text: str, known: Iterable[int]) -> list[int]:
    """'3,5,8' -> [3, 5, 8], every id an existing run."""
    ids: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if not part.isdigit():
            raise ValueError(f"runs must be run ids separated by commas, like 3,5,8, not {text!r}.")
        ids.append(int(part))
    missing = sorted(set(ids) - set(known))
    if missing:
        raise ValueError(f"run {missing[0]} does not exist.")
    return list(dict.fromkeys(ids))


def _headline(run: Run) -> float | None:
    """The number a run is judged by: win rate (DQN) or max relative error of c (HJB)."""
    if not run.summary:
        return None
    return run.summary.get("win_rate") if run.kind == "dqn" else run.summary.get("max_rel_err_c")


def runs_table(runs: Iterable[Run]) -> pd.DataFrame:
    """One row per run with what a user filters and compares on."""
    rows = [{
        "id": r.id, "kind": r.kind, "status": r.status,
        "style": r.config.get("exec_mode") or r.config.get("workload", ""),  # a bench's "style" is its workload
        "device": r.config.get("device", ""), "label": r.label,
        "created": pd.Timestamp(r.created, unit="s").floor("s"),
        "steps/s": (r.summary or {}).get("steps_per_second"),
        "train s": (r.summary or {}).get("train_seconds"),
        "win rate / err c": _headline(r),
        "error": r.error or "",
    } for r in runs]
    columns = ["id", "kind", "status", "style", "device", "label", "created", "steps/s", "train s",
               "win rate / err c", "error"]
    return pd.DataFrame(rows, columns=columns)


def filter_runs(table: pd.DataFrame, label_contains: str = "", **chosen: list[str]) -> pd.DataFrame:
    """Keep rows whose column value is among the chosen ones (an empty choice keeps everything) and whose
    label contains the given text, ignoring case."""
    if label_contains.strip():
        table = table[table["label"].str.contains(label_contains.strip(), case=False, regex=False)]
    for column, values in chosen.items():
        if values:
            table = table[table[column].isin(values)]
    return table


def share_url(base: str | None, params: Mapping[str, Any]) -> str:
    """The absolute link to a view: the page's address plus its query, empty values left out."""
    query = urlencode({k: ",".join(map(str, v)) if isinstance(v, list | tuple) else str(v)
                       for k, v in params.items() if v not in ("", None)})
    return f"{base or ''}?{query}" if query else (base or "")
