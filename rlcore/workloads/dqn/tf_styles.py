"""The book's final chapter-3 DQN (replay memory + target network) in TensorFlow's four book-loop styles: the agent
and how each style plays the book's loop (``loop.train_book_loop``).

One train-step body serves every style; only how it is called changes (see ``config.Style``):
``naive`` keeps the seed's slow habits on purpose (``model.predict`` per move, eager step, a
Python-list gather of Q(s, a)), ``eager`` fixes the gather, ``graph`` and ``xla`` compile the act
and train steps once. Environment logic stays in numpy so the styles differ only in TensorFlow use.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import keras
import numpy as np
import tensorflow as tf

from rlcore.contract.reporting import Reporter
from rlcore.tracking.machine import check_device, compile_fn
from rlcore.workloads.dqn import gridworld as gw
from rlcore.workloads.dqn.config import TF_BOOK_STYLES, TF_RUN, DQNConfig, Style
from rlcore.workloads.dqn.loop import TrainResult, train_book_loop
from rlcore.workloads.dqn.qnet import STATES, build_q_network, copy_weights
from rlcore.workloads.dqn.win_rate import N_ACTIONS, STATE_SIZE

# ---------------------------------------------------------------- replay memory


# One transition a row of one float32 array, s1 | a | r | s2 | done | best: a sample is one index into it, and a
# compiled style's train call gets one tensor (a concrete function binds each argument apart, ~25 µs each on a small
# CPU, more than the indexing and slicing it saves; docs/performance.md).
# ``best`` is max_a Q_target(s2, a) under the target network as it is now: the target moves only at a sync, so a
# compiled style keeps it with the transition instead of running the target network on the whole batch at every
# step (a quarter of the step's arithmetic). NaN until known: the train call that follows a transition finds it.
S1, ACTION, REWARD, S2, DONE, BEST = slice(0, STATE_SIZE), STATE_SIZE, STATE_SIZE + 1, \
    slice(STATE_SIZE + 2, 2 * STATE_SIZE + 2), 2 * STATE_SIZE + 2, 2 * STATE_SIZE + 3
ROW = 2 * STATE_SIZE + 4


class Batch(NamedTuple):
    """A sample of transitions, a row each (see ROW); the columns read as the book names them."""

    rows: np.ndarray  # (B, ROW) float32

    @classmethod
    def of(cls, s1: np.ndarray, a: np.ndarray, r: np.ndarray, s2: np.ndarray, done: np.ndarray) -> Batch:
        """The rows of (B, 64) states, (B,) actions, rewards and done flags (1.0 only when the goal was reached);
        their target values not yet known."""
        unknown = np.full((len(a), 1), np.nan, np.float32)
        return cls(np.concatenate([s1, a[:, None], r[:, None], s2, done[:, None], unknown], axis=1,
                                  dtype=np.float32))

    @property
    def s1(self) -> np.ndarray:
        return self.rows[:, S1]

    @property
    def a(self) -> np.ndarray:
        return self.rows[:, ACTION].astype(np.int32)

    @property
    def r(self) -> np.ndarray:
        return self.rows[:, REWARD]

    @property
    def s2(self) -> np.ndarray:
        return self.rows[:, S2]

    @property
    def done(self) -> np.ndarray:
        return self.rows[:, DONE]

    def columns(self) -> tuple[np.ndarray, ...]:
        """s1, a, r, s2, done: the train step's arguments, as the book names them."""
        return self.s1, self.a, self.r, self.s2, self.done


SAMPLES_AHEAD = 16  # index sets a full memory draws at once
# Drawing a set ahead costs a key per row of the memory, rng.choice a few per sampled row: above this capacity
# (16 x 4,096 keys, 512 KB) a block costs more than the draws it saves, so the memory draws at each sample.
AHEAD_MAX_CAPACITY = 4096


