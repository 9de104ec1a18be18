"""The layering rules: rlcore never imports Streamlit, the dashboard's pure helpers neither, and what the
dashboard process uses from rlcore (configs, the workload registry, the store, the CLI's parser) never imports
TensorFlow. No import circle inside rlcore."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PURE_UI = ("ui/fmt.py", "ui/views.py", "ui/charts.py", "ui/vega_charts.py")  # computed views: tested without Streamlit


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_rlcore_and_the_pure_ui_modules_never_import_streamlit():
    files = [*(ROOT / "rlcore").rglob("*.py"), *(ROOT / p for p in PURE_UI)]
    offenders = [str(p.relative_to(ROOT)) for p in files if any(n.split(".")[0] == "streamlit" for n in _imports(p))]
    assert offenders == []


def test_what_the_dashboard_process_imports_never_imports_tensorflow():
    """The dashboard validates, stores and judges runs in its own process, which must stay free of TensorFlow."""
    code = ("import sys, rlcore.config, rlcore.gridworld, rlcore.report, rlcore.execution, rlcore.workloads, "
            "rlcore.cli, rlcore.bench, rlcore.runs.store, rlcore.runs.worker, ui.views, ui.charts, ui.vega_charts, "
            "ui.fmt; "
            "rlcore.cli.build_parser(); print('tensorflow' in sys.modules, 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False False"


def test_no_import_circle_inside_rlcore():
    """Module-level and function-level imports alike: a circle hides which module owns what."""
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
               for p in (ROOT / "rlcore").rglob("*.py")}
    graph = {m: {n for n in _imports(p) for n in (n, n.rsplit(".", 1)[0]) if n in modules and n != m}
             for m, p in modules.items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n not in seen and not seen.add(n) and reaches(n, goal, seen)) for n in graph[start])

    circles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if a < b and reaches(b, a, set()))
    assert circles == []
