"""Epoch durations for core/speed.py: from epoch-end points, or from the
step stream's positions on the epoch axis (docs/conventions.md, "Training
speed", time per epoch)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .types import FloatArray, Int64Array


@dataclass(frozen=True)
class EpochTime:
    """How long one epoch took (0-based index), from boundary to boundary."""

    epoch: int
    seconds: float
    end_step: float  # the (fractional) step where it ended
    end_wall: float  # the wall time where it ended
    indexed: bool = False  # end_step is the epoch index (no step stream)


@dataclass(frozen=True)
class DerivedSeries:
    """A derived series shaped like a store series (logged order)."""

    steps: Int64Array
    wall_times: FloatArray
    values: FloatArray
    epoch_indexed: bool = False  # steps are epoch indices (time/epoch only)

    def __len__(self) -> int:
        return int(self.steps.size)


def epoch_times(
    steps: Int64Array,
    walls: FloatArray,
    ex: FloatArray | None,
    stall: np.ndarray,
    same: np.ndarray,
    median: float,
    epoch_ends: tuple[Int64Array, FloatArray] | None,
) -> tuple[tuple[EpochTime, ...], str]:
    """Epoch durations from boundary to boundary, and a note.

    Points written at each epoch's end (epoch-indexed tags: Keras
    `epoch_*`, hapi `eval/*`) mark the ends exactly and are used first;
    else the stream's positions on the epoch axis.
    """
    usable = ex is not None and bool(np.all(np.isfinite(ex)))
    if epoch_ends is not None:
        found = epochs_from_ends(
            epoch_ends, (ex, steps) if usable and ex is not None else None
        )
        if found:
            return found, "; epochs from the epoch-end points"
    if ex is None or not usable:
        return (), ""
    lo, hi = float(ex[0]), float(ex[-1])
    first, last = math.ceil(lo), math.floor(hi)
    bounds: dict[int, tuple[float, float] | None] = {}
    for k in range(first, last + 1):
        bounds[k] = _boundary(k, steps, walls, ex, stall, same, median)
    gaps = [(steps[g], steps[g + 1]) for g in np.flatnonzero(~same).tolist()]
    out = []
    for k in range(first, last):
        a, b = bounds.get(k), bounds.get(k + 1)
        if a is None or b is None:
            continue
        if any(a[0] < g_hi and b[0] > g_lo for g_lo, g_hi in gaps):
            continue  # the epoch holds a resume: its time is not an epoch's
        out.append(
            EpochTime(
                epoch=k, seconds=b[1] - a[1], end_step=b[0], end_wall=b[1]
            )
        )
    note = "" if out or last - first < 1 else "; epochs cross resume gaps"
    return tuple(out), note


def _boundary(
    k: int,
    steps: Int64Array,
    walls: FloatArray,
    ex: FloatArray,
    stall: np.ndarray,
    same: np.ndarray,
    median: float,
) -> tuple[float, float] | None:
    """(step, wall time) where epoch k begins (epoch k - 1 ends), or None
    when the interval holding it crosses a resume gap.

    An epoch's time includes the pause at its end (its evaluation): in an
    interval holding a boundary and a stall, the boundary sits after the
    pause, typical steps before the interval's end. In any other interval
    the time is spread linearly.
    """
    j = int(np.searchsorted(ex, k, side="right")) - 1  # ex[j] <= k < ex[j+1]
    if j < 0:
        return None
    if j == ex.size - 1:
        return (float(steps[j]), float(walls[j])) if ex[j] == k else None
    if not same[j]:
        return None
    frac = (k - ex[j]) / (ex[j + 1] - ex[j])
    step = steps[j] + frac * (steps[j + 1] - steps[j])
    if stall[j]:
        return float(step), float(walls[j + 1] - (steps[j + 1] - step) * median)
    return float(step), float(walls[j] + frac * (walls[j + 1] - walls[j]))


def epochs_from_ends(
    epoch_ends: tuple[Int64Array, FloatArray],
    stream: tuple[FloatArray, Int64Array] | None = None,
) -> tuple[EpochTime, ...]:
    """Durations between consecutive epoch-end points (epoch 1 onwards).

    Args:
        epoch_ends: (epoch index, wall time) of the points at each end.
        stream: (epoch positions, steps) of the step stream, to give each
            epoch its end step; None: the end step is the epoch index.
    """
    index, walls = (np.asarray(a) for a in epoch_ends)
    out = []
    for j in range(1, index.size):
        if index[j] == index[j - 1] + 1 and walls[j] > walls[j - 1]:
            end = float(index[j])
            if stream is not None:
                x, steps = stream
                end = float(np.interp(index[j] + 1.0, x, steps))
            out.append(
                EpochTime(
                    epoch=int(index[j]),
                    seconds=float(walls[j] - walls[j - 1]),
                    end_step=end,
                    end_wall=float(walls[j]),
                    indexed=stream is None,
                )
            )
    return tuple(out)


def epoch_series(epochs: Sequence[EpochTime]) -> DerivedSeries:
    return DerivedSeries(
        steps=np.array([round(e.end_step) for e in epochs], np.int64),
        wall_times=np.array([e.end_wall for e in epochs], np.float64),
        values=np.array([e.seconds for e in epochs], np.float64),
        epoch_indexed=all(e.indexed for e in epochs),
    )
