"""The README's sharing recipe, as written, inside a network namespace of its own (run by tests/e2e/test_sharing.py).

`make run HOST=0.0.0.0` in a namespace whose only addresses are loopback and a private test address (10.77.0.2,
never the machine's own address) on an interface connected to nothing: read the Network URL the server prints,
open it in Chromium, and print what a visitor there sees as one JSON line. Nothing leaves the namespace.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools.browser import chromium, free_port, wait_for_app

NETWORK_URL = re.compile(r"Network URL: (http://\S+)")


def main(home: str) -> dict:
    port = free_port()
    env = os.environ | {"RLCORE_HOME": home, "PYTHONUNBUFFERED": "1"}
    make = subprocess.Popen(["make", "--no-print-directory", "run", "HOST=0.0.0.0", f"PORT={port}"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    printed: list[str] = []
    try:
        deadline = time.monotonic() + 120
        url = None
        while url is None and time.monotonic() < deadline and make.poll() is None:
            line = make.stdout.readline()
            printed.append(line)
            if match := NETWORK_URL.search(line):
                url = match.group(1)
        if url is None:
            return {"error": "no Network URL printed", "printed": printed}
        with chromium() as browser:
            page = browser.new_page()
            page.goto(url)
            wait_for_app(page)
            page.get_by_role("heading", name="TF Training Lab").wait_for(timeout=60_000)
            sidebar = page.get_by_test_id("stSidebar").inner_text()
            return {"url": url, "printed": printed, "sidebar": sidebar,
                    "title": page.get_by_role("heading").first.inner_text(),
                    "reproduce_buttons": page.get_by_role("button", name="Reproduce the seed's question").count()}
    finally:
        os.killpg(make.pid, signal.SIGTERM)
        make.wait(timeout=30)


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
