"""Run configurations: frozen dataclasses, their bounds and defaults, and validation.

This module is the single source of defaults and bounds. The CLI's flags, the dashboard's forms and the
parsing of link values are all generated from the field metadata here (help, bounds, choices, the styles a
field applies to), so a value is checked the same way wherever it comes from. Every invalid value raises
``ConfigError`` with one sentence; numbers and ids from text are parsed strictly (ASCII digits, in range).
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rlcore.execution import BOOK_STYLES, COMPILED_STYLES, DEVICES, EXEC_MODES, TF_STYLES, ExecMode
from rlcore.gridworld import MODES


class ConfigError(ValueError):
    """An invalid configuration value; the message is one sentence meant for the user.

    ``field`` names the setting the sentence is about (the first one, for a rule over several), so a
    form can show it beside that field.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def param(
    default: Any,
    help: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] | None = None,
    flag: str | None = None,
    advanced: bool = False,
    styles: tuple[str, ...] | None = None,
    group: str = "",
) -> Any:
    """A config field with its help text, inclusive bounds or choices, CLI flag name, and the execution styles it
    applies to (None: every style). ``group`` gathers fields in the form and in ``--help``."""
    meta = {"help": help, "lo": lo, "hi": hi, "choices": choices, "flag": flag, "advanced": advanced,
            "styles": styles, "group": group}
    return field(default=default, metadata=meta)


def label_of(f: dataclasses.Field) -> str:
    """The name users see and type: the CLI flag / URL name (``lr``, ``batch``) or the field's own."""
    return f.metadata.get("flag") or f.name


def number_text(value: Any) -> str:
    """A number as a sentence shows it: integers exactly with thousands separators (a 400-digit one by its
    length), other numbers in their shortest exact form."""
    if isinstance(value, int) and not isinstance(value, bool):
        digits = len(str(abs(value)))
        return f"{value:,}" if digits <= 30 else f"a {digits}-digit number"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", repr(value)).replace("e+", "e") if isinstance(value, float) \
        else str(value)


def percent_text(fraction: float) -> str:
    """A fraction as a percentage with three significant digits (95.8%, 5.41%, 0.0130%, 2,447,089%)."""
    if not math.isfinite(fraction):
        return str(fraction)
    value = 100.0 * fraction
    if value == 0:
        return "0%"
    digits = 0 if abs(value) >= 100 else max(1, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{min(digits, 6)}f}%"


def seconds_text(value: float) -> str:
    """A duration with its unit: 2 ms, 12.3 s, 3 min 05 s, 1.5 h."""
    if value < 1:
        return f"{value * 1000:,.0f} ms" if value >= 0.001 else f"{value * 1e6:,.0f} µs"
    if value < 120:
        return f"{value:,.1f} s"
    minutes, rest = divmod(value, 60)
    return f"{minutes:,.0f} min {rest:02.0f} s" if minutes < 60 else f"{minutes / 60:,.1f} h"


def amount_text(value: float, unit: str = "") -> str:
    """A count or rate with thousands separators, three significant digits below 100: 184,608 steps/s, 4.87."""
    if abs(value) >= 100 or float(value).is_integer():
        text = f"{value:,.0f}"
    else:
        digits = max(0, 2 - math.floor(math.log10(abs(value)))) if value else 0
        text = f"{value:,.{min(digits, 6)}f}"
    return f"{text} {unit}".strip()


STYLE_FIELD = "exec_mode"


def applies(f: dataclasses.Field, style: str | None) -> bool:
    """Whether a field means anything for a style (fields without ``styles`` apply to all)."""
    styles = f.metadata.get("styles")
    return styles is None or style is None or style in styles


def style_of(cfg: Any) -> str | None:
    return getattr(cfg, STYLE_FIELD, None)


