"""Share links people already hold keep opening what they showed: run views, comparisons, filled forms, presets."""


from pagetest import drawn_charts, open_page

from rlcore.contract import reporting
from rlcore.runs import service


def _finished_run(store, **config):
    run_id = service.create_run(store, "dqn", config, label="old")
    store.append_metrics(run_id, [(s, s / 10, reporting.LOSS, 1.0 / s) for s in range(1, 20)])
    store.finish(run_id, "done", summary={"win_rate": 0.5, "steps_per_second": 100.0, "train_seconds": 2.0})
    return run_id


def test_old_run_and_comparison_links(store):
    first, second = _finished_run(store), _finished_run(store, exec_mode="eager")
    view = open_page("dqn", {"run": str(first)})
    assert not view.exception and view.subheader[0].value.startswith(f"Run {first}: old")
    compare = open_page("runs", {"runs": f"{first},{second}", "metric": reporting.LOSS, "x": "wall",
                                 "smoothing": "0.3"})
    assert not compare.exception and not compare.warning
    assert (compare.selectbox(key="metric").value, compare.radio(key="x").value,
            compare.slider(key="smoothing").value) == (reporting.LOSS, "wall", 0.3)
    (spec,) = drawn_charts(compare).values()
    assert spec["layout"]["xaxis"]["title"]["text"] == "training seconds" and len(spec["data"]) == 4


def test_old_form_links_fill_the_forms(store):
    dqn = open_page("dqn", {"exec": "naive", "epochs": "20", "batch": "100", "label": "mine"})
    assert not dqn.exception and not dqn.warning and not dqn.error
    assert (dqn.selectbox(key="exec").value, dqn.text_input(key="epochs").value,
            dqn.text_input(key="batch").value, dqn.text_input(key="label").value) == ("naive", "20", "100", "mine")
    hjb = open_page("hjb", {"preset": "accurate", "steps": "5000"})
    assert not hjb.warning and hjb.selectbox(key="preset").value == "accurate"
    assert (hjb.text_input(key="steps").value, hjb.text_input(key="batch").value) == ("5000", "1000")
    bench = open_page("bench", {"workload": "dqn-train", "batch": "1,64"})
    assert not bench.warning and bench.selectbox(key="workload").value == "dqn-train"
    assert (bench.text_input(key="patterns").value, bench.text_input(key="batch").value) == ("naive,eager,graph,xla",
                                                                                           "1,64")


def test_a_run_s_address_on_home_opens_the_run_and_a_bad_one_says_so(store):
    """``/?run=ID`` is what a person types or pastes: the run opens on its workload's page, not Home."""
    run_id = _finished_run(store)
    at = open_page("home", {"run": str(run_id)})
    assert not at.exception and at.subheader[0].value.startswith(f"Run {run_id}: old")
    assert at.title[0].value == "Gridworld DQN"
    for bad, sentence in (("99", "run 99 does not exist"), ("x" * 5000, "run must be"), ("9" * 5000, "run must be")):
        at = open_page("home", {"run": bad})
        assert not at.exception and at.warning[0].value.startswith(sentence), at.warning
        assert at.title[0].value == "TF Training Lab"
