"""Bounded waits on a run in a real store, shared by the worker, fault, Ray and seam tests."""

import time


def wait_for(predicate, timeout: float, what: str):
    """The first truthy value of ``predicate()``, polled every 0.2 s; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


# The bounds are what a run may take on a 2-core machine with other work beside it (`make test-loaded`: a Ray
# node's first TensorFlow start took over 90 s there), never what it takes: a wait ends as soon as the run does.
def wait_final(store, run_id: int, timeout: float = 300.0):
    """The run once it has ended (whatever its status)."""
    return wait_for(lambda: (r := store.get_run(run_id)) and not r.live and r, timeout, f"run {run_id} to end")


def wait_training(store, run_id: int, timeout: float = 300.0):
    """The run once it is running and has written metrics."""
    return wait_for(lambda: (r := store.get_run(run_id)).status == "running" and store.metric_count(run_id) > 0
                    and r, timeout, f"run {run_id} to report metrics")
