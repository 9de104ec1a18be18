"""Watching a live run in real Chromium: a row the worker writes reaches the chart the user sees within the
charts' period, and the run is marked as watched in the store and on its view.

This test process stands in for the run's worker (it writes rows the way a worker's flush does), so the timing
is the view's alone. What watching costs the run is measured by benchmarks/live_view_cost.py, not here.
"""

from __future__ import annotations

import os
import re
import time

import pytest
from playwright.sync_api import Page, expect

from devtools.browser import chromium, served_app, wait_for_app
from rlcore import report
from rlcore.runs.store import Store
from ui.run_view import CHART_SECONDS

# What the charts have drawn: each Plotly div keeps the data it drew; the loss chart's last x is the newest step.
LAST_LOSS_STEP = """() => {
  for (const div of document.querySelectorAll('.js-plotly-plot')) {
    if ((div.layout?.title?.text || '').replace(/<[^>]*>/g, '') !== 'loss') continue;  // Streamlit's theme bolds it
    const xs = div._fullData[div._fullData.length - 1].x;  // decoded (the figure sends numbers as base64)
    return xs.length ? Number(xs[xs.length - 1]) : null;
  }
  return null;
}"""


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("rlcore_home")


@pytest.fixture(scope="module")
def server(home):
    with served_app(home) as base:
        yield base


@pytest.fixture(scope="module")
def page(server):
    with chromium() as browser:
        yield browser.new_context(viewport={"width": 1400, "height": 2000}).new_page()


def _running_run(store: Store) -> int:
    run_id = store.create_run("dqn", {"epochs": 300}, label="watched")
    assert store.mark_running(run_id, os.getpid(), {"cpu": "test"})  # this process stands in for its worker
    store.report(run_id, [(s, s / 100, report.LOSS, 1.0 / s) for s in range(100, 1100, 100)]
                 + [(1000, 10.0, report.ENV_STEPS_PER_S, 300.0)], progress=0.1, phase="training")
    return run_id


def _wait_for_step(page: Page, step: int, timeout: float) -> float:
    """Seconds until the loss chart shows ``step``; fails after ``timeout``."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if page.evaluate(LAST_LOSS_STEP) == step:
            return time.monotonic() - start
        time.sleep(0.05)
    raise AssertionError(f"the loss chart did not show step {step} within {timeout} s "
                         f"(it shows {page.evaluate(LAST_LOSS_STEP)})")


def test_a_written_row_reaches_the_chart_within_the_refresh_and_the_run_is_marked_watched(home, server, page):
    store = Store(home)
    run_id = _running_run(store)
    page.goto(f"{server}/dqn?run={run_id}&refresh=1s")
    wait_for_app(page)
    _wait_for_step(page, 1000, timeout=30)

    # Each new row must appear within a couple of seconds: the charts' period at a 1 s refresh (CHART_SECONDS)
    # and a little for the server and the browser; three in a row, so a lucky tick cannot pass it.
    assert CHART_SECONDS <= 2.0
    limit = 3.5
    for step in (1100, 1200, 1300):
        store.report(run_id, [(step, step / 100, report.LOSS, 1.0 / step)], progress=step / 3000)
        assert _wait_for_step(page, step, timeout=limit) <= limit

    watched = store.get_run(run_id)
    assert watched.watched_seconds >= 2.0 and watched.watch_refresh == 1.0

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
