"""Histogram rebinning and distances between two runs' histograms.

Every source arrives as ``edges`` (N+1, non-decreasing) and ``counts`` (N, >= 0).
A bucket ``[left, right]`` with ``left < right`` is read as a uniform density over
the bucket; a zero-width bucket (``left == right``, which TF2 writes when all
values are equal) is a point mass at ``left``. Every function here works on that
reading of the data, so the piecewise-linear CDF of a histogram is exact for it.

Which numbers depend on the common grid:

* ``wasserstein_1`` and ``ks_statistic`` are computed exactly from the CDFs of
  the two original histograms (no rebinning), so they do not change with
  ``bins``.
* ``js_divergence`` compares bucket probabilities, so it is computed on the
  common edges (``bins`` equal-width buckets over the union of both ranges).
* ``hist_moments`` uses the exact mean and variance of the uniform-within-bucket
  distribution (bucket centre plus the within-bucket variance ``width**2 / 12``).

A histogram whose total count is zero has no distribution: distances and moments
involving it are NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

MAX_BINS = 1000  # buckets in a rebinned histogram
DEFAULT_BINS = 60  # buckets in a rebinned histogram when the client names none
# Half-width of the range drawn around a single point, relative to |x| (and
# absolute below |x| = 1): wide enough to stay above float resolution.
_POINT_HALF_WIDTH = 1e-3  # fraction of max(|x|, 1)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Histogram:
    """A validated histogram; build it with `clean_histogram`.

    Attributes:
        edges: float64 (N+1,), non-decreasing, finite, read-only.
        counts: float64 (N,), >= 0, finite, read-only. A zero-width bucket has a
            positive count (a point mass); empty zero-width buckets are dropped.
    """

    edges: FloatArray
    counts: FloatArray

    @property
    def total(self) -> float:
        """Sum of the counts (the element count of the logged tensor)."""
        return float(self.counts.sum())


@dataclass(frozen=True)
class Moments:
    """Mean and standard deviation of a histogram (NaN when it is empty)."""

    mean: float
    std: float


@dataclass(frozen=True)
class HistDistances:
    """Distances between histogram A and histogram B (NaN if either is empty).

    Attributes:
        wasserstein: Wasserstein-1 (earth mover's) distance, in x units.
        jensen_shannon: Jensen-Shannon divergence, base 2, in [0, 1], on the
            common edges.
        ks: Kolmogorov-Smirnov statistic, sup |F_A - F_B|, in [0, 1].
        mean_delta: mean(A) - mean(B).
        std_delta: std(A) - std(B).
    """

    wasserstein: float
    jensen_shannon: float
    ks: float
    mean_delta: float
    std_delta: float


@dataclass(frozen=True, eq=False)
class HistDiff:
    """Two histograms on common edges, their difference and their distances.

    Attributes:
        edges: common edges, float64 (bins+1,), strictly increasing.
        counts_a: A rebinned onto ``edges``; a fraction of A's total when
            ``normalized``, else a count.
        counts_b: B likewise.
        diff: ``counts_a - counts_b``.
        normalized: True when both sides are fractions (they sum to 1) because
            the totals differ (or the caller asked for it); raw counts otherwise.
        total_a: A's total count before normalisation.
        total_b: B's total count before normalisation.
        moments_a: mean and std of A (from the original buckets).
        moments_b: mean and std of B.
        distances: the five distances, A against B.
    """

    edges: FloatArray
    counts_a: FloatArray
    counts_b: FloatArray
    diff: FloatArray
    normalized: bool
    total_a: float
    total_b: float
    moments_a: Moments
    moments_b: Moments
    distances: HistDistances


class HistSeriesLike(Protocol):
    """The histograms of one (run, tag), in logging order."""

    @property
    def steps(self) -> npt.ArrayLike:
        """Step of each histogram."""
        ...

    @property
    def edges(self) -> Sequence[npt.ArrayLike]:
        """Edges of each histogram (N+1 each)."""
        ...

    @property
    def counts(self) -> Sequence[npt.ArrayLike]:
        """Counts of each histogram (N each)."""
        ...


@dataclass(frozen=True, eq=False)
class HistSeries:
    """A plain `HistSeriesLike`: steps plus one edges/counts array per step."""

    steps: npt.NDArray[np.int64]
    edges: tuple[FloatArray, ...]
    counts: tuple[FloatArray, ...]


@dataclass(frozen=True, eq=False)
class DistanceSeries:
    """Distances between two histogram series, one entry per matched pair.

    Attributes:
        positions: x of each pair on the chosen axis (A's position).
        positions_b: x of the B histogram matched to it.
        index_a: index of the A histogram in its series.
        index_b: index of the B histogram in its series.
        steps_a: step of the A histogram.
        steps_b: step of the B histogram.
        wasserstein: per pair, as in `HistDistances`.
        jensen_shannon: per pair.
        ks: per pair.
        mean_delta: per pair.
        std_delta: per pair.
    """

    positions: FloatArray
    positions_b: FloatArray
    index_a: IntArray
    index_b: IntArray
    steps_a: IntArray
    steps_b: IntArray
    wasserstein: FloatArray
    jensen_shannon: FloatArray
    ks: FloatArray
    mean_delta: FloatArray
    std_delta: FloatArray


def clean_histogram(edges: npt.ArrayLike, counts: npt.ArrayLike) -> Histogram:
    """Validates a histogram and drops its empty zero-width buckets.

    Zero-width buckets that hold counts are kept as point masses. An all-zero
    histogram is valid (its distances are NaN); so is one with no buckets at all
    (``edges`` of length 0 or 1, ``counts`` empty).

    Args:
        edges: N+1 bucket edges, finite and non-decreasing.
        counts: N bucket counts, finite and >= 0.

    Returns:
        The histogram with read-only float64 arrays.

    Raises:
        ValueError: if shapes disagree, a value is not finite, edges decrease,
            a count is negative, or the range overflows float64.
    """
    e = np.array(edges, dtype=np.float64)
    c = np.array(counts, dtype=np.float64)
    if e.ndim != 1 or c.ndim != 1:
        raise ValueError(
            f"edges and counts must be 1-D, got shapes {e.shape} and {c.shape}"
        )
    if c.size == 0 and e.size <= 1:
        # A histogram of an empty tensor: keep one edge so edges = counts + 1.
        e = e if e.size == 1 else np.zeros(1)
    elif e.size != c.size + 1:
        raise ValueError(
            f"need len(edges) == len(counts) + 1, got {e.size} edges"
            f" and {c.size} counts"
        )
    if not np.isfinite(e).all():
        raise ValueError(f"edges must be finite, got {e[~np.isfinite(e)][:3]}")
    if not np.isfinite(c).all():
        raise ValueError(f"counts must be finite, got {c[~np.isfinite(c)][:3]}")
    with np.errstate(over="ignore"):  # reported below as a range overflow
        widths = np.diff(e)
    if (widths < 0).any():
        i = int(np.argmax(widths < 0))
        raise ValueError(
            f"edges must be non-decreasing, got {float(e[i])!r} then"
            f" {float(e[i + 1])!r}"
        )
    if (c < 0).any():
        raise ValueError(f"counts must be >= 0, got {c[c < 0][:3]}")
    if not math.isfinite(float(e[-1]) - float(e[0])):
        raise ValueError(
            f"range {float(e[0])!r}..{float(e[-1])!r} overflows float64"
        )
    keep = (widths > 0) | (c > 0)
    if not keep.all():
        # Dropping bucket i removes its right edge; the two are equal here.
        e = np.concatenate([e[:1], e[1:][keep]])
        c = c[keep]
    e.flags.writeable = False
    c.flags.writeable = False
    return Histogram(edges=e, counts=c)


def common_edges(
    a_edges: npt.ArrayLike,
    b_edges: npt.ArrayLike,
    *,
    bins: int = DEFAULT_BINS,
) -> FloatArray:
    """Equal-width edges over the union of two histograms' ranges.

    When both ranges are one point x, the edges span x +/- 1e-3 * max(|x|, 1).

    Args:
        a_edges: edges of histogram A (at least one value).
        b_edges: edges of histogram B (at least one value).
        bins: number of buckets, 1..MAX_BINS.

    Returns:
        float64 (bins+1,), strictly increasing.

    Raises:
        ValueError: if bins is out of range, an edges array is empty or not
            finite, or the union range overflows float64.
    """
    _check_bins(bins)
    ends = []
    for name, edges in (("a_edges", a_edges), ("b_edges", b_edges)):
        e = np.asarray(edges, dtype=np.float64)
        if e.size == 0 or not np.isfinite(e).all():
            raise ValueError(f"{name} must be non-empty and finite, got {e}")
        ends += [float(e.min()), float(e.max())]
    lo, hi = min(ends), max(ends)
    if not math.isfinite(hi - lo):
        raise ValueError(f"union range {lo!r}..{hi!r} overflows float64")
    out = np.linspace(lo, hi, bins + 1)
    if not (np.diff(out) > 0).all():
        # One point, or a range below float resolution at this magnitude.
        mid = lo / 2 + hi / 2
        half = max(_POINT_HALF_WIDTH * max(abs(mid), 1.0), (hi - lo) / 2)
        out = np.linspace(mid - half, mid + half, bins + 1)
    out[0], out[-1] = min(out[0], lo), max(out[-1], hi)
    return out


def rebin(hist: Histogram, new_edges: npt.ArrayLike) -> FloatArray:
    """Spreads a histogram's counts over new edges in proportion to overlap.

    Counts are uniform within a bucket; a point mass goes to the new bucket
    that contains it (buckets are closed on the left, the last one on both
    sides). Mass outside ``new_edges`` is dropped, so the total is conserved
    when the new edges cover the histogram's range.

    Args:
        hist: the histogram.
        new_edges: strictly increasing, finite, at least 2 values.

    Returns:
        float64 counts, one per new bucket.

    Raises:
        ValueError: if ``new_edges`` is not as described.
    """
    x = np.asarray(new_edges, dtype=np.float64)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(
            f"new_edges needs at least 2 values, got shape {x.shape}"
        )
    if not np.isfinite(x).all() or not (np.diff(x) > 0).all():
        raise ValueError(f"new_edges must be finite and increasing, got {x}")
    cum = _cumulative(hist)
    below = _mass_below(hist, cum, x[:-1], inclusive=False)
    upto_last = _mass_below(hist, cum, x[-1:], inclusive=True)
    return np.diff(np.concatenate([below, upto_last]))


def hist_moments(hist: Histogram) -> Moments:
    """Mean and standard deviation of the uniform-within-bucket distribution.

    The variance is the between-bucket part (centres about the mean) plus the
    within-bucket part ``width**2 / 12``; both are exact for this reading and
    computed in units of the range so huge ranges do not overflow.

    Args:
        hist: the histogram.

    Returns:
        The moments, NaN when the total count is zero.
    """
    total = hist.total
    if total <= 0:
        return Moments(mean=math.nan, std=math.nan)
    p = hist.counts / total
    left, right = hist.edges[:-1], hist.edges[1:]
    centres = left / 2 + right / 2
    mean = float(np.dot(p, centres))
    scale = float(hist.edges[-1] - hist.edges[0]) or 1.0
    between = np.dot(p, ((centres - mean) / scale) ** 2)
    within = np.dot(p, ((right - left) / scale) ** 2) / 12.0
    return Moments(mean=mean, std=scale * math.sqrt(float(between + within)))


def wasserstein_1(a: Histogram, b: Histogram) -> float:
    """Wasserstein-1 distance, the integral of |F_A - F_B| over x.

    Exact for the uniform-within-bucket reading: between consecutive edges of
    either histogram both CDFs are linear, so each piece is integrated in
    closed form. Independent of any rebinning.

    Args:
        a: histogram A.
        b: histogram B.

    Returns:
        The distance in x units; NaN if either histogram is empty.
    """
    return _cdf_distances(a, b)[0]


def ks_statistic(a: Histogram, b: Histogram) -> float:
    """Kolmogorov-Smirnov statistic, sup over x of |F_A(x) - F_B(x)|.

    Exact for the uniform-within-bucket reading (the supremum of a piecewise
    linear function with jumps is at an edge, from the left or the right).

    Args:
        a: histogram A.
        b: histogram B.

    Returns:
        A value in [0, 1]; NaN if either histogram is empty.
    """
    return _cdf_distances(a, b)[1]


def js_divergence(
    a: Histogram, b: Histogram, *, bins: int = DEFAULT_BINS
) -> float:
    """Jensen-Shannon divergence (base 2) on the common edges.

    Both histograms are rebinned onto `common_edges` with ``bins`` buckets and
    compared as probability vectors. Note that scipy's ``jensenshannon``
    returns the distance, the square root of this divergence.

    Args:
        a: histogram A.
        b: histogram B.
        bins: buckets of the common grid, 1..MAX_BINS.

    Returns:
        A value in [0, 1]; 0 for identical, 1 for disjoint; NaN if either
        histogram is empty.
    """
    edges = common_edges(a.edges, b.edges, bins=bins)
    return _js_from_counts(rebin(a, edges), rebin(b, edges))


def compare_histograms(
    a: Histogram,
    b: Histogram,
    *,
    bins: int = DEFAULT_BINS,
    normalize: bool | None = None,
) -> HistDiff:
    """Puts two histograms on common edges and measures how they differ.

    Args:
        a: histogram A.
        b: histogram B.
        bins: buckets of the common grid, 1..MAX_BINS.
        normalize: True to show fractions of each total, False for raw counts;
            None (default) normalises only when the totals differ, so that a
            difference bar never just reflects a different element count.

    Returns:
        The rebinned histograms, their difference and the distances.

    Raises:
        ValueError: if bins is out of range or the union range overflows.
    """
    edges = common_edges(a.edges, b.edges, bins=bins)
    counts_a, counts_b = rebin(a, edges), rebin(b, edges)
    total_a, total_b = a.total, b.total
    if normalize is None:
        normalize = not math.isclose(total_a, total_b, rel_tol=1e-9)
    if normalize:
        counts_a = counts_a / total_a if total_a > 0 else counts_a
        counts_b = counts_b / total_b if total_b > 0 else counts_b
    moments_a, moments_b = hist_moments(a), hist_moments(b)
    w1, ks = _cdf_distances(a, b)
    distances = HistDistances(
        wasserstein=w1,
        jensen_shannon=_js_from_counts(counts_a, counts_b),
        ks=ks,
        mean_delta=moments_a.mean - moments_b.mean,
        std_delta=moments_a.std - moments_b.std,
    )
    return HistDiff(
        edges=edges,
        counts_a=counts_a,
        counts_b=counts_b,
        diff=counts_a - counts_b,
        normalized=normalize,
        total_a=total_a,
        total_b=total_b,
        moments_a=moments_a,
        moments_b=moments_b,
        distances=distances,
    )


def nearest_index(positions: npt.ArrayLike, at: float) -> int:
    """Index of the position nearest to ``at``.

    Between two equally near positions the larger wins; among equal positions
    (a step logged twice) the one logged last wins.

    Args:
        positions: x of each histogram (any order, finite, non-empty).
        at: the requested x.

    Returns:
        An index into ``positions``.

    Raises:
        ValueError: if ``positions`` is empty or a value is not finite.
    """
    if not math.isfinite(at):
        raise ValueError(f"at must be finite, got {at!r}")
    pos = _check_positions(positions, "positions")
    return int(_nearest_indices(pos, np.array([at], dtype=np.float64))[0])


def distance_series(
    a: HistSeriesLike,
    b: HistSeriesLike,
    *,
    positions_a: npt.ArrayLike,
    positions_b: npt.ArrayLike,
    bins: int = DEFAULT_BINS,
    tolerance: float | None = None,
) -> DistanceSeries:
    """Distances between two histogram series over training.

    Each A histogram is paired with B's nearest histogram on the axis (ties as
    in `nearest_index`). Without ``tolerance`` only A positions inside B's range
    ``[min(positions_b), max(positions_b)]`` are kept (never extrapolate, as for
    difference curves); with it, exactly the pairs at most ``tolerance`` apart.
    Pairs come in A's order; an empty result is valid.

    Args:
        a: histograms of run A (drives the x of the result).
        b: histograms of run B.
        positions_a: x of each A histogram on the chosen axis.
        positions_b: x of each B histogram.
        bins: buckets of the common grid for the JS divergence, 1..MAX_BINS.
        tolerance: largest |x_A - x_B| of a kept pair, >= 0.

    Returns:
        One entry per kept pair.

    Raises:
        ValueError: if positions do not match the series lengths or are not
            finite, bins or tolerance are out of range, or a histogram is bad.
    """
    _check_bins(bins)
    if tolerance is not None and not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
    pos_a = _check_positions(positions_a, "positions_a", empty_ok=True)
    pos_b = _check_positions(positions_b, "positions_b", empty_ok=True)
    for name, series, pos in (("a", a, pos_a), ("b", b, pos_b)):
        n_steps = np.asarray(series.steps).size
        if not len(series.edges) == len(series.counts) == n_steps == pos.size:
            raise ValueError(
                f"series {name}: {n_steps} steps, {len(series.edges)} edges,"
                f" {len(series.counts)} counts and {pos.size} positions differ"
            )
    if pos_a.size and pos_b.size:
        idx_b = _nearest_indices(pos_b, pos_a)
        if tolerance is None:
            keep = (pos_a >= pos_b.min()) & (pos_a <= pos_b.max())
        else:
            keep = np.abs(pos_a - pos_b[idx_b]) <= tolerance
        idx_a = np.flatnonzero(keep)
        idx_b = idx_b[keep]
    else:
        idx_a = idx_b = np.zeros(0, dtype=np.int64)

    cache_a: dict[int, tuple[Histogram, Moments]] = {}
    cache_b: dict[int, tuple[Histogram, Moments]] = {}
    values = np.full((5, idx_a.size), np.nan)
    for k, (i, j) in enumerate(zip(idx_a.tolist(), idx_b.tolist())):
        ha, ma = _cached(cache_a, a, i)
        hb, mb = _cached(cache_b, b, j)
        edges = common_edges(ha.edges, hb.edges, bins=bins)
        js = _js_from_counts(rebin(ha, edges), rebin(hb, edges))
        w1, ks = _cdf_distances(ha, hb)
        values[:, k] = (w1, js, ks, ma.mean - mb.mean, ma.std - mb.std)
    steps_a = np.asarray(a.steps, dtype=np.int64).reshape(-1)
    steps_b = np.asarray(b.steps, dtype=np.int64).reshape(-1)
    return DistanceSeries(
        positions=pos_a[idx_a],
        positions_b=pos_b[idx_b],
        index_a=idx_a.astype(np.int64),
        index_b=idx_b.astype(np.int64),
        steps_a=steps_a[idx_a],
        steps_b=steps_b[idx_b],
        wasserstein=values[0],
        jensen_shannon=values[1],
        ks=values[2],
        mean_delta=values[3],
        std_delta=values[4],
    )


def _check_bins(bins: int) -> None:
    if (
        not isinstance(bins, (int, np.integer))
        or isinstance(bins, bool)
        or not 1 <= bins <= MAX_BINS
    ):
        raise ValueError(
            f"bins must be an integer in 1..{MAX_BINS}, got {bins!r}"
        )


def _check_positions(
    positions: npt.ArrayLike, name: str, *, empty_ok: bool = False
) -> FloatArray:
    pos = np.asarray(positions, dtype=np.float64).reshape(-1)
    if pos.size == 0 and not empty_ok:
        raise ValueError(f"{name} is empty")
    if not np.isfinite(pos).all():
        raise ValueError(
            f"{name} must be finite, got {pos[~np.isfinite(pos)][:3]}"
        )
    return pos


def _nearest_indices(positions: FloatArray, at: FloatArray) -> IntArray:
    """For each value of ``at``, the index of the nearest of ``positions``."""
    order = np.argsort(positions, kind="stable")
    sorted_pos = positions[order]
    last = sorted_pos.size - 1
    # Left neighbour: the last position <= at; right: the first one > at,
    # moved to the last of its equal positions. The stable sort keeps logging
    # order among equal positions, so "last" is the latest logged.
    after = np.searchsorted(sorted_pos, at, side="right")
    left = np.clip(after - 1, 0, last)
    right = np.clip(after, 0, last)
    right = np.searchsorted(sorted_pos, sorted_pos[right], side="right") - 1
    # Equally near neighbours: the larger position wins.
    take_right = np.abs(sorted_pos[right] - at) <= np.abs(at - sorted_pos[left])
    pick = np.where(take_right, right, left)
    return order[pick].astype(np.int64)


def _cached(
    cache: dict[int, tuple[Histogram, Moments]], series: HistSeriesLike, i: int
) -> tuple[Histogram, Moments]:
    if i not in cache:
        hist = clean_histogram(series.edges[i], series.counts[i])
        cache[i] = (hist, hist_moments(hist))
    return cache[i]


def _cumulative(hist: Histogram) -> FloatArray:
    """Count below each edge: cum[j] = sum(counts[:j])."""
    return np.concatenate([[0.0], np.cumsum(hist.counts)])


def _mass_below(
    hist: Histogram, cum: FloatArray, x: FloatArray, *, inclusive: bool
) -> FloatArray:
    """Count strictly below each x, or at most x when ``inclusive``.

    The two differ only at point masses (jumps of the CDF). For x inside the
    edges, searchsorted puts x in a bucket of positive width, whose count is
    spread linearly.
    """
    n = hist.counts.size
    if n == 0:
        return np.zeros(x.size)
    edges = hist.edges
    j = np.searchsorted(edges, x, side="right" if inclusive else "left")
    jj = np.clip(j, 1, n)
    left, right = edges[jj - 1], edges[jj]
    width = right - left
    inside = (j >= 1) & (j <= n)
    frac = np.divide(x - left, width, out=np.zeros(x.size), where=inside)
    mass = cum[jj - 1] + hist.counts[jj - 1] * np.clip(frac, 0.0, 1.0)
    return np.where(j == 0, 0.0, np.where(j > n, cum[n], mass))


def _cdf_distances(a: Histogram, b: Histogram) -> tuple[float, float]:
    """Exact (Wasserstein-1, KS) of two uniform-within-bucket distributions."""
    ta, tb = a.total, b.total
    if ta <= 0 or tb <= 0:
        return math.nan, math.nan
    x = np.union1d(a.edges, b.edges)
    cum_a, cum_b = _cumulative(a), _cumulative(b)
    # CDF difference just left of each breakpoint and at/just right of it.
    d_left = (
        _mass_below(a, cum_a, x, inclusive=False) / ta
        - _mass_below(b, cum_b, x, inclusive=False) / tb
    )
    d_right = (
        _mass_below(a, cum_a, x, inclusive=True) / ta
        - _mass_below(b, cum_b, x, inclusive=True) / tb
    )
    ks = float(max(np.abs(d_left).max(), np.abs(d_right).max()))
    # Between breakpoints F_A - F_B is linear, from d_right[k] to d_left[k+1].
    d0, d1 = d_right[:-1], d_left[1:]
    width = np.diff(x)
    same_sign = d0 * d1 >= 0
    abs_sum = np.abs(d0) + np.abs(d1)
    crossing = np.divide(
        d0 * d0 + d1 * d1, 2 * abs_sum, out=np.zeros(d0.size), where=abs_sum > 0
    )
    piece = np.where(same_sign, abs_sum / 2, crossing)
    return float(np.dot(width, piece)), min(ks, 1.0)


def _js_from_counts(counts_a: FloatArray, counts_b: FloatArray) -> float:
    """Jensen-Shannon divergence (base 2) of two count vectors on the same bins."""
    ta, tb = float(counts_a.sum()), float(counts_b.sum())
    if ta <= 0 or tb <= 0:
        return math.nan
    p, q = counts_a / ta, counts_b / tb
    m = (p + q) / 2
    kl_p = np.dot(p[p > 0], np.log2(p[p > 0] / m[p > 0]))
    kl_q = np.dot(q[q > 0], np.log2(q[q > 0] / m[q > 0]))
    return float(np.clip((kl_p + kl_q) / 2, 0.0, 1.0))
