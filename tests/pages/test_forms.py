"""Every workload form driven through its widgets: each state the config rejects is one sentence at the field with
Launch off and nothing created; what Launch queues is exactly what the widgets show, for every style, preset and
bench workload."""

import dataclasses

import pytest
from pagetest import open_page, shown

from rlcore.contract import workloads
from rlcore.contract.params import applies, label_of
from ui import fmt


def _set(at, key, value):
    """Change one widget of the form the way a user would (numbers are typed as text)."""
    for kind in ("selectbox", "text_input"):
        widgets = [w for w in getattr(at, kind) if w.key == key]
        if widgets:
            (widgets[0].input(fmt.field_text(value)) if kind != "selectbox" else widgets[0].select(value)).run()
            return
    raise AssertionError(f"no widget with key {key!r}")


# Every rule a form's fields can break, each alone (what a browser's number field would have refused on its own
# is typed as text and judged by the configuration) and together; the last setting typed is the one the sentence
# is about.
INVALID = [
    ("dqn", {"epochs": "-5"}, "epochs must be at least 1, not -5."),
    ("dqn", {"gamma": "1.5"}, "gamma must be at most 1, not 1.5."),
    ("dqn", {"seed": "99999999999"}, "seed must be at most 2,147,483,647, not 99,999,999,999."),
    ("dqn", {"lr": "0"}, "lr must be at least 1e-8, not 0."),
    ("dqn", {"memory": "1e9"}, "memory must be a whole number, not '1e9'."),
    ("dqn", {"batch": "abc"}, "batch must be a whole number, not 'abc'."),
    ("dqn", {"gamma": ""}, "gamma must be a number, not ''."),
    ("hjb", {"steps": "1e9"}, "steps must be a whole number, not '1e9'."),
    ("dqn", {"memory": 1000, "batch": 1500}, "batch must not exceed memory (1,500 > 1,000)"),
    ("turbo", {"memory": 1000, "batch": 5000}, "batch must not exceed memory (5,000 > 1,000)"),
    ("hjb", {"k_min": 20.0}, "k_min must be below k_max (20 >= 10)"),
    ("hjb", {"k_min": 0.0}, "k_min must be positive"),
    ("hjb", {"k_min": -1.0}, "k_min must be positive"),
    ("hjb", {"gamma": 1.0}, "gamma must not be 1"),
    ("hjb", {"exec": "eager", "steps_per_call": 10}, "steps_per_call above 1 needs a compiled style"),
    ("hjb", {"lr_schedule": "cosine", "lr_final": 0.5}, "lr_final must not exceed lr when the rate decays"),
    ("bench", {"patterns": "predict, graph"}, "patterns must be among predict, eager, tf-function, xla for dqn-act"),
    ("bench", {"patterns": " , "}, "patterns must name at least one of"),
    ("bench", {"batch": "0"}, "batch must be whole numbers from 1"),
    ("bench", {"batch": "²"}, "batch must be whole numbers from 1"),
    ("bench", {"width": "5000"}, "width must be whole numbers from 1 to 4,096"),
    ("bench", {"device": "tpu"}, "device must be cpu, gpu or cpu,gpu"),
    ("bench", {"device": "cpu,gpu"}, "device gpu is off on this machine"),
    ("dqn", {"label": "a\x1b[2Jb"}, "label must be printable text"),
]


@pytest.mark.parametrize(("name", "typed", "sentence"), INVALID, ids=[f"{n}-{list(t)[-1]}" for n, t, _ in INVALID])
def test_a_typed_invalid_value_is_one_sentence_at_its_field_and_launches_nothing(store, launched, name, typed,
                                                                                   sentence):
    at = open_page(name)
    for key, value in typed.items():
        _set(at, key, value)
    assert not at.exception
    assert [shown(e) for e in at.error] and shown(at.error[0]).startswith(sentence)
    assert len(at.error) == 1 and not at.warning
    assert at.button(key="launch").disabled
    assert store.list_runs() == [] and launched == []
    _set(at, list(typed)[-1], _valid_value(name, list(typed)[-1]))  # mending the field turns Launch on again
    assert not at.error and not at.button(key="launch").disabled


