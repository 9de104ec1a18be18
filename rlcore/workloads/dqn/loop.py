"""The book's loop of games, whatever framework learns: each move a step of the run (its phases timed), the
win-rate test every ``eval_every`` games and at the end, off the clock, and the result every DQN trainer returns.
A framework plays it through a ``BookLearner`` (how it acts, remembers and learns): TensorFlow's four styles
(``tf_styles``) and the PyTorch original (``torch_original``)."""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

import numpy as np

from rlcore.contract.reporting import TESTING, TRAINING, Reporter
from rlcore.tracking.run import TrainingRun
from rlcore.workloads.dqn import gridworld as gw
from rlcore.workloads.dqn.config import DQNConfig
from rlcore.workloads.dqn.metrics import ENV_STEPS_PER_S, EPSILON, GAMES, WIN_RATE
from rlcore.workloads.dqn.win_rate import book_test

PHASES = ("env", "act", "replay", "train", "sync")  # where a move's time goes, in every framework


@dataclass
class TrainResult:
    """What a DQN training returns, whichever loop ran it; ``summary()`` is what the run stores."""

    config: dict[str, Any]
    steps: int
    games: int
    train_seconds: float
    steps_per_second: float
    final_loss: float | None
    win_rate: float
    phase_seconds: dict[str, float]
    eval_seconds: float
    stopped_early: bool
    win_rate_history: list[tuple[int, float]] = field(default_factory=list)  # (games, win rate)
    profile: dict[str, Any] | None = None  # what TensorFlow's profiler saw in the profiled window (tracking.profiling)
    system: dict[str, Any] | None = None  # what the machine did meanwhile (tracking.system_metrics)
    agent: Any = field(default=None, repr=False)  # has .online (the Q-network) and .q_values
    # The move whose training call was the first: a compiled style's graph is set up then (TensorFlow optimizes and
    # builds its executor at a concrete function's first call), so it is timed apart and left out of the speed, in
    # every style alike (a short run's speed is its steady state, not its set-up).
    first_train_call_seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        """JSON-ready record of the run (everything but the agent)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "agent"}


class BookLearner(Protocol):
    """One framework's side of the book's loop: its agent, replay memory and how it acts and learns."""

    agent: Any

    def state(self, env: gw.Gridworld) -> Any:
        """The env's state as this framework feeds it to its network (with the config's training noise)."""

    def act(self, state: Any) -> int:
        """The move to make: epsilon-greedy, as this framework's loop writes it."""

    def remember(self, s1: Any, action: int, reward: float, s2: Any) -> None:
        """Keep the transition (done only on reaching the goal, as the book)."""

    def ready(self) -> bool:
        """Whether the memory holds more than a batch (the book's strict >)."""

    def sample(self) -> Any:
        """A batch drawn from the memory."""

    def learn(self, batch: Any) -> Any:
        """One gradient step; its loss (a tensor is fetched only when reported)."""

    def sync(self) -> None:
        """Copy the online network to the target."""

    def q_values(self, states: np.ndarray) -> np.ndarray:
        """Q-values of a (B, 64) batch, for the win-rate test."""


def train_book_loop(cfg: DQNConfig, learner: BookLearner, reporter: Reporter | None = None, *,
                    report_every: float = 0.5) -> TrainResult:
    """The book's loop for ``cfg.epochs`` games, whatever framework learns: each move a step of the run (the phases
    timed), a win-rate test every ``eval_every`` games and at the end, off the clock; a profile of ``cfg.profile``
    moves once training has begun (the first train calls trace)."""
    env_seed = np.random.SeedSequence(cfg.seed).spawn(3)[0]
    env = gw.Gridworld(cfg.mode, np.random.default_rng(env_seed))
    games = 0
    run = TrainingRun(reporter, kind="dqn", unit="games", total=cfg.epochs, config=asdict(cfg),
                      rate_key=ENV_STEPS_PER_S, report_every=report_every, profile=cfg.profile,
                      profile_after=cfg.warmup + 3, progress=lambda run: games / cfg.epochs,
                      every_record=lambda: {GAMES: float(games), EPSILON: cfg.epsilon})
    run.declare_phases(*PHASES)
    last_losses: deque[Any] = deque(maxlen=100)
    history: list[tuple[int, float]] = []

    def test() -> float:
        with run.off_clock():
            win_rate = book_test(learner.q_values, cfg)
        history.append((games, win_rate))
        return win_rate

    def record(win_rate: float | None = None, phase: str = "") -> bool:
        return run.emit({WIN_RATE: win_rate} if win_rate is not None else None, phase=phase)

    run.start(TRAINING)
    trained = False
    while games < cfg.epochs and not run.stopped:
        with run.phase("env"):
            env.reset()
            s1 = learner.state(env)
        for _ in range(cfg.max_moves):
            step = run.step(report=False)  # reports between moves of a game that goes on, as the book's loop prints
            with step:
                with run.phase("act"):
                    action = learner.act(s1)
                with run.phase("env"):
                    reward = env.step(action)
                    s2 = learner.state(env)
                with run.phase("replay"):
                    learner.remember(s1, action, reward, s2)
                    s1 = s2
                    batch = learner.sample() if learner.ready() else None
                if batch is not None:
                    with run.phase("train"):
                        loss = learner.learn(batch)
                        run.add_loss(loss)
                        last_losses.append(loss)
                    if not trained:  # the first training call sets its graph up: timed apart (see TrainResult)
                        step.compiles = trained = True
                    if (run.steps + 1) % cfg.sync_every == 0:  # this move's number: the run counts it at its end
                        with run.phase("sync"):
                            learner.sync()
            if reward != gw.REWARD_STEP or not run.tick():
                break
        if not run.stopped:
            games += 1
        if cfg.eval_every > 0 and games % cfg.eval_every == 0 and 0 < games < cfg.epochs:
            record(test())
        elif run.record_due:
            record()

    train_seconds = run.stop_clock()
    record(phase=TESTING)
    win_rate = test()
    profile = run.read_profile(train_seconds=train_seconds)
    record(win_rate)
    result = TrainResult(
        config=asdict(cfg), steps=run.steps, games=games, train_seconds=train_seconds,
        steps_per_second=run.steps_per_second, win_rate=win_rate,
        final_loss=float(np.mean([float(x) for x in last_losses])) if last_losses else None,
        phase_seconds=dict(run.phase_seconds), eval_seconds=run.off_clock_seconds, stopped_early=run.stopped,
        win_rate_history=history, profile=profile, agent=learner.agent,
        first_train_call_seconds=run.compile_seconds)
    result.system = run.finish(result.summary()).get("system")
    return result
