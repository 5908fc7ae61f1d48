"""Smoothing: TensorBoard's classicSmoothing, and the x-aware EMA."""

import numpy as np
import pytest

from tb_multiframework.core.smoothing import smooth_ema, smooth_time_ema
from tests.core.reference_scalars import ema_loop as tensorboard_loop


def brute_force_time_ema(x, y, weight, spacing):
    """O(n^2) weighted mean with weights weight ** (distance / spacing)."""
    out = []
    for k in range(len(y)):
        num = den = 0.0
        for i in range(k + 1):
            wi = weight ** ((x[k] - x[i]) / spacing)
            num += wi * y[i]
            den += wi
        out.append(num / den)
    return out


def test_tensorboard_example_values():
    # The numbers of TensorBoard's own data_transformer_test, by hand.
    got = smooth_ema([1.0, 0.5, 0.0], 0.6)
    third = ((0.5 * 0.4 + 0.4 * 1 * 0.6) * 0.6 + 0) / (1 - 0.6**3)
    np.testing.assert_allclose(got, [1.0, 0.6875, third], rtol=1e-15)
    got = smooth_ema([0.0, 0.5, 1.0], 0.6)
    third = (1 * 0.4 + 0.5 * 0.4 * 0.6) / (1 - 0.6**3)
    np.testing.assert_allclose(got, [0.0, 0.3125, third], rtol=1e-15)


def test_non_finite_pass_through_and_do_not_advance_count():
    got = smooth_ema([-np.inf, 1.0, np.nan, np.inf, 0.5], 0.6)
    assert got[0] == -np.inf
    assert got[1] == 1.0
    assert np.isnan(got[2])
    assert got[3] == np.inf
    # 0.5 is the second finite point: (0.5*0.4 + 0.4*1*0.6) / (1 - 0.36).
    assert got[4] == pytest.approx(0.6875, rel=1e-15)


def test_constant_series_returned_exactly():
    got = smooth_ema([0.3, 0.3, 0.3], 0.1)
    assert got.tolist() == [0.3, 0.3, 0.3]


def test_weight_zero_is_identity_and_weight_one_gives_zero():
    y = [1.0, 0.5, 0.0, np.nan]
    got0 = smooth_ema(y, 0.0)
    assert got0[:3].tolist() == [1.0, 0.5, 0.0] and np.isnan(got0[3])
    got1 = smooth_ema(y, 1.0)
    assert got1[:3].tolist() == [0.0, 0.0, 0.0] and np.isnan(got1[3])


def test_empty_and_all_nan():
    assert smooth_ema([], 0.6).size == 0
    assert np.all(np.isnan(smooth_ema([np.nan, np.nan], 0.6)))


@pytest.mark.parametrize("weight", [-0.1, 1.5, float("nan"), float("inf")])
def test_bad_weight_is_an_error(weight):
    with pytest.raises(ValueError, match="smoothing weight"):
        smooth_ema([1.0, 2.0], weight)


@pytest.mark.parametrize("weight", [0.05, 0.6, 0.9, 0.99, 0.999])
def test_matches_tensorboard_loop_on_long_series(weight):
    rng = np.random.default_rng(7)
    y = rng.normal(size=30_000).cumsum()
    y[rng.integers(0, y.size, 50)] = np.nan
    y[123] = np.inf
    expected = np.array(tensorboard_loop(y.tolist(), weight))
    got = smooth_ema(y, weight)
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(np.isfinite(got), finite)
    scale = np.abs(y[np.isfinite(y)]).max()
    assert np.max(np.abs(got[finite] - expected[finite])) < 1e-12 * scale


def test_time_ema_hand_values_with_unit_spacing():
    got = smooth_time_ema([0.0, 1.0, 3.0], [1.0, 2.0, 4.0], 0.5, spacing=1.0)
    # k=1: (0.5*1 + 2) / 1.5; k=2: (0.125*1 + 0.25*2 + 4) / 1.375
    np.testing.assert_allclose(got, [1.0, 2.5 / 1.5, 4.625 / 1.375], rtol=1e-14)


def test_time_ema_default_spacing_is_median_gap():
    x = [0.0, 2.0, 4.0, 10.0]  # gaps 2, 2, 6 -> spacing 2
    y = [1.0, 2.0, 3.0, 4.0]
    weights = [0.5**5, 0.5**4, 0.5**3, 1.0]
    last = sum(w * v for w, v in zip(weights, y)) / sum(weights)
    got = smooth_time_ema(x, y, 0.5)
    assert got[-1] == pytest.approx(last, rel=1e-14)


def test_time_ema_equals_tensorboard_for_even_spacing():
    rng = np.random.default_rng(3)
    y = rng.normal(size=5000)
    x = 10.0 + 4.0 * np.arange(y.size)
    for weight in (0.3, 0.6, 0.95):
        expected = tensorboard_loop(y.tolist(), weight)
        np.testing.assert_allclose(
            smooth_time_ema(x, y, weight), expected, rtol=1e-10, atol=1e-12
        )


def test_time_ema_matches_brute_force_on_uneven_x():
    rng = np.random.default_rng(5)
    x = np.cumsum(rng.exponential(size=300))
    x[50] = x[49]  # a repeated x counts as a second point at that x
    y = rng.normal(size=300)
    expected = brute_force_time_ema(x.tolist(), y.tolist(), 0.8, 0.7)
    got = smooth_time_ema(x, y, 0.8, spacing=0.7)
    np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-13)


def test_time_ema_same_x_points_count_equally():
    assert smooth_time_ema([0.0, 0.0], [1.0, 3.0], 0.9).tolist() == [1.0, 2.0]


def test_time_ema_non_finite_pass_through():
    got = smooth_time_ema([0.0, 1.0, 2.0], [1.0, np.nan, 2.0], 0.5, spacing=1)
    # the NaN takes no part: weights 0.25 (x=0) and 1 (x=2)
    assert np.isnan(got[1])
    assert got[2] == pytest.approx((0.25 * 1 + 2) / 1.25)


def test_time_ema_rejects_bad_input():
    with pytest.raises(ValueError, match="sorted"):
        smooth_time_ema([1.0, 0.0], [1.0, 2.0], 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        smooth_time_ema([0.0, 1.0], [1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match="spacing"):
        smooth_time_ema([0.0, 1.0], [1.0, 2.0], 0.5, spacing=0.0)
    with pytest.raises(ValueError, match="points"):
        smooth_time_ema([0.0], [1.0, 2.0], 0.5)
