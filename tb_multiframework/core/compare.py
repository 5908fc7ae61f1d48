"""The scalar comparison the `scalars` and `export` routes answer with.

For every selected (run, tag): place its points on the requested axis, sort
them by x (stable, so repeated x keep their logged order), smooth over all
points, cut to the requested x range, then downsample keeping extremes.
Difference curves against the baseline run are computed at full resolution
from the sorted points and downsampled the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .axes import AXES, EpochMap, axis_values
from .diff import DIFF_MODES, difference_curve
from .downsample import (
    DEFAULT_POINTS,
    KEEP_ALL_FACTOR,
    MAX_POINTS,
    downsample_minmax,
)
from .smoothing import SMOOTHING_MODES, smooth_ema, smooth_time_ema
from .types import (
    Excluded,
    FloatArray,
    Int64Array,
    RunInfo,
    ScalarSeriesLike,
)

MAX_SELECTIONS = 100  # series per request
EXPORT_COLUMNS = ("x", "run", "tag", "step", "wall_time", "value", "smoothed")


def buckets_for(points: int) -> int:
    """x buckets that return at most about `points` points a series.

    Each bucket keeps up to 4 points (first, last, min, max), and a series of
    at most 4 points a bucket is returned whole, so `points` bounds what is
    sent, as TensorBoard's "1000 points" does, while every extreme stays.
    """
    return max(1, -(-int(points) // KEEP_ALL_FACTOR))


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
    """

    run: RunInfo
    tag: str
    series: ScalarSeriesLike
    epoch_map: EpochMap | Excluded | None = None
    run_start_time: float | None = None
    run_last_step: int | None = None


@dataclass(frozen=True)
class SeriesResult:
    """One series ready to plot.

    Attributes:
        run: Run name.
        tag: Raw tag.
        x: Sorted x of the returned points.
        y: Their raw values.
        y_min: Finite min of each point's downsampling bucket.
        y_max: Finite max of each point's downsampling bucket.
        smoothed: Smoothed values (computed over all points) at those x.
        steps: Logged steps of the returned points.
        total: Points logged in the series.
        returned: Points returned.
        excluded: Why the series has no place on the axis, else None.
    """

    run: str
    tag: str
    x: FloatArray
    y: FloatArray
    y_min: FloatArray
    y_max: FloatArray
    smoothed: FloatArray
    steps: Int64Array
    total: int
    returned: int
    excluded: str | None = None


@dataclass(frozen=True)
class DiffResult:
    """A series minus (or over) the baseline series, downsampled.

    Attributes:
        run: Run of the compared series.
        tag: Its tag.
        baseline: Baseline run.
        baseline_tag: Baseline tag.
        x: Sorted x on the union grid of the overlap.
        y: Raw difference (or ratio); NaN marks a gap.
        y_min: Finite min of each point's bucket.
        y_max: Finite max of each point's bucket.
        smoothed: The same of the two smoothed series.
        total: Grid points at full resolution.
        returned: Points returned.
        excluded: Why no curve exists, else None.
    """

    run: str
    tag: str
    baseline: str
    baseline_tag: str
    x: FloatArray
    y: FloatArray
    y_min: FloatArray
    y_max: FloatArray
    smoothed: FloatArray
    total: int
    returned: int
    excluded: str | None = None


@dataclass(frozen=True)
class Comparison:
    """The answer to one comparison request."""

    axis: str
    smoothing: float
    smoothing_mode: str
    points: int
    diff_mode: str
    baseline: str | None
    series: tuple[SeriesResult, ...]
    diffs: tuple[DiffResult, ...]

    def to_json(self) -> dict[str, Any]:
        """The body of the `scalars` route (camelCase).

        Arrays stay numpy arrays for the route's JSON encoder, which writes
        non-finite values as the strings "NaN", "Infinity" and "-Infinity"
        (TensorBoard's own convention).
        """
        return {
            "x": self.axis,
            "smoothing": self.smoothing,
            "smoothingMode": self.smoothing_mode,
            "points": self.points,
            "baseline": self.baseline,
            "diffMode": self.diff_mode,
            "series": [_series_json(s) for s in self.series],
            "diffs": [_diff_json(d) for d in self.diffs],
        }


