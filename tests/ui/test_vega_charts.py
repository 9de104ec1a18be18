"""The run view's Vega-Lite charts: valid specs (Altair's Vega-Lite schema) that do not depend on the values, so
that a live chart keeps its spec and the browser swaps its data in place; the data they draw."""

import json

import altair as alt
import numpy as np
import pandas as pd
import pytest

from ui import charts, fmt, vega_charts


def _rows(values, name="train/loss"):
    return pd.DataFrame({"run_id": 1, "step": np.arange(len(values)) * 100, "wall": np.arange(len(values)) * 0.1,
                         "name": name, "value": values})


def _valid(spec: dict) -> dict:
    alt.LayerChart.from_dict(spec)  # raises on anything the Vega-Lite schema does not allow
    return spec


@pytest.mark.parametrize("options", [{}, {"smoothing": 0.6, "log_y": True}, {"percent": True},
                                     {"percent": True, "log_y": True}])
def test_a_live_chart_keeps_one_spec_while_its_values_change(options):
    rng = np.random.default_rng(0)
    first = vega_charts.metric_chart(_rows(rng.uniform(0.1, 1, 60)), title="loss", color="#636efa", **options)[1]
    later = vega_charts.metric_chart(_rows(rng.uniform(1e-4, 5, 900)), title="loss", color="#636efa", **options)[1]
    assert json.dumps(_valid(first)) == json.dumps(later)
    assert first["usermeta"]["embedOptions"]["renderer"] == "svg"


def test_smoothing_draws_the_ema_over_the_faint_raw_values():
    values = [1.0, 0.0, 0.0, 4.0]
    data, spec = vega_charts.metric_chart(_rows(values), title="loss", color="#636efa", smoothing=0.5)
    assert data["value"].tolist() == values
    assert data["shown"].tolist() == pytest.approx(charts.ema(pd.Series(values), 0.5).tolist())
    raw, line = spec["layer"][0], spec["layer"][1]
    assert raw["mark"]["opacity"] < 1 and raw["encoding"]["y"]["field"] == "value"
    assert line["encoding"]["y"]["field"] == "shown"
    plain, spec = vega_charts.metric_chart(_rows(values), title="loss", color="#636efa")
    assert plain["shown"].tolist() == values and len(spec["layer"]) == len(_valid(spec)["layer"]) == 3


def test_a_log_chart_leaves_out_what_a_log_axis_cannot_place_and_labels_decades():
    data, spec = vega_charts.metric_chart(_rows([1.0, 0.0, -2.0, 0.01]), title="loss", color="#000", log_y=True)
    assert data["value"].tolist() == [1.0, 0.01]
    axis = spec["layer"][0]["encoding"]["y"]
    assert axis["scale"]["type"] == "log" and axis["axis"]["labelExpr"] == vega_charts.DECADES_ONLY


def test_a_rate_reads_against_zero_to_one_hundred_percent():
    spec = vega_charts.metric_chart(_rows([0.2, 0.5]), title="win rate", color="#000", percent=True)[1]
    y = spec["layer"][0]["encoding"]["y"]
    assert y["scale"]["domain"] == {"unionWith": [0, 1]} and y["axis"]["format"] == "~%"


def test_long_series_are_thinned_keeping_the_newest_value_which_the_chart_writes_at_its_end():
    data, spec = vega_charts.metric_chart(_rows(np.linspace(1, 2, 50_000)), title="loss", color="#000")
    assert len(data) <= charts.MAX_POINTS and data["step"].iloc[-1] == 4_999_900 and data["value"].iloc[-1] == 2.0
    newest = spec["layer"][1]
    assert newest["mark"]["type"] == "text" and newest["encoding"]["text"]["field"] == "label"
    assert data["label"].iloc[-1] == "2"  # written in the lab's format
    assert {"filter": "datum.step === datum.newest"} in newest["transform"]


def test_phase_chart_keeps_the_loops_order_and_writes_the_time_per_step():
    data, spec = vega_charts.phase_chart({"train": 3.0, "act": 1.0}, steps=1000)
    assert data["phase"].tolist() == ["train", "act"] and spec["encoding"]["y"]["sort"] is None
    assert data["text"].tolist() == ["3.0 s (3 ms/step)", "1.0 s (1 ms/step)"]
    assert json.dumps(_valid(spec)) == json.dumps(vega_charts.phase_chart({"train": 9.0, "act": 2.0}, steps=5)[1])


def test_phases_paid_once_have_no_time_per_step_and_numbers_read_in_the_lab_s_format():
    data, _ = vega_charts.phase_chart({"compile": 1.7, "in-graph": 2.0, "eval": 0.08}, steps=250_000)
    assert data["text"].tolist() == ["1.7 s", "2.0 s (8 µs/step)", "80 ms"]
    assert [fmt.value(v) for v in (253_614.2, 1.877e-7, 0.5, 0.0, 42.123)] == ["253,614", "1.88e-7", "0.500", "0",
                                                                                "42.1"]
    assert fmt.value(0.958, percent=True) == "95.8%"