def _check_field(f: dataclasses.Field, value: Any) -> None:
    meta = f.metadata
    label = label_of(f)
    if f.type in ("str", str) and meta.get("choices") is None:
        if not isinstance(value, str):
            raise ConfigError(f"{label} must be text, not {value!r}.", f.name)
        return  # free text (such as a comma-separated list) is checked by its config's __post_init__
    if meta.get("choices") is not None:
        if value not in meta["choices"]:
            raise ConfigError(f"{label} must be one of {', '.join(meta['choices'])}, not {value!r}.", f.name)
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{label} must be a number, not {value!r}.", f.name)
    if f.type in ("int", int) and not isinstance(value, int):
        raise ConfigError(f"{label} must be a whole number, not {number_text(value)}.", f.name)
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{label} must be a finite number, not {value!r}.", f.name)
    lo, hi = meta.get("lo"), meta.get("hi")
    if lo is not None and value < lo:
        raise ConfigError(f"{label} must be at least {number_text(lo)}, not {number_text(value)}.", f.name)
    if hi is not None and value > hi:
        raise ConfigError(f"{label} must be at most {number_text(hi)}, not {number_text(value)}.", f.name)


def check_value(f: dataclasses.Field, value: Any) -> Any:
    """One field's value (text from a link or the CLI, or a typed value) parsed and checked on its own."""
    value = _coerce(f, value)
    _check_field(f, value)
    return value


def check_fields(cfg: Any) -> None:
    """Check every field that applies to the config's style against its metadata (bounds, choices, type); a
    field that does not apply must keep its default, so no setting is silently ignored."""
    style = style_of(cfg)
    if style is not None:
        _check_field(next(f for f in dataclasses.fields(cfg) if f.name == STYLE_FIELD), style)
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if applies(f, style):
            _check_field(f, value)
        elif value != f.default:
            raise ConfigError(f"{label_of(f)} does not apply to the {style} style (it applies to "
                              f"{', '.join(f.metadata['styles'])}); leave it at its default.", f.name)


PROFILE_HELP = ("Training steps to record with TensorFlow's profiler after warm-up (0 = none): the run's view then "
                "says why it is as fast as it is. The recorded steps are left out of its speed. Book loop: moves; "
                "turbo: calls of the compiled loop; HJB: gradient steps (whole calls); bench: calls of each cell.")
PROFILE_MAX = 100_000


def _profile_param(**kwargs: Any) -> Any:
    return param(0, PROFILE_HELP, lo=0, hi=PROFILE_MAX, **kwargs)


TURBO = (ExecMode.TURBO.value,)


# The book's DQN and the seed's HJB network are small: TensorFlow's thread pools cost more than they share out.
# Measured through the worker (benchmarks/live_view_cost.py): the 600-game graph DQN ran 470 env steps/s on one
# thread against 400 on TensorFlow's default two, with less spread, and kept 96% of that with a live view open.
THREADS_HELP = ("TensorFlow's CPU threads for the run (0 = its default, one per core). This small network runs "
                "fastest and steadiest on one, which leaves the other cores to the rest of the machine (a "
                "dashboard watching it included).")


