"""Neural-network solver of the growth model's HJB equation (seed 002), in eager / graph / XLA.

The seed's network: Dense(8, tanh) x 3 -> 1 with output bias -60, Adam, 100 uniform k per step,
loss = mean of (u(c) - ρV + stop_gradient(V') μ(k))², c = max(V', floor)^(-1/γ).
Two levers beyond the seed: K steps inside one compiled call (a tf.range loop, loss fetched once
per call) and V' carried forward through the layers as a tangent instead of a nested tape.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import keras
import numpy as np
import tensorflow as tf
from scipy.optimize import minimize

from rlcore.contract.reporting import COMPILING, STEPS_PER_S, TRAINING, Reporter
from rlcore.tracking.machine import check_device, compile_fn
from rlcore.tracking.run import TrainingRun
from rlcore.workloads.hjb.config import HJBConfig
from rlcore.workloads.hjb.flat_adam import FlatAdam, Weights, network_weights
from rlcore.workloads.hjb.metrics import MAX_ABS_RESIDUAL, MAX_REL_ERR_C, MAX_REL_ERR_V
from rlcore.workloads.hjb.reference import GrowthModel, saddle_path

INIT_ITERATIONS = 300  # L-BFGS iterations of the fit to the initial guess (init = guess)


def growth_model(cfg: HJBConfig) -> GrowthModel:
    return GrowthModel(gamma=cfg.gamma, rho=cfg.rho, A=cfg.A, alpha=cfg.alpha, delta=cfg.delta)


def build_value_network(cfg: HJBConfig) -> keras.Model:
    """V(k): ``depth`` tanh layers of ``width`` units, output bias = the initial guess of V."""
    layers: list[Any] = [keras.Input((1,), dtype=cfg.dtype)]
    for i in range(cfg.depth):
        layers.append(keras.layers.Dense(cfg.width, activation="tanh", dtype=cfg.dtype,
                                         kernel_initializer=keras.initializers.GlorotUniform(seed=cfg.seed + i)))
    layers.append(keras.layers.Dense(1, dtype=cfg.dtype, bias_initializer=keras.initializers.Constant(cfg.output_bias),
                                     kernel_initializer=keras.initializers.GlorotUniform(seed=cfg.seed + cfg.depth)))
    return keras.Sequential(layers)


# ---------------------------------------------------------------- V and V'


def value_of(weights: Weights, k: tf.Tensor) -> tf.Tensor:
    """V(k) from the layers' (kernel, bias): tanh layers, a linear output (Keras's Dense, the same arithmetic)."""
    h = k
    for kernel, bias in weights[:-1]:
        h = tf.tanh(tf.matmul(h, kernel) + bias)
    kernel, bias = weights[-1]
    return tf.matmul(h, kernel) + bias


def value_and_slope_tape(weights: Weights, k: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """V(k) and V'(k) by a nested tape: the seed's tf.gradients, which also works eagerly."""
    with tf.GradientTape() as tape:
        tape.watch(k)
        v = value_of(weights, k)
    return v, tape.gradient(v, k)


def value_and_slope_tangent(weights: Weights, k: tf.Tensor, *, fused: bool = False) -> tuple[tf.Tensor, tf.Tensor]:
    """V(k) and V'(k) in one forward pass: dh/dk rides along each layer (tanh' = 1 - tanh²). ``fused``: a layer
    small enough is a broadcast product and a sum (``_dense``), for XLA to fuse."""
    h, dh = k, tf.ones_like(k)  # (B, 1)
    for kernel, bias in weights[:-1]:
        h = tf.tanh(_dense(h, kernel, fused) + bias)  # (B, width)
        dh = (1.0 - h * h) * _dense(dh, kernel, fused)
    kernel, bias = weights[-1]
    return _dense(h, kernel, fused) + bias, _dense(dh, kernel, fused)


# A layer's product of at most this many numbers (batch x in x out) runs as a broadcast product and a sum under XLA.
# On a CPU XLA runs each matmul as its own library call, whose set-up outweighs a (100, 8) x (8, 8) product; as
# elementwise work it fuses with the tanh and the tangent around it. Measured (benchmarks/hjb_styles.py, xla +
# tangent + 1000 steps a call, 2 cores): the seed's batch 100 x width 8, 1.3-1.4x the steps/s in float32 and 1.05x
# in float64; at width 16 (25,600) 0.6x, at batch 1000 (64,000: the accurate preset) 0.65x.
FUSED_NUMBERS = 6400


def _dense(h: tf.Tensor, kernel: tf.Tensor, fused: bool) -> tf.Tensor:
    if fused and h.shape[0] is not None and h.shape[0] * kernel.shape[0] * kernel.shape[1] <= FUSED_NUMBERS:
        return tf.reduce_sum(h[:, :, None] * kernel[None], axis=1)
    return tf.matmul(h, kernel)


VALUE_AND_SLOPE: dict[str, Callable] = {"tape": value_and_slope_tape, "tangent": value_and_slope_tangent}


# x ** p for these exponents as one elementwise op XLA fuses with its neighbours; its pow (exp of p log x) stays a
# loop of its own, forward and in the gradient. With the seed's gamma of 2 (c = V'^-1/2, u = -1/c), measured with
# xla + tangent + 1000 steps a call, batch 100: 1.09x the steps/s (median of 7 alternating rounds).
_POWERS: dict[float, Callable[[tf.Tensor], tf.Tensor]] = {
    -1.0: tf.math.reciprocal, -0.5: tf.math.rsqrt, 0.5: tf.sqrt, 2.0: tf.square}


def power(x: tf.Tensor, exponent: float) -> tf.Tensor:
    """``x ** exponent``, by a cheaper op where the exponent has one (``_POWERS``)."""
    op = _POWERS.get(float(exponent))
    return op(x) if op is not None else tf.pow(x, exponent)


def hjb_residual(cfg: HJBConfig, k: tf.Tensor, v: tf.Tensor, v_prime: tf.Tensor, *,
                 semi_gradient: bool = True) -> tf.Tensor:
    """The seed's residual u(c) - ρV + stop_gradient(V') μ, with V' clamped at the floor.

    ``semi_gradient=False`` lets the gradient through the V' factor too: the exact gradient of the
    squared residual, which a line-search method (L-BFGS) needs.
    """
    vp = tf.maximum(v_prime, cfg.vprime_floor)
    c = power(vp, -1.0 / cfg.gamma)
    drift = cfg.A * tf.pow(k, cfg.alpha) - c - cfg.delta * k
    utility = power(c, 1.0 - cfg.gamma) / (1.0 - cfg.gamma)
    return utility - cfg.rho * v + (tf.stop_gradient(vp) if semi_gradient else vp) * drift


# ---------------------------------------------------------------- the solver


# Under XLA with the tangent, from this batch on a K-step call's Adam runs over one flat vector (FlatAdam); below it
# XLA already fuses each variable's update with its gradient (no sum over a batch between them) and the flat
# vector's split and concatenation cost more than they save. Measured (xla + tangent + 1000 steps a call, float32,
# alternating, µs a step, flat / Keras's Adam): batch 1 3.3 / 2.1, 10 8.8 / 8.4, 30 15.2 / 21.9, 100 16.9 / 19.0;
# float64 batch 1000 209 / 230. With the nested tape it never paid below batch 1000 (0.7-1.0x), so it is not used.
FLAT_ADAM_BATCH = 30


def flat_adam_pays(cfg: HJBConfig) -> bool:
    return cfg.exec_mode == "xla" and cfg.derivative == "tangent" and cfg.batch_size >= FLAT_ADAM_BATCH


def _learning_rate(cfg: HJBConfig) -> float | keras.optimizers.schedules.LearningRateSchedule:
    if cfg.lr_schedule == "exponential":
        return keras.optimizers.schedules.ExponentialDecay(cfg.learning_rate, cfg.steps,
                                                           cfg.lr_final / cfg.learning_rate)
    if cfg.lr_schedule == "cosine":
        return keras.optimizers.schedules.CosineDecay(cfg.learning_rate, cfg.steps,
                                                      alpha=cfg.lr_final / cfg.learning_rate)
    return cfg.learning_rate


class Solver:
    """Network, optimizer, sampler and the compiled step calls of one style."""

    def __init__(self, cfg: HJBConfig) -> None:
        self.cfg = cfg
        self.dtype = tf.as_dtype(cfg.dtype)
        self.model = build_value_network(cfg)
        learning_rate = _learning_rate(cfg)
        self.optimizer = keras.optimizers.Adam(learning_rate)
        self.optimizer.build(self.model.trainable_variables)
        self.flat_adam = (FlatAdam(self.optimizer, self.model, learning_rate if callable(learning_rate) else None)
                          if flat_adam_pays(cfg) else None)
        self.sampler = tf.random.Generator.from_seed(cfg.seed)
        self._value_and_slope = VALUE_AND_SLOPE[cfg.derivative]
        if cfg.derivative == "tangent" and cfg.exec_mode == "xla":  # XLA fuses the small layers' products
            self._value_and_slope = functools.partial(value_and_slope_tangent, fused=True)
        self.step_fn = compile_fn(self._step, cfg.exec_mode)  # one step per call: the seed's pattern
        self.steps_fn = compile_fn(self._steps, cfg.exec_mode)  # K steps per call

    def sample(self) -> tf.Tensor:
        """A batch of k, (B, 1): uniform, or half of it log-uniform when sampling is mixed."""
        cfg = self.cfg
        shape = (cfg.batch_size, 1)
        if cfg.sampling == "uniform":
            return self.sampler.uniform(shape, cfg.k_min, cfg.k_max, dtype=self.dtype)
        half = cfg.batch_size // 2
        uniform = self.sampler.uniform((cfg.batch_size - half, 1), cfg.k_min, cfg.k_max, dtype=self.dtype)
        log_k = self.sampler.uniform((half, 1), np.log(cfg.k_min), np.log(cfg.k_max), dtype=self.dtype)
        return tf.concat([uniform, tf.exp(log_k)], axis=0)

    def loss(self, k: tf.Tensor, weights: Weights | None = None) -> tf.Tensor:
        """The mean squared residual on ``k``, of the network's own variables or of ``weights`` in their place."""
        v, v_prime = self._value_and_slope(network_weights(self.model) if weights is None else weights, k)
        return tf.reduce_mean(tf.square(hjb_residual(self.cfg, k, v, v_prime)))

    def _step(self) -> tf.Tensor:
        """One step through Keras's Adam, as the seed writes it."""
        k = self.sample()
        with tf.GradientTape() as tape:
            loss = self.loss(k)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables, strict=True))
        return loss

    def _steps(self, n: tf.Tensor) -> tf.Tensor:
        """``n`` steps in a tf.range loop; returns their mean loss. Where it pays (``flat_adam_pays``) the weights
        and Adam's moments are carried as flat vectors (``FlatAdam``: the same updates as ``n`` calls of ``_step``)."""
        total = tf.zeros((), self.dtype)
        adam = self.flat_adam
        if adam is None:
            for _ in tf.range(n):
                total += self._step()
            return total / tf.cast(n, self.dtype)
        theta, m, v = adam.start()
        for i in tf.range(n):
            k = self.sample()
            with tf.GradientTape() as tape:
                tape.watch(theta)
                loss = self.loss(k, adam.weights(theta))
            theta, m, v = adam.update(i, theta, m, v, tape.gradient(loss, theta))
            total += loss
        adam.finish(theta, m, v, n)
        return total / tf.cast(n, self.dtype)

    def run(self, n: int) -> float:
        """Run ``n`` steps (one call when n > 1) and fetch the loss, as the seed fetches every step."""
        if n == 1:
            return float(self.step_fn())
        return float(self.steps_fn(tf.constant(n, tf.int32)))

    def polish(self, iterations: int, points: int) -> dict[str, float]:
        """L-BFGS (scipy) on the mean squared residual over a fixed grid of k, from the current weights."""
        cfg = self.cfg

        def residual(k: tf.Tensor) -> tf.Tensor:
            v, v_prime = self._value_and_slope(network_weights(self.model), k)
            return tf.reduce_mean(tf.square(hjb_residual(cfg, k, v, v_prime, semi_gradient=False)))

        out = self._lbfgs(residual, iterations, points)
        return {"polish_seconds": out["seconds"], "polish_iterations": out["iterations"],
                "polish_start_loss": out["start_loss"], "polish_loss": out["loss"]}

    def fit_guess(self, iterations: int = INIT_ITERATIONS, points: int = 512) -> dict[str, float]:
        """Start from a sensible shape instead of flat: fit V to Moll's initial guess u(A k^α)/ρ (the value of
        consuming all output forever: increasing and concave, so V' > 0 and c moderate everywhere)."""
        cfg, model = self.cfg, growth_model(self.cfg)

        def misfit(k: tf.Tensor) -> tf.Tensor:
            target = tf.constant(model.initial_guess(np.linspace(cfg.k_min, cfg.k_max, points)).reshape(-1, 1),
                                 self.dtype)
            return tf.reduce_mean(tf.square(self.model(k) - target))

        out = self._lbfgs(misfit, iterations, points)
        return {"init_seconds": out["seconds"], "init_iterations": out["iterations"], "init_misfit": out["loss"]}

    def _lbfgs(self, loss_of_grid: Callable[[tf.Tensor], tf.Tensor], iterations: int,
               points: int) -> dict[str, float]:
        """Minimise a loss over a fixed grid of k with scipy's L-BFGS and the exact gradient, from the current
        weights; the weights end at the minimiser."""
        cfg, variables = self.cfg, self.model.trainable_variables
        k = tf.constant(np.linspace(cfg.k_min, cfg.k_max, points).reshape(-1, 1), self.dtype)

        @tf.function
        def loss_and_grads():
            with tf.GradientTape() as tape:
                loss = loss_of_grid(k)
            return loss, tape.gradient(loss, variables)

        def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
            _assign_flat(variables, x, cfg.dtype)
            loss, grads = loss_and_grads()
            return float(loss), np.concatenate([g.numpy().ravel() for g in grads]).astype(np.float64)

        x0 = np.concatenate([v.numpy().ravel() for v in variables]).astype(np.float64)
        start_loss = objective(x0)[0]
        t = time.perf_counter()
        out = minimize(objective, x0, jac=True, method="L-BFGS-B",
                       options={"maxiter": iterations, "maxcor": 50, "ftol": 0.0, "gtol": 0.0})
        _assign_flat(variables, out.x, cfg.dtype)
        return {"seconds": time.perf_counter() - t, "iterations": int(out.nit), "start_loss": start_loss,
                "loss": float(out.fun)}

    def value_and_slope(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v, vp = value_and_slope_tape(network_weights(self.model), tf.constant(k.reshape(-1, 1), self.dtype))
        return v.numpy().ravel().astype(float), vp.numpy().ravel().astype(float)


def _assign_flat(variables: list, x: np.ndarray, dtype: str) -> None:
    offset = 0
    for v in variables:
        size = int(np.prod(v.shape))
        v.assign(x[offset:offset + size].reshape(v.shape).astype(dtype))
        offset += size


# ---------------------------------------------------------------- accuracy


@dataclass
class Accuracy:
    """The network against the exact saddle-path solution on a grid of k."""

    k: np.ndarray
    V: np.ndarray
    c: np.ndarray
    V_exact: np.ndarray
    c_exact: np.ndarray
    rel_err_V: np.ndarray
    rel_err_c: np.ndarray
    residual: np.ndarray

    @property
    def max_rel_err_V(self) -> float:
        return float(self.rel_err_V.max())

    @property
    def max_rel_err_c(self) -> float:
        return float(self.rel_err_c.max())

    @property
    def mean_rel_err_V(self) -> float:
        return float(self.rel_err_V.mean())

    @property
    def mean_rel_err_c(self) -> float:
        return float(self.rel_err_c.mean())

    @property
    def max_abs_residual(self) -> float:
        return float(np.abs(self.residual).max())

    def summary(self) -> dict[str, float]:
        return {"max_rel_err_V": self.max_rel_err_V, "max_rel_err_c": self.max_rel_err_c,
                "mean_rel_err_V": self.mean_rel_err_V, "mean_rel_err_c": self.mean_rel_err_c,
                "max_abs_residual": self.max_abs_residual}


class Yardstick:
    """The exact solution on a fixed grid, computed once, and the error of any V(k)."""

    def __init__(self, cfg: HJBConfig) -> None:
        self.model = growth_model(cfg)
        self.floor = cfg.vprime_floor
        self.k = np.linspace(cfg.k_min, cfg.k_max, cfg.eval_points)
        self.exact = saddle_path(self.model, self.k)

    def judge(self, value_and_slope: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]) -> Accuracy:
        v, v_prime = value_and_slope(self.k)
        v_prime = np.maximum(v_prime, self.floor)
        c = self.model.consumption(v_prime)
        return Accuracy(
            k=self.k, V=v, c=c, V_exact=self.exact.V, c_exact=self.exact.c,
            rel_err_V=np.abs(v / self.exact.V - 1), rel_err_c=np.abs(c / self.exact.c - 1),
            residual=self.model.hjb_residual(self.k, v, v_prime),
        )


