"""The Gridworld DQN's settings: its styles, and one frozen config whose fields say which styles they apply to.

The book's loop (naive, eager, graph, xla in TensorFlow; pytorch, the book's own loop) reads the book's values;
turbo (the game and the loop in one compiled graph, many games at once) reads its own ``turbo_*`` settings.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

from rlcore.contract import params
from rlcore.contract.params import DEVICE_HELP, DEVICES, ConfigError, check_fields, param, profile_param
from rlcore.workloads.dqn.gridworld import MODES


class Style(StrEnum):
    """How the DQN trains: the book's loop in four TensorFlow styles, turbo, or the PyTorch original."""

    NAIVE = "naive"  # the seed's slow port: model.predict per move, eager step, Python-list gather
    EAGER = "eager"  # direct model call, tf.gather(batch_dims=1), eager step
    GRAPH = "graph"  # act and train step as tf.functions
    XLA = "xla"  # the same, compiled with XLA (jit_compile=True)
    TURBO = "turbo"  # the game and whole loop in one compiled graph, many games at once
    PYTORCH = "pytorch"  # the book's own loop in PyTorch: the yardstick the seed's port is measured against


STYLES = tuple(s.value for s in Style)
# The styles of the book's training loop in TensorFlow (one game at a time in Python, the network called per move)
TF_BOOK_STYLES = (Style.NAIVE.value, Style.EAGER.value, Style.GRAPH.value, Style.XLA.value)
# ... and the book's settings apply to the PyTorch original too.
BOOK_STYLES = (*TF_BOOK_STYLES, Style.PYTORCH.value)
TF_STYLES = (*TF_BOOK_STYLES, Style.TURBO.value)  # what TensorFlow's profiler can look into
# How TensorFlow runs a book style's act and train steps (the naive style's slowness is in how it calls them).
TF_RUN = {Style.NAIVE: "eager", Style.EAGER: "eager", Style.GRAPH: "graph", Style.XLA: "xla"}
TURBO = (Style.TURBO.value,)


# The book's DQN is small: TensorFlow's thread pools cost more than they share out. Measured through the worker
# (benchmarks/live_view_cost.py): the 600-game graph DQN ran 470 env steps/s on one thread against 400 on TensorFlow's
# default two, with less spread, and kept 96% of that with a live view open.
THREADS_HELP = (f"{params.THREADS_HELP} This small network runs fastest and steadiest on one, which leaves the other "
                "cores to the rest of the machine (a dashboard watching it included).")


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
                           "tuned loop; needs the frameworks extra).", choices=STYLES, flag="exec",
                           group="Execution", style=True)
    device: str = param("cpu", DEVICE_HELP, choices=DEVICES, group="Execution")
    # Turbo's 512 games at once keep TensorFlow's default (one thread per core): its ops are large enough to share.
    threads: int = param(1, THREADS_HELP, lo=0, hi=1024, advanced=True, styles=BOOK_STYLES, group="Execution")
    seed: int = param(0, "Seed of boards, noise, exploration, sampling and weights.", lo=0, hi=2**31 - 1,
                      group="Execution")
    profile: int = profile_param("Book loop: moves; turbo: calls of the compiled loop.", group="Execution",
                                 styles=TF_STYLES)
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
    turbo_pit_ends: bool = param(True, "A fall into the pit ends the value (done), as in most DQNs; the book "
                                 "marks only the goal as done.", advanced=True, styles=TURBO, group="Turbo")
    turbo_double: bool = param(True, "Double DQN targets (the online net picks, the target net values).",
                               advanced=True, styles=TURBO, group="Turbo")
    turbo_xla: bool = param(True, "Compile the loop with XLA.", advanced=True, styles=TURBO, group="Turbo")

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
    pit_ends: bool
    double: bool
    xla: bool