@dataclass(frozen=True)
class DQNConfig:
    """The book's final chapter-3 DQN (replay + target network); defaults are the book's values.

    Fields say which styles they apply to: the book's loop (naive, eager, graph, xla) or turbo (the game and
    loop in one compiled graph, tuned for the fastest learning per second rather than the book's values).
    """

    # Game
    mode: str = param("random", "Board set-up of every game: static, player or random.", choices=MODES,
                      group="Game")
    epochs: int = param(5000, "Games to train for (one epoch = one game).", lo=1, hi=10_000_000,
                        styles=BOOK_STYLES, group="Game")
    max_moves: int = param(51, "Moves at most per training game (the book's mov > 50 cut).", lo=1, hi=10_000,
                           group="Game")
    # Learning
    gamma: float = param(0.9, "Discount factor of the TD target.", lo=0.0, hi=1.0, group="Learning")
    epsilon: float = param(0.3, "Constant exploration rate of the epsilon-greedy policy.", lo=0.0, hi=1.0,
                           styles=BOOK_STYLES, group="Learning")
    learning_rate: float = param(1e-3, "Adam learning rate.", lo=1e-8, hi=1.0, flag="lr", styles=BOOK_STYLES,
                                 group="Learning")
    hidden1: int = param(150, "Units of the first hidden layer.", lo=1, hi=4096, advanced=True,
                         styles=BOOK_STYLES, group="Learning")
    hidden2: int = param(100, "Units of the second hidden layer.", lo=1, hi=4096, advanced=True,
                         styles=BOOK_STYLES, group="Learning")
    # Replay and target network
    memory_size: int = param(1000, "Replay memory capacity (FIFO).", lo=1, hi=10_000_000, flag="memory",
                             styles=BOOK_STYLES, group="Replay and target network")
    batch_size: int = param(200, "Transitions per gradient step, sampled without replacement.", lo=1,
                            hi=1_000_000, flag="batch", styles=BOOK_STYLES, group="Replay and target network")
    sync_every: int = param(500, "Copy online weights to the target every this many steps (checked on "
                            "training steps).", lo=1, hi=10_000_000, flag="sync", styles=BOOK_STYLES,
                            group="Replay and target network")
    train_noise: float = param(0.01, "Scale of the uniform noise added to training states (the book's /100).",
                               lo=0.0, hi=10.0, advanced=True, styles=BOOK_STYLES,
                               group="Replay and target network")
    # Evaluation: the book's test
    test_noise: float = param(0.1, "Scale of the state noise in the win-rate test (the book's /10).",
                              lo=0.0, hi=10.0, advanced=True, group="Evaluation")
    test_games: int = param(1000, "Games in the win-rate test.", lo=1, hi=1_000_000, advanced=True,
                            group="Evaluation")
    test_max_moves: int = param(16, "Moves at most per test game.", lo=1, hi=10_000, advanced=True,
                                group="Evaluation")
    eval_every: int = param(1000, "Run the win-rate test every this many games during training (0 = only "
                            "at the end).", lo=0, hi=10_000_000, advanced=True, styles=BOOK_STYLES,
                            group="Evaluation")
    # Execution
    exec_mode: str = param("graph", "Execution style: naive, eager, graph, xla (the book's loop in TensorFlow), "
                           "turbo (game and loop in one compiled graph, many games at once, for train_seconds), or "
                           "pytorch (the book's own loop in PyTorch, as the book writes it: the yardstick, not a "
                           "tuned loop; needs the frameworks extra).", choices=EXEC_MODES, flag="exec",
                           group="Execution")
    device: str = param("cpu", "Device: cpu or gpu (gpu fails clearly when TensorFlow sees none).",
                        choices=DEVICES, group="Execution")
    # Turbo's 512 games at once keep TensorFlow's default (one thread per core): its ops are large enough to share.
    threads: int = param(1, THREADS_HELP, lo=0, hi=1024, advanced=True, styles=BOOK_STYLES, group="Execution")
    seed: int = param(0, "Seed of boards, noise, exploration, sampling and weights.", lo=0, hi=2**31 - 1,
                      group="Execution")
    profile: int = _profile_param(group="Execution", styles=TF_STYLES)
    # Turbo: tuned for the fastest learning per second, not the book's values.
    train_seconds: float = param(1.0, "Training wall time in seconds (the trace and compile are timed apart).",
                                 lo=0.01, hi=86_400.0, styles=TURBO, group="Turbo")
    turbo_games: int = param(512, "Games played in parallel.", lo=1, hi=1_000_000, styles=TURBO, group="Turbo")
    turbo_updates: int = param(2, "Gradient updates per collected step (one move of every game).", lo=1,
                               hi=1000, advanced=True, styles=TURBO, group="Turbo")
    turbo_chunk: int = param(25, "Collected steps per compiled call (reports come between calls).", lo=1,
                             hi=1_000_000, advanced=True, styles=TURBO, group="Turbo")
    turbo_batch: int = param(256, "Transitions per gradient update, sampled with replacement.", lo=1,
                             hi=1_000_000, styles=TURBO, group="Turbo")
    turbo_memory: int = param(50_000, "Replay ring capacity in transitions.", lo=1, hi=100_000_000,
                              styles=TURBO, group="Turbo")
    turbo_hidden1: int = param(64, "Units of the first hidden layer.", lo=1, hi=4096, advanced=True,
                               styles=TURBO, group="Turbo")
    turbo_hidden2: int = param(64, "Units of the second hidden layer.", lo=1, hi=4096, advanced=True,
                               styles=TURBO, group="Turbo")
    turbo_lr: float = param(1e-2, "Adam learning rate.", lo=1e-8, hi=1.0, styles=TURBO, group="Turbo")
    turbo_noise: float = param(0.1, "Scale of the training state noise (the book trains with 0.01 but tests "
                               "with 0.1; turbo trains as it is tested).", lo=0.0, hi=10.0, advanced=True,
                               styles=TURBO, group="Turbo")
    turbo_sync: int = param(25, "Copy online weights to the target every this many updates.", lo=1,
                            hi=10_000_000, advanced=True, styles=TURBO, group="Turbo")
    turbo_eps_start: float = param(1.0, "Exploration rate at the start.", lo=0.0, hi=1.0, advanced=True,
                                   styles=TURBO, group="Turbo")
    turbo_eps_end: float = param(0.01, "Exploration rate after the decay.", lo=0.0, hi=1.0, advanced=True,
                                 styles=TURBO, group="Turbo")
    turbo_eps_steps: int = param(200, "Collected steps over which exploration decays linearly.", lo=0,
                                 hi=100_000_000, advanced=True, styles=TURBO, group="Turbo")
    turbo_pit_ends: str = param("on", "A fall into the pit ends the value (done), as in most DQNs; the book "
                                "marks only the goal as done.", choices=("on", "off"), advanced=True,
                                styles=TURBO, group="Turbo")
    turbo_double: str = param("on", "Double DQN targets (the online net picks, the target net values).",
                              choices=("on", "off"), advanced=True, styles=TURBO, group="Turbo")
    turbo_xla: str = param("on", "Compile the loop with XLA.", choices=("on", "off"), advanced=True,
                           styles=TURBO, group="Turbo")

    def __post_init__(self) -> None:
        check_fields(self)
        if self.exec_mode in TURBO:
            if self.turbo_batch > self.turbo_memory:
                raise ConfigError(f"turbo_batch must not exceed turbo_memory ({self.turbo_batch:,} > "
                                  f"{self.turbo_memory:,}).", "turbo_batch")
        elif self.batch_size > self.memory_size:
            raise ConfigError(
                f"batch must not exceed memory ({self.batch_size:,} > {self.memory_size:,}): "
                "the batch is drawn without replacement from the replay memory.", "batch_size")
        elif self.profile and self.profile > self.most_training_moves:
            raise ConfigError(f"profile must not exceed the training moves this run can have "
                              f"({self.profile:,} > {self.most_training_moves:,}: {self.epochs:,} games of at most "
                              f"{self.max_moves:,} moves, after {self.warmup:,} moves filling the memory).",
                              "profile")

    @property
    def turbo(self) -> TurboSettings:
        """Turbo's settings as one object (turbo is a second algorithm: double DQN, its own Adam and replay ring).
        They stay flat fields of the config for the form, the CLI's flags, links and stored runs, which all name
        them ``turbo_*``."""
        return TurboSettings(**{f.name.removeprefix("turbo_"): getattr(self, f.name) for f in dataclasses.fields(self)
                                if f.name.startswith("turbo_")})

    @property
    def most_training_moves(self) -> int:
        """The most moves that train in the book's loop: every game at its longest, after the replay warm-up."""
        return max(0, self.epochs * self.max_moves - self.warmup - 1)

    @property
    def warmup(self) -> int:
        """Training starts once more than this many transitions are stored (the book's strict >)."""
        return self.batch_size