# ---------------------------------------------------------------- training loop


@dataclass
class HJBResult:
    config: dict[str, Any]
    steps: int
    train_seconds: float
    steps_per_second: float
    first_call_seconds: float
    final_loss: float
    accuracy: Accuracy
    eval_seconds: float
    stopped_early: bool
    error_history: list[tuple[int, float, float]]  # (step, max rel err V, max rel err c)
    polish: dict[str, float] = field(default_factory=dict)  # L-BFGS seconds, iterations, losses
    profile: dict[str, Any] | None = None  # what TensorFlow's profiler saw in the profiled window (tracking.profiling)
    system: dict[str, Any] | None = None  # what the machine did meanwhile (tracking.system_metrics)
    solver: Solver | None = field(default=None, repr=False)

    def summary(self) -> dict[str, Any]:
        """JSON-ready: the numbers, the network on the grid, and the errors."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("accuracy", "solver")}
        acc = self.accuracy
        return out | acc.summary() | {
            "grid_k": acc.k.tolist(), "V": acc.V.tolist(), "c": acc.c.tolist(),
            "V_exact": acc.V_exact.tolist(), "c_exact": acc.c_exact.tolist(),
        }


def train(cfg: HJBConfig, reporter: Reporter | None = None, *, report_interval: float = 0.5) -> HJBResult:
    """Train for ``cfg.steps`` steps, ``cfg.steps_per_call`` per call; time excludes accuracy checks.

    The first call (trace and compile) is timed on its own and left out of steps/s.
    """
    device = check_device(cfg.device)
    yardstick = Yardstick(cfg)
    with tf.device(device):
        solver = Solver(cfg)
    run = TrainingRun(reporter, kind="hjb", unit="steps", total=cfg.steps, config=asdict(cfg), rate_key=STEPS_PER_S,
                      report_every=report_interval, profile=cfg.profile, profile_after=1)
    history: list[tuple[int, float, float]] = []
    loss: Any = float("nan")

    def judged() -> Accuracy:
        with run.off_clock():
            accuracy = yardstick.judge(solver.value_and_slope)
        history.append((run.steps, accuracy.max_rel_err_V, accuracy.max_rel_err_c))
        return accuracy

    def record(accuracy: Accuracy | None = None, phase: str = "") -> bool:
        metrics = {MAX_REL_ERR_V: accuracy.max_rel_err_V, MAX_REL_ERR_C: accuracy.max_rel_err_c,
                   MAX_ABS_RESIDUAL: accuracy.max_abs_residual} if accuracy is not None else None
        return run.emit(metrics, phase=phase)

    init: dict[str, float] = {}
    run.start("fitting the initial guess" if cfg.init == "guess" else COMPILING)
    if cfg.init == "guess":
        init = solver.fit_guess()
        record(phase=COMPILING)
    next_eval = cfg.eval_every or cfg.steps
    while run.steps < cfg.steps and not run.stopped:
        n = min(cfg.steps_per_call, cfg.steps - run.steps)
        first = run.steps == 0
        with run.step(units=n, compiles=first):  # the first call traces and compiles: timed on its own
            loss = solver.run(n)
        run.add_loss(loss)
        if run.steps >= next_eval and run.steps < cfg.steps:
            record(judged(), TRAINING if first else "")
            next_eval += cfg.eval_every
        elif first:
            record(phase=TRAINING)

    run.capture.finish()
    adam_seconds = run.train_seconds - init.get("init_seconds", 0.0)
    polish: dict[str, float] = {}
    if cfg.polish_iters and not run.stopped:
        record(phase="polishing (L-BFGS)")
        polish = solver.polish(cfg.polish_iters, cfg.polish_points)
    train_seconds = run.stop_clock()
    accuracy = judged()
    profile = run.read_profile(compile_seconds=run.compile_seconds, train_seconds=adam_seconds,
                               steps_per_marker=cfg.steps_per_call)
    record(accuracy)
    result = HJBResult(
        config=asdict(cfg), steps=run.steps, train_seconds=train_seconds,
        steps_per_second=run.timed_steps / adam_seconds if adam_seconds > 0 else 0.0,
        first_call_seconds=run.compile_seconds, final_loss=float(loss), accuracy=accuracy,
        eval_seconds=run.off_clock_seconds, stopped_early=run.stopped, error_history=history, polish=polish | init,
        profile=profile, solver=solver,
    )
    result.system = run.finish(result.summary()).get("system")
    return result
