"""What the anomaly detectors are given besides a series' own values.

Which series are looked at together (a validation series with its
training series, the ranks of a distributed run), each run's learning rate
placed at a series' own steps, and whether a series is a running mean.
These read one context (`RunsView`) and the store and keep nothing; the
finder in anomalies.py calls them and keeps what the detectors found.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import numpy as np

from tb_multiframework.core.aggregation import series_aggregation
from tb_multiframework.core.axes import EpochMap
from tb_multiframework.core.direction import is_counter, is_learning_rate
from tb_multiframework.core.groups import rank_of
from tb_multiframework.core.metrics import CanonicalMetric, MetricEntry
from tb_multiframework.core.types import AliasRule, Excluded, RunInfo
from tb_multiframework.store.store import RunSummary, ScalarSeries, Store


class RunsView(Protocol):
    """What the finder reads of the API's per-version context."""

    @property
    def summaries(self) -> Mapping[str, RunSummary]: ...

    @property
    def infos(self) -> Mapping[str, RunInfo]: ...

    @property
    def epoch_maps(self) -> Mapping[str, EpochMap | Excluded]: ...

    @property
    def aliases(self) -> tuple[AliasRule, ...]: ...

    @property
    def metrics(self) -> Mapping[str, MetricEntry]: ...

    def metric(self, run: str, tag: str) -> CanonicalMetric | None: ...


# Series looked at together.


def rank_groups(runs: Iterable[str]) -> dict[str, list[str]]:
    """Distributed runs: sibling directories named rank_N, rank-N,
    worker_N or local_rank_N, by their parent, ranks in numeric order.

    Only parents with two or more such children form a group: the same
    rule as the runs table's DDP groups (`core.groups.rank_of`), kept to
    ranks only (seed repeats are not ranks).
    """
    by_parent: dict[str, list[tuple[int, str]]] = collections.defaultdict(list)
    for run in runs:
        parent, _, base = run.rstrip("/").rpartition("/")
        rank = rank_of(base)
        if rank is not None:
            by_parent[parent].append((rank, run))
    return {
        parent or ".": [run for _, run in sorted(members)]
        for parent, members in by_parent.items()
        if len(members) >= 2
    }


def train_val_pairs(
    view: RunsView,
) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """(train, val) series of one quantity in one run group."""
    members: dict[str, dict[str, set[tuple[str, str, str | None]]]] = (
        collections.defaultdict(lambda: collections.defaultdict(set))
    )
    for entry in view.metrics.values():
        quantity, _, split = entry.name.rpartition("/")
        if split not in ("train", "val") or not quantity:
            continue
        for m in entry.members:
            members[quantity][split].add((m.run, m.tag, m.level))
    pairs = []
    for splits in members.values():
        for val_run, val_tag, val_level in sorted(splits["val"], key=str):
            group = view.infos[val_run].group
            partners = [
                (run, tag, level)
                for run, tag, level in splits["train"]
                if view.infos[run].group == group
            ]
            if not partners:
                continue
            # Same level first, then a level the naming does not say,
            # then the longest series.
            best = min(
                partners,
                key=lambda m: (
                    m[2] != val_level,
                    m[2] is not None,
                    -view.summaries[m[0]].num_points,
                    m[0],
                    m[1],
                ),
            )
            pairs.append(((best[0], best[1]), (val_run, val_tag)))
    return pairs


def rank_group_tags(view: RunsView) -> list[tuple[list[str], str]]:
    """(ranks, tag) for every tag two or more ranks of a group log."""
    out = []
    for members in rank_groups(view.summaries).values():
        tags: collections.Counter[str] = collections.Counter(
            tag for run in members for tag in view.summaries[run].scalar_tags
        )
        for tag, count in sorted(tags.items()):
            if count < 2 or is_counter(tag) or is_learning_rate(tag):
                continue
            having = [
                run for run in members if tag in view.summaries[run].scalar_tags
            ]
            out.append((having, tag))
    return out


# The learning rate beside a series.


def lr_sources(
    view: RunsView, lr_tags: Mapping[str, frozenset[str]]
) -> dict[str, tuple[str, str] | None]:
    """Per run, its learning-rate tag: its own, else one from its group
    (Keras logs it in `train`, not `validation`).

    Args:
      lr_tags: each run's learning-rate tags.
    """
    own: dict[str, str] = {}
    for run in view.summaries:
        tags = lr_tags[run]
        if tags:
            own[run] = max(tags, key=lambda t: (len(t) < 40, t))
    by_group: dict[str, list[str]] = collections.defaultdict(list)
    for run in sorted(own):
        by_group[view.infos[run].group].append(run)
    sources: dict[str, tuple[str, str] | None] = {}
    for run, info in view.infos.items():
        if run in own:
            sources[run] = (run, own[run])
        elif by_group.get(info.group):
            other = by_group[info.group][0]
            sources[run] = (other, own[other])
        else:
            sources[run] = None
    return sources


def lr_steps(
    store: Store,
    view: RunsView,
    run: str,
    tag: str,
    series: ScalarSeries,
    source: tuple[str, str],
) -> tuple[np.ndarray, np.ndarray] | None:
    """The learning rate, at steps of the series' own step counter.

    Where both sit on the epoch axis (Keras logs its rate per epoch and
    its losses per batch), the rate's epochs are turned into the
    series' steps; otherwise its steps are used as they are.

    Args:
      source: the (run, tag) of the learning rate (`lr_sources`).
    """
    lr = store.scalars(*source)
    mine = epochs_of(view, run, tag, series)
    theirs = epochs_of(view, source[0], source[1], lr)
    if mine is None or theirs is None or len(series) < 2:
        return np.asarray(lr.steps), np.asarray(lr.values)
    order = np.argsort(mine, kind="stable")
    steps = np.interp(
        theirs, mine[order], np.asarray(series.steps, float)[order]
    )
    return np.round(steps).astype(np.int64), np.asarray(lr.values)


def epochs_of(
    view: RunsView, run: str, tag: str, series: ScalarSeries
) -> np.ndarray | None:
    """A series' points on its run's epoch axis (None without one)."""
    emap = view.epoch_maps.get(run)
    if not isinstance(emap, EpochMap):
        return None
    found = emap.epochs(tag, np.asarray(series.steps))
    return None if isinstance(found, Excluded) else found


# What a series' values are.


def running_mean(info: RunInfo, tag: str, metric: Any) -> bool:
    """Whether a series is a running mean since its epoch began.

    Such a series jumps at every epoch start by design (the mean restarts),
    so spikes, plateaus and oscillations in it say nothing.
    """
    found = series_aggregation(
        info,
        tag,
        level=None if metric is None else metric.level,
        split=None if metric is None else metric.split,
    )
    return found.kind == "running_mean"
