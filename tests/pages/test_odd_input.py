"""Odd input anywhere is one sentence, never a traceback: numbers of thousands of digits in links, user text that
looks like markup (entities, emoji and icon shortcodes, Plotly's hover templates), a damaged artifact, an unknown
executor, a folder where the store's file should be."""

import json

import pytest
from pagetest import open_page, shown

from rlcore.runs import service
from rlcore.runs.store import Store, StoreError
from ui import charts, fmt

HUGE = "9" * 5000


@pytest.mark.parametrize(("page", "query", "sentence"), [
    ("dqn", {"run": HUGE}, "run must be a run id like 3"),
    ("runs", {"runs": f"1,{HUGE}"}, "runs must be run ids separated by commas"),
    ("sweeps", {"sweep": HUGE}, "sweep must be a sweep id like 3"),
])
def test_a_number_of_thousands_of_digits_in_a_link_is_one_sentence(store, page, query, sentence):
    store.finish(service.create_run(store, "dqn", {}), "cancelled")
    at = open_page(page, query)
    assert not at.exception and shown(at.warning[0]).startswith(sentence)


def test_a_form_number_of_thousands_of_digits_is_one_sentence_at_its_field(store):
    at = open_page("dqn", {"epochs": HUGE})
    assert not at.exception and at.button(key="launch").disabled
    assert shown(at.error[0]) == "epochs must be a whole number of at most 4,000 digits, not a 5,000-digit number."
    for field in ("batch", "width"):  # the bench's lists: the page crashed on 4,301 digits
        at = open_page("bench", {field: "1," + "0" * 4301})
        assert not at.exception and at.button(key="launch").disabled
        assert shown(at.error[0]).startswith(f"{field} must be whole numbers from 1 to ")


def test_user_text_never_becomes_markup_emoji_icons_or_hover_templates():
    assert fmt.md("a &amp; b") == "a \\&amp; b"  # shown as typed, not as "a & b"
    assert "\u200b" in fmt.md(":smile:") and "\u200b" in fmt.md(":material/home:")  # no emoji, no icon
    assert charts.plain("%{y} <b>") == "&#37;{y} &lt;b&gt;"  # a Plotly label shows the text, not the value


def test_a_damaged_replay_file_leaves_the_run_view_standing(store):
    run_id = service.create_run(store, "dqn", {"epochs": 3})
    store.save_artifacts(run_id, {"replays.json": json.dumps([1, 2, 3]).encode()})
    store.finish(run_id, "done", summary={"win_rate": 0.5, "steps_per_second": 10.0, "train_seconds": 1.0})
    at = open_page("dqn", {"run": str(run_id)})
    assert not at.exception and any("cannot be read" in c.value for c in at.caption)


def test_an_unknown_executor_is_one_sentence_in_the_sidebar_and_the_pages_still_read(store, monkeypatch):
    monkeypatch.setenv("RLCORE_EXECUTOR", "kubernetes")
    at = open_page("runs")
    assert not at.exception
    sentence = shown(at.sidebar.warning[0])  # the engines registered in this process, then the unknown name
    assert sentence.startswith("executor must be one of local, ") and "ray" in sentence and "'kubernetes'" in sentence
    form = open_page("dqn")
    form.button(key="launch").click().run()
    assert not form.exception and store.list_runs() == []


def test_a_folder_in_the_store_s_place_is_named_as_such(tmp_path):
    (tmp_path / "runs.sqlite").mkdir()
    with pytest.raises(StoreError, match="is a folder, not a database file"):
        Store(tmp_path)


def test_a_stored_run_of_a_workload_this_lab_does_not_have_is_one_sentence_and_the_rest_stands(store):
    """A removed plug-in's run, or an older store's: listed, shown with what was stored, compared beside others."""
    from pagetest import column, link_tables

    orphan = store.insert_run("removed-plugin", {"x": 1}, "orphan")
    store.append_metrics(orphan, [(s, s / 10, "its/score", s / 10) for s in range(1, 6)])
    store.finish(orphan, "done", summary={"score": 0.5})
    fine = service.create_run(store, "dqn", {}, label="fine")
    store.finish(fine, "done", summary={"win_rate": 0.5, "steps_per_second": 10.0, "train_seconds": 1.0})
    table = open_page("runs")
    assert not table.exception and not table.error
    assert column(link_tables(table)[0], "run") == [f"{fine}: fine", f"{orphan}: orphan"]
    view = open_page("runs", {"run": str(orphan)})
    assert not view.exception
    assert any(shown(i).startswith("This run's kind 'removed-plugin' is not a workload of this lab") for i in view.info)
    compared = open_page("runs", {"runs": f"{orphan},{fine}"})
    assert not compared.exception
    assert any("are of 2 different workloads" in shown(i) for i in compared.info)
    assert not open_page("home", {"run": str(orphan)}).exception
