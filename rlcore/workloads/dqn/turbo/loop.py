"""Turbo: the Gridworld and the whole DQN loop in one compiled TensorFlow graph, many games at once.

N games advance together as tensors (``gridworld_tf``); each collected step picks ε-greedy actions
for all of them, stores the N transitions in a replay ring held in ``tf.Variable``s, resets finished
games, and runs K gradient updates on sampled batches; the target network follows the online one (soft
updates, or a copy every S updates).
A compiled call runs a chunk of such steps in a ``tf.while_loop``; the Reporter hears from us between
chunks. Games start on the boards of ``cfg.mode`` and the win rate is the book's test on the numpy game in
that mode, like every other style.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import keras
import numpy as np
import tensorflow as tf

from rlcore.contract.reporting import COMPILING, PHASE_PREFIX, TESTING, TRAINING, Reporter
from rlcore.tracking.machine import check_device, xla_cache_dir, xla_cache_snapshot, xla_cache_status
from rlcore.tracking.run import TrainingRun
from rlcore.workloads.dqn import gridworld as gw
from rlcore.workloads.dqn import gridworld_tf as gtf
from rlcore.workloads.dqn.loop import TrainResult
from rlcore.workloads.dqn.metrics import ENV_STEPS_PER_S, EPSILON, GAMES, WIN_RATE
from rlcore.workloads.dqn.qnet import STATES, build_q_network, copy_weights
from rlcore.workloads.dqn.turbo.config import TurboConfig
from rlcore.workloads.dqn.win_rate import N_ACTIONS, STATE_SIZE, book_test

PHASE_IN_GRAPH = "in-graph"
PHASE_COMPILE = "compile"
MEMORY_COLUMNS = 11  # s1 (4), s2 (4), action, reward, done


class InGraphAdam:
    """Adam (Kingma & Ba, as Keras computes it) in a few fused ops per variable.

    Keras's optimizer is the same maths (a test checks they take the same steps), but inside the compiled
    loop its general machinery made tracing and compiling slower (3.8 s against 3.2 s measured here), and
    compile time is part of what turbo reports.
    """

    def __init__(self, variables: list[tf.Variable], learning_rate: float, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7) -> None:
        self.variables = list(variables)
        self.lr, self.beta_1, self.beta_2, self.epsilon = learning_rate, beta_1, beta_2, epsilon
        self.m = [tf.Variable(tf.zeros_like(v), trainable=False) for v in self.variables]
        self.v = [tf.Variable(tf.zeros_like(v), trainable=False) for v in self.variables]
        self.iterations = tf.Variable(0.0, trainable=False)

    def apply(self, grads: list[tf.Tensor]) -> None:
        t = self.iterations.assign_add(1.0)
        lr = self.lr * tf.sqrt(1.0 - self.beta_2 ** t) / (1.0 - self.beta_1 ** t)
        for var, m, v, g in zip(self.variables, self.m, self.v, grads, strict=True):
            m.assign_add((g - m) * (1.0 - self.beta_1))
            v.assign_add((tf.square(g) - v) * (1.0 - self.beta_2))
            var.assign_sub(lr * m / (tf.sqrt(v) + self.epsilon))


class TurboAgent:
    """Networks, optimizer, the N games and the replay ring, all as variables; ``chunk`` is the compiled loop."""

    def __init__(self, cfg: TurboConfig) -> None:
        self.cfg = cfg
        n, capacity = cfg.games, cfg.memory
        self.online = build_q_network(cfg.hidden1, cfg.hidden2, cfg.seed)
        self.target = build_q_network(cfg.hidden1, cfg.hidden2, cfg.seed)
        copy_weights(self.online, self.target)
        self.optimizer = InGraphAdam(self.online.trainable_variables, cfg.learning_rate)
        self.rng = tf.random.Generator.from_seed(cfg.seed)
        # The boards games start on (the mode's valid boards); a variable: XLA would fold a constant.
        self.table = tf.Variable(gtf.start_boards(cfg.mode), trainable=False)
        # The games in flight.
        self.boards = tf.Variable(gtf.random_boards(self.rng, n, self.table))
        self.moves = tf.Variable(tf.zeros([n], tf.int32))
        # The replay ring, one int32 row per transition: s1 board (4 cells), s2 board, action, reward, done.
        # Boards, not 64-vectors: the noise is drawn when a transition is sampled. One array keeps the
        # compiled program small (one scatter per step, one gather per update).
        self.memory = tf.Variable(tf.zeros([capacity, MEMORY_COLUMNS], tf.int32))
        self.mem_size = tf.Variable(0, dtype=tf.int32)
        self.mem_next = tf.Variable(0, dtype=tf.int32)
        # Counters the loop keeps for the reports.
        self.collected = tf.Variable(0, dtype=tf.int64)  # collected steps (each is N env steps)
        self.updates = tf.Variable(0, dtype=tf.int64)
        self.games = tf.Variable(0, dtype=tf.int64)
        self.online_layers = self._dense_layers(self.online)
        self.target_layers = self._dense_layers(self.target)
        self.chunk = tf.function(self._chunk, jit_compile=cfg.xla, autograph=False)
        # The network the test plays and the run saves: the target's averaged weights when asked (measured fewer
        # lost boards than the online net's last, noisier step: docs/performance.md), else the online net.
        self.played = self.target if cfg.test_average else self.online
        self.q_values_fn = tf.function(lambda s: self.played(s, training=False), input_signature=[STATES])

    @staticmethod
    def _dense_layers(model: keras.Model) -> list[tuple[tf.Variable, tf.Variable]]:
        return [(layer.kernel, layer.bias) for layer in model.layers]

    def _q(self, layers: list[tuple[tf.Variable, tf.Variable]], x: tf.Tensor) -> tf.Tensor:
        """The Q-network as plain matmuls over the Keras layers' own variables: the same function, but
        tracing it inside the loop costs a fraction of a Keras call (compile time is part of the budget)."""
        for i, (kernel, bias) in enumerate(layers):
            x = tf.matmul(x, kernel) + bias
            if i < len(layers) - 1:
                x = tf.nn.relu(x)
        return x

    def q_values(self, states: np.ndarray) -> np.ndarray:
        return self.q_values_fn(states).numpy()

    def _epsilon(self) -> tf.Tensor:
        cfg = self.cfg
        frac = tf.minimum(tf.cast(self.collected, tf.float32) / float(max(cfg.eps_steps, 1)), 1.0)
        return cfg.eps_start + frac * (cfg.eps_end - cfg.eps_start)

    def _noisy(self, boards: tf.Tensor) -> tf.Tensor:
        noise = self.rng.uniform([tf.shape(boards)[0], STATE_SIZE], dtype=tf.float32) * self.cfg.noise
        return gtf.encode(boards, noise)

    def _collect(self) -> tf.Tensor:
        """One move in each of the N games; store the transitions; start new games where one ended."""
        cfg, n = self.cfg, self.cfg.games
        boards = self.boards.read_value()
        greedy = tf.argmax(self._q(self.online_layers, self._noisy(boards)), axis=1, output_type=tf.int32)
        coins = self.rng.uniform([n, 2])  # explore?, and which random action
        explore = coins[:, 0] < self._epsilon()
        actions = tf.where(explore, tf.cast(coins[:, 1] * N_ACTIONS, tf.int32), greedy)
        after, rewards = gtf.step(boards, actions)
        moves = self.moves + 1
        won = rewards > 0
        # The book marks only the goal as terminal (a pit bootstraps from the board it fell into); by default
        # turbo ends the value at the pit too, the usual DQN target. The move cap is a time limit, not terminal.
        over = tf.not_equal(rewards, gw.REWARD_STEP)
        terminal = over if cfg.pit_ends else won
        ended = over | (moves >= cfg.max_moves)

        slots = (self.mem_next + tf.range(n)) % cfg.memory
        rows = tf.concat([boards, after, actions[:, None], tf.cast(rewards, tf.int32)[:, None],
                          tf.cast(terminal, tf.int32)[:, None]], axis=1)
        self.memory.scatter_nd_update(slots[:, None], rows)
        self.mem_next.assign((self.mem_next + n) % cfg.memory)
        self.mem_size.assign(tf.minimum(self.mem_size + n, cfg.memory))

        fresh = gtf.random_boards(self.rng, n, self.table)
        self.boards.assign(tf.where(ended[:, None], fresh, after))
        self.moves.assign(tf.where(ended, 0, moves))
        self.games.assign_add(tf.reduce_sum(tf.cast(ended, tf.int64)))
        return self.collected.assign_add(1)

    def _update(self) -> tf.Tensor:
        """One gradient step on a batch from the ring (Double DQN when on); the target follows (soft, or every S)."""
        cfg = self.cfg
        b = cfg.batch
        rows = tf.gather(self.memory, self.rng.uniform([b], 0, self.mem_size, dtype=tf.int32))
        states = self._noisy(tf.concat([rows[:, 0:4], rows[:, 4:8]], axis=0))  # s1 then s2, fresh noise
        a = rows[:, 8]
        r, done = tf.cast(rows[:, 9], tf.float32), tf.cast(rows[:, 10], tf.float32)
        s1, s2 = states[:b], states[b:]
        q2_target = self._q(self.target_layers, s2)
        if cfg.double:
            # s2's online pass outside the tape: one pass over s1 and s2 together would backpropagate through
            # s2's rows too (zeros, still computed), measured a quarter fewer updates a second.
            a2 = tf.argmax(self._q(self.online_layers, s2), axis=1, output_type=tf.int32)
            q2 = tf.gather(q2_target, a2, batch_dims=1)
        else:
            q2 = tf.reduce_max(q2_target, axis=1)
        y = r + cfg.gamma * (1.0 - done) * q2
        with tf.GradientTape() as tape:
            q1 = tf.gather(self._q(self.online_layers, s1), a, batch_dims=1)
            loss = tf.reduce_mean(tf.square(q1 - y))
        grads = tape.gradient(loss, self.online.trainable_variables)
        self.optimizer.apply(grads)
        self.updates.assign_add(1)
        if cfg.tau:
            # A target that trails the online net by ~1/tau updates, smoothly: measured fewer looping greedy
            # games after a second than whole copies every `sync` updates (docs/performance.md).
            for t, o in zip(self.target.weights, self.online.weights, strict=True):
                t.assign_add((o - t) * cfg.tau)
        else:
            sync = tf.equal(self.updates % cfg.sync, 0)
            for t, o in zip(self.target.weights, self.online.weights, strict=True):
                t.assign(tf.where(sync, o, t))  # a select, not a branch: cheap for a net this size, XLA-friendly
        return loss

    def _chunk(self, steps: tf.Tensor) -> tf.Tensor:
        """``steps`` collected steps, each followed by K updates once the ring holds a batch; mean loss."""
        cfg = self.cfg

        def train() -> tf.Tensor:
            if cfg.updates == 1:
                return self._update()
            _, total = tf.while_loop(lambda k, total: k < cfg.updates,
                                     lambda k, total: (k + 1, total + self._update()), (0, tf.constant(0.0)))
            return total

        def body(i, total, count):
            with tf.control_dependencies([self._collect()]):
                ready = self.mem_size >= cfg.batch
            loss = tf.cond(ready, train, lambda: tf.constant(0.0))
            return i + 1, total + loss, count + tf.where(ready, float(cfg.updates), 0.0)

        # Explicit control flow, traced without autograph: converting Keras's optimizer code took seconds.
        # The counter is a loop variable, not tf.range: XLA would compile a new program for every length.
        _, total, count = tf.while_loop(lambda i, total, count: i < steps, body,
                                        (tf.constant(0), tf.constant(0.0), tf.constant(0.0)))
        return total / tf.maximum(count, 1.0)


def train(cfg: TurboConfig, reporter: Reporter | None = None) -> TurboResult:
    """Train turbo for ``cfg.train_seconds`` of wall time, then the book's test.

    The first call (trace + compile) is reported as its own phase and timed apart as ``compile_seconds``; the
    test is never training time. Each later call is a step of the run that collects ``chunk`` moves of every game.
    """
    budget = cfg.train_seconds
    with tf.device(check_device(cfg.device)):
        agent = TurboAgent(cfg)
        run = TrainingRun(
            reporter, kind="turbo", unit="ms", total=round(budget * 1000), config=asdict(cfg),
            rate_key=ENV_STEPS_PER_S, report_every=0.1, profile=cfg.profile,
            profile_after=2, profile_counts_calls=True,  # calls after the one that compiles and the first timed one
            progress=lambda run: min(1.0, run.train_seconds / budget),
            every_record=lambda: {GAMES: float(agent.games), EPSILON: float(agent._epsilon()),
                                  PHASE_PREFIX + PHASE_COMPILE: run.compile_seconds,
                                  PHASE_PREFIX + PHASE_IN_GRAPH: run.train_seconds})
        run.start(COMPILING)
        cache = xla_cache_dir() if cfg.xla else None
        cached_before = xla_cache_snapshot(cache)
        with run.step(units=0, compiles=True):
            agent.chunk(tf.constant(0))  # traces and compiles the whole loop without moving
        xla_cache = xla_cache_status(cache, cached_before) if cache else None
        run.emit(phase=TRAINING)

        losses = []
        chunk = tf.constant(cfg.chunk)
        moves = cfg.chunk * cfg.games  # env steps one call collects
        while (run.train_seconds < budget or run.capture.pending) and not run.stopped:  # a profile asked for is taken
            with run.step(units=moves, report=False):
                loss = float(agent.chunk(chunk))  # fetching the loss waits for the chunk to finish
            run.add_loss(loss)
            losses.append(loss)
            if run.train_seconds < budget:
                run.tick()

        train_seconds = run.stop_clock()
        run.emit(last=True)  # the last chunks' record, at the end of training
        run.emit(phase=TESTING)
        with run.off_clock():
            win_rate = book_test(agent.q_values, cfg)
        profile = run.read_profile(compile_seconds=run.compile_seconds, train_seconds=train_seconds)
    phases = {PHASE_COMPILE: run.compile_seconds, PHASE_IN_GRAPH: train_seconds, "eval": run.off_clock_seconds}
    run.emit({WIN_RATE: win_rate, PHASE_PREFIX + "eval": run.off_clock_seconds})
    result = TurboResult(
        config=asdict(cfg), steps=run.timed_steps, games=int(agent.games), train_seconds=train_seconds,
        steps_per_second=run.steps_per_second, final_loss=float(np.mean(losses[-10:])) if losses else None,
        win_rate=win_rate, phase_seconds=phases, eval_seconds=run.off_clock_seconds, stopped_early=run.stopped,
        win_rate_history=[(int(agent.games), win_rate)], profile=profile, agent=agent,
        compile_seconds=run.compile_seconds, updates=int(agent.updates), xla_cache=xla_cache,
    )
    result.system = run.finish(result.summary()).get("system")
    return result


@dataclass
class TurboResult(TrainResult):
    """The DQN result plus what only turbo has (summary() includes these fields too)."""

    compile_seconds: float = 0.0
    updates: int = 0
    xla_cache: str | None = None  # "hit", "miss", "off" (cache not in effect), or None when XLA is off
