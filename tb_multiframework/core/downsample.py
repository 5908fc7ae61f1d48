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

from .types import FloatArray, Int64Array

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
    total = int(xs.size)
    if total <= KEEP_ALL_FACTOR * buckets:
        idx = np.arange(total, dtype=np.int64)
        return Downsampled(xs, ys, ys.copy(), ys.copy(), idx, total, total)

    bucket = _bucket_of(xs, buckets)
    # x is sorted, so each bucket is one contiguous segment.
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    ends = np.r_[starts[1:], total] - 1
    segment = np.cumsum(np.r_[False, bucket[1:] != bucket[:-1]])

    finite = np.isfinite(ys)
    seg_min = np.minimum.reduceat(np.where(finite, ys, np.inf), starts)
    seg_max = np.maximum.reduceat(np.where(finite, ys, -np.inf), starts)
    positions = np.arange(total, dtype=np.int64)
    candidates = [
        starts,
        ends,
        _first_where(finite & (ys == seg_min[segment]), positions, starts),
        _first_where(finite & (ys == seg_max[segment]), positions, starts),
        _first_where(np.isnan(ys), positions, starts),
        _first_where(ys == np.inf, positions, starts),
        _first_where(ys == -np.inf, positions, starts),
    ]
    kept = np.unique(np.concatenate(candidates))
    kept = kept[kept < total]  # drop the "none in this bucket" marker

    has_finite = np.isfinite(seg_min)
    band_min = np.where(has_finite, seg_min, np.nan)[segment[kept]]
    band_max = np.where(has_finite, seg_max, np.nan)[segment[kept]]
    return Downsampled(
        x=xs[kept],
        y=ys[kept],
        y_min=band_min,
        y_max=band_max,
        indices=kept.astype(np.int64),
        total=total,
        returned=int(kept.size),
    )


def _bucket_of(xs: FloatArray, buckets: int) -> Int64Array:
    lo, hi = float(xs[0]), float(xs[-1])
    if hi == lo:
        return np.zeros(xs.size, dtype=np.int64)
    scaled = np.floor((xs - lo) / (hi - lo) * buckets).astype(np.int64)
    return np.minimum(scaled, buckets - 1)  # x == hi goes in the last bucket


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
    if np.any(np.diff(xs) < 0):
        raise ValueError("x must be sorted (non-decreasing)")
