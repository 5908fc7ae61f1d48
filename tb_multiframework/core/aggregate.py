"""Aggregates of run groups: a center line with a band, on any axis.

Definition, for the members of one group (each a series sorted by x, already
smoothed when smoothing is on):

1. A member's repeated x keeps the last point (as in difference curves).
2. The grid is the union of the members' x.
3. Each member is read at every grid x inside its own range
   `[first x, last x]` (never extrapolated): at one of its own x, its own
   value; strictly between two of its points, the straight line between
   them if both are finite, else nothing. Non-finite values count as absent.
   `count` = members with a value at that x.
4. Center: `mean` (arithmetic) or `median` of the present values.
5. Band, around the center:
   - `std`: center ± s, s the sample standard deviation (ddof = 1);
   - `ci95`: center ± t(0.975, count − 1) · s / √count, Student's t with
     count − 1 degrees of freedom (exact table up to 30, a Cornish–Fisher
     expansion above, both within 1e-6 of scipy's `t.ppf`);
   - `minmax`: the smallest and the largest present value;
   - `none`: no band.
   `std` and `ci95` need count >= 2; elsewhere their band is NaN (a gap).

A group baseline: on the union of both groups' members' x, where both have
at least one member, `difference = center_A − center_B` with the band
   - `std`: ± √(s_A²/n_A + s_B²/n_B) (the standard error of the difference of
     the means),
   - `ci95`: ± t(0.975, min(n_A, n_B) − 1) · √(s_A²/n_A + s_B²/n_B)
     (Welch's interval with the conservative degrees of freedom),
   - `minmax`: [min_A − max_B, max_A − min_B];
and `separated` true where the two groups' own bands do not overlap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .diff import resample_at
from .types import FloatArray, Int64Array

AGGREGATES = ("none", "mean", "median")
BANDS = ("none", "std", "minmax", "ci95")
MAX_GROUPS = 100  # groups aggregated in one request

# t(0.975, dof) for dof = 1..30 (scipy.stats.t.ppf; tests check them).
_T975 = (
    12.706204736174694,
    4.302652729749462,
    3.1824463052837078,
    2.7764451051977934,
    2.5705818356363146,
    2.4469118511449786,
    2.364624251592784,
    2.306004135204166,
    2.262157162798205,
    2.228138851986274,
    2.200985160091639,
    2.1788128296672284,
    2.1603686564627913,
    2.144786687917804,
    2.131449545559776,
    2.1199052992212546,
    2.1098155778333156,
    2.1009220402410382,
    2.0930240544083087,
    2.085963447265864,
    2.0796138447276795,
    2.0738730679040254,
    2.0686576104190486,
    2.0638985616280245,
    2.0595385527532972,
    2.0555294386428735,
    2.0518305164802846,
    2.0484071417952454,
    2.045229642132703,
    2.0422724563012378,
)
_Z975 = 1.959963984540054  # normal 0.975 quantile


def t975(dof: npt.ArrayLike) -> FloatArray:
    """Student's t 0.975 quantile for integer degrees of freedom (>= 1).

    NaN where dof < 1.
    """
    d = np.asarray(dof, dtype=np.float64)
    out = np.full(d.shape, np.nan)
    table = np.asarray(_T975)
    small = (d >= 1) & (d <= len(_T975))
    out[small] = table[d[small].astype(np.int64) - 1]
    large = d > len(_T975)
    if np.any(large):
        v, z = d[large], _Z975
        out[large] = (
            z
            + (z**3 + z) / (4 * v)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z)
            / (92160 * v**4)
        )
    return out


@dataclass(frozen=True)
class Stats:
    """Per-grid-x statistics of a group's members.

    Attributes:
        x: The grid.
        count: Members present at each x.
        center: Mean or median (NaN where count is 0).
        mean: The mean (for differences of groups).
        std: Sample standard deviation (NaN where count < 2).
        low: Smallest present value.
        high: Largest present value.
    """

    x: FloatArray
    count: Int64Array
    center: FloatArray
    mean: FloatArray
    std: FloatArray
    low: FloatArray
    high: FloatArray

    def band(self, kind: str) -> tuple[FloatArray, FloatArray] | None:
        """(lower, upper) of the band `kind`, None for "none"."""
        if kind == "none":
            return None
        if kind == "minmax":
            return self.low, self.high
        half = self.std
        if kind == "ci95":
            with np.errstate(invalid="ignore", divide="ignore"):
                half = t975(self.count - 1) * self.std / np.sqrt(self.count)
        return self.center - half, self.center + half


def member_grid(members: Sequence[tuple[FloatArray, FloatArray]]) -> FloatArray:
    """The union of the members' x, sorted, unique."""
    xs = [np.asarray(x, dtype=np.float64) for x, _ in members]
    xs = [x for x in xs if x.size]
    if not xs:
        return np.empty(0, dtype=np.float64)
    first = xs[0]
    if all(x.size == first.size and np.array_equal(x, first) for x in xs[1:]):
        return _unique_sorted(first)
    return np.unique(np.concatenate(xs))


