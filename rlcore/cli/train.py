"""A workload's command: run it here with a progress bar and its verdict, or queue it (--detach). Either way the
run is stored from its start, so ``runs list`` and the dashboard show it while it trains."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rlcore.cli.common import (
    fail,
    given_values,
    printable,
    writable_path,
)
from rlcore.contract import profile_text, settings, workloads
from rlcore.contract.params import LABEL_MAX, ConfigError, check_text, style_of
from rlcore.contract.profile import Profile
from rlcore.contract.reporting import STEPS_PER_S, TRAINING, Record, RunInfo
from rlcore.contract.status import RunStatus
from rlcore.contract.summary import of as summary_of
from rlcore.contract.text import amount_text, percent_text
from rlcore.tracking.machine import DeviceError, check_device

PROFILE_FLAGS = {"profile": "--steps", "warmup": "--warmup", "fix": "--fix", "fix_of": "--fix-of"}  # the setting's flag
EXIT_FAILED = 1  # the run itself failed (its reason printed); bad input is EXIT_BAD_INPUT
EXIT_CANCELLED = 130  # Ctrl-C, or a cancel from the dashboard, as a shell reports an interrupted command


class TqdmReporter:
    """Progress bar for the CLI: the phase, then progress with the metrics the workload's charts name for the bar
    (the loss, the window's speed, a result)."""

    def __init__(self, workload: workloads.Workload, enabled: bool = True) -> None:
        self.enabled = enabled
        self.bar = None
        self.postfix: dict[str, str] = {}
        self.shown = [(c.metric, c.bar, percent_text if c.percent else "{:.3g}".format if c.smooth else amount_text)
                      for c in workload.charts if c.bar]

    def on_start(self, info: RunInfo) -> None:
        if self.enabled:
            from tqdm import tqdm

            if info.unit == "ms":  # a time budget (turbo): progress in milliseconds of training, no rate
                self.bar = tqdm(total=info.total, dynamic_ncols=True, file=sys.stderr,
                                bar_format="{l_bar}{bar}| {n:,}/{total:,} ms of training [{elapsed}{postfix}]")
            else:
                self.bar = tqdm(total=info.total or None, unit=" " + info.unit.removesuffix("s"), dynamic_ncols=True,
                                file=sys.stderr)

    def on_record(self, record: Record) -> bool:
        if self.bar is not None:
            m = record.metrics
            for key, name, text in self.shown:
                if key in m:
                    self.postfix[name] = text(m[key])
            if record.phase:
                self.bar.set_description(record.phase)
            if self.bar.total:
                self.bar.n = round(record.progress * self.bar.total)
            else:
                self.bar.n = record.step
            self.bar.set_postfix(self.postfix, refresh=True)
        return True

    def on_end(self, summary: dict[str, Any]) -> None:
        if self.bar is not None:
            self.bar.close()


def progress_seconds() -> float:
    """How often a terminal hears how a script run goes (``RLCORE_PROGRESS_SECONDS``); a value that is no positive
    number is said once and the default kept."""
    text = settings.PROGRESS_SECONDS.text()
    try:
        every = float(text)
    except ValueError:
        every = -1.0
    if every > 0 and every == every and every != float("inf"):
        return every
    default = float(settings.PROGRESS_SECONDS.default)
    print(f"rlcore: {settings.PROGRESS_SECONDS.name} must be a number of seconds above 0, not {text[:40]!r}: "
          f"progress every {default:g} s.", file=sys.stderr, flush=True)
    return default


class StatusLines:
    """Progress of a script run on a terminal, as lines on stderr (a bar would fight the script's own output, a
    Keras progress bar above all): the steps and their speed every ``every`` seconds, and the profile's reading.
    Silent when stderr is no terminal (piped, a log file) or the result goes to standard output."""

    def __init__(self, enabled: bool, every: float | None = None) -> None:
        self.enabled = enabled
        self.every = every if every is not None else (progress_seconds() if enabled else 0.0)
        self._last_line_at = time.monotonic()
        self._phase = ""

    def on_start(self, info: RunInfo) -> None:
        self._last_line_at = time.monotonic()

    def on_record(self, record: Record) -> bool:
        if not self.enabled:
            return True
        if record.phase and record.phase != self._phase:
            self._phase = record.phase
            if record.phase != TRAINING:
                self._print_line(f"{record.phase} ...")
        if record.step and time.monotonic() - self._last_line_at >= self.every:
            rate = record.metrics.get(STEPS_PER_S)
            speed = f", {amount_text(rate, 'steps/s')}" if rate else ""
            self._print_line(f"{record.step:,} training steps so far{speed}")
        return True

    def on_end(self, summary: dict[str, Any]) -> None:
        pass

    def _print_line(self, text: str) -> None:
        self._last_line_at = time.monotonic()
        print(f"rlcore: {text}", file=sys.stderr, flush=True)


def run_workload(workload: workloads.Workload, args: argparse.Namespace) -> int:
    fields = {f.name for f in dataclasses.fields(workload.config)}
    preset = getattr(args, workload.preset_param, None) if workload.preset_param not in fields else None
    try:
        cfg = workload.make_config(given_values(workload.config, args), preset)
        label = check_text(args.label, "label", LABEL_MAX)
        json_path = writable_path(args.json, "--json") if args.json is not None else None
        outputs = {o: writable_path(getattr(args, _dest(o.flag)), o.flag, o.suffix)
                   for o in workload.outputs if getattr(args, _dest(o.flag)) is not None}
    except ConfigError as e:
        return fail(str(e))
    missing = workload.unavailable(cfg)
    if missing:
        return fail(missing)
    style = style_of(cfg)
    for output in outputs:
        if output.styles and style not in output.styles:
            return fail(f"{output.flag} does not apply to the {style} style: {output.help}.")
    if args.detach:
        return _detach(workload.kind, cfg, label, preset, args.executor)
    return run_here(workload, cfg, label=label, preset=preset, quiet=args.quiet, json_path=json_path,
                    outputs=outputs)


def run_profile(args: argparse.Namespace) -> int:
    """``rlcore profile [flags] SCRIPT [its args]``: the user's script, unchanged, as a run of the lab (of the
    workload that runs code in its own process: ``Workload.own_code``)."""
    workload = next((w for w in workloads.all_workloads() if w.own_code is not None), None)
    if workload is None:
        return fail("This lab has no workload that runs your own code.")
    if str(args.program).endswith(".ipynb"):
        return run_notebook(args, workload)
    wrong = _profile_flags_wrong(args)
    if wrong:
        return fail(wrong)
    values = {"path": args.program, "args": json.dumps(args.args), "cwd": os.getcwd(), "profile": args.steps,
              "warmup": args.warmup, "name": args.name, "fix": args.fix[0] if args.fix else "",
              "fix_of": args.fix_of}
    try:
        cfg = workload.make_config(workload.prepare(values) if workload.prepare else values)
        label = check_text(args.name, "--name", LABEL_MAX) or cfg.name
        json_path = writable_path(args.json, "--json") if args.json is not None else None
    except ConfigError as e:  # said with the flag the person typed (--steps), not the setting behind it
        flag = PROFILE_FLAGS.get(e.field or "")
        said = str(e)
        return fail(flag + said[len(e.field):] if flag and said.startswith(e.field or "\0") else said)
    if args.detach:
        return _detach(workload.kind, cfg, label, None, args.executor)
    document: dict[str, Any] = {}
    started = time.monotonic()
    code = run_here(workload, cfg, label=label, quiet=True, json_path=None if args.try_fixes else json_path,
                    keep=document, progress=StatusLines(sys.stderr.isatty()))  # the script prints its own
    if not args.try_fixes or code != 0:
        return code
    document["wall_seconds"] = time.monotonic() - started
    try:
        tries = try_fixes(args, document)
    except KeyboardInterrupt:
        print(f"interrupted: the fixes not tried yet were left; run {document['run_id']} and those tried stand.",
              file=sys.stderr)
        return EXIT_CANCELLED
    document["profile"] = (document.get("profile") or {}) | {"tries": tries}
    if json_path:
        write_result(json_path, json.dumps(document, indent=2).encode(), "--json")
    return 0


def _profile_flags_wrong(args: argparse.Namespace) -> str:
    """What is wrong with profile's flags together, in one sentence ("" when nothing is), before any run."""
    if args.try_fixes and args.detach:
        return ("--try-fixes runs each fix here after the script, and --detach queues the script for a worker: "
                "use one (queue it, then run rlcore profile --try-fixes here when it suits you).")
    if len(args.fix) > 1:
        return (f"--fix takes one fix a run, not {len(args.fix)} ({', '.join(args.fix)[:80]}): run once per fix, "
                "or --try-fixes to try each one the findings name.")
    if args.try_fixes and args.fix:
        return "--fix runs one fix and --try-fixes tries each one the findings name: use one."
    if str(args.fix_of).strip() not in ("", "0"):
        from rlcore.runs.store import Store

        try:
            fix_of = int(str(args.fix_of))
        except ValueError:
            return f"--fix-of must be a run id, not {printable(args.fix_of)[:40]!r}."
        if fix_of < 0 or fix_of >= 2**63 or Store().get_run(fix_of) is None:
            return f"--fix-of {fix_of}: there is no run {fix_of} to try a fix on (rlcore runs list shows them)."
        if not args.fix:
            return "--fix-of names the run a fix is tried on: give the fix too (--fix NAME)."
    return ""


def try_fixes(args: argparse.Namespace, document: dict[str, Any]) -> list[dict[str, Any]]:
    """Run the script again once per fix the findings name that the lab can apply without an edit (each in a
    process of its own, the same arguments and steps, the fix's patches put on before the script starts), each a
    stored run linked to the first; print and return what each one measured. Each wait is bounded (a few times the
    first run's own time) and shows progress; a fix that fails or hangs is said and the others still run."""
    from rlcore.runs import history
    from rlcore.runs.store import Store

    run_id = document["run_id"]
    profile = summary_of(document).profile  # the run's summary, as the run ended it
    names = list(dict.fromkeys(f.try_fix for f in (profile.findings if profile is not None else ()) if f.try_fix))
    if not names:
        print("No fix to try without an edit: the changes named above need one in the code.")
        return []
    bound = max(FIX_BOUND_TIMES * float(document.get("wall_seconds") or 0.0), FIX_BOUND_FLOOR)
    for name in names:
        print(f"trying {name} on run {run_id}'s script ...", flush=True)
        _try_one(args, document, name, bound)
    store = Store()
    run = store.get_run(run_id)
    if run is None:  # deleted while its fixes ran (from the dashboard, another shell): what was tried still stands
        print(f"Run {run_id} was deleted while its fixes ran; the runs that tried them stand: rlcore runs list "
              f"--script {Path(args.program).name}")
        return []
    tries = history.tries_of(store, run)
    print("Tried, the same script and steps with one change each:")
    for line in history.tries_sentence(tries):
        print(f"  {printable(line)}")
    return tries


FIX_BOUND_TIMES = 5  # a fix run may take this many times the first run before it is called hung
FIX_BOUND_FLOOR = 120.0  # seconds: never less (TensorFlow's own start on a busy machine)
FIX_PROGRESS_SECONDS = 10.0  # how often a waiting terminal hears that the fix still runs


def _try_one(args: argparse.Namespace, document: dict[str, Any], name: str, bound: float) -> None:
    """One fix run, in a process group of its own; waited for (never for what it forked, which may outlive it:
    its output goes to a file, not a pipe a grandchild could hold open), at most ``bound`` seconds."""
    import signal
    import tempfile
    import time

    command = [sys.executable, "-m", "rlcore", "profile", "--steps", "0", "--fix", name, "--fix-of",
               str(document["run_id"]), "--name", f"{document.get('label') or args.program} + {name}"[:200],
               "--", args.program, *args.args]  # "--": a script named "-lead.py" is a script, not a flag
    with tempfile.TemporaryFile("w+") as errors:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors,
                                 start_new_session=True, text=True)
        started = time.monotonic()
        try:
            while True:
                try:
                    child.wait(timeout=FIX_PROGRESS_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    waited = time.monotonic() - started
                    if waited > bound:
                        os.killpg(child.pid, signal.SIGKILL)
                        child.wait()
                        print(f"  {name}: stopped after {waited:,.0f} s, {FIX_BOUND_TIMES}x the first run's time "
                              "(it did not end; its run is left failed)")
                        _fail_hung(document["run_id"], name, waited)
                        return
                    print(f"  {name}: still running ({waited:,.0f} s)", flush=True)
        except KeyboardInterrupt:  # Ctrl-C reaches the fix's own group too: it ends as cancelled, said once here
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=30)
            raise
        if child.returncode != 0:
            errors.seek(0)
            lines = [line for line in errors.read().strip().splitlines() if line.strip()]
            last = lines[-1] if lines else f"it ended with status {child.returncode}"
            print(f"  {name}: {printable(last)}")


