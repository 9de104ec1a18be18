"""The training thread's wait for a core (``tracking.waits``): carried on the lab's step markers, read back from
the capture, and said beside the causes when it is a large part of the step. The wait is made, not hoped for: the
test pins its thread and a spinning process to one core, so the thread waits about half of the time it is ready to
run, however fast the machine (its work is sized by the thread's own CPU time)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import tensorflow as tf

from rlcore.tracking import capture, waits, why, xplane

pytestmark = pytest.mark.skipif(waits.waited() is None, reason="no /proc/thread-self/schedstat (not Linux)")


def _busy_for(cpu_seconds: float) -> None:
    """Python on this thread until it has had ``cpu_seconds`` of a core (ready to run all along)."""
    until = time.thread_time() + cpu_seconds
    while time.thread_time() < until:
        pass


def _profile(tmp_path, step) -> tuple[xplane.StepNumbers, str]:
    window = capture.ProfileWindow(4, tmp_path, start=0, where_steps=0)
    x = tf.ones((4, 4))
    for _ in range(4):
        with window.step():
            tf.matmul(x, x)
            step()
    captured = window.result()
    numbers = xplane.read_capture(captured.path)
    return numbers, " ".join(why.profile(captured).notes)


def test_a_thread_sharing_its_core_reads_its_wait_from_the_markers_and_the_profile_says_so(tmp_path):
    core = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
    try:
        os.sched_setaffinity(spinner.pid, {core})
        os.sched_setaffinity(0, {core})  # this thread only (TensorFlow's own threads keep theirs)
        numbers, text = _profile(tmp_path, lambda: _busy_for(0.03))
    finally:
        os.sched_setaffinity(0, before)
        spinner.kill()
        spinner.wait(timeout=30)
    assert numbers.waited_seconds >= why.WAITED_SHARE * numbers.step_seconds, numbers
    assert numbers.waited_seconds <= numbers.step_seconds
    assert "the training thread waited for a core" in text


def test_a_step_that_sleeps_waits_for_no_core_and_no_busy_machine_is_said(tmp_path):
    numbers, text = _profile(tmp_path, lambda: time.sleep(0.05))  # asleep: not ready to run, so no wait
    assert 0 <= numbers.waited_seconds < why.WAITED_SHARE * numbers.step_seconds
    assert "the training thread waited for a core" not in text


def test_a_capture_without_the_lab_s_wait_reads_none_and_a_forked_child_reads_its_own_thread():
    assert xplane._waited([], [(0.0, 1.0)]) == 0.0
    first = waits.waited()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the parent's open file is its thread's: the child must open its own
        os.write(write, b"1" if waits.waited() is not None else b"0")
        os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 1) == b"1"
    assert waits.waited() >= first