@dataclass(frozen=True)
class TurboSettings:
    """What only turbo reads: the ``turbo_*`` settings of a DQN config, without their prefix (``cfg.turbo.lr``)."""

    games: int
    updates: int
    chunk: int
    batch: int
    memory: int
    hidden1: int
    hidden2: int
    lr: float
    noise: float
    sync: int
    eps_start: float
    eps_end: float
    eps_steps: int
    pit_ends: str
    double: str
    xla: str


HJB_EXEC_MODES = ("eager", "graph", "xla")
DERIVATIVES = ("tape", "tangent")
LR_SCHEDULES = ("constant", "exponential", "cosine")
DTYPES = ("float32", "float64")
SAMPLINGS = ("uniform", "mixed")
INITS = ("flat", "guess")


@dataclass(frozen=True)
class HJBConfig:
    """The seed's network solver of the growth model's HJB; defaults are the seed's values."""

    # Model
    gamma: float = param(2.0, "Curvature of utility (gamma).", lo=0.05, hi=20.0)
    rho: float = param(0.04, "Discount rate.", lo=1e-4, hi=1.0)
    A: float = param(0.5, "Total factor productivity.", lo=1e-3, hi=100.0)
    alpha: float = param(0.36, "Capital share (returns to scale).", lo=0.01, hi=0.99)
    delta: float = param(0.05, "Depreciation rate.", lo=0.0, hi=1.0)
    k_min: float = param(0.1, "Lower end of the capital interval.")
    k_max: float = param(10.0, "Upper end of the capital interval.")
    # Network and training
    batch_size: int = param(100, "Points of k sampled per step.", lo=1, hi=10_000_000, flag="batch")
    depth: int = param(3, "Hidden layers.", lo=1, hi=32)
    width: int = param(8, "Units per hidden layer (tanh).", lo=1, hi=4096)
    output_bias: float = param(-60.0, "Initial bias of the output (the initial guess of V).", advanced=True)
    init: str = param("flat", "How the network starts: flat (the seed's: V = the output bias everywhere, which first "
                      "drifts toward the residual's spurious V ≈ 0) or guess (first fitted to Moll's guess "
                      "u(A k^alpha)/rho, increasing and concave, so V' > 0 from the start).", choices=INITS)
    learning_rate: float = param(1e-3, "Adam learning rate (the start value when it decays).", lo=1e-9, hi=1.0,
                                 flag="lr")
    lr_schedule: str = param("constant", "Learning-rate schedule over the steps: constant, exponential or cosine.",
                             choices=LR_SCHEDULES)
    lr_final: float = param(1e-5, "Learning rate at the last step when it decays.", lo=1e-12, hi=1.0)
    sampling: str = param("uniform", "How k is drawn: uniform on the interval, or mixed (half uniform, half "
                          "log-uniform, denser near k_min where V' is steepest).", choices=SAMPLINGS)
    vprime_floor: float = param(1e-7, "V' is clamped at this floor before c = V'^(-1/gamma).", lo=1e-30, hi=1.0,
                                advanced=True)
    dtype: str = param("float32", "Floating-point type of the network and the batch.", choices=DTYPES)
    steps: int = param(100_000, "Gradient steps.", lo=1, hi=1_000_000_000)
    polish_iters: int = param(0, "L-BFGS iterations after Adam, on a fixed grid of k with the full gradient "
                              "(0 = none).", lo=0, hi=1_000_000)
    polish_points: int = param(2000, "Grid points of k for the L-BFGS polish.", lo=2, hi=1_000_000, advanced=True)
    # Execution
    exec_mode: str = param("graph", "Execution style: eager, graph or xla.", choices=HJB_EXEC_MODES, flag="exec")
    steps_per_call: int = param(1, "Steps run inside one compiled call (a tf.range loop); the loss is fetched "
                                "once per call. 1 = the seed's pattern.", lo=1, hi=1_000_000)
    derivative: str = param("tape", "How V' is computed: tape (a nested GradientTape, the seed's tf.gradients) "
                            "or tangent (carried forward through the layers, half the work).", choices=DERIVATIVES)
    device: str = param("cpu", "Device: cpu or gpu (gpu fails clearly when TensorFlow sees none).", choices=DEVICES)
    threads: int = param(1, THREADS_HELP, lo=0, hi=1024, advanced=True)
    seed: int = param(1234, "Seed of the weights and the sampled k.", lo=0, hi=2**31 - 1)
    profile: int = _profile_param()
    # Accuracy reports
    eval_every: int = param(5000, "Measure the error against the exact solution every this many steps "
                            "(0 = only at the end).", lo=0, hi=1_000_000_000, advanced=True)
    eval_points: int = param(200, "Grid points of k for the error.", lo=2, hi=1_000_000, advanced=True)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.gamma == 1.0:
            raise ConfigError("gamma must not be 1: that is log utility, which u(c) = c^(1-gamma)/(1-gamma) "
                              "does not cover.", "gamma")
        if self.k_min <= 0:
            raise ConfigError(f"k_min must be positive, not {number_text(self.k_min)}.", "k_min")
        if self.k_min >= self.k_max:
            raise ConfigError(f"k_min must be below k_max ({number_text(self.k_min)} >= {number_text(self.k_max)}).",
                              "k_min")
        if self.exec_mode not in COMPILED_STYLES and self.steps_per_call > 1:
            raise ConfigError("steps_per_call above 1 needs a compiled style (graph or xla): eager runs one "
                              "Python step at a time.", "steps_per_call")
        if self.lr_schedule != "constant" and self.lr_final > self.learning_rate:
            raise ConfigError(f"lr_final must not exceed lr when the rate decays ({number_text(self.lr_final)} > "
                              f"{number_text(self.learning_rate)}).", "lr_final")
        after_first = self.steps - min(self.steps_per_call, self.steps)
        if self.profile > after_first:
            raise ConfigError(f"profile must not exceed the steps after the first call, which traces and "
                              f"compiles ({self.profile:,} > {after_first:,}).", "profile")


