"""Your own code in real Chromium: the Your code page typed into (bad input first), a naive DQN port run on the
server through the queue, in Runs while it trains, its view's chart updating in place, its Why panel in the code's
words, and a comparison with the lab's graph DQN."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from devtools.browser import ROOT, opened, served_app, wait_for_app
from rlcore.runs import service
from rlcore.runs.store import Store

SCRIPTS = ROOT / "tests" / "scripts"
OUTPUT = ROOT / "test-output" / "e2e"
CHART = """(title) => document.querySelector(`[data-testid='rlcoreChart'][data-title="${title}"]`)"""
# As drawn (plotly decodes the figure's binary arrays into _fullData); the last-value label is text, not a point.
POINTS = f"""(title) => ({CHART})(title)?._fullData?.reduce(
    (n, t) => n + (t.mode === 'text' ? 0 : Array.from(t.x ?? []).length), 0) ?? 0"""
TAG = f"""(title) => {{ ({CHART})(title).__tagged = true; }}"""
TAGGED = f"""(title) => ({CHART})(title)?.__tagged === true"""


def _type(page: Page, label: str, text: str) -> None:
    box = page.get_by_role("textbox", name=label, exact=True)
    box.fill(text)
    box.press("Enter")
    wait_for_app(page)


def test_a_script_run_from_the_page_trains_live_reads_in_the_code_s_words_and_compares(home, browser):
    store = Store(home)
    graph = service.create_run(store, "dqn", {"epochs": 15, "exec_mode": "graph"}, label="the lab's graph")
    store.finish(graph, "done", summary={"win_rate": 0.1, "steps_per_second": 1500.0, "train_seconds": 1.0})
    with served_app(home) as base:
        page = opened(browser, f"{base}/script", 1800)
        expect(page.get_by_role("heading", name="Your code", exact=True)).to_be_visible()
        expect(page.get_by_text("rlcore profile --steps 20 train.py --epochs 3", exact=False)).to_be_visible()
        # Bad input: one sentence each, nothing queued.
        _type(page, "script", "/nowhere/train.py")
        page.get_by_role("button", name="Run it").click()
        wait_for_app(page)
        expect(page.get_by_text("There is no script at /nowhere/train.py.")).to_be_visible()
        _type(page, "script", str(SCRIPTS / "naive_port.py"))
        _type(page, "profile steps", "-5")
        page.get_by_role("button", name="Run it").click()
        wait_for_app(page)
        expect(page.get_by_text(re.compile(r"^profile must be at least 0"))).to_be_visible()
        assert [r.kind for r in store.list_runs()] == ["dqn"]
        # A good one: the seed question's slow habits, 150 moves (86 training steps), 8 of them profiled.
        _type(page, "its arguments", "150")
        _type(page, "profile steps", "8")
        _type(page, "warm-up steps", "4")
        page.get_by_role("button", name="Run it").click()
        expect(page).to_have_url(re.compile(r"/script\?run=\d+"))
        run_id = int(re.search(r"run=(\d+)", page.url).group(1))
        runs = opened(browser, f"{base}/runs", 1800)  # in Runs while it trains
        row = runs.get_by_role("link", name=f"{run_id}: naive_port.py", exact=True)
        expect(row).to_be_visible()
        expect(runs.get_by_text("running").first).to_be_visible(timeout=120_000)
        chart = "steps per second"  # the port's loss is inside its eager step: its speed is what it shows
        page.bring_to_front()  # a page behind another draws no animation frames: poll on a clock besides
        page.wait_for_function(f"({POINTS})('{chart}') > 0", timeout=180_000, polling=250)
        page.evaluate(TAG, chart)
        before = page.evaluate(POINTS, chart)  # then more rows, in the same chart
        page.wait_for_function(f"({POINTS})('{chart}') > {before}", timeout=120_000, polling=250)
        assert page.evaluate(TAGGED, chart), "the chart was mounted anew instead of updated in place"
        heading = page.get_by_role("heading", name=re.compile(rf"^Run {run_id}: naive_port.py — done"))
        expect(heading).to_be_visible(timeout=240_000)
        expect(page.get_by_text(re.compile("^In the code's words"))).to_be_visible()
        findings = page.get_by_test_id("stTable").first
        expect(findings).to_be_visible()
        expect(findings.get_by_text(re.compile(r"call the model instead"))).to_be_visible()  # the change, whole
        expect(page.get_by_text(re.compile(r"^Your code: 86 steps \(optimizer updates\)"))).to_be_visible()
        expect(page.get_by_test_id("stException")).to_have_count(0)
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUTPUT / "your_code_run.png"), full_page=True)
        done = store.get_run(run_id)
        causes = [f["title"] for f in done.summary["profile"]["findings"]]
        assert "model.predict in a loop" in causes, causes
        compare = opened(browser, f"{base}/runs?runs={run_id},{graph}", 1800)
        expect(compare.get_by_text(re.compile("^These runs are of 2 different workloads"))).to_be_visible()
        expect(compare.get_by_role("link", name=f"{graph}: the lab's graph", exact=True).first).to_be_visible()
        # The port's reading under the comparison (its causes' order moves with the machine's load).
        reading = re.compile(rf"^{run_id}: naive_port.py — .*model.predict in a loop")
        expect(compare.get_by_text(reading)).to_be_visible()
        expect(compare.get_by_test_id("stException")).to_have_count(0)
        compare.screenshot(path=str(OUTPUT / "your_code_compare.png"), full_page=True)
