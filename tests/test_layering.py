"""The layering rules: rlcore never imports Streamlit, the dashboard's pure helpers neither, and what the
dashboard process uses from rlcore (configs, the workload registry, the store, the CLI's parser) never imports
TensorFlow, PyTorch, JAX or xprof. No import circle inside rlcore."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PURE_UI = ("ui/fmt.py", "ui/views.py", "ui/charts.py")  # computed views: tested without Streamlit


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
    code = ("import sys, rlcore.contract.workloads, rlcore.contract.params, rlcore.contract.reporting, "
            "rlcore.tracking.machine, rlcore.tracking.run, rlcore.workloads.dqn.gridworld, "
            "rlcore.workloads.bench.harness, rlcore.cli.main, rlcore.cli.parser, rlcore.runs.store, "
            "rlcore.runs.service, rlcore.runs.local, rlcore.runs.worker, ui.views, ui.charts, ui.fmt; "
            "rlcore.contract.workloads.all_workloads(); "
            "rlcore.cli.parser.build_parser(); print('tensorflow' in sys.modules, 'keras' in sys.modules, "
            "any(m in sys.modules for m in ('torch', 'jax', 'xprof')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False False False"


HEAVY = ("tensorflow", "keras", "torch", "jax", "xprof")


def test_the_served_pages_never_import_a_framework_nor_the_profiler(tmp_path):
    """Every page through the real router, a profiled run's view and a comparison included: the dashboard process
    holds no TensorFlow, PyTorch, JAX or xprof (runs and their profiles are read in the runs' own processes)."""
    code = f"""
import json, sys
sys.path.insert(0, "tests")
from pagetest import go
from streamlit.testing.v1 import AppTest
from rlcore.runs import service
from rlcore.runs.store import Store
store = Store({str(tmp_path)!r})
profile = {{"verdict": "launch-bound", "sentence": "Launch-bound: ...", "ops_per_step": 300.0,
           "eager_ops_per_step": 300.0, "function_calls_per_step": 0.0, "xla_ops_per_step": 0.0, "retraces": 0,
           "step_seconds": 0.01,
           "compute_seconds": 0.001, "dispatch_seconds": 0.005, "python_seconds": 0.004, "top_ops": [],
           "steps": 50, "steps_per_marker": 1}}
ids = []
for style in ("naive", "pytorch"):
    run = service.create_run(store, "dqn", {{"exec_mode": style, "epochs": 15}})
    store.append_metrics(run, [(1, 0.1, "system/run_cpu_cores", 1.0), (1, 0.1, "train/loss", 0.5)])
    store.finish(run, "done", summary={{"win_rate": 0.1, "steps_per_second": 10.0, "train_seconds": 1.0,
                                       "profile": profile, "system": {{"machine_cores": 2, "run_cpu_cores_mean": 1.0,
                                                                     "run_cpu_cores_max": 1.0}}}})
    ids.append(run)
at = AppTest.from_file("app.py", default_timeout=60).run()
for page, query in (("dqn", {{"run": str(ids[0])}}), ("hjb", {{}}), ("bench", {{"workload": "framework-step"}}),
                    ("sweeps", {{}}), ("runs", {{"runs": ",".join(map(str, ids))}}), ("home", {{}})):
    for key, value in query.items():
        at.query_params[key] = value
    go(at, page).run()
    assert not at.exception, (page, at.exception)
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""
    env = {**__import__("os").environ, "RLCORE_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_no_import_circle_inside_rlcore():
    """Module-level and function-level imports alike: a circle hides which module owns what."""
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
               for p in (ROOT / "rlcore").rglob("*.py")}
    # A module's own packages are not its dependencies in a circle: Python imports a package before its modules.
    graph = {m: {n for n in _imports(p) for n in (n, n.rsplit(".", 1)[0])
                 if n in modules and n != m and not m.startswith(n + ".")}
             for m, p in modules.items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n not in seen and not seen.add(n) and reaches(n, goal, seen)) for n in graph[start])

    circles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if a < b and reaches(b, a, set()))
    assert circles == []


# The floors of the house, lowest first: a module may import its own floor and those below, never one above.
FLOORS = (
    ("contract", ("rlcore.contract",)),
    ("tracking", ("rlcore.tracking",)),
    ("workloads", ("rlcore.workloads",)),
    ("runs", ("rlcore.runs", "rlcore.search", "rlcore.export", "rlcore.passphrase", "rlcore.keras")),
    ("cli", ("rlcore.cli", "rlcore.__main__")),
    ("ui", ("ui",)),
    ("pages", ("pages", "app")),
)


def _floor(module: str) -> int | None:
    for i, (_, prefixes) in enumerate(FLOORS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    return None


def _lab_modules() -> dict[str, Path]:
    files = [*(ROOT / "rlcore").rglob("*.py"), *(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").glob("*.py"),
             ROOT / "app.py"]
    return {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p for p in files}


def test_no_import_runs_upward_and_the_contract_stands_under_the_workloads():
    """Every import, at module or function level, goes to the importer's floor or below: the contract under the
    harness, the harness under the workloads, the workloads under the store and executors, then the CLI, the
    dashboard's modules and its pages. The per-workload views (ui/workloads/) are the dashboard's floor."""
    modules = _lab_modules()
    upward = []
    for name, path in modules.items():
        mine = _floor(name)
        for target in _imports(path):
            theirs = _floor(target)
            if theirs is not None and mine is not None and theirs > mine and target.split(".")[0] in ("rlcore", "ui"):
                upward.append(f"{name} -> {target}")
    assert upward == []
    contract = {t for n, p in modules.items() if _floor(n) == 0 for t in _imports(p) if t.startswith("rlcore.")}
    assert all(t.startswith("rlcore.contract") for t in contract), contract


def test_no_generic_module_imports_a_workload_package():
    """The store, the executors, the CLI, the search, the dashboard's generic files and the pages find workloads
    through the registry (the front doors of your own code too, ``rlcore.init`` and ``rlcore.keras.Callback``: the
    workload that declares ``own_code``); only a workload's own views (ui/workloads/<kind>.py) know its package."""
    offenders = [f"{name} -> {t}" for name, path in _lab_modules().items()
                 if not name.startswith(("rlcore.workloads", "ui.workloads")) for t in _imports(path)
                 if t.startswith("rlcore.workloads.")]
    assert offenders == []


def test_no_workload_package_imports_another():
    """A workload finds another's parts through the registry (the bench's suites are declared by the workloads
    they measure), so removing one workload leaves the others whole."""
    offenders = []
    for name, path in _lab_modules().items():
        if not name.startswith("rlcore.workloads."):
            continue
        mine = name.split(".")[2]
        offenders += [f"{name} -> {t}" for t in _imports(path)
                      if t.startswith("rlcore.workloads.") and len(t.split(".")) > 2 and t.split(".")[2] != mine]
    assert offenders == []


def _generic_files() -> list[Path]:
    """The modules that must not know any workload: all of the lab but the workloads' packages and their views."""
    return [p for name, p in _lab_modules().items() if not name.startswith(("rlcore.workloads", "ui.workloads"))]


def _names_to_keep_out() -> set[str]:
    """What generic code must not spell: each workload's kind, its styles and its metric keys (as its charts and
    titles declare them), and each bench suite's name."""
    from rlcore.contract import workloads
    from rlcore.contract.reporting import LOSS, PHASE_PREFIX, SAMPLES_PER_S, STEPS_PER_S

    shared = {LOSS, PHASE_PREFIX, STEPS_PER_S, SAMPLES_PER_S, ""}  # the lab's own keys, every workload's
    names: set[str] = set()
    for w in workloads.all_workloads():
        names.add(w.kind)
        style = w.field(w.style_field) if w.style_field else None
        names.update(style.metadata["choices"] if style is not None else ())
        names.update({c.metric for c in w.charts} | set(w.metric_titles))
        names.update(w.presets if w.field(w.preset_param) is not None else ())
    # TensorFlow's own words for how a step runs, and the profiler's for what it records (every run's artifact kind;
    # the captures workload's kind is found by its capability, Workload.reads_captures)
    return names - shared - {"eager", "graph", "xla", "capture"}


def test_no_generic_module_names_a_workload_a_style_or_a_workload_s_metric():
    """Capabilities, not names: a string in a generic module is never a workload's kind, one of its styles (but
    TensorFlow's own eager/graph/xla), a bench suite, or one of its metric keys; a generic module that needs one of
    those reads the declaration instead (a chart's kind, the style field, the framework a config trains with)."""
    import io
    import tokenize

    banned = _names_to_keep_out()
    assert {"dqn", "hjb", "bench", "naive", "turbo", "pytorch", "eval/win_rate", "hjb/max_rel_err_c"} <= banned
    found = []
    for path in _generic_files():
        for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
            if token.type == tokenize.STRING and not token.string.startswith(('"""', "'''", 'f"', "f'")):
                value = ast.literal_eval(token.string)
                if isinstance(value, str) and value in banned:
                    found.append(f"{path.relative_to(ROOT)}:{token.start[0]}: {value!r}")
    assert found == []
