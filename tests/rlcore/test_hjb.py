"""The HJB network solver: formulations and styles agree, K steps per call equal K calls, errors are honest."""

import numpy as np
import pytest
import tensorflow as tf

from rlcore.contract import reporting
from rlcore.contract.params import ConfigError
from rlcore.workloads.hjb import metrics as hjb_metrics
from rlcore.workloads.hjb import solver as hjb
from rlcore.workloads.hjb.config import HJBConfig
from rlcore.workloads.hjb.flat_adam import network_weights
from rlcore.workloads.hjb.reference import GrowthModel, saddle_path

TINY = {"steps": 60, "eval_every": 20, "eval_points": 50}


def _weights(solver):
    return [w.numpy() for w in solver.model.weights]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tangent_gives_the_seeds_v_prime_and_loss(dtype):
    """V' carried forward through the layers equals the nested tape's V', and so does the loss."""
    solver = hjb.Solver(HJBConfig(dtype=dtype, width=16))
    k = tf.constant(np.linspace(0.1, 10, 300).reshape(-1, 1), dtype)
    v_tape, vp_tape = hjb.value_and_slope_tape(network_weights(solver.model), k)
    v_tan, vp_tan = hjb.value_and_slope_tangent(network_weights(solver.model), k)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(v_tan.numpy(), v_tape.numpy(), rtol=tol)
    np.testing.assert_allclose(vp_tan.numpy(), vp_tape.numpy(), rtol=tol * 10, atol=tol)
    tape_loss = solver.loss(k)
    solver._value_and_slope = hjb.value_and_slope_tangent
    assert float(solver.loss(k)) == pytest.approx(float(tape_loss), rel=tol * 10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_small_layers_as_broadcast_products_give_the_same_values_and_gradients(dtype):
    """At the seed's size (batch 100, width 8) XLA's tangent style computes each layer as a broadcast product and a
    sum: the same V, V' and gradients as the matmuls, to rounding; a larger product stays a matmul."""
    solver = hjb.Solver(HJBConfig(dtype=dtype, exec_mode="xla", derivative="tangent"))
    assert solver._value_and_slope.keywords == {"fused": True}
    k = tf.constant(np.linspace(0.1, 10, 100).reshape(-1, 1), dtype)
    tol = 1e-12 if dtype == "float64" else 1e-5
    out = {}
    for fused in (False, True):
        with tf.GradientTape() as tape:
            v, vp = hjb.value_and_slope_tangent(network_weights(solver.model), k, fused=fused)
            loss = tf.reduce_sum(v) + tf.reduce_sum(vp)
        out[fused] = [v, vp, *tape.gradient(loss, solver.model.trainable_variables)]
    for a, b in zip(out[False], out[True], strict=True):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=tol * 10, atol=tol)
    wide = tf.zeros((1000, 8), dtype)  # the accurate preset's batch: 64,000 numbers, a matmul
    assert "MatMul" in [op.type for op in tf.function(lambda: hjb._dense(wide, solver.model.layers[1].kernel, True))
                        .get_concrete_function().graph.get_operations()]


@pytest.mark.parametrize("exponent", [-1.0, -0.5, 0.5, 2.0, 0.36])
def test_the_residuals_powers_give_pows_values_and_gradients(exponent):
    """The residual's powers by their cheaper ops (rsqrt for the seed's c = V'^-1/2, ...) are pow to rounding, in
    value and in gradient, and PyTorch's and JAX's steps use the same ones."""
    from rlcore.workloads.hjb.frameworks import _power
    x = tf.constant(np.linspace(0.05, 20, 50), tf.float64)
    out = {}
    for name, fn in (("pow", lambda t: tf.pow(t, exponent)), ("power", lambda t: hjb.power(t, exponent))):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        out[name] = (y.numpy(), tape.gradient(y, x).numpy())
    for a, b in zip(out["pow"], out["power"], strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-14)
    np.testing.assert_allclose(_power(x.numpy(), exponent, np), out["pow"][0], rtol=1e-14)
    torch = pytest.importorskip("torch", reason="the frameworks extra is not installed")
    np.testing.assert_allclose(_power(torch.tensor(x.numpy()), exponent, torch).numpy(), out["pow"][0], rtol=1e-14)


