# Two commands a new user needs: `make run` (dashboard) and `make test` (the whole suite).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
# 127.0.0.1: only this machine, whose user operates. HOST=0.0.0.0 shares it on the network, where everyone is a
# viewer until they sign in as operator (README, "Sharing the lab").
HOST ?= 127.0.0.1
# Test processes (pytest-xdist; each file stays in one): most tests wait on workers, servers and browsers, so three
# on 2 cores finish sooner than two (docs/suite.md: 20 min against 24-26 the same evening).
TEST_WORKERS ?= 3
export TF_CPP_MIN_LOG_LEVEL ?= 2

.PHONY: run test test-loaded venv venv-dev lint format bench clean

run: $(VENV)/.runtime  ## start the dashboard (creates .venv once); HOST=0.0.0.0 shares it read-only
	@if [ "$(HOST)" != "127.0.0.1" ]; then echo "Shared: viewers open the Network URL below (this machine's addresses \
	and name answer); another name they use must be listed: RLCORE_ALLOWED_HOSTS=name make run HOST=$(HOST). \
	Operators sign in with a passphrase: README, 'Sharing the lab'."; fi
	$(PY) -m ui.serve --server.headless true --server.port $(PORT) --server.address $(HOST)

test: $(VENV)/.dev  ## lint, then the whole suite, with no network but loopback (the Ray cluster tests need that)
	$(PY) -m ruff check .
	RAY_USAGE_STATS_ENABLED=0 devtools/isolated $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

test-loaded: $(VENV)/.dev  ## the whole suite with two CPU-busy processes beside it: no test may assume a speed
	$(PY) -m devtools.load 2 -- $(MAKE) test

venv: $(VENV)/.runtime  ## only install the pinned runtime requirements (idempotent)

venv-dev: $(VENV)/.dev

$(VENV)/.runtime: requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@# The lab itself, editable: `.venv/bin/rlcore` and `import rlcore` from any folder (the pins above are its deps).
	$(PY) -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .
	touch $@

$(VENV)/.dev: requirements-dev.txt requirements-cluster.txt requirements-frameworks.txt requirements-notebook.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

lint: $(VENV)/.dev
	$(PY) -m ruff check .

format: $(VENV)/.dev
	$(PY) -m ruff format .

bench: $(VENV)/.runtime  ## the DQN, turbo and benchmark-lab numbers of the README (takes a while)
	$(PY) benchmarks/dqn_styles.py
	$(PY) benchmarks/dqn_book_run.py
	$(PY) benchmarks/dqn_turbo.py
	$(PY) benchmarks/bench_patterns.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
