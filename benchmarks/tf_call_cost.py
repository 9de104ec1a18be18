"""Where the book loop's TensorFlow time goes, call by call (issue 52: graph ≥ 2x the PyTorch original): the greedy
act on one state and the batch-200 train step, each as the lab's `graph` and `xla` styles call them (a concrete
function), beside the same network's forward in numpy (the floor, no TensorFlow); and a greedy training move (both,
in two calls or in one). One thread, alternating blocks, medians.

    .venv/bin/python benchmarks/tf_call_cost.py --blocks 6 --calls 300
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["TF_NUM_INTRAOP_THREADS"] = os.environ["TF_NUM_INTEROP_THREADS"] = "1"  # the ratio's 1 thread
os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = "1"  # numpy's floor too

import numpy as np
import tensorflow as tf

from rlcore.workloads.dqn.config import DQNConfig
from rlcore.workloads.dqn.tf_styles import (
    _BATCH_SIGNATURE,
    Agent,
    Batch,
    fused_adam,
    gather_batched,
    make_train_step,
)


def per_call(blocks: int, calls: int, cases: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Median µs a call of each case, over blocks that alternate their order."""
    for call in cases.values():
        call()
        call()
    times: dict[str, list[float]] = {name: [] for name in cases}
    for i in range(blocks):
        order = list(cases.items()) if i % 2 == 0 else list(reversed(cases.items()))
        for name, call in order:
            started = time.perf_counter()
            for _ in range(calls):
                call()
            times[name].append((time.perf_counter() - started) / calls * 1e6)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    size = 200
    batch = Batch.of(rng.random((size, 64), np.float32), rng.integers(0, 4, size).astype(np.int32),
                  rng.random(size).astype(np.float32), rng.random((size, 64), np.float32), np.zeros(size, np.float32))
    agents = {style: Agent(DQNConfig(exec_mode=style)) for style in ("graph", "xla")}
    weights = [w.numpy() for w in agents["graph"].online.weights]
    state = rng.random(64).astype(np.float32)

    def numpy_act() -> int:
        h = state[None]
        for i in range(0, len(weights) - 2, 2):
            h = np.maximum(h @ weights[i] + weights[i + 1], 0)
        return int(np.argmax(h @ weights[-2] + weights[-1]))

    # The same graphs called through the concrete function's argument binding (as the lab called them before it
    # called them flat, through their AtomicFunction: tf_styles.flat_call).
    greedy, train = agents["graph"].greedy_fn.get_concrete_function(), agents["graph"].train_fn.get_concrete_function()

    def bound_act() -> int:
        return int(greedy(tf.constant(state[None])).numpy()[0])

    def bound_train() -> float:
        return float(train(tf.constant(batch.rows)))

    def single_threaded(call: Callable[[], object]) -> Callable[[], object]:
        """The call under TensorFlow's single-threaded function executor (kernels inline on the calling thread)."""
        def wrapped() -> object:
            with tf.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
                return call()
        return wrapped

    acts = per_call(args.blocks, args.calls * 5, {
        "act, graph": lambda: agents["graph"].act(state), "act, xla": lambda: agents["xla"].act(state),
        "act, graph, through the concrete function's binding": bound_act,
        "act, graph, single-threaded executor": single_threaded(lambda: agents["graph"].act(state)),
        "act, numpy forward (no TensorFlow)": numpy_act})
    trains = per_call(args.blocks, args.calls, {
        "train, graph": lambda: float(agents["graph"].train(batch)),
        "train, xla": lambda: float(agents["xla"].train(batch)),
        "train, graph, through the concrete function's binding": bound_train,
        "train, graph, single-threaded executor": single_threaded(lambda: float(agents["graph"].train(batch)))})
    # The floor: the train step's matrix products and nothing else (two forwards of the network on the batch, the
    # backward's products), in numpy (OpenBLAS) and in one TensorFlow call, graph and XLA.
    kernels = [w for w in weights if w.ndim == 2]

    def products(matmul: Callable, transpose: Callable, s1: object, s2: object, ws: list) -> list:
        h = s2
        for w in ws:
            h = matmul(h, w)
        hidden, h = [s1], s1
        for w in ws:
            h = matmul(h, w)
            hidden.append(h)
        grad, out = h * 0 + 1, []
        for i in reversed(range(len(ws))):
            out.append(matmul(transpose(hidden[i]), grad))
            if i > 0:
                grad = matmul(grad, transpose(ws[i]))
        return out

    tf_kernels = [tf.constant(w) for w in kernels]
    tf_s1, tf_s2 = tf.constant(batch.s1), tf.constant(batch.s2)
    spec = tf.TensorSpec(tf_s1.shape, tf.float32)
    floors = {jit: tf.function(lambda a, b: products(tf.matmul, tf.transpose, a, b, tf_kernels), jit_compile=jit)
              .get_concrete_function(spec, spec) for jit in (False, True)}
    s1, s2 = np.ascontiguousarray(batch.s1), np.ascontiguousarray(batch.s2)
    floor = per_call(args.blocks, args.calls, {
        "train's matrix products only, numpy": lambda: products(np.matmul, np.transpose, s1, s2, kernels),
        "train's matrix products only, graph": lambda: floors[False](tf_s1, tf_s2)[0].numpy(),
        "train's matrix products only, xla": lambda: floors[True](tf_s1, tf_s2)[0].numpy()})

    # A training move's sample, its tensors and the train call, from a replay memory of one row array (as the lab
    # keeps it) against five arrays, one a column, into a train graph of five arguments (as it kept them before).
    graph = agents["graph"]
    five_args = tf.function(make_train_step(graph.online, graph.target, fused_adam(graph.optimizer), 0.9,
                                            gather_batched),
                            input_signature=_BATCH_SIGNATURE).get_concrete_function()
    memory = Batch.of(*(np.concatenate([c] * 5) for c in batch.columns()))  # 1,000 transitions
    memory_columns = [np.ascontiguousarray(c) for c in memory.columns()]
    sample_rng = np.random.default_rng(1)

    def from_rows() -> float:
        return float(graph.train(Batch(memory.rows[sample_rng.choice(len(memory.rows), size, replace=False)])))

    def from_columns() -> float:
        idx = sample_rng.choice(len(memory.rows), size, replace=False)
        return float(five_args(*(tf.constant(c[idx]) for c in memory_columns)))

    samples = per_call(args.blocks, args.calls, {"sample, tensors and train call, five arrays": from_columns,
                                                 "sample, tensors and train call, one row array": from_rows})

    def move(style: str, one_call: bool) -> Callable[[], int]:
        """A greedy training move's TensorFlow: the train step, then the greedy act on the state just remembered —
        with a call of its own (two calls), or read from the train call (one call, as the book loop now plays)."""
        agent = agents[style]

        def call() -> int:
            float(agent.train(batch, next_state=state if one_call else None))
            return agent.act(state)
        return call

    moves = per_call(args.blocks, args.calls, {
        "greedy training move, graph, two calls": move("graph", False),
        "greedy training move, graph, one call": move("graph", True),
        "greedy training move, xla, two calls": move("xla", False),
        "greedy training move, xla, one call": move("xla", True)})
    print(f"{platform.node()}, {os.cpu_count()} cores, TensorFlow {tf.__version__}, 1 thread; "
          f"{args.blocks} alternating blocks, medians\n\n| call | µs a call |\n|---|---:|")
    for name, micros in (acts | trains | floor | samples | moves).items():
        print(f"| {name} | {micros:,.0f} |")


if __name__ == "__main__":
    main()
