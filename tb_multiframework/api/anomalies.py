"""`GET anomalies`: the findings of core/anomalies for the runs of a logdir.

`Api.anomalies` (service.py) answers the route through `AnomalyFinder.payload`,
which the command line can call as well (no HTTP involved). What is looked
at, per run and scalar tag:

- the series itself (`detect_series`), with the run's learning rate, which
  explains cliffs, steps and plateaus;
- a validation series with the training series of the same quantity in
  the same run group (`loss/val` with `loss/train`, from the metric index):
  overfitting and drift;
- the same tag in the sibling rank directories of a distributed run
  (`rank_0`, `rank_1`, ...): rank_desync.

Results are kept per series (and per pair and group) with the versions of
the runs they were computed from, so a live run recomputes only its own
series and an unchanged logdir answers from memory; a request's budget
leaves the series it cannot reach `pending`.

This module is that orchestration: which series a query names, the kept
results, the budget. Which series go together and what is read beside
one (learning rate, running means) is `anomaly_inputs.py`; one finding's
JSON entry is `anomaly_entries.py`; the detectors are core/anomalies.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from tb_multiframework.api.anomaly_entries import entry_json
from tb_multiframework.api.anomaly_inputs import (
    RunsView,
    epochs_of,
    lr_sources,
    lr_steps,
    rank_group_tags,
    rank_groups,
    running_mean,
    train_val_pairs,
)
from tb_multiframework.core import anomalies as core
from tb_multiframework.core.aggregation import convert_batch_values
from tb_multiframework.core.anomalies import Anomaly
from tb_multiframework.core.axes import EpochMap
from tb_multiframework.core.budget import Budget
from tb_multiframework.core.direction import (
    is_counter,
    is_learning_rate,
    metric_direction,
)
from tb_multiframework.store.store import Store

# Names other modules import from here, wherever they are defined.
__all__ = [
    "MAX_ANOMALIES",
    "AnomalyFinder",
    "AnomalyQuery",
    "NotFoundError",
    "RunsView",
    "rank_groups",
]

MAX_ANOMALIES = 5000  # findings in one answer; more are counted, not listed
# A series that is a running mean since its epoch began (Keras' batch_*
# metrics, Paddle hapi's train metrics other than the loss) jumps at every
# epoch start by design: not a cliff, a spike, a plateau or an oscillation.
# Its per-batch values (derived through the epoch map) are read instead;
# without an epoch map those kinds are not looked for.
_RUNNING_MEAN_SKIPS = frozenset({"spike", "oscillation", "plateau", "cliff"})


class NotFoundError(LookupError):
    """An unknown run, tag or metric."""


class _Deferred(Exception):
    """A result not computed: the request's work budget is spent."""


@dataclasses.dataclass(frozen=True)
class AnomalyQuery:
    """Parsed arguments of `GET anomalies`.

    Attributes:
        runs: runs to report (empty: every run).
        tag: a raw scalar tag, or None.
        metric: a metric key (`loss/train@batch`), or None.
        kinds: kinds to report (None: all).
        x: the axis of each finding's `x` range.
    """

    runs: tuple[str, ...] = ()
    tag: str | None = None
    metric: str | None = None
    kinds: frozenset[str] | None = None
    x: str = "step"


