"""The DQN's patterns for the benchmark lab: picking an action (``dqn-act``) and one training step (``dqn-train``),
each in the ways the book loop's styles call them, why each is as fast as it is, and how to build one call.

Plain data at import (the dashboard lists the patterns and their why); a builder imports TensorFlow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ACT, TRAIN = "dqn-act", "dqn-train"
PATTERNS: dict[str, tuple[str, ...]] = {
    ACT: ("predict", "eager", "tf-function", "xla"),
    TRAIN: ("naive", "eager", "graph", "xla"),
}
DEFAULTS: dict[str, dict[str, str]] = {
    ACT: {"patterns": "predict,eager,tf-function,xla", "batch": "1", "width": "150"},
    TRAIN: {"patterns": "naive,eager,graph,xla", "batch": "200", "width": "150"},
}
DESCRIPTIONS = {ACT: "pick actions", TRAIN: "one DQN training step"}
K_STEPS: dict[str, str] = {}  # none of these patterns runs N steps per call
WHY = {
    (ACT, "predict"): (
        "Keras `model.predict` per move, as the seed does: every call builds a data pipeline, splits the input "
        "into batches, runs a callback loop and converts the result back to numpy. All of that is fixed cost, "
        "paid again for a single 64-number state."),
    (ACT, "eager"): (
        "Calling the model directly (`model(x)`): no pipeline, but each layer still dispatches its ops one by one "
        "from Python, about a dozen eager ops per move."),
    (ACT, "tf-function"): (
        "The forward pass and argmax traced once into a graph (`tf.function`) and called through its concrete "
        "function: one dispatch from Python per move, the graph runs in C++."),
    (ACT, "xla"): (
        "The same graph compiled by XLA (`jit_compile=True`) into fused kernels. For a tiny network the dispatch "
        "dominates, so XLA can only shave the per-op overhead inside the graph."),
    (TRAIN, "naive"): (
        "The seed's training step: eager, and Q(s, a) gathered with a Python list comprehension over the batch, "
        "so the forward and backward pass contain one slice op per row (hundreds of tiny ops)."),
    (TRAIN, "eager"): (
        "Still eager, but Q(s, a) taken with one `tf.gather`: the step is a few dozen ops instead of hundreds, "
        "each still dispatched from Python with its gradient recorded by the tape."),
    (TRAIN, "graph"): (
        "The whole step (target, loss, gradients, Adam update) traced once with `tf.function`: one call from "
        "Python, no tape bookkeeping in Python, the runtime can run independent ops in parallel."),
    (TRAIN, "xla"): (
        "The traced step compiled by XLA: fused elementwise work and no per-op launch cost; it pays off when the "
        "step is many small ops, much less when it is dominated by matrix multiplies."),
}
ACT_STYLE = {"predict": "naive", "eager": "eager", "tf-function": "graph", "xla": "xla"}  # how the book loop calls it

Call = Callable[[], object]


def _config(batch: int, width: int, seed: int, **fields: Any) -> Any:
    from rlcore.workloads.dqn.config import DQNConfig

    return DQNConfig(hidden1=width, batch_size=batch, memory_size=max(batch, 1000), seed=seed, **fields)


def build(suite: str, name: str, batch: int, width: int, seed: int, steps_per_call: int = 1) -> Call:
    """One call of a pattern: greedy actions for a batch of states, or one training step whose loss is fetched
    (a training loop waits for it, so the timed call is work done)."""
    import numpy as np

    from rlcore.workloads.dqn.tf_styles import Agent, Batch

    rng = np.random.default_rng(seed)
    if suite == ACT:
        agent = Agent(_config(batch, width, seed), ACT_STYLE[name])
        states = rng.random((batch, 64), dtype=np.float32)
        return lambda: agent.greedy_actions(states)
    agent = Agent(_config(batch, width, seed), name)
    states = rng.random((2, batch, 64), dtype=np.float32)
    data = Batch.of(states[0], rng.integers(0, 4, batch, dtype=np.int32),
                 rng.choice(np.array([-1.0, 10.0, -10.0], np.float32), batch), states[1],
                 (rng.random(batch) < 0.1).astype(np.float32))
    return lambda: float(agent.train(data))
