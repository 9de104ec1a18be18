"""A table whose first column is a real link to a run's or a sweep's view.

One click on a name opens its view in the same tab (the app's own navigation: the session, and a sign-in, kept); as a
real ``<a href>`` the name can be copied, middle-clicked or opened in a new tab. Streamlit's dataframe cannot do
this: its grid draws on a canvas, and a link cell is selected by a first click and opened in a new tab by a second.
So the tables of runs and sweeps are drawn by this small component (``st.components.v2``: trusted code of the lab;
the rows reach it as data and go on the page as text, never as HTML). Optional ticks send the ticked rows' ids back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import streamlit as st

from ui import fmt, router

MAX_ROWS = 500  # drawn at once (newest first); a filter reaches the rest
CSS = """
div.lt { overflow: auto; max-height: 34rem; }
table { border-collapse: collapse; font-size: 0.875rem; width: max-content; min-width: 100%; }
th { text-align: left; font-weight: 600; padding: 0.3rem 0.6rem; border-bottom: 1px solid rgba(128, 128, 128, 0.45);
     position: sticky; top: 0; background: var(--st-background-color, Canvas); white-space: nowrap; }
td { padding: 0.3rem 0.6rem; border-bottom: 1px solid rgba(128, 128, 128, 0.18); white-space: nowrap;
     max-width: 32rem; overflow: hidden; text-overflow: ellipsis; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
a { color: var(--st-primary-color, LinkText); }
input { margin: 0; cursor: pointer; }
"""
JS = r"""
export default function (component) {
  const { data, parentElement, setStateValue, setTriggerValue } = component;
  const root = parentElement.querySelector("div.lt");
  const ticked = new Set(data.ticked || []);
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  const body = table.createTBody();
  let order = { column: null, descending: false };
  const heading = (text, column) => {
    const th = document.createElement("th");
    th.textContent = text;
    if (column !== null) {  // a click sorts by the column, a second click the other way round
      th.style.cursor = "pointer";
      th.title = "sort by " + text;
      th.addEventListener("click", () => {
        order = { column, descending: order.column === column ? !order.descending : false };
        head.querySelectorAll("th").forEach((h) => h.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", order.descending ? "descending" : "ascending");
        draw();
      });
    }
    head.appendChild(th);
  };
  if (data.tick) heading("", null);
  data.columns.forEach((text, i) => heading(text, i));
  const key = (row, column) => (column === 0 ? row.id : row.keys[column - 1]);
  const compare = (a, b) => {
    const x = key(a, order.column), y = key(b, order.column);
    const blank = (v) => v === null || v === "";
    if (blank(x) || blank(y)) return blank(x) - blank(y);  // empty cells last, either way
    const sign = order.descending ? -1 : 1;
    return sign * (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y)));
  };
  const draw = () => {
    body.replaceChildren();
    const rows = order.column === null ? data.rows : [...data.rows].sort(compare);
    rows.forEach((row) => {
      const tr = body.insertRow();
      if (data.tick) {
        const box = document.createElement("input");
        box.type = "checkbox";
        box.checked = ticked.has(row.id);
        box.setAttribute("aria-label", "tick " + row.text);
        box.addEventListener("change", () => {
          if (box.checked) ticked.add(row.id); else ticked.delete(row.id);
          setStateValue("ticked", Array.from(ticked));
        });
        tr.insertCell().appendChild(box);
      }
      const link = document.createElement("a");
      link.href = row.href;
      link.textContent = row.text;
      link.addEventListener("click", (event) => {
        if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
        event.preventDefault();  // a plain click: the app navigates, keeping the session; others are the browser's
        setTriggerValue("opened", row.href);
      });
      tr.insertCell().appendChild(link);
      row.cells.forEach((value, i) => {
        const td = tr.insertCell();
        td.textContent = value;
        if (data.numeric[i]) td.className = "n";
      });
    });
  };
  draw();
  root.replaceChildren(table);
}
"""
_TABLE = st.components.v2.component("rlcore.link_table", html="<div class='lt'></div>", css=CSS, js=JS)


def split_link(cell: str) -> tuple[str, str]:
    """A link cell as ``views.link`` writes it ("dqn?run=3#3: name"): its address and its text."""
    href, _, text = str(cell).partition("#")
    return href, text


def cell_text(value: Any, format_value: Callable[[Any], str] | None = None) -> str:
    """A cell as text: blank for nothing, a time to the second, numbers with thousands separators."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
        return ""
    if format_value is not None:
        return format_value(value)
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return fmt.number(value)
    return " ".join(str(value).split())


def sort_key(value: Any) -> float | str | None:
    """What a cell sorts by in the browser: numbers as numbers (a speed, not its text), times by their moment."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        return value.timestamp()
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    return " ".join(str(value).split())


def rows_of(table: pd.DataFrame, formats: Mapping[str, Callable[[Any], str]] | None = None) -> dict[str, Any]:
    """What the component draws: the columns, and per row its id, link, text and cells as text (the first column
    holds the link cells)."""
    formats = formats or {}
    link_column, *others = list(table.columns)
    rows = []
    for _, row in table.head(MAX_ROWS).iterrows():
        href, text = split_link(row[link_column])
        rows.append({"id": _id_of(href), "href": href, "text": text,
                     "cells": [cell_text(row[c], formats.get(c)) for c in others],
                     "keys": [sort_key(row[c]) for c in others]})
    numeric = [pd.api.types.is_numeric_dtype(table[c]) and c not in formats for c in others]
    return {"columns": [link_column, *others], "rows": rows, "numeric": numeric}


def _id_of(href: str) -> int:
    query = dict(parse_qsl(urlsplit(href).query))
    value = next(iter(query.values()), "0")
    return int(value) if value.isdigit() and len(value) < 19 else 0


def show(table: pd.DataFrame, *, key: str, formats: Mapping[str, Callable[[Any], str]] | None = None,
         tick: bool = False, ticked: Iterable[int] = ()) -> set[int]:
    """Draw the table; a click on a name opens its view. Returns the ticked rows' ids (with ``tick``)."""
    data = rows_of(table, formats) | {"tick": tick, "ticked": sorted(set(ticked))}
    result = _TABLE(data=data, key=key, default={"ticked": data["ticked"]}, on_ticked_change=_nothing,
                    on_opened_change=_nothing)
    if len(table) > MAX_ROWS:
        st.caption(f"The newest {MAX_ROWS:,} of {len(table):,} shown; a filter reaches the others.")
    opened = getattr(result, "opened", None)
    if opened:
        _open(str(opened))
    return {int(i) for i in (getattr(result, "ticked", None) or []) if isinstance(i, int)}


def _nothing() -> None:
    """A change the page reads from the result on its rerun."""


def _open(href: str) -> None:
    """Switch to the page a link names, with its query (the app's navigation: the session stays)."""
    parts = urlsplit(href)
    path = parts.path.strip("/").rsplit("/", 1)[-1]
    page = next((p for p in router.pages() if p.url_path == path), None)
    if page is not None:
        st.switch_page(page, query_params=dict(parse_qsl(parts.query)))
