"""core.parity and diff.align_pair against numpy, on seeded random inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tb_multiframework.core import parity
from tb_multiframework.core.diff import align_pair, difference_curve

SEEDS = range(40)


def _random_pair(rng: np.random.Generator):
    """Two sorted series with repeated x, NaN/Inf and partial overlap."""

    def series():
        n = int(rng.integers(1, 60))
        x = np.sort(rng.choice(np.arange(0, 80, 0.5), size=n))
        y = rng.normal(size=n) * 10
        bad = rng.random(n)
        y[bad < 0.05] = np.nan
        y[(bad >= 0.05) & (bad < 0.08)] = np.inf
        return x, y

    return series(), series()


@pytest.mark.parametrize("seed", SEEDS)
def test_align_pair_is_what_the_difference_curve_subtracts(seed: int) -> None:
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    (xa, ya), (xb, yb) = _random_pair(rng)
    pair = align_pair(xa, ya, xb, yb)
    curve = difference_curve(xa, ya, xb, yb)
    np.testing.assert_array_equal(pair.x, curve.x)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(pair.a - pair.b, curve.y)


def _grid_by_hand(xa, ya, xb, yb):
    """The union grid and both values there, with np.interp (finite only)."""

    def last_per_x(x, y):
        keep = {}
        for xi, yi in zip(x.tolist(), y.tolist()):
            keep[xi] = yi
        xs = np.array(sorted(keep))
        return xs, np.array([keep[v] for v in xs])

    ax, ay = last_per_x(xa, ya)
    bx, by = last_per_x(xb, yb)
    lo, hi = max(ax[0], bx[0]), min(ax[-1], bx[-1])
    if lo > hi:
        return np.array([]), np.array([]), np.array([])
    grid = np.array(
        sorted({v for v in np.concatenate([ax, bx]) if lo <= v <= hi})
    )
    return grid, np.interp(grid, ax, ay), np.interp(grid, bx, by)


@pytest.mark.parametrize("seed", SEEDS)
def test_diff_stats_and_tolerance_match_numpy(seed: int) -> None:
    print(f"seed {seed}")
    rng = np.random.default_rng(1000 + seed)
    n_a, n_b = int(rng.integers(2, 50)), int(rng.integers(2, 50))
    xa = np.sort(rng.uniform(0, 100, n_a))
    xb = np.sort(rng.uniform(0, 100, n_b))
    ya, yb = rng.normal(size=n_a), rng.normal(size=n_b)
    grid, va, vb = _grid_by_hand(xa, ya, xb, yb)
    pair = align_pair(xa, ya, xb, yb)
    stats = parity.diff_stats(pair)
    if grid.size == 0:
        assert stats.points == 0 and stats.mean_abs is None
        return
    np.testing.assert_allclose(pair.x, grid)
    gaps = np.abs(vb - va)
    assert stats.points == stats.compared == grid.size
    assert stats.mean_abs == pytest.approx(gaps.mean(), rel=1e-12)
    assert stats.max_abs == pytest.approx(gaps.max(), rel=1e-12)
    assert stats.max_at == grid[np.argmax(gaps)]
    rtol, atol = float(rng.uniform(0, 0.5)), float(rng.uniform(0, 0.5))
    found = parity.check_tolerance(pair, rtol=rtol, atol=atol, window="all")
    close = np.isclose(vb, va, rtol=rtol, atol=atol)
    bad = np.flatnonzero(~close)
    # np.isclose is |b - a| <= atol + rtol * |a|: relative to the baseline.
    assert found.violations == bad.size
    assert found.checked == grid.size
    if bad.size:
        assert found.first.x == grid[bad[0]]
        ratios = gaps[bad] / (atol + rtol * np.abs(va[bad]))
        assert found.worst.x == grid[bad[np.argmax(ratios)]]
        assert found.worst.ratio == pytest.approx(ratios.max(), rel=1e-9)
    else:
        assert found.first is None and found.worst is None


def test_tolerance_non_finite_points() -> None:
    x = np.array([0.0, 1.0, 2.0, 3.0])
    base = np.array([1.0, np.nan, np.inf, 1.0])
    # same NaN, same Inf: pass; a candidate NaN where the baseline is 1: fail
    pair = align_pair(x, base, x, np.array([1.0, np.nan, np.inf, np.nan]))
    found = parity.check_tolerance(pair, rtol=0.1, atol=0.0)
    assert found.violations == 1
    assert found.first.x == 3.0 and math.isinf(found.first.ratio)
    pair = align_pair(x, base, x, np.array([1.0, 5.0, -np.inf, 1.0]))
    found = parity.check_tolerance(pair, rtol=0.1, atol=0.0)
    assert [found.first.x, found.violations] == [1.0, 2]


def test_windows() -> None:
    x = np.arange(10.0)
    pair = align_pair(x, np.ones(10), x, np.r_[np.ones(9), 2.0])
    assert not parity.check_tolerance(
        pair, rtol=0.1, atol=0, window="last"
    ).passed
    assert parity.check_tolerance(pair, rtol=0.1, atol=0, window=(0, 8)).passed
    assert (
        parity.check_tolerance(
            pair, rtol=0.1, atol=0, window=(-math.inf, 8.5)
        ).checked
        == 9
    )
    with pytest.raises(ValueError, match=r"no compared position .* 0 to 9"):
        parity.check_tolerance(pair, rtol=0.1, atol=0, window=(20, 30))
    with pytest.raises(ValueError, match="do not overlap"):
        parity.check_tolerance(
            align_pair([0, 1], [1, 1], [5, 6], [1, 1]), rtol=0, atol=0
        )
    with pytest.raises(ValueError, match="rtol"):
        parity.check_tolerance(pair, rtol=-1, atol=0)


def test_check_distances() -> None:
    positions = [1.0, 2.0, 3.0, 4.0]
    found = parity.check_distances(
        positions,
        {"ks": [0.05, 0.2, 0.05, np.nan], "wasserstein": [0.0, 0.0, 0.5, 0.0]},
        {"ks": 0.1, "wasserstein": 0.1},
    )
    assert found.checked == 4 and found.violations == 3
    assert (found.first.x, found.first.distance) == (2.0, "ks")
    # a NaN distance (an empty histogram) is never a pass, and the worst
    assert (found.worst.x, found.worst.distance) == (4.0, "ks")
    window = parity.check_distances(
        positions, {"ks": [0.5, 0.0, 0.0, 0.0]}, {"ks": 0.1}, window=(2, 4)
    )
    assert window.passed and window.window == (2.0, 4.0)


@pytest.mark.parametrize(
    "base, cand, direction, verdict, reason",
    [
        (1.0, 1.04, "min", parity.PASS, "same"),  # within 5%
        (1.0, 1.06, "min", parity.FAIL, "worse"),
        (1.0, 0.5, "min", parity.PASS, "better"),
        (0.8, 0.9, "max", parity.PASS, "better"),
        (0.8, 0.7, "max", parity.FAIL, "worse"),
        (0.8, 0.7, None, parity.WARN, "direction unknown"),
        (0.0, 0.01, "min", parity.PASS, "same"),  # absolute when base is 0
        (0.0, 0.2, "min", parity.FAIL, "worse"),
        (1.0, float("nan"), "min", parity.FAIL, "not finite"),
        (None, 1.0, "min", parity.WARN, "missing"),
    ],
)
def test_judge_change(base, cand, direction, verdict, reason) -> None:
    found = parity.judge_change(base, cand, direction=direction, tolerance=0.05)
    assert (found.verdict, found.reason) == (verdict, reason)
    if found.delta is not None:
        assert found.delta == cand - base
