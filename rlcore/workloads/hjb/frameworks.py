"""One training step of the seed's HJB network in PyTorch and JAX, for the framework-step bench: the same 3x8 tanh
network, the same residual (V' by automatic differentiation, clamped at its floor, held fixed in the residual's
gradient as the seed does), the same Adam, the same batch of k drawn uniformly each step.

Each builder returns a call that runs its steps and forces the result (``.item()``, ``block_until_ready``), so a
timed call is work done, not work queued. The first call (torch.compile's and jit's compile) is timed apart by the
bench's harness.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rlcore.workloads.hjb.config import HJBConfig

Call = Callable[[], object]


def _residual_terms(cfg: HJBConfig, k: Any, vp: Any, xp: Any) -> tuple[Any, Any]:
    """u(c) and the drift for V' (already at its floor): c = V'^(-1/γ)."""
    c = _power(vp, -1.0 / cfg.gamma, xp)
    drift = cfg.A * k ** cfg.alpha - c - cfg.delta * k
    return _power(c, 1.0 - cfg.gamma, xp) / (1.0 - cfg.gamma), drift


def _power(x: Any, exponent: float, xp: Any) -> Any:
    """``x ** exponent`` by the cheaper op TensorFlow's solver uses for the same exponent (``solver.power``), so every
    framework computes the residual the same way (XLA turns JAX's 1 / sqrt into its rsqrt)."""
    if exponent == -0.5:
        return xp.rsqrt(x) if hasattr(xp, "rsqrt") else 1.0 / xp.sqrt(x)
    if exponent == -1.0:
        return 1.0 / x
    if exponent == 0.5:
        return xp.sqrt(x)
    if exponent == 2.0:
        return x * x
    return x ** exponent


# ---------------------------------------------------------------- PyTorch


def torch_step(cfg: HJBConfig, compiled: bool) -> Call:
    """PyTorch eager, V' by ``torch.autograd.grad`` with ``create_graph`` (the seed's nested tape, as PyTorch
    users write it); or ``torch.compile``d, V' by ``torch.func`` (vmap of grad), because torch.compile's autograd
    cannot run a double backward and does trace torch.func's transforms."""
    import torch
    from torch.func import functional_call, grad, vmap

    torch.manual_seed(cfg.seed)
    layers: list[torch.nn.Module] = []
    width_in = 1
    for _ in range(cfg.depth):
        layers += [torch.nn.Linear(width_in, cfg.width), torch.nn.Tanh()]
        width_in = cfg.width
    out = torch.nn.Linear(width_in, 1)
    torch.nn.init.constant_(out.bias, cfg.output_bias)
    net = torch.nn.Sequential(*layers, out)
    params = dict(net.named_parameters())
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    generator = torch.Generator().manual_seed(cfg.seed)

    def residual_loss(k: Any, v: Any, vp: Any) -> Any:
        vp = torch.clamp(vp, min=cfg.vprime_floor)
        utility, drift = _residual_terms(cfg, k, vp, torch)
        residual = utility - cfg.rho * v + vp.detach() * drift
        return torch.mean(residual * residual)

    def loss_tape(k: Any) -> Any:
        k = k.requires_grad_(True)
        v = net(k)
        (vp,) = torch.autograd.grad(v.sum(), k, create_graph=True)
        return residual_loss(k, v, vp)

    def value(p: dict[str, Any], k: Any) -> Any:  # one k -> V(k)
        return functional_call(net, p, (k.reshape(1, 1),)).reshape(())

    def loss_func(k: Any) -> Any:
        v = functional_call(net, params, (k,))
        vp = vmap(grad(value, argnums=1), in_dims=(None, 0))(params, k.reshape(-1)).reshape(-1, 1)
        return residual_loss(k, v, vp)

    loss_fn = torch.compile(loss_func) if compiled else loss_tape

    def step() -> float:
        k = torch.rand((cfg.batch_size, 1), generator=generator) * (cfg.k_max - cfg.k_min) + cfg.k_min
        loss = loss_fn(k)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()  # fetched every step, as the seed fetches its loss

    return step


# ---------------------------------------------------------------- JAX


def jax_step(cfg: HJBConfig, steps_per_call: int) -> Call:
    """JAX: one jitted step per call, or ``steps_per_call`` of them in a ``lax.fori_loop`` inside one jit."""
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(cfg.seed)
    params = []
    width_in = 1
    for _ in range(cfg.depth):
        key, sub = jax.random.split(key)
        limit = math.sqrt(6.0 / (width_in + cfg.width))  # Glorot uniform, as Keras starts the TensorFlow network
        params.append((jax.random.uniform(sub, (width_in, cfg.width), minval=-limit, maxval=limit),
                       jnp.zeros(cfg.width, jnp.float32)))
        width_in = cfg.width
    key, sub = jax.random.split(key)
    limit = math.sqrt(6.0 / (width_in + 1))
    params.append((jax.random.uniform(sub, (width_in, 1), minval=-limit, maxval=limit),
                   jnp.full((1,), cfg.output_bias, jnp.float32)))

    def value(p: Any, k: Any) -> Any:
        h = k
        for w, b in p[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = p[-1]
        return h @ w + b

    def loss(p: Any, k: Any) -> Any:
        v = value(p, k)
        vp = jax.vmap(jax.grad(lambda kk: value(p, kk.reshape(1, 1))[0, 0]))(k[:, 0])[:, None]
        vp = jnp.maximum(vp, cfg.vprime_floor)
        utility, drift = _residual_terms(cfg, k, vp, jnp)
        residual = utility - cfg.rho * v + jax.lax.stop_gradient(vp) * drift
        return jnp.mean(residual * residual)

    # Adam, as Keras and PyTorch run it (β 0.9 / 0.999, ε 1e-7 like Keras), on the parameter tree.
    b1, b2, eps, lr = 0.9, 0.999, 1e-7, cfg.learning_rate
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)

    def adam_step(i: Any, state: Any) -> Any:
        p, m, v, t, key, _ = state
        key, sub = jax.random.split(key)
        k = jax.random.uniform(sub, (cfg.batch_size, 1), minval=cfg.k_min, maxval=cfg.k_max)
        value_loss, g = jax.value_and_grad(loss)(p, k)
        t = t + jnp.float32(1)
        m = jax.tree_util.tree_map(lambda a, b: b1 * a + (1 - b1) * b, m, g)
        v = jax.tree_util.tree_map(lambda a, b: b2 * a + (1 - b2) * b * b, v, g)
        scale = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        p = jax.tree_util.tree_map(lambda a, mm, vv: a - scale * mm / (jnp.sqrt(vv) + eps), p, m, v)
        return p, m, v, t, key, value_loss

    # Every leaf's type fixed (no weak types): the state a call returns has the avals it was compiled for, so jit
    # compiles once, in the first call, which the harness times apart.
    state = [(params, zeros, zeros, jnp.zeros((), jnp.float32), key, jnp.zeros((), jnp.float32))]
    if steps_per_call == 1:
        run = jax.jit(lambda s: adam_step(0, s))
    else:
        run = jax.jit(lambda s: jax.lax.fori_loop(0, steps_per_call, adam_step, s))

    def call() -> float:
        state[0] = run(state[0])
        return float(state[0][-1].block_until_ready())  # the loss, fetched: the call's work is done

    return call


def threads() -> dict[str, Any]:
    """The threads each installed framework computes with in this process (the bench's cells say so)."""
    out: dict[str, Any] = {}
    try:
        import torch

        out["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass
    return out
