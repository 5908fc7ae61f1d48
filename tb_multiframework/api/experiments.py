"""The experiment layer of the API: hyper-parameters, groups, aggregates.

Builds, from the store's run metadata and the user config, each run's merged
hyper-parameters and group (`core.hparams`, `core.groups`), and the payload
parts of `runs`, `config_diff`, `metric_summary` and the `aggregates` of
`scalars` (`core.aggregate`). `api.Api` calls these (through
`context.py` and `scalars.py`); nothing here reads files.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tb_multiframework.core import aggregate as agg
from tb_multiframework.core import groups, hparams
from tb_multiframework.core.axes import EpochMap
from tb_multiframework.core.compare import (
    PlacedSeries,
    Selection,
    buckets_for,
    place_series,
)
from tb_multiframework.core.direction import metric_direction
from tb_multiframework.core.downsample import downsample_minmax
from tb_multiframework.core.summaries import rank_spread, summarize_series
from tb_multiframework.core.types import Excluded
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import RunSummary

MAX_DIFF_RUNS = 20  # runs in one config diff


@dataclasses.dataclass(frozen=True)
class Experiments:
    """Hyper-parameters and groups of every run, for one data version."""

    hparams: Mapping[str, hparams.MergedHParams]
    groups: Mapping[str, groups.Assigned]

    def run_fields(self, run: str) -> dict[str, Any]:
        """The experiment fields of a `GET runs` entry."""
        merged = self.hparams[run]
        assigned = self.groups[run]
        return {
            "group": assigned.group,
            "groupSource": assigned.source,
            "hparams": dict(merged.values),
            "hparamsSources": dict(merged.sources),
            "configHash": merged.config_hash,
        }


def build_experiments(
    summaries: Mapping[str, RunSummary], config: Config
) -> Experiments:
    """Merges every run's hyper-parameter sources and assigns groups.

    Sources found in one run count for every run of its logical run (Keras
    `train`/`validation` and their parent directory, a torch `add_hparams`
    timestamp sub-run and its run), then the config's `hparams` apply.
    """
    known = set(summaries)
    logical = {run: summaries[run].meta.group for run in summaries}

    def pool_of(run: str) -> str:
        owner = groups.hparams_owner(run, known)
        return logical.get(owner, owner)

    pooled: dict[str, list[hparams.HParamSource]] = collections.defaultdict(
        list
    )
    for run, summary in sorted(summaries.items()):
        for source in summary.meta.hparams:
            pooled[pool_of(run)].append(dataclasses.replace(source, run=run))
    merged = {}
    facts = []
    for run, summary in summaries.items():
        override = config.for_run(run)
        sources = [
            dataclasses.replace(s, run="" if s.run == run else s.run)
            for s in pooled.get(pool_of(run), ())
        ]
        if override.hparams:
            sources.append(
                hparams.HParamSource(
                    "tbmf_config",
                    config.path or "config",
                    dict(override.hparams),
                )
            )
        merged[run] = hparams.merge_sources(sources)
        facts.append(
            groups.RunFacts(
                run=run,
                logical=logical[run],
                framework=summary.meta.framework,
                hparams=merged[run].values,
                config_group=override.group,
            )
        )
    assigned = groups.assign_groups(
        facts, groups.default_rules(config.group_rules)
    )
    return Experiments(hparams=merged, groups=assigned)


def config_diff(
    experiments: Experiments, runs: Sequence[str]
) -> dict[str, Any]:
    """`GET config_diff`: the runs' hyper-parameters side by side.

    Raises:
        ValueError: for fewer than 2, more than `MAX_DIFF_RUNS` or repeated
            runs.
    """
    if len(runs) < 2:
        raise ValueError("name at least two runs to diff")
    if len(runs) > MAX_DIFF_RUNS:
        raise ValueError(f"at most {MAX_DIFF_RUNS} runs in a config diff")
    if len(set(runs)) != len(runs):
        raise ValueError("a run is named twice")
    table = hparams.config_diff(
        {run: experiments.hparams[run].values for run in runs}
    )
    return {
        "runs": list(runs),
        "configHashes": {
            run: experiments.hparams[run].config_hash for run in runs
        },
        "keys": [
            {
                "key": entry.key,
                "values": dict(entry.values),
                "missing": [r for r in runs if not entry.present[r]],
                "differs": entry.differs,
            }
            for entry in table
        ],
    }


def group_of(
    experiments: Experiments,
    summaries: Mapping[str, RunSummary],
    run: str,
    by: str,
) -> str:
    """A run's group under a `groupBy` column."""
    meta = summaries[run].meta
    return groups.group_key(
        by,
        run=run,
        group=experiments.groups[run].group,
        framework=meta.framework,
        writer=meta.writer,
        trainer=str(getattr(meta, "trainer", "") or ""),
        hparams=experiments.hparams[run].values,
    )


