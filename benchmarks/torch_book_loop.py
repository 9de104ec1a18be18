"""The book's chapter-3 loop (Listing 3.8) as plain PyTorch, the yardstick for the TF styles.

This is the code the seed's asker started from: deque replay, random.sample, torch.cat batches,
nn.Sequential 64-150-100-4, on this project's numpy Gridworld (same rules as the book's).
PyTorch is not a project dependency; run it from an environment that has it:

    python -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch==2.13.0 numpy
    PYTHONPATH=. /tmp/torchvenv/bin/python benchmarks/torch_book_loop.py --epochs 5000 --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rlcore.gridworld import REWARD_STEP, Gridworld, flat_indices


def book_state(game: Gridworld, noise: float) -> np.ndarray:
    x = np.zeros(64, np.float32)
    x[list(flat_indices(game.board))] = 1.0
    return (x + np.random.rand(64) * noise).astype(np.float32).reshape(1, 64)


def run(epochs: int, seed: int, threads: int | None) -> dict:
    import torch

    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, 150), torch.nn.ReLU(), torch.nn.Linear(150, 100),
                                torch.nn.ReLU(), torch.nn.Linear(100, 4))
    model2 = copy.deepcopy(model)
    model2.load_state_dict(model.state_dict())
    loss_fn = torch.nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    gamma, epsilon, mem_size, batch_size, max_moves, sync_freq = 0.9, 0.3, 1000, 200, 50, 500
    replay: deque = deque(maxlen=mem_size)
    rng = np.random.default_rng(seed)
    j = 0
    start = time.perf_counter()
    for _ in range(epochs):
        game = Gridworld("random", rng)
        state1 = torch.from_numpy(book_state(game, 0.01))
        status, mov = 1, 0
        while status == 1:
            j += 1
            mov += 1
            qval = model(state1).data.numpy()
            action = np.random.randint(0, 4) if random.random() < epsilon else int(np.argmax(qval))
            reward = game.step(action)
            state2 = torch.from_numpy(book_state(game, 0.01))
            done = reward > 0
            replay.append((state1, action, reward, state2, done))
            state1 = state2
            if len(replay) > batch_size:
                minibatch = random.sample(replay, batch_size)
                state1_batch = torch.cat([s1 for (s1, a, r, s2, d) in minibatch])
                action_batch = torch.Tensor([a for (s1, a, r, s2, d) in minibatch])
                reward_batch = torch.Tensor([r for (s1, a, r, s2, d) in minibatch])
                state2_batch = torch.cat([s2 for (s1, a, r, s2, d) in minibatch])
                done_batch = torch.Tensor([d for (s1, a, r, s2, d) in minibatch])
                q1 = model(state1_batch)
                with torch.no_grad():
                    q2 = model2(state2_batch)
                y = reward_batch + gamma * ((1 - done_batch) * torch.max(q2, dim=1)[0])
                x = q1.gather(dim=1, index=action_batch.long().unsqueeze(dim=1)).squeeze()
                loss = loss_fn(x, y.detach())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if j % sync_freq == 0:
                    model2.load_state_dict(model.state_dict())
            if reward != REWARD_STEP or mov > max_moves:
                status = 0
    train_seconds = time.perf_counter() - start
    wins = 0
    with torch.no_grad():
        for _ in range(1000):
            game = Gridworld("random", rng)
            for _move in range(16):
                a = int(np.argmax(model(torch.from_numpy(book_state(game, 0.1))).numpy()))
                r = game.step(a)
                if r != REWARD_STEP:
                    wins += r > 0
                    break
    return {"seed": seed, "steps": j, "train_seconds": train_seconds, "steps_per_second": j / train_seconds,
            "win_rate": wins / 1000, "threads": torch.get_num_threads()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=5000, help="games per run (default 5000)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="one run per seed (default 0)")
    p.add_argument("--threads", type=int, default=0, help="torch threads, 0 = PyTorch's default (default 0)")
    p.add_argument("--json", help="write the runs and their medians here")
    args = p.parse_args()
    runs = []
    for seed in args.seeds:
        runs.append(run(args.epochs, seed, args.threads))
        print(json.dumps(runs[-1]), flush=True)
    med = {k: statistics.median(r[k] for r in runs) for k in ("train_seconds", "steps_per_second", "win_rate")}
    print("median", json.dumps(med))
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": runs, "median": med}, indent=2))


if __name__ == "__main__":
    main()
