"""Turbo's settings: the book's Gridworld and the book's test, trained by a second algorithm (double DQN, many games
at once, its own Adam and replay ring, the whole loop in one compiled graph), tuned for the fastest learning per
second rather than the book's values. One learning rate, one replay ring, one network: its own."""

from __future__ import annotations

from dataclasses import dataclass

from rlcore.contract.params import DEVICE_HELP, DEVICES, ConfigError, check_fields, param, profile_param
from rlcore.workloads.dqn.gridworld import MODES


@dataclass(frozen=True)
class TurboConfig:
    """Turbo's defaults: measured for the best win rate after a second of training on 2 cores (docs/performance.md)."""

    # Game and the book's test: the same as the book loop's
    mode: str = param("random", "Board set-up of every game: static, player or random.", choices=MODES,
                      group="Game")
    max_moves: int = param(51, "Moves at most per training game (the book's mov > 50 cut).", lo=1, hi=10_000,
                           group="Game")
    test_noise: float = param(0.1, "Scale of the state noise in the win-rate test (the book's /10).",
                              lo=0.0, hi=10.0, advanced=True, group="Evaluation")
    test_games: int = param(1000, "Games in the win-rate test.", lo=1, hi=1_000_000, advanced=True,
                            group="Evaluation")
    test_max_moves: int = param(16, "Moves at most per test game.", lo=1, hi=10_000, advanced=True,
                                group="Evaluation")
    test_average: bool = param(True, "The test (and the saved model) plays the target network: the online "
                               "net's weights averaged over its last ~1/tau updates (needs tau > 0); off: the online "
                               "net's last weights.", advanced=True, group="Evaluation")
    # Training
    train_seconds: float = param(1.0, "Training wall time in seconds (the trace and compile are timed apart).",
                                 lo=0.01, hi=86_400.0, group="Training")
    games: int = param(256, "Games played in parallel.", lo=1, hi=1_000_000, group="Training")
    updates: int = param(2, "Gradient updates per collected step (one move of every game).", lo=1, hi=1000,
                         advanced=True, group="Training")
    chunk: int = param(25, "Collected steps per compiled call (reports come between calls).", lo=1, hi=1_000_000,
                       advanced=True, group="Training")
    gamma: float = param(0.9, "Discount factor of the TD target.", lo=0.0, hi=1.0, group="Learning")
    learning_rate: float = param(1e-2, "Adam learning rate.", lo=1e-8, hi=1.0, flag="lr", group="Learning")
    hidden1: int = param(128, "Units of the first hidden layer.", lo=1, hi=4096, advanced=True, group="Learning")
    hidden2: int = param(64, "Units of the second hidden layer.", lo=1, hi=4096, advanced=True, group="Learning")
    noise: float = param(0.1, "Scale of the training state noise (the book trains with 0.01 but tests with 0.1; "
                         "turbo trains as it is tested).", lo=0.0, hi=10.0, advanced=True, group="Learning")
    double: bool = param(True, "Double DQN targets (the online net picks, the target net values).", advanced=True,
                         group="Learning")
    pit_ends: bool = param(True, "A fall into the pit ends the value (done), as in most DQNs; the book marks only "
                           "the goal as done.", advanced=True, group="Learning")
    eps_start: float = param(1.0, "Exploration rate at the start.", lo=0.0, hi=1.0, advanced=True, group="Learning")
    eps_end: float = param(0.01, "Exploration rate after the decay.", lo=0.0, hi=1.0, advanced=True, group="Learning")
    eps_steps: int = param(200, "Collected steps over which exploration decays linearly.", lo=0, hi=100_000_000,
                           advanced=True, group="Learning")
    # Replay and target network
    batch: int = param(256, "Transitions per gradient update, sampled with replacement.", lo=1, hi=1_000_000,
                       group="Replay and target network")
    memory: int = param(50_000, "Replay ring capacity in transitions.", lo=1, hi=100_000_000,
                        group="Replay and target network")
    tau: float = param(0.01, "Soft target: each update moves the target network this fraction of the way to the "
                       "online one (Polyak averaging, as in DDPG and SAC); 0 copies it whole every `sync` updates.",
                       lo=0.0, hi=1.0, advanced=True, group="Replay and target network")
    sync: int = param(25, "With tau 0: copy online weights to the target every this many updates.", lo=1,
                      hi=10_000_000, advanced=True, group="Replay and target network")
    # Execution. Its 256 games at once keep TensorFlow's default threads (one per core): its ops are large enough
    # to share, so it has no threads setting.
    xla: bool = param(True, "Compile the loop with XLA.", advanced=True, group="Execution")
    device: str = param("cpu", DEVICE_HELP, choices=DEVICES, group="Execution")
    seed: int = param(0, "Seed of boards, noise, exploration, sampling and weights.", lo=0, hi=2**31 - 1,
                      group="Execution")
    profile: int = profile_param("Calls of the compiled loop.", group="Execution")

    def __post_init__(self) -> None:
        check_fields(self)
        if self.batch > self.memory:
            raise ConfigError(f"batch must not exceed memory ({self.batch:,} > {self.memory:,}).", "batch")
        if self.test_average and not self.tau:
            raise ConfigError("test_average needs tau > 0 (with tau 0 the target is a whole copy, not an average); "
                              "turn test_average off or set tau.", "test_average")
