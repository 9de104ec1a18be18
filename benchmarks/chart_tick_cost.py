"""What one tick of a live run view costs the server in building its charts: the DQN run view's five figures
(loss on a log axis and env steps/s, both smoothed; win rate in percent; where the time goes; CPU cores busy) built
and serialised for ui/plotly_live.py, as ``_figures`` in ui/run_view.py does when every chart's data changed.

    .venv/bin/python benchmarks/chart_tick_cost.py                 # 200 rows per metric, 50 ticks
    .venv/bin/python benchmarks/chart_tick_cost.py --rows 2000

CPU milliseconds per tick (``time.process_time``, median of 5 rounds) and the bytes sent to the browser.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
logging.getLogger("streamlit").setLevel(logging.ERROR)  # "missing ScriptRunContext": no app is running here

from rlcore.contract import reporting
from rlcore.tracking import system_metrics
from rlcore.workloads.dqn import metrics as dqn_metrics
from ui import charts, plotly_live


def metrics(rows: int) -> pd.DataFrame:
    steps = np.arange(1, rows + 1) * 150
    def one(name: str, values) -> pd.DataFrame:
        return pd.DataFrame({"run_id": 1, "step": steps, "wall": steps / 300.0, "name": name, "value": values})
    return pd.concat([one(reporting.LOSS, np.exp(-steps / 1e4) + 0.01),
                      one(dqn_metrics.ENV_STEPS_PER_S, 300 + steps % 50),
                      one(dqn_metrics.WIN_RATE, np.minimum(1.0, steps / steps[-1])),
                      one(system_metrics.RUN_CORES, np.ones(rows)), one(system_metrics.MACHINE_CORES, np.ones(rows))])


def tick(frame: pd.DataFrame) -> list[str]:
    """The five charts of a DQN run view, as JSON text for the component."""
    figures = [charts.metric_chart(frame, reporting.LOSS, title="loss", smoothing=0.6, log_y=True),
               charts.metric_chart(frame, dqn_metrics.ENV_STEPS_PER_S, title="env steps per second", smoothing=0.6),
               charts.metric_chart(frame, dqn_metrics.WIN_RATE, title="win rate", percent=True),
               charts.phase_chart({"env": 1.0, "act": 2.0, "replay": 0.5, "train": 3.0, "sync": 0.1}, 1000),
               charts.system_chart(frame, 2)]
    return [plotly_live.figure_data(f) for f in figures]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200, help="rows per metric")
    parser.add_argument("--ticks", type=int, default=50)
    args = parser.parse_args()
    frame = metrics(args.rows)
    sent = tick(frame)  # warm: imports, plotly's validators
    rounds = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(args.ticks):
            tick(frame)
        rounds.append((time.process_time() - start) / args.ticks)
    print(f"{args.rows} rows per metric: {statistics.median(rounds) * 1000:.1f} ms of CPU per tick "
          f"({', '.join(f'{r * 1000:.1f}' for r in rounds)}), {sum(map(len, sent)):,} bytes sent")


if __name__ == "__main__":
    main()