@dataclasses.dataclass(frozen=True)
class AggregateQuery:
    """The aggregate arguments of `GET scalars`."""

    group_by: str
    center: str
    band: str
    baseline_group: str | None


def aggregates(
    selections: Sequence[Selection],
    group_names: Sequence[str],
    query: AggregateQuery,
    *,
    axis: str,
    smoothing: float,
    smoothing_mode: str,
    points: int | None,
    x_range: tuple[float, float] | None,
    place: Callable[
        [Selection, str, float, str], PlacedSeries | Excluded
    ] = place_series,
) -> dict[str, Any]:
    """The `aggregates` (and `groupDiffs`) of a `GET scalars` answer.

    Args:
        selections: The selected series.
        group_names: The group of each selection (same order).
        query: groupBy, aggregate, band, baselineGroup.
        axis, smoothing, smoothing_mode, points, x_range: as for scalars
          (`points` None: every grid point, no downsampling).
        place: Places a member (`place_series`, or the api's cache of it).

    Raises:
        ValueError: for too many groups or an unknown baseline group.
    """
    by_group: dict[str, list[Selection]] = collections.defaultdict(list)
    for sel, name in zip(selections, group_names, strict=True):
        by_group[name].append(sel)
    if len(by_group) > agg.MAX_GROUPS:
        raise ValueError(
            f"{len(by_group)} groups; at most {agg.MAX_GROUPS} can be "
            "aggregated at once"
        )
    baseline = query.baseline_group
    if baseline is not None and baseline not in by_group:
        raise ValueError(
            f"baseline group {baseline!r} is not among the groups "
            f"{sorted(by_group)}"
        )
    buckets = None if points is None else buckets_for(points)
    out = []
    # Curves kept for the group differences only; without a baseline each
    # group's placed series are dropped once it is aggregated, so memory
    # holds one group at a time.
    kept: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    listed: dict[str, dict[str, list[dict[str, str]]]] = {}
    for name in sorted(by_group):
        series: list[tuple[np.ndarray, np.ndarray]] = []
        members = []
        excluded = []
        for sel in by_group[name]:
            placed = place(sel, axis, smoothing, smoothing_mode)
            if isinstance(placed, Excluded):
                excluded.append({"run": sel.run.run, "reason": placed.reason})
                continue
            series.append((placed.x, placed.smoothed))
            members.append({"run": sel.run.run, "tag": sel.tag})
            del placed
        stats = agg.aggregate(series, center=query.center)
        entry = _aggregate_json(stats, query.band, buckets, x_range)
        entry.update(group=name, members=members, excluded=excluded)
        listed[name] = {"members": members, "excluded": excluded}
        out.append(entry)
        if baseline is not None:
            kept[name] = series
    diffs = []
    if baseline is not None:
        for name in sorted(by_group):
            if name == baseline:
                continue
            found = agg.group_difference(
                kept[name], kept[baseline], center=query.center, band=query.band
            )
            entry = _group_diff_json(found, buckets, x_range)
            # The group's own members, as its Aggregate lists them.
            entry.update(group=name, baselineGroup=baseline, **listed[name])
            diffs.append(entry)
    return {
        "groupBy": query.group_by,
        "aggregate": query.center,
        "band": query.band,
        "baselineGroup": baseline,
        "aggregates": out,
        "groupDiffs": diffs,
    }