def member_matrix(
    members: Sequence[tuple[FloatArray, FloatArray]], grid: FloatArray
) -> FloatArray:
    """Each member read on the grid (rows), NaN outside its range.

    Args:
        members: (x sorted, y) per member.
        grid: Sorted unique positions.
    """
    out = np.full((len(members), grid.size), np.nan)
    for row, (x, y) in enumerate(members):
        xs = np.asarray(x, dtype=np.float64)
        ys = np.asarray(y, dtype=np.float64)
        if xs.size == 0:
            continue
        xs, ys = _last_per_x(xs, ys)
        if xs.size == grid.size and np.array_equal(xs, grid):
            out[row] = ys
            continue
        lo = int(np.searchsorted(grid, xs[0], side="left"))
        hi = int(np.searchsorted(grid, xs[-1], side="right"))
        out[row, lo:hi] = resample_at(xs, ys, grid[lo:hi])
    out[~np.isfinite(out)] = np.nan
    return out


def group_stats(matrix: FloatArray, grid: FloatArray, *, center: str) -> Stats:
    """Statistics over the rows of a member matrix (NaN = absent).

    Raises:
        ValueError: for a center other than "mean" or "median".
    """
    if center not in ("mean", "median"):
        raise ValueError(f"center must be mean or median, got {center!r}")
    if matrix.shape[0] == 0:
        # No member on the axis (every one excluded): no statistic at any
        # x, and numpy's min/max of zero rows has no identity.
        return _no_members(grid)
    present = ~np.isnan(matrix)
    if matrix.size and present.all():
        return _dense_stats(matrix, grid, center=center)
    count = present.sum(axis=0).astype(np.int64)
    filled = np.where(present, matrix, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=0) / count
        dev = np.where(present, matrix - mean, 0.0)
        var = (dev * dev).sum(axis=0) / (count - 1)
    mean = np.where(count > 0, mean, np.nan)
    std = np.where(count > 1, np.sqrt(np.maximum(var, 0.0)), np.nan)
    low = np.where(
        count > 0, np.where(present, matrix, np.inf).min(axis=0), np.nan
    )
    high = np.where(
        count > 0, np.where(present, matrix, -np.inf).max(axis=0), np.nan
    )
    if center == "median":
        mid = _median(matrix, present, count)
    else:
        mid = mean
    return Stats(grid, count, mid, mean, std, low, high)


def _no_members(grid: FloatArray) -> Stats:
    """`group_stats` of a group without a member: count 0, NaN elsewhere."""
    nan = np.full(grid.size, np.nan)
    count = np.zeros(grid.size, dtype=np.int64)
    copies = (nan.copy() for _ in range(4))
    return Stats(grid, count, nan, *copies)


def _dense_stats(matrix: FloatArray, grid: FloatArray, *, center: str) -> Stats:
    """`group_stats` when every member has a value at every x (one pass a
    statistic instead of masked ones: members logged at the same x are the
    common case)."""
    n = matrix.shape[0]
    count = np.full(grid.size, n, dtype=np.int64)
    mean = matrix.mean(axis=0)
    if n > 1:
        dev = matrix - mean
        std = np.sqrt(np.einsum("ij,ij->j", dev, dev) / (n - 1))
    else:
        std = np.full(grid.size, np.nan)
    low, high = matrix.min(axis=0), matrix.max(axis=0)
    mid = np.median(matrix, axis=0) if center == "median" else mean
    return Stats(grid, count, mid, mean, std, low, high)


def aggregate(
    members: Sequence[tuple[FloatArray, FloatArray]], *, center: str
) -> Stats:
    """The statistics of one group on the union of its members' x."""
    grid = member_grid(members)
    return group_stats(member_matrix(members, grid), grid, center=center)


