"""A finished run's why in a notebook's cell: the verdict, the causes with their shares, the change to make and the
cell lines behind each (``In [5], line 3: loss = train_step(x, y, lr)``), a Plotly chart of its speed and loss, and
where to see more. A rich display (HTML) with plain text beside it for front ends that show no HTML; everything a
person needs is in the cell, because the dashboard may not be reachable from their browser (Colab, a remote kernel):
its link is given only where it can work."""

from __future__ import annotations

import html
import os
import socket
from typing import Any

from rlcore.contract import profile_text, workloads
from rlcore.contract.reporting import LOSS, STEPS_PER_S
from rlcore.contract.text import seconds_text
from rlcore.runs.store import Run, Store
from rlcore.tracking import kernel

DASHBOARD_HOST, DASHBOARD_PORT = "127.0.0.1", 8501  # where `make run` serves the dashboard


def text(run: Run) -> str:
    """The why as plain text (a terminal-like front end, the executed notebook's text/plain)."""
    lines = [headline(run)]
    verdict = _verdict(run)
    if verdict:
        lines.append(verdict)
    profile = run.summary.profile if run.summary is not None else None
    if profile is not None and profile.ok:
        lines += [profile_text.finding_line(i, f) for i, f in enumerate(profile.findings, start=1)]
    elif profile is not None:
        lines.append(profile.error)
    lines.append(where_to_see(run))
    return "\n".join(lines)


def headline(run: Run) -> str:
    summary = run.summary
    rate = summary.steps_per_second if summary is not None else None
    profile = summary.profile if summary is not None else None
    why = f", {profile.verdict}" if profile is not None and profile.ok and profile.findings else ""
    return (f"rlcore: run {run.id} {run.status}{why}" + (f", {rate:,.3g} steps/s" if rate else "")
            + (f": {run.error}" if run.error else ""))


def _verdict(run: Run) -> str:
    try:
        workload = workloads.of_run(run.kind)
        return workload.judge(workload.make_config(run.config), run.summary or {}).text
    except Exception:  # a stored config this version no longer reads: the rest of the why stands
        return ""


def page(run: Run) -> str:
    """The why as HTML: the headline, the verdict, a table of the causes with the cell lines under each."""
    profile = run.summary.profile if run.summary is not None else None
    out = [f"<div class='rlcore-why'><p><b>{html.escape(headline(run))}</b></p>"]
    verdict = _verdict(run)
    if verdict:
        out.append(f"<p>{html.escape(verdict)}</p>")
    if profile is not None and profile.ok and profile.findings:
        out.append("<table><tr><th style='text-align:left'>cause</th><th>per step</th><th>share</th>"
                   "<th style='text-align:left'>the change to make</th></tr>")
        for f in profile.findings:
            lines = "".join(f"<br><code>{html.escape(profile_text.where_line(w))}</code>" for w in f.where)
            out.append(f"<tr><td style='text-align:left'>{html.escape(f.title)}{lines}</td>"
                       f"<td>{html.escape(seconds_text(f.seconds_per_step))}</td>"
                       f"<td>{html.escape(profile_text.share_text(f))}</td>"
                       f"<td style='text-align:left'>{html.escape(f.fix)}</td></tr>")
        out.append("</table>")
    elif profile is not None and not profile.ok:
        out.append(f"<p>{html.escape(profile.error)}</p>")
    out.append(f"<p><small>{html.escape(where_to_see(run))}</small></p></div>")
    return "".join(out)


def where_to_see(run: Run) -> str:
    """Its link where the person's browser can reach the dashboard; else how to see the run (Colab's VM, a hub's
    remote kernel: the loopback address there is not the person's machine)."""
    if kernel.in_colab() or os.environ.get("JUPYTERHUB_USER"):
        return (f"Stored as run {run.id} in this kernel's machine's store ($RLCORE_HOME or ./.rlcore); the dashboard "
                "there is not reachable from your browser, so everything is above: %rlcore why shows it again, "
                f"rlcore runs show {run.id} in a terminal of that machine.")
    link = f"http://{DASHBOARD_HOST}:{DASHBOARD_PORT}/runs?run={run.id}"
    if _serving():
        return f"Its view in the dashboard: {link}"
    return f"Stored as run {run.id}; its view: {link} once the dashboard runs (make run in the lab's folder)."


