"""Training speed of every run, derived once per data version.

`SpeedBuilder` (held by `context.ContextBuilder`) computes, for the store's
current data:

- each scalar tag's step semantics (`core.step_semantics`): tags whose
  steps are timestamps are kept off the step, epoch and progress axes and
  out of the epoch maps and the step stream;
- each run's `RunSpeed` (`core.speed`) from its densest step-counted tag,
  with the run's epoch map and samples a step (`core.speed_tags`);
- the factor of logged speed tags whose unit needs converting;
- the shared-directory finding (`core.writers`) from the files' spans.

Everything is cached per run and recomputed only for runs whose version
(or epoch map, hyper-parameters or config) changed. `SpeedContext` answers
the rest of the api: derived series by (run, tag), axis exclusions, unit
factors, warnings, and the `speed` route's JSON.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from tb_multiframework.core.axes import EpochMap
from tb_multiframework.core.speed import (
    DERIVED_NOTE,
    AttemptSpan,
    DerivedSeries,
    RunSpeed,
    choose_stream,
    derive_speed,
    derived_name,
    derived_tag,
)
from tb_multiframework.core.speed_tags import (
    check_step_time_unit,
    is_batch_size_tag,
    samples_per_step,
    speed_tag,
)
from tb_multiframework.core.step_semantics import (
    StepSemantics,
    classify_steps,
    mixed_semantics_warning,
)
from tb_multiframework.core.types import Excluded, RunInfo
from tb_multiframework.core.writers import (
    FileSpan,
    SharedWriters,
    shared_writers,
)
from tb_multiframework.settings.config import Config
from tb_multiframework.store.series import ScalarSeries
from tb_multiframework.store.store import RunSummary, Store

TIME_AXES_ONLY = ("step", "epoch", "progress")  # axes a timestamp tag leaves
_MAX_STREAM_CANDIDATES = 8  # tags whose distinct steps are counted a run


@dataclasses.dataclass(frozen=True)
class RunSpeedFacts:
    """What the api derived about one run's speed and step semantics."""

    speed: RunSpeed
    semantics: Mapping[str, StepSemantics]  # tags judged (timestamps, notes)
    units: Mapping[str, tuple[float, str]]  # speed tag -> (factor, evidence)
    shared: SharedWriters | None
    warnings: tuple[str, ...]
    epoch_map: EpochMap | Excluded | None  # for derived epoch-indexed series


@dataclasses.dataclass(frozen=True)
class SpeedContext:
    """Every run's speed facts for one data version."""

    runs: Mapping[str, RunSpeedFacts]
    _converted: dict[tuple[str, str], ScalarSeries] = dataclasses.field(
        default_factory=dict, compare=False, repr=False
    )
    _lock: Any = dataclasses.field(
        default_factory=threading.Lock, compare=False, repr=False
    )

    def derived_tags(self, run: str) -> list[str]:
        facts = self.runs.get(run)
        if facts is None:
            return []
        return [derived_tag(name) for name in facts.speed.series]

    def derived_series(self, run: str, tag: str) -> DerivedSeries | None:
        facts = self.runs.get(run)
        name = derived_name(tag)
        if facts is None or name is None:
            return None
        return facts.speed.series.get(name)

    def excluded_axes(self, run: str, tag: str) -> tuple[tuple[str, str], ...]:
        """Axes a timestamp tag has no place on, with the reason."""
        facts = self.runs.get(run)
        found = None if facts is None else facts.semantics.get(tag)
        if found is None or not found.is_timestamp:
            return ()
        why = f"steps are timestamps ({found.evidence}); see it on relative or wall"
        return tuple((axis, why) for axis in TIME_AXES_ONLY)

    def epoch_map_of(
        self, run: str, tag: str, default: EpochMap | Excluded
    ) -> EpochMap | Excluded:
        facts = self.runs.get(run)
        if (
            facts is not None
            and facts.epoch_map is not None
            and derived_name(tag)
        ):
            return facts.epoch_map
        return default

    def converted(
        self, run: str, tag: str, series: ScalarSeries
    ) -> ScalarSeries:
        """A logged speed tag in its canonical unit (the same object for
        the same data, so placed-series caches keep it)."""
        facts = self.runs.get(run)
        factor = 1.0 if facts is None else facts.units.get(tag, (1.0, ""))[0]
        if factor == 1.0:
            return series
        key = (run, tag)
        with self._lock:
            found = self._converted.get(key)
            if found is not None and found.steps is series.steps:
                return found
            made = ScalarSeries(
                steps=series.steps,
                wall_times=series.wall_times,
                values=series.values * factor,
            )
            self._converted[key] = made
            return made