class ExportRow(NamedTuple):
    """One row of the CSV/JSON export (`EXPORT_COLUMNS`)."""

    x: float
    run: str
    tag: str
    step: int
    wall_time: float
    value: float
    smoothed: float


@dataclass(frozen=True)
class _Placed:
    """A selection's points sorted by x, with smoothed values."""

    x: FloatArray
    y: FloatArray
    smoothed: FloatArray
    steps: Int64Array
    wall_times: FloatArray


def compare_scalars(
    selections: Sequence[Selection],
    *,
    axis: str,
    smoothing: float = 0.0,
    smoothing_mode: str = "ema",
    points: int = DEFAULT_POINTS,
    baseline: str | None = None,
    diff_mode: str = "difference",
    x_range: tuple[float, float] | None = None,
) -> Comparison:
    """Places, smooths and downsamples series, with diffs vs a baseline.

    Args:
        selections: The (run, tag) series, at most `MAX_SELECTIONS`.
        axis: One of `AXES`.
        smoothing: Weight in [0, 1); 0 leaves values as they are.
        smoothing_mode: "ema" (TensorBoard's) or "time" (x-aware).
        points: Points to return per series at most (about), 1..MAX_POINTS:
            a longer series is cut into `buckets_for(points)` x buckets,
            each keeping its first, last, min and max point.
        baseline: Run name of the baseline; the first selection of that run
            is the baseline series. None: no diffs.
        diff_mode: "difference" (A - B) or "ratio" (A / B).
        x_range: Optional (lo, hi) window on the axis; points outside are
            dropped after smoothing, except one on each side so lines reach
            the edges.

    Returns:
        The comparison, series in selection order.

    Raises:
        ValueError: On any bad argument, naming the value.
    """
    _validate(
        selections, axis, smoothing, smoothing_mode, points, diff_mode, x_range
    )
    placed = [
        _place(sel, axis, smoothing, smoothing_mode) for sel in selections
    ]
    series = tuple(
        _series_result(sel, p, points, x_range)
        for sel, p in zip(selections, placed, strict=True)
    )
    diffs: tuple[DiffResult, ...] = ()
    if baseline is not None:
        diffs = _diffs(selections, placed, baseline, diff_mode, points, x_range)
    return Comparison(
        axis=axis,
        smoothing=float(smoothing),
        smoothing_mode=smoothing_mode,
        points=int(points),
        diff_mode=diff_mode,
        baseline=baseline,
        series=series,
        diffs=diffs,
    )


def export_rows(
    selections: Sequence[Selection],
    *,
    axis: str,
    smoothing: float = 0.0,
    smoothing_mode: str = "ema",
    x_range: tuple[float, float] | None = None,
) -> Iterator[ExportRow]:
    """All points of the selections at full resolution, aligned by x.

    Rows are sorted by x, then by selection order, then logged order.
    Excluded series give no rows (`compare_scalars` says why).

    Args:
        selections: The (run, tag) series, at most `MAX_SELECTIONS`.
        axis: One of `AXES`.
        smoothing: Weight in [0, 1).
        smoothing_mode: "ema" or "time".
        x_range: Optional inclusive (lo, hi) window on the axis.

    Yields:
        One `ExportRow` per point.

    Raises:
        ValueError: On any bad argument (raised before the first row).
    """
    _validate(
        selections, axis, smoothing, smoothing_mode, 1, "difference", x_range
    )
    return _export_rows(selections, axis, smoothing, smoothing_mode, x_range)