class ReplayMemory:
    """FIFO replay memory in one preallocated array (the book's deque(maxlen), without tuples)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.rows = np.zeros((capacity, ROW), np.float32)
        self.size = 0
        self._next = 0
        self._ahead: list[np.ndarray] = []  # index sets drawn ahead, once the memory is full (``sample``)

    def __len__(self) -> int:
        return self.size

    def add(self, s1: np.ndarray, a: int, r: float, s2: np.ndarray, done: bool) -> int:
        """Keep a transition (its target value unknown); returns its row."""
        index = self._next
        row = self.rows[index]
        row[S1], row[ACTION], row[REWARD], row[S2], row[DONE], row[BEST] = s1, a, r, s2, done, np.nan
        self._next = (index + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)
        return index

    def sample(self, rng: np.random.Generator, batch_size: int) -> Batch:
        """A uniform sample without replacement, like the book's random.sample.

        Once the memory is full, which rows a sample takes no longer depends on anything but the draw, so index
        sets are drawn ``SAMPLES_AHEAD`` at a time (each the rows of the ``batch_size`` smallest of fresh uniform
        keys: a uniform subset) and the rows are read when the move samples. One ``rng.choice`` a move cost 28-44
        us in the book's loop (its Python runs cold between two training calls), a set drawn in a block ~5."""
        if self.size < self.capacity or self.capacity > AHEAD_MAX_CAPACITY:
            return Batch(self.rows[rng.choice(self.size, batch_size, replace=False)])
        if not self._ahead or len(self._ahead[-1]) != batch_size:  # (a block holds sets of one size)
            keys = rng.random((SAMPLES_AHEAD, self.capacity))
            self._ahead = list(np.argpartition(keys, batch_size - 1, axis=1)[:, :batch_size])
        return Batch(self.rows[self._ahead.pop()])


# ---------------------------------------------------------------- the agent in each style


def gather_python_list(q: tf.Tensor, a: np.ndarray) -> tf.Tensor:
    """The seed's gather: one eager slice per row, stacked (slow on purpose)."""
    return tf.stack([q[i][a[i]] for i in range(len(a))])


def gather_batched(q: tf.Tensor, a: tf.Tensor) -> tf.Tensor:
    """Q(s, a) for every row at once: (B, 4), (B,) -> (B,)."""
    return tf.gather(q, a, batch_dims=1)


def _descend(online: keras.Model, apply: Callable, gather: Callable, s1, a, y):
    """MSE of Q(s1, a) against the TD targets y, one optimizer step on the online network; the loss."""
    with tf.GradientTape() as tape:
        x = gather(online(s1, training=True), a)  # (B,)
        loss = tf.reduce_mean(tf.square(x - tf.stop_gradient(y)))
    variables = online.trainable_variables
    apply(tape.gradient(loss, variables), variables)
    return loss


def keras_apply(optimizer: keras.optimizers.Optimizer) -> Callable:
    """The optimizer's own ``apply_gradients``, as a person's step calls it."""
    return lambda grads, variables: optimizer.apply_gradients(zip(grads, variables, strict=True))


def make_train_step(online: keras.Model, target: keras.Model, apply: Callable, gamma: float,
                    gather: Callable) -> Callable:
    """The one TD step every style runs: Y = r + gamma (1 - done) max_a Q_target(s2), MSE on Q(s1, a)."""

    def train_step(s1, a, r, s2, done):
        q2 = target(s2, training=False)  # (B, 4)
        y = r + gamma * (1.0 - done) * tf.reduce_max(q2, axis=1)  # (B,)
        return _descend(online, apply, gather, s1, a, y)

    return train_step


