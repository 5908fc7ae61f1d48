"""Series placed on an axis: sorted by x and smoothed over every point.

`place_series` is the first step of every scalar comparison (and of any
aggregate over runs): the series' positions on the axis, its points in x
order (a stable sort, so repeated x keep their logged order) and its
smoothed values at full resolution.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from .axes import AXES, EpochMap, axis_values
from .smoothing import SMOOTHING_MODES, smooth_ema, smooth_time_ema
from .types import (
    Excluded,
    FloatArray,
    Int64Array,
    RunInfo,
    ScalarSeriesLike,
    all_finite,
)


@dataclass(frozen=True)
class Selection:
    """One (run, tag) to compare, with what its axes need.

    Attributes:
        run: The run.
        tag: The raw tag.
        series: Its points, in logged order.
        epoch_map: The run's epoch map (from `build_epoch_map`).
        run_start_time: Wall time of the run's first event.
        run_last_step: The run's largest step.
        excluded_axes: (axis, reason) pairs of axes the series has no
            place on (a tag whose steps are timestamps: step, epoch,
            progress).
    """

    run: RunInfo
    tag: str
    series: ScalarSeriesLike
    epoch_map: EpochMap | Excluded | None = None
    run_start_time: float | None = None
    run_last_step: int | None = None
    excluded_axes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class PlacedSeries:
    """A selection's points on an axis, sorted by x, smoothed over all.

    Every point of the series is here, at full resolution: what the
    downsampled answer and the difference curves are computed from, and
    what aggregates over a group of runs start from.

    Attributes:
        x: Positions on the axis, sorted (stable: repeated x keep their
            logged order), finite.
        y: Raw values (may be NaN/Inf).
        smoothed: Smoothed values (`y` itself when the weight is 0).
        steps: Logged steps.
        wall_times: Logged wall times.
        downsampled: Results that depend on x and y only (the min/max
            downsampling of a window), kept for the next request that asks
            the same of these points; shared by every smoothing of one
            placement (`with_smoothing`). Holds `MEMO_ENTRIES` at most.
            A copy with other x or y must get a new dict (the default).
    """

    x: FloatArray
    y: FloatArray
    smoothed: FloatArray
    steps: Int64Array
    wall_times: FloatArray
    downsampled: dict[Hashable, Any] = field(
        default_factory=dict, compare=False, repr=False
    )

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()`, or its result for the same key computed before."""
        found = self.downsampled.get(key, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[no-any-return]
        value = compute()
        with _MEMO_LOCK:
            while len(self.downsampled) >= MEMO_ENTRIES:
                # dicts keep insertion order: drop the oldest.
                self.downsampled.pop(next(iter(self.downsampled)), None)
            self.downsampled[key] = value
        return value


MEMO_ENTRIES = 8  # downsampled windows kept per placed series
_MEMO_LOCK = threading.Lock()
_MISSING = object()
T = TypeVar("T")


def place_series(
    sel: Selection,
    axis: str,
    smoothing: float = 0.0,
    smoothing_mode: str = "ema",
) -> PlacedSeries | Excluded:
    """Places a selection on an axis, sorts it by x and smooths it.

    Args:
        sel: The (run, tag) series.
        axis: One of `AXES`.
        smoothing: Weight in [0, 1); 0 leaves values as they are.
        smoothing_mode: "ema" (TensorBoard's) or "time" (x-aware).

    Returns:
        The placed series, or `Excluded` (with the reason) when the series
        has no place on this axis.

    Raises:
        ValueError: On a bad argument, or columns of different lengths.
    """
    check_placement(axis, smoothing, smoothing_mode)
    placed = sort_on_axis(sel, axis)
    if isinstance(placed, Excluded):
        return placed
    return with_smoothing(placed, smoothing, smoothing_mode)


def sort_on_axis(sel: Selection, axis: str) -> PlacedSeries | Excluded:
    """`place_series` without smoothing (`smoothed` is `y`)."""
    for excluded, why in sel.excluded_axes:
        if excluded == axis:
            return Excluded(why)
    x = axis_values(
        axis,
        sel.series,
        tag=sel.tag,
        epoch_map=sel.epoch_map,
        run_start_time=sel.run_start_time,
        run_last_step=sel.run_last_step,
    )
    if isinstance(x, Excluded):
        return x
    y = np.asarray(sel.series.values, dtype=np.float64)
    steps = np.asarray(sel.series.steps, dtype=np.int64)
    walls = np.asarray(sel.series.wall_times, dtype=np.float64)
    if not (x.size == y.size == steps.size == walls.size):
        raise ValueError(
            f"series {sel.run.run!r}/{sel.tag!r}: steps, wall_times and "
            "values differ in length"
        )
    if not all_finite(x):
        return Excluded(f"non-finite {axis} positions in the log")
    if x.size > 1 and not bool(np.all(x[1:] >= x[:-1])):
        order = np.argsort(x, kind="stable")
        x, y, steps, walls = x[order], y[order], steps[order], walls[order]
    return PlacedSeries(x, y, y, steps, walls)


def with_smoothing(
    placed: PlacedSeries, smoothing: float, smoothing_mode: str
) -> PlacedSeries:
    """The same placed points with `smoothed` for this weight and mode."""
    if smoothing == 0.0:
        smoothed = placed.y
    elif smoothing_mode == "time":
        smoothed = smooth_time_ema(placed.x, placed.y, smoothing)
    else:
        smoothed = smooth_ema(placed.y, smoothing)
    return dataclasses.replace(placed, smoothed=smoothed)


def check_placement(axis: str, smoothing: float, smoothing_mode: str) -> None:
    """Raises ValueError, naming the value, on a bad axis, weight or mode."""
    if axis not in AXES:
        raise ValueError(f"unknown axis {axis!r}; expected one of {AXES}")
    if isinstance(smoothing, bool) or not isinstance(smoothing, (int, float)):
        raise ValueError(  # noqa: TRY004
            f"smoothing must be a number, got {smoothing!r}"
        )
    if not (math.isfinite(smoothing) and 0.0 <= smoothing < 1.0):
        raise ValueError(f"smoothing must be in [0, 1), got {smoothing!r}")
    if smoothing_mode not in SMOOTHING_MODES:
        raise ValueError(
            f"smoothing mode must be one of {SMOOTHING_MODES}, "
            f"got {smoothing_mode!r}"
        )
