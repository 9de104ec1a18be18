"""The workload registry: what each kind of run is, in one place.

A workload is a config class, one ``train(cfg, reporter) -> Outcome`` entry, the headline numbers its runs are
compared by, the yardstick that judges a finished run, the live charts it wants, and its face (title, icon, page,
presets and what they are for, the views it adds). The store, the worker, the CLI, the pages, the runs table,
comparisons and sweeps iterate this registry; none of them branches on a kind's name. A new workload is one module
that calls ``register(Workload(...))`` and one line: its name in ``MODULES`` (or, for a plug-in, in the
``RLCORE_WORKLOADS`` environment variable, which worker processes inherit); the three built-in ones are registered
at the end of this file. Importing this module never imports TensorFlow: train entries import it when they run.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rlcore import report
from rlcore.config import (
    BENCH_DEFAULTS,
    HJB_PRESETS,
    STYLE_FIELD,
    BenchConfig,
    ConfigError,
    DQNConfig,
    HJBConfig,
    amount_text,
    applies,
    from_dict,
    label_of,
    percent_text,
    seconds_text,
)
from rlcore.config import style_of as style_of_config


@dataclass(frozen=True)
class Headline:
    """A number a finished run is compared by, read from its summary."""

    key: str
    label: str
    unit: str = ""  # "%" (the value is a fraction), "s", "x", or a rate such as "steps/s"
    better: str = "higher"  # or "lower"

    @property
    def timed(self) -> bool:
        """Whether the number is a speed or a duration (what a live view watching the run can distort)."""
        return self.unit in ("s", "x") or self.unit.endswith("/s")

    def text(self, value: float | None) -> str:
        """The number as every surface writes it: 95.8%, 184,608 steps/s, 12.3 s, 51.0x."""
        if value is None or not math.isfinite(value):
            return "–"
        if self.unit == "%":
            return percent_text(value)
        if self.unit == "s":
            return seconds_text(value)
        if self.unit == "x":
            return f"{value:,.1f}x"
        return amount_text(value, self.unit)


@dataclass(frozen=True)
class Chart:
    """A live chart of a run: one metric over steps (or, for a key ending in "/", the time of each phase)."""

    metric: str
    title: str
    log_y: bool = False
    percent: bool = False
    smooth: bool = False  # offer EMA smoothing (noisy series such as the loss)


@dataclass(frozen=True)
class Verdict:
    """A finished run judged by its workload's yardstick: level ok / rough / fail (or info: not meant to be judged,
    such as a speed test), a word, one sentence."""

    level: str
    word: str
    text: str


@dataclass(frozen=True)
class Outcome:
    """What a training returns: the summary the run stores, files to keep beside it, and whether it stopped early."""

    summary: dict[str, Any]
    artifacts: dict[str, bytes] = field(default_factory=dict)
    stopped: bool = False


@dataclass(frozen=True)
class Output:
    """An artifact the CLI can write where the user says (``--save-model x.keras``)."""

    flag: str
    artifact: str
    suffix: str
    help: str
    styles: tuple[str, ...] | None = None  # the styles that make the artifact (None: every style)


@dataclass(frozen=True)
class Workload:
    kind: str
    title: str
    description: str
    config: type
    train: Callable[[Any, report.Reporter], Outcome]
    judge: Callable[[Any, dict[str, Any]], Verdict]
    headlines: tuple[Headline, ...]
    charts: tuple[Chart, ...] = ()
    # Named starting points; the form's choice is bound to the URL under ``preset_param``. When that name is also
    # a config field (the bench's workload), the preset sets it like any other field.
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    preset_param: str = "preset"
    preset_help: Mapping[str, str] = field(default_factory=dict)  # one sentence per preset: what it is for
    icon: str = ":material/science:"  # its page's icon in the menu (a Material icon: emoji need a font)
    # Named views the dashboard adds to this workload's pages beyond the generic ones (ui/extras.py knows them by
    # name: a new workload reuses them, or has none, with no edit to the dashboard).
    views: tuple[str, ...] = ()
    yardstick: str = ""  # how a result is judged, in a sentence or two (the form says it above the settings)
    describe: Callable[[Any, dict[str, Any]], str] | None = None  # the CLI's closing line(s)
    # Why this machine cannot run a valid config (a framework of an optional extra not installed), or None. Read
    # from package metadata: the dashboard asks it without importing anything.
    unavailable: Callable[[Any], str | None] = lambda cfg: None
    outputs: tuple[Output, ...] = ()
    unit: str = "steps"  # what the summary's steps count

    def make_config(self, values: Mapping[str, Any], preset: str | None = None) -> Any:
        """A validated config from a preset plus plain values (JSON, URL text, CLI), or one ConfigError."""
        base = dict(self.presets.get(preset, {})) if preset else {}
        if preset and preset not in self.presets:
            raise ConfigError(f"{self.preset_param} must be one of {', '.join(self.presets)}, not {preset!r}.",
                              self.preset_param)
        return from_dict(self.config, base | dict(values))

    def defaults(self, preset: str | None = None) -> dict[str, Any]:
        """Every field's value before the user changes anything: the class defaults under the preset's."""
        values = {f.name: f.default for f in dataclasses.fields(self.config)}
        return values | dict(self.presets.get(preset, {}) if preset else {})

    @property
    def default_preset(self) -> str | None:
        return next(iter(self.presets), None)

    def field(self, name: str | None) -> dataclasses.Field | None:
        """A setting by its name or by the name users type (a flag such as ``batch`` for ``batch_size``)."""
        return next((f for f in dataclasses.fields(self.config) if name in (f.name, label_of(f))), None)


_REGISTRY: dict[str, Workload] = {}
# Workloads defined in modules of their own (the three built-in ones are registered at the end of this file).
MODULES: tuple[str, ...] = ()
PLUGIN_ENV = "RLCORE_WORKLOADS"  # more modules, comma-separated; worker processes inherit it
_modules_loaded = False


def register(workload: Workload) -> Workload:
    _REGISTRY[workload.kind] = workload
    return workload


def _load_plugins() -> None:
    global _modules_loaded
    if _modules_loaded:
        return
    _modules_loaded = True
    extra = (m.strip() for m in os.environ.get(PLUGIN_ENV, "").split(","))
    for name in (*MODULES, *filter(None, extra)):
        importlib.import_module(name)


def all_workloads() -> list[Workload]:
    _load_plugins()
    return list(_REGISTRY.values())


def kinds() -> list[str]:
    return [w.kind for w in all_workloads()]


def get(kind: str) -> Workload:
    """The workload of a kind, or one sentence listing the kinds there are."""
    _load_plugins()
    if kind not in _REGISTRY:
        raise ConfigError(f"kind must be one of {', '.join(_REGISTRY)}, not {kind!r}.", "kind")
    return _REGISTRY[kind]


def devices_of(config: Any) -> tuple[str, ...]:
    """The devices a run needs (a bench can ask for several)."""
    return tuple(d for d in str(getattr(config, "device", "cpu") or "cpu").split(",") if d)


def threads_of(config: Any) -> int:
    """TensorFlow's CPU threads a run asks for; 0 = TensorFlow's default (a config without the setting, or a
    style it does not apply to)."""
    setting = next((f for f in dataclasses.fields(config) if f.name == "threads"), None)
    return int(config.threads) if setting is not None and applies(setting, style_of_config(config)) else 0


def style_column(config: Mapping[str, Any]) -> str:
    """How a run executes, as tables show it: the execution style, or the bench's workload."""
    return str(config.get(STYLE_FIELD) or config.get("workload") or "")