def _export_rows(
    selections: Sequence[Selection],
    axis: str,
    smoothing: float,
    smoothing_mode: str,
    x_range: tuple[float, float] | None,
) -> Iterator[ExportRow]:
    parts = []
    for i, sel in enumerate(selections):
        p = _place(sel, axis, smoothing, smoothing_mode)
        if isinstance(p, Excluded):
            continue
        keep = np.ones(p.x.size, dtype=bool)
        if x_range is not None:
            keep = (p.x >= x_range[0]) & (p.x <= x_range[1])
        parts.append((i, p, np.flatnonzero(keep)))
    if not parts:
        return
    xs = np.concatenate([p.x[k] for _, p, k in parts])
    which = np.concatenate(
        [np.full(k.size, j) for j, (_, _, k) in enumerate(parts)]
    )
    within = np.concatenate([k for _, _, k in parts])
    for r in np.lexsort((within, which, xs)).tolist():
        i, p, _ = parts[int(which[r])]
        k = int(within[r])
        sel = selections[i]
        yield ExportRow(
            x=float(p.x[k]),
            run=sel.run.run,
            tag=sel.tag,
            step=int(p.steps[k]),
            wall_time=float(p.wall_times[k]),
            value=float(p.y[k]),
            smoothed=float(p.smoothed[k]),
        )


def place_series(
    sel: Selection,
    *,
    axis: str,
    smoothing: float = 0.0,
    smoothing_mode: str = "ema",
) -> _Placed | Excluded:
    """A selection's points on the axis, sorted by x, smoothed, full resolution.

    Returns an object with `x`, `y`, `smoothed`, `steps`, `wall_times`
    arrays, or `Excluded` when the series has no place on the axis.
    """
    return _place(sel, axis, smoothing, smoothing_mode)


def _place(
    sel: Selection, axis: str, smoothing: float, smoothing_mode: str
) -> _Placed | Excluded:
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
    if not np.all(np.isfinite(x)):
        return Excluded(f"non-finite {axis} positions in the log")
    order = np.argsort(x, kind="stable")
    x, y, steps, walls = x[order], y[order], steps[order], walls[order]
    if smoothing == 0.0:
        smoothed = y.copy()
    elif smoothing_mode == "time":
        smoothed = smooth_time_ema(x, y, smoothing)
    else:
        smoothed = smooth_ema(y, smoothing)
    return _Placed(x, y, smoothed, steps, walls)


def _series_result(
    sel: Selection,
    placed: _Placed | Excluded,
    points: int,
    x_range: tuple[float, float] | None,
) -> SeriesResult:
    total = int(np.asarray(sel.series.values).size)
    if isinstance(placed, Excluded):
        empty = np.empty(0, dtype=np.float64)
        return SeriesResult(
            run=sel.run.run,
            tag=sel.tag,
            x=empty,
            y=empty,
            y_min=empty,
            y_max=empty,
            smoothed=empty,
            steps=np.empty(0, dtype=np.int64),
            total=total,
            returned=0,
            excluded=placed.reason,
        )
    lo, hi = _window(placed.x, x_range)
    down = downsample_minmax(
        placed.x[lo:hi], placed.y[lo:hi], buckets=buckets_for(points)
    )
    picked = down.indices + lo
    return SeriesResult(
        run=sel.run.run,
        tag=sel.tag,
        x=down.x,
        y=down.y,
        y_min=down.y_min,
        y_max=down.y_max,
        smoothed=placed.smoothed[picked],
        steps=placed.steps[picked],
        total=total,
        returned=down.returned,
    )


def _diffs(
    selections: Sequence[Selection],
    placed: list[_Placed | Excluded],
    baseline: str,
    diff_mode: str,
    points: int,
    x_range: tuple[float, float] | None,
) -> tuple[DiffResult, ...]:
    base_i = next(
        (i for i, s in enumerate(selections) if s.run.run == baseline), None
    )
    if base_i is None:
        raise ValueError(f"baseline run {baseline!r} is not among the series")
    base_sel, base = selections[base_i], placed[base_i]
    results = []
    for i, (sel, p) in enumerate(zip(selections, placed, strict=True)):
        if i == base_i:
            continue
        results.append(
            _diff_result(sel, p, base_sel, base, diff_mode, points, x_range)
        )
    return tuple(results)


