"""Plateaus: a long stretch without improvement, where some should be.

Every curve flattens as training converges, so flatness alone is not an
anomaly. A flat stretch (the coarse trend stays within a narrow band) of
at least `PLATEAU_FRACTION` of the series is flagged when it also shows
"tiny variation" or evidence that training was stuck rather than done:

- on a noisy curve: its noise collapses, the batch-to-batch variation
  inside falls below `NOISE_COLLAPSE` of the series' usual (relative)
  variation (a model stuck on constant predictions logs a constant loss);
- on a smooth curve (relative noise below `SMOOTH_NOISE`): it resumes,
  improving clearly after the stretch, or it starts abruptly, right after
  an improvement (a converging curve slows down gradually).

A learning rate that rises across the stretch or jumps where it ends
explains it (a warm-up holds the loss flat, a step decay ends a plateau
on purpose).
A flat stretch at the best possible value (an error rate of 0) is not a
plateau.
"""

from __future__ import annotations

import numpy as np

from .base import Anomaly, Prepared, fmt, fmt_step, say
from .robust import (
    MAD_TO_SIGMA,
    TINY,
    robust_range,
    severity,
    trend_sigma,
)
from .schedule import Schedule

PLATEAU_FRACTION = 0.08  # shortest plateau, as a fraction of the series
MIN_PLATEAU_POINTS = 10  # ... and in points
FLAT_SIGMAS = 3.0  # a flat trend stays within this many coarse sigmas
FLAT_LEVEL = 0.01  # ... or this fraction of the level (or range)
RESUME = 0.1  # improvement after the stretch, as a fraction of the range
NOISE_COLLAPSE = 0.25  # relative noise inside / usual relative noise
ABRUPT = 0.1  # improvement just inside / just before the stretch
SMOOTH_NOISE = 0.002  # relative noise below which a curve is smooth
Q75_TO_SIGMA = 1.15  # the 75th percentile of |N(0, 1)|
MIN_NOISE_POINTS = 8  # points a noise estimate needs
NOISE_BLOCK = 16  # points per block of a long stretch's noise estimate
MIN_PLATEAU_BLOCKS = 12  # coarse points a series needs


def detect_plateaus(p: Prepared, lr: Schedule | None = None) -> list[Anomaly]:
    """Long stretches without improvement where training looks stuck."""
    coarse = p.coarse
    c = coarse.values
    m = len(c)
    n = len(p)
    if m < MIN_PLATEAU_BLOCKS:
        return []
    sigma = trend_sigma(c)
    spread = robust_range(c)
    if spread <= TINY:
        return []
    zero_bounded = p.bad.zero_bounded
    level = np.abs(c) if zero_bounded else np.full(m, spread)
    band = np.maximum(FLAT_SIGMAS * sigma, FLAT_LEVEL * level)
    # ends[a]: the last block whose level stays within band[a] of c[a].
    outside = np.abs(c[None, :] - c[:, None]) > band[:, None]
    outside &= ~np.tri(m, m, -1, dtype=bool)  # only blocks after a count
    first_out = np.where(outside.any(axis=1), outside.argmax(axis=1), m)
    ends = first_out - 1
    min_points = max(MIN_PLATEAU_POINTS, int(PLATEAU_FRACTION * n))
    points = coarse.stops[ends] - coarse.starts
    candidates = np.flatnonzero(
        (points >= min_points) & (ends - np.arange(m) + 1 >= 4)
    )
    if len(candidates) == 0:
        return []
    # Stretches ending at one block are suffixes of the longest of them:
    # judge only that one.
    _, longest = np.unique(ends[candidates], return_index=True)
    candidates = candidates[longest]
    noise = _Noise(p, zero_bounded, spread)
    # Level change over two blocks (a jump may straddle a block edge).
    jumps = np.abs(np.r_[c[2:] - c[:-2], c[-1] - c[-2]])
    out: list[Anomaly] = []
    used = np.zeros(m, dtype=bool)
    for a in candidates[np.argsort(-points[candidates])].tolist():
        e = int(ends[a])
        if used[a : e + 1].any():
            continue
        if zero_bounded and c[a] <= 0.01 * float(np.max(c)):
            continue  # at the best possible value
        first = int(coarse.starts[a])
        last = int(coarse.stops[e]) - 1
        why = _why_stuck(p, a, e, band[a], spread, noise, jumps)
        if why is None:
            continue
        if lr is not None and _explained(p, first, last, lr):
            continue
        used[a : e + 1] = True
        length = last - first + 1
        value = p.bad.undo(float(np.median(c[a : e + 1])))
        message = say(
            f"anomaly.plateau.{why[0]}",
            steps=fmt_step(p.step_at(last) - p.step_at(first)),
            stepFrom=fmt_step(p.step_at(first)),
            stepTo=fmt_step(p.step_at(last)),
            level=fmt(value),
            **why[1],
        )
        out.append(
            p.anomaly(
                "plateau",
                first,
                last,
                severity(length / max(min_points, 1), full=6.0),
                message,
                {"level": value, "points": length, **why[2]},
            )
        )
    return sorted(out, key=lambda x: x.start)


