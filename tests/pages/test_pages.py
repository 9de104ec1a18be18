"""Every page renders through the router, and the Streamlit process never imports TensorFlow."""

import os
import subprocess
import sys
from pathlib import Path

from pagetest import shown
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_home_renders_without_error():
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    assert at.title[0].value == "TF Training Lab"


def test_the_app_process_never_imports_tensorflow(tmp_path):
    """Every page, in a fresh interpreter: other test modules in this process import TensorFlow themselves."""
    code = (f"import sys; sys.path.insert(0, 'tests'); from pagetest import go; "
            f"from streamlit.testing.v1 import AppTest; at = AppTest.from_file({APP!r}, "
            "default_timeout=120).run(); assert not at.exception\n"
            "for p in ('dqn', 'hjb', 'bench', 'runs'):\n"
            " go(at, p).run(); assert not at.exception\n"
            "print('tensorflow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=os.environ | {"RLCORE_HOME": str(tmp_path)})
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_with_the_ray_executor_the_sidebar_shows_the_cluster(tmp_path, monkeypatch):
    from pagetest import CARD

    from ui import sidebar

    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    monkeypatch.setenv("RLCORE_EXECUTOR", "ray")
    monkeypatch.setattr(sidebar, "device_card", lambda wait=True: CARD)
    from rlcore.runs import ray_executor

    card = {"nodes": 3, "cpus": 2.0, "gpus": 1.0, "hosts": ["a"], "device_kinds": ["accelerator_type:T4"]}
    monkeypatch.setattr(sidebar, "executor_card", lambda name: ray_executor.card_lines(card))
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    captions = " ".join(shown(c) for c in at.sidebar.caption)
    assert "3 nodes (a): 2 CPUs, 1 GPUs; device kinds: accelerator_type:T4" in captions
    assert any("The Ray cluster" in m.value for m in at.sidebar.markdown)
