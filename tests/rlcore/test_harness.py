"""The harness every loop keeps its books through (rlcore.tracking.run.TrainingRun): its clock, steps, phases,
records, cancel and divergence on a fake clock; then the five built-in loops (the book's loop in TensorFlow and in
PyTorch, turbo, the HJB solver, the bench) seen through a spy: every record their reporter gets is one the harness
made, and a profiled window's steps and seconds are left out of the speed in every TensorFlow style."""

from __future__ import annotations

import math

import pytest

from rlcore.contract import reporting
from rlcore.tracking.run import TrainingRun


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _run(clock: FakeClock, reporter=None, **kwargs) -> TrainingRun:
    return TrainingRun(reporter or reporting.ListReporter(), kind="toy", clock=clock, sample_system=False, **kwargs)


def test_the_clock_counts_training_and_leaves_out_tests_and_compiling_steps():
    clock = FakeClock()
    run = _run(clock, total=10)
    run.start()
    with run.step(units=2, compiles=True):  # a first call that traces: its time and steps are not the speed's
        clock.advance(5.0)
    for _ in range(4):
        with run.step(units=2):
            clock.advance(0.5)
    with run.off_clock():  # a test between steps
        clock.advance(3.0)
    assert run.steps == 10 and run.timed_steps == 8 and run.compile_seconds == 5.0
    assert run.train_seconds == pytest.approx(2.0) and run.steps_per_second == pytest.approx(4.0)
    assert run.progress == 1.0
    frozen = run.stop_clock()
    clock.advance(10.0)
    assert run.train_seconds == frozen == pytest.approx(2.0)  # after training, time is no longer training


def test_phases_say_where_a_step_s_time_goes_and_every_record_carries_them():
    clock = FakeClock()
    reporter = reporting.ListReporter()
    run = _run(clock, reporter, report_every=1.0, every_record=lambda: {"progress/games": 3.0})
    run.declare_phases("act", "train")
    run.start()
    for _ in range(3):
        with run.step():
            with run.phase("act"):
                clock.advance(0.1)
            with run.phase("train"):
                clock.advance(0.3)
    assert run.phase_seconds == pytest.approx({"act": 0.3, "train": 0.9})
    last = reporter.records[-1].metrics
    assert last["time/act"] == pytest.approx(0.3) and last["progress/games"] == 3.0
    assert [r.phase for r in reporter.records] == [reporting.TRAINING, ""]  # the start, then one due after 1 s


def test_a_record_holds_the_window_s_mean_loss_and_speed_and_what_was_logged():
    clock = FakeClock()
    reporter = reporting.ListReporter()
    run = _run(clock, reporter, report_every=10.0)
    run.start(None)
    for loss in (1.0, 2.0, 3.0):
        with run.step():
            clock.advance(0.25)
        run.log(loss=loss, accuracy=0.5)
    assert reporter.records == []  # none due yet
    run.emit()
    metrics = reporter.records[-1].metrics
    assert metrics == {reporting.LOSS: 2.0, reporting.STEPS_PER_S: pytest.approx(4.0), "accuracy": 0.5}


def test_the_reporter_s_no_stops_the_run_and_a_nan_loss_is_divergence():
    clock = FakeClock()
    run = _run(clock, reporting.ListReporter(stop_after=2), report_every=0.0)
    run.start()
    with run.step():
        clock.advance(0.1)
    assert run.stopped and not run.log(loss=1.0)  # log answers whether to go on
    diverging = _run(clock, report_every=0.0)
    diverging.start()
    with pytest.raises(reporting.DivergedError, match="the training loss became nan"):
        diverging.log(loss=math.nan)


def test_a_step_begun_and_ended_by_a_callback_counts_as_one_with_the_context_manager():
    clock = FakeClock()
    run = _run(clock)
    run.start(None)
    run.begin_step()
    clock.advance(1.0)
    run.end_step(units=32)
    assert run.steps == 32 and run.train_seconds == pytest.approx(1.0)


# ---------------------------------------------------------------- the five built-in loops through the harness


@pytest.fixture
def spied(monkeypatch):
    """Every TrainingRun a loop makes, with the records it made."""
    runs: list[TrainingRun] = []
    made: dict[int, list[reporting.Record]] = {}
    real_init, real_emit = TrainingRun.__init__, TrainingRun.emit

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        runs.append(self)
        made[id(self)] = []
        reporter = self.reporter

        class Spy:
            def __getattr__(self, name):
                return getattr(reporter, name)

            def on_record(self, record):
                made[id(run_of_spy)].append(record)
                return reporter.on_record(record)

        run_of_spy = self
        self.reporter = Spy()

    monkeypatch.setattr(TrainingRun, "__init__", init)
    monkeypatch.setattr(TrainingRun, "emit", real_emit)
    return runs, made


TINY_BOOK = {"epochs": 6, "memory_size": 60, "batch_size": 8, "test_games": 10, "eval_every": 0, "hidden1": 8,
             "hidden2": 8}


def _train(kind: str, values: dict, reporter: reporting.ListReporter):
    from rlcore.contract import workloads

    workload = workloads.get(kind)
    return workload.train(workload.make_config(values), reporter)


LOOPS = {
    "the book's loop (graph)": ("dqn", TINY_BOOK | {"exec_mode": "graph"}),
    "the PyTorch original": ("dqn", TINY_BOOK | {"exec_mode": "pytorch"}),
    "turbo": ("turbo", {"train_seconds": 0.05, "games": 8, "chunk": 5, "batch": 16, "memory": 256,
                        "test_games": 10}),
    "the HJB solver": ("hjb", {"steps": 40, "steps_per_call": 10, "eval_every": 20, "eval_points": 10}),
    "the bench": ("bench", {"workload": "hjb-step", "patterns": "graph", "repeats": 1, "min_seconds": 0.01}),
}