def _explained(p: Prepared, first: int, last: int, lr: Schedule) -> bool:
    """A learning-rate jump in or at either end of the stretch, or a rise
    across it (a warm-up)."""
    block = p.coarse.block
    low = p.step_at(max(0, first - 2 * block))
    high = p.step_at(min(len(p) - 1, last + 2 * block))
    return lr.rises_within(low, high)


class _Noise:
    """The noise of a stretch relative to the level (or the range).

    From each point's distance to the rolling median (exactly 0 on a
    smooth monotone curve, whatever its curvature), pooled over a stretch,
    with `noise_sigma`'s guard for quantised values but from the 75th
    percentile: a step leaves a few large distances next to it, which a
    higher percentile would take for noise.
    """

    def __init__(self, p: Prepared, zero_bounded: bool, spread: float) -> None:
        residual = np.abs(p.bad.apply(p.y) - p.bad_base)
        if zero_bounded:
            self.relative = residual / np.maximum(np.abs(p.bad_base), TINY)
        else:
            self.relative = residual / max(spread, TINY)
        # Long stretches read per-block estimates (cheap to combine).
        count = len(residual) // NOISE_BLOCK
        body = np.sort(
            self.relative[: count * NOISE_BLOCK].reshape(count, NOISE_BLOCK),
            axis=1,
        )
        half, three = NOISE_BLOCK // 2, 3 * NOISE_BLOCK // 4
        self.blocks = np.maximum(
            MAD_TO_SIGMA * 0.5 * (body[:, half - 1] + body[:, half]),
            0.5 * (body[:, three - 1] + body[:, three]) / Q75_TO_SIGMA,
        )
        self.overall = self.of(0, len(residual) - 1)

    @staticmethod
    def _estimate(values: np.ndarray, axis: int | None = None) -> np.ndarray:
        return np.maximum(
            MAD_TO_SIGMA * np.median(values, axis=axis),
            np.quantile(values, 0.75, axis=axis) / Q75_TO_SIGMA,
        )

    def of(self, first: int, last: int) -> float:
        """The pooled relative noise of points first..last."""
        first = max(0, first)
        lo = -(-first // NOISE_BLOCK)
        hi = min((last + 1) // NOISE_BLOCK, len(self.blocks))
        if hi - lo >= 3:
            return float(np.median(self.blocks[lo:hi]))
        part = self.relative[first : last + 1]
        if len(part) < MIN_NOISE_POINTS:
            return float("nan")
        return float(self._estimate(part))

    def around(self, first: int, last: int) -> tuple[float, list[float]]:
        """(noise inside first..last, noise of as many points just before
        and just after, where there are enough)."""
        length = last - first + 1
        sides = [
            self.of(first - length, first - 1),
            self.of(last + 1, last + length),
        ]
        return self.of(first, last), [x for x in sides if np.isfinite(x)]


def _why_stuck(
    p: Prepared,
    a: int,
    e: int,
    band: float,
    spread: float,
    noise: _Noise,
    jumps: np.ndarray,
) -> tuple[str, dict[str, str], dict[str, float]] | None:
    """Why the flat coarse stretch a..e looks stuck, or None.

    Returns:
        (the reason's message variant, its parameters, the evidence).

    A noisy curve must show its variation collapse inside the stretch
    (against the stretches of the same length on either side); a smooth
    one (no noise to collapse) must resume improving after it, or have
    stopped improving at once, and not through a sudden shift (that is a
    cliff, not training).
    """
    coarse = p.coarse
    c = coarse.values
    m = len(c)
    inside, sides = noise.around(
        int(coarse.starts[a]), int(coarse.stops[e]) - 1
    )
    if sides and min(sides) > SMOOTH_NOISE:
        if not np.isfinite(inside):
            return None
        ratio = inside / max(min(sides), TINY)
        if ratio > NOISE_COLLAPSE:
            return None
        return (
            "noiseFalls",
            {"percent": f"{ratio:.0%}"},
            {"noiseRatio": ratio},
        )
    length = e - a + 1
    if e < m - 1:
        stop = min(m, e + 1 + max(length, 4))
        gain = float(c[e] - c[e + 1 : stop].min())
        sudden = float(jumps[e : stop - 1].max()) >= 0.5 * gain
        if gain >= max(6 * band, RESUME * spread) and not sudden:
            return (
                "improvesAgain",
                {},
                {"improvementAfter": gain / spread},
            )
    k = 3
    if a >= k:
        before = float(c[a - k] - c[a])
        inside_gain = float(c[a] - c[min(e, a + k)])
        sudden = float(jumps[a - k : a].max()) >= 0.5 * before
        if (
            before >= max(4 * band, RESUME * spread)
            and inside_gain <= ABRUPT * before
            and not sudden
        ):
            return (
                "stopsAtOnce",
                {},
                {"improvementBefore": before / spread},
            )
    return None
