"""The scalar comparison the `scalars` and `export` routes answer with.

For every selected (run, tag): place its points on the requested axis, sort
them by x (stable, so repeated x keep their logged order), smooth over all
points (`placement`), cut to the requested x range, then downsample keeping
extremes.
Difference curves against the baseline run are computed at full resolution
from the sorted points and downsampled the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .diff import DIFF_MODES, combine, last_per_x, union_grid, union_size
from .downsample import (
    DEFAULT_POINTS,
    KEEP_ALL_FACTOR,
    MAX_POINTS,
    downsample_sorted,
    keep_all,
)
from .placement import (
    PlacedSeries,
    Selection,
    check_placement,
    place_series,
    sort_on_axis,
    with_smoothing,
)
from .types import Excluded, FloatArray, Int64Array

__all__ = [
    "EXPORT_COLUMNS",
    "FULL_RESOLUTION",
    "MAX_SELECTIONS",
    "Comparison",
    "DiffResult",
    "ExportRow",
    "PlacedSeries",
    "Selection",
    "SeriesResult",
    "buckets_for",
    "check_arguments",
    "compare_scalars",
    "export_rows",
    "place_series",
    "sort_on_axis",
    "with_smoothing",
]

MAX_SELECTIONS = 100  # series per request
FULL_RESOLUTION = None  # `points` that keeps every point (no downsampling)
EXPORT_COLUMNS = ("x", "run", "tag", "step", "wall_time", "value", "smoothed")
_EXPORT_CHUNK_ROWS = 8192  # export rows made at once


def buckets_for(points: int) -> int:
    """x buckets that return at most about `points` points a series.

    Each bucket keeps up to 4 points (first, last, min, max), and a series of
    at most 4 points a bucket is returned whole, so `points` bounds what is
    sent, as TensorBoard's "1000 points" does, while every extreme stays.
    """
    return max(1, -(-int(points) // KEEP_ALL_FACTOR))


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
    points: int | None
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


def compare_scalars(
    selections: Sequence[Selection],
    *,
    axis: str,
    smoothing: float = 0.0,
    smoothing_mode: str = "ema",
    points: int | None = DEFAULT_POINTS,
    baseline: str | None = None,
    diff_mode: str = "difference",
    x_range: tuple[float, float] | None = None,
    placed: Sequence[PlacedSeries | Excluded] | None = None,
    max_selections: int | None = MAX_SELECTIONS,
) -> Comparison:
    """Places, smooths and downsamples series, with diffs vs a baseline.

    Args:
        selections: The (run, tag) series, at most `MAX_SELECTIONS`.
        axis: One of `AXES`.
        smoothing: Weight in [0, 1); 0 leaves values as they are.
        smoothing_mode: "ema" (TensorBoard's) or "time" (x-aware).
        points: Points to return per series at most (about), 1..MAX_POINTS:
            a longer series is cut into `buckets_for(points)` x buckets,
            each keeping its first, last, min and max point. None returns
            every point (`FULL_RESOLUTION`: in-process callers such as the
            Python API; the routes always bound it).
        baseline: Run name of the baseline; the first selection of that run
            is the baseline series. None: no diffs.
        diff_mode: "difference" (A - B) or "ratio" (A / B).
        x_range: Optional (lo, hi) window on the axis; points outside are
            dropped after smoothing, except one on each side so lines reach
            the edges.
        placed: Each selection already placed with this axis, smoothing
            and mode (`place_series`, e.g. from a cache); None places them.
        max_selections: The most selections accepted (None: any number,
            for in-process callers; the routes keep `MAX_SELECTIONS`).

    Returns:
        The comparison, series in selection order.

    Raises:
        ValueError: On any bad argument, naming the value.
    """
    _validate(
        selections,
        axis,
        smoothing,
        smoothing_mode,
        points,
        diff_mode,
        x_range,
        max_selections,
    )
    if placed is None:
        placed = [
            place_series(sel, axis, smoothing, smoothing_mode)
            for sel in selections
        ]
    elif len(placed) != len(selections):
        raise ValueError(
            f"{len(placed)} placed series for {len(selections)} selections"
        )
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
        points=None if points is None else int(points),
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
        p = place_series(sel, axis, smoothing, smoothing_mode)
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
        [np.full(k.size, j, dtype=np.int32) for j, (_, _, k) in enumerate(parts)]
    )
    within = np.concatenate([k.astype(np.int32) for _, _, k in parts])
    order = np.lexsort((within, which, xs))
    del xs
    # Rows are made a chunk at a time: the caller streams them, so no list
    # of every row (Python objects, ~100 bytes each) is ever held.
    for start in range(0, order.size, _EXPORT_CHUNK_ROWS):
        chunk = order[start : start + _EXPORT_CHUNK_ROWS]
        for j, k in zip(which[chunk].tolist(), within[chunk].tolist()):
            i, p, _ = parts[j]
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


def _series_result(
    sel: Selection,
    placed: PlacedSeries | Excluded,
    points: int | None,
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
    if points is None:
        down = keep_all(placed.x[lo:hi], placed.y[lo:hi])
    else:
        buckets = buckets_for(points)
        down = placed.memo(
            ("minmax", lo, hi, buckets),
            lambda: downsample_sorted(
                placed.x[lo:hi], placed.y[lo:hi], buckets
            ),
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
    placed: Sequence[PlacedSeries | Excluded],
    baseline: str,
    diff_mode: str,
    points: int | None,
    x_range: tuple[float, float] | None,
) -> tuple[DiffResult, ...]:
    base_i = next(
        (i for i, s in enumerate(selections) if s.run.run == baseline), None
    )
    if base_i is None:
        raise ValueError(f"baseline run {baseline!r} is not among the series")
    base_sel, base = selections[base_i], placed[base_i]
    base_unique = None if isinstance(base, Excluded) else _Unique.of(base)
    results = []
    for i, (sel, p) in enumerate(zip(selections, placed, strict=True)):
        if i == base_i:
            continue
        if isinstance(p, Excluded):
            results.append(_empty_diff(sel, base_sel, p.reason))
        elif isinstance(base, Excluded) or base_unique is None:
            reason = f"baseline excluded: {base.reason}"  # type: ignore
            results.append(_empty_diff(sel, base_sel, reason))
        else:
            results.append(
                _diff_result(
                    sel,
                    _Unique.of(p),
                    base_sel,
                    base_unique,
                    diff_mode,
                    points,
                    x_range,
                )
            )
    return tuple(results)


@dataclass(frozen=True)
class _Unique:
    """A placed series with one point per x: the last logged (diff rule 1)."""

    x: FloatArray
    y: FloatArray
    smoothed: FloatArray

    @classmethod
    def of(cls, p: PlacedSeries) -> _Unique:
        if p.smoothed is p.y:
            x, y = last_per_x(p.x, p.y)
            return cls(x, y, y)
        x, y, smoothed = last_per_x(p.x, p.y, p.smoothed)
        return cls(x, y, smoothed)


def _diff_result(
    sel: Selection,
    p: _Unique,
    base_sel: Selection,
    base: _Unique,
    diff_mode: str,
    points: int | None,
    x_range: tuple[float, float] | None,
) -> DiffResult:
    grid = union_grid(p.x, base.x, x_range=x_range)
    if grid is None:
        return _empty_diff(sel, base_sel, None)
    raw = combine(grid.read_a(p.y), grid.read_b(base.y), diff_mode)
    lo, hi = _window(grid.x, x_range)
    if points is None:
        down = keep_all(grid.x[lo:hi], raw[lo:hi])
    else:
        down = downsample_sorted(grid.x[lo:hi], raw[lo:hi], buckets_for(points))
    picked = down.indices + lo
    if p.smoothed is p.y and base.smoothed is base.y:
        smoothed = down.y
    else:
        smoothed = combine(
            grid.read_a(p.smoothed, picked),
            grid.read_b(base.smoothed, picked),
            diff_mode,
        )
    total = grid.x.size if x_range is None else union_size(p.x, base.x)
    return DiffResult(
        run=sel.run.run,
        tag=sel.tag,
        baseline=base_sel.run.run,
        baseline_tag=base_sel.tag,
        x=down.x,
        y=down.y,
        y_min=down.y_min,
        y_max=down.y_max,
        smoothed=smoothed,
        total=int(total),
        returned=down.returned,
    )


def _empty_diff(
    sel: Selection, base_sel: Selection, reason: str | None
) -> DiffResult:
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


def check_arguments(
    selections: Sequence[Selection],
    *,
    axis: str,
    smoothing: float = 0.0,
    smoothing_mode: str = "ema",
    points: int | None = DEFAULT_POINTS,
    diff_mode: str = "difference",
    x_range: tuple[float, float] | None = None,
    max_selections: int | None = MAX_SELECTIONS,
) -> None:
    """Raises the ValueError `compare_scalars` would for these arguments."""
    _validate(
        selections,
        axis,
        smoothing,
        smoothing_mode,
        points,
        diff_mode,
        x_range,
        max_selections,
    )


def _validate(
    selections: Sequence[Selection],
    axis: str,
    smoothing: float,
    smoothing_mode: str,
    points: int | None,
    diff_mode: str,
    x_range: tuple[float, float] | None,
    max_selections: int | None = MAX_SELECTIONS,
) -> None:
    check_placement(axis, smoothing, smoothing_mode)
    if points is not None and (
        isinstance(points, bool) or not isinstance(points, (int, np.integer))
    ):
        raise ValueError(  # noqa: TRY004
            f"points must be an integer, got {points!r}"
        )
    if points is not None and not 1 <= points <= MAX_POINTS:
        raise ValueError(f"points must be in [1, {MAX_POINTS}], got {points}")
    if diff_mode not in DIFF_MODES:
        raise ValueError(
            f"diff mode must be one of {DIFF_MODES}, got {diff_mode!r}"
        )
    if max_selections is not None and len(selections) > max_selections:
        raise ValueError(
            f"at most {max_selections} series per request, "
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
