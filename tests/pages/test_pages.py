"""Every page renders through the router, and the Streamlit process never imports TensorFlow."""

import os
import subprocess
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_home_renders_without_error():
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    assert at.title[0].value == "TF Training Lab"


def test_the_app_process_never_imports_tensorflow(tmp_path):
    """Every page, in a fresh interpreter: other test modules in this process import TensorFlow themselves."""
    code = (f"import sys; from streamlit.testing.v1 import AppTest; at = AppTest.from_file({APP!r}, "
            "default_timeout=120).run(); assert not at.exception\n"
            "for p in ('dqn', 'hjb', 'bench', 'runs'):\n"
            " at.switch_page(f'pages/{p}.py').run(); assert not at.exception\n"
            "print('tensorflow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=os.environ | {"RLCORE_HOME": str(tmp_path)})
    assert out.stdout.strip().splitlines()[-1] == "False"