def fused_adam(optimizer: keras.optimizers.Adam) -> Callable:
    """``optimizer.apply_gradients`` as one kernel a variable: TensorFlow's ResourceApplyAdam (the update Keras 2's
    Adam ran) on Keras's own slots, the same arithmetic as Keras 3's Adam, which writes it as a dozen graph ops a
    variable (docs/performance.md). Without amsgrad, weight decay or clipping, as the book's optimizer."""
    beta_1, beta_2 = float(optimizer.beta_1), float(optimizer.beta_2)

    def apply(grads: list, variables: list) -> None:
        step = tf.cast(optimizer.iterations + 1, tf.float32)
        beta_1_power, beta_2_power = tf.pow(beta_1, step), tf.pow(beta_2, step)
        lr = tf.cast(optimizer.learning_rate, tf.float32)
        for variable, grad in zip(variables, grads, strict=True):
            index = optimizer._get_variable_index(variable)
            tf.raw_ops.ResourceApplyAdam(
                var=variable.value.handle, m=optimizer._momentums[index].value.handle,
                v=optimizer._velocities[index].value.handle, beta1_power=beta_1_power, beta2_power=beta_2_power,
                lr=lr, beta1=beta_1, beta2=beta_2, epsilon=optimizer.epsilon, grad=grad)
        optimizer.iterations.assign_add(1)

    return apply


def _on_rows(train_step: Callable) -> Callable:
    """The train step on a batch's rows (one tensor), cut into its columns inside the graph."""

    def train_on_rows(rows):
        return train_step(rows[:, S1], tf.cast(rows[:, ACTION], tf.int32), rows[:, REWARD], rows[:, S2],
                          rows[:, DONE])

    return train_on_rows


def _then_act(online: keras.Model, target: keras.Model, apply: Callable, gamma: float, greedy: Callable) -> Callable:
    """The train step on rows whose target values are kept (``best``), then the greedy action of the next state
    under the weights it just updated (a read after the update in program order: tf.function's automatic control
    dependencies keep that order) and that state's target value.

    The next state is the s2 of the transition just remembered, whose ``best`` is still NaN: the call finds it
    here (one state through the target network) for the rows that are that transition, and returns it to keep."""

    def train_then_act(rows, next_state):
        next_best = tf.reduce_max(target(next_state, training=False), axis=1)  # (1,)
        kept = rows[:, BEST]
        best = tf.where(tf.math.is_nan(kept), next_best, kept)
        y = rows[:, REWARD] + gamma * (1.0 - rows[:, DONE]) * best
        loss = _descend(online, apply, gather_batched, rows[:, S1], tf.cast(rows[:, ACTION], tf.int32), y)
        return loss, tf.concat([tf.cast(greedy(next_state), tf.float32), next_best], axis=0)  # action, its best

    return train_then_act


def _best_values(target: keras.Model) -> Callable:
    """max_a Q_target(s, a) of a batch of states (a memory's s2 after a sync)."""

    def best_values(states):
        return tf.reduce_max(target(states, training=False), axis=1)

    return best_values


def flat_call(concrete: tf.types.experimental.ConcreteFunction) -> Callable:
    """A concrete function called on its tensors as they are, its captured variables' handles appended: through its
    AtomicFunction (``tf.types.experimental.AtomicFunction.call_flat``), below the concrete function's argument
    binding, which costs a training move here about 110 µs, more than the train step's Adam and elementwise work
    together (docs/performance.md). Its outputs come flat, in the order the function returns them. No gradient tape
    records the call (the train step applies its own gradients)."""
    atomic, captured = concrete.inference_fn, list(concrete.captured_inputs)  # variable handles: fixed for life
    return lambda *tensors: atomic.call_flat(*tensors, *captured)


_BATCH_SIGNATURE = [STATES, tf.TensorSpec((None,), tf.int32), tf.TensorSpec((None,), tf.float32), STATES,
                    tf.TensorSpec((None,), tf.float32)]
_ROWS = tf.TensorSpec((None, ROW), tf.float32)


