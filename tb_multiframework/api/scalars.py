"""The `scalars` and `export` routes: a query's series, compared.

`Api` (api.py) caches these answers; `ScalarAnswers` computes them from the
store and the runs' `Context`: which (run, tag) series a query names
(`selections`), the batch values shown as asked and superseded attempts
(`views.py`), the comparison itself (`core.compare`), group aggregates
(`experiments.py`), and the export's CSV or JSON rows.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from tb_multiframework.api import experiments
from tb_multiframework.api.context import Context, NotFound, epoch_source
from tb_multiframework.api.encoding import (
    csv_chunks,
    csv_safe_cell,
    json_chunks,
    pack_arrays,
)
from tb_multiframework.api.messages import with_scalars_messages
from tb_multiframework.api.placed import PlacedCache
from tb_multiframework.api.speed import series_of
from tb_multiframework.api.views import (
    aggregation_of,
    all_attempt_rows,
    current_attempts,
    hidden_counts,
    superseded_selections,
    with_batch_view,
)
from tb_multiframework.core.compare import (
    EXPORT_COLUMNS,
    MAX_SELECTIONS,
    PlacedSeries,
    Selection,
    check_arguments,
    compare_scalars,
    export_rows,
    place_series,
)
from tb_multiframework.core.diff import baseline_at, combine
from tb_multiframework.core.types import Excluded
from tb_multiframework.store.store import Store

SCALAR_ENCODINGS = ("json", "b64")  # `encoding` of the scalars route
MAX_EXPORT_ROWS = 5_000_000  # rows in one CSV/JSON export
# Export columns added with a baseline (docs/api.md, GET export).
BASELINE_COLUMNS = (
    "baseline_value",
    "baseline_smoothed",
    "diff",
    "diff_smoothed",
)
_BASELINE_CHUNK = 4096  # export rows given their baseline columns at once


@dataclasses.dataclass(frozen=True)
class ScalarQuery:
    """Parsed arguments of `scalars` and `export`."""

    runs: tuple[str, ...]
    tag: str | None
    metric: str | None
    x: str = "step"
    smoothing: float = 0.0
    smoothing_mode: str = "ema"
    points: int | None = 1000  # None: every point (in-process callers)
    # Series one answer may hold; None: any number (in-process callers).
    max_series: int | None = MAX_SELECTIONS
    baseline: str | None = None
    diff_mode: str = "difference"
    x_range: tuple[float, float] | None = None
    attempts: str = "current"  # "all": superseded points too
    batch_values: str = "logged"  # | "per_batch" | "running_mean"
    encoding: str = "json"  # how arrays travel: one of SCALAR_ENCODINGS
    group_by: str = "group"
    aggregate: str = "none"
    band: str = "none"
    baseline_group: str | None = None
    include_series: bool = True


class ScalarAnswers:
    """The answers of the scalar routes, uncached.

    Args:
      store: the series store.
      context: the runs' context of the current data version (`Api`'s,
        called again wherever the answer reads it).
      placed: placed and smoothed series, kept across data versions.
    """

    def __init__(
        self,
        store: Store,
        context: Callable[[], Context],
        placed: PlacedCache,
    ) -> None:
        self._store = store
        self._context = context
        self._placed = placed

    def payload(self, query: ScalarQuery) -> dict[str, Any]:
        """The `GET scalars` answer: aligned, smoothed, downsampled series
        and diffs (numpy arrays, or packed ones with `encoding=b64`)."""
        selections, missing = self.selections(query)
        baseline = query.baseline
        if baseline is not None and baseline not in {
            s.run.run for s in selections
        }:
            raise ValueError(
                f"baseline run {baseline!r} is not among the selected series"
            )
        ctx = self._context()
        extras = (
            superseded_selections(self._store, selections)
            if query.attempts == "all"
            else []
        )
        selections, notes = self._batch_view(ctx, selections, query)
        arguments: dict[str, Any] = {
            "axis": query.x,
            "smoothing": query.smoothing,
            "smoothing_mode": query.smoothing_mode,
            "points": query.points,
            "diff_mode": query.diff_mode,
            "x_range": query.x_range,
            "max_selections": query.max_series,
        }
        check_arguments(selections, **arguments)
        shown = selections if query.include_series else []
        placed = [
            self._placed.place(
                sel,
                query.x,
                query.smoothing,
                query.smoothing_mode,
                variant=query.batch_values,
            )
            for sel in shown
        ]
        comparison = compare_scalars(
            shown,
            baseline=baseline if query.include_series else None,
            placed=placed,
            **arguments,
        )
        payload = comparison.to_json()
        if query.include_series:
            for sel, series, note in zip(
                selections, payload["series"], notes, strict=True
            ):
                series.update(aggregation_json(ctx, sel.run.run, sel.tag))
                series["batchValues"] = note
                series["hidden"] = hidden_counts(
                    self._store, sel.run.run, sel.tag
                )
            payload["series"] += self._superseded_json(query, extras)
        payload["attempts"] = query.attempts
        payload["batchValues"] = query.batch_values
        if query.aggregate != "none":
            payload.update(self._aggregates(query, selections))
            if not query.include_series:
                payload["series"] = []
        if query.encoding == "b64":
            for key in ("series", "diffs", "aggregates", "groupDiffs"):
                for entry in payload.get(key, ()):
                    pack_arrays(entry)
        payload["encoding"] = query.encoding
        payload["missing"] = missing
        with_scalars_messages(payload)
        payload["dataVersion"] = self._store.version
        payload["epochSources"] = {
            s.run.run: epoch_source(ctx.epoch_maps[s.run.run])
            for s in selections
        }
        return payload

    def _batch_view(
        self, ctx: Context, selections: list[Selection], query: ScalarQuery
    ) -> tuple[list[Selection], list[str]]:
        """Selections with batch values shown as asked, and notes."""
        shown, notes = [], []
        for sel in selections:
            if query.batch_values == "logged":
                shown.append(sel)
                notes.append("")
                continue
            found = aggregation_of(
                sel.run,
                sel.tag,
                ctx.epoch_maps[sel.run.run],
                ctx.metric(sel.run.run, sel.tag),
                ctx.per_batch_of(sel.run.run, sel.tag),
            )
            converted, note = with_batch_view(sel, found, query.batch_values)
            shown.append(converted)
            notes.append(note)
        return shown, notes

    def _superseded_json(
        self, query: ScalarQuery, extras: list[Any]
    ) -> list[dict[str, Any]]:
        """The not-shown points as extra series (no baseline, no diffs)."""
        if not extras:
            return []
        found = compare_scalars(
            [e.selection for e in extras],
            axis=query.x,
            smoothing=query.smoothing,
            smoothing_mode=query.smoothing_mode,
            points=query.points,
            x_range=query.x_range,
        ).to_json()["series"]
        for series, extra in zip(found, extras, strict=True):
            series["attempt"] = extra.attempt
            series["superseded"] = True
        return found

    def _aggregates(
        self, query: ScalarQuery, selections: list[Selection]
    ) -> dict[str, Any]:
        """The `aggregates` part of a scalars answer (`experiments.py`)."""
        ctx = self._context()
        names = [
            experiments.group_of(
                ctx.experiments, ctx.summaries, s.run.run, query.group_by
            )
            for s in selections
        ]
        return experiments.aggregates(
            selections,
            names,
            experiments.AggregateQuery(
                group_by=query.group_by,
                center=query.aggregate,
                band=query.band,
                baseline_group=query.baseline_group,
            ),
            axis=query.x,
            smoothing=query.smoothing,
            smoothing_mode=query.smoothing_mode,
            points=query.points,
            x_range=query.x_range,
            place=functools.partial(
                self._placed.place, variant=query.batch_values
            ),
        )

    def export(self, query: ScalarQuery, fmt: str) -> tuple[Iterator[str], str]:
        """`GET export`: every aligned point as CSV or JSON text.

        Every argument is checked before this returns (a bad one raises
        here); the text is then made as it is read, a piece at a time, so
        an export of millions of rows is never held whole.

        Returns:
          (pieces of the body, content type).
        """
        selections, _ = self.selections(query)
        selections, _ = self._batch_view(self._context(), selections, query)
        baseline = self._export_baseline(query, selections)
        columns: tuple[str, ...] = EXPORT_COLUMNS
        rows: Any
        if query.attempts == "all":
            extras = superseded_selections(self._store, selections)
            current = [
                current_attempts(self._store, s.run.run, s.tag)
                for s in selections
            ]
            rows = (
                (*row, attempt, is_current)
                for row, attempt, is_current in all_attempt_rows(
                    selections,
                    current,
                    extras,
                    axis=query.x,
                    smoothing=query.smoothing,
                    smoothing_mode=query.smoothing_mode,
                    x_range=query.x_range,
                )
            )
            columns = (*EXPORT_COLUMNS, "attempt", "current")
            selections = selections + [e.selection for e in extras]
        else:
            rows = export_rows(
                selections,
                axis=query.x,
                smoothing=query.smoothing,
                smoothing_mode=query.smoothing_mode,
                x_range=query.x_range,
            )
        if baseline is not None:
            rows = with_baseline(rows, baseline, query.diff_mode)
            columns = (*columns, *BASELINE_COLUMNS)
        total = sum(len(s.series) for s in selections)
        if total > MAX_EXPORT_ROWS:
            raise ValueError(
                f"export of {total} rows exceeds the cap of {MAX_EXPORT_ROWS}; "
                "narrow the x range or the runs"
            )
        if fmt == "csv":
            names = {n for s in selections for n in (s.run.run, s.tag)}
            safe = any(csv_safe_cell(n) != n for n in names)
            return csv_chunks(columns, rows, safe=safe), "text/csv"
        return json_chunks(query.x, columns, rows), "application/json"

    def _export_baseline(
        self, query: ScalarQuery, selections: list[Selection]
    ) -> PlacedSeries | Excluded | None:
        """The baseline series of an export placed as its rows are, or None
        without `baseline`.

        Raises:
            ValueError: for a baseline run that is not among the series.
        """
        if query.baseline is None:
            return None
        found = next(
            (s for s in selections if s.run.run == query.baseline), None
        )
        if found is None:
            raise ValueError(
                f"baseline run {query.baseline!r} is not among the selected "
                "series"
            )
        return place_series(
            found, query.x, query.smoothing, query.smoothing_mode
        )

    def selections(
        self, query: ScalarQuery
    ) -> tuple[list[Selection], list[dict[str, str]]]:
        """The (run, tag) series a query names, and runs that lack them.

        Raises:
          NotFound: an unknown run, metric or tag.
          ValueError: no run named with a tag, or too many series.
        """
        ctx = self._context()
        for run in query.runs:
            if run not in ctx.summaries:
                raise NotFound(f"unknown run {run!r}")
        wanted: list[tuple[str, str]] = []
        missing: list[dict[str, str]] = []
        if query.metric is not None:
            entry = ctx.metrics.get(query.metric)
            if entry is None:
                raise NotFound(f"unknown metric {query.metric!r}")
            members = [(m.run, m.tag) for m in entry.members]
            runs = query.runs or sorted({run for run, _ in members})
            for run in runs:
                tags = [tag for member_run, tag in members if member_run == run]
                wanted.extend((run, tag) for tag in tags)
                if not tags:
                    missing.append(
                        {"run": run, "reason": f"no tag of metric {entry.name}"}
                    )
        else:
            tag = query.tag
            assert tag is not None
            if not query.runs:
                raise ValueError("name at least one run with a tag")
            for run in query.runs:
                if tag in ctx.summaries[run].scalar_tags or (
                    tag in ctx.speed.derived_tags(run)
                ):
                    wanted.append((run, tag))
                else:
                    missing.append(
                        {"run": run, "reason": f"no scalar tag {tag!r}"}
                    )
            if not wanted:
                raise NotFound(f"no selected run has scalar tag {tag!r}")
        cap = query.max_series
        if cap is not None and len(wanted) > cap:
            raise ValueError(f"{len(wanted)} series requested; at most {cap}")
        selections = [
            Selection(
                run=ctx.infos[run],
                tag=tag,
                series=series_of(ctx.speed, self._store, run, tag),
                epoch_map=ctx.speed.epoch_map_of(run, tag, ctx.epoch_maps[run]),
                run_start_time=ctx.summaries[run].start_time,
                run_last_step=ctx.summaries[run].last_step,
                excluded_axes=ctx.speed.excluded_axes(run, tag),
            )
            for run, tag in wanted
        ]
        return selections, missing


def aggregation_json(ctx: Context, run: str, tag: str) -> dict[str, str]:
    """What a series' batch values are (`aggregation`, with evidence)."""
    found = aggregation_of(
        ctx.infos[run],
        tag,
        ctx.epoch_maps[run],
        ctx.metric(run, tag),
        ctx.per_batch_of(run, tag),
    )
    return {
        "aggregation": found.kind,
        "aggregationEvidence": found.evidence,
    }


