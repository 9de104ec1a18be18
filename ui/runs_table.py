"""The table of runs: filters, formats from each workload's headlines, ticked runs bound to ?runs= both ways,
updated while runs live; and deleting the ticked runs (live ones refused before anything is asked)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from rlcore.contract.workloads import Headline
from rlcore.runs.store import Run, Store, StoreError
from ui import fmt, link_table, router, views

REFRESH_SECONDS = 2.0
FILTERS = ("kind", "status", "style", "device", "sweep")
LINKED_FILTERS = {"tags": "tag", "cause": "cause"}  # filters a link can set: /runs?tag=baseline&cause=predict-bound


def _headline_format(h: Headline) -> Any:
    if h.unit == "%":
        return lambda v: f"{v:.3g}%"  # 95.8%, 5.41%, 0.0130%
    if h.unit == "s":
        return lambda v: f"{v:,.1f}"
    if h.unit == "x":
        return lambda v: f"{v:,.1f}x"
    return fmt.number


def _column_title(h: Headline) -> str:
    return f"{h.label} ({h.unit})" if h.unit in ("%", "s") else h.label


def formats(table: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The table with headline columns titled with their unit, and how each column's values read."""
    headlines = views.headline_columns(table["kind"].unique()) if "kind" in table and len(table) else {}
    titled = {title: _column_title(h) for title, h in headlines.items() if title in table.columns}
    shown = table.rename(columns=titled)
    formatted: dict[str, Any] = {titled[t]: _headline_format(h) for t, h in headlines.items() if t in titled}
    formatted["progress"] = lambda v: f"{v:.0%}"
    return shown, formatted


def table_of(table: pd.DataFrame, *, key: str, tick: bool = False, ticked: list[int] | None = None) -> set[int]:
    """A runs table as people read it: each run's id and name one link to its view (same tab, a real link), its
    workload's own headline numbers in their format, rarer details at the end; empty cells blank."""
    shown = table.drop(columns=["id", "label"])
    # A column no shown run fills is left out (mixed kinds: each kind's numbers are in columns of their own).
    blank = [c for c in shown.columns
             if c != "kind" and len(shown) and bool(shown[c].map(lambda v: v is None or v == "" or v != v).all())]
    shown = shown.drop(columns=blank)
    shown.insert(0, "run", [views.link(router.view_path(kind), "run", run_id, label)
                            for run_id, label, kind in zip(table["id"], table["label"], table["kind"], strict=True)])
    shown, formatted = formats(shown)
    return link_table.show(shown, key=key, formats=formatted, tick=tick, ticked=ticked or ())


def of_kind(store: Store, kind: str, *, title: str, none_yet: str, key: str) -> None:
    """A workload page's own runs under their title (a code workload's, the captures'), or a sentence when none."""
    runs = [r for r in store.list_runs() if r.kind == kind]
    st.subheader(title)
    if runs:
        table_of(views.runs_table(runs), key=key)
    else:
        st.caption(none_yet)


def linked_ids(known: list[int]) -> list[int]:
    """The runs named by ?runs= (a warning and none when the link is bad)."""
    raw = st.query_params.get("runs")
    if not raw:
        return []
    try:
        return views.parse_run_ids(raw, known)
    except ValueError as e:
        st.warning(fmt.md(str(e), 400))
        return []