def _window(
    x: np.ndarray, x_range: tuple[float, float] | None
) -> tuple[int, int]:
    if x_range is None:
        return 0, int(x.size)
    lo = int(np.searchsorted(x, x_range[0], side="left")) - 1
    hi = int(np.searchsorted(x, x_range[1], side="right")) + 1
    return max(lo, 0), min(hi, int(x.size))


def _aggregate_json(
    stats: agg.Stats,
    band: str,
    buckets: int | None,
    x_range: tuple[float, float] | None,
) -> dict[str, Any]:
    lo, hi = _window(stats.x, x_range)
    x, y = stats.x[lo:hi], stats.center[lo:hi]
    total = int(stats.x.size)
    if x.size == 0:
        return _empty_aggregate(total)
    bounds = stats.band(band)
    if buckets is None:
        return _every_point(
            x, y, bounds, lo, hi, count=stats.count[lo:hi], total=total
        )
    down = downsample_minmax(x, y, buckets=buckets)
    kept = down.indices
    lower = upper = None
    if bounds is not None:
        lower = agg.bucket_envelope(
            x, bounds[0][lo:hi], kept, buckets, low=True
        )
        upper = agg.bucket_envelope(
            x, bounds[1][lo:hi], kept, buckets, low=False
        )
    return {
        "x": down.x,
        "y": down.y,
        "yMin": down.y_min,
        "yMax": down.y_max,
        "lower": lower,
        "upper": upper,
        "count": stats.count[lo:hi][kept],
        "total": total,
        "returned": down.returned,
    }


def _every_point(
    x: np.ndarray,
    y: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray] | None,
    lo: int,
    hi: int,
    *,
    count: np.ndarray,
    total: int,
) -> dict[str, Any]:
    """An aggregate (or group difference) at full resolution: `points`
    None, which only in-process callers ask for."""
    return {
        "x": x,
        "y": y,
        "yMin": y,
        "yMax": y,
        "lower": None if bounds is None else bounds[0][lo:hi],
        "upper": None if bounds is None else bounds[1][lo:hi],
        "count": count,
        "total": int(total),
        "returned": int(x.size),
    }


def _empty_aggregate(total: int) -> dict[str, Any]:
    empty: list[float] = []
    return {
        "x": empty,
        "y": empty,
        "yMin": empty,
        "yMax": empty,
        "lower": None,
        "upper": None,
        "count": [],
        "total": total,
        "returned": 0,
    }


def _group_diff_json(
    found: agg.GroupDiff,
    buckets: int | None,
    x_range: tuple[float, float] | None,
) -> dict[str, Any]:
    lo, hi = _window(found.x, x_range)
    x, y = found.x[lo:hi], found.y[lo:hi]
    if x.size == 0:
        out = _empty_aggregate(int(found.x.size))
        out.update(separated=None, countBaseline=[])
        return out
    if buckets is None:
        bounds = None
        if found.lower is not None and found.upper is not None:
            bounds = (found.lower, found.upper)
        out = _every_point(
            x, y, bounds, lo, hi, count=found.count_a[lo:hi], total=x.size
        )
        out["total"] = int(found.x.size)
        out["countBaseline"] = found.count_b[lo:hi]
        out["separated"] = (
            None if found.separated is None else found.separated[lo:hi]
        )
        return out
    down = downsample_minmax(x, y, buckets=buckets)
    kept = down.indices
    lower = upper = separated = None
    if found.lower is not None and found.upper is not None:
        lower = agg.bucket_envelope(
            x, found.lower[lo:hi], kept, buckets, low=True
        )
        upper = agg.bucket_envelope(
            x, found.upper[lo:hi], kept, buckets, low=False
        )
    if found.separated is not None:
        # A bucket is flagged when any of its points is: no separation hides.
        flags = found.separated[lo:hi].astype(np.float64)
        separated = agg.bucket_envelope(x, flags, kept, buckets, low=False) > 0
    return {
        "x": down.x,
        "y": down.y,
        "yMin": down.y_min,
        "yMax": down.y_max,
        "lower": lower,
        "upper": upper,
        "separated": separated,
        "count": found.count_a[lo:hi][kept],
        "countBaseline": found.count_b[lo:hi][kept],
        "total": int(found.x.size),
        "returned": down.returned,
    }