def test_tangent_gradients_match_the_tape_formulation():
    a = hjb.Solver(HJBConfig(dtype="float64", derivative="tape"))
    b = hjb.Solver(HJBConfig(dtype="float64", derivative="tangent"))
    for _ in range(3):
        a.run(1)
        b.run(1)
    for wa, wb in zip(_weights(a), _weights(b), strict=True):
        np.testing.assert_allclose(wa, wb, rtol=1e-9)


def test_eager_and_graph_take_the_same_steps():
    results = {}
    for mode in ("eager", "graph"):
        solver = hjb.Solver(HJBConfig(exec_mode=mode, seed=7))
        results[mode] = ([solver.run(1) for _ in range(3)], _weights(solver))
    (eager_losses, eager_weights), (graph_losses, graph_weights) = results["eager"], results["graph"]
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    for w, r in zip(graph_weights, eager_weights, strict=True):
        np.testing.assert_allclose(w, r, rtol=1e-5, atol=1e-7)


def test_xla_computes_the_same_loss_and_gradients_on_the_same_batch():
    """XLA draws its own random stream (not bit-equal to eager's), so compare on a fixed batch of k."""
    k = tf.constant(np.linspace(0.1, 10, 100).reshape(-1, 1), tf.float32)
    out = {}
    for mode in ("eager", "xla"):
        solver = hjb.Solver(HJBConfig(exec_mode=mode, seed=7))

        def loss_and_grads(k, solver=solver):
            with tf.GradientTape() as tape:
                loss = solver.loss(k)
            return loss, tape.gradient(loss, solver.model.trainable_variables)

        out[mode] = (tf.function(loss_and_grads, jit_compile=True) if mode == "xla" else loss_and_grads)(k)
    assert float(out["xla"][0]) == pytest.approx(float(out["eager"][0]), rel=1e-5)
    for gx, ge in zip(out["xla"][1], out["eager"][1], strict=True):
        np.testing.assert_allclose(gx.numpy(), ge.numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("mode", ["graph", "xla"])
def test_k_steps_in_one_call_equal_k_single_calls_and_trace_once(mode):
    single = hjb.Solver(HJBConfig(exec_mode=mode, seed=3))
    looped = hjb.Solver(HJBConfig(exec_mode=mode, seed=3))
    single_losses = [single.run(1) for _ in range(10)]
    mean_loss = looped.run(10)
    assert mean_loss == pytest.approx(np.mean(single_losses), rel=1e-4)
    for a, b in zip(_weights(single), _weights(looped), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    looped.run(7)
    looped.run(10)
    assert looped.steps_fn.experimental_get_tracing_count() == 1  # K is a tensor: no retrace per K


def _adam_state(solver):
    opt = solver.optimizer
    return [int(opt.iterations.numpy())], [w.numpy() for w in opt._momentums + opt._velocities]


@pytest.mark.parametrize("schedule", ["constant", "cosine"])
def test_the_flat_adam_of_k_steps_leaves_the_state_of_k_keras_adam_steps(schedule):
    """K steps in one call update the weights and Adam's moments as one vector each (FlatAdam); they must leave
    Keras's own state — weights, both moments, the step count the schedule reads — as K single steps through
    ``apply_gradients`` do, so styles can follow one another: K steps, then single steps, then K again."""
    cfg = HJBConfig(exec_mode="xla", derivative="tangent", dtype="float64", seed=5, lr_schedule=schedule,
                    learning_rate=1e-2, lr_final=1e-4, steps=40)
    single, looped = hjb.Solver(cfg), hjb.Solver(cfg)
    assert looped.flat_adam is not None  # the seed's batch of 100: the flat Adam pays
    for calls in ([1] * 12, [1, 1, 1]):
        for n in calls:
            single.run(n)
    looped.run(12)
    looped.run(1), looped.run(1), looped.run(1)
    for a, b in zip(_weights(single), _weights(looped), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-13)
    (iterations_a, moments_a), (iterations_b, moments_b) = _adam_state(single), _adam_state(looped)
    assert iterations_a == iterations_b == [15]
    for a, b in zip(moments_a, moments_b, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-16)
    for solver in (single, looped):
        solver.run(20)  # the schedule's steps from 15 on: a lower learning rate under cosine
    for a, b in zip(_weights(single), _weights(looped), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)


def test_the_flat_adam_runs_only_where_it_was_measured_to_pay():
    assert hjb.Solver(HJBConfig(exec_mode="xla", derivative="tangent")).flat_adam is not None
    for changes in ({"batch_size": 10}, {"derivative": "tape"}, {"exec_mode": "graph"}):
        assert hjb.Solver(HJBConfig(**{"exec_mode": "xla", "derivative": "tangent"} | changes)).flat_adam is None


def test_the_flat_adam_refuses_an_adam_it_does_not_compute():
    import keras

    from rlcore.workloads.hjb.flat_adam import FlatAdam
    solver = hjb.Solver(HJBConfig())
    optimizer = keras.optimizers.Adam(1e-3, amsgrad=True)
    optimizer.build(solver.model.trainable_variables)
    with pytest.raises(ValueError, match="plain Adam"):
        FlatAdam(optimizer, solver.model)


def test_mixed_sampling_puts_half_the_batch_on_a_log_scale():
    solver = hjb.Solver(HJBConfig(sampling="mixed", batch_size=4000))
    k = solver.sample().numpy().ravel()
    assert k.min() >= 0.1 and k.max() <= 10
    assert np.mean(k < 1.0) == pytest.approx(0.5 * 0.9 / 9.9 + 0.5 * 0.5, abs=0.03)


def test_yardstick_scores_the_exact_solution_as_exact_and_a_shifted_one_as_wrong():
    cfg = HJBConfig(eval_points=200)
    stick = hjb.Yardstick(cfg)
    model = GrowthModel()

    def exact(k):
        sol = saddle_path(model, k)
        return sol.V, model.u_prime(sol.c)

    acc = stick.judge(exact)
    assert acc.max_rel_err_V < 1e-9 and acc.max_rel_err_c < 1e-9 and acc.max_abs_residual < 1e-9
    shifted = stick.judge(lambda k: (exact(k)[0] * 1.01, exact(k)[1] * 1.02))
    assert shifted.max_rel_err_V == pytest.approx(0.01, rel=1e-6)
    assert shifted.max_rel_err_c == pytest.approx(1 - 1.02**-0.5, rel=1e-6)
    assert len(shifted.rel_err_c) == 200  # per-k errors stay available for charts


def test_training_reports_loss_speed_and_error_over_time():
    rep = reporting.ListReporter()
    result = hjb.train(HJBConfig(exec_mode="graph", steps_per_call=10, **TINY), rep, report_interval=0.0)
    assert result.steps == 60
    assert [s for s, _, _ in result.error_history] == [20, 40, 60]
    assert result.first_call_seconds > 0 and result.steps_per_second > 0
    assert any(hjb_metrics.MAX_REL_ERR_C in r.metrics for r in rep.records[:-1])
    assert all(np.isfinite(r.metrics.get(reporting.LOSS, 0.0)) for r in rep.records)
    summary = rep.summary
    for key in ("config", "steps", "train_seconds", "steps_per_second", "final_loss", "grid_k", "V", "c",
                "max_rel_err_V", "max_rel_err_c", "max_abs_residual"):
        assert key in summary
    assert len(summary["grid_k"]) == len(summary["V"]) == 50


def test_seed_network_learns_from_its_initial_guess():
    """A few hundred steps of the seed's configuration cut the error of the constant guess V = -60."""
    result = hjb.train(HJBConfig(steps=400, steps_per_call=100, eval_every=0, eval_points=50))
    start = hjb.train(HJBConfig(steps=1, eval_every=0, eval_points=50))
    assert result.accuracy.max_rel_err_V < start.accuracy.max_rel_err_V


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"k_min": 10.0, "k_max": 10.0}, "k_min must be below k_max"),
        ({"k_min": 0.0}, "k_min must be positive"),
        ({"batch_size": 0}, "batch must be at least 1"),
        ({"depth": 0}, "depth must be at least 1"),
        ({"exec_mode": "eager", "steps_per_call": 10}, "steps_per_call above 1 needs a compiled style"),
        ({"dtype": "float16"}, "dtype must be one of float32, float64"),
        ({"gamma": 1.0}, "gamma must not be 1"),
        ({"lr_schedule": "cosine", "lr_final": 0.1}, "lr_final must not exceed lr"),
    ],
)
def test_invalid_hjb_values_raise_one_sentence(changes, message):
    with pytest.raises(ConfigError, match=f"^{message}"):
        HJBConfig(**changes)