def _fail_hung(run_id: int, name: str, waited: float) -> None:
    from rlcore.runs.lifecycle import RunLifecycle
    from rlcore.runs.store import Store

    store = Store()
    for run in store.list_runs():
        if run.config.get("fix_of") == run_id and run.config.get("fix") == name and run.live:
            RunLifecycle.ended_elsewhere(store, run.id, RunStatus.FAILED,
                                         f"the fix run did not end within {waited:,.0f} s and was stopped")


def run_here(workload: workloads.Workload, cfg: Any, *, label: str = "", preset: str | None = None,
             quiet: bool = False, json_path: Path | None = None, outputs: dict[Any, Path] | None = None,
             keep: dict[str, Any] | None = None, progress: Any = None) -> int:
    """Train a run in this process with a progress bar, stored like any other from its first step (so the dashboard
    shows it live); then its numbers, verdict and profile on the terminal."""
    from rlcore.runs import lifecycle, service, worker
    from rlcore.runs.lifecycle import RunLifecycle
    from rlcore.runs.store import Store
    from rlcore.tracking.capture import PROFILE_DIR

    store = Store()
    try:  # cfg is validated already (with its preset); the service checks it once more as it stores the run
        run_id = service.create_run(store, workload.kind, cfg, label, preset=preset, running_pid=os.getpid())
    except ConfigError as e:
        return fail(str(e))
    try:
        # Before the run's framework starts in this process: its device, threads, XLA cache and capture folder.
        worker.prepare(cfg, home=store.home, profile_dir=store.run_dir(run_id) / PROFILE_DIR)
        try:
            if workload.framework(cfg) == "tensorflow":
                for device in workloads.devices_of(cfg):
                    check_device(device)  # a GPU TensorFlow cannot see is bad input: one sentence, nothing trained
        except DeviceError as e:
            RunLifecycle.ended_elsewhere(store, run_id, RunStatus.FAILED, str(e))
            return fail(str(e))
        sharing = lifecycle.sharing_sentence(store, run_id)
        if sharing:
            print(f"warning: {sharing}", file=sys.stderr)
        ended = worker.execute(store, run_id, workload, cfg, also=progress or TqdmReporter(workload, enabled=not quiet),
                               started=True, log=store.run_dir(run_id) / worker.LOG_NAME)
    except KeyboardInterrupt:  # Ctrl-C while TensorFlow starts, before the run's own life began: cancelled
        run = store.get_run(run_id)
        if run is not None and run.live:
            RunLifecycle.ended_elsewhere(store, run_id, RunStatus.CANCELLED,
                                         "interrupted (Ctrl-C) before it began training")
        print(f"error: run {run_id} cancelled: interrupted (Ctrl-C) before it began training", file=sys.stderr)
        return EXIT_CANCELLED
    if ended is None or ended.summary is None:
        status = ended.status if ended is not None else RunStatus.CANCELLED
        error = ended.error if ended is not None else "it was cancelled before it began"
        print(f"error: run {run_id} {status}: {printable(error)} (its log: {store.run_dir(run_id) / worker.LOG_NAME})",
              file=sys.stderr)
        if json_path:
            run = store.get_run(run_id)
            write_result(json_path, json.dumps({"run_id": run_id, "status": status, "error": error,
                                                "environment": run.environment if run else None},
                                               indent=2).encode(), "--json")
        return EXIT_CANCELLED if status == RunStatus.CANCELLED else EXIT_FAILED
    for output, path in (outputs or {}).items():
        write_result(path, (ended.artifacts or {})[output.artifact], output.flag)
    say_finished(store, run_id, workload, cfg, ended.summary, status=ended.status, label=label, json_path=json_path,
                 keep=keep)
    return EXIT_CANCELLED if ended.status == RunStatus.CANCELLED else 0


