"""Tests for core/histdiff: cleaning, rebinning, distances, distance series.

Expected numbers come from scipy, from loops written independently of the
module's vectorised CDF code, or from hand calculation.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon
from scipy.stats import ks_2samp, wasserstein_distance

from tb_multiframework.core.histdiff import (
    MAX_BINS,
    HistSeries,
    clean_histogram,
    common_edges,
    compare_histograms,
    distance_series,
    hist_moments,
    js_divergence,
    ks_statistic,
    nearest_index,
    rebin,
    wasserstein_1,
)

# --- independent reference implementations ---------------------------------


def overlap_rebin(edges, counts, new_edges):
    """Rebins with explicit loops over (old bucket, new bucket) overlaps."""
    out = [0.0] * (len(new_edges) - 1)
    for (lo, hi), c in zip(itertools.pairwise(edges), counts):
        for k, (nlo, nhi) in enumerate(itertools.pairwise(new_edges)):
            last = k == len(out) - 1
            if hi == lo:  # point mass: [nlo, nhi), the last bucket closed
                if nlo <= lo < nhi or (last and lo == nhi):
                    out[k] += c
            else:
                overlap = min(hi, nhi) - max(lo, nlo)
                if overlap > 0:
                    out[k] += c * overlap / (hi - lo)
    return np.array(out)


def cdf_at(edges, counts, x):
    """P(X <= x) for the uniform-within-bucket reading, by a plain loop."""
    total = float(np.sum(counts))
    below = 0.0
    for lo, hi, c in zip(edges[:-1], edges[1:], counts):
        if hi <= x:  # includes a point mass at x
            below += c
        elif lo < x < hi:
            below += c * (x - lo) / (hi - lo)
    return below / total


def integrate_abs_cdf_diff(a, b, sub=64):
    """Midpoint rule for the integral of |F_A - F_B|, refined per piece."""
    pts = np.union1d(a[0], b[0])
    total = 0.0
    for lo, hi in itertools.pairwise(pts):
        h = (hi - lo) / sub
        for k in range(sub):
            x = lo + (k + 0.5) * h
            total += abs(cdf_at(*a, x) - cdf_at(*b, x)) * h
    return total


def pytorch_like_histogram(values):
    """What PyTorch's bins="tensorflow" gives after TensorBoard's data_compat.

    Exponential buckets 1e-12 * 1.1**k up to 1e20 on both sides of 0, trimmed
    to the non-empty range, outer edges clamped to the data's min and max.
    """
    pos = []
    v = 1e-12
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    bins = [-p for p in reversed(pos)] + [0.0] + pos
    counts, edges = np.histogram(values, bins=bins)
    nz = np.flatnonzero(counts)
    counts = counts[nz[0] : nz[-1] + 1].astype(float)
    edges = edges[nz[0] : nz[-1] + 2].copy()
    edges[0], edges[-1] = values.min(), values.max()
    return edges, counts


def hist(edges, counts):
    return clean_histogram(edges, counts)


# --- clean_histogram -------------------------------------------------------


def test_clean_collapses_tf2_single_value_histogram():
    # TF2 writes 30 zero-width buckets at the value, all counts in the last.
    h = clean_histogram([2.5] * 31, [0.0] * 29 + [7.0])
    np.testing.assert_array_equal(h.edges, [2.5, 2.5])
    np.testing.assert_array_equal(h.counts, [7.0])
    assert h.total == 7.0


def test_clean_drops_only_empty_zero_width_buckets():
    h = clean_histogram([0, 1, 1, 1, 2, 3], [1, 0, 4, 0, 2])
    # bucket [1,1] empty: dropped; [1,1] with 4: point mass kept; [2,3]
    # empty but wide: kept.
    np.testing.assert_array_equal(h.edges, [0, 1, 1, 2, 3])
    np.testing.assert_array_equal(h.counts, [1, 4, 0, 2])
    assert not h.edges.flags.writeable and not h.counts.flags.writeable


@pytest.mark.parametrize(
    ("edges", "counts", "message"),
    [
        ([0, 1, 2], [1], "3 edges and 1 counts"),
        ([[0, 1]], [1], "1-D"),
        ([0, np.nan], [1], "nan"),
        ([0, 1], [np.inf], "inf"),
        ([0, 2, 1], [1, 1], "2.0 then 1.0"),
        ([0, 1], [-3], "-3"),
        ([-1.5e308, 1.5e308], [1], "overflows"),
    ],
)
def test_clean_rejects_bad_input(edges, counts, message):
    with pytest.raises(ValueError, match=message):
        clean_histogram(edges, counts)


def test_clean_accepts_empty_and_all_zero_histograms():
    assert clean_histogram([], []).counts.size == 0
    assert clean_histogram([3.0], []).edges.tolist() == [3.0]
    # TF2 histogram of an empty tensor: zero-width, zero-count buckets.
    h = clean_histogram([0.0] * 31, [0.0] * 30)
    assert h.counts.size == 0 and h.edges.size == 1
    assert clean_histogram([0, 1, 2], [0, 0]).total == 0.0


# --- rebin -----------------------------------------------------------------


def test_rebin_hand_case():
    # [0,1] holds 2 -> all in [0,2]; [1,3] holds 4 (2 per unit) -> 2 and 2.
    out = rebin(hist([0, 1, 3], [2, 4]), [0, 2, 3])
    np.testing.assert_allclose(out, [4, 2], rtol=1e-15)


def test_rebin_point_mass_on_an_edge_goes_right_except_at_the_end():
    point = hist([1, 1], [3])
    np.testing.assert_array_equal(rebin(point, [0, 1, 2]), [0, 3])
    np.testing.assert_array_equal(rebin(point, [0, 0.5, 1]), [0, 3])


def test_rebin_drops_mass_outside_new_edges():
    out = rebin(hist([0, 4], [8]), [1, 2, 3])
    np.testing.assert_allclose(out, [2, 2], rtol=1e-15)


def test_rebin_matches_overlap_loop_with_point_masses():
    rng = np.random.default_rng(7)
    for _ in range(30):
        edges = np.sort(rng.uniform(-5, 5, size=rng.integers(2, 12)))
        edges = np.repeat(edges, rng.integers(1, 3, size=edges.size))
        counts = rng.integers(0, 20, size=edges.size - 1).astype(float)
        new_edges = np.sort(rng.uniform(-6, 6, size=rng.integers(2, 9)))
        new_edges = np.unique(new_edges)
        if new_edges.size < 2:
            continue
        expected = overlap_rebin(edges, counts, new_edges)
        got = rebin(hist(edges, counts), new_edges)
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)


def test_rebin_conserves_total_for_random_histograms():
    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(1, 600))
        edges = np.cumsum(
            rng.exponential(1.0, size=n + 1)
        ) * 10.0 ** rng.uniform(-6, 6)
        counts = rng.integers(0, 10_000, size=n).astype(float)
        h = hist(edges, counts)
        bins = int(rng.integers(1, MAX_BINS + 1))
        out = rebin(h, common_edges(h.edges, h.edges, bins=bins))
        assert np.isclose(out.sum(), counts.sum(), rtol=1e-12, atol=0)
        assert (out >= 0).all()


@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(1).normal(0, 0.05, size=640),
        np.random.default_rng(2).lognormal(0.0, 3.0, size=10_000),
        # ReLU-like: many exact zeros plus positives.
        np.maximum(np.random.default_rng(3).normal(0, 1, 5000), 0.0),
        np.random.default_rng(4).uniform(-1e-9, 1e-9, size=100),
    ],
)
def test_rebin_conserves_total_for_pytorch_exponential_buckets(values):
    edges, counts = pytorch_like_histogram(values)
    assert counts.size > 30  # the exponential layout, mostly empty buckets
    h = hist(edges, counts)
    for bins in (1, 30, 60, MAX_BINS):
        out = rebin(h, common_edges(h.edges, h.edges, bins=bins))
        assert np.isclose(out.sum(), values.size, rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    "new_edges", [[0.0], [0, 0, 1], [1, 0], [0, np.inf], [[0, 1]]]
)
def test_rebin_rejects_bad_new_edges(new_edges):
    with pytest.raises(ValueError):
        rebin(hist([0, 1], [1]), new_edges)


# --- common_edges ----------------------------------------------------------


def test_common_edges_cover_the_union_equally():
    edges = common_edges([-1, 0, 2], [1, 5], bins=12)
    np.testing.assert_allclose(edges, np.arange(-1, 5.5, 0.5), rtol=1e-15)


def test_common_edges_around_a_single_point_are_symmetric_and_tiny():
    edges = common_edges([2.0, 2.0], [2.0], bins=4)
    assert edges.size == 5 and (np.diff(edges) > 0).all()
    assert edges[2] == pytest.approx(2.0, abs=1e-15)
    assert edges[0] == pytest.approx(2.0 - 2e-3) and edges[-1] == pytest.approx(
        2.0 + 2e-3
    )


@pytest.mark.parametrize("bins", [0, -3, MAX_BINS + 1, 2.5, True, "60"])
def test_common_edges_rejects_bad_bins(bins):
    with pytest.raises(ValueError, match="bins"):
        common_edges([0, 1], [0, 1], bins=bins)


def test_common_edges_rejects_a_union_range_that_overflows():
    with pytest.raises(ValueError, match="overflows"):
        common_edges([-1e308, 0], [0, 1e308])


# --- distances against scipy on samples --------------------------------------


@pytest.fixture(scope="module")
def samples():
    rng = np.random.default_rng(2024)
    xa = rng.normal(0.0, 1.0, size=20_000)
    xb = rng.normal(0.4, 1.3, size=15_000)
    lo, hi = min(xa.min(), xb.min()), max(xa.max(), xb.max())
    bins = 400
    ca, edges = np.histogram(xa, bins=bins, range=(lo, hi))
    cb, _ = np.histogram(xb, bins=bins, range=(lo, hi))
    return xa, xb, edges, ca.astype(float), cb.astype(float), bins


def test_wasserstein_vs_scipy_on_samples(samples):
    xa, xb, edges, ca, cb, _ = samples
    width = edges[1] - edges[0]
    # Replacing each sample by a uniform over its bucket moves it by at most
    # width/2 on average, so each histogram is within width/2 of its samples
    # in W1; by the triangle inequality the two W1 differ by at most width.
    expected = wasserstein_distance(xa, xb)
    got = wasserstein_1(hist(edges, ca), hist(edges, cb))
    assert abs(got - expected) <= width
    assert expected > 10 * width  # the bound is meaningful


def test_ks_vs_scipy_on_samples(samples):
    xa, xb, edges, ca, cb, _ = samples
    # The histogram CDF equals the empirical CDF at every edge; inside a
    # bucket both rise monotonically by the bucket's mass, so they differ by
    # at most the largest bucket mass, for each sample.
    tol = ca.max() / ca.sum() + cb.max() / cb.sum()
    expected = ks_2samp(xa, xb).statistic
    got = ks_statistic(hist(edges, ca), hist(edges, cb))
    assert abs(got - expected) <= tol
    assert expected > 5 * tol


def test_js_divergence_vs_scipy_on_the_same_bins(samples):
    _, _, edges, ca, cb, bins = samples
    # The common grid over the same range with the same bin count is exactly
    # np.histogram's grid, so no rebinning error: compare tightly. scipy
    # returns the JS distance, the square root of the divergence.
    expected = jensenshannon(ca / ca.sum(), cb / cb.sum(), base=2) ** 2
    got = js_divergence(hist(edges, ca), hist(edges, cb), bins=bins)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_moments_vs_samples_and_exact_formula(samples):
    xa, xb, edges, ca, cb, _ = samples
    width = edges[1] - edges[0]
    for x, c in ((xa, ca), (xb, cb)):
        m = hist_moments(hist(edges, c))
        # Mean of a uniform over the bucket is within width/2 of each sample;
        # std is 1-Lipschitz in the same coupling, so within width too.
        assert abs(m.mean - x.mean()) <= width / 2
        assert abs(m.std - x.std()) <= width
        # Exact: raw moments of uniforms, E[x^2] = (l^2 + l r + r^2) / 3.
        p = c / c.sum()
        lo, hi = edges[:-1], edges[1:]
        mean = np.sum(p * (lo + hi) / 2)
        second = np.sum(p * (lo * lo + lo * hi + hi * hi) / 3)
        assert m.mean == pytest.approx(mean, rel=1e-12, abs=1e-12)
        assert m.std == pytest.approx(math.sqrt(second - mean**2), rel=1e-9)
    d = compare_histograms(hist(edges, ca), hist(edges, cb)).distances
    assert abs(d.mean_delta - (xa.mean() - xb.mean())) <= width
    assert abs(d.std_delta - (xa.std() - xb.std())) <= 2 * width


# --- distances: exact checks -----------------------------------------------


def test_wasserstein_and_ks_of_point_masses_vs_scipy_discrete():
    # Histograms made only of point masses are discrete distributions.
    a = hist([0, 0, 1, 1, 3, 3], [1, 0, 2, 0, 1])  # 0:1, 1:2, 3:1
    b = hist([0.5, 0.5, 2, 2], [3, 0, 1])  # 0.5:3, 2:1
    expected = wasserstein_distance([0, 1, 3], [0.5, 2], [1, 2, 1], [3, 1])
    assert wasserstein_1(a, b) == pytest.approx(expected, rel=1e-12)
    support = [0, 0.5, 1, 2, 3]
    fa = [
        sum(w for v, w in [(0, 1), (1, 2), (3, 1)] if v <= x) / 4
        for x in support
    ]
    fb = [sum(w for v, w in [(0.5, 3), (2, 1)] if v <= x) / 4 for x in support]
    expected_ks = max(abs(p - q) for p, q in zip(fa, fb))
    assert ks_statistic(a, b) == pytest.approx(expected_ks, rel=1e-12)


def test_wasserstein_and_ks_exact_on_mixed_histograms():
    rng = np.random.default_rng(5)
    for _ in range(5):
        ea = np.sort(rng.uniform(-3, 3, size=8))
        ea = np.insert(ea, 4, ea[4])  # a point mass inside
        eb = np.sort(rng.uniform(-2, 4, size=5))
        ca = rng.integers(1, 9, size=ea.size - 1).astype(float)
        cb = rng.integers(0, 9, size=eb.size - 1).astype(float) + 0.5
        a, b = (ea, ca), (eb, cb)
        expected_w = integrate_abs_cdf_diff(a, b)
        assert wasserstein_1(hist(*a), hist(*b)) == pytest.approx(
            expected_w, rel=1e-4
        )
        # sup of |F_A - F_B| is at a breakpoint, from the left or the right.
        pts = np.union1d(ea, eb)
        eps = 1e-12
        vals = [
            abs(cdf_at(*a, x + s) - cdf_at(*b, x + s))
            for x in pts
            for s in (-eps, 0.0)
        ]
        assert ks_statistic(hist(*a), hist(*b)) == pytest.approx(
            max(vals), abs=1e-9
        )


def test_one_bucket_histograms_side_by_side():
    a, b = hist([0, 1], [1]), hist([2, 3], [1])
    d = compare_histograms(a, b, bins=3).distances
    # Same shape shifted by 2: W1 = distance between centres.
    assert d.wasserstein == pytest.approx(2.0, rel=1e-15)
    assert d.ks == 1.0 and d.jensen_shannon == 1.0
    assert d.mean_delta == pytest.approx(-2.0) and d.std_delta == 0.0


def test_uniform_against_point_mass_at_its_centre():
    a, b = hist([0, 2], [2]), hist([1, 1], [5])
    d = compare_histograms(a, b).distances
    # int_0^1 x/2 dx + int_1^2 (1 - x/2) dx = 1/4 + 1/4
    assert d.wasserstein == pytest.approx(0.5, rel=1e-14)
    assert d.ks == pytest.approx(0.5, rel=1e-14)  # F_A(1) = 1/2, F_B jumps 0->1
    assert d.mean_delta == pytest.approx(0.0, abs=1e-15)
    assert d.std_delta == pytest.approx(2 / math.sqrt(12), rel=1e-14)


def test_js_divergence_hand_case():
    a, b = hist([0, 1, 2], [1, 1]), hist([0, 1, 2], [4, 0])
    # p = (1/2, 1/2), q = (1, 0), m = (3/4, 1/4)
    kl_p = 0.5 * math.log2(0.5 / 0.75) + 0.5 * math.log2(0.5 / 0.25)
    kl_q = 1.0 * math.log2(1 / 0.75)
    assert js_divergence(a, b, bins=2) == pytest.approx((kl_p + kl_q) / 2)


@pytest.mark.parametrize(
    ("edges", "counts"),
    [
        (np.linspace(-1, 3, 31), np.arange(30.0)),
        ([4.0, 4.0], [12.0]),
        ([0, 1, 1, 2], [3, 5, 2]),
    ],
)
def test_identical_histograms_have_zero_distances(edges, counts):
    h = hist(edges, counts)
    d = compare_histograms(h, hist(edges, counts), bins=17).distances
    assert d.wasserstein == 0.0 and d.ks == 0.0
    assert d.jensen_shannon == pytest.approx(0.0, abs=1e-15)
    assert d.mean_delta == 0.0 and d.std_delta == 0.0


def test_disjoint_supports():
    a = hist([-3, -2, -1], [5, 1])
    b = hist([1, 1, 4], [2, 6])
    d = compare_histograms(a, b, bins=60).distances
    assert d.jensen_shannon == pytest.approx(1.0, abs=1e-12)
    assert d.ks == 1.0
    # A lies entirely left of B: W1 = mean(B) - mean(A).
    mean_a = (5 * -2.5 + 1 * -1.5) / 6
    mean_b = (2 * 1 + 6 * 2.5) / 8
    assert d.wasserstein == pytest.approx(mean_b - mean_a, rel=1e-13)
    assert d.mean_delta == pytest.approx(mean_a - mean_b, rel=1e-13)


def test_wasserstein_and_ks_do_not_depend_on_bins():
    a, b = hist([0, 1, 5], [3, 1]), hist([-1, 2], [4])
    coarse = compare_histograms(a, b, bins=2).distances
    fine = compare_histograms(a, b, bins=MAX_BINS).distances
    assert coarse.wasserstein == fine.wasserstein and coarse.ks == fine.ks


def test_moments_over_a_huge_range_do_not_overflow():
    m = hist_moments(hist([-1e300, 1e300], [1]))
    assert m.mean == 0.0
    assert m.std == pytest.approx(2e300 / math.sqrt(12), rel=1e-14)


# --- compare_histograms ----------------------------------------------------


def test_compare_keeps_counts_when_totals_match():
    a, b = hist([0, 2], [4]), hist([1, 3], [4])
    d = compare_histograms(a, b, bins=3)
    np.testing.assert_allclose(d.edges, [0, 1, 2, 3])
    np.testing.assert_allclose(d.counts_a, [2, 2, 0])
    np.testing.assert_allclose(d.counts_b, [0, 2, 2])
    np.testing.assert_allclose(d.diff, [2, 0, -2])
    assert not d.normalized and (d.total_a, d.total_b) == (4.0, 4.0)


def test_compare_normalizes_when_totals_differ():
    a, b = hist([0, 2], [10]), hist([1, 3], [40])
    d = compare_histograms(a, b, bins=3)
    assert d.normalized
    np.testing.assert_allclose(d.counts_a, [0.5, 0.5, 0])
    np.testing.assert_allclose(d.counts_b, [0, 0.5, 0.5])
    np.testing.assert_allclose(d.diff, [0.5, 0, -0.5])
    assert (d.total_a, d.total_b) == (10.0, 40.0)
    forced = compare_histograms(a, hist([1, 3], [10]), bins=3, normalize=True)
    np.testing.assert_allclose(forced.counts_a, [0.5, 0.5, 0])


def test_compare_with_an_empty_histogram_gives_nan_distances():
    empty = hist([0, 1], [0])
    d = compare_histograms(hist([0, 2], [3]), empty, bins=4)
    for value in vars(d.distances).values():
        assert math.isnan(value)
    np.testing.assert_allclose(d.counts_b, 0.0)
    assert math.isnan(hist_moments(clean_histogram([], [])).mean)


# --- nearest_index and distance_series ---------------------------------------


def test_nearest_index():
    assert nearest_index([0, 10, 20], 12) == 1
    assert nearest_index([20, 0, 10], 16) == 0  # any order
    assert nearest_index([0, 10], 5) == 1  # tie: the larger position
    assert nearest_index([0, 4, 4, 9], 4) == 2  # duplicate: logged last
    assert nearest_index([0, 6, 6], 3) == 2  # tie into a duplicate
    assert nearest_index([3.0], -100) == 0
    with pytest.raises(ValueError, match="empty"):
        nearest_index([], 1.0)
    with pytest.raises(ValueError, match="nan"):
        nearest_index([0, np.nan], 1.0)
    with pytest.raises(ValueError, match="inf"):
        nearest_index([0, 1], math.inf)


def _uniform_series(starts, steps):
    """Series of unit uniforms U[s, s+1], 100 elements each."""
    return HistSeries(
        steps=np.array(steps),
        edges=tuple(np.array([s, s + 1.0]) for s in starts),
        counts=tuple(np.array([100.0]) for _ in starts),
    )


def test_distance_series_pairs_inside_b_range():
    a = _uniform_series([0, 1, 2, 3], [10, 20, 30, 40])
    b = _uniform_series([0.5, 1.5, 2.5], [5, 15, 25])
    s = distance_series(
        a, b, positions_a=[0, 1, 2, 3], positions_b=[0.1, 1.2, 2.9], bins=3
    )
    # x=0 and x=3 lie outside B's range [0.1, 2.9]; x=1 and x=2 are nearest
    # to B's 1.2 (|2-1.2| = 0.8 < |2-2.9| = 0.9).
    np.testing.assert_array_equal(s.index_a, [1, 2])
    np.testing.assert_array_equal(s.index_b, [1, 1])
    np.testing.assert_array_equal(s.steps_a, [20, 30])
    np.testing.assert_array_equal(s.steps_b, [15, 15])
    np.testing.assert_allclose(s.positions, [1, 2])
    np.testing.assert_allclose(s.positions_b, [1.2, 1.2])
    # U[1,2] and U[2,3] against U[1.5,2.5]: unit uniforms half a unit apart.
    np.testing.assert_allclose(s.wasserstein, [0.5, 0.5], rtol=1e-14)
    np.testing.assert_allclose(s.ks, [0.5, 0.5], rtol=1e-14)
    np.testing.assert_allclose(s.mean_delta, [-0.5, 0.5], rtol=1e-14)
    np.testing.assert_allclose(s.std_delta, [0, 0], atol=1e-15)
    # Common edges [1, 1.5, 2, 2.5] etc.: p = (1/2, 1/2, 0), q = (0, 1/2, 1/2),
    # m = (1/4, 1/2, 1/4): each KL is 1/2 log2(2) = 1/2, so JS = 1/2.
    np.testing.assert_allclose(s.jensen_shannon, [0.5, 0.5], rtol=1e-12)


def test_distance_series_with_tolerance():
    a = _uniform_series([0, 1, 2, 3], [10, 20, 30, 40])
    b = _uniform_series([0.5, 1.5, 2.5], [5, 15, 25])
    s = distance_series(
        a,
        b,
        positions_a=[0, 1, 2, 3],
        positions_b=[0.1, 1.2, 2.9],
        tolerance=0.15,
    )
    np.testing.assert_array_equal(s.index_a, [0, 3])
    np.testing.assert_array_equal(s.index_b, [0, 2])
    np.testing.assert_allclose(s.mean_delta, [-0.5, 0.5], rtol=1e-14)


def test_distance_series_empty_and_invalid():
    a = _uniform_series([0, 1], [1, 2])
    empty = _uniform_series([], [])
    s = distance_series(a, empty, positions_a=[0, 1], positions_b=[])
    assert s.positions.size == 0 and s.wasserstein.size == 0
    with pytest.raises(ValueError, match="positions"):
        distance_series(a, a, positions_a=[0], positions_b=[0, 1])
    with pytest.raises(ValueError, match="tolerance"):
        distance_series(
            a, a, positions_a=[0, 1], positions_b=[0, 1], tolerance=-1
        )
    with pytest.raises(ValueError, match="bins"):
        distance_series(a, a, positions_a=[0, 1], positions_b=[0, 1], bins=0)
    with pytest.raises(ValueError, match="finite"):
        distance_series(a, a, positions_a=[0, np.nan], positions_b=[0, 1])
