"""A capture made anywhere as a run of the lab: a TensorBoard profile from another machine (a GPU's, a Colab logdir,
Keras's ``TensorBoard(profile_batch=...)``) read with the lab's engine or xprof's step analysis
(``tracking.foreign``), stored like any run (its source path and host, the capture copied into the run's folder),
listed, with its Why panel, comparable with any run, exportable and shareable by link.

Made by ``rlcore why PATH`` or the dashboard's "Open a capture" (an operator's: a path on the server or an upload),
never by a form of settings. Importing this package registers the workload and imports no framework.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlcore.contract.params import LABEL_MAX, ConfigError, check_fields, check_text, param
from rlcore.contract.reporting import Record, RunInfo
from rlcore.contract.summary import of as summary_of
from rlcore.contract.text import seconds_text
from rlcore.contract.workloads import Headline, Outcome, Reporter, Verdict, Workload, register

KIND = "capture"
FOLDER = "profile/plugins/profile"  # where the copy goes in the run's folder: the layout xprof and TensorBoard open


@dataclass(frozen=True)
class CaptureConfig:
    """A capture made anywhere: what the person pointed at, and the one file read."""

    source: str = param("", "What was pointed at: a logdir, a run folder or one .xplane.pb.")
    run: str = param("", "The logdir's run read (empty: the newest).", advanced=True)
    path: str = param("", "The .xplane.pb read (found from the source).", advanced=True)
    name: str = param("", "What the run is called when nobody labels it (the capture's host and run).",
                      advanced=True)

    def __post_init__(self) -> None:
        check_fields(self)


def prepare(values: dict[str, Any]) -> dict[str, Any]:
    """The one file a person means, checked to be a profile that can be read (parsed, with a host timeline): one
    sentence when it is not, before any run is stored."""
    from rlcore.tracking import foreign

    source = str(values.get("source") or values.get("path") or "")
    if not source.strip():
        raise ConfigError("source must name a capture: a logdir, a run folder or one .xplane.pb.", "source")
    try:
        path = foreign.find(source, values.get("run") or None)
        foreign.check(path)  # in a child process: the dashboard's own never imports xprof
    except foreign.CaptureError as e:
        raise ConfigError(str(e), "source") from None
    name = check_text(values.get("name") or "", "--name", LABEL_MAX) or f"{path.parent.name}/{path.name}"[:LABEL_MAX]
    return dict(values) | {"source": str(Path(source).expanduser().resolve()), "path": str(path.resolve()),
                           "run": values.get("run") or "", "name": name}


def train(cfg: CaptureConfig, reporter: Reporter) -> Outcome:
    """Read the capture (a file that changed into no capture since it was stored fails the run in one sentence) and
    keep a copy of it in the run's folder, where xprof opens it."""
    from rlcore.tracking import foreign

    try:
        reading = foreign.read(cfg.path)
        data = Path(cfg.path).read_bytes()
    except foreign.CaptureError as e:
        raise ConfigError(str(e), "source") from None
    except OSError as e:
        raise ConfigError(f"{cfg.path} cannot be read ({e.strerror or e}).", "source") from None
    step = reading.step_ms / 1e3
    summary = reading.to_json() | {
        "source": cfg.source, "host": reading.host, "step_seconds": step,
        "steps_per_second": 1 / step if step > 0 else None, "train_seconds": 0.0}
    reporter.on_start(RunInfo(KIND, 1, "captures", {"path": cfg.path}))
    reporter.on_record(Record(step=max(1, reading.steps), wall_seconds=0.0, metrics={}, progress=1.0))
    run = Path(cfg.path).parent.name if Path(cfg.path).parent.name else "capture"
    return Outcome(summary, {f"{FOLDER}/{run}/{Path(cfg.path).name}": data})


def judge(cfg: CaptureConfig, run_summary: dict[str, Any]) -> Verdict:
    """What the capture says first: its steps, where they ran, and the change to make first."""
    from rlcore.contract import profile_text

    summary = summary_of(run_summary)
    profile = summary.profile if summary is not None else None
    hardware = str((summary or {}).get("hardware") or "")
    if profile is None or not profile.ok:
        return Verdict("info", "read", f"A capture of {hardware or 'a machine'}: "
                       + (profile.error if profile is not None else "no step was read."))
    text = (f"A capture from {summary.get('host') or 'another machine'} ({hardware}): {profile.steps:,} "
            f"step{'s' if profile.steps != 1 else ''} of {seconds_text(profile.step_seconds)}.")
    if profile.findings:
        text += f" Why: {profile_text.headline(profile)}"
    return Verdict("info", f"{profile.verdict}, {hardware}", text)


def describe(cfg: CaptureConfig, run_summary: dict[str, Any]) -> str:
    """The reading in the lab's words, as ``rlcore why`` prints it."""
    from rlcore.tracking import foreign

    return "\n".join([f"{cfg.path}:", *foreign.sentences(foreign.CaptureReading.from_json(dict(run_summary)))])


WORKLOAD = register(Workload(
    order=45,
    kind=KIND, title="Captures",
    description="A TensorFlow profile made anywhere (a GPU machine's, a Colab logdir, Keras's TensorBoard callback) "
                "read as the lab reads its own runs: the step's parts as measured, the causes, the change to make "
                "first.",
    config=CaptureConfig, train=train, judge=judge, describe=describe, from_code=True, unit="steps",
    icon=":material/upload_file:", framework=lambda cfg: "none", prepare=prepare, reads_captures=True,
    headlines=(Headline("step_ms", "step time", "ms", "lower"),
               Headline("steps_per_second", "steps/s", "steps/s")),
))
