"""The HJB yardsticks: closed-form anchors, the exact saddle path, and first-order finite differences."""

import numpy as np
import pytest

from rlcore.workloads.hjb.reference import GrowthModel, saddle_path, solve_fd

MODEL = GrowthModel()


def test_closed_form_anchors():
    assert MODEL.k_star == pytest.approx(2.9536522919, rel=1e-9)
    assert MODEL.c_star == pytest.approx(0.5 * MODEL.k_star**0.36 - 0.05 * MODEL.k_star, rel=1e-12)
    assert MODEL.c_star == pytest.approx(0.5907304584, rel=1e-9)
    assert MODEL.v_star == pytest.approx(-42.3204858418, rel=1e-9)
    assert MODEL.saddle_slope == pytest.approx(0.09848567, rel=1e-6)


def test_saddle_path_passes_through_the_steady_state_and_solves_the_hjb():
    k = np.linspace(0.1, 10, 401)
    exact = saddle_path(MODEL, np.append(k, MODEL.k_star))
    assert exact.c[-1] == pytest.approx(MODEL.c_star, rel=1e-6)
    assert exact.V[-1] == pytest.approx(MODEL.v_star, rel=1e-6)
    # V is built from the HJB with V' = u'(c); check that V' really is the slope of V.
    points, h = np.array([0.101, 0.5, 1.0, 2.0, 4.0, 9.99]), 1e-5
    slope = (saddle_path(MODEL, points + h).V - saddle_path(MODEL, points - h).V) / (2 * h)
    np.testing.assert_allclose(slope, MODEL.u_prime(saddle_path(MODEL, points).c), rtol=1e-6)
    assert np.all(np.diff(exact.c[:-1]) > 0) and np.all(np.diff(exact.V[:-1]) > 0)
    assert exact.V[0] == pytest.approx(-67.65, abs=0.05) and exact.V[-2] == pytest.approx(-32.07, abs=0.05)


def test_finite_differences_agree_with_the_saddle_path_to_first_order():
    fd = solve_fd(MODEL, points=10_000)
    exact = saddle_path(MODEL, fd.k)
    assert fd.iterations < 50
    err_v = np.abs(fd.V - exact.V)
    assert err_v.max() < 0.05 and np.argmax(err_v) < 10  # worst at k_min, about 2.5e-2
    assert np.abs(fd.c - exact.c).max() < 1e-3


def test_finite_difference_error_halves_when_the_grid_step_halves():
    errors = []
    for points in (1_000, 2_000, 4_000):
        fd = solve_fd(MODEL, points=points)
        errors.append(np.abs(fd.V - saddle_path(MODEL, fd.k).V).max())
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 1.7) & (ratios < 2.3)), ratios
