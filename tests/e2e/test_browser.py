"""End to end in real Chromium: launch a tiny DQN on the DQN page, watch it finish, open its share link.

Debian's chromium (installed by .ci/run) is driven by Playwright; no browser is downloaded. Screenshots of
every page land in test-output/e2e/ for a person to look at.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from devtools.browser import ROOT, chromium, served_app, wait_for_app

OUTPUT = ROOT / "test-output" / "e2e"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with served_app(tmp_path_factory.mktemp("rlcore_home")) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def _open(browser, url: str, errors: list[str]) -> Page:
    page = browser.new_context(viewport={"width": 1400, "height": 2400}).new_page()
    page.on("console", lambda m: _keep_error(m, errors))
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.goto(url)
    wait_for_app(page)
    return page


# Opened straight at a page's path (/dqn), Streamlit's frontend first probes /dqn/_stcore/health and
# /dqn/_stcore/host-config for a base path, gets 404 and falls back to /_stcore/ (streamlit/streamlit#7074,
# open). Only those two probes are forgiven; any other error fails the test.
BASE_PATH_PROBE = re.compile(r"status of 404 .*/[a-z]+/_stcore/(health|host-config)\)$")


def _keep_error(message: ConsoleMessage, errors: list[str]) -> None:
    text = f"{message.text} ({message.location.get('url', '')})"
    if message.type == "error" and not BASE_PATH_PROBE.search(text):
        errors.append(text)


def _shot(page: Page, name: str) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0)
    page.screenshot(path=OUTPUT / f"{name}.png", full_page=True)


def _expect_one_loss_chart(page: Page) -> None:
    # While the view switches from live to finished, the old chart can linger next to the new one for a
    # moment; settled, there is exactly one.
    titles = page.locator("[data-testid='rlcoreChart'][data-title='loss'] .gtitle", has_text=re.compile("^loss$"))
    expect(titles.first).to_be_visible(timeout=30_000)
    expect(titles).to_have_count(1, timeout=30_000)


PAGES = [
    "Home", "Gridworld DQN", "Gridworld DQN, turbo", "HJB solver", "Benchmark lab",
    "Your code", "Captures", "Sweeps", "Runs",
]


def test_a_fresh_server_opened_at_a_deep_path_shows_exactly_the_routers_pages(server, browser):
    """The first request this server gets is /dqn: the router must own it (no pages-folder navigation)."""
    errors: list[str] = []
    page = _open(browser, f"{server}/dqn", errors)
    nav = page.get_by_test_id("stSidebarNav").get_by_role("link")
    expect(nav).to_have_count(len(PAGES))
    assert [link.inner_text().split("\n")[-1].strip() for link in nav.all()] == PAGES
    expect(page.get_by_text("no GPU visible to TensorFlow").first).to_be_visible()  # the router's sidebar
    assert errors == [], "\n".join(errors)


def test_a_page_that_needs_no_device_card_draws_before_tensorflow_answers_and_the_card_fills_in(tmp_path, browser):
    """The device card takes seconds (a subprocess imports TensorFlow): a fresh server's Runs page does not wait for
    it, and the card appears in the sidebar by itself once asked, with no reload."""
    errors: list[str] = []
    with served_app(tmp_path) as base:
        page = _open(browser, f"{base}/runs", errors)
        expect(page.get_by_role("heading", name="Runs")).to_be_visible()
        card = page.get_by_test_id("stSidebar").get_by_text("no GPU visible to TensorFlow")
        expect(card).to_be_visible(timeout=120_000)
        expect(page.get_by_test_id("stSidebar").get_by_text("Asking TensorFlow")).to_have_count(0)
    assert errors == [], "\n".join(errors)


def _type(page: Page, name: str, value: str, role: str = "textbox") -> None:
    """Type into a widget as a user does, then let the rerun it causes finish (old elements go at its end)."""
    box = page.get_by_role(role, name=name, exact=True)
    box.fill(value)
    box.press("Enter")
    page.wait_for_timeout(300)
    wait_for_app(page)


def _choose(page: Page, name: str, option: str) -> None:
    page.get_by_role("combobox", name=name).click()
    page.get_by_role("option", name=option, exact=True).click()


def test_typed_invalid_values_are_one_sentence_at_the_field_and_presets_set_every_field(server, browser):
    errors: list[str] = []
    page = _open(browser, f"{server}/dqn", errors)
    _type(page, "batch", "1500")
    alert = page.get_by_test_id("stAlertContentError")
    expect(alert).to_have_text(re.compile(r"^batch must not exceed memory \(1,500 > 1,000\)"))
    expect(page.get_by_role("button", name="Launch")).to_be_disabled()
    expect(page).to_have_url(re.compile(r"batch=1500"))  # the form keeps what was typed, in the link too
    expect(page.get_by_test_id("stException")).to_have_count(0)
    _shot(page, "dqn_form_invalid")
    _type(page, "batch", "100")
    expect(alert).to_have_count(0)
    expect(page.get_by_role("button", name="Launch")).to_be_enabled()

    hjb = _open(browser, f"{server}/hjb", errors)
    _choose(hjb, "preset", "accurate")
    expect(hjb.get_by_role("textbox", name="steps", exact=True)).to_have_value("120000")
    expect(hjb).to_have_url(re.compile(r"preset=accurate"))
    _type(hjb, "k min", "20")
    expect(hjb.get_by_test_id("stAlertContentError")).to_have_text(re.compile(r"^k_min must be below k_max"))
    _choose(hjb, "preset", "seed")
    expect(hjb.get_by_role("textbox", name="steps", exact=True)).to_have_value("100000")
    expect(hjb.get_by_role("textbox", name="k min", exact=True)).to_have_value("20")  # no preset sets it: kept

    bench = _open(browser, f"{server}/bench", errors)
    _type(bench, "patterns", "predict, graph", role="textbox")
    expect(bench.get_by_test_id("stAlertContentError")).to_have_text(re.compile(r"^patterns must be among"))
    _choose(bench, "workload", "hjb-step")
    expect(bench.get_by_role("textbox", name="patterns", exact=True)).to_have_value(
        "eager,graph,xla,graph-k100,xla-k100")
    expect(bench.get_by_test_id("stAlertContentError")).to_have_count(0)
    assert errors == [], "\n".join(errors)


def test_launch_watch_and_share_a_tiny_dqn_run(server, browser):
    errors: list[str] = []
    # Settings come from the link; one more is typed, and the URL must follow the widget.
    page = _open(browser, f"{server}/dqn?memory=200&batch=32&test_games=50&eval_every=0&sync=50", errors)
    expect(page.get_by_text("no GPU visible to TensorFlow").first).to_be_visible(timeout=60_000)
    epochs = page.get_by_role("textbox", name="epochs", exact=True)
    epochs.fill("25")
    epochs.press("Enter")
    expect(page).to_have_url(re.compile(r"epochs=25"))
    page.get_by_role("textbox", name="label").fill("e2e")
    page.get_by_role("textbox", name="label").press("Enter")
    expect(page).to_have_url(re.compile(r"label=e2e"))
    _shot(page, "dqn_form")

    page.get_by_role("button", name="Launch").click()
    expect(page).to_have_url(re.compile(r"[?&]run=1\b"))
    done = page.get_by_role("heading", name=re.compile(r"Run 1: e2e — done"))
    expect(done.first).to_be_visible(timeout=180_000)
    expect(done).to_have_count(1, timeout=30_000)  # the live view's heading, replaced by the finished one
    expect(page.get_by_text("Watch the agent play")).to_be_visible(timeout=30_000)
    _expect_one_loss_chart(page)
    _shot(page, "dqn_run_done")

    page.get_by_role("button", name="Share").first.click()
    link = page.get_by_test_id("stCode").filter(has_text="run=1").first.inner_text().strip()
    assert link == f"{server}/dqn?run=1"

    shared = _open(browser, link, errors)  # a fresh context: no session state carried over
    expect(shared.get_by_role("heading", name=re.compile(r"Run 1: e2e — done"))).to_be_visible(timeout=60_000)
    _expect_one_loss_chart(shared)
    _shot(shared, "dqn_run_shared")

    runs = _open(browser, f"{server}/runs?runs=1", errors)
    expect(runs.get_by_role("heading", name="One run ticked")).to_be_visible()
    expect(runs.locator("[data-testid='rlcoreChart'] .main-svg").first).to_be_visible(timeout=30_000)
    _shot(runs, "runs_compare")
    for name, path in (("home", "/"), ("hjb_form", "/hjb?preset=accurate"), ("bench_form", "/bench?workload=dqn-act")):
        other = _open(browser, f"{server}{path}", errors)
        expect(other.get_by_role("heading").first).to_be_visible()
        _shot(other, name)
    assert errors == [], "\n".join(errors)


def test_a_tiny_sweep_launched_from_the_page_ends_with_its_heatmap(server, browser):
    errors: list[str] = []
    page = _open(browser, f"{server}/sweeps?epochs=3&memory=100&test_games=20&eval_every=0&hidden1=16&hidden2=8",
                 errors)
    _type(page, "batch", "16, 32", role="textbox")
    _type(page, "sync", "25, 50", role="textbox")
    expect(page.get_by_text("This sweep makes 4 runs (2 batch × 2 sync).")).to_be_visible()
    _type(page, "lr", "2", role="textbox")  # one bad value: a sentence at the field, Launch off
    expect(page.get_by_test_id("stAlertContentError")).to_have_text(re.compile(r"^lr must be at most 1, not 2\."))
    expect(page.get_by_role("button", name="Launch sweep")).to_be_disabled()
    _type(page, "lr", "0.001", role="textbox")
    _shot(page, "sweep_form")
    page.get_by_role("button", name="Launch sweep").click()
    expect(page).to_have_url(re.compile(r"[?&]sweep=\d+"))
    expect(page.get_by_text(re.compile(r"^4 of 4 runs ended"))).to_be_visible(timeout=240_000)
    heat = page.get_by_test_id("stTable").first  # the heat map: a table coloured by each setting's mean
    expect(heat.locator("td")).to_have_count(4, timeout=30_000)
    assert "background-color" in heat.inner_html()  # (one rule when every setting scored the same)
    # Four-game runs are speed tests: ranked by speed, never crowned by a win rate they were too short to reach.
    expect(page.get_by_text(re.compile(r"^Best by env steps/s"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Its members are speed tests"))).to_be_visible()
    _shot(page, "sweep_done")
    assert errors == [], "\n".join(errors)
