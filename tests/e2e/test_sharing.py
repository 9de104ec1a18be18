"""Sharing in real Chromium: a dashboard with an operator passphrase, opened by an operator and by a viewer with
only a link; hostile labels and link values on every surface that shows them, with a local listener counting
the requests a browser would make to a tracking pixel (none); a foreign Host refused; the hash never logged."""

from __future__ import annotations

import http.server
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from typing import ClassVar

import pytest
from playwright.sync_api import Page, expect

from devtools.browser import ROOT, chromium, free_port, opened, served_app, wait_for_app
from rlcore import passphrase, search
from rlcore.contract import reporting
from rlcore.runs import service
from rlcore.runs.store import Store

OUTPUT = ROOT / "test-output" / "e2e"
PASSPHRASE = "correct horse battery staple"
HASH = passphrase.hash_passphrase(PASSPHRASE)
WRITE_BUTTONS = re.compile(r"^(Launch|Launch again|Launch sweep|Cancel|Cancel sweep|Delete.*|Save|Reproduce.*|"
                           r"Profile this run)$")


class _Pixel(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Pixel.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def pixel() -> Iterator[str]:
    """A listener on 127.0.0.1 counting every request (a rendered image or a followed link would reach it)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Pixel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/pixel"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _payloads(url: str) -> list[str]:
    return [f"![p]({url})", f"[Session expired, sign in]({url})", f'<a href="{url}">x</a>',
            '<span style="font-size:200px">big</span>', f"<img src={url}>"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory, pixel):
    """The served dashboard (with an operator passphrase) over a store holding runs and a sweep with hostile
    names: the payloads, and 100 KB of text written past the store's own cap as a damaged store might hold."""
    home = tmp_path_factory.mktemp("rlcore_home")
    store = Store(home)
    ids = []
    for label in [*_payloads(pixel), "long"]:
        run_id = service.create_run(store, "dqn", {"epochs": 10}, label=label[:200])
        store.append_metrics(run_id, [(s, s / 10, reporting.LOSS, 1.0 / s) for s in range(1, 20)])
        store.set_notes(run_id, label)
        store.finish(run_id, "done", summary={"win_rate": 0.9, "steps_per_second": 250.0, "train_seconds": 4.0})
        ids.append(run_id)
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET label = ? WHERE id = ?", ("W" * 100_000, ids[-1]))
    space = search.Space(grid={"batch_size": [16]}).to_dict()
    sweep_id, members = store.create_sweep("dqn", {}, space, [({"batch_size": 16}, "m")], label=_payloads(pixel)[0])
    store.finish(members[0], "cancelled")
    with served_app(home, env={"RLCORE_OPERATOR_HASH": HASH}) as base:
        yield base, ids, sweep_id, home


@pytest.fixture(scope="module")
def browser():
    # evil.example resolves to this machine, as a DNS-rebinding page would make it.
    with chromium(["--host-resolver-rules=MAP evil.example 127.0.0.1"]) as browser:
        yield browser


def _write_buttons(page: Page):
    return page.get_by_role("button", name=WRITE_BUTTONS)


def _sign_in(page: Page, text: str) -> None:
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_label("operator passphrase").fill(text)
    sidebar.get_by_role("button", name="Sign in as operator").click()
    page.wait_for_timeout(300)
    wait_for_app(page)


def test_an_operator_launches_and_a_viewer_with_the_link_sees_the_run_and_no_control(lab, browser):
    base, _, _, home = lab
    operator = opened(browser, f"{base}/dqn?epochs=15&memory=100&batch=16&test_games=20&eval_every=0&sync=50"
                               "&label=shared", 1600)
    expect(_write_buttons(operator)).to_have_count(0)  # a passphrase is configured: nobody operates until signed in
    expect(operator.get_by_text(re.compile("^You are a viewer"))).to_be_visible()
    _sign_in(operator, "not the passphrase")
    expect(operator.get_by_text("That is not the operator's passphrase.")).to_be_visible()
    _sign_in(operator, PASSPHRASE)
    expect(operator.get_by_text("Signed in as operator.")).to_be_visible()
    profile = operator.get_by_role("textbox", name="profile", exact=True)  # record 20 steps with the profiler
    profile.fill("20")
    profile.press("Enter")
    expect(operator).to_have_url(re.compile(r"profile=20"))
    operator.get_by_role("button", name="Launch", exact=True).click()
    expect(operator).to_have_url(re.compile(r"[?&]run=\d+"))
    link = operator.url
    heading = re.compile(r"Run \d+: shared — done")
    expect(operator.get_by_role("heading", name=heading).first).to_be_visible(timeout=180_000)
    expect(operator.get_by_role("button", name="Launch again")).to_be_visible()
    verdict = re.compile(r"^What TensorFlow recorded: [\d,]+ ops a step; ")
    expect(operator.get_by_text("Why it is this fast, measured inside TensorFlow")).to_be_visible()
    expect(operator.get_by_text(re.compile("^In the code's words"))).to_be_visible()  # the findings, then TF's
    expect(operator.get_by_text(verdict)).to_be_visible()
    expect(operator.get_by_role("button", name="The capture (zip)")).to_be_visible()  # the operator's, like models

    viewer = opened(browser, link, 1600)  # a fresh context: only the link
    expect(viewer.get_by_role("heading", name=heading).first).to_be_visible(timeout=60_000)
    # The heading is drawn before the charts (outside their fragment): under the suite's load they may follow later.
    expect(viewer.locator("[data-testid='rlcoreChart'] .main-svg").first).to_be_visible(timeout=30_000)
    expect(_write_buttons(viewer)).to_have_count(0)
    expect(viewer.get_by_role("button", name=re.compile("keras"))).to_have_count(0)
    expect(viewer.get_by_text(verdict)).to_be_visible()  # a viewer reads why
    expect(viewer.get_by_role("button", name="The capture (zip)")).to_have_count(0)  # and downloads no capture
    runs = opened(browser, f"{base}/runs?runs=1,2", 1600)
    expect(runs.get_by_role("heading", name="Comparing 2 runs")).to_be_visible()
    expect(_write_buttons(runs)).to_have_count(0)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    viewer.screenshot(path=OUTPUT / "shared_run_viewer.png", full_page=True)

    _sign_in(viewer, PASSPHRASE)  # signing in there turns the controls on
    expect(viewer.get_by_role("button", name="Launch again")).to_be_visible()
    viewer.reload()  # a signed-in browser stays signed in, as in any web app
    wait_for_app(viewer)
    expect(viewer.get_by_text("Signed in as operator.")).to_be_visible(timeout=30_000)
    expect(viewer.get_by_role("button", name="Launch again")).to_be_visible()
    viewer.get_by_role("button", name="Sign out").click()
    expect(viewer.get_by_role("button", name="Launch again")).to_have_count(0)
    viewer.reload()  # and signed out, it stays out
    wait_for_app(viewer)
    expect(viewer.get_by_text(re.compile("^You are a viewer"))).to_be_visible(timeout=30_000)

    log = (home / "streamlit.log").read_text()
    assert HASH not in log and HASH.split("$")[-1] not in log and PASSPHRASE not in log


@pytest.mark.parametrize("where", ["run", "notes", "compare", "runs", "home", "sweep", "links"])
def test_hostile_names_and_link_values_show_as_plain_bounded_text_and_fetch_nothing(lab, browser, pixel, where):
    base, ids, sweep_id, _ = lab
    before = len(_Pixel.hits)
    payload = _payloads(pixel)
    urls = {
        "run": [f"{base}/dqn?run={ids[0]}", f"{base}/dqn?run={ids[2]}", f"{base}/dqn?run={ids[-1]}"],
        "notes": [f"{base}/dqn?run={ids[1]}"],
        "compare": [f"{base}/runs?runs={','.join(map(str, ids))}"],
        "runs": [f"{base}/runs"],
        "home": [f"{base}/"],
        "sweep": [f"{base}/sweeps?sweep={sweep_id}", f"{base}/sweeps"],  # the heading, then the list (a grid)
        "links": [f"{base}/hjb?preset={payload[0]}", f"{base}/dqn?epochs={payload[1]}",
                  f"{base}/runs?runs={payload[0]}", f"{base}/sweeps?sweep={payload[1]}",
                  f"{base}/dqn?run={payload[0]}", f"{base}/sweeps?kind={payload[2]}&batch_size={payload[0]}",
                  f"{base}/hjb?k_min={'W' * 100_000}"],
    }[where]
    for url in urls:
        page = opened(browser, url, 1600)
        page.wait_for_timeout(500)  # time for any image or stylesheet the page asked for to be fetched
        expect(page.get_by_test_id("stException")).to_have_count(0)
        app = page.get_by_test_id("stMain")
        assert app.locator(f"img[src*='{pixel}'], a[href*='{pixel}']").count() == 0
        if where == "compare":  # the charts are drawn by plotly.js once it has loaded: wait for their legends
            page.wait_for_selector("[data-testid='rlcoreChart'] .legendtext", timeout=30_000)
        assert page.locator("svg a, [data-testid='rlcoreChart'] a[href]").count() == 0  # no link in a chart
        for element in page.locator("h1, h2, h3, h4, [data-testid='stAlert'], .legendtext").all():
            assert element.bounding_box() is None or element.bounding_box()["height"] < 200, element.inner_text()[:80]
        if where in ("run", "links") or url.endswith(f"sweep={sweep_id}"):  # it reads as typed, not interpreted
            shown = ("![p](", "[Session expired", "<a href", "WWW")
            deadline = time.monotonic() + 60  # the fields fill in as the page settles: a bound, not a speed
            while True:
                typed = [field.input_value() for field in app.locator("input[type='text'], textarea").all()]
                text = app.inner_text() + " ".join(typed)  # a number typed as text stays in its field, as typed
                if any(p in text for p in shown) or time.monotonic() > deadline:
                    break
                page.wait_for_timeout(250)
            assert any(p in text for p in shown), (url[:120], text[-600:])
        if where == "compare":
            legend = " ".join(page.locator(".legendtext").all_text_contents())
            assert '<span style="font-size:200px">' in legend and "![p](" in legend
        if where == "notes":
            expect(page.get_by_text(payload[1]).first).to_be_visible()
    assert _Pixel.hits[before:] == []


def test_a_foreign_host_gets_one_sentence_and_nothing_of_the_app(lab, browser):
    base, ids, _, _ = lab
    port = base.rsplit(":", 1)[1]
    page = opened(browser, f"http://evil.example:{port}/dqn?run={ids[0]}", 1600)
    expect(page.get_by_text(re.compile(r"^This dashboard does not answer to the name 'evil\.example"))).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile("Run"))).to_have_count(0)
    expect(page.get_by_test_id("stMain").get_by_role("button")).to_have_count(0)  # no launch form
    expect(page.get_by_test_id("stSidebar")).to_have_count(0)  # no navigation, no sign-in