class Agent:
    """Online and target networks, optimizer, and the act/train/sync calls of one style."""

    def __init__(self, cfg: DQNConfig, exec_mode: Style | str | None = None) -> None:
        self.mode = Style(exec_mode or cfg.exec_mode)
        self.online = build_q_network(cfg.hidden1, cfg.hidden2, cfg.seed)
        self.target = build_q_network(cfg.hidden1, cfg.hidden2, cfg.seed)
        copy_weights(self.online, self.target)
        self.optimizer = keras.optimizers.Adam(cfg.learning_rate)
        self.optimizer.build(self.online.trainable_variables)  # slots exist before any trace

        gather = gather_python_list if self.mode is Style.NAIVE else gather_batched
        self.compiled = self.mode in (Style.GRAPH, Style.XLA)
        # The compiled styles' fix includes the optimizer: one kernel a variable, the same arithmetic (fused_adam).
        apply = fused_adam(self.optimizer) if self.compiled else keras_apply(self.optimizer)
        body = make_train_step(self.online, self.target, apply, cfg.gamma, gather)
        if self.compiled:  # one tensor a call (see ROW)
            body = _on_rows(body)
        self.train_fn = compile_fn(body, TF_RUN[self.mode],
                                   input_signature=[_ROWS] if self.compiled else _BATCH_SIGNATURE)
        self.greedy_fn = compile_fn(self._greedy_body, TF_RUN[self.mode], input_signature=[STATES])
        self._greedy = self.greedy_fn
        self.train_then_act_fn = self.best_values_fn = None
        self._next_state: np.ndarray | None = None  # the state whose greedy action the last train call returned
        self._next_action = 0
        self.next_best = float("nan")  # that state's target value, found by the same call
        if self.compiled:
            # The train call also returns the greedy action of the state the loop acts on next, under the weights it
            # just updated: one TensorFlow call a training move instead of two (a call's fixed cost, ~250 µs on a
            # small CPU, is many times the batch-1 forward it carries; docs/performance.md).
            self.train_then_act_fn = compile_fn(
                _then_act(self.online, self.target, apply, cfg.gamma, self._greedy_body), TF_RUN[self.mode],
                input_signature=[_ROWS, STATES])
            self.best_values_fn = compile_fn(_best_values(self.target), TF_RUN[self.mode], input_signature=[STATES])
            # The traced graphs called flat (flat_call): neither tf.function's per-call dispatch nor the concrete
            # function's argument binding, each of which cost more than the train step's own elementwise work.
            self._train_then_act = flat_call(self.train_then_act_fn.get_concrete_function())
            greedy = flat_call(self.greedy_fn.get_concrete_function())
            self._greedy = lambda states: greedy(states)[0]
            # A concrete function sets its graph up (optimized, its executor built) at its first call: the greedy
            # one is called once here, before the run's clock starts (it changes nothing); the training one cannot
            # be (it would train), so the loop times its first call apart.
            self._greedy(tf.zeros([1, STATES.shape[1]], STATES.dtype))
        # The win-rate test is not what is being compared, so it always runs compiled.
        self.q_values_fn = tf.function(lambda s: self.online(s, training=False), input_signature=[STATES])

    def _greedy_body(self, states):
        return tf.argmax(self.online(states, training=False), axis=1, output_type=tf.int32)

    def act(self, state: np.ndarray) -> int:
        """Greedy action for one (64,) state; ties go to the lowest index, like numpy's argmax."""
        if self.mode is Style.NAIVE:
            return int(np.argmax(self.online.predict(state[None], verbose=0)[0]))
        if state is self._next_state:  # the last train call found it, under the same weights
            return self._next_action
        return int(self._greedy(tf.constant(state[None])).numpy()[0])

    def greedy_actions(self, states: np.ndarray) -> np.ndarray:
        """Greedy actions for a (B, 64) batch of states, called the way this style calls its network."""
        if self.mode is Style.NAIVE:
            return np.argmax(self.online.predict(states, verbose=0), axis=1)
        return self._greedy(tf.constant(states)).numpy()

    def train(self, batch: Batch, next_state: np.ndarray | None = None) -> tf.Tensor:
        """One gradient step on a batch; returns the loss tensor (fetched only when reported).

        Given ``next_state`` (the s2 of the transition just remembered, the state the loop acts on next), a compiled
        style's call takes the batch's kept target values (``best``; NaN for that transition's rows) and also finds
        the next state's greedy action under the updated weights, which ``act(next_state)`` then reads instead of
        calling TensorFlow again, and its target value (``next_best``), which the memory keeps. Without it, the
        step runs the target network on the whole batch, as the book writes it."""
        if self.mode is Style.NAIVE:
            return self.train_fn(*batch.columns())  # the seed passes numpy arrays straight in
        if not self.compiled:
            return self.train_fn(*(tf.constant(x) for x in batch.columns()))
        rows = tf.constant(batch.rows)
        self._next_state = None  # whatever the last call found, the weights have moved on
        if next_state is None:
            return self._train_alone(rows)
        loss, found = self._train_then_act(rows, tf.constant(next_state[None]))
        action, self.next_best = found.numpy()
        self._next_state, self._next_action = next_state, int(action)
        return loss

    def best_values(self, states: np.ndarray) -> np.ndarray:
        """max_a Q_target(s, a) of a (B, 64) batch (a compiled style's memory, after each sync)."""
        return self.best_values_fn(tf.constant(states)).numpy()

    @functools.cached_property
    def _train_alone(self) -> Callable:
        """A compiled style's train graph without the act, traced at its first use (the book's loop makes none)."""
        train = flat_call(self.train_fn.get_concrete_function())
        return lambda rows: train(rows)[0]

    def sync(self) -> None:
        copy_weights(self.online, self.target)

    def q_values(self, states: np.ndarray) -> np.ndarray:
        return self.q_values_fn(states).numpy()


