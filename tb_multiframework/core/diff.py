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

from .types import FloatArray, Int64Array

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
    pair = align_pair(xa, ya, xb, yb)
    return DiffCurve(pair.x, combine(pair.a, pair.b, mode))


def combine(va: FloatArray, vb: FloatArray, mode: str) -> FloatArray:
    """A - B, or A / B with NaN where B == 0 (rule 5 of the module doc)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if mode == "difference":
            return np.subtract(va, vb, dtype=np.float64)
        out = va / np.where(vb == 0, 1.0, vb)
        out[vb == 0] = np.nan
        return out.astype(np.float64, copy=False)


class _Side:
    """Reads one series (unique sorted x) at the grid's positions.

    When the series' own points inside the grid's range are exactly the
    grid (the usual case: both runs logged the same steps), reading is a
    slice; otherwise it is `resample_at`.
    """

    def __init__(
        self, x: FloatArray, grid: FloatArray, offset: int | None
    ) -> None:
        self._x = x
        self._grid = grid
        self._offset = offset  # grid[i] == x[offset + i] when not None

    def read(
        self, values: FloatArray, at: Int64Array | None = None
    ) -> FloatArray:
        if self._offset is not None:
            own = values[self._offset : self._offset + self._grid.size]
            return own if at is None else own[at]
        positions = self._grid if at is None else self._grid[at]
        return resample_at(self._x, values, positions)


class UnionGrid:
    """The union of two series' x inside their overlap (rules 2-3), with
    readers of each series' values at it (rule 4).

    Attributes:
        x: The grid, sorted, unique.
    """

    def __init__(self, x: FloatArray, a: _Side, b: _Side) -> None:
        self.x = x
        self._a = a
        self._b = b

    def read_a(
        self, values: FloatArray, at: Int64Array | None = None
    ) -> FloatArray:
        """A's `values` (aligned with A's x) at the grid, or at grid[at]."""
        return self._a.read(values, at)

    def read_b(
        self, values: FloatArray, at: Int64Array | None = None
    ) -> FloatArray:
        """B's `values` at the grid, or at grid[at]."""
        return self._b.read(values, at)


def union_grid(
    a_x: FloatArray,
    b_x: FloatArray,
    *,
    x_range: tuple[float, float] | None = None,
) -> UnionGrid | None:
    """The union grid of two unique, sorted x arrays in their overlap.

    Args:
        a_x: x of A, unique and sorted (see `last_per_x`).
        b_x: x of B, the same.
        x_range: Only the part of the grid a window on (lo, hi) needs: the
            grid points inside it and the nearest one on each side (what
            `compare` keeps of a zoomed curve), in O(points there).

    Returns:
        The grid, or None when the x ranges do not overlap.
    """
    bounds = union_grid_bounds(a_x, b_x)
    if bounds is None:
        return None
    lo, hi = bounds
    a0, a1 = _inside(a_x, lo, hi, x_range)
    b0, b1 = _inside(b_x, lo, hi, x_range)
    a_in, b_in = a_x[a0:a1], b_x[b0:b1]
    if a_in.size == b_in.size and np.array_equal(a_in, b_in):
        return UnionGrid(a_in, _Side(a_x, a_in, a0), _Side(b_x, b_in, b0))
    both = np.concatenate([a_in, b_in])
    both.sort(kind="stable")  # merges the two sorted runs in linear time
    if both.size:
        keep = np.empty(both.size, dtype=bool)
        keep[0] = True
        np.not_equal(both[1:], both[:-1], out=keep[1:])
        both = both[keep]
    a_offset = a0 if both.size == a_in.size else None
    b_offset = b0 if both.size == b_in.size else None
    return UnionGrid(
        both, _Side(a_x, both, a_offset), _Side(b_x, both, b_offset)
    )


