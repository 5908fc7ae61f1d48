"""Difference (or ratio) curves of a run against a baseline run.

Definition, for series A and baseline B, each sorted by x:

1. Repeated x (a restarted run logging a step again): the last point in the
   given order wins (callers sort stably, so that is the last one logged).
2. Overlap: [max(min xA, min xB), min(max xA, max xB)], taken over all points,
   finite or not. No overlap gives an empty curve; nothing is extrapolated.
3. Grid: the union of the x of A and B inside the overlap.
4. Each series is read at every grid x: at one of its own x, its own value
   (finite or not); strictly between two of its points, the straight line
   between them if both values are finite, else NaN. So a NaN or Inf point
   makes a gap only at itself and in the two intervals next to it; it never
   leaks into interpolation between other points.
5. `difference`: A - B. `ratio`: A / B, with NaN where B == 0.
   Non-finite results (Inf - Inf, Inf markers) follow IEEE arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .types import FloatArray

DIFF_MODES = ("difference", "ratio")


@dataclass(frozen=True)
class DiffCurve:
    """A - B (or A / B) on the union grid of the overlap.

    Attributes:
        x: Grid positions, sorted, unique.
        y: The difference or ratio at each x (NaN marks a gap).
    """

    x: FloatArray
    y: FloatArray


def difference_curve(
    xa: npt.ArrayLike,
    ya: npt.ArrayLike,
    xb: npt.ArrayLike,
    yb: npt.ArrayLike,
    *,
    mode: str = "difference",
) -> DiffCurve:
    """Resamples A and B onto their union grid and subtracts (or divides).

    See the module docstring for the exact rules.

    Args:
        xa: x of A, finite, sorted non-decreasing.
        ya: Values of A.
        xb: x of the baseline B, finite, sorted non-decreasing.
        yb: Values of B.
        mode: "difference" (A - B) or "ratio" (A / B).

    Returns:
        The curve; empty when the x ranges do not overlap.

    Raises:
        ValueError: On an unknown mode, lengths that differ, or x that is not
            finite and sorted.
    """
    if mode not in DIFF_MODES:
        raise ValueError(f"diff mode must be one of {DIFF_MODES}, got {mode!r}")
    a_x, a_y = _last_per_x(*_checked(xa, ya, "A"))
    b_x, b_y = _last_per_x(*_checked(xb, yb, "B"))
    empty = np.empty(0, dtype=np.float64)
    if a_x.size == 0 or b_x.size == 0:
        return DiffCurve(empty, empty.copy())
    lo = max(a_x[0], b_x[0])
    hi = min(a_x[-1], b_x[-1])
    if lo > hi:
        return DiffCurve(empty, empty.copy())
    grid = _union_within(a_x, b_x, lo, hi)
    va = resample_at(a_x, a_y, grid)
    vb = resample_at(b_x, b_y, grid)
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "difference":
            out = va - vb
        else:
            out = np.where(vb == 0, np.nan, va / np.where(vb == 0, 1.0, vb))
    return DiffCurve(grid, out.astype(np.float64))


def resample_at(x: FloatArray, y: FloatArray, at: FloatArray) -> FloatArray:
    """Reads a series (unique sorted x) at positions inside its x range.

    Exact hits return the point's own value; positions strictly between two
    points interpolate linearly when both values are finite, else NaN.

    Args:
        x: Unique, sorted x.
        y: Values at x.
        at: Positions with x[0] <= at <= x[-1].

    Returns:
        Values at `at`.
    """
    right = np.searchsorted(x, at, side="left")
    right = np.minimum(right, x.size - 1)
    hit = x[right] == at
    left = np.maximum(right - 1, 0)
    x0, x1 = x[left], x[right]
    y0, y1 = y[left], y[right]
    both_finite = np.isfinite(y0) & np.isfinite(y1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (at - x0) / np.where(x1 == x0, 1.0, x1 - x0)
        line = y0 + t * (y1 - y0)
    out = np.where(both_finite, line, np.nan)
    return np.where(hit, y1, out).astype(np.float64)


def _union_within(
    a: FloatArray, b: FloatArray, lo: float, hi: float
) -> FloatArray:
    a = a[(a >= lo) & (a <= hi)]
    b = b[(b >= lo) & (b <= hi)]
    both = np.concatenate([a, b])
    both.sort(kind="stable")  # merges the two sorted runs in linear time
    if both.size == 0:
        return both
    return both[np.r_[True, both[1:] != both[:-1]]]


def _last_per_x(x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    if x.size == 0:
        return x, y
    last = np.r_[x[1:] != x[:-1], True]
    return x[last], y[last]


def _checked(
    x: npt.ArrayLike, y: npt.ArrayLike, name: str
) -> tuple[FloatArray, FloatArray]:
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    if xs.ndim != 1 or ys.ndim != 1 or xs.size != ys.size:
        raise ValueError(
            f"series {name}: x and y must be 1-D of equal length, "
            f"got {xs.shape} and {ys.shape}"
        )
    if not np.all(np.isfinite(xs)):
        raise ValueError(f"series {name}: x must be finite")
    if np.any(np.diff(xs) < 0):
        raise ValueError(f"series {name}: x must be sorted (non-decreasing)")
    return xs, ys


@dataclass(frozen=True)
class AlignedPair:
    """Two series read on the union grid of their overlap (rules 1-4).

    Attributes:
        x: Grid positions, sorted, unique; empty without an overlap.
        a: A's value at each x (NaN where it has a gap).
        b: B's value at each x.
    """

    x: FloatArray
    a: FloatArray
    b: FloatArray


def align_pair(
    xa: npt.ArrayLike,
    ya: npt.ArrayLike,
    xb: npt.ArrayLike,
    yb: npt.ArrayLike,
) -> AlignedPair:
    """Reads A and B on the union grid of their overlap (rules 1-4 above).

    The difference curve is A - B of this; a tolerance check compares the
    two values point by point.

    Args:
        xa: x of A, finite, sorted non-decreasing.
        ya: Values of A.
        xb: x of B, finite, sorted non-decreasing.
        yb: Values of B.

    Raises:
        ValueError: On lengths that differ or x that is not finite and sorted.
    """
    a_x, a_y = _last_per_x(*_checked(xa, ya, "A"))
    b_x, b_y = _last_per_x(*_checked(xb, yb, "B"))
    empty = np.empty(0, dtype=np.float64)
    if a_x.size == 0 or b_x.size == 0:
        return AlignedPair(empty, empty.copy(), empty.copy())
    lo = max(a_x[0], b_x[0])
    hi = min(a_x[-1], b_x[-1])
    if lo > hi:
        return AlignedPair(empty, empty.copy(), empty.copy())
    grid = _union_within(a_x, b_x, lo, hi)
    return AlignedPair(
        grid, resample_at(a_x, a_y, grid), resample_at(b_x, b_y, grid)
    )
