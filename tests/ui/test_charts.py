"""Figure builders: the right traces, thinned long series, and TensorBoard's smoothing."""

import numpy as np
import pandas as pd
import pytest

from ui import charts
from ui.workloads import bench as bench_views
from ui.workloads import dqn as dqn_views
from ui.workloads import hjb as hjb_views


def _metrics(runs=(1, 2), n=10, name="train/loss"):
    rows = [(r, s, s * 0.1, name, float(s + r)) for r in runs for s in range(n)]
    return pd.DataFrame(rows, columns=["run_id", "step", "wall", "name", "value"])


def test_one_trace_per_run_and_a_faint_raw_one_when_smoothed():
    fig = charts.metric_chart(_metrics(), "train/loss", labels={1: "naive"})
    assert [t.name for t in fig.data] == ["naive", "run 2"]
    smoothed = charts.metric_chart(_metrics(), "train/loss", smoothing=0.6, log_y=True, x="wall")
    assert len(smoothed.data) == 4 and smoothed.layout.yaxis.type == "log"
    assert smoothed.layout.xaxis.title.text == "training seconds"


def test_long_series_are_thinned_to_the_limit_keeping_the_last_point():
    fig = charts.metric_chart(_metrics(runs=(1,), n=50_000), "train/loss")
    xs = fig.data[0].x
    assert len(xs) <= charts.MAX_POINTS and xs[-1] == 49_999 and xs[0] == 0


def test_ema_matches_tensorboards_debiased_formula():
    values = pd.Series([1.0, 0.0, 0.0])
    out = charts.ema(values, 0.5)
    assert out.tolist() == pytest.approx([1.0, 1 / 3, 1 / 7])
    assert charts.ema(values, 0.0) is values
    noisy = pd.Series(np.random.default_rng(0).normal(size=500))
    last = weight = 0.0
    expected = []
    for v in noisy:  # the formula as TensorBoard writes it
        last, weight = 0.9 * last + 0.1 * v, 0.9 * weight + 0.1
        expected.append(last / weight)
    assert charts.ema(noisy, 0.9).tolist() == pytest.approx(expected)


def test_unknown_x_axis_is_refused():
    with pytest.raises(ValueError, match="x must be one of step, wall"):
        charts.metric_chart(_metrics(), "train/loss", x="games")


def test_hjb_charts():
    k = np.linspace(0.1, 10, 5)
    assert len(hjb_views.solution_chart(k, k, k, "V").data) == 2
    assert hjb_views.error_over_k_chart(k, k, k).layout.yaxis.type == "log"


def test_board_chart_has_one_frame_per_board_with_the_player_drawn_last():
    boards = [{"player": (0, 3), "goal": (0, 0), "pit": (0, 1), "wall": (1, 1)},
              {"player": (0, 2), "goal": (0, 0), "pit": (0, 1), "wall": (1, 1)}]
    fig = dqn_views.board_chart(boards, ["start", "move 1: left, reward -1"])
    assert [f.name for f in fig.frames] == ["0", "1"]
    player = fig.frames[1].data[-1]
    assert (player.name, player.x, player.y) == ("player", (2,), (0,))  # column on x, row on y (row 0 at top)
    assert fig.layout.yaxis.range == (3.5, -0.5)
    assert [s.label for s in fig.layout.sliders[0].steps] == ["0", "1"]
    with pytest.raises(ValueError, match="one caption per board"):
        dqn_views.board_chart(boards, ["start"])


def test_a_grouped_chart_draws_a_mean_line_and_a_lowest_to_highest_band_per_group_whatever_the_runs():
    metrics = _metrics(runs=range(1, 301), n=50)
    groups = {run: f"lr={('0.001', '0.01', '0.1')[(run - 1) % 3]}" for run in range(1, 301)}  # in order
    fig = charts.grouped_metric_chart(metrics, "train/loss", groups)
    lines = [t for t in fig.data if t.mode == "lines"]
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(lines) == len(bands) == 3 and len(fig.data) == 6  # six traces for 300 runs
    assert [t.name for t in lines] == ["lr=0.001 (100 runs)", "lr=0.01 (100 runs)", "lr=0.1 (100 runs)"]
    one = metrics[metrics["run_id"].map(groups) == "lr=0.01"]
    at_step = one[one["step"] == 7]["value"]
    line = lines[1]
    assert line.y[7] == pytest.approx(at_step.mean())
    band = bands[1]
    assert max(band.y) == pytest.approx(one["value"].max()) and min(band.y) == pytest.approx(one["value"].min())


