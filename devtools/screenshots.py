"""The README's pictures, made the way a user makes them: runs launched through the real worker on a served
dashboard, pages opened in Chromium and photographed once they have settled.

    .venv/bin/python devtools/screenshots.py docs                  # every picture
    .venv/bin/python devtools/screenshots.py docs why,bench,runs   # only these

Makes docs/screenshot_why.png (a profiled run of the seed's port: its Why panel), docs/screenshot_compare.png
(the seed's question, Reproduce pressed on Home in Chromium: the answer with its findings),
docs/screenshot_your_code.png (a naive DQN port run unchanged by `rlcore profile`: its Why panel),
docs/screenshot_turbo.png (a finished turbo run), docs/screenshot_hjb.png (a finished HJB run with its verdict) and
docs/screenshot_dqn_run.png (a finished book-loop run with the replayed game), docs/screenshot_bench.png (a finished
bench) and docs/screenshot_runs.png (the Runs page); prints the seed question's times.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools.browser import chromium, served_app, wait_for_app
from rlcore.runs import service
from rlcore.runs.local import launch
from rlcore.runs.store import Store


def wait(store: Store, run_id: int, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while store.get_run(run_id).live:
        if time.monotonic() > deadline:
            raise RuntimeError(f"run {run_id} did not finish")
        time.sleep(0.5)


def shoot(context, url: str, path: Path, settle_text: str, height: int = 2000) -> None:
    page = context.new_page()
    page.set_viewport_size({"width": 1400, "height": height})
    page.goto(url)
    wait_for_app(page)
    page.get_by_text(re.compile(settle_text)).first.wait_for(timeout=120_000)
    time.sleep(3)  # Plotly draws after the script state settles
    page.screenshot(path=path, full_page=True)
    page.close()


def shoot_why(context, url: str, path: Path) -> None:
    """The Why panel alone: from its heading to the expander below it."""
    page = context.new_page()
    page.set_viewport_size({"width": 1400, "height": 2400})
    page.goto(url)
    wait_for_app(page)
    heading = page.get_by_text("Why it is this fast, measured inside TensorFlow").first
    heading.wait_for(timeout=120_000)
    time.sleep(3)
    end = page.get_by_text("What the machine did").first
    top, bottom = heading.bounding_box(), end.bounding_box()
    page.screenshot(path=path, full_page=True, clip={"x": 0, "y": top["y"] - 20, "width": 1400,
                                                      "height": bottom["y"] - top["y"] + 50})
    page.close()


PICTURES = ("why", "compare", "your_code", "dqn_run", "turbo", "hjb", "bench", "runs")


def run(store: Store, kind: str, config: dict, label: str, preset: str | None = None) -> int:
    run_id = service.create_run(store, kind, config, label=label, preset=preset)
    launch(store, run_id)
    wait(store, run_id)
    return run_id


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    wanted = sys.argv[2].split(",") if len(sys.argv) > 2 else list(PICTURES)
    if unknown := set(wanted) - set(PICTURES):
        sys.exit(f"no picture named {', '.join(sorted(unknown))}; the pictures: {', '.join(PICTURES)}")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, served_app(Path(tmp)) as base, chromium() as browser:
        store = Store(tmp)
        context = browser.new_context()
        if "why" in wanted:
            naive = run(store, "dqn", {"exec_mode": "naive", "epochs": 15, "eval_every": 0, "test_games": 200,
                                       "profile": 30}, "the seed's port, profiled")
            shoot_why(context, f"{base}/dqn?run={naive}", out / "screenshot_why.png")
        if "compare" in wanted:  # the seed's question as a user asks it: Home's button, in Chromium
            page = context.new_page()
            page.set_viewport_size({"width": 1400, "height": 1900})
            page.goto(base)
            wait_for_app(page)
            page.get_by_role("button", name="Reproduce the seed's question").click()
            wait_for_app(page)
            for queued in store.list_runs():
                wait(store, queued.id)
            page.reload()
            wait_for_app(page)
            page.get_by_text(re.compile("^Why the port")).first.wait_for(timeout=120_000)
            time.sleep(3)  # Plotly draws after the script state settles
            page.screenshot(path=out / "screenshot_compare.png", full_page=True)
            page.close()
            for seed_run in store.list_runs():
                print(f"{seed_run.label}: {seed_run.summary.get('train_seconds') or 0:.1f} s of training, "
                      f"{seed_run.finished - seed_run.created:.1f} s from queued to done")
        if "your_code" in wanted:  # a naive DQN port as people write it, run unchanged by `rlcore profile`
            script = ROOT / "tests" / "scripts" / "naive_port.py"
            subprocess.run([sys.executable, "-m", "rlcore", "profile", "--steps", "20", "--warmup", "10",
                            str(script), "200"], env=os.environ | {"RLCORE_HOME": tmp, "TF_CPP_MIN_LOG_LEVEL": "2"},
                           check=True, capture_output=True, timeout=900)
            mine = next(r for r in store.list_runs() if r.kind == "script")
            shoot_why(context, f"{base}/script?run={mine.id}", out / "screenshot_your_code.png")
        if "dqn_run" in wanted:
            book = run(store, "dqn", {"epochs": 600, "eval_every": 100, "test_games": 300}, "book loop, 600 games")
            shoot(context, f"{base}/dqn?run={book}", out / "screenshot_dqn_run.png", "Watch the agent play", 2400)
        if "turbo" in wanted:
            turbo = run(store, "turbo", {}, "turbo, 1 s")
            shoot(context, f"{base}/turbo?run={turbo}", out / "screenshot_turbo.png", "Watch the agent play", 2400)
        if "hjb" in wanted:
            hjb = run(store, "hjb", {"steps": 20_000, "eval_every": 2000}, "accurate, 20k steps", preset="accurate")
            shoot(context, f"{base}/hjb?run={hjb}", out / "screenshot_hjb.png", "relative error over k", 2400)
        if "bench" in wanted:
            bench = run(store, "bench", {"workload": "hjb-step", "patterns": "eager,graph,xla,graph-k100",
                                         "batch": "1,100,10000", "repeats": 3, "min_seconds": 0.3},
                        "hjb-step, four styles")
            shoot(context, f"{base}/bench?run={bench}", out / "screenshot_bench.png", "Why", 2200)
        if "runs" in wanted:
            shoot(context, f"{base}/runs", out / "screenshot_runs.png", "Tick runs in the table", 1100)
    print(f"screenshots in {out}/")


if __name__ == "__main__":
    main()
