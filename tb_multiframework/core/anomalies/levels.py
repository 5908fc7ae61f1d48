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

import numpy as np

from .base import Anomaly, Prepared, fmt, fmt_step, say
from .robust import (
    TINY,
    coarse_view,
    robust_range,
    rolling_median,
    severity,
    trend_sigma,
)
from .schedule import Schedule

SHIFT_SIGMAS = 6.0  # a shift is this many sigmas of its own estimate
STEP_SIGMAS = 4.0  # ... each step of a stepwise rise (two or more of them)
CLIFF_DROP = 0.3  # a cliff drops the level (or range) by this fraction
STEP_RISE = 0.04  # each step of a stepwise rise lifts it by this fraction
MIN_STEPS = 2  # steps that make a stepwise rise
STAIR_RISERS = 3  # risers a staircase needs (a rise in many equal steps)
STAIR_FLAT = 0.25  # median change on its flats / median riser, at most
STAIR_SIZES = 3.0  # largest / smallest riser of a staircase, at most
STAIR_TOTAL = 0.1  # a staircase lifts the level by this fraction at least
STEP_SPACING = 2.5  # most / least spacing of regular steps
SQUARE_FALL = 0.8  # falls this large between steps make a square wave
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


def shift_window(blocks: int) -> int:
    """Coarse blocks each line of the shift test is fitted to."""
    return int(np.clip(blocks // 12, 3, 25))


def _step_fits(c: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray, float]:
    """At each boundary j in [w, M - w]: the least-squares fit of
    `a + b t + g [t > 0]` (a line with one slope and a step at the
    boundary) to the w points each side.

    One slope for both sides halves the noise of the step against two
    separate lines; on a parabola the step is still 0 (the boundary is the
    middle of the window). The fit is linear in the data, so it is two
    correlations with fixed weights.

    Returns:
        (the level just before each boundary, the step g, the norm of g's
        weights: g's noise sigma per unit of point noise).
    """
    t = np.arange(2 * w, dtype=np.float64) - w + 0.5
    design = np.stack([np.ones(2 * w), t, (t > 0).astype(np.float64)], 1)
    weights = np.linalg.pinv(design)  # rows: a, b, g
    level_w = weights[0] - 0.5 * weights[1]  # a + b * (-0.5): last left point
    before = np.correlate(c, level_w, mode="valid")
    step = np.correlate(c, weights[2], mode="valid")
    return before, step, float(np.linalg.norm(weights[2]))


def _sigma_without_steps(
    c: np.ndarray, gap: np.ndarray, w: int, scale: float
) -> float:
    """The trend's noise sigma, with its clearest steps taken out first.

    In a short series each step makes two large second differences; a few
    steps and a steep start are enough to inflate any percentile of them.
    Steps past 3 sigmas of a first estimate are subtracted (largest first,
    `w` apart) and the estimate is made again; the smaller one is kept.
    """
    first = trend_sigma(c)
    z = np.abs(gap) / (first * scale + TINY)
    order = np.argsort(-z)
    adjusted = c.copy()
    taken: list[int] = []
    for k in order[z[order] >= 3.0].tolist():
        j = k + w
        if all(abs(j - other) >= w for other in taken):
            adjusted[j:] -= gap[k]
            taken.append(j)
    if not taken:
        return first
    return min(first, trend_sigma(adjusted))


def find_shifts(
    p: Prepared,
    *,
    rising: bool,
    need: float | None = None,
    new_low: bool = False,
    coarse_values: np.ndarray | None = None,
    sigmas_needed: float = SHIFT_SIGMAS,
) -> list[Shift]:
    """Sudden shifts of the turned level: drops (rising=False) or rises.

    Args:
        need: the smallest shift relative to the level (or range); default
            `STEP_RISE` for rises and `CLIFF_DROP` for drops.
        new_low: a drop must reach below the recent past (not just end a
            bump up).
        coarse_values: look in these instead of `p.coarse.values` (same
            blocks).
        sigmas_needed: the smallest shift in sigmas of its estimate.
    """
    c = p.coarse.values if coarse_values is None else coarse_values
    m = len(c)
    if m < MIN_SHIFT_BLOCKS:
        return []
    w = shift_window(m)
    short = max(2, w // 3)
    left, gap, scale = _step_fits(c, w)
    sigma = _sigma_without_steps(c, gap, w, scale)
    spread = robust_range(c)
    noise = sigma * scale + TINY
    sigmas = gap / noise
    if p.bad.zero_bounded:
        reference = np.maximum(left, max(0.05 * spread, TINY))
    else:
        reference = np.full_like(gap, max(spread, TINY))
    relative = np.abs(gap) / reference
    sign = 1.0 if rising else -1.0
    if need is None:
        need = STEP_RISE if rising else CLIFF_DROP
    ok = (sign * sigmas >= sigmas_needed) & (relative >= need)
    if not ok.any():
        return []
    offset = w - short
    short_gap = _step_fits(c, short)[1][offset : offset + len(gap)]
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
        if new_low and after > float(past.min()) + 0.5 * gap[k]:
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
    """The finite-point range where a coarse shift happens: the cut that
    best splits the blocks around the boundary into two levels (means of
    `h` points each side), widened by half a block for its uncertainty."""
    coarse = p.coarse
    h = max(2, coarse.block)
    lo = max(0, int(coarse.starts[max(0, boundary - 2)]) - h)
    hi = min(len(p), int(coarse.stops[min(len(coarse) - 1, boundary + 1)]) + h)
    values = p.bad.apply(p.despiked[lo:hi])
    n = len(values)
    if n < 2 * h + 1:
        i = int(coarse.starts[boundary])
    else:
        sums = np.r_[0.0, np.cumsum(values)]
        cut = np.arange(h, n - h + 1)
        change = (sums[cut + h] - 2 * sums[cut] + sums[cut - h]) / h
        i = lo + int(cut[np.argmax(change if rising else -change)])
    spread = max(1, coarse.block // 2)
    return max(0, i - spread), min(len(p) - 1, i - 1 + spread)


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
    for shift in find_shifts(p, rising=False, new_low=True):
        if _explained(p, shift.first, shift.last, lr) is not None:
            continue
        old = p.bad.undo(shift.before)
        new = p.bad.undo(shift.before + shift.gap)
        step = fmt_step(p.step_at(shift.last))
        direction = "drop" if new < old else "jump"
        scale = "level" if p.bad.zero_bounded else "range"
        message = say(
            f"anomaly.cliff.{direction}.{scale}",
            **{"from": fmt(old), "to": fmt(new)},
            step=step,
            percent=f"{shift.relative:.0%}",
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
    """Two or more sudden, lasting steps to a worse level, evenly spaced.

    Only for a metric whose better direction is known.
    """
    if p.direction is None:
        return []
    shifts = [
        s
        for s in find_shifts(p, rising=True, sigmas_needed=STEP_SIGMAS)
        if _explained(p, s.first, s.last, lr) is None
    ]
    shifts = _regular(p, shifts)
    if len(shifts) < MIN_STEPS:
        return _staircase(p)
    # Steps add up. With the steps taken out, the curve has no drops as
    # sudden and as large (a square wave's rising edges alternate with
    # falling ones).
    c = p.coarse.values.copy()
    for shift in shifts:
        c[shift.boundary :] -= shift.gap
    typical = float(np.median([s.relative for s in shifts]))
    drops = [
        d
        for d in find_shifts(
            p, rising=False, need=SQUARE_FALL * typical, coarse_values=c
        )
        if shifts[0].boundary <= d.boundary <= shifts[-1].boundary
    ]
    if 2 * len(drops) >= len(shifts):
        return []
    steps = [p.step_at(s.last) for s in shifts]
    spacing = np.diff(steps)
    start = p.bad.undo(shifts[0].before)
    end = p.bad.undo(shifts[-1].before + shifts[-1].gap)
    message = say(
        "anomaly.stepwise.shifts",
        n=len(shifts),
        every=fmt_step(int(np.median(spacing))),
        steps=", ".join(fmt_step(s) for s in steps),
        **{"from": fmt(start), "to": fmt(end)},
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


def _staircase(p: Prepared) -> list[Anomaly]:
    """A rise in many equal steps with flat treads between them.

    A validation metric logged several times per evaluation (or carried
    over between evaluations) rises as a staircase when each evaluation is
    worse by about the same amount. Steps that small and that many blur
    into a straight line for the shift test (its lines span several
    treads), and the regular risers look periodic: read them directly.
    The risers are the changes far above the changes on the treads (at
    least `STAIR_RISERS`, all worse, sizes within `STAIR_SIZES`, evenly
    spaced); the treads are flat (their median change at most
    `STAIR_FLAT` of a riser) and the whole rise is at least `STAIR_TOTAL`
    of the level.
    """
    y = p.bad.apply(p.y)  # up is worse
    n = len(y)
    if n < 4 * STAIR_RISERS:
        return []
    d = np.diff(y)
    size = np.abs(d)
    tread = float(np.median(size))
    big = np.flatnonzero(size > max(8.0 * tread, TINY))
    if len(big) < STAIR_RISERS or len(big) > n // 3:
        return []
    risers = d[big]
    if np.any(risers <= 0):
        return []  # a riser down: a square wave or noise, not a staircase
    if risers.max() > STAIR_SIZES * risers.min():
        return []
    if tread > STAIR_FLAT * float(np.median(risers)):
        return []
    spacing = np.diff(big)
    if spacing.size and spacing.max() > STEP_SPACING * spacing.min():
        return []
    total = float(y[big[-1] + 1] - y[big[0]])
    level = max(abs(float(p.bad.undo(y[big[0]]))), TINY)
    reference = level if p.bad.zero_bounded else max(robust_range(y), TINY)
    if total / reference < STAIR_TOTAL:
        return []
    steps = [p.step_at(int(i) + 1) for i in big]
    start = p.bad.undo(float(y[big[0]]))
    end = p.bad.undo(float(y[big[-1] + 1]))
    message = say(
        "anomaly.stepwise.staircase",
        n=len(big),
        every=fmt_step(int(np.median(np.diff(steps)))),
        **{"from": fmt(start), "to": fmt(end)},
    )
    relative = total / reference
    return [
        p.anomaly(
            "stepwise_rise",
            int(big[0]),
            int(big[-1]) + 1,
            severity(relative / STEP_RISE / 4 * len(big) / 4, full=5.0),
            message,
            {
                "steps": steps,
                "spacing": float(np.median(np.diff(steps))),
                "total": total,
                "relativeChanges": [float(r) / reference for r in risers],
            },
        )
    ]


def _regular(p: Prepared, shifts: list[Shift]) -> list[Shift]:
    """The steps that are evenly spaced: the weakest step is dropped until
    the largest spacing is at most `STEP_SPACING` x the smallest."""
    kept = list(shifts)
    while len(kept) >= MIN_STEPS:
        steps = [p.step_at(s.last) for s in kept]
        spacing = np.diff(steps)
        if len(spacing) < 2 or spacing.max() <= STEP_SPACING * spacing.min():
            return kept
        weakest = min(range(len(kept)), key=lambda i: kept[i].sigmas)
        kept.pop(weakest)
    return kept


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
    message = say(
        "anomaly.explosion",
        fold=f"{10**decades:.3g}",
        decades=f"{decades:.1f}",
        **{"from": fmt(old), "to": fmt(new)},
        stepFrom=fmt_step(p.step_at(first)),
        stepTo=fmt_step(p.step_at(last)),
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
