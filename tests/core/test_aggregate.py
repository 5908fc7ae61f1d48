"""Group aggregates against numpy/scipy computed by hand.

The reference below reads each member at every grid x with `np.interp`
inside its own range (plus an explicit NaN rule), then takes numpy's
nanmean/nanmedian/nanstd(ddof=1)/nanmin/nanmax and scipy's t quantile:
none of it is the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from tb_multiframework.core import aggregate as agg


def _reference_matrix(members, grid):
    rows = []
    for x, y in members:
        x = np.asarray(x, float)
        y = np.asarray(y, float)
        row = np.full(grid.size, np.nan)
        inside = (grid >= x[0]) & (grid <= x[-1])
        for j in np.flatnonzero(inside):
            g = grid[j]
            hit = np.flatnonzero(x == g)
            if hit.size:
                row[j] = y[hit[-1]]
                continue
            k = np.searchsorted(x, g)
            y0, y1 = y[k - 1], y[k]
            if np.isfinite(y0) and np.isfinite(y1):
                row[j] = np.interp(g, [x[k - 1], x[k]], [y0, y1])
        row[~np.isfinite(row)] = np.nan
        rows.append(row)
    return np.array(rows)


def _reference(members, center, band):
    grid = np.unique(np.concatenate([np.asarray(x, float) for x, _ in members]))
    m = _reference_matrix(members, grid)
    count = np.sum(~np.isnan(m), axis=0)
    with np.errstate(all="ignore"), _quiet():
        mid = (
            np.nanmean(m, axis=0)
            if center == "mean"
            else np.nanmedian(m, axis=0)
        )
        s = np.nanstd(m, axis=0, ddof=1)
    s[count < 2] = np.nan
    if band == "std":
        lo, hi = mid - s, mid + s
    elif band == "ci95":
        t = scipy.stats.t.ppf(0.975, np.maximum(count - 1, 1))
        half = np.where(count >= 2, t * s / np.sqrt(count), np.nan)
        lo, hi = mid - half, mid + half
    elif band == "minmax":
        with _quiet():
            lo, hi = np.nanmin(m, axis=0), np.nanmax(m, axis=0)
    else:
        lo = hi = None
    return grid, count, mid, lo, hi


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


def _check(members, center, band):
    stats = agg.aggregate(members, center=center)
    grid, count, mid, lo, hi = _reference(members, center, band)
    np.testing.assert_array_equal(stats.x, grid)
    np.testing.assert_array_equal(stats.count, count)
    np.testing.assert_allclose(stats.center, mid, rtol=1e-12, atol=1e-12)
    bounds = stats.band(band)
    if band == "none":
        assert bounds is None
        return
    if band == "ci95":
        # center ± t·s/√n: the t quantile (agg.t975's table, against
        # scipy's t.ppf) agrees to 1.3e-8 relative, so the half widths do
        # too; a bound near 0 would turn that into any relative error.
        for got, want in ((bounds[0], lo), (bounds[1], hi)):
            np.testing.assert_allclose(
                np.abs(got - stats.center),
                np.abs(want - mid),
                rtol=2e-8,
                atol=1e-12,
            )
        return
    np.testing.assert_allclose(bounds[0], lo, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(bounds[1], hi, rtol=1e-9, atol=1e-12)


def test_same_x_by_hand():
    members = [([0, 1, 2], [1.0, 2.0, 3.0]), ([0, 1, 2], [3.0, 4.0, 8.0])]
    stats = agg.aggregate(members, center="mean")
    assert stats.center.tolist() == [2.0, 3.0, 5.5]
    # sample std of {1, 3} is sqrt(2); of {3, 8} sqrt(12.5)
    np.testing.assert_allclose(stats.std, [2**0.5, 2**0.5, 12.5**0.5])
    lo, hi = stats.band("ci95")
    np.testing.assert_allclose(
        hi - stats.center, 12.706204736174694 * stats.std / 2**0.5
    )


def test_ragged_ranges_are_never_extrapolated():
    # member B covers only [1, 2]: count is 1 outside, and B's line at 1.5.
    members = [([0, 1, 2, 3], [0.0, 2.0, 4.0, 6.0]), ([1, 2], [10.0, 20.0])]
    stats = agg.aggregate(members, center="mean")
    assert stats.x.tolist() == [0, 1, 2, 3]
    assert stats.count.tolist() == [1, 2, 2, 1]
    assert stats.center.tolist() == [0.0, 6.0, 12.0, 6.0]
    assert np.isnan(stats.std[0]) and np.isnan(stats.std[3])


def test_different_x_interpolates_inside_each_range():
    members = [([0.0, 2.0], [0.0, 4.0]), ([1.0, 3.0], [10.0, 30.0])]
    stats = agg.aggregate(members, center="mean")
    # at x=1: A = 2 (line), B = 10; at x=2: A = 4, B = 20
    assert stats.x.tolist() == [0, 1, 2, 3]
    assert stats.count.tolist() == [1, 2, 2, 1]
    assert stats.center.tolist() == [0.0, 6.0, 12.0, 30.0]


def test_nan_is_absent_and_does_not_leak():
    members = [
        ([0, 1, 2, 3], [1.0, np.nan, 3.0, 4.0]),
        ([0, 1, 2, 3], [3.0, 5.0, 5.0, 6.0]),
    ]
    stats = agg.aggregate(members, center="mean")
    assert stats.count.tolist() == [2, 1, 2, 2]
    assert stats.center.tolist() == [2.0, 5.0, 4.0, 5.0]
    # NaN between two points of another member's grid: A at 0.5 is a gap
    members = [([0, 1], [1.0, np.inf]), ([0, 0.5, 1], [1.0, 2.0, 3.0])]
    stats = agg.aggregate(members, center="mean")
    assert stats.count.tolist() == [2, 1, 1]


def test_repeated_x_keeps_the_last_point():
    stats = agg.aggregate([([0, 1, 1, 2], [0.0, 5.0, 7.0, 9.0])], center="mean")
    assert stats.x.tolist() == [0, 1, 2]
    assert stats.center.tolist() == [0.0, 7.0, 9.0]


@pytest.mark.parametrize("center", ["mean", "median"])
@pytest.mark.parametrize("band", ["none", "std", "minmax", "ci95"])
def test_random_members_against_numpy(center, band):
    seed = 20261130
    rng = np.random.default_rng(seed)
    print("seed", seed)
    for _ in range(30):
        members = []
        for _ in range(int(rng.integers(1, 7))):
            n = int(rng.integers(1, 30))
            x = np.sort(rng.choice(np.arange(60) / 4, size=n, replace=False))
            if rng.random() < 0.3:
                x = np.sort(np.r_[x, x[: n // 3]])  # repeated x
            y = rng.normal(size=x.size)
            y[rng.random(x.size) < 0.1] = np.nan
            y[rng.random(x.size) < 0.03] = np.inf
            members.append((x, y))
        if any(_reference_repeats(x) for x, _ in members):
            members = [(*_dedupe(x, y),) for x, y in members]
        _check(members, center, band)


def _reference_repeats(x):
    return np.any(np.diff(x) == 0)


def _dedupe(x, y):
    keep = np.r_[x[1:] != x[:-1], True]
    return x[keep], y[keep]


def test_t_quantiles_match_scipy():
    dof = np.arange(1, 400)
    np.testing.assert_allclose(
        agg.t975(dof), scipy.stats.t.ppf(0.975, dof), rtol=0, atol=1e-6
    )
    assert np.isnan(agg.t975([0, -1])).all()


def test_group_difference_by_hand():
    a = [([0, 1, 2], [1.0, 2.0, 3.0]), ([0, 1, 2], [3.0, 4.0, 5.0])]
    b = [([1, 2, 3], [0.0, 0.0, 0.0]), ([1, 2, 3], [2.0, 2.0, 2.0])]
    found = agg.group_difference(a, b, center="mean", band="std")
    assert found.x.tolist() == [1, 2]
    assert found.y.tolist() == [2.0, 3.0]
    se = np.sqrt(2.0 / 2 + 2.0 / 2)  # sA = sB = sqrt(2), n = 2
    np.testing.assert_allclose(found.upper - found.y, [se, se])
    # at x=1 A is 3 ± 1.41 and B 1 ± 1.41: they overlap; at x=2 A is
    # 4 ± 1.41 = [2.59, 5.41] and B still [-0.41, 2.41]: separated.
    assert found.separated.tolist() == [False, True]
    ci = agg.group_difference(a, b, center="mean", band="ci95")
    np.testing.assert_allclose(
        ci.upper - ci.y, scipy.stats.t.ppf(0.975, 1) * se * np.ones(2)
    )
    mm = agg.group_difference(a, b, center="mean", band="minmax")
    assert mm.lower.tolist() == [2 - 2, 3 - 2]
    assert mm.upper.tolist() == [4 - 0, 5 - 0]
    far = [([1, 2], [100.0, 100.0]), ([1, 2], [101.0, 101.0])]
    assert agg.group_difference(
        far, b, center="mean", band="std"
    ).separated.all()


def test_bucket_envelope_keeps_band_extremes():
    x = np.arange(100, dtype=float)
    values = np.zeros(100)
    values[37] = -5.0
    kept = np.array([0, 24, 25, 49, 50, 74, 75, 99])
    out = agg.bucket_envelope(x, values, kept, 4, low=True)
    assert out.tolist() == [0, 0, -5, -5, 0, 0, 0, 0]


@pytest.mark.parametrize("center", ["mean", "median"])
@pytest.mark.parametrize("band", ["std", "minmax", "ci95"])
def test_dense_members_against_numpy(center, band):
    """Members at the same x without gaps (the fast path)."""
    seed = 7
    rng = np.random.default_rng(seed)
    print("seed", seed)
    x = np.sort(rng.choice(np.arange(1000) / 8, size=200, replace=False))
    for n in (1, 2, 5):
        members = [(x, rng.normal(size=x.size)) for _ in range(n)]
        _check(members, center, band)
