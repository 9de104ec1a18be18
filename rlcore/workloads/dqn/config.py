"""The Gridworld DQN's settings: its styles (the book's loop in naive, eager, graph, xla TensorFlow, and pytorch, the
book's own loop) and one frozen config of the book's values. Turbo, a second algorithm on the same game, has its own
(``rlcore.workloads.dqn.turbo.config``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rlcore.contract import params
from rlcore.contract.params import DEVICE_HELP, DEVICES, ConfigError, check_fields, param, profile_param
from rlcore.workloads.dqn.gridworld import MODES


class Style(StrEnum):
    """How the DQN trains: the book's loop in four TensorFlow styles or the PyTorch original."""

    NAIVE = "naive"  # the seed's slow port: model.predict per move, eager step, Python-list gather
    EAGER = "eager"  # direct model call, tf.gather(batch_dims=1), eager step
    GRAPH = "graph"  # act and train step as tf.functions, one call a training move (the train call also acts)
    XLA = "xla"  # the same, compiled with XLA (jit_compile=True)
    PYTORCH = "pytorch"  # the book's own loop in PyTorch: the yardstick the seed's port is measured against


STYLES = tuple(s.value for s in Style)
# The styles of the book's training loop in TensorFlow (one game at a time in Python, the network called per move):
# what TensorFlow's profiler can look into
TF_BOOK_STYLES = (Style.NAIVE.value, Style.EAGER.value, Style.GRAPH.value, Style.XLA.value)
# How TensorFlow runs a book style's act and train steps (the naive style's slowness is in how it calls them).
TF_RUN = {Style.NAIVE: "eager", Style.EAGER: "eager", Style.GRAPH: "graph", Style.XLA: "xla"}
# turbo was a style of this workload until store version 11; a workload of its own now (rlcore.workloads.dqn.turbo)
MOVED_STYLE = "turbo"
TURBO_MOVED = ("turbo is a workload of its own now: the Gridworld DQN, turbo page, or `rlcore turbo` (its settings "
               "without the turbo_ prefix: turbo_games is games, turbo_lr is lr).")


# The book's DQN is small: TensorFlow's thread pools cost more than they share out. Measured through the worker
# (benchmarks/live_view_cost.py): the 600-game graph DQN ran 470 env steps/s on one thread against 400 on TensorFlow's
# default two, with less spread, and kept 96% of that with a live view open.
THREADS_HELP = (f"{params.THREADS_HELP} This small network runs fastest and steadiest on one, which leaves the other "
                "cores to the rest of the machine (a dashboard watching it included).")


@dataclass(frozen=True)
class DQNConfig:
    """The book's final chapter-3 DQN (replay + target network); defaults are the book's values.

    Every field applies to every style but ``profile`` (TensorFlow's profiler: not the PyTorch original).
    """

    # Game
    mode: str = param("random", "Board set-up of every game: static, player or random.", choices=MODES,
                      group="Game")
    epochs: int = param(5000, "Games to train for (one epoch = one game).", lo=1, hi=10_000_000,
                        group="Game")
    max_moves: int = param(51, "Moves at most per training game (the book's mov > 50 cut).", lo=1, hi=10_000,
                           group="Game")
    # Learning
    gamma: float = param(0.9, "Discount factor of the TD target.", lo=0.0, hi=1.0, group="Learning")
    epsilon: float = param(0.3, "Constant exploration rate of the epsilon-greedy policy.", lo=0.0, hi=1.0,
                           group="Learning")
    learning_rate: float = param(1e-3, "Adam learning rate.", lo=1e-8, hi=1.0, flag="lr",
                                 group="Learning")
    hidden1: int = param(150, "Units of the first hidden layer.", lo=1, hi=4096, advanced=True,
                         group="Learning")
    hidden2: int = param(100, "Units of the second hidden layer.", lo=1, hi=4096, advanced=True,
                         group="Learning")
    # Replay and target network
    memory_size: int = param(1000, "Replay memory capacity (FIFO).", lo=1, hi=10_000_000, flag="memory",
                             group="Replay and target network")
    batch_size: int = param(200, "Transitions per gradient step, sampled without replacement.", lo=1,
                            hi=1_000_000, flag="batch", group="Replay and target network")
    sync_every: int = param(500, "Copy online weights to the target every this many steps (checked on "
                            "training steps).", lo=1, hi=10_000_000, flag="sync",
                            group="Replay and target network")
    train_noise: float = param(0.01, "Scale of the uniform noise added to training states (the book's /100).",
                               lo=0.0, hi=10.0, advanced=True,
                               group="Replay and target network")
    # Evaluation: the book's test
    test_noise: float = param(0.1, "Scale of the state noise in the win-rate test (the book's /10).",
                              lo=0.0, hi=10.0, advanced=True, group="Evaluation")
    test_games: int = param(1000, "Games in the win-rate test.", lo=1, hi=1_000_000, advanced=True,
                            group="Evaluation")
    test_max_moves: int = param(16, "Moves at most per test game.", lo=1, hi=10_000, advanced=True,
                                group="Evaluation")
    eval_every: int = param(1000, "Run the win-rate test every this many games during training (0 = only "
                            "at the end).", lo=0, hi=10_000_000, advanced=True,
                            group="Evaluation")
    # Execution
    exec_mode: str = param("graph", "Execution style: naive, eager, graph, xla (the book's loop in TensorFlow), "
                           "or pytorch (the book's own loop in PyTorch, as the book writes it: the yardstick, not a "
                           "tuned loop; needs the frameworks extra).", choices=STYLES, flag="exec",
                           group="Execution", style=True)
    device: str = param("cpu", DEVICE_HELP, choices=DEVICES, group="Execution")
    threads: int = param(1, THREADS_HELP, lo=0, hi=1024, advanced=True, group="Execution")
    seed: int = param(0, "Seed of boards, noise, exploration, sampling and weights.", lo=0, hi=2**31 - 1,
                      group="Execution")
    profile: int = profile_param("Moves of the book's loop.", group="Execution",
                                 styles=TF_BOOK_STYLES)

    def __post_init__(self) -> None:
        if self.exec_mode == MOVED_STYLE:
            raise ConfigError(TURBO_MOVED, "exec_mode")
        check_fields(self)
        if self.batch_size > self.memory_size:
            raise ConfigError(
                f"batch must not exceed memory ({self.batch_size:,} > {self.memory_size:,}): "
                "the batch is drawn without replacement from the replay memory.", "batch_size")
        elif self.profile and self.profile > self.most_training_moves:
            raise ConfigError(f"profile must not exceed the training moves this run can have "
                              f"({self.profile:,} > {self.most_training_moves:,}: {self.epochs:,} games of at most "
                              f"{self.max_moves:,} moves, after {self.warmup:,} moves filling the memory).",
                              "profile")

    @property
    def most_training_moves(self) -> int:
        """The most moves that train in the book's loop: every game at its longest, after the replay warm-up."""
        return max(0, self.epochs * self.max_moves - self.warmup - 1)

    @property
    def warmup(self) -> int:
        """Training starts once more than this many transitions are stored (the book's strict >)."""
        return self.batch_size