def metric_summary(
    entry_key: str,
    entry_name: str,
    members: Sequence[tuple[str, str]],
    series: Mapping[tuple[str, str], Any],
    experiments: Experiments,
    epoch_maps: Mapping[str, EpochMap | Excluded] | None = None,
) -> dict[str, Any]:
    """`GET metric_summary`: last/best per run and DDP rank spreads.

    Args:
        entry_key: The metric key.
        entry_name: Its canonical name (decides the direction).
        members: (run, tag) of the metric, the first tag of each run used.
        series: (run, tag) -> the series.
        experiments: For the groups.
        epoch_maps: Each run's epoch map: what a tag's step counts
          (`stepUnit`) and the epoch positions of `lastStep`/`bestStep`.
    """
    # The API speaks of the best value as the lowest or the highest.
    direction = {"lower": "min", "higher": "max"}.get(
        metric_direction(entry_name) or ""
    )
    first: dict[str, str] = {}
    for run, tag in members:
        first.setdefault(run, tag)
    rows = []
    for run, tag in sorted(first.items()):
        s = series[(run, tag)]
        found = summarize_series(s.steps, s.values, direction=direction)
        emap = (epoch_maps or {}).get(run)
        rows.append(
            {
                "run": run,
                "tag": tag,
                "count": found.count,
                "last": found.last,
                "lastStep": found.last_step,
                "best": found.best,
                "bestStep": found.best_step,
                "stepUnit": _step_unit(emap, tag),
                "lastEpoch": _epoch_at(emap, tag, found.last_step),
                "bestEpoch": _epoch_at(emap, tag, found.best_step),
            }
        )
    ranks: dict[str, list[str]] = collections.defaultdict(list)
    for run in first:
        assigned = experiments.groups[run]
        if assigned.source == groups.SOURCE_DDP:
            ranks[assigned.group].append(run)
    spreads = []
    for group, runs in sorted(ranks.items()):
        runs.sort()
        found_spread = rank_spread(
            [
                (series[(r, first[r])].steps, series[(r, first[r])].values)
                for r in runs
            ]
        )
        spreads.append(
            {
                "group": group,
                "members": runs,
                "step": found_spread.step,
                "spread": found_spread.spread,
                "values": list(found_spread.values),
            }
        )
    return {
        "metric": entry_key,
        "name": entry_name,
        "direction": direction,
        "runs": rows,
        "rankSpread": spreads,
    }


def _step_unit(emap: EpochMap | Excluded | None, tag: str) -> str:
    """What a tag's logged step counts: `epoch` for epoch-level tags (Keras
    `epoch_*`, Paddle hapi `eval/*`), else `step`."""
    if isinstance(emap, EpochMap) and tag in emap.epoch_indexed_tags:
        return "epoch"
    return "step"


def _epoch_at(
    emap: EpochMap | Excluded | None, tag: str, step: int | None
) -> float | None:
    """A step's position on the epoch axis (epochs completed, as the chart
    places it), None without an epoch axis."""
    if step is None or not isinstance(emap, EpochMap):
        return None
    found = emap.epochs(tag, np.array([step], dtype=np.int64))
    if isinstance(found, Excluded):
        return None
    value = float(found[0])
    return value if np.isfinite(value) else None