def say_finished(store: Any, run_id: int, workload: workloads.Workload, cfg: Any, summary: dict[str, Any], *,
                 status: str, label: str = "", json_path: Path | None = None,
                 keep: dict[str, Any] | None = None) -> None:
    """A finished run on the terminal: its numbers, verdict and profile, what changed since its last run, where it
    is stored; ``--json`` its document (the summary with its verdict and environment)."""
    verdict = workload.judge(cfg, summary)
    run = store.get_run(run_id)
    document = {"run_id": run_id, "status": status, "label": run.label if run else label} | summary | {
        "verdict": dataclasses.asdict(verdict), "environment": run.environment if run else None}
    if keep is not None:
        keep.update(document)
    if json_path:
        write_result(json_path, json.dumps(document, indent=2).encode(), "--json")
    if workload.describe:
        print(workload.describe(cfg, summary))
    print(verdict.text)
    typed = summary_of(summary)
    print_profile(typed.profile)
    if typed.shared_machine:
        print(typed.shared_machine)
    from rlcore.runs import history

    since = history.since_sentence(run, store.list_runs()) if run else None
    if since:
        print(since)
    print(f"stored as run {run_id} in {store.path}: rlcore runs show {run_id}")


def run_notebook(args: argparse.Namespace, workload: workloads.Workload) -> int:
    """``rlcore profile NB.ipynb``: the notebook run headless in a Jupyter kernel, one run across its cells."""
    from rlcore.notebook import headless
    from rlcore.runs.store import Store

    if args.try_fixes or args.fix or args.detach or args.args:
        return fail("A notebook runs here as it is: --try-fixes, --fix, --detach and arguments after its name are a "
                    "script's.")
    try:
        cfg = workload.make_config({"path": "", "profile": args.steps, "warmup": args.warmup, "name": args.name})
        timeout = float(args.timeout)
        if not 0 < timeout < 10**7:
            raise ConfigError(f"--timeout must be seconds above 0, not {printable(args.timeout)[:40]}.", "timeout")
        json_path = writable_path(args.json, "--json") if args.json is not None else None
    except ValueError as e:  # ConfigError too: said with the flag the person typed
        flag = PROFILE_FLAGS.get(getattr(e, "field", "") or "")
        said = str(e) if isinstance(e, ConfigError) else f"--timeout must be seconds, not {printable(args.timeout)}."
        return fail(flag + said[len(e.field):] if flag and said.startswith(getattr(e, "field", None) or "\0")
                    else said)
    try:
        executed = headless.execute(args.program, steps=cfg.profile, warmup=cfg.warmup, name=cfg.name,
                                    timeout=timeout)
    except headless.NotebookError as e:
        return fail(str(e))
    store = Store()
    run = store.get_run(executed.run_id)
    if run is None or run.status != RunStatus.DONE:
        error = (run.error if run is not None else "") or executed.error or "it did not end"
        status = run.status if run is not None else RunStatus.FAILED
        print(f"error: run {executed.run_id} {status}: {printable(error)}", file=sys.stderr)
        if json_path:
            write_result(json_path, json.dumps({"run_id": executed.run_id, "status": status, "error": error},
                                               indent=2).encode(), "--json")
        return EXIT_FAILED
    say_finished(store, run.id, workload, workload.make_config(run.config), dict(run.summary or {}),
                 status=run.status, label=run.label, json_path=json_path)
    return 0


