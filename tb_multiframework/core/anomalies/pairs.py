"""Detectors over a training and a validation series of one metric.

Both series are read on one x axis (epochs when the run has them, else
steps) through their coarse trends (block medians), turned so that up is
worse.

- overfitting: the validation trend turns up after its best point and
  keeps rising, while the training trend over the same x range does not
  rise;
- drift: both rise together, slowly (not in one jump), from about the
  same place to the end.
"""

from __future__ import annotations

import math

import numpy as np

from .base import Anomaly, Prepared, fmt, fmt_step, say
from .robust import (
    TINY,
    robust_range,
    severity,
    spearman,
    trend_sigma,
)

MIN_PAIR_POINTS = 6  # points each series of a pair needs
OVERFIT_RISE = 0.1  # validation rise / its improvement before the best
TRAIN_STILL = 0.05  # training rise / its range that counts as not rising
RISE_SIGMAS = 4.0  # a rise is this many noise sigmas
RISING = 0.6  # rank correlation with time of a rising stretch
DRIFT_RISE = 0.1  # a drift lifts each series by this fraction of its range
DRIFT_LENGTH = 0.15  # a drift lasts this fraction of the x span at least
DRIFT_ONSET = 0.3  # onsets of train and val this close (fraction of span)
DRIFT_HALFWAY = 0.8  # share of a drift's rise reached halfway, at most


