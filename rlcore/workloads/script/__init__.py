"""Your own TensorFlow code as a run of the lab: a script run unchanged (``rlcore profile train.py``), a loop that
calls ``rlcore.init()``, or ``model.fit`` with the lab's Keras callback. Its steps are found by hooks (``session``),
its speed and its profile read like any run's, and the findings name the lines to change.

A run of your code is made by your code (the CLI, your script), never by a form: the dashboard's "Your code" page
shows the ways in and runs a script again. Importing this package registers the workload and imports no framework.
"""

from __future__ import annotations

import os
from typing import Any

from rlcore.contract import profile_text, settings
from rlcore.contract.reporting import LOSS, PHASE_PREFIX, SAMPLES_PER_S, STEPS_PER_S
from rlcore.contract.summary import RunSummary
from rlcore.contract.summary import of as summary_of
from rlcore.contract.text import amount_text, seconds_text
from rlcore.contract.workloads import Chart, Headline, Outcome, OwnCode, Reporter, Verdict, Workload, register
from rlcore.workloads.script import in_process
from rlcore.workloads.script.config import ScriptConfig

KIND = "script"


def train(cfg: ScriptConfig, reporter: Reporter) -> Outcome:
    """Run the script under the lab's hooks and say what it did; an exception or a non-zero exit fails the run
    with its last line, Ctrl-C cancels it, a cancel from the lab stops it at its next step."""
    from rlcore.contract.params import ConfigError
    from rlcore.tracking.hooks import Cancelled, interrupts_deferred
    from rlcore.workloads.script import runner
    from rlcore.workloads.script.code import sha256
    from rlcore.workloads.script.session import Session

    script = runner.check(cfg.path)
    in_process.read_with(cfg.causes)
    if cfg.sha256 and sha256(script) != cfg.sha256:  # another file at the same path (a changed one, another node)
        raise ConfigError(f"The script at {script} is not the one this run was made for (its content differs); run "
                          "it again to take it as it is now.", "path")
    session = Session(reporter, cfg).start()
    failure: BaseException | None = None
    stopped = False
    try:
        runner.run(script, cfg.argv, cfg.cwd or None, passes=(Cancelled,))
    except Cancelled as e:
        if not session.run.stopped:  # the script raised the lab's own exception itself: that is its failure
            failure = runner.ScriptFailed(runner.printable(f"Cancelled: {e}"))
        stopped = True
    except BaseException as e:  # the run's books are closed first, then it is raised again
        failure = e
    with interrupts_deferred():  # a second Ctrl-C while the run's end is written waits until it is
        summary = session.finish(session.end())
    if failure is not None:
        raise failure
    return Outcome(summary, {}, stopped or session.run.stopped)


def judge(cfg: ScriptConfig, run_summary: dict[str, Any]) -> Verdict:
    """A script run's verdict: its leading cause and its speed (what a table of runs shows), the sentence with
    the numbers and the change to make first."""
    summary = summary_of(run_summary) or RunSummary()
    if not summary.steps:
        return Verdict("fail", "no steps", summary.get("no_steps") or "No training step was seen.")
    source = (summary.get("step_source") or {}).get("kind") or "steps"
    rate = amount_text(summary.steps_per_second or 0.0, "steps/s")
    samples = summary.samples_per_second
    text = (f"Your code: {summary.steps:,} steps ({source}) at {rate}"
            + (f", {amount_text(samples, 'samples/s')}" if samples else "")
            + f" over {seconds_text(summary.train_seconds)} of training.")
    profile = summary.profile
    word = f"not profiled, {rate}"
    if profile is not None and profile.ok and profile.findings:
        text += f" Why: {profile_text.headline(profile)}"
        word = f"{profile.verdict}, {rate}"
    elif profile is not None:
        text += f" {profile_text.sentence(profile)}"
        word = f"no profile, {rate}"
    elif not cfg.profile:
        text += " Profile it (--steps N) to read why it is as fast as it is."
    return Verdict("info", word, text)


def prepare(values: dict[str, Any]) -> dict[str, Any]:
    """A script that exists and parses, its path made absolute, its hash, its name (the file's), and the cause
    plug-ins asked for now (checked: one that cannot be imported is said before any training): one sentence for
    each thing wrong, before any run is stored."""
    from rlcore.contract.params import LABEL_MAX, check_text, readable_name
    from rlcore.workloads.script import code, runner

    script = runner.check(str(values.get("path", "")))
    name = check_text(values.get("name") or "", "--name", LABEL_MAX) or readable_name(script.name)
    causes = os.environ.get(settings.CAUSES.name, "")
    in_process.read_with(causes)
    return dict(values) | {"path": str(script.resolve()), "sha256": code.sha256(script), "name": name,
                           "causes": causes}



def code_card(cfg: ScriptConfig) -> dict[str, Any]:
    """Which code ran (none to name for code without a script file: ``python -c``)."""
    from rlcore.workloads.script.code import card

    return card(cfg.path, cfg.argv, cfg.cwd or os.getcwd()) if cfg.path else {}


WORKLOAD = register(Workload(
    order=40,
    kind=KIND, title="Your code",
    description="Your own TensorFlow script, loop or model.fit, run under the lab: its steps found, its speed, "
                "its profile, and why it is as fast as it is, in the words of your code.",
    config=ScriptConfig, train=train, judge=judge, from_code=True, unit="steps",
    icon=":material/code:",
    headlines=(Headline("steps_per_second", "steps/s", "steps/s"),
               Headline("samples_per_second", "samples/s", "samples/s"),
               Headline("train_seconds", "training time", "s", "lower")),
    charts=(Chart(LOSS, "loss", log_y=True, smooth=True, bar="loss"),
            Chart(STEPS_PER_S, "steps per second", bar="steps/s"),
            Chart(SAMPLES_PER_S, "samples per second"),
            Chart("", "what your code logged", kind="auto"),
            Chart(PHASE_PREFIX, "where the time goes", kind="phases")),
    code=code_card, prepare=prepare,
    own_code=OwnCode(config_of_this_process=in_process.config_of_this_process, start=in_process.start,
                     joined=in_process.joined, label=in_process.label, keras_callback=in_process.keras_callback),
))
