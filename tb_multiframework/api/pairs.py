"""A candidate run against a baseline run, one metric at a time.

What `tbmf diff`, `tbmf check` and `tbmf report` compute with: the api's
selections (the series, epoch maps and run facts the routes use), placed on
the axis and smoothed as the tab places them (`core.compare.place_series`),
summarised as the runs table summarises them (`core.summaries`), aligned as
the difference chart aligns them (`core.diff.align_pair`) and measured by
`core.parity`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tb_multiframework.api.service import Api, ScalarQuery
from tb_multiframework.core import parity
from tb_multiframework.core.compare import Selection, place_series
from tb_multiframework.core.diff import AlignedPair, align_pair
from tb_multiframework.core.direction import metric_direction
from tb_multiframework.core.summaries import SeriesSummary, summarize_series
from tb_multiframework.core.types import Excluded


@dataclasses.dataclass(frozen=True)
class Side:
    """One run's series of the metric.

    Attributes:
        run: The run.
        tag: Its raw tag.
        placed: Its points on the axis (x sorted, smoothed), or why it has
            no place there.
        summary: Last and best value (smoothed when smoothing is asked).
    """

    run: str
    tag: str
    placed: Any
    summary: SeriesSummary

    @property
    def excluded(self) -> str | None:
        return self.placed.reason if isinstance(self.placed, Excluded) else None

    def to_json(self) -> dict[str, Any]:
        placed = None if self.excluded else self.placed
        return {
            "run": self.run,
            "tag": self.tag,
            "count": self.summary.count,
            "last": self.summary.last,
            "lastStep": self.summary.last_step,
            "best": self.summary.best,
            "bestStep": self.summary.best_step,
            "xMin": float(placed.x[0]) if placed and placed.x.size else None,
            "xMax": float(placed.x[-1]) if placed and placed.x.size else None,
            "excluded": self.excluded,
        }


@dataclasses.dataclass(frozen=True)
class PairComparison:
    """A metric of two runs held against each other.

    Attributes:
        metric: The metric key.
        name: Its canonical name.
        direction: "min", "max" or None (`core.direction`, in the metric
            summary's words).
        axis: The x axis.
        baseline: The reference run's side.
        candidate: The other run's side.
        aligned: Both on the union grid of their overlap (baseline as `a`);
            None when a side has no place on the axis.
        stats: |candidate − baseline| over that grid.
    """

    metric: str
    name: str
    direction: str | None
    axis: str
    baseline: Side
    candidate: Side
    aligned: AlignedPair | None
    stats: parity.DiffStats | None

    @property
    def excluded(self) -> str | None:
        """Why the two cannot be aligned on the axis, or None."""
        for label, side in (
            ("baseline", self.baseline),
            ("candidate", self.candidate),
        ):
            if side.excluded:
                return f"{label} {side.run} has no place on {self.axis}: {side.excluded}"
        return None

    def to_json(self) -> dict[str, Any]:
        stats = self.stats
        return {
            "metric": self.metric,
            "name": self.name,
            "direction": self.direction,
            "baseline": self.baseline.to_json(),
            "candidate": self.candidate.to_json(),
            "last": _change_json(
                self.baseline.summary.last, self.candidate.summary.last
            ),
            "best": _change_json(
                self.baseline.summary.best, self.candidate.summary.best
            ),
            "diff": (
                None
                if stats is None
                else {
                    "points": stats.points,
                    "compared": stats.compared,
                    "meanAbs": stats.mean_abs,
                    "maxAbs": stats.max_abs,
                    "maxAt": stats.max_at,
                    "overlap": (
                        None if stats.overlap is None else list(stats.overlap)
                    ),
                }
            ),
            "excluded": self.excluded,
        }


def compare_pair(
    api: Api,
    *,
    metric: str,
    baseline: tuple[str, str],
    candidate: tuple[str, str],
    axis: str = "step",
    smoothing: float = 0.0,
    smoothing_mode: str = "ema",
) -> PairComparison:
    """Holds the candidate's series of a metric against the baseline's.

    Args:
        api: The data.
        metric: A metric key (`loss/train@epoch`).
        baseline: (run, tag) of the reference, a member of the metric.
        candidate: (run, tag) of the other run.
        axis: One of `core.axes.AXES`.
        smoothing: Weight in [0, 1), applied to both before comparing.
        smoothing_mode: "ema" or "time".

    Raises:
        NotFound: an unknown run or metric.
        ValueError: a bad axis or smoothing; a (run, tag) not of the metric.
    """
    selections, _ = api.selections(
        ScalarQuery(
            runs=tuple(dict.fromkeys((baseline[0], candidate[0]))),
            tag=None,
            metric=metric,
            x=axis,
            smoothing=smoothing,
            smoothing_mode=smoothing_mode,
        )
    )
    entry = next(m for m in api.metrics()["metrics"] if m["key"] == metric)
    # As the API's metric summary: the best value is the lowest or highest.
    direction = {"lower": "min", "higher": "max"}.get(
        metric_direction(entry["name"]) or ""
    )
    sides = [
        _side(
            _selection(selections, run, tag, metric),
            axis,
            smoothing,
            smoothing_mode,
            direction,
        )
        for run, tag in (baseline, candidate)
    ]
    aligned = stats = None
    if not (sides[0].excluded or sides[1].excluded):
        a, b = sides[0].placed, sides[1].placed
        aligned = align_pair(a.x, a.smoothed, b.x, b.smoothed)
        stats = parity.diff_stats(aligned)
    return PairComparison(
        metric=metric,
        name=entry["name"],
        direction=direction,
        axis=axis,
        baseline=sides[0],
        candidate=sides[1],
        aligned=aligned,
        stats=stats,
    )


def _selection(
    selections: list[Selection], run: str, tag: str, metric: str
) -> Selection:
    for selection in selections:
        if selection.run.run == run and selection.tag == tag:
            return selection
    raise ValueError(f"run {run!r} has no tag {tag!r} of metric {metric}")


def _side(
    selection: Selection,
    axis: str,
    smoothing: float,
    smoothing_mode: str,
    direction: str | None,
) -> Side:
    placed = place_series(
        selection, axis=axis, smoothing=smoothing, smoothing_mode=smoothing_mode
    )
    if smoothing and not isinstance(placed, Excluded):
        summary = summarize_series(
            placed.steps, placed.smoothed, direction=direction
        )
    else:
        series = selection.series
        summary = summarize_series(
            series.steps, series.values, direction=direction
        )
    return Side(
        run=selection.run.run, tag=selection.tag, placed=placed, summary=summary
    )


def _change_json(
    baseline: float | None, candidate: float | None
) -> dict[str, Any]:
    delta, relative = parity.change(baseline, candidate)
    return {
        "baseline": baseline,
        "candidate": candidate,
        "delta": delta,
        "relative": relative,
    }
