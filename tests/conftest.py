import os

# TensorFlow reads these at import: quiet logs, and never touch a GPU unless a test asks for one.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "-1")



import pytest

# What a run in the foreground prepares in its own process for TensorFlow to read (``machine.prepare_process``):
# the CLI is one run per process, so it sets them in os.environ. A test that runs the CLI in the test process
# (``main(["why", ...])``) would leave them to every later test of its worker: a turbo test's worker processes
# then inherited another test's XLA cache directory ("an explicit setting wins") and wrote nothing under their own.
PREPARED = ("TF_XLA_FLAGS", "CUDA_VISIBLE_DEVICES", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS",
            "OMP_NUM_THREADS", "RLCORE_PROFILE_DIR")


@pytest.fixture(autouse=True)
def _a_run_s_process_settings_end_with_the_test():
    before = {name: os.environ.get(name) for name in PREPARED}
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def toy_workload(tmp_path, monkeypatch):
    """The toy plug-in (tests/plugins/toy_workload) installed as a package with an entry point, for this process and
    the processes it starts; the registries look again."""
    from plugins import install

    from rlcore.contract import workloads

    for name, value in install("toy_workload", "rlcore.workloads", tmp_path / "site").items():
        monkeypatch.setenv(name, value)
    workloads.WORKLOADS.refresh()
    yield workloads.get("toy")
    workloads.WORKLOADS.refresh()
