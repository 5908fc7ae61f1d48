"""Detectors of level changes: cliffs, stepwise rises and explosions.

Cliffs and steps are sudden shifts of the trend. On the coarse view of the
curve (block medians of its rolling median, turned so that up is worse)
a straight line is fitted to the `w` blocks left of each boundary and to
the `w` blocks right of it; the gap between the two lines at the boundary
is the shift there. A smooth curve, however steep, has lines that meet
(for a parabola exactly: the two extrapolation errors cancel), so only a
jump leaves a gap. A gap counts when it is many noise sigmas wide, large
relative to the level, sharp (a short fit sees it too), and not explained
by a learning-rate change at the same place.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .base import Anomaly, Prepared, fmt, fmt_step
from .robust import (
    TINY,
    coarse_view,
    robust_range,
    rolling_median,
    second_diff_sigma,
    severity,
)
from .schedule import Schedule

SHIFT_SIGMAS = 6.0  # a shift is this many sigmas of its own estimate
CLIFF_DROP = 0.3  # a cliff drops the level (or range) by this fraction
STEP_RISE = 0.08  # each step of a stepwise rise lifts it by this fraction
MIN_STEPS = 2  # steps that make a stepwise rise
STEP_SPACING = 2.5  # most / least spacing of regular steps
MIN_SHIFT_BLOCKS = 12  # coarse points a series needs for shift detection
EXPLOSION_DECADES = 2.0  # growth, in powers of ten, that is an explosion
MIN_EXPLOSION_SERIES = 20  # points a series needs for explosion detection


@dataclasses.dataclass(frozen=True)
class Shift:
    """A sudden shift of the (turned) level at a coarse boundary."""

    boundary: int  # the first coarse block after the shift
    gap: float  # new level - old level (turned: > 0 is worse)
    before: float  # the old level at the boundary
    relative: float  # |gap| / reference
    sigmas: float  # |gap| / its noise
    first: int  # finite-point range of the transition
    last: int


def _line_ends(c: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """At each boundary j in [w, M - w], the lines fitted to the w points
    left and right of it, evaluated at j - 0.5: (left, right)."""
    m = len(c)
    t = np.arange(m, dtype=np.float64)
    sy = np.r_[0.0, np.cumsum(c)]
    sty = np.r_[0.0, np.cumsum(t * c)]
    j = np.arange(w, m - w + 1)
    stt = w * (w * w - 1) / 12.0

    def fit_at(lo: np.ndarray) -> np.ndarray:
        hi = lo + w
        sum_y = sy[hi] - sy[lo]
        sum_ty = sty[hi] - sty[lo]
        tbar = lo + (w - 1) / 2.0
        slope = (sum_ty - tbar * sum_y) / stt
        return sum_y / w + slope * ((j - 0.5) - tbar)

    return fit_at(j - w), fit_at(j)


def find_shifts(
    p: Prepared, *, rising: bool, need: float | None = None
) -> list[Shift]:
    """Sudden shifts of the turned level: drops (rising=False) or rises.

    Args:
        need: the smallest shift relative to the level (or range); default
            `STEP_RISE` for rises and `CLIFF_DROP` for drops.
    """
    coarse = p.coarse
    c = coarse.values
    m = len(c)
    if m < MIN_SHIFT_BLOCKS:
        return []
    w = int(np.clip(m // 12, 3, 25))
    short = max(2, w // 3)
    left, right = _line_ends(c, w)
    gap = right - left
    sigma = second_diff_sigma(c)
    spread = robust_range(c)
    noise = sigma * math.sqrt(8.0 / w) + TINY
    sigmas = gap / noise
    if p.bad.zero_bounded:
        reference = np.maximum(left, max(0.05 * spread, TINY))
    else:
        reference = np.full_like(gap, max(spread, TINY))
    relative = np.abs(gap) / reference
    sign = 1.0 if rising else -1.0
    if need is None:
        need = STEP_RISE if rising else CLIFF_DROP
    ok = (sign * sigmas >= SHIFT_SIGMAS) & (relative >= need)
    if not ok.any():
        return []
    short_left, short_right = _line_ends(c, short)
    offset = w - short
    short_gap = (short_right - short_left)[offset : offset + len(gap)]
    ok &= sign * short_gap >= 0.5 * sign * gap
    shifts: list[Shift] = []
    for k in np.flatnonzero(ok)[np.argsort(-np.abs(sigmas[ok]))].tolist():
        j = k + w
        if any(abs(s.boundary - j) < w for s in shifts):
            continue
        # A cliff reaches a level below all the recent past (not the end
        # of a bump up).
        after = float(np.median(c[j : j + w]))
        past = c[max(0, j - 3 * w) : j]
        if not rising and after > float(past.min()) + 0.5 * gap[k]:
            continue
        first, last = _locate(p, j, rising)
        shifts.append(
            Shift(
                boundary=j,
                gap=float(gap[k]),
                before=float(left[k]),
                relative=float(relative[k]),
                sigmas=float(abs(sigmas[k])),
                first=first,
                last=last,
            )
        )
    return sorted(shifts, key=lambda s: s.boundary)


def _locate(p: Prepared, boundary: int, rising: bool) -> tuple[int, int]:
    """The finite-point range where a coarse shift happens."""
    coarse = p.coarse
    lo = int(coarse.starts[max(0, boundary - 2)])
    hi = int(coarse.stops[min(len(coarse) - 1, boundary + 1)])
    values = p.bad_base[lo:hi]
    h = max(2, coarse.block)
    sums = np.r_[0.0, np.cumsum(values)]
    n = len(values)
    cut = np.arange(1, n)
    width_l = np.minimum(cut, h)
    width_r = np.minimum(n - cut, h)
    mean_l = (sums[cut] - sums[cut - width_l]) / width_l
    mean_r = (sums[cut + width_r] - sums[cut]) / width_r
    change = mean_r - mean_l
    i = lo + int(cut[np.argmax(change if rising else -change)])
    spread = max(1, coarse.block // 2)
    return i - spread, i - 1 + spread


def _explained(
    p: Prepared, first: int, last: int, lr: Schedule | None
) -> tuple[int, int] | None:
    if lr is None or len(lr) == 0:
        return None
    tolerance = max(
        2 * p.coarse.block * _step_per_point(p),
        0.005 * (int(p.steps[-1]) - int(p.steps[0])),
    )
    return lr.jump_near(
        p.step_at(first) - tolerance, p.step_at(last) + tolerance
    )


def _step_per_point(p: Prepared) -> float:
    if len(p.y) < 2:
        return 1.0
    return max(1.0, (p.step_at(len(p.y) - 1) - p.step_at(0)) / (len(p.y) - 1))


def detect_cliffs(p: Prepared, lr: Schedule | None = None) -> list[Anomaly]:
    """Sudden drops to a much better level that stays there."""
    out = []
    for shift in find_shifts(p, rising=False):
        if _explained(p, shift.first, shift.last, lr) is not None:
            continue
        old = p.bad.undo(shift.before)
        new = p.bad.undo(shift.before + shift.gap)
        step = fmt_step(p.step_at(shift.last))
        message = (
            f"sudden {'drop' if new < old else 'jump'} from {fmt(old)} to "
            f"{fmt(new)} at step {step} that stays "
            f"({shift.relative:.0%} of the "
            f"{'level' if p.bad.zero_bounded else 'range'}, no "
            "learning-rate change there)"
        )
        out.append(
            p.anomaly(
                "cliff",
                shift.first,
                shift.last,
                severity(shift.relative / CLIFF_DROP, full=3.0),
                message,
                {
                    "before": old,
                    "after": new,
                    "relativeChange": shift.relative,
                    "sigmas": shift.sigmas,
                },
            )
        )
    return out


def detect_stepwise_rise(
    p: Prepared, lr: Schedule | None = None
) -> list[Anomaly]:
    """Two or more sudden, lasting steps to a worse level, evenly spaced."""
    shifts = [
        s
        for s in find_shifts(p, rising=True)
        if _explained(p, s.first, s.last, lr) is None
    ]
    if len(shifts) < MIN_STEPS:
        return []
    # Steps add up: no drop as sudden between them (a square wave's
    # rising edges alternate with falling ones).
    smallest = min(s.relative for s in shifts)
    first, last = shifts[0].boundary, shifts[-1].boundary
    if any(
        first <= d.boundary <= last
        for d in find_shifts(p, rising=False, need=0.5 * smallest)
    ):
        return []
    steps = [p.step_at(s.last) for s in shifts]
    spacing = np.diff(steps)
    if len(spacing) >= 2 and spacing.max() > STEP_SPACING * spacing.min():
        return []
    start = p.bad.undo(shifts[0].before)
    end = p.bad.undo(shifts[-1].before + shifts[-1].gap)
    message = (
        f"{len(shifts)} sudden steps worse, every ~"
        f"{fmt_step(int(np.median(spacing)))} steps (at steps "
        f"{', '.join(fmt_step(s) for s in steps)}): from {fmt(start)} to "
        f"{fmt(end)}"
    )
    mean_rel = float(np.mean([s.relative for s in shifts]))
    return [
        p.anomaly(
            "stepwise_rise",
            shifts[0].first,
            shifts[-1].last,
            severity(mean_rel / STEP_RISE * len(shifts) / 4, full=5.0),
            message,
            {
                "steps": steps,
                "spacing": float(np.median(spacing)),
                "total": float(sum(s.gap for s in shifts)),
                "relativeChanges": [s.relative for s in shifts],
            },
        )
    ]


def detect_explosion(p: Prepared) -> list[Anomaly]:
    """Growth by orders of magnitude of |value| (a loss, a gradient norm).

    The coarse view of log10 |value|: the largest rise above its running
    minimum must reach `EXPLOSION_DECADES`, and the growth must not be
    front-loaded (a counter rising from ~0 gains most of its decades at
    once; an explosion keeps gaining: at least a quarter of them in the
    second half of the rise).
    """
    if p.direction == "higher" or len(p) < MIN_EXPLOSION_SERIES:
        return []
    magnitude = np.abs(p.y)
    nonzero = np.flatnonzero(magnitude > 0)
    if len(nonzero) < MIN_EXPLOSION_SERIES:
        return []
    logs = np.log10(magnitude[nonzero])
    coarse = coarse_view(rolling_median(logs, 5))
    levels = coarse.values
    floor = np.minimum.accumulate(levels)
    rise = levels - floor
    peak = int(np.argmax(rise))
    decades = float(rise[peak])
    if decades < EXPLOSION_DECADES:
        return []
    low = int(np.argmin(levels[: peak + 1]))
    start = low + int(
        np.flatnonzero(levels[low : peak + 1] <= levels[low] + 0.1 * decades)[
            -1
        ]
    )
    middle = (start + peak) // 2
    if levels[peak] - levels[middle] < 0.25 * decades:
        return []
    end = peak
    if levels[-1] >= levels[peak] - 0.5:
        end = len(levels) - 1
    first = int(nonzero[coarse.starts[start]])
    last = int(nonzero[coarse.stops[end] - 1])
    old, new = 10 ** float(levels[start]), 10 ** float(levels[peak])
    message = (
        f"grows {10**decades:.3g}-fold (10^{decades:.1f}, from about "
        f"{fmt(old)} to {fmt(new)}) between steps "
        f"{fmt_step(p.step_at(first))} and {fmt_step(p.step_at(last))}"
    )
    return [
        p.anomaly(
            "explosion",
            first,
            last,
            severity(decades / EXPLOSION_DECADES, full=4.0),
            message,
            {"decades": decades, "from": old, "to": new},
        )
    ]
