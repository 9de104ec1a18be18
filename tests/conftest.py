import os

# TensorFlow reads these at import: quiet logs, and never touch a GPU unless a test asks for one.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "-1")



import pytest


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
