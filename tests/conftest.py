import os

import pytest

# TensorFlow reads these at import: quiet logs, and never touch a GPU unless a test asks for one.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "-1")


# Two test processes (pytest-xdist, `--dist loadgroup`): a module whose tests share one costly set-up (a served
# dashboard and Chromium, a Ray cluster) stays in one process, and those modules start first; every other test goes
# to whichever process is free, so the suite does not end with one process busy and the other idle.
SHARED_SETUP = ("tests/e2e/", "tests/rlcore/runs/test_ray.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def shared(item: pytest.Item) -> bool:
        return item.nodeid.startswith(SHARED_SETUP)

    for item in items:
        if shared(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items.sort(key=lambda item: not shared(item))  # stable: each module keeps its own order
