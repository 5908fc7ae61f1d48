"""Downsampling that keeps every bucket's extremes, so no spike disappears.

The x range is cut into `buckets` equal-width buckets. From each bucket we
keep its first and last point, the points holding its smallest and largest
finite value, and the first NaN, +Inf and -Inf point if it has any (so a
divergence stays visible as a gap or a marker). The kept points are real
points of the series, in x order; `y_min`/`y_max` give, for every kept point,
the finite min and max of its bucket (NaN for a bucket without finite
values), to draw a band.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .types import FloatArray, Int64Array, all_finite

MAX_POINTS = 20000  # points per series a client may ask for
DEFAULT_POINTS = 1000  # points per series (compare.buckets_for: / 4 buckets)
KEEP_ALL_FACTOR = 4  # series of up to this many points per bucket stay whole


@dataclass(frozen=True)
class Downsampled:
    """Result of `downsample_minmax`.

    Attributes:
        x: x of the kept points, sorted.
        y: Their values (may be NaN/Inf).
        y_min: Finite minimum of the bucket each kept point came from.
        y_max: Finite maximum of that bucket.
        indices: Positions of the kept points in the sorted input.
        total: Number of input points.
        returned: Number of kept points.
    """

    x: FloatArray
    y: FloatArray
    y_min: FloatArray
    y_max: FloatArray
    indices: Int64Array
    total: int
    returned: int


def downsample_minmax(
    x: npt.ArrayLike, y: npt.ArrayLike, *, buckets: int
) -> Downsampled:
    """Reduces a series to at most about 4 points per x bucket.

    A series of at most `KEEP_ALL_FACTOR * buckets` points is returned whole
    (with `y_min == y_max == y`). Otherwise each non-empty bucket keeps up to
    4 points (first, last, argmin, argmax of the finite values) plus up to 3
    for non-finite values (first NaN, +Inf, -Inf); ties keep the first.
    Point k is in bucket `min(floor((x_k - x_0) / (x_last - x_0) * buckets),
    buckets - 1)`, evaluated in that order in float64.

    Args:
        x: 1-D finite x positions, sorted non-decreasing.
        y: 1-D values, same length.
        buckets: Number of equal-width x buckets, 1..MAX_POINTS.

    Returns:
        The kept points with their bucket's min and max.

    Raises:
        ValueError: On a bad bucket count, lengths that differ, or x that is
            not finite and sorted.
    """
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    _validate(xs, ys, buckets)
    return downsample_sorted(xs, ys, buckets)


def keep_all(xs: FloatArray, ys: FloatArray) -> Downsampled:
    """Every point, shaped like a downsampling (`y_min == y_max == y`)."""
    total = int(xs.size)
    idx = np.arange(total, dtype=np.int64)
    return Downsampled(xs, ys, ys, ys, idx, total, total)


def downsample_sorted(
    xs: FloatArray, ys: FloatArray, buckets: int
) -> Downsampled:
    """`downsample_minmax` without argument checks (x known finite, sorted).

    Works in O(n) numpy passes with no per-point Python: bucket boundaries
    come from a binary search on x (checked against the bucket formula
    itself, so rounding at an edge puts a point where the formula does),
    extremes from `reduceat` over the buckets' contiguous segments.
    """
    total = int(xs.size)
    if total <= KEEP_ALL_FACTOR * buckets:
        return keep_all(xs, ys)
    starts = _segment_starts(xs, buckets)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:] - 1
    ends[-1] = total - 1
    if all_finite(ys):
        seg_min = np.minimum.reduceat(ys, starts)
        seg_max = np.maximum.reduceat(ys, starts)
        lengths = ends - starts + 1
        candidates = [
            starts,
            ends,
            _first_equal(ys, seg_min, starts, lengths),
            _first_equal(ys, seg_max, starts, lengths),
        ]
        band_min, band_max = seg_min, seg_max
    else:
        candidates, band_min, band_max = _non_finite_candidates(ys, starts)
        candidates = [starts, ends, *candidates]
    kept = np.unique(np.concatenate(candidates))
    kept = kept[kept < total]  # drop the "none in this bucket" marker
    segment = np.searchsorted(starts, kept, side="right") - 1
    return Downsampled(
        x=xs[kept],
        y=ys[kept],
        y_min=band_min[segment],
        y_max=band_max[segment],
        indices=kept.astype(np.int64),
        total=total,
        returned=int(kept.size),
    )


def _bucket_of(
    xs: FloatArray, lo: float, hi: float, buckets: int
) -> Int64Array:
    scaled = np.floor((xs - lo) / (hi - lo) * buckets).astype(np.int64)
    return np.minimum(scaled, buckets - 1)  # x == hi goes in the last bucket


def _segment_starts(xs: FloatArray, buckets: int) -> Int64Array:
    """First position of every non-empty bucket, increasing.

    The bucket of a point never decreases along sorted x (each float
    operation of the formula is monotonic), so bucket k starts at the first
    point whose bucket is >= k. A binary search for the bucket's left edge
    finds it; the formula is then evaluated at the found point and the one
    before it, and the few guesses that rounding put one off are searched
    again with the formula itself.
    """
    total = xs.size
    lo, hi = float(xs[0]), float(xs[-1])
    if hi == lo or buckets == 1:
        return np.zeros(1, dtype=np.int64)
    k = np.arange(1, buckets, dtype=np.int64)
    edges = lo + (hi - lo) * (k / buckets)
    guess = np.searchsorted(xs, edges, side="left").astype(np.int64)
    np.minimum(guess, total - 1, out=guess)
    at = _bucket_of(xs[guess], lo, hi, buckets)
    before = _bucket_of(xs[np.maximum(guess - 1, 0)], lo, hi, buckets)
    wrong = np.flatnonzero((at < k) | ((guess > 0) & (before >= k)))
    for i in wrong.tolist():
        guess[i] = _first_at_least(xs, lo, hi, buckets, int(k[i]))
    starts = np.empty(buckets, dtype=np.int64)
    starts[0] = 0
    starts[1:] = guess
    # Empty buckets share their start with the next non-empty one.
    keep = np.empty(buckets, dtype=bool)
    keep[:-1] = starts[1:] != starts[:-1]
    keep[-1] = True
    return starts[keep]


def _first_at_least(
    xs: FloatArray, lo: float, hi: float, buckets: int, k: int
) -> int:
    """The first position whose bucket is >= k (binary search)."""
    left, right = 0, xs.size - 1  # the last point is in bucket buckets - 1
    while left < right:
        mid = (left + right) // 2
        if int(_bucket_of(xs[mid : mid + 1], lo, hi, buckets)[0]) >= k:
            right = mid
        else:
            left = mid + 1
    return left


def _first_equal(
    ys: FloatArray,
    target: FloatArray,
    starts: Int64Array,
    lengths: Int64Array,
) -> Int64Array:
    """First position in each segment whose value == that segment's target.

    Each target is a value of its own segment, so every segment has one.
    """
    hits = np.flatnonzero(ys == np.repeat(target, lengths))
    return hits[np.searchsorted(hits, starts)]


def _non_finite_candidates(
    ys: FloatArray, starts: Int64Array
) -> tuple[list[Int64Array], FloatArray, FloatArray]:
    """Per segment: argmin, argmax of the finite values and the first NaN,
    +Inf and -Inf (or len(ys) for none); the finite min and max (NaN when a
    segment has no finite value)."""
    total = ys.size
    lengths = np.diff(np.append(starts, total))
    segment = np.repeat(np.arange(starts.size), lengths)
    finite = np.isfinite(ys)
    seg_min = np.minimum.reduceat(np.where(finite, ys, np.inf), starts)
    seg_max = np.maximum.reduceat(np.where(finite, ys, -np.inf), starts)
    positions = np.arange(total, dtype=np.int64)
    candidates = [
        _first_where(finite & (ys == seg_min[segment]), positions, starts),
        _first_where(finite & (ys == seg_max[segment]), positions, starts),
        _first_where(np.isnan(ys), positions, starts),
        _first_where(ys == np.inf, positions, starts),
        _first_where(ys == -np.inf, positions, starts),
    ]
    has_finite = np.isfinite(seg_min)
    band_min = np.where(has_finite, seg_min, np.nan)
    band_max = np.where(has_finite, seg_max, np.nan)
    return candidates, band_min, band_max


def _first_where(
    mask: npt.NDArray[np.bool_], positions: Int64Array, starts: Int64Array
) -> Int64Array:
    """First position per segment where mask holds, else len(positions)."""
    marked = np.where(mask, positions, positions.size)
    return np.minimum.reduceat(marked, starts)


def _validate(xs: FloatArray, ys: FloatArray, buckets: int) -> None:
    if isinstance(buckets, bool) or not isinstance(buckets, (int, np.integer)):
        raise ValueError(  # noqa: TRY004
            f"buckets must be an integer, got {buckets!r}"
        )
    if not 1 <= buckets <= MAX_POINTS:
        raise ValueError(f"buckets must be in [1, {MAX_POINTS}], got {buckets}")
    if xs.ndim != 1 or ys.ndim != 1:
        raise ValueError(f"x and y must be 1-D, got {xs.shape} and {ys.shape}")
    if xs.size != ys.size:
        raise ValueError(f"x has {xs.size} points but y has {ys.size}")
    if not np.all(np.isfinite(xs)):
        raise ValueError("x must be finite")
    if xs.size > 1 and bool(np.any(xs[1:] < xs[:-1])):
        raise ValueError("x must be sorted (non-decreasing)")
