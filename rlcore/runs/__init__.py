"""Runs: the SQLite store (the single source of truth) and the worker process that executes one run."""
