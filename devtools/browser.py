"""A served dashboard and a real browser, shared by the end-to-end test and the live-view benchmark.

The browser is Debian's chromium driven by Playwright (``playwright install`` is never needed).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served_app(rlcore_home: Path, timeout: float = 60.0, env: dict[str, str] | None = None, *,
               plain: bool = False) -> Iterator[str]:
    """The dashboard as `make run` serves it (``python -m ui.serve``; ``plain``: as `streamlit run app.py` does) on
    a free port over the given store (and extra environment); yields the base URL once healthy. Its log is
    ``rlcore_home/streamlit.log``."""
    port = free_port()
    env = os.environ | {"RLCORE_HOME": str(rlcore_home), "TF_CPP_MIN_LOG_LEVEL": "2"} | (env or {})
    log_path = Path(rlcore_home) / "streamlit.log"
    with log_path.open("w") as log:
        entry = ["-m", "streamlit", "run", "app.py"] if plain else ["-m", "ui.serve"]
        proc = subprocess.Popen([sys.executable, *entry, "--server.headless", "true",
                                 "--server.port", str(port), "--server.address", "127.0.0.1",
                                 "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                                 "--global.developmentMode", "false"], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if urllib.request.urlopen(f"{base}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start:\n{log_path.read_text()}")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@contextmanager
def chromium(extra_args: list[str] | None = None) -> Iterator:
    """A headless Chromium browser (Playwright's Browser), with more command-line switches if given."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError("install Debian's chromium (apt-get install chromium); .ci/run does")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + (extra_args or []))
        # Playwright gives a page 30 s to load and an action 30 s to happen; on a loaded one-core machine a page of
        # this app can take longer. A wait is a bound against a hang, never a claim about speed: a minute.
        browser.new_context = _patient(browser.new_context)
        browser.new_page = _patient(browser.new_page)
        try:
            yield browser
        finally:
            browser.close()


def _patient(make, milliseconds: float = 60_000):
    def made(*args, **kwargs):
        made_thing = make(*args, **kwargs)  # a context or a page: both take the same defaults
        made_thing.set_default_timeout(milliseconds)
        made_thing.set_default_navigation_timeout(milliseconds)
        return made_thing
    return made


def wait_for_app(page) -> None:
    """Streamlit's own e2e wait: connected, then the script has finished its run."""
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", state="attached")
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", state="attached",
                           timeout=60_000)


def opened(browser, url: str, height: int = 2000):
    """A page in a fresh context (no session state carried over), the app loaded at `url`."""
    page = browser.new_context(viewport={"width": 1400, "height": height}).new_page()
    page.goto(url)
    wait_for_app(page)
    return page
