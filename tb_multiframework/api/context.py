"""What every request needs about the runs, derived once per data version.

`Api` (api.py) asks a `ContextBuilder` for a new `Context` whenever the
store's data version or the config changes: the run summaries and facts,
every run's epoch map (rebuilt only for run groups whose data changed), the
metric index, and the experiments' hyper-parameters and groups. The route
helpers (`scalars.py`, `histograms.py`, `anomalies.py`) read it; an
unknown run, tag, metric or layout they are asked for is `NotFound`.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

import numpy as np

from tb_multiframework.api import experiments
from tb_multiframework.api.speed import SpeedBuilder, SpeedContext
from tb_multiframework.core.aggregation import per_batch_signature
from tb_multiframework.core.axes import EpochMap, build_epoch_map
from tb_multiframework.core.metrics import (
    CanonicalMetric,
    MetricEntry,
    SplitHint,
    build_metric_index,
    cadence_split_hints,
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
from tb_multiframework.settings.config import TRAINER_NONE, Config
from tb_multiframework.store.store import RunSummary, Store


class NotFound(LookupError):
    """An unknown run, tag, metric or layout (HTTP 404)."""


@dataclasses.dataclass(frozen=True)
class Positions:
    """A histogram tag's steps and times, shaped like a scalar series.

    Lets epoch maps see histogram tags (Keras writes them at step = epoch);
    the values are each histogram's total count.
    """

    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


@dataclasses.dataclass(frozen=True)
class Context:
    """What every request needs about the runs, for one data version."""

    summaries: dict[str, RunSummary]
    infos: dict[str, RunInfo]
    epoch_maps: dict[str, EpochMap | Excluded]
    aliases: tuple[AliasRule, ...]
    metrics: dict[str, MetricEntry]
    errors: tuple[str, ...]
    experiments: experiments.Experiments
    speed: SpeedContext  # derived speed, step semantics (api/speed.py)
    # (run, tag) -> a split the data shows or the user set
    split_hints: dict[tuple[str, str], SplitHint] = dataclasses.field(
        default_factory=dict
    )
    config: Config = dataclasses.field(default_factory=Config)
    # (run, tag) -> evidence from the data that it holds per-batch values
    per_batch: PerBatch | None = None
    # Memos of `metric` (at most one entry per (run, tag) of this version).
    _metrics_of: dict[tuple[str, str], CanonicalMetric | None] = (
        dataclasses.field(default_factory=dict, repr=False, compare=False)
    )
    _tag_sets: dict[str, frozenset[str]] = dataclasses.field(
        default_factory=dict, repr=False, compare=False
    )

    def per_batch_of(self, run: str, tag: str) -> str | None:
        """Evidence from the data that (run, tag) holds per-batch values."""
        return None if self.per_batch is None else self.per_batch.get((run, tag))

    def metric(self, run: str, tag: str) -> CanonicalMetric | None:
        """The canonical metric of a (run, tag), with its split hint.

        Worked out once per context: every (run, tag) of a run with 200,000
        tags is asked for by each anomaly scan and metric page.
        """
        key = (run, tag)
        if key in self._metrics_of:
            return self._metrics_of[key]
        tags = self._tag_sets.get(run)
        if tags is None:
            tags = self._tag_sets[run] = frozenset(
                self.summaries[run].scalar_tags
            )
        found = canonical_metric(
            self.infos[run],
            tag,
            aliases=self.aliases,
            run_tags=tags,
            split_hint=self.split_hints.get(key),
        )
        self._metrics_of[key] = found
        return found


class PerBatch:
    """Per-batch signatures of series (`core.aggregation`), on demand.

    Computed the first time a series' aggregation is asked for, kept while
    its run's version stays (a dict shared by the contexts of one builder).
    """

    def __init__(
        self,
        store: Store,
        summaries: dict[str, RunSummary],
        cache: dict[tuple[str, str], tuple[int, str | None]],
    ) -> None:
        self._store = store
        self._summaries = summaries
        self._cache = cache

    def get(self, key: tuple[str, str]) -> str | None:
        """The evidence that (run, tag) holds per-batch values, or None."""
        run, tag = key
        summary = self._summaries.get(run)
        if summary is None:
            return None
        cached = self._cache.get(key)
        if cached is not None and cached[0] == summary.version:
            return cached[1]
        try:
            series = self._store.current_scalars(run, tag)
        except KeyError:
            return None
        found = per_batch_signature(series.steps, series.values)
        self._cache[key] = (summary.version, found)
        return found


class ContextBuilder:
    """Builds `Context`s, keeping the epoch maps of unchanged run groups.

    Not thread-safe: `Api` builds under its lock.

    Args:
      store: the series store.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        # run -> (its group's run versions and settings, epoch map)
        self._epoch_cache: dict[str, tuple[Any, EpochMap | Excluded]] = {}
        self._speed = SpeedBuilder(store)
        # (run, tag) -> (run version, per-batch evidence or None)
        self._signatures: dict[tuple[str, str], tuple[int, str | None]] = {}

    def figures(self) -> dict[str, int]:
        """How many entries the builder keeps across versions."""
        return {
            "epochMaps": len(self._epoch_cache),
            "perBatchSignatures": len(self._signatures),
            **self._speed.figures(),
        }

    def build(self, config: Config) -> Context:
        """The context of the store's current data under `config`."""
        errors = []
        try:
            aliases = parse_alias_rules(list(config.metric_aliases))
        except ValueError as error:
            errors.append(f"metric aliases in {config.path} not used: {error}")
            aliases = ()
        for run in self._store.runs():
            self._store.set_attempts_ignored(
                run, bool(config.for_run(run).not_resumed)
            )
        summaries = {s.meta.run: s for s in self._store.summaries()}
        infos = {
            run: RunInfo(
                run=run,
                group=s.meta.group,
                framework=s.meta.framework,
                writer=s.meta.writer,
                trainer=_trainer(s.meta.trainer, config.for_run(run).trainer),
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
        found = experiments.build_experiments(summaries, config)
        speed = self._speed.build(
            config=config,
            summaries=summaries,
            infos=infos,
            epoch_maps=epoch_maps,
            hparams={r: h.values for r, h in found.hparams.items()},
        )
        pairs += [
            (infos[run], tag)
            for run in summaries
            for tag in speed.derived_tags(run)
        ]
        splits = self._split_hints(config, summaries, infos, epoch_maps, aliases)
        entries = build_metric_index(
            pairs, aliases=aliases, level_hints=hints, split_hints=splits
        )
        return Context(
            summaries=summaries,
            infos=infos,
            epoch_maps=epoch_maps,
            aliases=aliases,
            metrics={entry.key: entry for entry in entries},
            errors=tuple(errors),
            experiments=found,
            speed=speed,
            split_hints=splits,
            config=config,
            per_batch=PerBatch(self._store, summaries, self._pruned(summaries)),
        )

    def _pruned(
        self, summaries: dict[str, RunSummary]
    ) -> dict[tuple[str, str], tuple[int, str | None]]:
        """The signature cache without runs that are gone."""
        self._signatures = {
            key: value
            for key, value in self._signatures.items()
            if key[0] in summaries
        }
        return self._signatures

    def _split_hints(
        self,
        config: Config,
        summaries: dict[str, RunSummary],
        infos: dict[str, RunInfo],
        epoch_maps: dict[str, EpochMap | Excluded],
        aliases: tuple[AliasRule, ...],
    ) -> dict[tuple[str, str], SplitHint]:
        """Splits inferred from the cadence, then the user's (which win)."""
        out: dict[tuple[str, str], SplitHint] = {}
        for run, emap in epoch_maps.items():
            if not isinstance(emap, EpochMap) or not emap.epoch_indexed_tags:
                continue
            tags = set(summaries[run].scalar_tags)
            steps = {
                tag: self._store.current_scalars(run, tag).steps.tolist()
                for tag in emap.epoch_indexed_tags
                if tag in tags
            }
            found = cadence_split_hints(infos[run], steps, aliases=aliases)
            out.update({(run, tag): hint for tag, hint in found.items()})
        for run in summaries:
            chosen = config.for_run(run).splits
            for tag, split in chosen or ():
                out[(run, tag)] = SplitHint(
                    split,
                    f"split {split or 'none'} set by you",
                    override=True,
                )
        return out

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
        if (
            override.steps_per_epoch is not None
            or override.epoch_offset
            or override.epoch_base is not None
            or override.epoch_axis is False
        ):
            setting = EpochSetting(
                steps_per_epoch=override.steps_per_epoch,
                epoch_offset=override.epoch_offset or 0.0,
                epoch_base=override.epoch_base,
                disabled=override.epoch_axis is False,
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
        own = self._store.run_scalars(run, current=True)
        # Tags whose steps are timestamps say nothing about epochs.
        judged = self._speed.semantics(
            run, self._store.summary(run).version, own
        )
        inputs.update(
            {
                t: s
                for t, s in own.items()
                if not (t in judged and judged[t].is_timestamp)
            }
        )
        for tag in self._store.summary(run).histogram_tags:
            hist = self._store.histograms(run, tag)
            inputs.setdefault(
                tag,
                Positions(
                    steps=hist.steps,
                    wall_times=hist.wall_times,
                    values=np.array([c.sum() for c in hist.counts]),
                ),
            )
        return inputs


def _trainer(detected: str, chosen: str | None) -> str:
    """The user's trainer ("none": no trainer) beats the detected one."""
    if chosen is None:
        return detected
    return "" if chosen == TRAINER_NONE else chosen


def epoch_source(emap: EpochMap | Excluded) -> str:
    """Where a run's epochs come from, or why it has none (`epochSource`)."""
    if isinstance(emap, Excluded):
        return f"none: {emap.reason}"
    return emap.source
