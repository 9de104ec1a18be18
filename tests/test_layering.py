"""The layering rules: rlcore never imports Streamlit; config and game code never import TensorFlow."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_rlcore_never_imports_streamlit():
    offenders = [p.name for p in (ROOT / "rlcore").rglob("*.py") if "import streamlit" in p.read_text()
                 or "from streamlit" in p.read_text()]
    assert offenders == []


def test_config_game_and_cli_parsing_do_not_import_tensorflow():
    """The dashboard validates configs in its own process, which must stay free of TensorFlow."""
    code = ("import sys, rlcore.config, rlcore.gridworld, rlcore.report, rlcore.execution, rlcore.cli; "
            "rlcore.cli.build_parser(); print('tensorflow' in sys.modules, 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False False"