# Named starting points; explicit values override them.
HJB_PRESETS: dict[str, dict[str, Any]] = {
    "seed": {},
    # Measured on 2 cores: max rel err V 0.001%, c 0.013% in about 64 s, under the seed's 100k steps
    # (about 80 s). Larger batch and a decaying rate stop Adam's wandering; float64 and the L-BFGS polish
    # take it the last order of magnitude; the compiled K-step tangent style pays for it all. Starting from a
    # fitted guess keeps fewer steps (a faster decay) out of the residual's spurious V ≈ 0 branch.
    "accurate": {
        "batch_size": 1000, "lr_schedule": "cosine", "learning_rate": 1e-3, "lr_final": 1e-5, "steps": 120_000,
        "dtype": "float64", "exec_mode": "xla", "derivative": "tangent", "steps_per_call": 1000,
        "polish_iters": 1000, "eval_every": 20_000, "init": "guess",
    },
}


def hjb_preset(name: str, **overrides: Any) -> HJBConfig:
    if name not in HJB_PRESETS:
        raise ConfigError(f"preset must be one of {', '.join(HJB_PRESETS)}, not {name!r}.")
    return from_dict(HJBConfig, HJB_PRESETS[name] | overrides)


# ---------------------------------------------------------------- the benchmark lab