# ---------------------------------------------------------------- the book's loop in TensorFlow


class TFLearner:
    """The book's loop as each TensorFlow style plays it: numpy states and replay memory, the agent's calls."""

    def __init__(self, cfg: DQNConfig, agent: Agent) -> None:
        _, explore_seed, sample_seed = np.random.SeedSequence(cfg.seed).spawn(3)
        self.cfg, self.agent = cfg, agent
        self.explore_rng = np.random.default_rng(explore_seed)
        self.sample_rng = np.random.default_rng(sample_seed)
        self.memory = ReplayMemory(cfg.memory_size)
        self.q_values = agent.q_values
        self._last_s2: np.ndarray | None = None
        self._last_row = 0
        self._stale = True  # a compiled style's kept target values are out of date (none yet, or the target synced)

    def state(self, env: gw.Gridworld) -> np.ndarray:
        return env.state(self.cfg.train_noise)

    def act(self, state: np.ndarray) -> int:
        if self.explore_rng.random() < self.cfg.epsilon:
            return int(self.explore_rng.integers(0, N_ACTIONS))
        return self.agent.act(state)

    def remember(self, s1: np.ndarray, action: int, reward: float, s2: np.ndarray) -> None:
        self._last_row = self.memory.add(s1, action, reward, s2, reward > 0)  # done only on reaching the goal
        self._last_s2 = s2  # the state the loop acts on next, if the game goes on

    def ready(self) -> bool:
        return len(self.memory) > self.cfg.warmup

    def sample(self) -> Batch:
        if self.agent.compiled and self._stale:  # every kept target value found again, in one call
            kept = self.memory.rows[:len(self.memory)]
            kept[:, BEST] = self.agent.best_values(kept[:, S2])
            self._stale = False
        return self.memory.sample(self.sample_rng, self.cfg.batch_size)

    def learn(self, batch: Batch) -> tf.Tensor:
        loss = self.agent.train(batch, next_state=self._last_s2)
        if self.agent.compiled:
            self.memory.rows[self._last_row, BEST] = self.agent.next_best
        return loss

    def sync(self) -> None:
        self.agent.sync()
        self._stale = True


def train(cfg: DQNConfig, reporter: Reporter | None = None, *, report_interval: float = 0.5) -> TrainResult:
    """Run the book's training loop in ``cfg.exec_mode`` and return the result with the agent.

    Wall time excludes the win-rate tests; phase times cover env, act, replay, train and sync.
    """
    if cfg.exec_mode not in TF_BOOK_STYLES:
        raise ValueError(f"the book's loop in TensorFlow runs {', '.join(TF_BOOK_STYLES)}, not {cfg.exec_mode!r}.")
    with tf.device(check_device(cfg.device)):
        agent = Agent(cfg)
    return train_book_loop(cfg, TFLearner(cfg, agent), reporter, report_every=report_interval)
