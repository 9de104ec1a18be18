"""The PyTorch original: the book's Listing 3.8 loop (DQN with experience replay and a target network) as the book
writes it, on this project's Gridworld, timed and reported like the TensorFlow styles.

It is the yardstick the seed's question measures a TensorFlow port against, not a tuned loop: an
``nn.Sequential`` 64-150-100-4 network called on every move (exploring or not), a ``deque`` replay memory,
``random.sample``, ``torch.cat`` of the sampled states, the loss fetched with ``.item()`` every step, the target
network refreshed with ``load_state_dict``. Only what this project measures is added: the phases' times, the
reports, the book's win-rate test on the same game code. ``threads`` sets PyTorch's threads (0: its default).
"""

from __future__ import annotations

import copy
import io
import random
import time
from collections import deque
from dataclasses import asdict
from typing import Any

import numpy as np
import torch

from rlcore import gridworld as gw
from rlcore import report
from rlcore.book import N_ACTIONS, STATE_SIZE, TrainResult, book_test
from rlcore.config import DQNConfig

PHASES = ("env", "act", "replay", "train", "sync")


class TorchAgent:
    """The book's two networks and optimizer; ``q_values`` for the win-rate test and the replays."""

    def __init__(self, cfg: DQNConfig) -> None:
        torch.manual_seed(cfg.seed)
        self.online = torch.nn.Sequential(
            torch.nn.Linear(STATE_SIZE, cfg.hidden1), torch.nn.ReLU(),
            torch.nn.Linear(cfg.hidden1, cfg.hidden2), torch.nn.ReLU(),
            torch.nn.Linear(cfg.hidden2, N_ACTIONS))
        self.target = copy.deepcopy(self.online)
        self.target.load_state_dict(self.online.state_dict())
        self.loss_fn = torch.nn.MSELoss()
        self.optimizer = torch.optim.Adam(self.online.parameters(), lr=cfg.learning_rate)

    def q_values(self, states: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.online(torch.from_numpy(np.asarray(states, np.float32))).numpy()

    def model_bytes(self) -> bytes:
        """The network's weights as ``torch.save`` writes them (model.pt)."""
        buffer = io.BytesIO()
        torch.save(self.online.state_dict(), buffer)
        return buffer.getvalue()


def train(cfg: DQNConfig, reporter: report.Reporter | None = None, *, report_interval: float = 0.5) -> TrainResult:
    """The book's loop for ``cfg.epochs`` games; wall time excludes the win-rate tests, like every style."""
    if cfg.threads > 0:
        torch.set_num_threads(cfg.threads)
    reporter = reporter or report.NullReporter()
    env_seed, explore_seed, sample_seed = np.random.SeedSequence(cfg.seed).spawn(3)
    env = gw.Gridworld(cfg.mode, np.random.default_rng(env_seed))
    explore = random.Random(int(explore_seed.generate_state(1)[0]))
    sampler = random.Random(int(sample_seed.generate_state(1)[0]))
    agent = TorchAgent(cfg)
    model, model2, optimizer = agent.online, agent.target, agent.optimizer
    replay: deque[tuple[torch.Tensor, int, float, torch.Tensor, bool]] = deque(maxlen=cfg.memory_size)

    reporter.on_start(report.RunInfo("dqn", cfg.epochs, "games", asdict(cfg)))
    clock = time.perf_counter
    phases = report.PhaseClock(PHASES)
    window = report.Window(report.ENV_STEPS_PER_S)
    losses: deque[float] = deque(maxlen=100)
    history: list[tuple[int, float]] = []
    steps = games = 0
    eval_seconds = 0.0
    t_start = last_report = clock()

    def train_seconds() -> float:
        return clock() - t_start - eval_seconds

    def emit(win_rate: float | None = None, phase: str = "") -> bool:
        nonlocal last_report
        now = train_seconds()
        metrics = {report.GAMES: float(games), report.EPSILON: cfg.epsilon} | window.close(steps, now)
        if win_rate is not None:
            metrics[report.WIN_RATE] = win_rate
        metrics.update({report.PHASE_PREFIX + k: v for k, v in phases.seconds.items()})
        keep_going = reporter.on_record(report.Record(steps, now, metrics, games / cfg.epochs, phase))
        last_report = clock()
        phases.restart()
        return keep_going

    def test() -> float:
        nonlocal eval_seconds
        t = clock()
        win_rate = book_test(agent.q_values, cfg)
        eval_seconds += clock() - t
        history.append((games, win_rate))
        return win_rate

    stopped = not emit(phase=report.TRAINING)
    while games < cfg.epochs and not stopped:
        phases.restart()
        env.reset()
        state1 = torch.from_numpy(env.state(cfg.train_noise)[None].astype(np.float32))
        phases.lap("env")
        for _ in range(cfg.max_moves):
            steps += 1
            qval = model(state1)  # the book asks the network on every move, exploring or not
            qval_ = qval.data.numpy()
            action = explore.randrange(N_ACTIONS) if explore.random() < cfg.epsilon else int(np.argmax(qval_))
            phases.lap("act")

            reward = env.step(action)
            state2 = torch.from_numpy(env.state(cfg.train_noise)[None].astype(np.float32))
            phases.lap("env")

            replay.append((state1, action, reward, state2, reward > 0))
            state1 = state2
            if len(replay) > cfg.warmup:
                minibatch = sampler.sample(replay, cfg.batch_size)
                state1_batch = torch.cat([s1 for (s1, a, r, s2, d) in minibatch])
                action_batch = torch.Tensor([a for (s1, a, r, s2, d) in minibatch])
                reward_batch = torch.Tensor([r for (s1, a, r, s2, d) in minibatch])
                state2_batch = torch.cat([s2 for (s1, a, r, s2, d) in minibatch])
                done_batch = torch.Tensor([d for (s1, a, r, s2, d) in minibatch])
                phases.lap("replay")
                q1 = model(state1_batch)
                with torch.no_grad():
                    q2 = model2(state2_batch)
                y = reward_batch + cfg.gamma * ((1 - done_batch) * torch.max(q2, dim=1)[0])
                x = q1.gather(dim=1, index=action_batch.long().unsqueeze(dim=1)).squeeze()
                loss = agent.loss_fn(x, y.detach())
                optimizer.zero_grad()
                loss.backward()
                value = loss.item()  # the book appends every loss to a Python list
                losses.append(value)
                window.add_loss(value)
                optimizer.step()
                phases.lap("train")
                if steps % cfg.sync_every == 0:
                    model2.load_state_dict(model.state_dict())
                    phases.lap("sync")
            else:
                phases.lap("replay")
            if reward != gw.REWARD_STEP:
                break
            if clock() - last_report >= report_interval and not emit():
                stopped = True
                break
        if not stopped:
            games += 1
        if cfg.eval_every > 0 and games % cfg.eval_every == 0 and 0 < games < cfg.epochs:
            stopped = not emit(test()) or stopped
        elif clock() - last_report >= report_interval:
            stopped = not emit() or stopped

    total_seconds = train_seconds()
    emit(phase=report.TESTING)
    win_rate = test()
    emit(win_rate)
    result = TrainResult(
        config=asdict(cfg), steps=steps, games=games, train_seconds=total_seconds,
        steps_per_second=steps / total_seconds if total_seconds > 0 else 0.0,
        final_loss=float(np.mean(losses)) if losses else None, win_rate=win_rate,
        phase_seconds=dict(phases.seconds), eval_seconds=eval_seconds, stopped_early=stopped,
        win_rate_history=history, agent=agent)
    reporter.on_end(result.summary())
    return result


def summary_extra() -> dict[str, Any]:
    """PyTorch's version and threads, for the environment card."""
    return {"torch": torch.__version__, "torch_threads": torch.get_num_threads(),
            "torch_interop_threads": torch.get_num_interop_threads()}
