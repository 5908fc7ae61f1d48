"""JSON payloads of the HTTP API, built from the store and core.

Each method takes already-parsed arguments and returns a plain dict; it
raises `NotFound` for an unknown run, tag, metric or layout and `ValueError`
for a bad argument, which `plugin.py` turns into 404 and 400 responses.
What every request needs about the runs (run info, epoch maps, the metric
index) is derived once per data version and config, and whole answers are
cached by their arguments and that same version.
"""

from __future__ import annotations

import base64
import collections
import csv
import dataclasses
import functools
import gzip
import io
import json
import math
import threading
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from tb_multiframework import experiments
from tb_multiframework.anomaly_api import (
    AnomalyFinder,
    AnomalyQuery,
    NotFoundError,
)
from tb_multiframework.config import Config, ConfigFile
from tb_multiframework.core import histdiff, layouts, pairing, safe_regex
from tb_multiframework.core.axes import EpochMap, axis_values, build_epoch_map
from tb_multiframework.core.compare import (
    EXPORT_COLUMNS,
    MAX_SELECTIONS,
    Selection,
    check_arguments,
    compare_scalars,
    export_rows,
)
from tb_multiframework.core.metrics import (
    MetricEntry,
    build_metric_index,
    canonical_metric,
    is_placeholder_metric,
    parse_alias_rules,
)
from tb_multiframework.core.types import (
    AliasRule,
    EpochSetting,
    Excluded,
    RunInfo,
)
from tb_multiframework.layout_store import LayoutStore
from tb_multiframework.placed_cache import PlacedCache
from tb_multiframework.scalar_views import (
    aggregation_of,
    all_attempt_rows,
    current_attempts,
    hidden_counts,
    resume_note,
    run_attempts,
    superseded_selections,
    with_batch_view,
)
from tb_multiframework.sources import Source
from tb_multiframework.store import HistogramSeries, RunSummary, Store

_CACHE_ENTRIES = 64  # answers kept per data version
SCALAR_ENCODINGS = ("json", "b64")  # `encoding` of the scalars route
MAX_EXPORT_ROWS = 5_000_000  # rows in one CSV/JSON export


class NotFound(LookupError):
    """An unknown run, tag, metric or layout (HTTP 404)."""


class LayoutsUnavailable(Exception):
    """No place to save layouts (HTTP 503)."""


def to_json(value: Any) -> Any:
    """`json.dumps` default for numpy values.

    Non-finite floats become the strings "NaN", "Infinity" and "-Infinity",
    as TensorBoard's own JSON does, so the UI can mark them.
    """
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            return [_finite_or_name(v) for v in value.tolist()]
        return value.tolist()
    if isinstance(value, np.generic):
        return _finite_or_name(value.item())
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot serialise {type(value).__name__}")


def encode_json(payload: Any) -> str:
    """The JSON text of a payload (numpy arrays allowed, see `to_json`)."""
    return json.dumps(
        payload, allow_nan=False, separators=(",", ":"), default=to_json
    )


class Encoded:
    """An answer already serialised, kept in the cache as text and gzip.

    A repeated request then costs no JSON encoding and no compression.
    `compress=False` marks an answer gzip barely shrinks (base64 of
    floats: it mostly wins back base64's own third), sent as is.
    """

    def __init__(self, text: str, *, compress: bool = True) -> None:
        self.data = text.encode("utf-8")
        self.compress = compress
        self._gzipped: bytes | None = None

    def gzipped(self) -> bytes:
        if self._gzipped is None:
            self._gzipped = gzip.compress(self.data, compresslevel=3, mtime=0)
        return self._gzipped


