"""A candidate run held against a baseline run: the numbers of `tbmf diff`,
`tbmf check` and `tbmf report`.

Everything starts from `diff.align_pair`: both series read on the union grid
of their overlap, linear between logged points, never extrapolated (the
rules of the tab's difference curves). On that grid:

- `diff_stats`: mean and max of |candidate − baseline|, and where the max is.
- `check_tolerance`: every grid point of a window must satisfy
  |c − b| <= atol + rtol·|b| (numpy's `isclose`, relative to the
  baseline). Where either value is not finite, the point passes only when
  both are the same non-finite value (NaN and NaN, Inf and Inf): a
  candidate that diverges where the baseline did not is a violation.
- `judge_change`: one summary value (last, best) against the baseline's,
  as ✅ (within tolerance, or better), ❌ (worse beyond tolerance) or ⚠️
  (changed beyond tolerance where the metric's direction is unknown, or a
  value is missing or not finite).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .diff import AlignedPair

WINDOWS = ("last", "all")  # or a (from, to) range on the axis
PASS, WARN, FAIL = "✅", "⚠️", "❌"


@dataclass(frozen=True)
class DiffStats:
    """|candidate − baseline| over the aligned overlap.

    Attributes:
        points: Grid points in the overlap.
        compared: Points where both values are finite.
        mean_abs: Mean |c − b| over those (None without any).
        max_abs: Largest |c − b|.
        max_at: x of the first point holding it.
        overlap: (first, last) x of the overlap, None without one.
    """

    points: int
    compared: int
    mean_abs: float | None
    max_abs: float | None
    max_at: float | None
    overlap: tuple[float, float] | None


def diff_stats(pair: AlignedPair) -> DiffStats:
    """Mean and max |b − a| of an aligned pair (a = baseline)."""
    overlap = (float(pair.x[0]), float(pair.x[-1])) if pair.x.size else None
    finite = np.isfinite(pair.a) & np.isfinite(pair.b)
    compared = int(finite.sum())
    if not compared:
        return DiffStats(int(pair.x.size), 0, None, None, None, overlap)
    gaps = np.abs(pair.b[finite] - pair.a[finite])
    i = int(np.argmax(gaps))
    return DiffStats(
        points=int(pair.x.size),
        compared=compared,
        mean_abs=float(gaps.mean()),
        max_abs=float(gaps[i]),
        max_at=float(pair.x[finite][i]),
        overlap=overlap,
    )


@dataclass(frozen=True)
class Violation:
    """A grid point where the candidate is out of tolerance.

    Attributes:
        x: Its position on the axis.
        baseline: The baseline's value there.
        candidate: The candidate's value there.
        allowed: atol + rtol·|baseline|.
        ratio: |c − b| / allowed (inf when nothing was allowed, or a value
            is not finite).
    """

    x: float
    baseline: float
    candidate: float
    allowed: float
    ratio: float


@dataclass(frozen=True)
class ToleranceCheck:
    """The outcome of `check_tolerance`.

    Attributes:
        window: (first, last) x of the points checked.
        checked: Grid points checked.
        violations: How many of them are out of tolerance.
        first: The first violation along x.
        worst: The one furthest out (largest ratio; the first of ties).
    """

    window: tuple[float, float]
    checked: int
    violations: int
    first: Violation | None
    worst: Violation | None

    @property
    def passed(self) -> bool:
        return self.violations == 0


def check_tolerance(
    pair: AlignedPair,
    *,
    rtol: float,
    atol: float,
    window: str | tuple[float, float] = "all",
) -> ToleranceCheck:
    """Whether the candidate (b) stays within tolerance of the baseline (a).

    Args:
        pair: Baseline as `a`, candidate as `b`, from `align_pair`.
        rtol: Relative tolerance (of |baseline|), >= 0.
        atol: Absolute tolerance, >= 0.
        window: "all" (every grid point), "last" (the last point of the
            overlap) or an inclusive (from, to) range on the axis.

    Raises:
        ValueError: a bad tolerance or window, no overlap, or no grid point
            inside the window (naming the overlap).
    """
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0: {value}")
    if pair.x.size == 0:
        raise ValueError("the runs do not overlap on this axis")
    keep = window_indices(pair.x, window)
    x, a, b = pair.x[keep], pair.a[keep], pair.b[keep]
    allowed = atol + rtol * np.abs(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.abs(b - a)
        ratio = np.where(
            allowed > 0, gap / allowed, np.where(gap > 0, np.inf, 0)
        )
    finite = np.isfinite(a) & np.isfinite(b)
    same_nonfinite = ~finite & ((a == b) | (np.isnan(a) & np.isnan(b)))
    bad = np.where(finite, gap > allowed, ~same_nonfinite)
    ratio = np.where(finite, ratio, np.where(bad, np.inf, 0.0))
    indices = np.flatnonzero(bad)

    def violation(i: int) -> Violation:
        return Violation(
            x=float(x[i]),
            baseline=float(a[i]),
            candidate=float(b[i]),
            allowed=float(allowed[i]),
            ratio=float(ratio[i]),
        )

    first = worst = None
    if indices.size:
        first = violation(int(indices[0]))
        worst = violation(int(indices[np.argmax(ratio[indices])]))
    return ToleranceCheck(
        window=(float(x[0]), float(x[-1])),
        checked=int(x.size),
        violations=int(indices.size),
        first=first,
        worst=worst,
    )


def window_indices(
    x: npt.ArrayLike, window: str | tuple[float, float]
) -> npt.NDArray[np.intp]:
    """Indices of the sorted positions `x` a window covers.

    Args:
        x: Sorted positions (at least one).
        window: "all", "last" (the last position) or an inclusive
            (from, to) range; either end may be infinite.

    Raises:
        ValueError: a malformed window, or one that covers no position
            (naming the positions' range).
    """
    xs = np.asarray(x, dtype=np.float64)
    if window == "all":
        return np.arange(xs.size)
    if window == "last":
        return np.array([xs.size - 1])
    if not (isinstance(window, tuple) and len(window) == 2):
        raise ValueError(
            f"window must be one of {WINDOWS} or (from, to), got {window!r}"
        )
    lo, hi = (float(v) for v in window)
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise ValueError(f"window must have from <= to: {window}")
    keep = np.flatnonzero((xs >= lo) & (xs <= hi))
    if keep.size == 0:
        raise ValueError(
            f"no compared position in the window [{lo:g}, {hi:g}]; "
            f"positions run from {xs[0]:g} to {xs[-1]:g}"
        )
    return keep


@dataclass(frozen=True)
class DistanceViolation:
    """A position where a histogram distance exceeds its limit."""

    x: float
    distance: str
    value: float
    limit: float

    @property
    def ratio(self) -> float:
        """value / limit; inf for a zero limit or a NaN distance."""
        if self.limit > 0 and not math.isnan(self.value):
            return self.value / self.limit
        return math.inf


@dataclass(frozen=True)
class DistanceCheck:
    """The outcome of `check_distances`.

    Attributes:
        window: (first, last) position checked.
        checked: Positions checked.
        violations: Positions where some distance exceeds its limit.
        first: The first violation (by position, then distance order).
        worst: The largest value / limit.
    """

    window: tuple[float, float]
    checked: int
    violations: int
    first: DistanceViolation | None
    worst: DistanceViolation | None

    @property
    def passed(self) -> bool:
        return self.violations == 0


def check_distances(
    positions: npt.ArrayLike,
    distances: dict[str, npt.ArrayLike],
    limits: dict[str, float],
    *,
    window: str | tuple[float, float] = "all",
) -> DistanceCheck:
    """Whether distances between two runs' histograms stay within limits.

    Args:
        positions: Sorted positions of the compared histogram pairs.
        distances: Name -> one value per position (`wasserstein`, `ks`).
        limits: Name -> the largest value allowed (names of `distances`).
        window: As in `check_tolerance`.

    Raises:
        ValueError: no positions, a window covering none, a limit that is
            negative or not finite, or a limit for an unknown distance.
    """
    xs = np.asarray(positions, dtype=np.float64)
    if xs.size == 0:
        raise ValueError("no histogram positions to compare")
    for name, limit in limits.items():
        if name not in distances:
            raise ValueError(f"no distance {name!r}; have {sorted(distances)}")
        if not (math.isfinite(limit) and limit >= 0):
            raise ValueError(f"limit of {name} must be >= 0: {limit}")
    keep = window_indices(xs, window)
    found: list[DistanceViolation] = []
    bad_positions = set()
    for i in keep.tolist():
        for name, limit in limits.items():
            value = float(np.asarray(distances[name], dtype=np.float64)[i])
            # A NaN distance (an empty histogram) is not a pass.
            if not value <= limit:
                found.append(
                    DistanceViolation(float(xs[i]), name, value, limit)
                )
                bad_positions.add(i)
    worst = max(found, key=lambda v: v.ratio, default=None)
    return DistanceCheck(
        window=(float(xs[keep[0]]), float(xs[keep[-1]])),
        checked=int(keep.size),
        violations=len(bad_positions),
        first=found[0] if found else None,
        worst=worst,
    )


@dataclass(frozen=True)
class Change:
    """A summary value of the candidate against the baseline's.

    Attributes:
        baseline: The baseline's value.
        candidate: The candidate's value.
        delta: candidate − baseline.
        relative: delta / |baseline| (None when the baseline is 0 or a
            value is missing or not finite).
        verdict: PASS, WARN or FAIL.
        reason: Why, in a few words.
    """

    baseline: float | None
    candidate: float | None
    delta: float | None
    relative: float | None
    verdict: str
    reason: str


def change(
    baseline: float | None, candidate: float | None
) -> tuple[float | None, float | None]:
    """(candidate − baseline, that / |baseline|); None where undefined.

    Undefined: a value missing or not finite; the relative change also
    when the baseline is 0.
    """
    if baseline is None or candidate is None:
        return None, None
    if not (math.isfinite(baseline) and math.isfinite(candidate)):
        return None, None
    delta = candidate - baseline
    return delta, (delta / abs(baseline) if baseline != 0 else None)


def judge_change(
    baseline: float | None,
    candidate: float | None,
    *,
    direction: str | None,
    tolerance: float,
) -> Change:
    """Judges a change by the metric's direction against a tolerance.

    Args:
        baseline: The baseline's value (last or best).
        candidate: The candidate's.
        direction: "min" (lower is better), "max" or None (unknown).
        tolerance: Relative change (0.05 = 5%) counted as no change; when
            the baseline is 0, the absolute change.

    Raises:
        ValueError: a tolerance that is negative or not finite, or an
            unknown direction.
    """
    if not (math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance must be a finite number >= 0: {tolerance}")
    if direction not in ("min", "max", None):
        raise ValueError(f"direction must be 'min', 'max' or None: {direction}")
    if baseline is None or candidate is None:
        return Change(baseline, candidate, None, None, WARN, "missing")
    if not (math.isfinite(baseline) and math.isfinite(candidate)):
        same = baseline == candidate or (
            math.isnan(baseline) and math.isnan(candidate)
        )
        if same:
            return Change(baseline, candidate, None, None, WARN, "not finite")
        verdict = FAIL if math.isfinite(baseline) else WARN
        return Change(baseline, candidate, None, None, verdict, "not finite")
    delta, relative = change(baseline, candidate)
    assert delta is not None
    size = abs(relative) if relative is not None else abs(delta)
    if size <= tolerance:
        return Change(baseline, candidate, delta, relative, PASS, "same")
    if direction is None:
        return Change(
            baseline, candidate, delta, relative, WARN, "direction unknown"
        )
    better = delta < 0 if direction == "min" else delta > 0
    if better:
        return Change(baseline, candidate, delta, relative, PASS, "better")
    return Change(baseline, candidate, delta, relative, FAIL, "worse")
