"""Run configurations: frozen dataclasses, their bounds and defaults, and validation.

This module is the single source of defaults and bounds. The CLI builds its flags from the field
metadata here, and later the dashboard's forms and URL parsing will too, so a value is checked the
same way wherever it comes from. Every invalid value raises ``ConfigError`` with one sentence.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rlcore.execution import DEVICES, EXEC_MODES
from rlcore.gridworld import MODES


class ConfigError(ValueError):
    """An invalid configuration value; the message is one sentence meant for the user."""


def param(
    default: Any,
    help: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] | None = None,
    flag: str | None = None,
    advanced: bool = False,
) -> Any:
    """A config field with its help text, inclusive bounds or choices, and CLI flag name."""
    meta = {"help": help, "lo": lo, "hi": hi, "choices": choices, "flag": flag, "advanced": advanced}
    return field(default=default, metadata=meta)


def _check_field(f: dataclasses.Field, value: Any) -> None:
    meta = f.metadata
    label = meta.get("flag") or f.name
    if f.type in ("str", str) and meta.get("choices") is None:
        if not isinstance(value, str):
            raise ConfigError(f"{label} must be text, not {value!r}.")
        return  # free text (such as a comma-separated list) is checked by its config's __post_init__
    if meta.get("choices") is not None:
        if value not in meta["choices"]:
            raise ConfigError(f"{label} must be one of {', '.join(meta['choices'])}, not {value!r}.")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{label} must be a number, not {value!r}.")
    if f.type in ("int", int) and not isinstance(value, int):
        raise ConfigError(f"{label} must be a whole number, not {value!r}.")
    if not math.isfinite(value):
        raise ConfigError(f"{label} must be a finite number, not {value!r}.")
    lo, hi = meta.get("lo"), meta.get("hi")
    if lo is not None and value < lo:
        raise ConfigError(f"{label} must be at least {lo:g}, not {value:g}.")
    if hi is not None and value > hi:
        raise ConfigError(f"{label} must be at most {hi:g}, not {value:g}.")


def check_fields(cfg: Any) -> None:
    """Check every field of a config dataclass against its metadata (bounds, choices, type)."""
    for f in dataclasses.fields(cfg):
        _check_field(f, getattr(cfg, f.name))


DQN_EXEC_MODES = (*EXEC_MODES, "turbo")


@dataclass(frozen=True)
class DQNConfig:
    """The book's final chapter-3 DQN (replay + target network); defaults are the book's values."""

    # Game
    mode: str = param("random", "Board set-up of every game: static, player or random.", choices=MODES)
    epochs: int = param(5000, "Games to train for (one epoch = one game).", lo=1, hi=10_000_000)
    max_moves: int = param(51, "Moves at most per training game (the book's mov > 50 cut).", lo=1, hi=10_000)
    # Learning
    gamma: float = param(0.9, "Discount factor of the TD target.", lo=0.0, hi=1.0)
    epsilon: float = param(0.3, "Constant exploration rate of the epsilon-greedy policy.", lo=0.0, hi=1.0)
    learning_rate: float = param(1e-3, "Adam learning rate.", lo=1e-8, hi=1.0, flag="lr")
    hidden1: int = param(150, "Units of the first hidden layer.", lo=1, hi=4096, advanced=True)
    hidden2: int = param(100, "Units of the second hidden layer.", lo=1, hi=4096, advanced=True)
    # Replay and target network
    memory_size: int = param(1000, "Replay memory capacity (FIFO).", lo=1, hi=10_000_000, flag="memory")
    batch_size: int = param(200, "Transitions per gradient step, sampled without replacement.", lo=1,
                            hi=1_000_000, flag="batch")
    sync_every: int = param(500, "Copy online weights to the target every this many steps (checked on "
                            "training steps).", lo=1, hi=10_000_000, flag="sync")
    train_noise: float = param(0.01, "Scale of the uniform noise added to training states (the book's /100).",
                               lo=0.0, hi=10.0, advanced=True)
    # Evaluation: the book's test
    test_noise: float = param(0.1, "Scale of the state noise in the win-rate test (the book's /10).",
                              lo=0.0, hi=10.0, advanced=True)
    test_games: int = param(1000, "Games in the win-rate test.", lo=1, hi=1_000_000, advanced=True)
    test_max_moves: int = param(16, "Moves at most per test game.", lo=1, hi=10_000, advanced=True)
    eval_every: int = param(1000, "Run the win-rate test every this many games during training (0 = only "
                            "at the end).", lo=0, hi=10_000_000, advanced=True)
    # Execution
    exec_mode: str = param("graph", "Execution style: naive, eager, graph, xla, or turbo (game and loop in one "
                           "compiled graph, many games at once; trains for train_seconds).", choices=DQN_EXEC_MODES,
                           flag="exec")
    device: str = param("cpu", "Device: cpu or gpu (gpu fails clearly when TensorFlow sees none).",
                        choices=DEVICES)
    seed: int = param(0, "Seed of boards, noise, exploration, sampling and weights.", lo=0, hi=2**31 - 1)
    # Turbo (exec turbo only): tuned for the fastest learning per second, not the book's values.
    train_seconds: float = param(0.0, "Turbo: training wall time in seconds (0 = 1 s); epochs and eval_every "
                                 "do not apply.", lo=0.0, hi=86_400.0, advanced=True)
    turbo_games: int = param(512, "Turbo: games played in parallel.", lo=1, hi=1_000_000, advanced=True)
    turbo_updates: int = param(2, "Turbo: gradient updates per collected step (one move of every game).", lo=1,
                               hi=1000, advanced=True)
    turbo_chunk: int = param(25, "Turbo: collected steps per compiled call (reports come between calls).", lo=1,
                             hi=1_000_000, advanced=True)
    turbo_batch: int = param(256, "Turbo: transitions per gradient update, sampled with replacement.", lo=1,
                             hi=1_000_000, advanced=True)
    turbo_memory: int = param(50_000, "Turbo: replay ring capacity in transitions.", lo=1, hi=100_000_000,
                              advanced=True)
    turbo_hidden1: int = param(64, "Turbo: units of the first hidden layer.", lo=1, hi=4096, advanced=True)
    turbo_hidden2: int = param(64, "Turbo: units of the second hidden layer.", lo=1, hi=4096, advanced=True)
    turbo_lr: float = param(1e-2, "Turbo: Adam learning rate.", lo=1e-8, hi=1.0, advanced=True)
    turbo_noise: float = param(0.1, "Turbo: scale of the training state noise (the book trains with 0.01 but "
                               "tests with 0.1; turbo trains as it is tested).", lo=0.0, hi=10.0, advanced=True)
    turbo_sync: int = param(25, "Turbo: copy online weights to the target every this many updates.", lo=1,
                            hi=10_000_000, advanced=True)
    turbo_eps_start: float = param(1.0, "Turbo: exploration rate at the start.", lo=0.0, hi=1.0, advanced=True)
    turbo_eps_end: float = param(0.01, "Turbo: exploration rate after the decay.", lo=0.0, hi=1.0, advanced=True)
    turbo_eps_steps: int = param(200, "Turbo: collected steps over which exploration decays linearly.", lo=0,
                                 hi=100_000_000, advanced=True)
    turbo_pit_ends: str = param("on", "Turbo: a fall into the pit ends the value (done), as in most DQNs; the book "
                                "marks only the goal as done.", choices=("on", "off"), advanced=True)
    turbo_double: str = param("on", "Turbo: Double DQN targets (the online net picks, the target net values).",
                              choices=("on", "off"), advanced=True)
    turbo_xla: str = param("on", "Turbo: compile the loop with XLA.", choices=("on", "off"), advanced=True)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.exec_mode == "turbo" and self.turbo_batch > self.turbo_memory:
            raise ConfigError(f"turbo_batch must not exceed turbo_memory ({self.turbo_batch} > "
                              f"{self.turbo_memory}).")
        if self.batch_size > self.memory_size:
            raise ConfigError(
                f"batch must not exceed memory ({self.batch_size} > {self.memory_size}): "
                "the batch is drawn without replacement from the replay memory."
            )

    @property
    def warmup(self) -> int:
        """Training starts once more than this many transitions are stored (the book's strict >)."""
        return self.batch_size


HJB_EXEC_MODES = ("eager", "graph", "xla")
DERIVATIVES = ("tape", "tangent")
LR_SCHEDULES = ("constant", "exponential", "cosine")
DTYPES = ("float32", "float64")
SAMPLINGS = ("uniform", "mixed")


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
    seed: int = param(1234, "Seed of the weights and the sampled k.", lo=0, hi=2**31 - 1)
    # Accuracy reports
    eval_every: int = param(5000, "Measure the error against the exact solution every this many steps "
                            "(0 = only at the end).", lo=0, hi=1_000_000_000, advanced=True)
    eval_points: int = param(200, "Grid points of k for the error.", lo=2, hi=1_000_000, advanced=True)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.gamma == 1.0:
            raise ConfigError("gamma must not be 1: that is log utility, which u(c) = c^(1-gamma)/(1-gamma) "
                              "does not cover.")
        if self.k_min <= 0:
            raise ConfigError(f"k_min must be positive, not {self.k_min:g}.")
        if self.k_min >= self.k_max:
            raise ConfigError(f"k_min must be below k_max ({self.k_min:g} >= {self.k_max:g}).")
        if self.exec_mode == "eager" and self.steps_per_call > 1:
            raise ConfigError("steps_per_call above 1 needs a compiled style (graph or xla): eager runs one "
                              "Python step at a time.")
        if self.lr_schedule != "constant" and self.lr_final > self.learning_rate:
            raise ConfigError(f"lr_final must not exceed lr when the rate decays ({self.lr_final:g} > "
                              f"{self.learning_rate:g}).")


# Named starting points; explicit values override them.
HJB_PRESETS: dict[str, dict[str, Any]] = {
    "seed": {},
    # Measured on 2 cores: max rel err V 0.001%, c 0.013% in about 64 s, under the seed's 100k steps
    # (about 80 s). Larger batch and a decaying rate stop Adam's wandering; float64 and the L-BFGS polish
    # take it the last order of magnitude; the compiled K-step tangent style pays for it all.
    "accurate": {
        "batch_size": 1000, "lr_schedule": "cosine", "learning_rate": 1e-3, "lr_final": 1e-5, "steps": 120_000,
        "dtype": "float64", "exec_mode": "xla", "derivative": "tangent", "steps_per_call": 1000,
        "polish_iters": 1000, "eval_every": 20_000,
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
}
BENCH_DEFAULTS: dict[str, dict[str, str]] = {
    "dqn-act": {"patterns": "predict,eager,tf-function,xla", "batch": "1", "width": "150"},
    "dqn-train": {"patterns": "naive,eager,graph,xla", "batch": "200", "width": "150"},
    "hjb-step": {"patterns": "eager,graph,xla,graph-k100,xla-k100", "batch": "100", "width": "8"},
}
K_STEPS_PATTERN = re.compile(r"^(graph|xla)-k([1-9][0-9]{0,6})$")


def _int_list(label: str, text: str, hi: int) -> tuple[int, ...]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() and 1 <= int(p) <= hi for p in parts):
        raise ConfigError(f"{label} must be whole numbers from 1 to {hi:,} separated by commas, like 1,100,10000, "
                          f"not {text!r}.")
    return tuple(dict.fromkeys(int(p) for p in parts))


@dataclass(frozen=True)
class BenchConfig:
    """A benchmark: patterns of one workload, timed over batch sizes, widths and devices."""

    workload: str = param("dqn-act", "What one call does: dqn-act (pick actions), dqn-train (one DQN training "
                          "step) or hjb-step (one HJB training step).", choices=tuple(BENCH_PATTERNS))
    patterns: str = param("", "Comma-separated patterns; empty = all of the workload's. dqn-act: predict, eager, "
                          "tf-function, xla; dqn-train: naive, eager, graph, xla; hjb-step: eager, graph, xla, "
                          "graph-kN, xla-kN (N steps per call).")
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

    def __post_init__(self) -> None:
        check_fields(self)
        for name in self.pattern_list:
            k_steps = self.workload == "hjb-step" and K_STEPS_PATTERN.match(name)
            if name not in BENCH_PATTERNS[self.workload] and not k_steps:
                raise ConfigError(f"patterns must be among {', '.join(BENCH_PATTERNS[self.workload])} for "
                                  f"{self.workload}, not {name!r}.")
        if not self.pattern_list:
            raise ConfigError(f"patterns must name at least one of {', '.join(BENCH_PATTERNS[self.workload])}.")
        _ = self.batch_list, self.width_list
        devices = self.device_list
        if not devices or any(d not in DEVICES for d in devices):
            raise ConfigError(f"device must be cpu, gpu or cpu,gpu, not {self.device!r}.")

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
        raise ConfigError(f"Unknown setting {unknown[0]!r}; known settings are {', '.join(names)}.")
    coerced = {k: _coerce(names[k], v) for k, v in values.items()}
    return cls(**coerced)


def _coerce(f: dataclasses.Field, value: Any) -> Any:
    """Turn strings (CLI, URL) into the field's type; leave other values to validation."""
    label = f.metadata.get("flag") or f.name
    if not isinstance(value, str) or f.type in ("str", str):
        return value
    try:
        if f.type in ("int", int):
            return int(value)
        if f.type in ("float", float):
            return float(value)
    except ValueError:
        kind = "a whole number" if f.type in ("int", int) else "a number"
        raise ConfigError(f"{label} must be {kind}, not {value!r}.") from None
    return value