class _Rise:
    """Where a series' coarse trend (turned) is best and how much it rises
    after.

    Attributes:
        trend: the coarse trend (block medians, up = worse).
        tx: x at each block's middle.
        best_block: the block where the trend is best.
        best: the point in the middle of that block.
        end_level: the trend's median over the last third after the best.
        rise: end_level - the best level.
        improvement: how much the trend improved up to its best.
        range: the trend's robust range.
        noise: sigma of `end_level` (a median over many points).
        monotone: rank correlation of the trend after its best with time.
        blocks_after: blocks after the best.
    """

    def __init__(self, p: Prepared) -> None:
        coarse = p.coarse
        trend = coarse.values
        self.trend = trend
        middle = (coarse.starts + coarse.stops - 1) // 2
        self.tx = p.coarse_x()
        self.best_block = int(np.argmin(trend))
        self.best = int(middle[self.best_block])
        m = len(trend)
        after = m - 1 - self.best_block
        tail = max(2, after // 3)
        self.end_level = float(
            np.median(trend[min(m - 1, max(self.best_block + 1, m - tail)) :])
        )
        self.rise = self.end_level - float(trend[self.best_block])
        self.improvement = float(
            trend[: self.best_block + 1].max() - trend[self.best_block]
        )
        self.range = max(robust_range(trend), TINY)
        # The end level is a median of `tail` block medians.
        self.noise = trend_sigma(trend) / math.sqrt(max(1, tail))
        self.monotone = (
            spearman(trend[self.best_block :]) if after >= 2 else 0.0
        )
        self.blocks_after = after


def _epoch_suffix(axis: str) -> str:
    """The message variant that names the epoch (on the epoch axis)."""
    return ".epoch" if axis == "epoch" else ""


def _trend_at(p: Prepared, low: float, high: float) -> tuple[float, float]:
    """The coarse trend's median near x = low and near x = high."""
    x, trend = p.coarse_x(), p.coarse.values
    span = max(high - low, TINY)
    near_low = trend[(x >= low - 0.05 * span) & (x <= low + 0.1 * span)]
    near_high = trend[(x >= high - 0.1 * span) & (x <= high + 0.05 * span)]
    if len(near_low) == 0 or len(near_high) == 0:
        return float(np.interp(low, x, trend)), float(np.interp(high, x, trend))
    return float(np.median(near_low)), float(np.median(near_high))


def detect_overfitting(
    train: Prepared, val: Prepared, *, axis: str = "step"
) -> list[Anomaly]:
    """Validation turns worse while training keeps improving."""
    if len(val) < MIN_PAIR_POINTS or len(train) < MIN_PAIR_POINTS:
        return []
    v = _Rise(val)
    if v.blocks_after < max(2, int(0.1 * len(v.trend))):
        return []
    reference = max(v.improvement, 0.5 * v.range)
    if (
        v.rise < OVERFIT_RISE * reference
        or v.rise < RISE_SIGMAS * v.noise
        or v.monotone < RISING
    ):
        return []
    x_best, x_end = float(val.x[v.best]), float(val.x[-1])
    if x_end <= x_best or train.x[0] > x_best or train.x[-1] < x_best:
        return []
    t_best, t_end = _trend_at(train, x_best, min(x_end, float(train.x[-1])))
    train_range = max(robust_range(train.coarse.values), TINY)
    if t_end - t_best > TRAIN_STILL * train_range:
        return []
    best = val.bad.undo(float(v.trend[v.best_block]))
    end = val.bad.undo(v.end_level)
    message = say(
        f"anomaly.overfitting{_epoch_suffix(axis)}",
        step=fmt_step(val.step_at(v.best)),
        epoch=f"{val.x[v.best]:.3g}",
        **{"from": fmt(best), "to": fmt(end)},
        trainFrom=fmt(train.bad.undo(t_best)),
        trainTo=fmt(train.bad.undo(t_end)),
    )
    return [
        val.anomaly(
            "overfitting",
            v.best,
            len(val) - 1,
            severity(v.rise / (OVERFIT_RISE * reference), full=6.0),
            message,
            {
                "bestStep": val.step_at(v.best),
                "best": best,
                "last": end,
                "riseRelative": v.rise / reference,
                "trainChange": train.bad.undo(t_end) - train.bad.undo(t_best),
            },
        )
    ]


def _drifting(p: Prepared) -> _Rise | None:
    r = _Rise(p)
    span = float(p.x[-1] - p.x[0])
    if span <= 0 or r.blocks_after < 3:
        return None
    if (
        r.rise < DRIFT_RISE * r.range
        or r.rise < RISE_SIGMAS * r.noise
        or r.monotone < RISING
    ):
        return None
    onset = float(r.tx[r.best_block])
    if float(p.x[-1]) - onset < DRIFT_LENGTH * span:
        return None
    # Slow: halfway from the onset to the end, part of the rise is still
    # to come (a jump at the onset is all done by then).
    after = len(r.trend) - r.best_block
    middle = r.best_block + after // 2
    reach = max(1, after // 10)
    halfway = float(np.median(r.trend[middle - reach : middle + reach + 1]))
    if halfway - float(r.trend[r.best_block]) > DRIFT_HALFWAY * r.rise:
        return None
    return r


def detect_drift(
    train: Prepared, val: Prepared, *, axis: str = "step"
) -> tuple[list[Anomaly], list[Anomaly]]:
    """Train and val worsen together, slowly: (train's, val's) anomalies."""
    if len(val) < MIN_PAIR_POINTS or len(train) < MIN_PAIR_POINTS:
        return [], []
    t, v = _drifting(train), _drifting(val)
    if t is None or v is None:
        return [], []
    span = max(float(train.x[-1] - train.x[0]), TINY)
    if abs(float(train.x[t.best] - val.x[v.best])) > DRIFT_ONSET * span:
        return [], []
    out = []
    for p, r, name in ((train, t, "training"), (val, v, "validation")):
        start = p.bad.undo(float(r.trend[r.best_block]))
        end = p.bad.undo(r.end_level)
        message = say(
            f"anomaly.drift.{name}{_epoch_suffix(axis)}",
            step=fmt_step(p.step_at(r.best)),
            epoch=f"{p.x[r.best]:.3g}",
            **{"from": fmt(start), "to": fmt(end)},
        )
        out.append(
            [
                p.anomaly(
                    "drift",
                    r.best,
                    len(p) - 1,
                    severity(r.rise / (DRIFT_RISE * r.range), full=6.0),
                    message,
                    {
                        "startStep": p.step_at(r.best),
                        "from": start,
                        "to": end,
                        "riseRelative": r.rise / r.range,
                    },
                )
            ]
        )
    return out[0], out[1]
