"""Summaries of the size a real run stores, for the benchmarks that time a store full of runs (page loads, sweep
scale): what is timed is reading and drawing them, so their numbers are placeholders, never results."""

from __future__ import annotations

from typing import Any

GRID = [0.1 + i * 0.05 for i in range(200)]  # an HJB run's curves hold 200 points each


def summary_of(kind: str) -> dict[str, Any]:
    return {"dqn": {"win_rate": 0.9, "steps_per_second": 300.0, "train_seconds": 10.0},
            "hjb": {"max_rel_err_c": 0.01, "max_rel_err_V": 0.001, "steps_per_second": 1200.0,
                    "train_seconds": 60.0, "grid_k": GRID, "V": GRID, "c": GRID, "V_exact": GRID, "c_exact": GRID},
            "bench": {"cells": [], "best_steps_per_second": 3000.0, "speedup": 200.0, "train_seconds": 30.0}}[kind]