def union_size(a_x: FloatArray, b_x: FloatArray) -> int:
    """Points of the full union grid of two unique sorted x (no grid built)."""
    grid_range = union_grid_bounds(a_x, b_x)
    if grid_range is None:
        return 0
    lo, hi = grid_range
    a_in = a_x[np.searchsorted(a_x, lo) : np.searchsorted(a_x, hi, "right")]
    b_in = b_x[np.searchsorted(b_x, lo) : np.searchsorted(b_x, hi, "right")]
    if a_in.size == 0 or b_in.size == 0:
        return int(a_in.size + b_in.size)
    at = np.minimum(np.searchsorted(a_in, b_in), a_in.size - 1)
    common = int(np.count_nonzero(a_in[at] == b_in))
    return int(a_in.size + b_in.size - common)


def union_grid_bounds(
    a_x: FloatArray, b_x: FloatArray
) -> tuple[float, float] | None:
    """The overlap [lo, hi] of two non-empty sorted x, or None."""
    if a_x.size == 0 or b_x.size == 0:
        return None
    lo = max(float(a_x[0]), float(b_x[0]))
    hi = min(float(a_x[-1]), float(b_x[-1]))
    return None if lo > hi else (lo, hi)


def _inside(
    x: FloatArray,
    lo: float,
    hi: float,
    x_range: tuple[float, float] | None,
) -> tuple[int, int]:
    """Slice of x inside [lo, hi], narrowed to a window's neighbourhood."""
    start = int(np.searchsorted(x, lo, side="left"))
    stop = int(np.searchsorted(x, hi, side="right"))
    if x_range is not None:
        # The grid's nearest point below the window is the larger of the two
        # series' nearest points below it; keeping each series' own one
        # keeps it (likewise above).
        start = max(start, int(np.searchsorted(x, x_range[0], "left")) - 1)
        stop = min(stop, int(np.searchsorted(x, x_range[1], "right")) + 1)
        stop = max(stop, start)
    return start, stop


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
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = (at - x0) / np.where(x1 == x0, 1.0, x1 - x0)
        line = y0 + t * (y1 - y0)
    out = np.where(both_finite, line, np.nan)
    return np.where(hit, y1, out).astype(np.float64)


def baseline_at(x: FloatArray, y: FloatArray, at: FloatArray) -> FloatArray:
    """A baseline series read at any positions, as difference curves read it.

    A repeated x keeps its last point; inside the series' x range, an exact
    hit is the point's value and a position between two points the line
    between them (NaN when either is not finite); outside it, NaN: never
    extrapolated.

    Args:
        x: Sorted x of the baseline (repeats allowed).
        y: Its values.
        at: Positions, in any order.

    Returns:
        Values at `at`.
    """
    xs, ys = last_per_x(
        np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    )
    at = np.asarray(at, dtype=np.float64)
    out = np.full(at.shape, np.nan)
    if xs.size == 0:
        return out
    inside = (at >= xs[0]) & (at <= xs[-1])
    out[inside] = resample_at(xs, ys, at[inside])
    return out


def last_per_x(x: FloatArray, *columns: FloatArray) -> tuple[FloatArray, ...]:
    """x without repeats and the columns at the last point of each x (rule 1).

    Returns the inputs themselves when x has no repeats.
    """
    if x.size < 2:
        return (x, *columns)
    repeated = x[1:] == x[:-1]
    if not repeated.any():
        return (x, *columns)
    last = np.empty(x.size, dtype=bool)
    np.logical_not(repeated, out=last[:-1])
    last[-1] = True
    return (x[last], *(c[last] for c in columns))


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
    if xs.size > 1 and bool(np.any(xs[1:] < xs[:-1])):
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
    a_x, a_y = last_per_x(*_checked(xa, ya, "A"))
    b_x, b_y = last_per_x(*_checked(xb, yb, "B"))
    grid = union_grid(a_x, b_x)
    if grid is None:
        empty = np.empty(0, dtype=np.float64)
        return AlignedPair(empty, empty.copy(), empty.copy())
    return AlignedPair(grid.x, grid.read_a(a_y), grid.read_b(b_y))
