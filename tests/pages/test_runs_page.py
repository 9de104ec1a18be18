"""The Runs page over a real store seeded directly: table, comparison from a link, bad links."""

import re

import pytest
from pagetest import column, drawn_charts, link_tables, open_page, shown

from rlcore.runs import service
from rlcore.runs.store import Store


def runs_page(query: dict[str, str] | None = None):
    return open_page("runs", query)


def seed_runs(store: Store) -> list[int]:
    ids = []
    for style in ("naive", "graph", "xla"):
        run_id = service.create_run(store, "dqn", {"exec_mode": style}, label=style)
        store.append_metrics(run_id, [(s, s / 10, "train/loss", 1.0 / s) for s in range(1, 30)])
        store.finish(run_id, "done", summary={"win_rate": 0.9, "steps_per_second": 100.0, "train_seconds": 1.0})
        ids.append(run_id)
    return ids


def test_empty_store_says_how_to_start(store):
    at = runs_page()
    assert not at.exception
    assert "No runs yet" in at.info[0].value


def test_a_link_with_two_runs_compares_them(store):
    ids = seed_runs(store)
    at = runs_page({"runs": f"{ids[0]},{ids[2]}"})
    assert not at.exception
    (spec,) = drawn_charts(at).values()
    named = [t["name"] for t in spec["data"] if t.get("showlegend") is not False]
    assert named == [f"{ids[0]}: naive", f"{ids[2]}: xla"]
    assert len(spec["data"]) == 4  # smoothed by default, so each run also has its faint raw line


@pytest.mark.parametrize(("value", "warning"), [("999", "run 999 does not exist."),
                                                ("abc", "runs must be run ids separated by commas")])
def test_a_bad_link_warns_in_one_sentence_and_compares_nothing(store, value, warning):
    seed_runs(store)
    at = runs_page({"runs": value})
    assert not at.exception
    assert at.warning[0].value.startswith(warning)
    assert not drawn_charts(at)


def test_label_filter_keeps_matching_runs(store):
    seed_runs(store)
    at = runs_page()
    at.text_input(key="filter_label").input("GRA").run()
    assert not at.exception
    (row,) = link_tables(at)[0]["rows"]
    assert re.fullmatch(r"dqn\?run=\d+", row["href"]) and re.fullmatch(r"\d+: graph", row["text"])  # the name links


def test_delete_refuses_a_live_run_before_asking_and_deletes_finished_ones_after_asking(store):
    ids = seed_runs(store)
    live = service.create_run(store, "dqn", {"exec_mode": "eager"}, label="live")  # queued: must be cancelled first
    at = runs_page({"runs": f"{ids[0]},{live}"})
    assert not at.exception
    (delete,) = [b for b in at.button if b.key == "delete"]  # off, and it says why when asked (its help), never
    assert delete.disabled and delete.help == f"run {live} is still queued: cancel it first to delete it."
    assert not [c for c in at.caption if "cancel it first" in c.value]  # unprompted beside the comparison
    at = runs_page({"runs": f"{ids[0]},{ids[1]}"})
    at.button(key="delete").click().run()
    assert not at.exception
    assert store.get_run(ids[0]) is not None  # nothing is deleted before the confirmation
    at.button(key="confirm_delete_yes").click().run()
    assert not at.exception
    assert sorted(r.id for r in store.list_runs()) == [ids[2], live]


def test_a_comparison_marks_the_throughput_of_a_watched_run(store):
    ids = []
    for label, speed in (("watched", 80.0), ("alone", 100.0)):
        run_id = service.create_run(store, "dqn", {}, label=label)
        store.finish(run_id, "done", summary={"win_rate": 0.9, "steps_per_second": speed, "train_seconds": 1.0})
        ids.append(run_id)
    with store._connect() as db:  # the first had a live view open for 4 s of its run
        db.execute("UPDATE runs SET watched_seconds = 4.0, watch_refresh = 1.0 WHERE id = ?", (ids[0],))
    at = runs_page({"runs": f"{ids[0]},{ids[1]}"})
    assert not at.exception
    table = next(t for t in link_tables(at) if "watched live" in t["columns"])
    assert column(table, "watched live") == ["4.0 s", "no"]
    assert column(table, "env steps/s") == ["80 steps/s (watched)", "100 steps/s"]
    assert column(table, "win rate") == ["90.0%", "90.0%"]  # not a speed: watching does not distort it
    assert any(f"Watched live while it ran, so its speed may read low: run {ids[0]}." in shown(m)
               for m in at.markdown)


def test_a_profiled_run_beside_one_without_a_profile_compares_with_its_reading(store):
    profiled = service.create_run(store, "dqn", {"exec_mode": "eager"}, label="profiled")
    profile = {"sentence": "Launch-bound: 90 ops launched one by one.", "step_seconds": 0.2, "compute_seconds": 0.05,
               "dispatch_seconds": 0.1, "python_seconds": 0.05, "findings": []}
    store.finish(profiled, "done", summary={"win_rate": 0.9, "steps_per_second": 50.0, "train_seconds": 1.0,
                                            "profile": profile})
    plain = service.create_run(store, "dqn", {}, label="plain")
    store.finish(plain, "done", summary={"win_rate": 0.9, "steps_per_second": 100.0, "train_seconds": 1.0})
    at = runs_page({"runs": f"{profiled},{plain}"})
    assert not at.exception
    assert f"{profiled}: profiled — Launch-bound: 90 ops launched one by one." in [c.value for c in at.caption]


