"""Finding one's way in real Chromium: what a user types into a form's number is what Launch queues (or a
sentence and nothing queued), every run and sweep in a table opens its view, and the address bar is the link of
what the page shows (a reload after "Launch again" shows the same form).

AppTest sets widget values directly; only a browser shows what its own fields refuse (a number field with bounds
kept its old value when -5 was typed and Launch queued that), so these run in Chromium.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from devtools.browser import opened, served_app, wait_for_app
from rlcore import search
from rlcore.runs import service
from rlcore.runs.store import Store

# What a browser's number field refused or mangled (-5 below a minimum, 1.5 above a maximum, a seed past 2**31,
# lr 0, 1e9 in a whole-number field, letters), typed into each form's fields. A field either keeps the text and
# the form says why Launch is off, or the run Launch queues has exactly the value shown.
TYPED = {
    "dqn": [("epochs", "-5"), ("gamma", "1.5"), ("seed", "99999999999"), ("lr", "0"), ("memory", "1e9"),
            ("batch", "abc")],
    "hjb": [("steps", "-5"), ("seed", "99999999999"), ("lr", "0"), ("batch", "1e9"), ("k max", "abc"),
            ("gamma", "1.5")],  # a CRRA of 1.5 is valid: this one launches, with 1.5
    "bench": [("repeats", "-5"), ("min seconds", "1.5"), ("seed", "99999999999"), ("repeats", "1e9"),
              ("min seconds", "abc"), ("min seconds", "0")],
    "sweeps": [("random draws", "-5"), ("seed of the draws", "99999999999"), ("random draws", "1e9"),
               ("random draws", "abc"), ("gamma", "1.5"), ("lr", "0")],
}
LAUNCH = {"dqn": "Launch", "hjb": "Launch", "bench": "Launch", "sweeps": "Launch sweep"}
# The typed values that are valid settings: these launch, every other is flagged. Said here, not read off the
# button: under load the rerun a typed value causes can start after the page looked idle, and a button read then
# is the one before the value (it was enabled, the click queued nothing, the test waited for a run).
LAUNCHES = {("hjb", "gamma", "1.5"), ("bench", "min seconds", "1.5")}


def _field(page: Page, name: str):
    box = page.get_by_role("textbox", name=name, exact=True)
    if not box.count():  # a rarer setting: under "More settings"
        page.get_by_text("More settings").first.click()
    return box


def _type(page: Page, name: str, text: str) -> None:
    box = _field(page, name)
    box.fill(text)
    box.press("Enter")
    page.wait_for_timeout(300)
    wait_for_app(page)


def test_a_fresh_server_s_first_visit_to_any_address_is_the_router_s_page(server, browser, home):
    """The first request this module's fresh server takes (keep this test first). Streamlit treats a pages/ folder
    the old way until a run calls st.navigation: a first visit to /dqn said "Page not found" (over a form that could
    not be typed into until the dialog closed), one to /runs?run=ID ran pages/runs.py alone. The pages live in
    app_pages/: `make run` and a plain `streamlit run app.py` serve the same dashboard from the first visit."""
    store = Store(home)
    run_id = service.create_run(store, "dqn", {"epochs": 40, "exec_mode": "graph"}, label="the first visit")
    store.finish(run_id, "done", summary={"win_rate": 0.5, "steps_per_second": 300.0, "train_seconds": 2.0})

    def routed(page: Page, heading: re.Pattern) -> None:
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        nav = page.get_by_test_id("stSidebarNav")
        expect(nav.get_by_text("Your code", exact=True)).to_be_visible()
        for file_name in ("app", "workload"):
            expect(nav.get_by_text(file_name, exact=True)).to_have_count(0)
        page.wait_for_timeout(500)
        expect(page.get_by_text("Page not found")).to_have_count(0)

    page = opened(browser, f"{server}/dqn?run={run_id}")
    routed(page, re.compile(rf"^Run {run_id}: the first visit"))
    with served_app(home, plain=True) as plain:
        page = opened(browser, f"{plain}/runs?run={run_id}")
        routed(page, re.compile(rf"^Run {run_id}: the first visit"))
        assert page.url.endswith(f"?run={run_id}"), page.url
    with served_app(home, plain=True) as plain:  # a fresh plain server's first visit: a shared link of a form
        page = opened(browser, f"{plain}/dqn?epochs=55")
        routed(page, re.compile(r"^Gridworld DQN"))
        _type(page, "epochs", "66")  # the form takes typing at once (main: inert under the dialog)
        assert "epochs=66" in page.url, page.url


def test_a_switch_is_a_toggle_bound_to_the_link_and_an_old_turbo_link_still_opens(server, browser, home):
    """turbo's switches are booleans: a toggle, true/false in the link. A link written while turbo was the DQN's
    style, with on/off (``/dqn?exec=turbo&turbo_xla=off&turbo_lr=0.03``), opens turbo's own form with the same
    settings in its names, and Launch queues a turbo run with a boolean."""
    store = Store(home)
    page = opened(browser, f"{server}/dqn?exec=turbo&turbo_xla=off&turbo_lr=0.03&label=old")
    expect(page).to_have_url(re.compile(r"/turbo\?"), timeout=30_000)
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]xla=false\b"))  # the new link says all the old one did
    expect(page.get_by_role("heading", name="Gridworld DQN, turbo")).to_be_visible()
    page.get_by_text("More settings").first.click()
    wait_for_app(page)
    expect(page.get_by_label("lr", exact=True)).to_have_value("0.03")
    toggle = page.get_by_test_id("stCheckbox").filter(has_text="xla")
    switch = toggle.locator("input")
    expect(switch).not_to_be_checked()
    for checked in (True, False):
        for _ in range(3):  # a click while the page still reruns from the last one can be dropped: try again
            toggle.locator("label").first.click()
            page.wait_for_timeout(300)
            wait_for_app(page)
            if switch.is_checked() == checked:
                break
        expect(switch).to_be_checked(checked=checked)
    expect(page).to_have_url(re.compile(r"[?&]xla=false\b"))
    before = {r.id for r in store.list_runs()}
    page.get_by_role("button", name="Launch", exact=True).click()
    expect(page).to_have_url(re.compile(r"[?&]run=\d+"), timeout=30_000)
    (new,) = [r for r in store.list_runs() if r.id not in before]
    store.request_cancel(new.id)
    assert new.kind == "turbo" and new.config["xla"] is False and new.config["learning_rate"] == 0.03
    assert new.label == "old"


@pytest.mark.parametrize("form", list(TYPED))
def test_what_is_typed_into_a_number_is_what_launch_queues_or_a_sentence_and_nothing(server, browser, home, form):
    store = Store(home)
    page = opened(browser, f"{server}/{form}")
    for name, text in TYPED[form]:
        before = {r.id for r in store.list_runs()}
        expect(_field(page, name)).not_to_have_value("")  # drawn with its value
        default = _field(page, name).input_value()
        _type(page, name, text)
        expect(_field(page, name)).to_have_value(text)  # the field holds exactly what was typed
        launch = page.get_by_role("button", name=LAUNCH[form], exact=True)
        if (form, name, text) in LAUNCHES:
            expect(launch).to_be_enabled()
            launch.click()
            expect(page).to_have_url(re.compile(r"[?&](run|sweep)=\d+"), timeout=30_000)
            (new,) = [r for r in store.list_runs() if r.id not in before]
            store.request_cancel(new.id)  # what was queued is all this test needs
            key = name.replace(" ", "_")
            assert str(new.config[key]) == text, (name, text, new.config[key])
            page = opened(browser, f"{server}/{form}")
            continue
        sentence = page.get_by_test_id("stAlertContentError")
        expect(sentence).to_have_count(1)
        expect(launch).to_be_disabled()
        assert re.search(rf"\b{name.replace(' ', '[_ ]')}\b", sentence.inner_text()), sentence.inner_text()
        expect(page.get_by_test_id("stException")).to_have_count(0)
        time.sleep(0.5)  # a queue would have shown by now
        assert {r.id for r in store.list_runs()} == before
        _type(page, name, default)  # mended, Launch is on again
        expect(page.get_by_test_id("stAlertContentError"), f"{name}={default}").to_have_count(0)
        expect(page.get_by_role("button", name=LAUNCH[form], exact=True)).to_be_enabled()


def test_two_bad_fields_typed_are_both_flagged_and_launch_waits_for_both(server, browser, home):
    """Main: batch -5 then steps abc: only the second was flagged, the first kept its value unflagged."""
    page = opened(browser, f"{server}/hjb")
    _type(page, "batch", "-5")
    _type(page, "steps", "abc")
    errors = page.get_by_test_id("stAlertContentError")
    expect(errors).to_have_count(2)
    texts = sorted(e.inner_text()[:5] for e in errors.all())
    assert texts == ["batch", "steps"], texts
    expect(_field(page, "batch")).to_have_value("-5")  # both keep what was typed
    launch = page.get_by_role("button", name=LAUNCH["hjb"], exact=True)
    expect(launch).to_be_disabled()
    _type(page, "steps", "500")
    expect(errors).to_have_count(1)
    expect(launch).to_be_disabled()
    _type(page, "batch", "100")
    expect(errors).to_have_count(0)
    expect(launch).to_be_enabled()


def test_a_run_or_a_sweep_in_a_table_opens_its_view_and_launch_again_is_a_link(server, browser, home):
    store = Store(home)
    for run in store.list_runs():  # what the form test queued
        store.request_cancel(run.id)
    finished = service.create_run(store, "dqn", {"epochs": 40, "exec_mode": "graph"}, label="forty games")
    store.finish(finished, "done", summary={"win_rate": 0.5, "steps_per_second": 300.0, "train_seconds": 2.0})
    sweep_id, members = store.create_sweep("dqn", {"epochs": 3},
                                           search.Space(grid={"batch_size": [16, 32]}).to_dict(),
                                           [({"epochs": 3, "batch_size": b}, f"batch={b}") for b in (16, 32)],
                                           label="two batches")
    for run_id in members:
        store.finish(run_id, "cancelled")

    runs = opened(browser, f"{server}/runs")
    name = runs.get_by_role("link", name=f"{finished}: forty games", exact=True)
    expect(name).to_have_attribute("href", f"dqn?run={finished}")  # a real link: copy it, middle-click it
    name.click()  # one click, this tab
    view = runs
    expect(view.get_by_role("heading", name=re.compile(rf"^Run {finished}: forty games — done"))).to_be_visible(
        timeout=30_000)
    assert re.search(rf"/dqn\?run={finished}$", view.url) and len(view.context.pages) == 1  # no new tab

    sweeps = opened(browser, f"{server}/sweeps")
    sweeps.get_by_role("link", name=f"{sweep_id}: two batches", exact=True).click()
    wait_for_app(sweeps)
    heading = sweeps.get_by_role("heading", name=re.compile(rf"^Sweep {sweep_id}: two batches"))
    expect(heading).to_be_visible(timeout=30_000)
    sweeps.get_by_text("show the 2 members").click()
    wait_for_app(sweeps)
    member = sweeps.get_by_role("link", name=re.compile(rf"^{members[0]}: batch=16$"))
    member.click()  # a sweep's members are links too
    expect(sweeps.get_by_role("heading", name=re.compile(rf"^Run {members[0]}: batch=16"))).to_be_visible(
        timeout=30_000)
    home = opened(browser, f"{server}/?run={finished}")  # an address typed or pasted: the run, not Home
    expect(home.get_by_role("heading", name=re.compile(rf"^Run {finished}: forty games"))).to_be_visible(
        timeout=30_000)
    home.get_by_role("link", name="Home").click()
    expect(home.get_by_role("link", name=f"{finished}: forty games", exact=True)).to_be_visible()  # Home's table

    view.get_by_role("button", name="Launch again with these settings").click()
    expect(view).to_have_url(re.compile(r"/dqn\?(.*&)?epochs=40\b"))
    expect(view.get_by_role("textbox", name="epochs", exact=True)).to_have_value("40")
    view.reload()
    wait_for_app(view)
    expect(view.get_by_role("textbox", name="epochs", exact=True)).to_have_value("40")  # the link is the form
    expect(view.get_by_role("combobox", name="exec")).to_have_value("graph")
