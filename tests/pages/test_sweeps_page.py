"""The Sweeps page: the form takes values, lists and ranges, counts its runs, refuses a bad member in one sentence,
launches exactly that many runs; the sweep view draws a heatmap or parallel coordinates from a stored sweep."""

import json

from pagetest import open_page, shown

from rlcore import search
from rlcore.contract import workloads


def _type(at, key, text):
    next(w for w in at.text_input if w.key == key).input(text).run()


def test_the_form_counts_its_runs_and_launch_queues_exactly_them(store, launched):
    at = open_page("sweeps")
    assert not at.exception and at.selectbox(key="kind").value == "dqn"
    for key, text in (("epochs", "3"), ("batch", "16, 32"), ("lr", "1e-3, 1e-2"), ("seeds", "0,1")):
        _type(at, key, text)
    assert not at.error
    assert any(m.value == "This sweep makes **8 runs** (2 lr × 2 batch × 2 seeds)." for m in at.markdown)
    at.button(key="launch_sweep").click().run()
    assert not at.exception
    (sweep,) = store.list_sweeps()
    runs = store.sweep_runs(sweep.id)
    assert len(runs) == 8 and {r.status for r in runs} == {"queued"} and launched == [runs[0].id]
    assert {(r.config["batch_size"], r.config["learning_rate"], r.config["seed"]) for r in runs} == {
        (b, lr, s) for b in (16, 32) for lr in (1e-3, 1e-2) for s in (0, 1)}
    assert all(r.config["epochs"] == 3 for r in runs)
    assert at.subheader[0].value.startswith(f"Sweep {sweep.id}:")


def test_a_bad_member_is_one_sentence_at_its_field_and_nothing_launches(store, launched):
    at = open_page("sweeps")
    _type(at, "exec", "graph, xla")
    _type(at, "batch", "100, 5000")
    assert shown(at.error[0]).startswith("Member 3 (batch=5000 exec=graph): batch must not exceed memory")
    assert at.button(key="launch_sweep").disabled and store.list_sweeps() == [] and launched == []
    _type(at, "lr", "log:1e-4")
    assert shown(at.error[0]).startswith("lr's range must be log:LOW:HIGH")


def _seed_sweep(store, grid):
    workload = workloads.get("hjb")
    space = search.Space(grid=grid, seeds=[0, 1])
    members = search.members(workload, {"steps": 10}, space)
    sweep_id, ids = store.create_sweep("hjb", {"steps": 10}, space.to_dict(),
                                       [(m.config, m.label(workload)) for m in members], label="seeded")
    for run_id, member in zip(ids, members, strict=True):
        error = 0.01 * member.setting["width"] / 8 + 0.001 * member.seed
        store.finish(run_id, "done", summary={"max_rel_err_c": error, "max_rel_err_V": error / 10,
                                              "steps_per_second": 100.0, "train_seconds": 1.0})
    return sweep_id


def test_the_view_of_a_sweep_over_two_settings_draws_a_heatmap_and_names_the_best(store):
    sweep_id = _seed_sweep(store, {"width": [8, 16], "depth": [2, 3]})
    at = open_page("sweeps", {"sweep": str(sweep_id)})
    assert not at.exception
    heat, table = at.table[0].value, at.table[1].value  # the heat map (a coloured table), then every setting
    assert list(heat.columns) == ["8", "16"] and list(heat.index) == ["2", "3"] and heat.iloc[0, 0] == "1.05%"
    assert shown(at.success[0]).startswith("Best by max error of c (lower is better): width=8 depth=2")
    assert list(table["runs done"]) == ["2/2"] * 4 and table["max error of c"].iloc[0] == "1.05% ± 0.0707%"


def test_the_view_of_a_sweep_over_three_settings_draws_parallel_coordinates(store):
    sweep_id = _seed_sweep(store, {"width": [8, 16], "depth": [2, 3], "lr_schedule": ["constant", "cosine"]})
    at = open_page("sweeps", {"sweep": str(sweep_id)})
    assert not at.exception
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["type"] == "parcoords"
    assert [d["label"] for d in spec["data"][0]["dimensions"]] == ["width", "depth", "lr_schedule", "max error of c"]


def test_a_sweep_over_one_setting_draws_every_member_or_beyond_twenty_a_line_and_band_per_setting(store):
    from pagetest import drawn_charts

    from rlcore.contract import reporting

    def seeded(seeds: int) -> int:
        workload = workloads.get("dqn")
        space = search.Space(grid={"learning_rate": [1e-3, 1e-2]}, seeds=list(range(seeds)))
        members = search.members(workload, {"epochs": 10}, space)
        sweep_id, ids = store.create_sweep("dqn", {"epochs": 10}, space.to_dict(),
                                           [(m.config, m.label(workload)) for m in members])
        for run_id in ids:
            store.append_metrics(run_id, [(s, s / 10, reporting.LOSS, 1.0 / s) for s in range(1, 30)])
            store.finish(run_id, "done", summary={"win_rate": 0.9, "steps_per_second": 300.0, "train_seconds": 1.0})
        return sweep_id

    few = drawn_charts(open_page("sweeps", {"sweep": str(seeded(3))}))
    (title,) = few
    assert title.endswith("every member") and len([t for t in few[title]["data"] if t.get("showlegend") != 0]) == 6
    many = drawn_charts(open_page("sweeps", {"sweep": str(seeded(15))}))  # 30 members
    (title,) = many
    assert "each setting's mean" in title
    assert [t["name"] for t in many[title]["data"] if t.get("mode") == "lines"] == [
        "lr=0.001 (15 runs)", "lr=0.01 (15 runs)"]


def test_a_sweep_of_speed_tests_crowns_no_setting_by_win_rate_and_ranks_them_by_speed(store):
    """20-game DQN runs are speed tests by the lab's own verdict: no "Best by win rate" box for them."""
    workload = workloads.get("dqn")
    space = search.Space(grid={"batch_size": [16, 32]})
    members = search.members(workload, {"epochs": 20, "memory_size": 100}, space)
    sweep_id, ids = store.create_sweep("dqn", {"epochs": 20, "memory_size": 100}, space.to_dict(),
                                       [(m.config, m.label(workload)) for m in members], label="speed")
    for run_id, (win, speed) in zip(ids, ((0.30, 500.0), (0.10, 900.0)), strict=True):
        store.finish(run_id, "done", summary={"win_rate": win, "steps_per_second": speed, "train_seconds": 1.0})
    at = open_page("sweeps", {"sweep": str(sweep_id)})
    assert not at.exception
    assert not any("win rate" in shown(s) for s in at.success)
    assert shown(at.success[0]).startswith("Best by env steps/s (higher is better): batch=32")
    assert any(c.value.startswith("Its members are speed tests") for c in at.caption)
    listing = open_page("sweeps")
    assert not listing.exception