def test_plotly_js_is_served_from_a_copy_named_by_its_version_or_else_from_the_component_route(tmp_path, monkeypatch):
    import plotly

    from ui import plotly_live

    monkeypatch.setattr(plotly_live, "STATIC", tmp_path / "static")
    assert plotly_live._plotly_src() == f"./app/static/plotly-{plotly.__version__}.min.js"
    copy = tmp_path / "static" / f"plotly-{plotly.__version__}.min.js"
    assert copy.read_bytes()[:200] == (plotly_live.Path(plotly.__file__).parent / "package_data" /
                                       "plotly.min.js").read_bytes()[:200]
    copy.write_text("half a file")  # an interrupted copy is made whole again
    plotly_live._plotly_src()
    assert copy.stat().st_size > 1_000_000
    size = copy.stat().st_size
    copy.write_bytes(b"alert('not plotly');".ljust(size, b" "))  # the right size, other content
    plotly_live._plotly_src()
    installed = plotly_live.Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    assert copy.read_bytes() == installed.read_bytes()
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(plotly_live, "STATIC", tmp_path / "file" / "static")  # a folder that cannot be made
    assert plotly_live._plotly_src().startswith("./component/")


def test_a_chart_drawn_in_place_carries_real_colours_not_streamlit_s_theme_placeholders():
    import json

    import streamlit  # noqa: F401  (importing it makes its placeholder template plotly's default)

    from ui import plotly_live

    cells = [{"device": "cpu", "pattern": p, "steps_per_second": v} for p, v in (("eager", 10.0), ("graph", 90.0))]
    sent = plotly_live.figure_data(bench_views.bench_bar_chart(cells))
    assert "#000001" not in sent and "#000011" not in sent  # Streamlit's placeholders, black in plotly.js
    assert json.loads(sent)["layout"]["template"]["layout"]["colorway"][0] == charts.PALETTE[0]


def test_ten_runs_never_share_a_line_and_runs_whose_lengths_differ_widely_share_a_log_time_axis():
    """Main: runs 1 and 11 were drawn alike; over training seconds a 100x slower run left the others as slivers."""
    lines = {(charts.run_line(r)["color"], charts.run_line(r)["dash"]) for r in range(1, 31)}
    assert len(lines) == 30  # thirty runs, thirty lines
    ids = range(4, 14)
    frame = _metrics(runs=ids, n=20)
    frame.loc[frame["run_id"] == 4, "wall"] *= 100  # one run a hundred times slower
    fig = charts.metric_chart(frame, "train/loss", x="wall")
    assert fig.layout.xaxis.type == "log" and "differ 100x" in fig.layout.xaxis.title.text
    assert len({(t.line.color, t.line.dash) for t in fig.data}) == 10
    close = charts.metric_chart(_metrics(runs=ids, n=20), "train/loss", x="wall")
    assert close.layout.xaxis.type != "log" and close.layout.xaxis.title.text == "training seconds"


def test_a_smoothed_line_ends_with_the_value_reported_and_the_smoothed_one_beside_it():
    """Main: the end label read 0.980 (smoothed) where Keras reported 0.9875."""
    frame = pd.DataFrame([(1, s, s, "accuracy", v) for s, v in enumerate([0.5, 0.9, 0.99])],
                         columns=["run_id", "step", "wall", "name", "value"])
    (label,) = [t for t in charts.metric_chart(frame, "accuracy", smoothing=0.6).data if t.mode == "text"]
    assert label.text[0].startswith("0.990 (smoothed 0.8")
    (plain_label,) = [t for t in charts.metric_chart(frame, "accuracy").data if t.mode == "text"]
    assert plain_label.text[0] == "0.990"