def with_baseline(
    rows: Iterable[Sequence[Any]],
    baseline: PlacedSeries | Excluded,
    diff_mode: str,
) -> Iterator[tuple[Any, ...]]:
    """Export rows with `BASELINE_COLUMNS` appended, a chunk at a time.

    Each row (x first, value and smoothed at 5 and 6) gets the baseline's
    value and smoothed value at its x (`core.diff.baseline_at`: NaN outside
    the baseline's range or where it has no place on the axis) and
    `value - baseline` (or `value / baseline` with `diffMode=ratio`), raw
    and smoothed.
    """
    iterator = iter(rows)
    while True:
        chunk = list(itertools.islice(iterator, _BASELINE_CHUNK))
        if not chunk:
            return
        x = np.array([row[0] for row in chunk], dtype=np.float64)
        value = np.array([row[5] for row in chunk], dtype=np.float64)
        smoothed = np.array([row[6] for row in chunk], dtype=np.float64)
        if isinstance(baseline, Excluded):
            base = base_smoothed = np.full(x.size, np.nan)
        else:
            base = baseline_at(baseline.x, baseline.y, x)
            base_smoothed = baseline_at(baseline.x, baseline.smoothed, x)
        diff = combine(value, base, diff_mode)
        diff_smoothed = combine(smoothed, base_smoothed, diff_mode)
        for i, row in enumerate(chunk):
            yield (
                *row,
                float(base[i]),
                float(base_smoothed[i]),
                float(diff[i]),
                float(diff_smoothed[i]),
            )