def test_a_run_that_logged_a_thousand_keys_draws_a_capped_few_and_finds_the_rest_by_search(store):
    """Main: 300 keys took 14.7 s to open, 1,000 keys 64 s, 10,000 were still drawing at 240 s (2,414 charts)."""
    from ui import views

    run_id = service.create_run(store, "script", {"path": "", "name": "many keys"})
    store.append_metrics(run_id, [(1, 0.1, f"layer{i // 100}/unit{i}", float(i)) for i in range(1000)]
                         + [(1, 0.1, "train/loss", 0.5)])
    store.finish(run_id, "done", summary={"steps": 1, "steps_per_second": 1.0, "train_seconds": 1.0})
    at = open_page("runs", {"run": str(run_id)})
    assert not at.exception
    charts = drawn_charts(at)
    assert "loss" in charts and len(charts) <= views.CHART_CAP + 4
    assert any("1,000 metrics of the run's own, by prefix: layer0/ 100" in c.value for c in at.caption)
    at.text_input(key=f"find_metric_{run_id}").input("unit77").run()
    found = drawn_charts(at)
    assert {t for t in found if "unit77" in t} and len([t for t in found if "unit" in t]) == 11  # 77, 770-779


def test_runs_are_found_by_tag_and_leading_cause_from_a_link(store):
    """Users of W&B and MLflow find runs by tag and by what they found: /runs?tag=baseline&cause=predict-bound."""
    made = []
    for label, tags, verdict in (("base", ["baseline"], "predict-bound"), ("fixed", ["baseline", "after"],
                                                                            "dispatch-bound"), ("other", [], "")):
        run_id = service.create_run(store, "dqn", {"epochs": 40}, label=label)
        summary = {"win_rate": 0.5, "steps_per_second": 100.0, "train_seconds": 1.0}
        if verdict:
            summary["profile"] = {"version": 2, "verdict": verdict, "findings": [
                {"cause": verdict, "title": verdict, "seconds_per_step": 0.01, "share": 0.5, "fix": "x", "guide": ""}],
                "step_seconds": 0.02}
        store.finish(run_id, "done", summary=summary)
        store.set_tags(run_id, tags)
        made.append(run_id)
    at = runs_page({"tag": "baseline"})
    assert not at.exception
    names = [link for table in link_tables(at) for link in column(table, "run")]
    assert {n.split(": ", 1)[1] for n in names} == {"base", "fixed"}
    at = runs_page({"tag": "baseline", "cause": "predict-bound"})
    names = [link for table in link_tables(at) for link in column(table, "run")]
    assert [n.split(": ", 1)[1] for n in names] == ["base"]


def test_a_column_none_of_the_shown_runs_fills_is_left_out(store):
    """Main: a table of mixed kinds kept every kind's columns, mostly empty, and ran past the page's right edge."""
    seed_runs(store)
    hjb = service.create_run(store, "hjb", {"steps": 10}, label="solver")
    store.finish(hjb, "done", summary={"max_rel_err_c": 0.01, "max_rel_err_V": 0.001, "steps_per_second": 900.0,
                                       "train_seconds": 1.0})
    at = runs_page()
    (mixed,) = link_tables(at)
    at.multiselect(key="filter_kind").set_value(["dqn"]).run()
    assert not at.exception
    (dqn_only,) = link_tables(at)
    gone = set(mixed["columns"]) - set(dqn_only["columns"])
    assert gone and not any("win rate" in c for c in gone), (mixed["columns"], dqn_only["columns"])
    assert all(any(cell not in ("", None) for cell in column(dqn_only, c)) for c in dqn_only["columns"])


@pytest.mark.parametrize("query", [{"tag": "nosuchtag"}, {"cause": "copy-bound"}, None])
def test_filters_that_match_no_run_say_so_and_the_page_stands(store, query):
    """Main: any filter matching no run (a link's tag or cause no run has, a typed label) ended in "This app has
    encountered an error" (`'all' with datetime64 dtypes`, an empty column's .all())."""
    seed_runs(store)
    at = runs_page(query)
    if query is None:
        at.text_input(key="filter_label").input("no such label").run()
    assert not at.exception
    assert any("No run matches these filters" in i.value for i in at.info)
    assert not link_tables(at)


def test_the_speed_column_leads_and_one_bench_run_does_not_put_its_columns_first(store):
    """Main: once a bench run existed, the table led with its columns ("fastest steps/s", ...), blank for every
    other row; steps/s was off to the right."""
    for i in range(3):
        run_id = service.create_run(store, "hjb", {"steps": 10}, label=f"solver {i}")
        store.finish(run_id, "done", summary={"max_rel_err_c": 0.01, "max_rel_err_V": 0.001,
                                               "steps_per_second": 900.0 + i, "train_seconds": 1.0})
    bench = service.create_run(store, "bench", {}, label="bench")
    store.finish(bench, "done", summary={"best_steps_per_second": 5000.0, "speedup": 3.0, "train_seconds": 2.0})
    at = runs_page()
    (table,) = link_tables(at)
    numbers = [c for c in table["columns"] if c not in ("run", "kind", "status", "verdict")]
    assert numbers[:2] == ["steps/s", "fastest steps/s"], table["columns"]