@pytest.mark.parametrize("loop", list(LOOPS))
def test_each_built_in_loop_reports_through_the_harness(loop, spied):
    """A fake reporter sees exactly the records the harness made, in order, and its summary; the loop's phases
    and its speed are the harness's."""
    if loop == "the PyTorch original":
        pytest.importorskip("torch", reason="the frameworks extra is not installed")
    runs, made = spied
    kind, values = LOOPS[loop]
    reporter = reporting.ListReporter()
    outcome = _train(kind, values, reporter)
    assert len(runs) == 1, "one harness per run"
    run = runs[0]
    assert reporter.records == made[id(run)] and reporter.records
    assert reporter.info == run.info and reporter.summary == outcome.summary
    if kind in ("dqn", "turbo"):
        phases = {k for r in reporter.records for k in r.metrics if k.startswith(reporting.PHASE_PREFIX)}
        assert phases and reporting.TESTING in [r.phase for r in reporter.records]
    if kind in ("dqn", "turbo"):
        assert outcome.summary["steps_per_second"] == pytest.approx(run.steps_per_second, rel=1e-9)
    elif kind == "hjb":  # its speed is over the Adam steps' time (the guess's fit and the polish apart)
        assert outcome.summary["steps_per_second"] >= run.steps_per_second


PROFILED = {
    "naive": ("dqn", TINY_BOOK | {"exec_mode": "naive", "epochs": 3, "memory_size": 20, "batch_size": 4}),
    "eager": ("dqn", TINY_BOOK | {"exec_mode": "eager", "epochs": 3, "memory_size": 20, "batch_size": 4}),
    "graph": ("dqn", TINY_BOOK | {"exec_mode": "graph", "epochs": 3, "memory_size": 20, "batch_size": 4}),
    "xla": ("dqn", TINY_BOOK | {"exec_mode": "xla", "epochs": 3, "memory_size": 20, "batch_size": 4}),
    "turbo": LOOPS["turbo"],
    "HJB graph": ("hjb", {"steps": 60, "steps_per_call": 5, "eval_every": 0, "eval_points": 10}),
}


@pytest.mark.parametrize("style", list(PROFILED))
def test_the_profile_window_s_steps_and_seconds_are_left_out_of_the_speed(style, spied, tmp_path, monkeypatch):
    monkeypatch.setenv("RLCORE_PROFILE_DIR", str(tmp_path / "capture"))
    runs, _ = spied
    kind, values = PROFILED[style]
    outcome = _train(kind, values | {"profile": 3}, reporting.ListReporter())
    run = runs[0]
    units = run.capture.excluded_steps
    # Three steps recorded: moves, turbo's calls, or whole calls of five HJB steps.
    assert outcome.summary["profile"]["steps"] == (5 if kind == "hjb" else 3) and units > 0, outcome.summary
    assert run.capture.excluded_seconds > 0
    timed = run.steps - units - run.compile_steps
    assert run.timed_steps == timed and run.steps_per_second == pytest.approx(timed / run.train_seconds)
    if kind == "dqn":  # the speed a DQN run reports is the harness's: profiled moves left out
        assert outcome.summary["steps_per_second"] == pytest.approx(timed / outcome.summary["train_seconds"])



def test_the_last_record_s_short_tail_gives_no_speed_and_a_full_one_does():
    """A script's last step is cut short by its end: one step in 16 ms is no speed beside a steady 6 steps/s."""
    from rlcore.contract.reporting import STEPS_PER_S, LossWindow

    window = LossWindow(STEPS_PER_S)
    assert window.close(6, 1.0)[STEPS_PER_S] == pytest.approx(6.0)
    assert STEPS_PER_S not in window.close(7, 1.016, last=True)
    steady = LossWindow(STEPS_PER_S)
    steady.close(6, 1.0)
    assert steady.close(12, 1.9, last=True)[STEPS_PER_S] == pytest.approx(6 / 0.9)


def test_a_record_right_after_another_gives_no_rate_and_its_steps_count_in_the_next():
    """Main: a 36 steps/s run's chart spiked to ~27,000 steps/s: a record 0.2 ms after the one before (an epoch's
    validation, a phase) read one step over that sliver as the speed."""
    from rlcore.contract.reporting import STEPS_PER_S, LossWindow

    window = LossWindow(STEPS_PER_S)
    assert window.close(36, 1.0)[STEPS_PER_S] == pytest.approx(36.0)
    assert STEPS_PER_S not in window.close(37, 1.0002)  # one step in 0.2 ms: no rate
    assert window.close(72, 2.0)[STEPS_PER_S] == pytest.approx(36.0)  # those steps count in the next window


def test_a_rate_is_never_measured_across_the_training_clock_s_restart():
    """Seen on a Keras fit's chart: one point of 7,773 steps/s for a 1,076 steps/s run. The clock restarts at the
    first batch (set-up is no training); the window's baseline was the set-up's 0.38 s, so 475 steps over 0.06 s."""
    from rlcore.contract.reporting import STEPS_PER_S, LossWindow

    window = LossWindow(STEPS_PER_S)
    window.close(0, 0.381)  # a record during set-up
    window.restart(0)  # training begins: its clock from zero
    assert window.close(475, 0.442, last=True)[STEPS_PER_S] == pytest.approx(475 / 0.442)