BENCH_PATTERNS: dict[str, tuple[str, ...]] = {
    "dqn-act": ("predict", "eager", "tf-function", "xla"),
    "dqn-train": ("naive", "eager", "graph", "xla"),
    "hjb-step": ("eager", "graph", "xla", "graph-kN", "xla-kN"),  # kN: N steps per call, e.g. graph-k100
    # The HJB step across frameworks: TensorFlow, PyTorch (the frameworks extra), JAX (the same).
    "framework-step": ("tf-eager", "tf-function", "tf-xla", "tf-xla-kN", "torch-eager", "torch-compile", "jax-jit",
                       "jax-jit-kN"),
}
BENCH_DEFAULTS: dict[str, dict[str, str]] = {
    "dqn-act": {"patterns": "predict,eager,tf-function,xla", "batch": "1", "width": "150"},
    "dqn-train": {"patterns": "naive,eager,graph,xla", "batch": "200", "width": "150"},
    "hjb-step": {"patterns": "eager,graph,xla,graph-k100,xla-k100", "batch": "100", "width": "8"},
    "framework-step": {"patterns": "tf-eager,tf-function,tf-xla,tf-xla-k100,torch-eager,torch-compile,jax-jit,"
                                   "jax-jit-k100", "batch": "1,100,10000", "width": "8"},
}
# Patterns that run N steps per call (graph-k100): the workloads that have them, and the names they take.
K_STEPS_PATTERNS = {"hjb-step": re.compile(r"^(graph|xla)-k([1-9][0-9]{0,6})$"),
                    "framework-step": re.compile(r"^(tf-xla|jax-jit)-k([1-9][0-9]{0,6})$")}


