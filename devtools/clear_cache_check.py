"""A viewer who empties Streamlit's caches (run by tests/e2e/test_sharing.py, inside a network namespace of its own).

The dashboard is served on every interface with an operator passphrase, in a namespace whose only addresses are
loopback and a private test address (10.77.0.2) on an interface connected to nothing. From that address:
Chromium, as a viewer, tries five wrong passphrases; then a raw websocket client speaks Streamlit's own protocol
and sends `clear_cache` followed by a rerun, again and again (any session may: Streamlit empties every cache of
the server for it); then Chromium tries the right passphrase. Prints one JSON line of what was seen: the
sentences shown, the reruns the server made, the child processes it started meanwhile, its CPU seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools.browser import chromium, free_port, wait_for_app
from rlcore.passphrase import hash_passphrase

ADDRESS = "10.77.0.2"
PASSPHRASE = "correct horse battery"
CLEARS = 20


def _sign_in(page, text: str) -> str:
    """Try a passphrase in the sidebar; the sentence shown after it (empty when none)."""
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_label("operator passphrase").fill(text)
    sidebar.get_by_role("button", name="Sign in as operator").click()
    page.wait_for_timeout(300)
    wait_for_app(page)
    alerts = sidebar.get_by_test_id("stAlert").all_inner_texts()
    return " ".join(alerts)


def _clear_and_rerun(url: str, times: int) -> int:
    """Streamlit's protocol, as its frontend speaks it: a rerun to start the session, then ``times`` times a
    clear_cache and a rerun, each waited for until the script finished. Returns the reruns that finished."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.sync.client import connect

    def rerun() -> bytes:
        msg = BackMsg()
        msg.rerun_script.query_string = ""
        return msg.SerializeToString()

    def clear() -> bytes:
        msg = BackMsg()
        msg.clear_cache = True
        return msg.SerializeToString()

    def finished(ws) -> bool:
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(ws.recv(timeout=60))
            if msg.WhichOneof("type") == "script_finished":
                return True

    done = 0
    with connect(url, subprotocols=["streamlit"], max_size=None) as ws:
        ws.send(rerun())
        finished(ws)
        for _ in range(times):
            ws.send(clear())
            ws.send(rerun())
            done += finished(ws)
    return done


def main(home: str) -> dict:
    port = free_port()
    env = os.environ | {"RLCORE_HOME": home, "RLCORE_OPERATOR_HASH": hash_passphrase(PASSPHRASE),
                        "TF_CPP_MIN_LOG_LEVEL": "2"}
    log = open(Path(home) / "streamlit.log", "w")  # noqa: SIM115 (closed in finally)
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                               "--server.port", str(port), "--server.address", "0.0.0.0",
                               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                              cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://{ADDRESS}:{port}"
    seen: dict = {"url": base}
    try:
        with chromium() as browser:
            page = browser.new_page()
            deadline = time.monotonic() + 120
            while True:
                try:
                    page.goto(base)
                    break
                except Exception:
                    if server.poll() is not None or time.monotonic() > deadline:
                        return {"error": "the server did not answer", "log": Path(log.name).read_text()[-2000:]}
                    time.sleep(0.5)
            wait_for_app(page)
            # The device card is asked once per server, in the background from the first page: wait for it.
            page.get_by_test_id("stSidebar").get_by_text("CPU:").wait_for(timeout=120_000)
            seen["sidebar"] = page.get_by_test_id("stSidebar").inner_text()
            seen["wrong"] = [_sign_in(page, f"wrong guess {i}") for i in range(6)]

            # The attacker's session, from the same address: clears while a sampler watches the server's children.
            process = psutil.Process(server.pid)
            children: set[str] = set()
            sampling = threading.Event()

            def sample() -> None:
                while not sampling.is_set():
                    for child in process.children(recursive=True):
                        with contextlib.suppress(psutil.Error):  # it ended between listing and reading
                            children.add(" ".join(child.cmdline())[:200])
                    time.sleep(0.02)

            sampler = threading.Thread(target=sample, daemon=True)
            cpu_before, wall_before = sum(process.cpu_times()[:2]), time.monotonic()
            sampler.start()
            seen["reruns"] = _clear_and_rerun(f"ws://{ADDRESS}:{port}/_stcore/stream", CLEARS)
            sampling.set()
            sampler.join(timeout=5)
            seen["server_cpu_seconds"] = round(sum(process.cpu_times()[:2]) - cpu_before, 3)
            seen["wall_seconds"] = round(time.monotonic() - wall_before, 3)
            seen["children"] = sorted(children)

            seen["right_after_clears"] = _sign_in(page, PASSPHRASE)
            fresh = browser.new_context().new_page()  # another session from the same address
            fresh.goto(base)
            wait_for_app(fresh)
            seen["right_in_new_session"] = _sign_in(fresh, PASSPHRASE)
            seen["new_session_sidebar"] = fresh.get_by_test_id("stSidebar").inner_text()
            return seen
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
