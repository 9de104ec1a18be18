"""How the dashboard writes numbers and names: one format everywhere (no Streamlit here; tested on its own).

Rates and errors are percentages with three significant digits (95.8%, 5.41%, 0.0130%), counts and throughputs
have thousands separators, durations carry their unit, and metric keys get human titles.
"""

from __future__ import annotations

import math
import re
from typing import Any

from rlcore.contract.reporting import LOSS, PHASE_PREFIX
from rlcore.contract.text import amount_text, number_text, percent_text, seconds_text
from rlcore.contract.workloads import Headline
from rlcore.tracking import system_metrics

# Human titles of the lab's own metric keys; a workload names its own (its charts and ``metric_titles``, which
# ``metric_title`` asks first), and other keys fall back to their last part.
METRIC_TITLES = {
    LOSS: "loss",
    system_metrics.RUN_CORES: "CPU cores this run kept busy",
    system_metrics.MACHINE_CORES: "CPU cores busy on the machine",
    system_metrics.THREADS: "threads of the run",
    system_metrics.RSS_MB: "memory of the run (MB)",
    system_metrics.GPU_UTIL: "GPU busy",
    system_metrics.GPU_MEMORY_MB: "GPU memory (MB)",
}
PERCENT_METRICS = {system_metrics.GPU_UTIL}  # beside the workloads' percent charts (compare.chart_style)


# What opens markup: emphasis and code marks, links and images, HTML and its entities (&amp;), tables, math, and a
# list or heading at the start. Streamlit's :red[...] and :material/icon: directives and :emoji: shortcodes are
# matched on the text itself, after escapes, so a zero-width space after their colon keeps them text (_SHORTCODE).
_MARKDOWN = re.compile(r"[\\`*_\[\]<>#!|~$&]|^(?:[-+]|\d+\.)")
_SHORTCODE = re.compile(r":(?=[\w/+-]+[\[:])")
# GitHub-flavoured markdown turns bare addresses into links even when their punctuation is escaped; a zero-width
# space after the scheme or "www" (or before "@") keeps them text without changing what is seen.
_AUTOLINK = re.compile(r"(?i)(https?|ftp|www)(?=\\?[:.])|(?=@)")


def md(text: str, limit: int = 200) -> str:
    """User text inside Streamlit markdown (headings, alerts, captions): shown as typed, never as a link, an image
    or HTML, on one line and at most ``limit`` characters."""
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    escaped = _SHORTCODE.sub(":\u200b", _MARKDOWN.sub(lambda m: "\\" + m.group(0), text))
    return _AUTOLINK.sub(lambda m: (m.group(1) or "") + "\u200b", escaped)


def metric_title(key: str) -> str:
    """A metric's title as its workload's chart declares it, else the lab's own names, else its key's last part."""
    from rlcore.contract import workloads

    for workload in workloads.all_workloads():
        for chart in workload.charts:
            if chart.metric == key and chart.kind == "line":
                return chart.title
        if key in workload.metric_titles:
            return workload.metric_titles[key]
    if key in METRIC_TITLES:
        return METRIC_TITLES[key]
    if key.startswith(PHASE_PREFIX):
        return f"seconds in {key[len(PHASE_PREFIX):]}"
    return key.rsplit("/", 1)[-1].replace("_", " ")


def percent(fraction: float | None) -> str:
    """A fraction as a percentage with three significant digits: 0.958 → 95.8%, 0.00013 → 0.0130%."""
    return "–" if fraction is None else percent_text(fraction)


def number(value: float | None, unit: str = "") -> str:
    """A count or rate with thousands separators, three significant digits below 100."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return amount_text(value, unit)


def value(value: float | None, percent: bool = False) -> str:
    """Any measured value as charts and tables write it: percentages as percent(), counts and rates with thousands
    separators and three significant digits, tiny values (a loss of 1.88e-7) in short scientific form."""
    if value is None or not math.isfinite(value):
        return "–"
    if percent:
        return percent_text(value)
    if value == 0 or abs(value) >= 0.01:
        return amount_text(value)
    return number_text(float(f"{value:.3g}"))


def seconds(value: float | None) -> str:
    return "–" if value is None else seconds_text(value)


def rough_duration(value: float) -> str:
    """A time left, as precise as an estimate deserves: 45 s, 3 min, 1.5 h."""
    if value < 90:
        return f"{value:,.0f} s"
    if value < 5400:
        return f"{value / 60:,.0f} min"
    return f"{value / 3600:,.1f} h"


def headline(h: Headline, value: float | None) -> str:
    """A headline number as its workload defines it."""
    return h.text(value)


def field_text(value: Any) -> str:
    """A setting's value as a form's text field holds it, parsed back to the same value: 5000, 0.001, 1e-07 as
    1e-7, 1234.5; a switch as true or false (as a link writes it); text as it is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return number_text(value).replace(",", "")


def readable(text: str) -> str:
    """Text that may hold what no page can send (lone surrogates from undecodable bytes in an argv, a path): those
    written as escapes, the rest as it is."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def value_text(value: Any) -> str:
    """A setting's value as a table shows it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return readable(str(value)) if value != "" else "(empty)"
