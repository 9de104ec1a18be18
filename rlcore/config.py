"""Run configurations: frozen dataclasses, their bounds and defaults, and validation.

This module is the single source of defaults and bounds. The CLI builds its flags from the field
metadata here, and later the dashboard's forms and URL parsing will too, so a value is checked the
same way wherever it comes from. Every invalid value raises ``ConfigError`` with one sentence.
"""

from __future__ import annotations

import dataclasses
import math
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
    exec_mode: str = param("graph", "Execution style: naive, eager, graph or xla.", choices=EXEC_MODES,
                           flag="exec")
    device: str = param("cpu", "Device: cpu or gpu (gpu fails clearly when TensorFlow sees none).",
                        choices=DEVICES)
    seed: int = param(0, "Seed of boards, noise, exploration, sampling and weights.", lo=0, hi=2**31 - 1)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.batch_size > self.memory_size:
            raise ConfigError(
                f"batch must not exceed memory ({self.batch_size} > {self.memory_size}): "
                "the batch is drawn without replacement from the replay memory."
            )

    @property
    def warmup(self) -> int:
        """Training starts once more than this many transitions are stored (the book's strict >)."""
        return self.batch_size


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


def to_dict(cfg: Any) -> dict[str, Any]:
    return dataclasses.asdict(cfg)