def test_lbfgs_polish_lowers_the_loss_on_its_grid():
    result = hjb.train(HJBConfig(steps=300, steps_per_call=100, dtype="float64", polish_iters=30, polish_points=200,
                                 eval_every=0, eval_points=50))
    polish = result.polish
    assert 0 < polish["polish_iterations"] <= 30
    assert polish["polish_loss"] < polish["polish_start_loss"]
    assert result.train_seconds >= polish["polish_seconds"]


def test_presets_give_their_values_and_explicit_values_win():
    from rlcore.contract import workloads

    hjb_preset = workloads.get("hjb").make_config  # the presets as every caller takes them: values over a preset
    assert hjb_preset({}, "seed") == HJBConfig()
    accurate = hjb_preset({"steps": 10}, "accurate")
    assert (accurate.dtype, accurate.exec_mode, accurate.derivative) == ("float64", "xla", "tangent")
    assert accurate.steps == 10
    with pytest.raises(ConfigError, match="preset must be one of seed, accurate"):
        hjb_preset({}, "fast")


def test_the_fitted_guess_starts_on_the_right_branch():
    """init=guess fits Moll's u(A k^alpha)/rho first: V' > 0 and moderate on the whole interval before any step."""
    cfg = HJBConfig(init="guess", eval_points=50)
    solver = hjb.Solver(cfg)
    fit = solver.fit_guess()
    k = np.linspace(cfg.k_min, cfg.k_max, 50)
    v, v_prime = solver.value_and_slope(k)
    guess = hjb.growth_model(cfg).initial_guess(k)
    assert fit["init_misfit"] < 1.0 and np.abs(v / guess - 1).max() < 0.05
    assert (v_prime > 0.1).all()  # far from the floor 1e-7 where the spurious branch lives


SHORT = {"steps": 8000, "steps_per_call": 1000, "eval_every": 0, "eval_points": 50, "exec_mode": "graph"}


def test_a_flat_start_cut_short_is_judged_not_converged_and_named_the_spurious_branch():
    """The seed's flat start first drifts toward V ≈ 0 (8k of its steps sit there): the verdict says so."""
    from rlcore.contract import workloads

    cfg = HJBConfig(**SHORT)
    verdict = workloads.get("hjb").judge(cfg, hjb.train(cfg).summary())
    assert verdict.level == "fail" and "spurious solution V ≈ 0" in verdict.text


def test_the_same_run_from_the_fitted_guess_stays_off_the_spurious_branch():
    from rlcore.contract import workloads

    cfg = HJBConfig(init="guess", **SHORT)
    result = hjb.train(cfg)
    verdict = workloads.get("hjb").judge(cfg, result.summary())
    assert "spurious" not in verdict.text and result.accuracy.max_rel_err_V < 0.05
    assert result.polish["init_iterations"] > 0
