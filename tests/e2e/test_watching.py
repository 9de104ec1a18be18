"""Watching a live run in real Chromium: a row the worker writes reaches the chart the user sees within the
charts' period, and the run is marked as watched in the store and on its view.

This test process stands in for the run's worker (it writes rows the way a worker's flush does), so the timing
is the view's alone. What watching costs the run is measured by benchmarks/live_view_cost.py, not here.
"""

from __future__ import annotations

import os
import re
import time

import plotly
import pytest
from playwright.sync_api import Page, expect

from devtools.browser import ROOT, chromium, wait_for_app
from rlcore.contract import reporting
from rlcore.runs import service
from rlcore.runs.store import Store
from rlcore.workloads.dqn import metrics as dqn_metrics
from ui.run_view import CHART_SECONDS, DEFAULT_REFRESH, REFRESH_SECONDS

# What a chart has drawn, read from Plotly's own record on the chart's node (gd.data: the traces it drew; the
# last text trace is the newest value written at the end of the line), and a mark on that node, which survives only
# if the chart is updated in place (Plotly.react) rather than mounted anew (what made watching costly:
# docs/measurements/live_view_cost.md).
CHART = """(title) => document.querySelector(`[data-testid='rlcoreChart'][data-title="${title}"]`)"""
NEWEST = f"""(title) => {{
  const chart = ({CHART})(title);
  const text = chart?.data?.filter(t => t.mode === 'text').at(-1);
  return text ? String(text.text[0]) : null;
}}"""
TAG = f"""(title) => {{ ({CHART})(title).__tagged = true; }}"""
TAGGED = f"""(title) => ({CHART})(title)?.__tagged === true"""
SPEED_CHART = "env steps per second"
OUTPUT = ROOT / "test-output" / "e2e"


@pytest.fixture(scope="module")
def page(server):
    with chromium() as browser:
        yield browser.new_context(viewport={"width": 1400, "height": 2000}).new_page()


def _running_run(store: Store) -> int:
    run_id = service.create_run(store, "dqn", {"epochs": 300}, label="watched")
    assert store.mark_running(run_id, os.getpid(), {"cpu": "test"})  # this process stands in for its worker
    store.report(run_id, [(s, s / 100, reporting.LOSS, 1.0 / s) for s in range(100, 1100, 100)]
                 + [(1000, 10.0, dqn_metrics.ENV_STEPS_PER_S, 300.0)], progress=0.1, phase="training")
    return run_id


