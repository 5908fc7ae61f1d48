"""Which points a scalar request sees, and how batch values are shown.

By default a request sees each series' *current* points (one per step: a
resumed run's later attempt supersedes the earlier one from the step where it
restarted, see docs/conventions.md "Resumed runs"). With `attempts=all` the
superseded points come too, as extra series per earlier attempt (Compare
draws them faint and dashed) or extra export rows with their `attempt`.

`batchValues` shows running-mean series as per-batch values or per-batch
series as running means (core/aggregation.py), so Keras' `batch_loss` can be
compared with a PyTorch loop's per-batch loss like for like.

Everything here reads the store and calls core; `scalars.py` wires it
into the routes.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from tb_multiframework.core.aggregation import (
    Aggregation,
    convert_batch_values,
    series_aggregation,
)
from tb_multiframework.core.axes import EpochMap
from tb_multiframework.core.compare import ExportRow, Selection, export_rows
from tb_multiframework.core.metrics import CanonicalMetric
from tb_multiframework.core.speed import derived_name
from tb_multiframework.core.types import Excluded, RunInfo
from tb_multiframework.store.store import RunMeta, ScalarSeries, Store

ATTEMPT_MODES = ("current", "all")


@dataclasses.dataclass(frozen=True)
class Extra:
    """Superseded points of one earlier attempt of a (run, tag)."""

    selection: Selection
    attempt: int


def hidden_counts(store: Store, run: str, tag: str) -> dict[str, int]:
    """Points of a series not shown by default: superseded, repeated."""
    if derived_name(tag) is not None:  # derived from wall time: none
        return {"superseded": 0, "repeated": 0}
    found = store.scalar_attempts(run, tag)
    if found is None:
        return {"superseded": 0, "repeated": 0}
    superseded = int(found.superseded.sum())
    hidden = int((~found.current).sum())
    return {"superseded": superseded, "repeated": hidden - superseded}


def superseded_selections(
    store: Store, selections: Sequence[Selection]
) -> list[Extra]:
    """One selection per (run, tag, attempt) of the points not shown.

    The points a later point at or below their step replaced: superseded by
    a later attempt, or logged again at the same step.
    """
    extras = []
    for sel in selections:
        if derived_name(sel.tag) is not None:
            continue
        every, found = store.scalar_view(sel.run.run, sel.tag)
        if found is None or bool(found.current.all()):
            continue
        hidden = ~found.current
        for attempt in np.unique(found.attempts[hidden]).tolist():
            keep = hidden & (found.attempts == attempt)
            series = ScalarSeries(
                steps=every.steps[keep],
                wall_times=every.wall_times[keep],
                values=every.values[keep],
            )
            extras.append(
                Extra(dataclasses.replace(sel, series=series), int(attempt))
            )
    return extras


def run_attempts(
    store: Store, meta: RunMeta, first_step: int | None
) -> list[dict[str, Any]]:
    """`attempts` of a `runs` entry: where each began, points, superseded.

    The first attempt starts at the run's first step.
    """
    starts = {s.attempt: s for s in meta.attempt_starts}
    out = []
    for counts in store.attempt_counts(meta.run):
        start = starts.get(counts.attempt)
        out.append(
            {
                "attempt": counts.attempt,
                "startStep": first_step if start is None else start.step,
                "cause": "" if start is None else start.cause,
                "tag": "" if start is None else start.tag,
                "wallTime": None if start is None else start.wall_time,
                "points": counts.points,
                "superseded": counts.superseded,
                "repeated": counts.repeated,
            }
        )
    return out


def resume_note(attempts: Sequence[Mapping[str, Any]]) -> str:
    """ "resumed at step 40 · 20 points superseded", or "" for one attempt."""
    later = [a for a in attempts if a["attempt"] > 0]
    if not later:
        return ""
    steps = ", ".join(
        str(a["startStep"]) for a in later if a["startStep"] is not None
    )
    superseded = sum(int(a["superseded"]) for a in attempts)
    word = "step" if len(later) == 1 else "steps"
    plural = "point" if superseded == 1 else "points"
    return f"resumed at {word} {steps} · {superseded} {plural} superseded"


def aggregation_of(
    info: RunInfo,
    tag: str,
    emap: EpochMap | Excluded,
    found: CanonicalMetric | None,
    data_evidence: str | None = None,
) -> Aggregation:
    """A series' aggregation, with the level the data shows.

    Args:
      found: the (run, tag)'s canonical metric (`Context.metric`).
      data_evidence: its per-batch signature (`Context.per_batch`).
    """
    level = found.level if found else None
    if level is None and isinstance(emap, EpochMap):
        if tag in emap.epoch_indexed_tags:
            level = "epoch"
    return series_aggregation(
        info,
        tag,
        level=level,
        split=found.split if found else None,
        data_evidence=data_evidence,
    )


def with_batch_view(
    sel: Selection, aggregation: Aggregation, view: str
) -> tuple[Selection, str]:
    """The selection with its values shown as `view`, and what was done."""
    series = sel.series
    converted = convert_batch_values(
        aggregation.kind,
        view,
        tag=sel.tag,
        steps=np.asarray(series.steps),
        values=np.asarray(series.values),
        epoch_map=sel.epoch_map,
    )
    if converted.values is None:
        return sel, converted.note
    shown = ScalarSeries(
        steps=np.asarray(series.steps),
        wall_times=np.asarray(series.wall_times),
        values=converted.values,
    )
    return dataclasses.replace(sel, series=shown), converted.note


def current_attempts(store: Store, run: str, tag: str) -> dict[int, int]:
    """Attempt of each current point, by step (one current point a step)."""
    if derived_name(tag) is not None:
        return {}
    every, found = store.scalar_view(run, tag)
    if found is None:
        return {}
    steps = every.steps[found.current]
    return dict(
        zip(steps.tolist(), found.attempts[found.current].tolist(), strict=True)
    )


def all_attempt_rows(
    selections: Sequence[Selection],
    current: Sequence[Mapping[int, int]],
    extras: Sequence[Extra],
    *,
    axis: str,
    smoothing: float,
    smoothing_mode: str,
    x_range: tuple[float, float] | None,
) -> Iterator[tuple[ExportRow, int, bool]]:
    """Export rows of current and superseded points, merged by x.

    Args:
      selections: the current series.
      current: per selection, the attempt of each current point by step
        (`current_attempts`; empty: all attempt 0).
      extras: the superseded points (`superseded_selections`).

    Yields:
      (row, attempt, current) in the export's order: x, then the selection
      (current series first, then the superseded ones), then logged order.
    """
    options = (axis, smoothing, smoothing_mode, x_range)
    streams = [
        _keyed(sel, i, current[i], None, options)
        for i, sel in enumerate(selections)
    ]
    base = len(selections)
    streams += [
        _keyed(extra.selection, base + j, {}, extra.attempt, options)
        for j, extra in enumerate(extras)
    ]
    for _, _, row, attempt, is_current in heapq.merge(*streams):
        yield row, attempt, is_current


def _keyed(
    sel: Selection,
    order: int,
    by_step: Mapping[int, int],
    attempt: int | None,
    options: tuple[str, float, str, tuple[float, float] | None],
) -> Iterator[tuple[float, int, ExportRow, int, bool]]:
    axis, smoothing, smoothing_mode, x_range = options
    rows = export_rows(
        [sel],
        axis=axis,
        smoothing=smoothing,
        smoothing_mode=smoothing_mode,
        x_range=x_range,
    )
    for row in rows:
        if attempt is None:
            yield row.x, order, row, by_step.get(row.step, 0), True
        else:
            yield row.x, order, row, attempt, False