def _int_list(label: str, text: str, hi: int) -> tuple[int, ...]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(DIGITS.fullmatch(p) and 1 <= int(p) <= hi for p in parts):
        raise ConfigError(f"{label} must be whole numbers from 1 to {hi:,} separated by commas, like 1,100,10000, "
                          f"not {text!r}.", label)
    return tuple(dict.fromkeys(int(p) for p in parts))


@dataclass(frozen=True)
class BenchConfig:
    """A benchmark: patterns of one workload, timed over batch sizes, widths and devices."""

    workload: str = param("dqn-act", "What one call does: dqn-act (pick actions), dqn-train (one DQN training "
                          "step), hjb-step (one HJB training step) or framework-step (the HJB step in TensorFlow, "
                          "PyTorch and JAX).", choices=tuple(BENCH_PATTERNS))
    patterns: str = param("", "Comma-separated patterns; empty = all of the workload's. dqn-act: predict, eager, "
                          "tf-function, xla; dqn-train: naive, eager, graph, xla; hjb-step: eager, graph, xla, "
                          "graph-kN, xla-kN (N steps per call); framework-step: tf-eager, tf-function, tf-xla, "
                          "tf-xla-kN, torch-eager, torch-compile, jax-jit, jax-jit-kN.")
    batch: str = param("", "Comma-separated batch sizes, e.g. 1,100,10000; empty = the workload's (1 for "
                       "dqn-act, 200 for dqn-train, 100 for hjb-step).")
    width: str = param("", "Comma-separated hidden widths; empty = the workload's (150 for DQN, 8 for HJB).",
                       advanced=True)
    device: str = param("cpu", "cpu, gpu or cpu,gpu: each device is measured in its own process.")
    repeats: int = param(5, "Timed repeats per cell; the median is reported with the interquartile range.",
                         lo=1, hi=1000)
    min_seconds: float = param(1.0, "Minimum length of each timed repeat, in seconds.", lo=0.01, hi=3600,
                               advanced=True)
    seed: int = param(0, "Seed of the networks and the input data.", lo=0, hi=2**31 - 1, advanced=True)
    profile: int = _profile_param()

    def __post_init__(self) -> None:
        check_fields(self)
        for name in self.pattern_list:
            k_steps = self.workload in K_STEPS_PATTERNS and K_STEPS_PATTERNS[self.workload].match(name)
            if name not in BENCH_PATTERNS[self.workload] and not k_steps:
                raise ConfigError(f"patterns must be among {', '.join(BENCH_PATTERNS[self.workload])} for "
                                  f"{self.workload}, not {name!r}.", "patterns")
        if not self.pattern_list:
            raise ConfigError(f"patterns must name at least one of {', '.join(BENCH_PATTERNS[self.workload])}.",
                              "patterns")
        _ = self.batch_list, self.width_list
        devices = self.device_list
        if not devices or any(d not in DEVICES for d in devices):
            raise ConfigError(f"device must be cpu, gpu or cpu,gpu, not {self.device!r}.", "device")

    def _or_default(self, name: str) -> str:
        return getattr(self, name).strip() or BENCH_DEFAULTS[self.workload][name]

    @property
    def pattern_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.strip() for p in self._or_default("patterns").split(",") if p.strip()))

    @property
    def batch_list(self) -> tuple[int, ...]:
        return _int_list("batch", self._or_default("batch"), 1_000_000)

    @property
    def width_list(self) -> tuple[int, ...]:
        return _int_list("width", self._or_default("width"), 4096)

    @property
    def device_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.strip() for d in self.device.split(",") if d.strip()))