class AnomalyFinder:
    """Runs the detectors over a store's series and keeps what they found.

    Args:
        store: the series store.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._cache: dict[Hashable, tuple[Hashable, Any]] = {}
        self._local = threading.local()  # this request's budget
        # The last view's learning-rate sources and tags (`_lr_of`).
        self._lr_kept: tuple[Any, ...] | None = None

    # The answer.

    def payload(
        self,
        view: RunsView,
        query: AnomalyQuery,
        budget: Budget | None = None,
    ) -> dict[str, Any]:
        """The `GET anomalies` answer for a query.

        Args:
          budget: how long new results may be computed (kept ones cost
            nothing); series left when it runs out are counted in
            `pending` and looked at by the next request. None: no limit.

        Raises:
            NotFoundError: an unknown run, tag or metric.
            ValueError: an unknown kind or axis.
        """
        wanted = core.parse_kinds(query.kinds)
        self.forget_missing(view.summaries)
        targets = self._targets(view, query)
        self._local.budget = budget
        self._local.deferred = set()
        try:
            findings = self._findings(view, targets)
        finally:
            deferred = self._local.deferred
            self._local.budget = self._local.deferred = None
        entries: list[tuple[str, str, Anomaly]] = []
        counts: dict[str, int] = {run: 0 for run, _ in targets}
        for run, tag in targets:
            for anomaly in findings.get((run, tag), ()):
                if anomaly.kind not in wanted:
                    continue
                counts[run] += 1
                if len(entries) < MAX_ANOMALIES:
                    entries.append((run, tag, anomaly))
        total = sum(counts.values())
        return {
            "x": query.x,
            "anomalies": [
                entry_json(self._store, view, run, tag, anomaly, query.x)
                for run, tag, anomaly in entries
            ],
            "counts": {run: n for run, n in sorted(counts.items()) if n},
            "total": total,
            "truncated": total > len(entries),
            "series": len(targets),
            # Series whose findings are not in this answer yet: the work
            # budget ran out first; ask again for the rest.
            "pending": len(deferred),
        }

    def _targets(
        self, view: RunsView, query: AnomalyQuery
    ) -> list[tuple[str, str]]:
        for run in query.runs:
            if run not in view.summaries:
                raise NotFoundError(f"unknown run {run!r}")
        runs = list(query.runs) or sorted(view.summaries)
        if query.metric is not None:
            entry = view.metrics.get(query.metric)
            if entry is None:
                raise NotFoundError(f"unknown metric {query.metric!r}")
            chosen = set(runs)
            return sorted(
                (m.run, m.tag) for m in entry.members if m.run in chosen
            )
        if query.tag is not None:
            found = [
                (run, query.tag)
                for run in runs
                if query.tag in view.summaries[run].scalar_tags
            ]
            if not found:
                raise NotFoundError(
                    f"no {'selected ' if query.runs else ''}run has scalar "
                    f"tag {query.tag!r}"
                )
            return found
        return [
            (run, tag)
            for run in runs
            for tag in view.summaries[run].scalar_tags
        ]

    # Finding, with the results kept per series, pair and group.

    def _findings(
        self, view: RunsView, targets: list[tuple[str, str]]
    ) -> dict[tuple[str, str], list[Anomaly]]:
        found: dict[tuple[str, str], list[Anomaly]] = collections.defaultdict(
            list
        )
        wanted_runs = {run for run, _ in targets}
        lr_sources, lr_tags = self._lr_of(view)
        deferred = self._local.deferred
        budget = getattr(self._local, "budget", None)
        for run, tag in targets:
            if (
                budget is not None
                and not budget.alive()
                and not self._kept(("series", run, tag))
            ):
                # Out of budget: not even the series' preamble (its metric
                # name, aggregation) is worked out; the next request will.
                deferred.add((run, tag))
                continue
            lr_source = None if tag in lr_tags[run] else lr_sources[run]
            try:
                found[(run, tag)].extend(
                    self._series(view, run, tag, lr_source)
                )
            except _Deferred:
                deferred.add((run, tag))
        for train, val in train_val_pairs(view):
            if train[0] not in wanted_runs and val[0] not in wanted_runs:
                continue
            try:
                on_train, on_val = self._pair(view, train, val)
            except _Deferred:
                deferred.update((train, val))
                continue
            found[train].extend(on_train)
            found[val].extend(on_val)
        for members, tag in rank_group_tags(view):
            if not wanted_runs.intersection(members):
                continue
            try:
                results = self._group(view, members, tag)
            except _Deferred:
                deferred.update((run, tag) for run in members)
                continue
            for run, items in zip(members, results):
                found[(run, tag)].extend(items)
        asked = set(targets)
        deferred &= asked
        return {
            key: core.resolve(items)
            for key, items in found.items()
            if key in asked and key not in deferred
        }

    def _remember(
        self, key: Hashable, version: Hashable, compute: Callable[[], Any]
    ) -> Any:
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and cached[0] == version:
            return cached[1]
        budget = getattr(self._local, "budget", None)
        if budget is not None and not budget.alive():
            raise _Deferred
        value = compute()
        with self._lock:
            self._cache[key] = (version, value)
        return value

    def _kept(self, key: Hashable) -> bool:
        """Whether a result is kept under `key` (of whatever version)."""
        with self._lock:
            return key in self._cache

    @property
    def kept(self) -> int:
        """How many results are kept."""
        return len(self._cache)

    def forget_missing(self, runs: Iterable[str]) -> None:
        """Drops what was kept for runs that no longer exist."""
        alive = set(runs)
        with self._lock:
            for key in [k for k in self._cache if not _runs_of(k) <= alive]:
                del self._cache[key]

    def _series(
        self,
        view: RunsView,
        run: str,
        tag: str,
        lr_source: tuple[str, str] | None,
    ) -> list[Anomaly]:
        info = view.infos[run]
        metric = view.metric(run, tag)
        name = tag if metric is None else metric.name
        if metric is None and tag.startswith(("custom_scalars", "_hparams_")):
            return []
        kinds: set[str] = set(core.SERIES_KINDS)
        unroll = False
        if is_counter(name) or is_learning_rate(name):
            kinds = {"nonfinite"}  # a schedule or a counter is not trained
        elif running_mean(info, tag, metric):
            unroll = isinstance(view.epoch_maps[run], EpochMap)
            if not unroll:
                kinds -= _RUNNING_MEAN_SKIPS
        version = (
            view.summaries[run].version,
            None if lr_source is None else view.summaries[lr_source[0]].version,
            name,
            frozenset(kinds),
            unroll and view.epoch_maps[run].source,  # type: ignore[union-attr]
        )

        def compute() -> list[Anomaly]:
            series = self._store.scalars(run, tag)
            values = series.values
            if unroll:
                converted = convert_batch_values(
                    "running_mean",
                    "per_batch",
                    tag=tag,
                    steps=series.steps,
                    values=series.values,
                    epoch_map=view.epoch_maps[run],
                )
                if converted.values is not None:
                    values = converted.values
                else:
                    kinds.difference_update(_RUNNING_MEAN_SKIPS)
            lr = None
            if lr_source is not None:
                lr = lr_steps(self._store, view, run, tag, series, lr_source)
            return core.detect_series(
                series.steps,
                values,
                direction=metric_direction(name),
                validation=name.endswith(("/val", "/test")),
                lr=lr,
                kinds=kinds,
            )

        return list(self._remember(("series", run, tag), version, compute))

    def _lr_of(
        self, view: RunsView
    ) -> tuple[
        dict[str, tuple[str, str] | None], dict[str, frozenset[str]]
    ]:
        """`lr_sources` and each run's learning-rate tags, worked out once
        per view (a request used to test every tag of every run's name)."""
        with self._lock:
            kept = self._lr_kept
        if kept is not None and kept[0] is view:
            return kept[1], kept[2]
        lr_tags = {
            run: frozenset(t for t in summary.scalar_tags if is_learning_rate(t))
            for run, summary in view.summaries.items()
        }
        sources = lr_sources(view, lr_tags)
        with self._lock:
            self._lr_kept = (view, sources, lr_tags)
        return sources, lr_tags

    def _pair(
        self,
        view: RunsView,
        train: tuple[str, str],
        val: tuple[str, str],
    ) -> tuple[list[Anomaly], list[Anomaly]]:
        version = (
            view.summaries[train[0]].version,
            view.summaries[val[0]].version,
        )

        def compute() -> tuple[list[Anomaly], list[Anomaly]]:
            a = self._store.scalars(*train)
            b = self._store.scalars(*val)
            xa = epochs_of(view, train[0], train[1], a)
            xb = epochs_of(view, val[0], val[1], b)
            axis = "epoch" if xa is not None and xb is not None else "step"
            name = view.metric(val[0], val[1])
            return core.detect_pair(
                (a.steps, a.values),
                (b.steps, b.values),
                direction=None if name is None else metric_direction(name.name),
                train_x=xa if axis == "epoch" else None,
                val_x=xb if axis == "epoch" else None,
                axis=axis,
            )

        return self._remember(("pair", train, val), version, compute)

    def _group(
        self, view: RunsView, members: list[str], tag: str
    ) -> list[list[Anomaly]]:
        version = tuple(view.summaries[run].version for run in members)

        def compute() -> list[list[Anomaly]]:
            series = [self._store.scalars(run, tag) for run in members]
            name = view.metric(members[0], tag)
            return core.detect_group(
                [(s.steps, s.values) for s in series],
                names=[run.rpartition("/")[2] for run in members],
                direction=None if name is None else metric_direction(name.name),
            )

        return self._remember(("group", tuple(members), tag), version, compute)


def _runs_of(key: Hashable) -> set[str]:
    """The runs a cache key depends on."""
    if not isinstance(key, tuple) or not key:
        return set()
    kind = key[0]
    if kind == "series":
        return {key[1]}
    if kind == "pair":
        return {key[1][0], key[2][0]}
    if kind == "group":
        return set(key[1])
    return set()
