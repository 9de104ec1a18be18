"""What a run says changed since the previous run of the same script: beyond the noise between two runs of one
script only, and the noise said as a number."""

from __future__ import annotations

from rlcore.contract.profile import Cause, Finding, Profile
from rlcore.contract.summary import RunSummary
from rlcore.runs.history import since_sentence
from rlcore.runs.store import Run


def run(run_id: int, sha: str, speed: float, findings: list[tuple[str, float]]) -> Run:
    profile = Profile(verdict=Cause.COMPUTE, steps=10, step_seconds=0.01, findings=tuple(
        Finding(cause=Cause.DISPATCH, title=title, seconds_per_step=share * 0.01, share=share, fix="", guide="")
        for title, share in findings))
    summary = RunSummary({"steps": 100, "steps_per_second": speed, "train_seconds": 100 / speed,
                          "profile": profile.to_json()})
    return Run(id=run_id, kind="script", status="done", config={}, label="train.py", created=0.0, started=0.0,
               finished=1.0, pid=None, heartbeat=None, summary=summary, error=None, cancel_requested=False,
               environment={"code": {"path": "/x/train.py", "sha256": sha}})


def test_an_unchanged_script_says_no_small_cause_came_or_went_and_says_the_noise():
    first = run(1, "a", 100.0, [("the arithmetic itself", 0.8), ("setting up a function call", 0.12)])
    again = run(2, "a", 112.0, [("the arithmetic itself", 0.9)])
    said = since_sentence(again, [first, again])
    assert "gone" not in said and "about as fast (1.12x" in said and "±30%" in said


def test_a_large_cause_gone_is_said_unchanged_or_not_and_a_small_one_after_an_edit():
    first = run(1, "a", 100.0, [("model.predict in a loop", 0.6), ("setting up a function call", 0.12)])
    unchanged = run(2, "a", 250.0, [("the arithmetic itself", 0.9)])
    assert "model.predict in a loop gone" in since_sentence(unchanged, [first, unchanged])
    assert "setting up a function call gone" not in since_sentence(unchanged, [first, unchanged])
    edited = run(3, "b", 250.0, [("the arithmetic itself", 0.9)])
    said = since_sentence(edited, [first, edited])
    assert "setting up a function call gone" in said and "2.5x faster" in said
