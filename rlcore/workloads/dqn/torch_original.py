"""The PyTorch original: the book's Listing 3.8 loop (DQN with experience replay and a target network) as the book
writes it, on this project's Gridworld, timed and reported like the TensorFlow styles.

It is the yardstick the seed's question measures a TensorFlow port against, not a tuned loop: an
``nn.Sequential`` 64-150-100-4 network called on every move (exploring or not), a ``deque`` replay memory,
``random.sample``, ``torch.cat`` of the sampled states, the loss fetched with ``.item()`` every step, the target
network refreshed with ``load_state_dict``. Only what this project measures is added: the phases' times, the
reports, the book's win-rate test on the same game code (``loop.train_book_loop``). ``threads`` sets PyTorch's
threads (0: its default).
"""

from __future__ import annotations

import copy
import io
import random
from collections import deque

import numpy as np
import torch

from rlcore.contract.reporting import Reporter
from rlcore.workloads.dqn import gridworld as gw
from rlcore.workloads.dqn.config import DQNConfig
from rlcore.workloads.dqn.loop import TrainResult, train_book_loop
from rlcore.workloads.dqn.win_rate import N_ACTIONS, STATE_SIZE


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


Transition = tuple[torch.Tensor, int, float, torch.Tensor, bool]


class TorchLearner:
    """The book's Listing 3.8 as written: the network asked on every move, a deque of tuples, random.sample,
    torch.cat, the loss fetched with ``.item()`` every step, ``load_state_dict`` for the target."""

    def __init__(self, cfg: DQNConfig, agent: TorchAgent) -> None:
        _, explore_seed, sample_seed = np.random.SeedSequence(cfg.seed).spawn(3)
        self.cfg, self.agent = cfg, agent
        self.explore = random.Random(int(explore_seed.generate_state(1)[0]))
        self.sampler = random.Random(int(sample_seed.generate_state(1)[0]))
        self.replay: deque[Transition] = deque(maxlen=cfg.memory_size)
        self.q_values = agent.q_values

    def state(self, env: gw.Gridworld) -> torch.Tensor:
        return torch.from_numpy(env.state(self.cfg.train_noise)[None].astype(np.float32))

    def act(self, state1: torch.Tensor) -> int:
        qval = self.agent.online(state1)  # the book asks the network on every move, exploring or not
        qval_ = qval.data.numpy()
        return self.explore.randrange(N_ACTIONS) if self.explore.random() < self.cfg.epsilon else int(np.argmax(qval_))

    def remember(self, s1: torch.Tensor, action: int, reward: float, s2: torch.Tensor) -> None:
        self.replay.append((s1, action, reward, s2, reward > 0))

    def ready(self) -> bool:
        return len(self.replay) > self.cfg.warmup

    def sample(self) -> tuple[torch.Tensor, ...]:
        minibatch = self.sampler.sample(self.replay, self.cfg.batch_size)
        return (torch.cat([s1 for (s1, a, r, s2, d) in minibatch]),
                torch.Tensor([a for (s1, a, r, s2, d) in minibatch]),
                torch.Tensor([r for (s1, a, r, s2, d) in minibatch]),
                torch.cat([s2 for (s1, a, r, s2, d) in minibatch]),
                torch.Tensor([d for (s1, a, r, s2, d) in minibatch]))

    def learn(self, batch: tuple[torch.Tensor, ...]) -> float:
        state1_batch, action_batch, reward_batch, state2_batch, done_batch = batch
        model, model2, optimizer = self.agent.online, self.agent.target, self.agent.optimizer
        q1 = model(state1_batch)
        with torch.no_grad():
            q2 = model2(state2_batch)
        y = reward_batch + self.cfg.gamma * ((1 - done_batch) * torch.max(q2, dim=1)[0])
        x = q1.gather(dim=1, index=action_batch.long().unsqueeze(dim=1)).squeeze()
        loss = self.agent.loss_fn(x, y.detach())
        optimizer.zero_grad()
        loss.backward()
        value = loss.item()  # the book appends every loss to a Python list
        optimizer.step()
        return value

    def sync(self) -> None:
        self.agent.target.load_state_dict(self.agent.online.state_dict())


def train(cfg: DQNConfig, reporter: Reporter | None = None, *, report_interval: float = 0.5) -> TrainResult:
    """The book's loop for ``cfg.epochs`` games; wall time excludes the win-rate tests, like every style."""
    if cfg.threads > 0:
        torch.set_num_threads(cfg.threads)
    return train_book_loop(cfg, TorchLearner(cfg, TorchAgent(cfg)), reporter, report_every=report_interval)