def print_profile(profile: Profile | None) -> None:
    """A profile on the terminal: the causes in the code's words (costliest first) with the person's lines,
    what TensorFlow recorded, what a GPU would add, where the capture is."""
    if profile is None:
        return
    if not profile.ok:
        print(f"No profile: {profile.error}")
        return
    for i, f in enumerate(profile.findings, start=1):
        print(profile_text.finding_line(i, f))
    print(f"What TensorFlow recorded: {profile_text.reading(profile)}")
    for note in profile.notes:
        print(f"note: {note}")
    if profile.gpu_estimate is not None:
        print(profile_text.gpu_sentence(profile.gpu_estimate))
    if profile.logdir:
        print(f"  the capture: {profile.capture}\n  open it with: {profile.open_with}")


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def write_result(path: Path, data: bytes, flag: str) -> None:
    """Write a result; if the file became unwritable during training, say so and keep the result in the store's
    home instead of losing it."""
    try:
        path.write_bytes(data)
    except OSError as e:
        from rlcore.runs.store import default_home

        keep = default_home() / "unsaved" / path.name
        try:
            keep.parent.mkdir(parents=True, exist_ok=True)
            keep.write_bytes(data)
        except OSError as kept:
            print(f"error: {flag} could not be written ({e.strerror or e}), nor kept in {keep} "
                  f"({kept.strerror or kept}).", file=sys.stderr)
            return
        print(f"error: {flag} could not be written ({e.strerror or e}); the result is kept in {keep}.",
              file=sys.stderr)


def _detach(kind: str, cfg: Any, label: str, preset: str | None, engine: str | None = None) -> int:
    from rlcore.runs import executor, service
    from rlcore.runs.lifecycle import RunLifecycle
    from rlcore.runs.store import Store

    store = Store()
    try:
        run_id = service.create_run(store, kind, cfg, label, preset=preset, executor=executor.current(engine))
    except ConfigError as e:  # an executor that is not there (RLCORE_EXECUTOR, RLCORE_EXECUTORS): nothing queued
        return fail(str(e))
    try:
        executor.submit(store, [run_id])
    except ConfigError as e:  # it cannot reach its engine (no Ray cluster answers): the run it made is taken back
        RunLifecycle.ended_elsewhere(store, run_id, RunStatus.FAILED, str(e))
        store.delete_run(run_id)
        return fail(str(e))
    run = store.get_run(run_id)
    if run is not None and run.status == RunStatus.FAILED:
        return fail(f"run {run_id} could not start: {run.error}")
    print(f"queued run {run_id} in {store.path}; follow it with: python -m rlcore runs show {run_id}")
    print(run_id)
    return 0