def _diff_result(
    sel: Selection,
    p: _Placed | Excluded,
    base_sel: Selection,
    base: _Placed | Excluded,
    diff_mode: str,
    points: int,
    x_range: tuple[float, float] | None,
) -> DiffResult:
    if isinstance(p, Excluded):
        return _empty_diff(sel, base_sel, p.reason)
    if isinstance(base, Excluded):
        return _empty_diff(sel, base_sel, f"baseline excluded: {base.reason}")
    raw = difference_curve(p.x, p.y, base.x, base.y, mode=diff_mode)
    smooth = difference_curve(
        p.x, p.smoothed, base.x, base.smoothed, mode=diff_mode
    )
    lo, hi = _window(raw.x, x_range)
    down = downsample_minmax(
        raw.x[lo:hi], raw.y[lo:hi], buckets=buckets_for(points)
    )
    return DiffResult(
        run=sel.run.run,
        tag=sel.tag,
        baseline=base_sel.run.run,
        baseline_tag=base_sel.tag,
        x=down.x,
        y=down.y,
        y_min=down.y_min,
        y_max=down.y_max,
        smoothed=smooth.y[down.indices + lo],
        total=int(raw.x.size),
        returned=down.returned,
    )


def _empty_diff(sel: Selection, base_sel: Selection, reason: str) -> DiffResult:
    empty = np.empty(0, dtype=np.float64)
    return DiffResult(
        run=sel.run.run,
        tag=sel.tag,
        baseline=base_sel.run.run,
        baseline_tag=base_sel.tag,
        x=empty,
        y=empty,
        y_min=empty,
        y_max=empty,
        smoothed=empty,
        total=0,
        returned=0,
        excluded=reason,
    )


def _window(
    x: FloatArray, x_range: tuple[float, float] | None
) -> tuple[int, int]:
    """Slice bounds of x inside the range, plus one point on each side."""
    if x_range is None:
        return 0, int(x.size)
    lo = int(np.searchsorted(x, x_range[0], side="left")) - 1
    hi = int(np.searchsorted(x, x_range[1], side="right")) + 1
    return max(lo, 0), min(hi, int(x.size))


def _validate(
    selections: Sequence[Selection],
    axis: str,
    smoothing: float,
    smoothing_mode: str,
    points: int,
    diff_mode: str,
    x_range: tuple[float, float] | None,
) -> None:
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
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)):
        raise ValueError(  # noqa: TRY004
            f"points must be an integer, got {points!r}"
        )
    if not 1 <= points <= MAX_POINTS:
        raise ValueError(f"points must be in [1, {MAX_POINTS}], got {points}")
    if diff_mode not in DIFF_MODES:
        raise ValueError(
            f"diff mode must be one of {DIFF_MODES}, got {diff_mode!r}"
        )
    if len(selections) > MAX_SELECTIONS:
        raise ValueError(
            f"at most {MAX_SELECTIONS} series per request, "
            f"got {len(selections)}"
        )
    if x_range is not None:
        lo, hi = x_range
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
            raise ValueError(f"x range must be finite with lo <= hi: {x_range}")


def _series_json(s: SeriesResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "run": s.run,
        "tag": s.tag,
        "x": s.x,
        "y": s.y,
        "yMin": s.y_min,
        "yMax": s.y_max,
        "smoothed": s.smoothed,
        "steps": s.steps,
        "total": s.total,
        "returned": s.returned,
    }
    if s.excluded is not None:
        out["excluded"] = s.excluded
    return out


def _diff_json(d: DiffResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "run": d.run,
        "tag": d.tag,
        "baseline": d.baseline,
        "baselineTag": d.baseline_tag,
        "x": d.x,
        "y": d.y,
        "yMin": d.y_min,
        "yMax": d.y_max,
        "smoothed": d.smoothed,
        "total": d.total,
        "returned": d.returned,
    }
    if d.excluded is not None:
        out["excluded"] = d.excluded
    return out