class SpeedBuilder:
    """Builds `SpeedContext`s, recomputing only runs that changed.

    Not thread-safe: the context builder runs under `Api`'s lock.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._semantics: dict[str, tuple[int, dict[str, StepSemantics]]] = {}
        self._facts: dict[str, tuple[Any, RunSpeedFacts]] = {}

    def figures(self) -> dict[str, int]:
        return {
            "speedSemantics": len(self._semantics),
            "speedFacts": len(self._facts),
        }

    def semantics(
        self,
        run: str,
        version: int,
        series: Mapping[str, Any] | None = None,
    ) -> dict[str, StepSemantics]:
        """The run's tags whose steps were judged (cached by version)."""
        cached = self._semantics.get(run)
        if cached is not None and cached[0] == version:
            return cached[1]
        if series is None:
            series = self._store.run_scalars(run, current=True)
        judged = {}
        for tag, points in series.items():
            found = classify_steps(points.steps, points.wall_times)
            if found.is_timestamp or found.evidence:
                judged[tag] = found
        self._semantics[run] = (version, judged)
        return judged

    def timestamp_tags(self, run: str, version: int) -> set[str]:
        return {
            tag
            for tag, s in self.semantics(run, version).items()
            if s.is_timestamp
        }

    def build(
        self,
        *,
        config: Config,
        summaries: Mapping[str, RunSummary],
        infos: Mapping[str, RunInfo],
        epoch_maps: Mapping[str, EpochMap | Excluded],
        hparams: Mapping[str, Mapping[str, Any]],
    ) -> SpeedContext:
        facts = {}
        cache = {}
        for run, summary in summaries.items():
            emap = epoch_maps[run]
            configured = config.for_run(run).samples_per_step
            params = hparams.get(run, {})
            key = (
                summary.version,
                id(emap),
                configured,
                tuple(sorted(params.items(), key=str)),
            )
            cached = self._facts.get(run)
            if cached is not None and cached[0] == key:
                facts[run] = cached[1]
            else:
                facts[run] = self._run_facts(
                    run, summary, infos[run], emap, configured, params
                )
            cache[run] = (key, facts[run])
        self._facts = cache
        self._semantics = {
            r: v for r, v in self._semantics.items() if r in summaries
        }
        return SpeedContext(runs=facts)

    def _run_facts(
        self,
        run: str,
        summary: RunSummary,
        info: RunInfo,
        emap: EpochMap | Excluded,
        configured: float | None,
        params: Mapping[str, Any],
    ) -> RunSpeedFacts:
        semantics = self.semantics(run, summary.version)
        stamped = {t for t, s in semantics.items() if s.is_timestamp}
        counts, _ = self._store.series_counts(run)
        excluded: dict[str, str] = {
            tag: f"steps are {semantics[tag].unit}" for tag in stamped
        }
        indexed = (
            emap.epoch_indexed_tags
            if isinstance(emap, EpochMap)
            else frozenset()
        )
        excluded.update(
            {tag: "step = epoch index" for tag in indexed if tag in counts}
        )
        stream, evidence = choose_stream(
            self._distinct_steps(run, counts, excluded), excluded
        )
        logged = {
            tag: self._store.current_scalars(run, tag).values.tolist()
            for tag in counts
            if is_batch_size_tag(tag)
        }
        samples, samples_source = samples_per_step(
            dict(params), logged=logged, configured=configured
        )
        speed = self._derive(
            run, stream, evidence, emap, indexed, samples, samples_source
        )
        # A logged tag of the same name wins over a derived series.
        speed = dataclasses.replace(
            speed,
            series={
                n: v
                for n, v in speed.series.items()
                if derived_tag(n) not in counts
            },
        )
        units = self._units(run, info, summary, speed)
        shared = shared_writers(
            [FileSpan(*span) for span in summary.meta.file_spans],
            summary.meta.repeated_files,
            run=run,
        )
        warnings = []
        mixed = mixed_semantics_warning(
            {t: semantics[t] for t in stamped},
            [t for t in counts if t not in stamped],
        )
        if mixed:
            warnings.append(mixed)
        if shared is not None:
            warnings.append(shared.warning)
        derived_map = None
        epoch_series = speed.series.get("time/epoch")
        if (
            epoch_series is not None
            and epoch_series.epoch_indexed
            and isinstance(emap, EpochMap)
        ):
            derived_map = dataclasses.replace(
                emap,
                epoch_indexed_tags=emap.epoch_indexed_tags
                | {derived_tag("time/epoch")},
            )
        return RunSpeedFacts(
            speed=speed,
            semantics=semantics,
            units=units,
            shared=shared,
            warnings=tuple(warnings),
            epoch_map=derived_map,
        )

    def _distinct_steps(
        self, run: str, counts: Mapping[str, int], excluded: Mapping[str, str]
    ) -> dict[str, int]:
        """Distinct current steps of the run's densest tags (by points)."""
        usable = {
            t: n for t, n in counts.items() if n >= 2 and t not in excluded
        }
        if not usable:
            return {}
        top = max(usable.values())
        dense = sorted(
            (t for t, n in usable.items() if n >= top // 2),
            key=lambda t: (-usable[t], t),
        )[:_MAX_STREAM_CANDIDATES]
        # Current points have increasing steps (conventions.md, "Resumed
        # runs"): their number is the distinct steps, no decoding needed
        # when every point is current.
        out = {}
        for tag in dense:
            found = self._store.scalar_attempts(run, tag)
            out[tag] = (
                usable[tag] if found is None else int(found.current.sum())
            )
        return out

    def _derive(
        self,
        run: str,
        stream: str,
        evidence: str,
        emap: EpochMap | Excluded,
        indexed: frozenset[str],
        samples: float | None,
        samples_source: str,
    ) -> RunSpeed:
        ends = self._epoch_ends(run, indexed)
        if not stream:
            return derive_speed(
                "",
                np.empty(0, np.int64),
                np.empty(0),
                epoch_ends=ends,
                epoch_source=emap.source if isinstance(emap, EpochMap) else "",
                samples_per_step=samples,
                samples_source=samples_source,
                evidence=evidence,
            )
        series = self._store.current_scalars(run, stream)
        found = self._store.scalar_attempts(run, stream)
        attempts = None if found is None else found.attempts[found.current]
        spans = None
        if found is not None:
            every = self._store.scalars(run, stream)
            spans = [
                AttemptSpan(
                    a,
                    float(every.wall_times[mine].min()),
                    float(every.wall_times[mine].max()),
                    int(every.steps[mine].min()),
                    int(every.steps[mine].max()),
                )
                for a in np.unique(found.attempts).tolist()
                for mine in [found.attempts == a]
            ]
        epoch_x = None
        source = ""
        if isinstance(emap, EpochMap):
            placed = emap.epochs(stream, series.steps)
            if isinstance(placed, Excluded):
                source = f"none: {placed.reason}"
            else:
                epoch_x, source = placed, emap.source
        else:
            source = f"none: {emap.reason}"
        return derive_speed(
            stream,
            series.steps,
            series.wall_times,
            attempts=attempts,
            epoch_x=epoch_x,
            epoch_ends=ends,
            epoch_source=source,
            samples_per_step=samples,
            samples_source=samples_source,
            evidence=evidence,
            attempt_spans=spans,
        )

    def _epoch_ends(
        self, run: str, indexed: frozenset[str]
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(epoch index, first wall time) of points at step = epoch index."""
        first: dict[int, float] = {}
        for tag in indexed:
            try:
                series = self._store.current_scalars(run, tag)
            except KeyError:
                continue  # a histogram tag
            for step, wall in zip(
                series.steps.tolist(), series.wall_times.tolist()
            ):
                if step >= 0 and (step not in first or wall < first[step]):
                    first[step] = wall
        if len(first) < 2:
            return None
        index = np.array(sorted(first), np.int64)
        return index, np.array([first[i] for i in index.tolist()])

    def _units(
        self, run: str, info: RunInfo, summary: RunSummary, speed: RunSpeed
    ) -> dict[str, tuple[float, str]]:
        """Factor and evidence of every logged speed tag of the run."""
        tags = frozenset(summary.scalar_tags)
        out = {}
        for tag in summary.scalar_tags:
            found = speed_tag(info, tag, run_tags=tags)
            if found is None:
                continue
            factor, note = found.factor, found.what
            if found.check_unit or found.name == "gpu/utilization":
                values = self._store.current_scalars(run, tag).values
                values = values[np.isfinite(values)]
                if values.size and found.check_unit:
                    factor, note = check_step_time_unit(
                        float(np.median(values)), speed.median_step_time
                    )
                elif (
                    values.size
                    and found.unit == "%"
                    and 0 < values.max() <= 1.0
                ):
                    factor, note = 100.0, (
                        f"values lie within 0–1 (max {values.max():.3g}): a "
                        "fraction, × 100 to percent"
                    )
            out[tag] = (factor, note)
        return out


def series_of(speed: SpeedContext, store: Store, run: str, tag: str) -> Any:
    """A (run, tag)'s current points: the store's (a speed tag in its
    canonical unit) or a series derived from wall time.

    Raises:
      KeyError: neither.
    """
    if derived_name(tag) is not None and not _logged(store, run, tag):
        found = speed.derived_series(run, tag)
        if found is None:
            raise KeyError(tag)
        return found
    return speed.converted(run, tag, store.current_scalars(run, tag))


def _logged(store: Store, run: str, tag: str) -> bool:
    return tag in store.summary(run).scalar_tags


def speed_json(run: str, facts: RunSpeedFacts) -> dict[str, Any]:
    """One run's entry of the `speed` route."""
    s = facts.speed
    return {
        "run": run,
        "stream": s.stream,
        "streamEvidence": s.stream_evidence,
        "loggedEvery": s.logged_every,
        "intervals": s.intervals,
        "medianStepTime": s.median_step_time,
        "steadyStepTime": s.steady_step_time,
        "meanStepTime": s.mean_step_time,
        "stepsPerSecond": s.steps_per_second,
        "samplesPerStep": s.samples_per_step,
        "samplesSource": s.samples_source,
        "samplesPerSecond": s.samples_per_second,
        "totalSeconds": s.total_seconds,
        "trainingSeconds": s.training_seconds,
        "warmups": [
            {
                "attempt": w.attempt,
                "step": w.step,
                "endStep": w.end_step,
                "seconds": w.seconds,
                "excess": w.excess,
            }
            for w in s.warmups
        ],
        "stalls": [
            {
                "step": x.step,
                "endStep": x.end_step,
                "seconds": x.seconds,
                "excess": x.excess,
                "kind": x.kind,
            }
            for x in s.stalls
        ],
        "stallsDropped": s.stalls_dropped,
        "epochs": [
            {"epoch": e.epoch, "seconds": e.seconds, "endStep": e.end_step}
            for e in s.epochs
        ],
        "medianEpochSeconds": s.median_epoch_seconds,
        "epochSource": s.epoch_source,
        "derived": [
            {
                "metric": name,
                "tag": derived_tag(name),
                "points": len(series.steps),
            }
            for name, series in s.series.items()
        ],
        "note": DERIVED_NOTE,
        "stepSemantics": [
            {
                "tag": tag,
                "kind": sem.kind,
                "unit": sem.unit,
                "origin": sem.origin,
                "evidence": sem.evidence,
            }
            for tag, sem in sorted(facts.semantics.items())
        ],
        "loggedSpeedTags": [
            {"tag": tag, "factor": factor, "evidence": note}
            for tag, (factor, note) in sorted(facts.units.items())
        ],
        "sharedWriters": (
            None
            if facts.shared is None
            else {
                "files": list(facts.shared.files),
                "processes": facts.shared.processes,
                "evidence": list(facts.shared.evidence),
            }
        ),
        "warnings": list(facts.warnings),
    }


def with_speed(
    entry: dict[str, Any], facts: RunSpeedFacts | None
) -> dict[str, Any]:
    """A `runs` entry with its `speed` summary (the Runs table's columns)
    and the speed warnings (timestamp steps, shared directory)."""
    if facts is None:
        entry["speed"] = None
        return entry
    entry["warnings"] = list(entry.get("warnings", ())) + list(facts.warnings)
    entry["speed"] = _speed_summary(facts)
    return entry


def _speed_summary(facts: RunSpeedFacts) -> dict[str, Any]:
    s = facts.speed
    return {
        "medianStepTime": s.median_step_time,
        "stepsPerSecond": s.steps_per_second,
        "samplesPerSecond": s.samples_per_second,
        "totalSeconds": s.total_seconds,
        "trainingSeconds": s.training_seconds,
        "intervals": s.intervals,
        "medianEpochSeconds": s.median_epoch_seconds,
        "stalls": len([x for x in s.stalls if x.kind != "resume"]),
        "stream": s.stream,
        "timestampTags": sorted(
            t for t, sem in facts.semantics.items() if sem.is_timestamp
        ),
        "sharedWriters": (
            None if facts.shared is None else list(facts.shared.files)
        ),
    }