def _finite_or_name(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return (
            "NaN"
            if value != value
            else ("Infinity" if value > 0 else "-Infinity")
        )
    return value


@dataclasses.dataclass(frozen=True)
class _Positions:
    """A histogram tag's steps and times, shaped like a scalar series.

    Lets epoch maps see histogram tags (Keras writes them at step = epoch);
    the values are each histogram's total count.
    """

    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


@dataclasses.dataclass(frozen=True)
class _Context:
    """What every request needs about the runs, for one data version."""

    summaries: dict[str, RunSummary]
    infos: dict[str, RunInfo]
    epoch_maps: dict[str, EpochMap | Excluded]
    aliases: tuple[AliasRule, ...]
    metrics: dict[str, MetricEntry]
    errors: tuple[str, ...]
    experiments: experiments.Experiments


class Api:
    """The data behind every route.

    Args:
      store: the series store.
      loader: the source filling it (for load state), None without one.
      config_file: the user config.
      layout_store: where user layouts are saved, with the reason for the
        place; None when no place is writable.
    """

    def __init__(
        self,
        store: Store,
        loader: Source | None,
        config_file: ConfigFile,
        layout_store: LayoutStore | None,
        layout_path_reason: str,
    ) -> None:
        self._store = store
        self._loader = loader
        self._config_file = config_file
        self._layout_store = layout_store
        self._layout_path_reason = layout_path_reason
        self._lock = threading.Lock()
        self._context_key: tuple[Any, ...] | None = None
        self._context_value: _Context | None = None
        # run -> (its group's run versions and settings, epoch map)
        self._epoch_cache: dict[str, tuple[Any, EpochMap | Excluded]] = {}
        self._cache: collections.OrderedDict[Hashable, Any] = (
            collections.OrderedDict()
        )
        self._anomalies = AnomalyFinder(store)
        # Placed and smoothed series, kept across data versions.
        self._placed = PlacedCache()

    # Derived state.

    def _config(self) -> Config:
        self._config_file.refresh()
        return self._config_file.config

    def _context(self) -> _Context:
        config = self._config()
        key = (self._store.version, config)
        with self._lock:
            if self._context_key != key or self._context_value is None:
                self._context_value = self._build_context(config)
                self._context_key = key
                self._cache.clear()
            return self._context_value

    def _build_context(self, config: Config) -> _Context:
        errors = []
        try:
            aliases = parse_alias_rules(list(config.metric_aliases))
        except ValueError as error:
            errors.append(f"metric aliases in {config.path} not used: {error}")
            aliases = ()
        summaries = {s.meta.run: s for s in self._store.summaries()}
        infos = {
            run: RunInfo(
                run=run,
                group=s.meta.group,
                framework=s.meta.framework,
                writer=s.meta.writer,
                trainer=s.meta.trainer,
            )
            for run, s in summaries.items()
        }
        by_group: dict[str, list[str]] = collections.defaultdict(list)
        for run, info in infos.items():
            by_group[info.group].append(run)
        epoch_maps = self._epoch_maps(config, summaries, infos, by_group)
        hints = {
            (run, tag): "epoch"
            for run, emap in epoch_maps.items()
            if isinstance(emap, EpochMap)
            for tag in emap.epoch_indexed_tags
        }
        pairs = [
            (infos[run], tag)
            for run, summary in summaries.items()
            for tag in summary.scalar_tags
            if not (
                tag == "hp_metric"
                and is_placeholder_metric(
                    tag, self._store.scalars(run, tag).values.tolist()
                )
            )
        ]
        entries = build_metric_index(pairs, aliases=aliases, level_hints=hints)
        return _Context(
            summaries=summaries,
            infos=infos,
            epoch_maps=epoch_maps,
            aliases=aliases,
            metrics={entry.key: entry for entry in entries},
            errors=tuple(errors),
            experiments=experiments.build_experiments(summaries, config),
        )

    def _epoch_maps(
        self,
        config: Config,
        summaries: dict[str, RunSummary],
        infos: dict[str, RunInfo],
        by_group: dict[str, list[str]],
    ) -> dict[str, EpochMap | Excluded]:
        """Every run's epoch map, rebuilt only for groups that changed.

        Building one reads every point of the group's runs; while runs
        train, most of them have not changed since the last data version.
        """
        maps: dict[str, EpochMap | Excluded] = {}
        cache: dict[str, tuple[Any, EpochMap | Excluded]] = {}
        # One group at a time: series are decoded from the store's packed
        # form for this, and only one group's are held at once.
        for members in by_group.values():
            inputs: dict[str, dict[str, Any]] = {}
            for run in members:
                maps[run], cache[run] = self._epoch_map(
                    run, infos[run], config, summaries, members, inputs
                )
        self._epoch_cache = cache
        return maps

    def _epoch_map(
        self,
        run: str,
        info: RunInfo,
        config: Config,
        summaries: dict[str, RunSummary],
        members: list[str],
        inputs: dict[str, dict[str, Any]],
    ) -> tuple[EpochMap | Excluded, tuple[Any, EpochMap | Excluded]]:
        """A run's epoch map (cached while its group is unchanged)."""
        override = config.for_run(run)
        setting = None
        if override.steps_per_epoch is not None or override.epoch_offset:
            setting = EpochSetting(
                steps_per_epoch=override.steps_per_epoch,
                epoch_offset=override.epoch_offset or 0.0,
            )
        key = (
            info,
            setting,
            tuple((m, summaries[m].version) for m in members),
        )
        cached = self._epoch_cache.get(run)
        if cached is not None and cached[0] == key:
            return cached[1], cached
        for member in members:
            if member not in inputs:
                inputs[member] = self._epoch_inputs(member)
        group = {member: inputs[member] for member in members}
        emap = build_epoch_map(info, group, setting=setting)
        return emap, (key, emap)

    def _epoch_inputs(self, run: str) -> dict[str, Any]:
        """A run's scalar series plus its histogram tags' positions.

        Current points only (a resumed run's superseded points would make
        its epoch counter go back). A torch `add_scalars`/`add_hparams`
        sub-run sees its parent's tags too, so it gets the parent's epochs.
        """
        parent = self._store.meta(run).parent
        inputs: dict[str, Any] = {}
        if parent and self._store.has_run(parent):
            inputs.update(self._epoch_inputs(parent))
        inputs.update(self._store.run_scalars(run, current=True))
        for tag in self._store.summary(run).histogram_tags:
            hist = self._store.histograms(run, tag)
            inputs.setdefault(
                tag,
                _Positions(
                    steps=hist.steps,
                    wall_times=hist.wall_times,
                    values=np.array([c.sum() for c in hist.counts]),
                ),
            )
        return inputs

    def _cached(
        self,
        key: Hashable,
        compute: Callable[[], Any],
        *,
        compress: bool = True,
    ) -> Encoded:
        self._context()  # clears the cache when the data changed
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = Encoded(encode_json(compute()), compress=compress)
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > _CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return value

    # Runs and metrics.

    def runs(self) -> dict[str, Any]:
        """`GET runs`: the run catalog."""
        ctx = self._context()
        loader = self._loader
        stats = loader.last_stats if loader is not None else None
        errors = [
            e
            for e in (
                self._config_file.error,
                (
                    loader.last_error
                    if loader is not None
                    else "no logdir and no data provider"
                ),
            )
            if e
        ] + list(ctx.errors)
        return {
            "runs": [
                {
                    **self._run_entry(summary, ctx.epoch_maps[run]),
                    **ctx.experiments.run_fields(run),
                }
                for run, summary in sorted(ctx.summaries.items())
            ],
            "loading": loader is not None and not loader.loaded_once.is_set(),
            "dataVersion": self._store.version,
            "reload": (
                None
                if stats is None
                else {"seconds": stats.seconds, "bytesRead": stats.bytes_read}
            ),
            "errors": errors,
            "source": loader.status().to_json() if loader is not None else None,
        }

    def _run_entry(
        self, summary: RunSummary, emap: EpochMap | Excluded
    ) -> dict[str, Any]:
        entry = _run_entry(summary, emap)
        meta = summary.meta
        attempts = run_attempts(self._store, meta, summary.first_step)
        entry.update(
            {
                "trainer": meta.trainer,
                "trainerEvidence": list(meta.trainer_evidence),
                "parent": meta.parent,
                "subRun": meta.sub_run,
                "attempts": attempts,
                "resumeNote": resume_note(attempts),
            }
        )
        return entry

    def metrics(self) -> dict[str, Any]:
        """`GET metrics`: the cross-framework metric index."""
        ctx = self._context()
        return {
            "metrics": [
                {
                    "key": key,
                    "name": entry.name,
                    "level": entry.level,
                    "members": [
                        {
                            "run": m.run,
                            "tag": m.tag,
                            "level": m.level,
                            "derivation": m.derivation,
                            "aliases": list(m.aliases),
                            **self._aggregation_json(ctx, m.run, m.tag),
                        }
                        for m in entry.members
                    ],
                }
                for key, entry in ctx.metrics.items()
            ]
        }

    # Scalars.

    def scalars(self, query: ScalarQuery) -> Encoded:
        """`GET scalars`: aligned, smoothed, downsampled series and diffs."""
        return self._cached(
            ("scalars", query),
            lambda: self._scalars(query),
            compress=query.encoding != "b64",
        )

    def _scalars(self, query: ScalarQuery) -> dict[str, Any]:
        selections, missing = self._selections(query)
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
                series.update(self._aggregation_json(ctx, sel.run.run, sel.tag))
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
        payload["dataVersion"] = self._store.version
        payload["epochSources"] = {
            s.run.run: _epoch_source(ctx.epoch_maps[s.run.run])
            for s in selections
        }
        return payload

    def _aggregation_json(
        self, ctx: _Context, run: str, tag: str
    ) -> dict[str, str]:
        found = aggregation_of(
            ctx.infos[run], tag, ctx.epoch_maps[run], ctx.aliases
        )
        return {
            "aggregation": found.kind,
            "aggregationEvidence": found.evidence,
        }

    def _batch_view(
        self, ctx: _Context, selections: list[Selection], query: ScalarQuery
    ) -> tuple[list[Selection], list[str]]:
        """Selections with batch values shown as asked, and notes."""
        shown, notes = [], []
        for sel in selections:
            if query.batch_values == "logged":
                shown.append(sel)
                notes.append("")
                continue
            found = aggregation_of(
                sel.run, sel.tag, ctx.epoch_maps[sel.run.run], ctx.aliases
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
        """The `aggregates` part of a scalars answer (experiments.py)."""
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

    def config_diff(self, runs: tuple[str, ...]) -> dict[str, Any]:
        """`GET config_diff`: hyper-parameters of 2+ runs side by side."""
        ctx = self._context()
        for run in runs:
            if run not in ctx.summaries:
                raise NotFound(f"unknown run {run!r}")
        return experiments.config_diff(ctx.experiments, runs)

    def metric_summary(self, metric: str) -> dict[str, Any]:
        """`GET metric_summary`: last/best of a metric per run, rank spread."""
        ctx = self._context()
        entry = ctx.metrics.get(metric)
        if entry is None:
            raise NotFound(f"unknown metric {metric!r}")
        members = [(m.run, m.tag) for m in entry.members]
        series = {
            (run, tag): self._store.current_scalars(run, tag)
            for run, tag in members
        }
        return experiments.metric_summary(
            entry.key, entry.name, members, series, ctx.experiments
        )

    def export(self, query: ScalarQuery, fmt: str) -> tuple[str, str]:
        """`GET export`: every aligned point as CSV or JSON text.

        Returns:
          (body, content type).
        """
        selections, _ = self._selections(query)
        selections, _ = self._batch_view(self._context(), selections, query)
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
        total = sum(len(s.series) for s in selections)
        if total > MAX_EXPORT_ROWS:
            raise ValueError(
                f"export of {total} rows exceeds the cap of {MAX_EXPORT_ROWS}; "
                "narrow the x range or the runs"
            )
        if fmt == "csv":
            out = io.StringIO()
            # RFC 4180 line ends: a CR inside a name is then quoted too.
            writer = csv.writer(out, lineterminator="\r\n")
            writer.writerow(columns)
            names = {n for s in selections for n in (s.run.run, s.tag)}
            if any(csv_safe_cell(n) != n for n in names):
                rows = ([csv_safe_cell(v) for v in row] for row in rows)
            writer.writerows(rows)
            return out.getvalue(), "text/csv"
        body = json.dumps(
            {
                "x": query.x,
                "columns": list(columns),
                "rows": [[_finite_or_name(v) for v in row] for row in rows],
            },
            allow_nan=False,
            separators=(",", ":"),
        )
        return body, "application/json"

    def _selections(
        self, query: ScalarQuery
    ) -> tuple[list[Selection], list[dict[str, str]]]:
        """The (run, tag) series a query names, and runs that lack them."""
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
                if tag in ctx.summaries[run].scalar_tags:
                    wanted.append((run, tag))
                else:
                    missing.append(
                        {"run": run, "reason": f"no scalar tag {tag!r}"}
                    )
            if not wanted:
                raise NotFound(f"no selected run has scalar tag {tag!r}")
        if len(wanted) > MAX_SELECTIONS:
            raise ValueError(
                f"{len(wanted)} series requested; at most {MAX_SELECTIONS}"
            )
        selections = [
            Selection(
                run=ctx.infos[run],
                tag=tag,
                series=self._store.current_scalars(run, tag),
                epoch_map=ctx.epoch_maps[run],
                run_start_time=ctx.summaries[run].start_time,
                run_last_step=ctx.summaries[run].last_step,
            )
            for run, tag in wanted
        ]
        return selections, missing

    # Histograms.

    def histograms(self, run: str, tag: str, axis: str) -> dict[str, Any]:
        """`GET histograms`: every histogram of a (run, tag)."""
        series = self._histogram_series(run, tag)
        positions = self._histogram_positions(run, tag, series, axis)
        excluded = positions.reason if isinstance(positions, Excluded) else None
        xs = None if excluded else positions
        return {
            "run": run,
            "tag": tag,
            "x": axis,
            "excluded": excluded,
            "steps": [
                {
                    "step": int(series.steps[i]),
                    "wallTime": float(series.wall_times[i]),
                    "x": None if xs is None else float(xs[i]),
                    "edges": series.edges[i],
                    "counts": series.counts[i],
                }
                for i in range(len(series))
            ],
        }

    def histogram_diff(
        self, query: HistogramQuery, at: float | None
    ) -> Encoded:
        """`GET histogram_diff`: two histograms on common edges, distances."""
        return self._cached(
            ("histogram_diff", query, at),
            lambda: self._histogram_diff(query, at),
        )

    def _histogram_diff(
        self, query: HistogramQuery, at: float | None
    ) -> dict[str, Any]:
        a, pos_a = self._placed_histograms(query.run_a, query.tag_a, query.x)
        b, pos_b = self._placed_histograms(query.run_b, query.tag_b, query.x)
        if len(a) == 0 or len(b) == 0:
            raise NotFound("one of the tags has no histograms")
        if at is None:
            at = float(min(np.nanmax(pos_a), np.nanmax(pos_b)))
        index_a = histdiff.nearest_index(pos_a, at)
        index_b = histdiff.nearest_index(pos_b, at)
        hist_a = histdiff.clean_histogram(a.edges[index_a], a.counts[index_a])
        hist_b = histdiff.clean_histogram(b.edges[index_b], b.counts[index_b])
        diff = histdiff.compare_histograms(hist_a, hist_b, bins=query.bins)
        return {
            "x": query.x,
            "at": at,
            "a": _histogram_side(query.run_a, query.tag_a, a, pos_a, index_a),
            "b": _histogram_side(query.run_b, query.tag_b, b, pos_b, index_b),
            "edges": diff.edges,
            "countsA": diff.counts_a,
            "countsB": diff.counts_b,
            "diff": diff.diff,
            "normalized": diff.normalized,
            "totalA": diff.total_a,
            "totalB": diff.total_b,
            "momentsA": dataclasses.asdict(diff.moments_a),
            "momentsB": dataclasses.asdict(diff.moments_b),
            "distances": {
                "wasserstein": diff.distances.wasserstein,
                "jensenShannon": diff.distances.jensen_shannon,
                "ks": diff.distances.ks,
                "meanDelta": diff.distances.mean_delta,
                "stdDelta": diff.distances.std_delta,
            },
        }

    def histogram_distances(self, query: HistogramQuery) -> Encoded:
        """`GET histogram_distances`: the distances over training."""
        return self._cached(
            ("histogram_distances", query),
            lambda: self._histogram_distances(query),
        )

    def _histogram_distances(self, query: HistogramQuery) -> dict[str, Any]:
        a, pos_a = self._placed_histograms(query.run_a, query.tag_a, query.x)
        b, pos_b = self._placed_histograms(query.run_b, query.tag_b, query.x)
        found = histdiff.distance_series(
            a, b, positions_a=pos_a, positions_b=pos_b, bins=query.bins
        )
        return {
            "x": query.x,
            "positions": found.positions,
            "positionsB": found.positions_b,
            "stepsA": found.steps_a,
            "stepsB": found.steps_b,
            "wasserstein": found.wasserstein,
            "jensenShannon": found.jensen_shannon,
            "ks": found.ks,
            "meanDelta": found.mean_delta,
            "stdDelta": found.std_delta,
        }

    def histogram_pairs(self, run_a: str, run_b: str) -> dict[str, Any]:
        """`GET histogram_pairs`: suggested tag pairs between two runs."""
        infos_a = self._hist_tag_infos(run_a)
        infos_b = self._hist_tag_infos(run_b)
        pairs = pairing.suggest_tag_pairs(infos_a, infos_b)
        return {
            "runA": run_a,
            "runB": run_b,
            "tagsA": [_tag_info_json(i) for i in infos_a],
            "tagsB": [_tag_info_json(i) for i in infos_b],
            "pairs": [
                {
                    "tagA": p.tag_a,
                    "tagB": p.tag_b,
                    "score": p.score,
                    "reasons": list(p.reasons),
                }
                for p in pairs
            ],
        }

    def _hist_tag_infos(self, run: str) -> list[pairing.HistTagInfo]:
        self._summary(run)  # 404 for an unknown run
        infos = []
        # First-seen order: writers log layers in model order.
        for order, tag in enumerate(self._store.histogram_tags_in_order(run)):
            series = self._store.histograms(run, tag)
            count = (
                int(round(float(series.counts[0].sum())))
                if len(series)
                else None
            )
            infos.append(pairing.HistTagInfo(tag, count or None, order))
        return infos[: pairing.MAX_PAIR_TAGS]

    def _summary(self, run: str) -> RunSummary:
        summary = self._context().summaries.get(run)
        if summary is None:
            raise NotFound(f"unknown run {run!r}")
        return summary

    def _histogram_series(self, run: str, tag: str) -> HistogramSeries:
        summary = self._summary(run)
        if tag not in summary.histogram_tags:
            raise NotFound(f"run {run!r} has no histogram tag {tag!r}")
        return self._store.histograms(run, tag)

    def _histogram_positions(
        self, run: str, tag: str, series: HistogramSeries, axis: str
    ) -> np.ndarray | Excluded:
        ctx = self._context()
        return axis_values(
            axis,
            _Positions(series.steps, series.wall_times, np.zeros(len(series))),
            tag=tag,
            epoch_map=ctx.epoch_maps[run],
            run_start_time=ctx.summaries[run].start_time,
            run_last_step=ctx.summaries[run].last_step,
        )

    def _placed_histograms(
        self, run: str, tag: str, axis: str
    ) -> tuple[HistogramSeries, np.ndarray]:
        series = self._histogram_series(run, tag)
        positions = self._histogram_positions(run, tag, series, axis)
        if isinstance(positions, Excluded):
            raise ValueError(
                f"run {run!r} has no place on axis {axis}: {positions.reason}"
            )
        return series, positions

    # Layouts.

    def layouts(self) -> dict[str, Any]:
        """`GET layouts`: user layouts and those logged in the runs."""
        per_run = {
            run: [layout for _, layout in logged]
            for run, logged in self._store.layouts().items()
        }
        imported = (
            layouts.layout_to_json(layouts.convert_imported_layouts(per_run))
            if per_run
            else None
        )
        store = self._layout_store
        return {
            "layouts": store.list() if store else [],
            "imported": imported,
            "warnings": store.warnings() if store else [],
            "path": store.path if store else None,
            "pathReason": self._layout_path_reason,
            "writable": store is not None,
            "regexEngine": safe_regex.engine_description(),
        }

    def save_layout(self, body: Any) -> dict[str, Any]:
        """`POST layouts`: validates and saves a user layout."""
        store = self._writable_layouts()
        if not isinstance(body, dict) or "layout" not in body:
            raise ValueError(
                'the body must be {"layout": {...}, "previousName": ...}'
            )
        unknown = set(body) - {"layout", "previousName", "overwrite"}
        if unknown:
            raise ValueError(f"unknown keys in the body: {sorted(unknown)}")
        previous = body.get("previousName")
        if previous is not None and not isinstance(previous, str):
            raise ValueError("previousName must be a string or null")
        overwrite = body.get("overwrite", True)
        if not isinstance(overwrite, bool):
            raise ValueError("overwrite must be true or false")
        saved = store.save(
            body["layout"], previous_name=previous, overwrite=overwrite
        )
        return {"layout": saved}

    def delete_layout(self, name: str) -> dict[str, Any]:
        """`DELETE layouts?name=`: removes a user layout."""
        store = self._writable_layouts()
        if not store.delete(name):
            raise NotFound(f"no layout named {name!r}")
        return {"deleted": name}

    def preview_layout(self, body: Any) -> dict[str, Any]:
        """`POST layout_preview`: what each chart's regexes match now.

        The layout may be half-written (its problem is in the answer), but
        the body must be `{"layout": ...}`.
        """
        if not isinstance(body, dict) or set(body) != {"layout"}:
            raise ValueError('the body must be {"layout": {...}}')
        obj = body["layout"]
        ctx = self._context()
        candidates = [
            layouts.Candidate(run, tag, _metric_name(ctx, run, tag))
            for run, summary in sorted(ctx.summaries.items())
            for tag in summary.scalar_tags
        ]
        return layouts.preview_to_json(layouts.preview_layout(obj, candidates))

    def _writable_layouts(self) -> LayoutStore:
        if self._layout_store is None:
            raise LayoutsUnavailable(
                f"layouts cannot be saved: {self._layout_path_reason}"
            )
        return self._layout_store

    # In-process callers (the `tbmf` command line).

    def selections(
        self, query: ScalarQuery
    ) -> tuple[list[Selection], list[dict[str, str]]]:
        """The (run, tag) series a `scalars` query names, and runs lacking them.

        The same series, epoch maps and run facts the routes compute with.

        Raises:
          NotFound: an unknown run, metric or tag.
        """
        return self._selections(query)

    # Anomalies.

    def anomalies(self, query: AnomalyQuery) -> Encoded:
        """`GET anomalies`: the flagged ranges of the series asked for."""
        return self._cached(
            ("anomalies", query), lambda: self.anomaly_payload(query)
        )

    def anomaly_payload(self, query: AnomalyQuery) -> dict[str, Any]:
        """The `GET anomalies` answer as a dict (for callers without HTTP,
        such as a command line)."""
        try:
            payload = self._anomalies.payload(self._context(), query)
        except NotFoundError as error:
            raise NotFound(str(error)) from None
        payload["dataVersion"] = self._store.version
        return payload


@dataclasses.dataclass(frozen=True)
class ScalarQuery:
    """Parsed arguments of `scalars` and `export`."""

    runs: tuple[str, ...]
    tag: str | None
    metric: str | None
    x: str = "step"
    smoothing: float = 0.0
    smoothing_mode: str = "ema"
    points: int = 1000
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


@dataclasses.dataclass(frozen=True)
class HistogramQuery:
    """Parsed arguments of the two-histogram routes."""

    run_a: str
    tag_a: str
    run_b: str
    tag_b: str
    x: str = "step"
    bins: int = histdiff.DEFAULT_BINS


def _metric_name(ctx: _Context, run: str, tag: str) -> str | None:
    found = canonical_metric(ctx.infos[run], tag, aliases=ctx.aliases)
    return None if found is None else found.name


def _epoch_source(emap: EpochMap | Excluded) -> str:
    if isinstance(emap, Excluded):
        return f"none: {emap.reason}"
    return emap.source


def _run_entry(
    summary: RunSummary, emap: EpochMap | Excluded
) -> dict[str, Any]:
    meta = summary.meta
    return {
        "run": meta.run,
        "group": meta.group,
        "framework": meta.framework,
        "writer": meta.writer,
        "format": meta.format,
        "displayName": meta.display_name,
        "scalarTags": list(summary.scalar_tags),
        "histogramTags": list(summary.histogram_tags),
        "otherTags": {k: list(v) for k, v in meta.other_tags.items()},
        "numPoints": summary.num_points,
        "numHistograms": summary.num_histograms,
        "firstStep": summary.first_step,
        "lastStep": summary.last_step,
        "startTime": summary.start_time,
        "endTime": summary.end_time,
        "epochSource": _epoch_source(emap),
        "hasEpochAxis": isinstance(emap, EpochMap),
        "hasLayout": summary.has_layout,
        "evidence": list(meta.evidence),
        "files": list(meta.files),
        "warnings": list(meta.warnings),
    }


def _histogram_side(
    run: str,
    tag: str,
    series: HistogramSeries,
    positions: np.ndarray,
    index: int,
) -> dict[str, Any]:
    return {
        "run": run,
        "tag": tag,
        "step": int(series.steps[index]),
        "wallTime": float(series.wall_times[index]),
        "x": float(positions[index]),
    }


def _tag_info_json(info: pairing.HistTagInfo) -> dict[str, Any]:
    return {
        "tag": info.tag,
        "elementCount": info.element_count,
        "order": info.order,
    }


# Compact arrays of the scalars answer (`encoding=b64`, docs/api.md).

# Numeric arrays of a Series, Diff, Aggregate or GroupDiff, in packing order.
_PACKED_FIELDS = (
    "x",
    "y",
    "yMin",
    "yMax",
    "smoothed",
    "steps",
    "lower",
    "upper",
    "count",
    "countBaseline",
)


def pack_arrays(entry: dict[str, Any]) -> None:
    """Replaces an entry's numeric arrays (`_PACKED_FIELDS`) by packed ones.

    Each becomes `{"dtype", "b64"}`: base64 of the little-endian values,
    `f4` when every value survives a float32 round trip exactly (values
    logged as float32, steps below 2**24; NaN and +-Inf survive), else `f8`;
    `i4` for integers in int32 range, else `f8`. An array equal value for
    value (and bit for bit once widened to float64) to a field packed
    before it becomes `{"sameAs": field}`. Nothing is rounded.
    """
    packed: dict[str, np.ndarray] = {}
    for field in _PACKED_FIELDS:
        value = entry.get(field)
        if not isinstance(value, np.ndarray):
            continue
        wide = value.astype(np.float64, copy=False)
        same = next(
            (
                name
                for name, other in packed.items()
                if other.size == wide.size
                and other.tobytes() == wide.tobytes()
                and (value.dtype.kind == "f" or _exact_in_f8(value))
            ),
            None,
        )
        if same is not None:
            entry[field] = {"sameAs": same}
            continue
        packed[field] = wide
        entry[field] = _packed(value)


def _exact_in_f8(ints: np.ndarray) -> bool:
    return bool(ints.size == 0 or np.abs(ints).max() <= 2**53)


def _packed(value: np.ndarray) -> dict[str, str]:
    if value.dtype.kind in "iu":
        info = np.iinfo(np.int32)
        if value.size == 0 or (
            value.min() >= info.min and value.max() <= info.max
        ):
            return _b64("i4", value.astype("<i4"))
        return _b64("f8", value.astype("<f8"))
    narrow = value.astype("<f4")
    with np.errstate(over="ignore"):
        exact = np.array_equal(narrow.astype(np.float64), value, equal_nan=True)
    if exact:
        return _b64("f4", narrow)
    return _b64("f8", value.astype("<f8", copy=False))


def _b64(dtype: str, array: np.ndarray) -> dict[str, str]:
    data = base64.b64encode(np.ascontiguousarray(array).tobytes())
    return {"dtype": dtype, "b64": data.decode("ascii")}


# Characters that make a spreadsheet read a cell as a formula (OWASP "CSV
# injection"): a run or tag name is written by whoever wrote the logs.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text, never runs as a formula.

    Text beginning with `= + - @`, TAB or CR gets a leading `'` (OWASP's
    advice); numbers are returned unchanged, so `-1.5` stays a number.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value