Config = TypeVar("Config")


def from_dict(cls: type[Config], values: dict[str, Any]) -> Config:
    """Build a config from plain values (JSON, query params), rejecting unknown names clearly."""
    names = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise ConfigError(f"Unknown setting {unknown[0]!r}; known settings are {', '.join(names)}.", unknown[0])
    coerced = {k: _coerce(names[k], v) for k, v in values.items()}
    return cls(**coerced)


# Text a person typed is stored as typed but must be readable by everyone it is shown to: no terminal escapes
# or other control characters, no bidirectional overrides that reorder what follows, no undecodable bytes.
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


LABEL_MAX, NOTES_MAX = 200, 5000  # characters of a run's label and notes


def check_text(text: Any, what: str, max_length: int, *, multiline: bool = False) -> str:
    """User text (a label, notes) checked as stored: valid UTF-8, printable, at most ``max_length`` characters.
    Returns it without surrounding spaces, or raises one sentence."""
    if not isinstance(text, str):
        raise ConfigError(f"{what} must be text, not {type(text).__name__}.", what)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{what} must be valid UTF-8 text (it holds bytes that are not).", what) from None
    text = text.strip()
    if len(text) > max_length:
        raise ConfigError(f"{what} must be at most {max_length:,} characters, not {len(text):,}.", what)
    allowed = "\n\t" if multiline else ""
    for char in text:
        if (unicodedata.category(char) == "Cc" and char not in allowed) or char in _BIDI:
            raise ConfigError(f"{what} must be printable text, without control characters such as "
                              f"U+{ord(char):04X}.", what)
    return text


DIGITS = re.compile(r"[0-9]+", re.ASCII)
_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
                    re.ASCII | re.IGNORECASE)
MAX_ID = 2**63 - 1  # SQLite's largest integer


MAX_DIGITS = 4000  # Python refuses to read a number past 4,300 digits, with a traceback; below, bounds say more


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 40 else f"a {len(text):,}-character text"


def parse_int(text: str, label: str) -> int:
    """A whole number written in ASCII digits (``²`` or ``٣`` are not), or one sentence."""
    text = text.strip()
    if not _INT.fullmatch(text):
        raise ConfigError(f"{label} must be a whole number, not {_shown(text)}.", label)
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise ConfigError(f"{label} must be a whole number of at most {MAX_DIGITS:,} digits, not a "
                          f"{len(text.lstrip('+-')):,}-digit number.", label)
    return int(text)


def parse_float(text: str, label: str) -> float:
    """A number written in ASCII (``1e-3``, ``0.5``), or one sentence."""
    text = text.strip()
    if not _FLOAT.fullmatch(text):
        raise ConfigError(f"{label} must be a number, not {_shown(text)}.", label)
    if len(text) > MAX_DIGITS:
        raise ConfigError(f"{label} must be a number of at most {MAX_DIGITS:,} characters, not a "
                          f"{len(text):,}-character one.", label)
    return float(text)


def parse_id(text: str, what: str = "run") -> int:
    """A stored row's id from a link or the command line: ASCII digits, 1 to SQLite's largest integer."""
    text = text.strip()
    if not DIGITS.fullmatch(text) or len(text) > MAX_DIGITS or not 1 <= int(text) <= MAX_ID:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise ConfigError(f"{what} must be a {what} id like 3, not {shown!r}.", what)
    return int(text)


def _coerce(f: dataclasses.Field, value: Any) -> Any:
    """Turn strings (CLI, URL) into the field's type; leave other values to validation."""
    if not isinstance(value, str) or f.type in ("str", str):
        return value
    try:
        if f.type in ("int", int):
            return parse_int(value, label_of(f))
        if f.type in ("float", float):
            return parse_float(value, label_of(f))
    except ConfigError as e:
        raise ConfigError(str(e), f.name) from None
    return value