def _can_make_namespaces() -> bool:
    import os
    import shutil
    import subprocess

    return os.geteuid() == 0 and shutil.which("unshare") is not None and shutil.which("ip") is not None and \
        subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


# A dummy interface where the kernel has the module, else a veth pair with both ends inside the namespace: either
# way the test address is connected to nothing (Streamlit's probes for its addresses go nowhere).
_INTERFACE = ("{ ip link add d0 type dummy 2>/dev/null || { ip link add d0 type veth peer name d1 && "
              "ip link set d1 up; }; }")
_NAMESPACE_SETUP = (f"ip link set lo up && {_INTERFACE} && ip addr add 10.77.0.2/24 dev d0 && ip link set d0 up && "
                    "ip route add default dev d0 && exec \"$0\" \"$@\"")


@pytest.mark.skipif(not _can_make_namespaces(), reason="a network namespace of its own needs root and unshare")
def _checked_in_namespace(script: str, home, timeout: float) -> dict:
    """Run devtools/<script> in a network namespace of its own (loopback and the private test address only) and
    return what it saw (the last line of its output, JSON)."""
    import json
    import subprocess
    import sys

    proc = subprocess.run(["unshare", "-n", "sh", "-c", _NAMESPACE_SETUP, sys.executable,
                           str(ROOT / "devtools" / script), str(home)], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "error" not in seen, seen
    return seen


def test_the_readme_s_sharing_recipe_answers_at_the_network_url_it_prints_as_a_viewer(tmp_path):
    """`make run HOST=0.0.0.0`, as the README says, in a namespace whose address is a private test one on a dummy
    interface (nothing leaves it): the Network URL Streamlit prints opens the lab, for a viewer."""
    seen = _checked_in_namespace("share_check.py", tmp_path, timeout=300)
    assert re.fullmatch(r"http://10\.77\.0\.2:\d+", seen["url"]) and seen["title"] == "TF Training Lab"
    assert "You are a viewer" in seen["sidebar"] and seen["reproduce_buttons"] == 0
    assert any("Shared: viewers open the Network URL" in line for line in seen["printed"])


@pytest.mark.skipif(not _can_make_namespaces(), reason="a network namespace of its own needs root and unshare")
def test_a_viewer_emptying_streamlit_s_caches_lifts_no_lockout_and_starts_no_work(tmp_path):
    """From a non-loopback address (a private test address in a namespace of its own), a raw websocket client
    sends Streamlit's `clear_cache` twenty times, each followed by a rerun: the passphrase lockout a browser
    earned holds (the right passphrase is still refused, in that session and a new one), and the server starts
    no process for it (the device card is asked once per server, not per cache)."""
    seen = _checked_in_namespace("clear_cache_check.py", tmp_path, timeout=400)
    assert "You are a viewer" in seen["sidebar"]
    assert "not the operator's passphrase" in seen["wrong"][0] and "Too many wrong passphrases" in seen["wrong"][-1]
    assert seen["reruns"] == 20  # every clear was taken and followed by a whole run of the page
    assert "Too many wrong passphrases" in seen["right_after_clears"]
    assert "Too many wrong passphrases" in seen["right_in_new_session"]
    assert "You are a viewer" in seen["new_session_sidebar"]
    assert seen["children"] == [], seen["children"]  # no device probe (nor anything else) started on demand


def test_a_sign_in_cookie_replayed_after_sign_out_is_a_viewer(lab, browser):
    """Copy the cookie, press Sign out, replay it in a new browser: Sign out ended the token on the server."""
    base, ids, _, _ = lab
    page = opened(browser, f"{base}/runs", 1600)
    _sign_in(page, PASSPHRASE)
    expect(page.get_by_text("Signed in as operator.")).to_be_visible()
    page.reload()  # the cookie is set by the page's script on the run after signing in
    wait_for_app(page)
    (cookie,) = [c for c in page.context.cookies() if c["name"] == "rlcore_operator"]
    again = browser.new_context()
    again.add_cookies([cookie])
    replayed = again.new_page()
    replayed.goto(f"{base}/runs")
    wait_for_app(replayed)
    expect(replayed.get_by_text("Signed in as operator.")).to_be_visible()  # the copy works while it is signed in
    page.get_by_test_id("stSidebar").get_by_role("button", name="Sign out").click()
    wait_for_app(page)
    expect(page.get_by_text(re.compile("^You are a viewer"))).to_be_visible()
    thief = browser.new_context()
    thief.add_cookies([cookie])
    stolen = thief.new_page()
    stolen.goto(f"{base}/dqn?run={ids[0]}")
    wait_for_app(stolen)
    expect(stolen.get_by_text(re.compile("^You are a viewer"))).to_be_visible()
    expect(_write_buttons(stolen)).to_have_count(0)


def _session_texts(url: str, origin: str | None, forged: str = "") -> str:
    """Open Streamlit's websocket as a page of ``origin`` would (the browser sends the page's Origin), run Home,
    and return every text, button label and error the server sent (``forged``: a widget state of that id sent
    with the run, as a client of its own can)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.sync.client import connect

    texts = []
    extra = {"origin": origin} if origin else {}
    with connect(url, subprotocols=["streamlit"], max_size=None, **extra) as ws:
        rerun = BackMsg()
        rerun.rerun_script.query_string = ""
        if forged:
            widget = rerun.rerun_script.widget_states.widgets.add()
            widget.id, widget.bool_value = forged, True
        ws.send(rerun.SerializeToString())
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(ws.recv(timeout=60))
            if msg.WhichOneof("type") == "script_finished":
                return "\n".join(texts)
            element = msg.delta.new_element if msg.WhichOneof("type") == "delta" else None
            if element is not None:
                texts += [element.markdown.body, element.button.label, element.text.body,
                          element.exception.message]


def test_a_page_of_another_local_port_gets_no_operator_session(tmp_path):
    """On the default loopback lab (the local user operates), a websocket from the lab's own origin operates;
    one opened by a page of another localhost port, or another name of this machine, is a viewer."""
    with served_app(tmp_path) as base:
        url = base.replace("http://", "ws://") + "/_stcore/stream"
        port = base.rsplit(":", 1)[1]
        own = _session_texts(url, base)
        assert "Reproduce the seed's question" in own and "You are a viewer" not in own
        from websockets.exceptions import InvalidStatus

        refused_by_streamlit = []
        for origin in ("http://127.0.0.1:8622", "http://localhost:9", f"http://localhost:{port}", "null",
                       "http://evil.example", f"https://127.0.0.1:{port}"):  # the scheme counts too
            try:
                foreign = _session_texts(url, origin)
            except InvalidStatus as e:  # Streamlit's own check refused the handshake: no session at all
                assert e.response.status_code == 403, origin
                refused_by_streamlit.append(origin)
                continue
            assert "You are a viewer" in foreign and "Reproduce the seed's question" not in foreign, origin
        # A viewer's client that sends a widget state named as the lab's sign-in flag stays a viewer, with no error
        # (main: "This app has encountered an error", a KeyError).
        forged = _session_texts(url, "http://127.0.0.1:8622", forged="_operator")
        assert "You are a viewer" in forged and "KeyError" not in forged and "Reproduce" not in forged, forged
        # Streamlit lets any localhost port in (its allowlist ignores ports); the lab makes those viewers.
        assert "http://127.0.0.1:8622" not in refused_by_streamlit and "http://evil.example" in refused_by_streamlit