def _valid_value(name, key):
    workload = workloads.get(name)
    field = next((f for f in dataclasses.fields(workload.config) if label_of(f) == key), None)
    if field is None:
        return ""  # the label
    return workload.defaults(workload.default_preset)[field.name]


def _form_values(at, workload):
    """What the widgets show, by field name, for the fields rendered (the others keep their defaults)."""
    values = {}
    by_key = {w.key: w.value for kind in ("selectbox", "text_input", "toggle") for w in getattr(at, kind)}
    for f in dataclasses.fields(workload.config):
        if label_of(f) in by_key:  # a switch's toggle as its link writes it (true/false)
            value = by_key[label_of(f)]
            values[f.name] = fmt.field_text(value) if isinstance(value, bool) else value
    return values


CASES = [("dqn", None, {"exec": style, "seed": 7}) for style in ("naive", "eager", "graph", "xla")]
CASES += [("turbo", None, {"seed": 7, "lr": 0.03})]
CASES += [("hjb", preset, {"steps": 5000}) for preset in ("seed", "accurate")]
CASES += [("bench", preset, {"repeats": 2}) for preset in ("dqn-act", "dqn-train", "hjb-step")]


@pytest.mark.parametrize(("name", "preset", "typed"), CASES,
                         ids=[f"{n}-{p or t.get('exec', 'its own')}" for n, p, t in CASES])
def test_launch_queues_exactly_what_the_form_shows(store, launched, name, preset, typed):
    workload = workloads.get(name)
    at = open_page(name)
    if preset:
        _set(at, workload.preset_param, preset)  # a preset sets every field it implies...
        defaults = workload.defaults(preset)
        assert all(v == fmt.field_text(defaults[k]) for k, v in _form_values(at, workload).items())
    for key, value in typed.items():
        _set(at, key, value)
    form = _form_values(at, workload)
    at.button(key="launch").click().run()
    assert not at.exception and not at.error
    (run,) = store.list_runs()
    assert launched == [run.id] and run.preset == preset
    style = run.config.get("exec_mode")
    for f in dataclasses.fields(workload.config):
        if f.name in form:
            assert fmt.field_text(run.config[f.name]) == form[f.name], f.name  # ...and exactly what is shown
        elif not applies(f, style):
            assert run.config[f.name] == f.default, f.name  # a field the style ignores keeps its default
    assert {f.name for f in dataclasses.fields(workload.config) if applies(f, style)} - set(form) <= {
        workload.preset_param}


def test_changing_the_preset_back_clears_what_the_other_one_set_and_keeps_what_no_preset_sets(store):
    at = open_page("hjb")
    _set(at, "k_max", 12)  # no preset sets the range of k: the user's edit stays through preset changes
    _set(at, "preset", "accurate")
    assert at.text_input(key="steps").value == "120000" and at.selectbox(key="init").value == "guess"
    _set(at, "preset", "seed")
    assert at.text_input(key="steps").value == "100000" and at.selectbox(key="init").value == "flat"
    assert at.text_input(key="k_max").value == "12"


def test_every_bad_field_is_flagged_at_once_and_launch_stays_off_until_all_are_mended(store, launched):
    """Main: batch -5 and steps abc: only the second was flagged; the first kept its value unflagged."""
    at = open_page("hjb")
    _set(at, "batch", "-5")
    _set(at, "steps", "abc")
    assert not at.exception
    said = [shown(e) for e in at.error]
    assert len(said) == 2 and any(s.startswith("batch") for s in said) and any(s.startswith("steps") for s in said)
    assert at.button(key="launch").disabled
    _set(at, "steps", "500")
    assert [shown(e)[:5] for e in at.error] == ["batch"] and at.button(key="launch").disabled
    _set(at, "batch", "100")
    assert not at.error and not at.button(key="launch").disabled