def show(store: Store, runs: list[Run]) -> list[int]:
    """Filters and the table; returns the ticked runs' ids (from ?runs= when the page opens). While runs live,
    the table reads the store again every few seconds."""
    ids = linked_ids([r.id for r in runs])
    live = any(r.live for r in runs)
    # The fragment below keeps what it refers to for as long as Streamlit keeps the session (a closed tab's session
    # lives on for two minutes): the table's few columns, never the runs themselves (2,000 runs with their
    # configs and summaries held ~20 MB per session, benchmarks/page_load.py).
    first_table = None if live else views.runs_table(runs)  # a live table is read anew on every run of its part

    @st.fragment(run_every=REFRESH_SECONDS if live else None)
    def table_part() -> None:
        table = first_table
        if live:  # a timed rerun of this part reads the store anew
            current = store.list_runs()
            if not any(r.live for r in current):
                st.rerun()  # nothing lives any more: a full rerun stops the timer and refreshes the comparison
            table = views.runs_table(current)
        cols = [*st.columns(len(FILTERS)), *st.columns(len(LINKED_FILTERS) + 1)]  # two rows: each chip readable
        chosen = {c: cols[i].multiselect(c, views.filter_options(table, c), key=f"filter_{c}")
                  for i, c in enumerate(FILTERS)}
        for i, (column, key) in enumerate(LINKED_FILTERS.items(), start=len(FILTERS)):
            options = views.filter_options(table, column)
            for value in st.query_params.get_all(key) if key not in st.session_state else []:
                if value not in options:  # a link's value no run has: kept as a choice (it shows no run), said so
                    options.append(value)
            what = "tags hold" if key == "tag" else f"{key} is"
            chosen[column] = cols[i].multiselect(key, options, key=key, bind="query-params",
                                                 help=f"Runs whose {what} one of these; in the link as ?{key}=...")
        label_text = cols[-1].text_input("label contains", key="filter_label")
        shown = views.filter_runs(table, **chosen, label_contains=label_text).reset_index(drop=True)
        if shown.empty:  # a link's tag or cause no run has, a label nobody typed: the filters stay to be changed
            st.info("No run matches these filters: change or clear them above to see the others.")
            return
        # The table's key follows the filters and the link's ticks: another table gets its ticks from the link.
        signature = abs(hash((tuple(sorted((k, tuple(v)) for k, v in chosen.items())), label_text,
                              tuple(ids)))) % 10**8
        ticked = table_of(shown, key=f"runs_table_{signature}", tick=True, ticked=ids)
        visible = set(shown["id"])
        now = [i for i in ids if i not in visible or i in ticked] + sorted(ticked - set(ids))
        if now != ids:  # hidden by a filter, a ticked run stays compared; the link follows the ticks
            if now:
                st.query_params["runs"] = ",".join(map(str, now))
            else:
                st.query_params.pop("runs", None)
            st.rerun(scope="app")

    table_part()
    return ids


def recent(runs: list[Run], n: int = 5) -> None:
    table = views.runs_table(runs[:n])
    keep = [*views.BASE_COLUMNS, *[c for c in table.columns if c not in views.BASE_COLUMNS + views.DETAIL_COLUMNS][:2]]
    table_of(table[keep], key="recent_runs")


def delete_control(store: Store, runs: list[Run]) -> None:
    """Delete… for the ticked runs: a live one is refused at once (cancel it first), others after a confirmation."""
    live = [r for r in runs if r.live]
    if live:  # said when asked (the button's help), never unprompted beside a comparison
        st.button("Delete…", icon=":material/delete:", key="delete", disabled=True,
                  help=f"run {live[0].id} is still {live[0].status}: cancel it first to delete it.")
        return
    ids = [r.id for r in runs]
    if st.button("Delete…", icon=":material/delete:", key="delete"):
        st.session_state["confirm_delete"] = ids
    if st.session_state.get("confirm_delete") != ids:
        return
    with st.container(border=True):
        whose = "their" if len(ids) > 1 else "its"
        st.write(f"Delete run{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))} with {whose} metrics, models and "
                 "replays? This cannot be undone.")
        with st.container(horizontal=True):  # buttons as wide as their words (columns cut them to "D…")
            st.button("Delete", type="primary", key="confirm_delete_yes", on_click=_delete, args=(store, ids))
            st.button("Keep them", key="confirm_delete_no", on_click=st.session_state.pop,
                      args=("confirm_delete", None))


def _delete(store: Store, ids: list[int]) -> None:
    """The confirmation's callback: delete what can be, and say in one sentence per run what could not."""
    from ui import access

    if not access.is_operator():
        return
    problems = []
    for run_id in ids:
        try:
            store.delete_run(run_id)
        except (ValueError, StoreError) as e:
            problems.append(str(e))
    st.session_state["delete_problems"] = problems
    st.session_state.pop("confirm_delete", None)
    st.query_params.pop("runs", None)


def delete_problems() -> None:
    for problem in st.session_state.pop("delete_problems", []):
        st.warning(fmt.md(problem, 300))