@dataclass(frozen=True)
class GroupDiff:
    """Group A minus baseline group B.

    Attributes:
        x: Grid where both groups have a member.
        y: center_A − center_B.
        lower, upper: The band (None for band "none").
        separated: Where the groups' own bands do not overlap.
        count_a, count_b: Members present.
    """

    x: FloatArray
    y: FloatArray
    lower: FloatArray | None
    upper: FloatArray | None
    separated: npt.NDArray[np.bool_] | None
    count_a: Int64Array
    count_b: Int64Array


def group_difference(
    a: Sequence[tuple[FloatArray, FloatArray]],
    b: Sequence[tuple[FloatArray, FloatArray]],
    *,
    center: str,
    band: str,
) -> GroupDiff:
    """A's center minus B's on the union of both groups' x (module doc)."""
    grid = member_grid([*a, *b])
    sa = group_stats(member_matrix(a, grid), grid, center=center)
    sb = group_stats(member_matrix(b, grid), grid, center=center)
    keep = (sa.count > 0) & (sb.count > 0)
    x = grid[keep]
    y = (sa.center - sb.center)[keep]
    na, nb = sa.count[keep], sb.count[keep]
    lower = upper = None
    separated = None
    if band != "none":
        if band == "minmax":
            lower = (sa.low - sb.high)[keep]
            upper = (sa.high - sb.low)[keep]
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                se = np.sqrt(sa.std[keep] ** 2 / na + sb.std[keep] ** 2 / nb)
                if band == "ci95":
                    se = t975(np.minimum(na, nb) - 1) * se
            lower, upper = y - se, y + se
        band_a, band_b = sa.band(band), sb.band(band)
        assert band_a is not None and band_b is not None
        with np.errstate(invalid="ignore"):
            separated = (band_a[0][keep] > band_b[1][keep]) | (
                band_a[1][keep] < band_b[0][keep]
            )
    return GroupDiff(x, y, lower, upper, separated, na, nb)


def bucket_envelope(
    x: FloatArray,
    values: FloatArray,
    kept: Int64Array,
    buckets: int,
    *,
    low: bool,
) -> FloatArray:
    """Per kept point, the min (or max) of `values` over its x bucket.

    Buckets are those of `downsample.downsample_minmax` (equal width over
    [x[0], x[-1]]), so a band drawn through the kept points still holds
    every extreme of the full-resolution band. A series short enough to be
    sent whole is returned as is.
    """
    if x.size == kept.size:
        return values[kept]
    lo, hi = float(x[0]), float(x[-1])
    if hi == lo:
        bucket = np.zeros(x.size, dtype=np.int64)
    else:
        bucket = np.minimum(
            np.floor((x - lo) / (hi - lo) * buckets).astype(np.int64),
            buckets - 1,
        )
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    segment = np.cumsum(np.r_[False, bucket[1:] != bucket[:-1]])
    finite = np.where(np.isnan(values), np.inf if low else -np.inf, values)
    reduce = np.minimum if low else np.maximum
    per_bucket = reduce.reduceat(finite, starts)
    per_bucket = np.where(np.isinf(per_bucket), np.nan, per_bucket)
    return per_bucket[segment[kept]]


def check_choice(value: str, allowed: tuple[str, ...], name: str) -> str:
    """Raises ValueError unless `value` is one of `allowed`."""
    if value not in allowed:
        raise ValueError(
            f"{name} must be one of {list(allowed)}, got {value!r}"
        )
    return value


def _median(
    matrix: FloatArray, present: npt.NDArray[np.bool_], count: Int64Array
) -> FloatArray:
    """Column medians ignoring NaN, without nanmedian's all-NaN warnings."""
    if matrix.shape[0] == 0:
        return np.full(matrix.shape[1], np.nan)
    # NaN sorts last: the present values are the first `count` of a column.
    ordered = np.sort(matrix, axis=0)
    cols = np.arange(matrix.shape[1])
    hi_i = np.maximum(count // 2, 0)
    lo_i = np.maximum((count - 1) // 2, 0)
    hi_i = np.minimum(hi_i, matrix.shape[0] - 1)
    mid = 0.5 * (ordered[lo_i, cols] + ordered[hi_i, cols])
    return np.where(count > 0, mid, np.nan)


def _last_per_x(x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    last = np.r_[x[1:] != x[:-1], True]
    if last.all():
        return x, y
    return x[last], y[last]


def _unique_sorted(x: FloatArray) -> FloatArray:
    keep = np.r_[True, x[1:] != x[:-1]]
    return x if keep.all() else x[keep]


def finite_or_none(value: float) -> float | None:
    """A float for JSON, None when not finite."""
    return value if math.isfinite(value) else None
