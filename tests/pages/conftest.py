"""Fixtures of the page tests: a real store in a temporary RLCORE_HOME, a fixed device card, a launch seam."""

import pytest
from pagetest import fixed_device_card

from rlcore.runs import local
from rlcore.runs.store import Store


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    fixed_device_card(monkeypatch)  # the real card is tested through the CLI
    return Store(tmp_path)


@pytest.fixture
def launched(monkeypatch):
    """Run ids the page asked to launch; no worker starts (the worker has its own tests)."""
    calls = []
    monkeypatch.setattr(local, "launch", lambda store, run_id: calls.append(run_id))
    return calls