def _serving() -> bool:
    """Whether the dashboard answers on this machine's loopback (a connect, nothing sent)."""
    try:
        with socket.create_connection((DASHBOARD_HOST, DASHBOARD_PORT), timeout=0.2):
            return True
    except OSError:
        return False


def chart(store: Store, run: Run) -> Any | None:
    """Its speed and loss over its steps (Plotly), or None when it logged neither (or Plotly is not installed: the
    why above stands without it)."""
    try:
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots
    except ImportError:
        return None

    metrics = store.metrics(run.id, [STEPS_PER_S, LOSS])
    if not len(metrics):
        return None
    shown = [(name, title) for name, title in ((STEPS_PER_S, "steps per second"), (LOSS, "loss"))
             if len(metrics[metrics["name"] == name])]  # a loop that logs no loss has no empty loss chart
    fig = make_subplots(rows=1, cols=len(shown), subplot_titles=[title for _, title in shown])
    for col, (name, _) in enumerate(shown, start=1):
        rows = metrics[metrics["name"] == name]
        fig.add_trace(go.Scatter(x=rows["step"], y=rows["value"], mode="lines+markers", showlegend=False),
                      row=1, col=col)
        fig.update_xaxes(title_text="step", row=1, col=col)
        if name == LOSS:
            fig.update_yaxes(type="log", row=1, col=col)
    fig.update_layout(height=300, margin={"l": 40, "r": 20, "t": 40, "b": 40}, title=f"run {run.id}: {run.label}")
    return fig


def show(run_id: int, store: Store | None = None) -> None:
    """The run's why in the cell (HTML, and plain text beside it), then its chart."""
    from IPython.display import display

    store = store or Store()
    run = store.get_run(run_id)
    if run is None:
        print(f"rlcore: run {run_id} is not in the store at {store.home} (deleted?).")
        return
    display({"text/plain": text(run), "text/html": page(run)}, raw=True)
    figure = chart(store, run)
    if figure is not None:
        display(chart_bundle(figure), raw=True)


_PLOTLY_JS_SENT = False  # this kernel's cells have plotly.js (the first chart carried it)


def chart_bundle(figure: Any) -> dict[str, Any]:
    """The chart for every front end, offline (nothing fetched from a CDN): Plotly's own JSON for a front end that
    renders it, HTML beside it that carries plotly.js the first time in a kernel (as Plotly's offline notebook mode
    does; in Colab every time, since each output is a page of its own), and a sentence for plain text."""
    import json

    global _PLOTLY_JS_SENT
    embed = kernel.in_colab() or not _PLOTLY_JS_SENT
    page = figure.to_html(full_html=False, include_plotlyjs=embed, config={"displaylogo": False})
    _PLOTLY_JS_SENT = True
    return {"application/vnd.plotly.v1+json": json.loads(figure.to_json()), "text/html": page,
            "text/plain": "(a chart of its steps per second and loss; a front end that shows HTML draws it)"}


class Progress:
    """A run's progress in its cell, as one line updated in place (IPython's display handle: no widget library), at
    most twice a second: its steps, its speed; gone when the run ends (its why takes the place)."""

    EVERY_SECONDS = 0.5

    def __init__(self) -> None:
        self._handle: Any = None
        self._shown = 0.0

    def on_start(self, info: Any) -> None:
        from IPython.display import display

        self._handle = display({"text/plain": "rlcore: starting"}, raw=True, display_id=True)

    def on_record(self, record: Any) -> bool:
        import time

        now = time.monotonic()
        if self._handle is not None and now - self._shown >= self.EVERY_SECONDS:
            self._shown = now
            rate = record.metrics.get(STEPS_PER_S)
            said = f"rlcore: {record.step:,} steps" + (f", {rate:,.3g} steps/s" if rate else "")
            width = min(100, int(record.progress * 100)) if record.progress else 0
            bar = (f"<progress value='{width}' max='100' style='width:12em'></progress> " if width else "")
            self._handle.update({"text/plain": said, "text/html": f"<div>{bar}{html.escape(said)}</div>"}, raw=True)
        return True

    def on_end(self, summary: Any) -> None:
        if self._handle is not None:
            self._handle.update({"text/plain": ""}, raw=True)

