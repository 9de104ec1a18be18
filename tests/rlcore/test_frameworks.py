"""The seed's other side: the PyTorch original as a DQN style, and the framework-step bench across TensorFlow,
PyTorch and JAX. The frameworks extra is installed by `make test`; where a framework is missing the style and the
cells say so in one sentence (simulated here by hiding the package's metadata)."""

from __future__ import annotations

import pytest
from runwait import wait_final

from rlcore import search
from rlcore.cli.main import main as cli_main
from rlcore.contract import frameworks, reporting
from rlcore.contract.params import ConfigError
from rlcore.runs import service, sweeps
from rlcore.runs.store import Store
from rlcore.workloads.bench import harness as bench
from rlcore.workloads.bench.catalogue import pattern
from rlcore.workloads.bench.config import BenchConfig
from rlcore.workloads.dqn import loop
from rlcore.workloads.dqn import metrics as dqn_metrics
from rlcore.workloads.dqn.config import DQNConfig

torch_dqn = pytest.importorskip("rlcore.workloads.dqn.torch_original", reason="the frameworks extra is not installed")
TINY = {"epochs": 4, "memory_size": 100, "batch_size": 16, "test_games": 20, "eval_every": 0, "hidden1": 16,
        "hidden2": 8}


def test_the_pytorch_original_learns_the_static_board_and_reports_every_phase():
    reporter = reporting.ListReporter()
    result = torch_dqn.train(DQNConfig(exec_mode="pytorch", mode="static", epochs=300, eval_every=0, test_games=50,
                                       seed=0), reporter)
    assert result.win_rate >= 0.9 and result.games == 300
    assert set(result.phase_seconds) == set(loop.PHASES) and all(v > 0 for v in result.phase_seconds.values())
    names = set().union(*(r.metrics for r in reporter.records))
    assert {reporting.LOSS, dqn_metrics.ENV_STEPS_PER_S, dqn_metrics.WIN_RATE} | {f"time/{p}" for p in loop.PHASES} \
        <= names


def test_a_sweep_over_graph_pytorch_and_naive_runs_each_with_its_framework_and_threads(tmp_path):
    store = Store(tmp_path)
    _, ids = sweeps.create(store, "dqn", TINY, search.Space(grid={"exec_mode": ["graph", "pytorch", "naive"]}))
    runs = [wait_final(store, run_id, timeout=300) for run_id in ids]
    assert [r.status for r in runs] == ["done"] * 3, [r.error for r in runs]
    by_style = {r.config["exec_mode"]: r for r in runs}
    torch_run = by_style["pytorch"]
    assert torch_run.environment["torch"].startswith("2.") and "tensorflow" not in torch_run.environment
    assert torch_run.environment["torch_threads"] == torch_run.config["threads"] == 1  # equal threads, said so
    assert by_style["graph"].environment["intra_op_threads"] == 1
    files = store.run_dir(torch_run.id)
    assert (files / "model.pt").exists() and (files / "replays.json").exists()


def test_the_framework_step_bench_measures_a_cell_per_framework_and_pattern_and_names_what_is_missing(monkeypatch):
    cfg = BenchConfig(workload="framework-step", batch="8", repeats=1, min_seconds=0.01)
    installed = [bench.measure(cell, cfg) for cell in bench.plan(cfg)]
    assert [c["pattern"] for c in installed] == ["tf-eager", "tf-function", "tf-xla", "tf-xla-k100", "torch-eager",
                                                 "torch-compile", "jax-jit", "jax-jit-k100"]
    assert all(c["steps_per_second"] > 0 and c["first_call_seconds"] > 0 for c in installed)
    assert all(pattern("framework-step", c["pattern"]).why for c in installed)
    assert {c["steps_per_call"] for c in installed if c["pattern"].endswith("-k100")} == {100}
    monkeypatch.setattr(frameworks, "version", lambda name: None if name == "jax" else "2")
    cell = next(c for c in bench.plan(cfg) if c.pattern == "jax-jit")
    missing = bench.measure(cell, cfg)
    assert missing["missing"].startswith("The jax-jit pattern needs jax, which is not installed: "
                                         ".venv/bin/pip install -r requirements-frameworks.txt")
    table = bench.cells_table([*installed[:1], missing])
    assert table["missing"].tolist() == ["", missing["missing"]] and table["us_per_step"].iloc[0] > 0


def test_without_the_extra_the_style_is_one_sentence_everywhere(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(frameworks, "version", lambda name: None)
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    assert cli_main(["dqn", "--exec", "pytorch", "--epochs", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: The pytorch style needs PyTorch, which is not installed: .venv/bin/pip install -r "
                   "requirements-frameworks.txt (the frameworks extra)."]
    with pytest.raises(ConfigError, match="needs PyTorch, which is not installed"):
        service.create_run(Store(tmp_path), "dqn", {"exec_mode": "pytorch"})
    assert Store(tmp_path).list_runs() == []
