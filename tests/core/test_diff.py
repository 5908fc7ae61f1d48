"""Difference and ratio curves against a baseline."""

import numpy as np
import pytest

from tb_multiframework.core.diff import difference_curve


def test_hand_computed_difference_and_ratio():
    xa, ya = [0.0, 1.0, 3.0], [1.0, 3.0, 7.0]
    xb, yb = [0.5, 2.0, 3.5], [10.0, 16.0, 22.0]
    # overlap [0.5, 3]; grid 0.5, 1, 2, 3
    # A there: 2, 3, 5, 7.  B there: 10, 12, 16, 20.
    out = difference_curve(xa, ya, xb, yb)
    np.testing.assert_allclose(out.x, [0.5, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(out.y, [-8.0, -9.0, -11.0, -13.0], rtol=1e-15)
    ratio = difference_curve(xa, ya, xb, yb, mode="ratio")
    np.testing.assert_allclose(ratio.y, [0.2, 0.25, 5 / 16, 0.35], rtol=1e-15)


def test_matches_numpy_interp_on_random_series():
    rng = np.random.default_rng(4)
    xa = np.sort(rng.uniform(0, 100, 500))
    xb = np.sort(rng.uniform(10, 120, 300))
    ya, yb = rng.normal(size=500), rng.normal(size=300)
    out = difference_curve(xa, ya, xb, yb)
    lo, hi = max(xa[0], xb[0]), min(xa[-1], xb[-1])
    grid = np.unique(np.concatenate([xa, xb]))
    grid = grid[(grid >= lo) & (grid <= hi)]
    expected = np.interp(grid, xa, ya) - np.interp(grid, xb, yb)
    np.testing.assert_array_equal(out.x, grid)
    np.testing.assert_allclose(out.y, expected, rtol=1e-12, atol=1e-12)


def test_nan_makes_a_gap_only_next_to_itself():
    xa = np.arange(6, dtype=np.float64)
    ya = np.array([0.0, 1.0, np.nan, 3.0, 4.0, 5.0])
    xb = np.arange(6, dtype=np.float64) + 0.5
    yb = np.zeros(6)
    out = difference_curve(xa, ya, xb, yb)
    assert out.x.tolist() == [0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5]
    gap = np.isnan(out.y)
    # NaN at x=2 blanks the open intervals (1, 2) and (2, 3) only.
    assert out.x[gap].tolist() == [1.5, 2.0, 2.5]
    np.testing.assert_allclose(out.y[~gap], [0.5, 1.0, 3.0, 3.5, 4.0, 4.5, 5.0])


def test_inf_is_a_marker_at_its_own_x_and_a_gap_beside_it():
    xa, ya = [0.0, 1.0, 2.0, 3.0], [0.0, np.inf, 2.0, 3.0]
    xb, yb = [0.0, 3.0], [0.0, 0.0]
    out = difference_curve(xa, ya, xb, yb)
    assert out.x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert out.y[1] == np.inf
    assert out.y[[0, 2, 3]].tolist() == [0.0, 2.0, 3.0]


def test_baseline_nan_between_grid_points():
    xa, ya = [0.0, 1.0, 2.0], [1.0, 1.0, 1.0]
    xb, yb = [0.0, 2.0], [np.nan, 4.0]
    out = difference_curve(xa, ya, xb, yb)
    assert np.isnan(out.y[0]) and np.isnan(out.y[1])  # interval next to NaN
    assert out.y[2] == -3.0


def test_ratio_by_zero_is_a_gap():
    out = difference_curve(
        [0.0, 1.0], [1.0, 2.0], [0.0, 1.0], [0.0, 4.0], mode="ratio"
    )
    assert np.isnan(out.y[0]) and out.y[1] == 0.5


def test_no_overlap_no_extrapolation():
    out = difference_curve([0.0, 1.0], [1.0, 2.0], [2.0, 3.0], [1.0, 2.0])
    assert out.x.size == 0 and out.y.size == 0
    # partial overlap: nothing outside [1, 2]
    out = difference_curve([0.0, 2.0], [0.0, 2.0], [1.0, 5.0], [0.0, 0.0])
    assert out.x.tolist() == [1.0, 2.0]
    assert out.y.tolist() == [1.0, 2.0]


def test_repeated_x_uses_last_logged_value():
    xa, ya = [0.0, 1.0, 1.0, 2.0], [0.0, 5.0, 1.0, 2.0]
    out = difference_curve(xa, ya, [0.0, 2.0], [0.0, 0.0])
    assert out.x.tolist() == [0.0, 1.0, 2.0]
    assert out.y.tolist() == [0.0, 1.0, 2.0]


def test_bad_arguments():
    with pytest.raises(ValueError, match="'product'"):
        difference_curve([0.0], [1.0], [0.0], [1.0], mode="product")
    with pytest.raises(ValueError, match="sorted"):
        difference_curve([1.0, 0.0], [1.0, 1.0], [0.0], [1.0])
    with pytest.raises(ValueError, match="equal length"):
        difference_curve([0.0, 1.0], [1.0], [0.0], [1.0])
