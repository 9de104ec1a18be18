"""Reference solutions of the growth model's HJB equation, the yardstick for the network solver.

Model: u(c) = c^(1-γ)/(1-γ), f(k) = A k^α, ρV = max_c u(c) + V'(k)(f(k) - δk - c), c = V'^(-1/γ).
Two independent references:
- ``solve_fd``: implicit upwind finite differences with state-constraint boundaries
  (Achdou-Han-Lasry-Lions-Moll, Moll's ``HJB_NGM_implicit.m``); first order in the grid step.
- ``saddle_path``: the exact policy c(k), integrated outward from the steady state along the stable
  manifold of the Euler equation; V then follows from the HJB itself. Exact to ODE tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class GrowthModel:
    """Parameters of the neoclassical growth model (the seed's values)."""

    gamma: float = 2.0
    rho: float = 0.04
    A: float = 0.5
    alpha: float = 0.36
    delta: float = 0.05

    def f(self, k: np.ndarray) -> np.ndarray:
        return self.A * k**self.alpha

    def f_prime(self, k: np.ndarray) -> np.ndarray:
        return self.alpha * self.A * k ** (self.alpha - 1)

    def u(self, c: np.ndarray) -> np.ndarray:
        return c ** (1 - self.gamma) / (1 - self.gamma)

    def u_prime(self, c: np.ndarray) -> np.ndarray:
        return c ** (-self.gamma)

    def consumption(self, v_prime: np.ndarray) -> np.ndarray:
        """First-order condition: c = V'^(-1/γ)."""
        return v_prime ** (-1 / self.gamma)

    @property
    def k_star(self) -> float:
        """Steady state: f'(k*) = ρ + δ."""
        return (self.alpha * self.A / (self.rho + self.delta)) ** (1 / (1 - self.alpha))

    @property
    def c_star(self) -> float:
        """Zero drift at k*: c* = f(k*) - δk*."""
        return float(self.f(self.k_star) - self.delta * self.k_star)

    @property
    def v_star(self) -> float:
        """At k* the drift is zero, so ρV(k*) = u(c*)."""
        return float(self.u(self.c_star) / self.rho)

    @property
    def saddle_slope(self) -> float:
        """c'(k*): the positive root of λ² - ρλ + c* f''(k*)/γ = 0."""
        k = self.k_star
        f2 = self.alpha * (self.alpha - 1) * self.A * k ** (self.alpha - 2)
        return float((self.rho + np.sqrt(self.rho**2 - 4 * self.c_star * f2 / self.gamma)) / 2)

    def initial_guess(self, k: np.ndarray) -> np.ndarray:
        """Moll's initial guess v0 = u(A k^α)/ρ: consume all output forever; increasing and concave."""
        return self.u(self.f(k)) / self.rho

    def hjb_residual(self, k: np.ndarray, v: np.ndarray, v_prime: np.ndarray) -> np.ndarray:
        """ρV - u(c) - V'(f(k) - δk - c) with c from the first-order condition."""
        c = self.consumption(v_prime)
        return self.rho * v - self.u(c) - v_prime * (self.f(k) - self.delta * k - c)


@dataclass(frozen=True)
class Solution:
    """Value and policy on a grid of k."""

    k: np.ndarray
    V: np.ndarray
    c: np.ndarray
    iterations: int = 0


def solve_fd(model: GrowthModel, k_min: float = 0.1, k_max: float = 10.0, points: int = 10_000, *,
             step: float = 1000.0, tol: float = 1e-6, max_iter: int = 200) -> Solution:
    """Implicit upwind finite differences (Δ = ``step``) until max |Vⁿ⁺¹ - Vⁿ| < ``tol``."""
    import scipy.linalg  # here, not at the top: judging a stored run (every row of the Runs page) needs no SciPy

    k = np.linspace(k_min, k_max, points)
    dk = k[1] - k[0]
    net_output = model.f(k) - model.delta * k
    if net_output[0] <= 0 or net_output[-1] <= 0:
        raise ValueError("f(k) - δk must be positive at both ends for the state-constraint boundaries.")
    v = model.u(model.f(k)) / model.rho  # consume all output forever: increasing and concave
    dv_steady = model.u_prime(net_output)  # V' that makes the drift zero
    for it in range(1, max_iter + 1):
        dv = np.diff(v) / dk
        dv_fwd = np.append(dv, dv_steady[-1])  # state constraint at k_max
        dv_bwd = np.insert(dv, 0, dv_steady[0])  # state constraint at k_min
        drift_fwd = net_output - model.consumption(dv_fwd)
        drift_bwd = net_output - model.consumption(dv_bwd)
        use_fwd = drift_fwd > 0
        use_bwd = (drift_bwd < 0) & ~use_fwd
        dv_up = np.where(use_fwd, dv_fwd, np.where(use_bwd, dv_bwd, dv_steady))
        c = model.consumption(dv_up)
        lower = -np.minimum(drift_bwd, 0) / dk  # coefficient on V_{i-1}
        upper = np.maximum(drift_fwd, 0) / dk  # coefficient on V_{i+1}
        # [(ρ + 1/Δ)I - A] Vⁿ⁺¹ = u(c) + Vⁿ/Δ, with A tridiagonal (lower, -lower-upper, upper).
        bands = np.zeros((3, points))
        bands[0, 1:] = -upper[:-1]
        bands[1] = model.rho + 1 / step + lower + upper
        bands[2, :-1] = -lower[1:]
        v_new = scipy.linalg.solve_banded((1, 1), bands, model.u(c) + v / step)
        change = np.max(np.abs(v_new - v))
        v = v_new
        if change < tol:
            return Solution(k, v, c, it)
    raise RuntimeError(f"finite differences did not converge in {max_iter} iterations (last change {change:.2e}).")


def saddle_path(model: GrowthModel, k: np.ndarray, *, offset: float = 1e-6, rtol: float = 1e-12) -> Solution:
    """Exact c(k) on the stable manifold and V(k) from the HJB, at the given k values."""
    import scipy.integrate

    k = np.asarray(k, dtype=float)
    ks, cs, slope = model.k_star, model.c_star, model.saddle_slope

    def euler(kk: float, c: np.ndarray) -> np.ndarray:
        return c / model.gamma * (model.f_prime(kk) - model.rho - model.delta) / (
            model.f(kk) - model.delta * kk - c)

    c = np.full_like(k, cs)
    for side, end in ((k < ks, k.min()), (k > ks, k.max())):
        if not side.any():
            continue
        start = ks + np.sign(end - ks) * offset * ks
        sol = scipy.integrate.solve_ivp(euler, (start, end), [cs + slope * (start - ks)], method="DOP853", rtol=rtol,
                        atol=1e-14, dense_output=True)
        c[side] = sol.sol(k[side])[0]
    v_prime = model.u_prime(c)
    v = (model.u(c) + v_prime * (model.f(k) - model.delta * k - c)) / model.rho
    return Solution(k, v, c)


def spurious_branch(cfg: Any, V: Sequence[float], c: Sequence[float], V_exact: Sequence[float]) -> str | None:
    """Why a solution on a grid is the residual's spurious branch, or None when it is not.

    With c = max(V', floor)^(-1/γ), the residual has a degenerate near-solution: V ≈ 0 and V' at its floor, so
    c = floor^(-1/γ) (3,162 for the default floor, γ = 2) and u(c) = c^(1-γ)/(1-γ) ≈ 0; the residual is then
    almost 0 although nothing is solved. A network that starts flat drifts toward it first.
    """
    v, cons, exact = (np.asarray(x, dtype=float) for x in (V, c, V_exact))
    if not v.size or v.shape != exact.shape:
        return None
    c_floor = cfg.vprime_floor ** (-1.0 / cfg.gamma)
    at_floor = float(np.mean(cons >= 0.5 * c_floor))
    flat = float(np.median(np.abs(v))) < 0.1 * float(np.median(np.abs(exact)))
    if at_floor <= 0.5 and not flat:
        return None
    return (f"the network fell into the residual's spurious solution V ≈ 0 (V' at its floor on {at_floor:.0%} of "
            f"the grid, so c ≈ {c_floor:,.0f} where the exact c is about 1): u(c) → 0 as c → ∞ makes the residual "
            "nearly 0 there without solving anything")