def _wait_for_newest(page: Page, text: str, timeout: float = 60) -> None:
    """Wait until the speed chart shows ``text`` as its newest value (``timeout`` only guards against a hang)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if page.evaluate(NEWEST, SPEED_CHART) == text:
            return
        time.sleep(0.05)
    raise AssertionError(f"the speed chart did not show {text} within {timeout} s "
                         f"(it shows {page.evaluate(NEWEST, SPEED_CHART)})")


def _draws_until_newest(page: Page, store: Store, run_id: int, text: str, timeout: float = 60) -> int:
    """How many times the view drew (each draw adds to the run's watched time) between now and the speed chart
    showing ``text``. Counted in draws, not seconds, so it holds on a machine of any speed."""
    start, drawn, draws = time.monotonic(), store.get_run(run_id).watched_seconds, 0
    while time.monotonic() - start < timeout:
        if page.evaluate(NEWEST, SPEED_CHART) == text:
            return draws
        if (now := store.get_run(run_id).watched_seconds) != drawn:
            drawn, draws = now, draws + 1
        time.sleep(0.05)
    raise AssertionError(f"the speed chart did not show {text} within {timeout} s after {draws} draws "
                         f"(it shows {page.evaluate(NEWEST, SPEED_CHART)})")


def test_a_written_row_reaches_the_chart_within_the_refresh_and_the_run_is_marked_watched(home, server, page):
    store = Store(home)
    run_id = _running_run(store)
    plotly_js = []
    page.on("response", lambda r: plotly_js.append(r) if re.search(r"plotly[^/]*\.js", r.url) else None)
    page.goto(f"{server}/dqn?run={run_id}")  # the default refresh
    wait_for_app(page)
    _wait_for_newest(page, "300")
    # plotly.js from the app's own static folder, with a validator: a page opened again reuses the browser's copy.
    assert [r.url.split("/app/static/")[-1] for r in plotly_js] == [f"plotly-{plotly.__version__}.min.js"]
    assert plotly_js[0].ok and "etag" in plotly_js[0].all_headers()
    page.evaluate(TAG, SPEED_CHART)

    # Each new row must be on the chart by the view's next draw: the draw under way when it was written may have
    # read the rows before it, the one after must show it. Three in a row, so a lucky tick cannot pass it.
    assert REFRESH_SECONDS[DEFAULT_REFRESH] == CHART_SECONDS  # status and charts on one timer at the default
    for step, speed in ((1100, 311), (1200, 322), (1300, 333)):
        store.report(run_id, [(step, step / 100, reporting.LOSS, 1.0 / step),
                              (step, step / 100, dqn_metrics.ENV_STEPS_PER_S, float(speed))], progress=step / 3000)
        assert _draws_until_newest(page, store, run_id, str(speed)) <= 2
    assert page.evaluate(TAGGED, SPEED_CHART)  # drawn in place: the same chart, its data swapped

    watched = store.get_run(run_id)
    assert watched.watched_seconds >= 2.0 and watched.watch_refresh == 2.0  # three rows took two periods at least

    # At 1 s the status ticks every second and the charts every CHART_SECONDS: a row shows by the charts' next draw.
    page.goto(f"{server}/dqn?run={run_id}&refresh=1s")
    wait_for_app(page)
    _wait_for_newest(page, "333")
    store.report(run_id, [(1400, 14.0, dqn_metrics.ENV_STEPS_PER_S, 344.0)], progress=0.5)
    assert _draws_until_newest(page, store, run_id, "344") <= 2 * CHART_SECONDS / REFRESH_SECONDS["1s"] + 1
    assert store.get_run(run_id).watch_refresh == 1.0

    # Paused, nothing more counts as watched.
    page.goto(f"{server}/dqn?run={run_id}&refresh=paused")
    wait_for_app(page)
    paused_at = store.get_run(run_id).watched_seconds
    time.sleep(2.5)
    assert store.get_run(run_id).watched_seconds == pytest.approx(paused_at, abs=1.1)  # one tick may straddle

    store.finish(run_id, "done", summary={"steps_per_second": 300.0, "win_rate": 0.95, "train_seconds": 12.0})
    page.goto(f"{server}/dqn?run={run_id}")
    wait_for_app(page)
    expect(page.get_by_text(re.compile(r"A live view was open for \d"))).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("stMetricLabel").filter(has_text="(watched)").first).to_be_visible()


def test_a_live_comparison_updates_its_chart_in_place_and_the_charts_answer_the_pointer(home, server, page):
    store = Store(home)
    live = _running_run(store)
    other = service.create_run(store, "dqn", {"epochs": 300}, label="other")
    store.append_metrics(other, [(s, s / 100, dqn_metrics.ENV_STEPS_PER_S, 250.0) for s in range(100, 1100, 100)])
    store.finish(other, "done", summary={"steps_per_second": 250.0, "win_rate": 0.5, "train_seconds": 10.0})
    page.goto(f"{server}/runs?runs={live},{other}&metric=env+steps+per+second&smoothing=0")
    wait_for_app(page)
    compare = """() => document.querySelector("[data-testid='rlcoreChart'][data-title='env steps per second']")"""
    page.wait_for_function(f"() => ({compare})()?.data?.length === 2", timeout=30_000)
    page.evaluate(f"() => {{ ({compare})().__tagged = true; }}")
    store.report(live, [(1100, 11.0, dqn_metrics.ENV_STEPS_PER_S, 355.0)], progress=0.4)
    # The comparison refreshes while a member lives (no watched count to read here: the timeout is a hang guard).
    drawn = f"() => ({compare})()?._fullData?.some(t => Array.from(t.x).includes(1100))"  # decoded, as drawn
    page.wait_for_function(drawn, timeout=60_000)
    assert page.evaluate(f"() => ({compare})().__tagged === true")  # the same node: Plotly.react swapped its data

    # A zoom stays while rows arrive (uirevision), as TensorBoard keeps it across reloads.
    drag = page.locator("[data-testid='rlcoreChart'][data-title='env steps per second'] .nsewdrag").first
    drag.scroll_into_view_if_needed()
    box = drag.bounding_box()
    x_range = f"() => ({compare})()._fullLayout.xaxis.range.slice()"
    whole = page.evaluate(x_range)
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    for _ in range(3):  # plotly.js zooms at most 10% per wheel event
        page.mouse.wheel(0, -100)
    page.wait_for_function(f"() => {{ const r = ({x_range})(); return r[1] - r[0] < {(whole[1] - whole[0]) * 0.95}; }}",
                           timeout=20_000)  # zoomed in on steps
    zoomed = page.evaluate(x_range)
    store.report(live, [(1200, 12.0, dqn_metrics.ENV_STEPS_PER_S, 366.0)], progress=0.5)
    page.wait_for_function(drawn.replace("1100", "1200"), timeout=60_000)
    assert page.evaluate(x_range) == pytest.approx(zoomed)

    # The run's own charts as a TensorBoard user expects them: a hover rule with the values, the wheel zooming the
    # step axis only, a double-click resetting it, the smoothing slider working from the keyboard, log decades.
    page.goto(f"{server}/dqn?run={live}&refresh=paused")
    wait_for_app(page)
    loss = "[data-testid='rlcoreChart'][data-title='loss']"
    page.wait_for_selector(f"{loss} .main-svg", timeout=30_000)
    plot = page.locator(f"{loss} .nsewdrag").first
    box = plot.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    expect(page.locator(f"{loss} .hoverlayer .hovertext, {loss} .hoverlayer .legend").first).to_be_visible()
    before = page.evaluate(f"() => document.querySelector(\"{loss}\")._fullLayout.xaxis.range.slice()")
    page.mouse.wheel(0, -400)
    page.wait_for_timeout(500)
    zoomed = page.evaluate(f"() => document.querySelector(\"{loss}\")._fullLayout.xaxis.range.slice()")
    assert zoomed[1] - zoomed[0] < before[1] - before[0]  # zoomed in on steps
    assert page.evaluate(f"() => document.querySelector(\"{loss}\")._fullLayout.yaxis.fixedrange") is True
    plot.dblclick(position={"x": box["width"] * 0.6, "y": box["height"] / 2})
    page.wait_for_timeout(500)
    reset = page.evaluate(f"() => document.querySelector(\"{loss}\")._fullLayout.xaxis.range.slice()")
    assert reset == pytest.approx(before, rel=1e-6)
    ticks = page.evaluate(f"() => [...document.querySelectorAll(\"{loss} .ytick text\")].map(t => t.textContent)")
    assert ticks and all(t.startswith("10") for t in ticks if t)  # one label per decade: 10⁻³, 10⁻², ...
    smoothed = f"() => Array.from(document.querySelector(\"{loss}\")._fullData[1].y).at(-1)"
    first = page.evaluate(smoothed)
    slider = page.get_by_role("slider", name="smoothing (EMA)")
    slider.focus()
    slider.press("Home")  # no smoothing: the line is the raw values
    page.wait_for_function(f"() => ({smoothed})() !== {first}", timeout=20_000)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=OUTPUT / "run_view_plotly.png", full_page=True)
