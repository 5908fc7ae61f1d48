"""Min/max downsampling: spikes, non-finite values and counts survive."""

import numpy as np
import pytest

from tb_multiframework.core.downsample import MAX_POINTS, downsample_minmax


def test_spike_survives_200k_points_in_100_buckets():
    rng = np.random.default_rng(11)
    n = 200_000
    x = np.arange(n, dtype=np.float64)
    y = rng.normal(size=n)
    y[137_771] = 40.0  # one spike, far above the noise
    y[42] = -40.0
    out = downsample_minmax(x, y, buckets=100)
    assert out.total == n
    assert out.returned == out.x.size == out.y.size <= 4 * 100
    assert 40.0 in out.y.tolist() and -40.0 in out.y.tolist()
    assert out.x[out.y.tolist().index(40.0)] == 137_771
    # Every kept point is a real input point, in x order.
    assert np.all(np.diff(out.x) > 0)
    np.testing.assert_array_equal(y[out.x.astype(int)], out.y)


def test_band_is_each_buckets_min_and_max():
    rng = np.random.default_rng(2)
    n = 10_000
    x = np.linspace(0.0, 99.0, n)
    y = rng.normal(size=n)
    out = downsample_minmax(x, y, buckets=10)
    # Buckets of width 9.9 over [0, 99]; the last is closed on the right.
    for b in range(10):
        lo, hi = 9.9 * b, 9.9 * (b + 1)
        inside = (x >= lo) & ((x < hi) if b < 9 else (x <= hi))
        kept = (out.x >= lo) & ((out.x < hi) if b < 9 else (out.x <= hi))
        assert kept.sum() >= 2
        assert np.all(out.y_min[kept] == y[inside].min())
        assert np.all(out.y_max[kept] == y[inside].max())
        assert y[inside].min() in out.y[kept] and y[inside].max() in out.y[kept]
        # first and last point of the bucket are kept too
        assert x[inside][0] in out.x[kept] and x[inside][-1] in out.x[kept]


def test_small_series_returned_whole():
    x = np.arange(40, dtype=np.float64)
    y = np.sin(x)
    out = downsample_minmax(x, y, buckets=10)
    assert out.total == out.returned == 40
    np.testing.assert_array_equal(out.y, y)
    np.testing.assert_array_equal(out.y_min, y)
    np.testing.assert_array_equal(out.indices, np.arange(40))


def test_non_finite_values_stay_visible():
    n = 1000
    x = np.arange(n, dtype=np.float64)
    y = np.ones(n)
    y[100], y[500], y[900] = np.nan, np.inf, -np.inf
    out = downsample_minmax(x, y, buckets=5)
    assert np.isnan(out.y).sum() == 1 and out.x[np.isnan(out.y)][0] == 100
    assert out.x[out.y == np.inf].tolist() == [500.0]
    assert out.x[out.y == -np.inf].tolist() == [900.0]
    # bands are over finite values only
    assert np.all(out.y_min == 1.0) and np.all(out.y_max == 1.0)


def test_bucket_without_finite_values_has_nan_band():
    x = np.arange(100, dtype=np.float64)
    y = np.zeros(100)
    y[50:] = np.nan
    out = downsample_minmax(x, y, buckets=2)
    assert np.all(np.isnan(out.y_min[out.x >= 50]))
    assert np.all(out.y_max[out.x < 50] == 0.0)


def test_repeated_x_all_in_one_bucket():
    x = np.zeros(50)
    y = np.arange(50, dtype=np.float64)
    out = downsample_minmax(x, y, buckets=1)
    assert out.y.tolist() == [0.0, 49.0]  # first = min, last = max


@pytest.mark.parametrize("buckets", [0, -1, MAX_POINTS + 1, 2.5, True])
def test_bad_bucket_count(buckets):
    with pytest.raises(ValueError, match="buckets"):
        downsample_minmax([0.0, 1.0], [1.0, 2.0], buckets=buckets)


def test_unsorted_or_non_finite_x_is_an_error():
    with pytest.raises(ValueError, match="sorted"):
        downsample_minmax([1.0, 0.0], [1.0, 2.0], buckets=1)
    with pytest.raises(ValueError, match="finite"):
        downsample_minmax([0.0, np.nan], [1.0, 2.0], buckets=1)