def headline_value(run_summary: Mapping[str, Any] | None, headline: Headline) -> float | None:
    value = (run_summary or {}).get(headline.key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# ---------------------------------------------------------------- the Gridworld DQN

BOOK_WIN_RATE = 0.89  # the low end of the book's 89-94% for this listing (the reference spec, 2.6)
# The book's loop trains 5,000 games; a run of fewer than this many is a speed test, not training (the seed's
# question runs 15), and is not judged as a failure to learn.
SPEED_TEST_GAMES = 1000


def _train_dqn(cfg: DQNConfig, reporter: report.Reporter) -> Outcome:
    # The one place that picks the DQN trainer: the book's loop in TensorFlow or in PyTorch (the original), or the
    # whole loop compiled (turbo).
    from rlcore import book

    if cfg.exec_mode == "pytorch":
        from rlcore.frameworks.torch_dqn import train

        result = train(cfg, reporter)
        model = {"model.pt": result.agent.model_bytes()}
    else:
        from rlcore import qnet
        from rlcore.dqn import train as book_loop
        from rlcore.dqn_turbo import train as turbo

        result = (turbo if cfg.exec_mode == "turbo" else book_loop)(cfg, reporter)
        model = {"model.keras": qnet.model_bytes(result.agent.online)}
    artifacts = model | {"replays.json": json.dumps(book.replays(result.agent.q_values, cfg)).encode()}
    return Outcome(result.summary(), artifacts, result.stopped_early)


def _dqn_unavailable(cfg: DQNConfig) -> str | None:
    from rlcore import frameworks

    if cfg.exec_mode == "pytorch" and frameworks.version("torch") is None:
        return frameworks.missing_sentence("PyTorch", "The pytorch style")
    return None


def _judge_dqn(cfg: DQNConfig, summary: dict[str, Any]) -> Verdict:
    win = summary.get("win_rate")
    if win is None:
        return Verdict("fail", "no result", "The run ended before the win-rate test.")
    games = f" on {cfg.test_games:,} test games"
    if win >= BOOK_WIN_RATE:
        return Verdict("ok", "converged", f"Converged: it won {percent_text(win)}{games}, at or above the book's "
                       "89–94%.")
    if cfg.exec_mode != "turbo" and cfg.epochs < SPEED_TEST_GAMES and not summary.get("stopped_early"):
        return Verdict("info", "speed test", f"A speed test, not training: {cfg.epochs:,} games are not meant to "
                       f"learn (the book trains 5,000 to reach 89–94%); it won {percent_text(win)}{games}.")
    hint = " It stopped early." if summary.get("stopped_early") else ""
    return Verdict("fail", "not converged", f"Not converged: it won {percent_text(win)}{games}, below the book's "
                   f"89–94% (the book trains 5,000 games).{hint}")


def _describe_dqn(cfg: DQNConfig, summary: dict[str, Any]) -> str:
    lines = []
    if "compile_seconds" in summary:
        lines.append(f"compiled the loop in {summary['compile_seconds']:.1f} s "
                     f"(XLA cache: {summary.get('xla_cache') or 'off'}).")
    lines.append(f"{summary['games']:,} games, {summary['steps']:,} steps in {summary['train_seconds']:.1f} s "
                 f"({summary['steps_per_second']:,.0f} steps/s, {cfg.exec_mode} on {cfg.device}); "
                 f"win rate {summary['win_rate']:.1%} on {cfg.test_games:,} test games.")
    return "\n".join(lines)


register(Workload(
    kind="dqn", title="Gridworld DQN",
    description="The chapter-3 DQN of 'Deep Reinforcement Learning in Action' (replay memory, target network, "
                "the book's 1000-game win-rate test); defaults are the book's values.",
    config=DQNConfig, train=_train_dqn, judge=_judge_dqn, describe=_describe_dqn, unit="env steps",
    unavailable=_dqn_unavailable,
    headlines=(Headline("win_rate", "win rate", "%"), Headline("steps_per_second", "env steps/s", "steps/s"),
               Headline("train_seconds", "training time", "s", "lower")),
    charts=(Chart(report.LOSS, "loss", log_y=True, smooth=True),
            Chart(report.ENV_STEPS_PER_S, "env steps per second"),
            Chart(report.WIN_RATE, "win rate (the book's test)", percent=True),
            Chart(report.PHASE_PREFIX, "where the time goes")),
    icon=":material/grid_view:", views=("replays",),
    outputs=(Output("--save-model", "model.keras", ".keras", "save the trained Keras network here (TensorFlow "
                    "styles; the pytorch style keeps model.pt among a stored run's files)",
                    styles=("naive", "eager", "graph", "xla", "turbo")),),
))


# ---------------------------------------------------------------- the HJB solver

HJB_ACCURATE = 0.01  # max relative error of c and V for "converged"
HJB_ROUGH = 0.10  # ... for "rough"


def _train_hjb(cfg: HJBConfig, reporter: report.Reporter) -> Outcome:
    from rlcore import hjb

    result = hjb.train(cfg, reporter)
    return Outcome(result.summary(), {}, result.stopped_early)


def _judge_hjb(cfg: HJBConfig, summary: dict[str, Any]) -> Verdict:
    from rlcore.hjb_reference import spurious_branch

    err_v, err_c = summary.get("max_rel_err_V"), summary.get("max_rel_err_c")
    if err_v is None or err_c is None:
        return Verdict("fail", "no result", "The run ended before its accuracy was measured.")
    errors = (f"max relative error {percent_text(err_v)} in V and {percent_text(err_c)} in c against the exact "
              "solution")
    branch = spurious_branch(cfg, summary.get("V", []), summary.get("c", []), summary.get("V_exact", []))
    if branch:
        return Verdict("fail", "not converged", f"Not converged: {branch} ({errors}).")
    if max(err_v, err_c) <= HJB_ACCURATE:
        return Verdict("ok", "converged", f"Converged: {errors}.")
    if max(err_v, err_c) <= HJB_ROUGH:
        return Verdict("rough", "rough", f"Roughly converged: {errors} (within 10%, not yet within 1%).")
    return Verdict("fail", "not converged", f"Not converged: {errors}.")


def _describe_hjb(cfg: HJBConfig, summary: dict[str, Any]) -> str:
    return (f"{summary['steps']:,} steps in {summary['train_seconds']:.1f} s ({summary['steps_per_second']:,.0f} "
            f"steps/s, {cfg.exec_mode}, {cfg.steps_per_call:,} per call, first call "
            f"{summary['first_call_seconds']:.2f} s); max relative error V {percent_text(summary['max_rel_err_V'])}, "
            f"c {percent_text(summary['max_rel_err_c'])}.")


register(Workload(
    kind="hjb", title="HJB solver",
    description="The neoclassical growth model's HJB equation solved by the seed's small network.",
    config=HJBConfig, train=_train_hjb, judge=_judge_hjb, describe=_describe_hjb,
    headlines=(Headline("max_rel_err_c", "max error of c", "%", "lower"),
               Headline("max_rel_err_V", "max error of V", "%", "lower"),
               Headline("steps_per_second", "steps/s", "steps/s"),
               Headline("train_seconds", "training time", "s", "lower")),
    charts=(Chart(report.LOSS, "loss", log_y=True, smooth=True),
            Chart(report.STEPS_PER_S, "steps per second"),
            Chart(report.HJB_MAX_REL_ERR_C, "max relative error of c", log_y=True, percent=True),
            Chart(report.HJB_MAX_REL_ERR_V, "max relative error of V", log_y=True, percent=True)),
    presets=HJB_PRESETS, icon=":material/show_chart:", views=("solution",),
    preset_help={
        "seed": "The seed's own code: graph style, one step per call, batch 100, a fixed rate, 100,000 steps from a "
                "flat start. The question's baseline, not its best.",
        "accurate": "What it takes to be right to 0.01%: float64, XLA with 1,000 steps per call, batch 1,000, a "
                    "cosine-decaying rate, a start fitted to a guess, then L-BFGS; about a minute on 2 cores.",
    },
    yardstick="The network is judged against the exact solution (the saddle path of the growth model): the max "
              "relative error is the largest |network / exact − 1| over 200 points of k in [0.1, 10], for the "
              "value V and for consumption c. Both within 1% is converged, within 10% rough; a network that found "
              "the residual's spurious V ≈ 0 solution is not converged whatever its loss.",
))


# ---------------------------------------------------------------- the benchmark lab

BENCH_NOISY = 0.25  # a cell whose interquartile range exceeds this share of its median is noisy


def _train_bench(cfg: BenchConfig, reporter: report.Reporter) -> Outcome:
    from rlcore import bench

    summary = bench.run(cfg, reporter)
    return Outcome(summary, {}, summary["stopped_early"])


def _judge_bench(cfg: BenchConfig, summary: dict[str, Any]) -> Verdict:
    cells = [c for c in summary.get("cells") or [] if "missing" not in c]
    if not cells:
        why = f" {' '.join(summary['missing'])}" if summary.get("missing") else ""
        return Verdict("fail", "no result", f"No cell was measured.{why}")
    noisy = [c for c in cells if c.get("iqr") and c["iqr"] > BENCH_NOISY * c["steps_per_second"]]
    if noisy:
        worst = max(noisy, key=lambda c: c["iqr"] / c["steps_per_second"])
        return Verdict("rough", "noisy", f"Noisy: {len(noisy)} of {len(cells)} cells vary by more than a quarter "
                       f"of their median (worst: {worst['pattern']} at batch {worst['batch']:,}, IQR "
                       f"{percent_text(worst['iqr'] / worst['steps_per_second'])}); repeat on a quieter machine or "
                       "with more repeats.")
    missing = f" Not measured: {' '.join(summary['missing'])}" if summary.get("missing") else ""
    return Verdict("ok", "steady", f"Steady: all {len(cells)} cells' repeats lie within a quarter of their median."
                   + missing)


def _describe_bench(cfg: BenchConfig, summary: dict[str, Any]) -> str:
    from rlcore import bench

    return bench.cells_table(summary["cells"]).to_string(index=False)


BENCH_PRESETS = {name: {"workload": name} | values for name, values in BENCH_DEFAULTS.items()}

register(Workload(
    kind="bench", title="Benchmark lab",
    description="Each TensorFlow pattern of a workload timed on its own over batch sizes, widths and devices: "
                "the first call (trace and compile) apart, then repeats whose median and spread are reported.",
    config=BenchConfig, train=_train_bench, judge=_judge_bench, describe=_describe_bench, unit="cells",
    headlines=(Headline("best_steps_per_second", "fastest steps/s", "steps/s"),
               Headline("speedup", "fastest / slowest at one batch", "x"),
               Headline("train_seconds", "measuring time", "s", "lower")),
    presets=BENCH_PRESETS, preset_param="workload", icon=":material/speed:", views=("bench-cells", "bench-why"),
))
