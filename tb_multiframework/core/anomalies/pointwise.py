"""Detectors of single points: non-finite values and spikes."""

from __future__ import annotations

import numpy as np

from .base import MAX_PER_KIND, Anomaly, Prepared, fmt, fmt_step, say
from .robust import TINY, noise_sigma, robust_range, severity

SPIKE_SIGMAS = 12.0  # a spike is this many local noise sigmas off the trend
SPIKE_LEVEL = 0.1  # ... and this fraction of the trend's level off it
SPIKE_NEIGHBOUR = 1 / 3  # neighbours this far past threshold join a spike
MAX_SPIKE_POINTS = 5  # wider excursions are not spikes
MIN_SPIKE_SERIES = 20  # points a series needs for spike detection
SIDE_POINTS = 5  # points each side of a spike its side lines go through
SIDE_NOISE = 32  # points each side of a spike its side noise comes from


def detect_nonfinite(p: Prepared) -> list[Anomaly]:
    """NaN and +-Inf values: one anomaly per run of them.

    Runs closer than 1 % of the series apart are merged; more than
    `MAX_PER_KIND` runs become one anomaly from the first to the last.
    """
    bad = ~p.finite
    if not bad.any():
        return []
    index = np.flatnonzero(bad)
    gap = max(1, len(p.values) // 100)
    breaks = np.flatnonzero(np.diff(index) > gap)
    starts = index[np.r_[0, breaks + 1]]
    ends = index[np.r_[breaks, len(index) - 1]]
    if len(starts) > MAX_PER_KIND:
        starts, ends = starts[:1], ends[-1:]
    out = []
    for start, end in zip(starts.tolist(), ends.tolist()):
        chunk = p.values[start : end + 1]
        nan = int(np.isnan(chunk).sum())
        pos = int(np.isposinf(chunk).sum())
        neg = int(np.isneginf(chunk).sum())
        count = nan + pos + neg
        names = [
            f"{label} x{k:,}" if k > 1 else label
            for label, k in (("NaN", nan), ("+Inf", pos), ("-Inf", neg))
            if k
        ]
        s0, s1 = fmt_step(int(p.steps[start])), fmt_step(int(p.steps[end]))
        to_end = end == len(p.values) - 1 and count == end - start + 1
        # The kinds (NaN, +Inf, -Inf) are symbols in every language; only
        # the word joining two of them is not.
        if to_end and count > 1:
            message = say(
                f"anomaly.nonfinite.toEnd{_count_suffix(len(names))}",
                **{f"kind{i + 1}": name for i, name in enumerate(names)},
                step=s0,
                count=f"{count:,}",
            )
        elif count == 1:
            message = say("anomaly.nonfinite.one", kind1=names[0], step=s0)
        else:
            message = say(
                "anomaly.nonfinite.range",
                count=f"{count:,}",
                kinds=", ".join(names),
                stepFrom=s0,
                stepTo=s1,
            )
        out.append(
            p.anomaly(
                "nonfinite",
                start,
                end,
                1.0,
                message,
                {"nan": nan, "posInf": pos, "negInf": neg, "toEnd": to_end},
                finite=False,
            )
        )
    return out


def _stands_out(
    p: Prepared, first: int, last: int, peak: int, level_floor: float
) -> float:
    """How far past its threshold the peak is, judged from each side.

    Each side of the excursion (`SIDE_POINTS` points) gets a straight line
    and its own noise (from `SIDE_NOISE` points): the peak must be off the
    line by `SPIKE_SIGMAS` x the larger noise and by the level floor, on
    both sides that have points. A rolling median mistakes the corner of a
    step on a steep slope for a spike (one side line goes through it), and
    the first noisy point after a stretch of collapsed noise (the larger
    side noise is normal there).

    Returns:
        The smaller of the two sides' (distance / threshold); below 1 the
        peak is not a spike.
    """
    y, residual = p.y, p.y - p.base
    n = len(y)
    ratio = np.inf
    for lo, hi, nlo, nhi in (
        (first - SIDE_POINTS, first, first - SIDE_NOISE, first),
        (last + 1, last + 1 + SIDE_POINTS, last + 1, last + 1 + SIDE_NOISE),
    ):
        lo, hi = max(0, lo), min(n, hi)
        if hi - lo < 2:
            continue
        t = np.arange(lo, hi, dtype=np.float64)
        slope, intercept = np.polyfit(t, y[lo:hi], 1)
        distance = abs(y[peak] - (slope * peak + intercept))
        sigma = noise_sigma(residual[max(0, nlo) : min(n, nhi)])
        threshold = max(SPIKE_SIGMAS * sigma, level_floor, TINY)
        ratio = min(ratio, distance / threshold)
    return float(ratio)


def detect_spikes(p: Prepared) -> list[Anomaly]:
    """A few points far off the local trend, then back.

    The trend is a rolling median (spikes up to `MAX_SPIKE_POINTS` wide do
    not move it). A point is off when its distance from the trend exceeds
    both `SPIKE_SIGMAS` x the local noise and `SPIKE_LEVEL` x the trend's
    level (so a smooth curve's rounding noise is never a spike).
    Neighbours past a third of that join the spike; an excursion wider
    than `MAX_SPIKE_POINTS` is not a spike (a step or a burst).
    """
    n = len(p)
    if n < MIN_SPIKE_SERIES:
        return []
    y, base = p.y, p.base
    residual = y - base
    sigma = p.local_sigma
    level = np.maximum(np.abs(base), 0.05 * robust_range(base))
    threshold = np.maximum(
        np.maximum(SPIKE_SIGMAS * sigma, SPIKE_LEVEL * level), TINY
    )
    ratio = np.abs(residual) / threshold
    hits = np.flatnonzero(ratio > 1.0)
    if len(hits) == 0:
        return []
    candidates = []
    taken = np.zeros(n, dtype=bool)
    for i in hits[np.argsort(-ratio[hits])].tolist():
        if taken[i]:
            continue
        sign = np.sign(residual[i])
        first, last = i, i
        while (
            first > 0
            and np.sign(residual[first - 1]) == sign
            and ratio[first - 1] > SPIKE_NEIGHBOUR
            and last - first < MAX_SPIKE_POINTS
        ):
            first -= 1
        while (
            last < n - 1
            and np.sign(residual[last + 1]) == sign
            and ratio[last + 1] > SPIKE_NEIGHBOUR
            and last - first < MAX_SPIKE_POINTS
        ):
            last += 1
        taken[first : last + 1] = True
        if last - first + 1 > MAX_SPIKE_POINTS:
            continue
        side_ratio = _stands_out(p, first, last, i, SPIKE_LEVEL * level[i])
        if side_ratio < 1.0:
            continue
        candidates.append((i, first, last, min(ratio[i], side_ratio)))
        if len(candidates) >= MAX_PER_KIND:
            break
    out = []
    for peak, first, last, strength in sorted(candidates, key=lambda c: c[1]):
        width = last - first + 1
        z = abs(residual[peak]) / max(sigma[peak], TINY)
        message = say(
            f"anomaly.spike.{'point' if width == 1 else 'range'}"
            f"{'' if z < 1e6 else '.noNoise'}",
            width=width,
            value=fmt(y[peak]),
            step=fmt_step(p.step_at(peak)),
            stepFrom=fmt_step(p.step_at(first)),
            stepTo=fmt_step(p.step_at(last)),
            trend=fmt(base[peak]),
            sigmas=f"{z:.0f}" if z < 1e6 else "",
        )
        out.append(
            p.anomaly(
                "spike",
                first,
                last,
                severity(float(strength)),
                message,
                {
                    "value": float(y[peak]),
                    "trend": float(base[peak]),
                    "noise": float(sigma[peak]),
                    "sigmas": float(min(z, 1e6)),
                    "points": width,
                },
            )
        )
    return out


def _count_suffix(kinds: int) -> str:
    """The message variant naming that many kinds of non-finite value."""
    return "" if kinds == 1 else f".{kinds}"
