"""The columnar series store: every point read, per (run, tag), as numpy arrays.

Readers (ingest) append chunks; routes take immutable snapshots. Nothing is
sampled away. A snapshot of a series that grew since the last one concatenates
its chunks once and keeps only the result, so a loaded series costs 24 bytes a
scalar point (int64 step, float64 wall time, float64 value).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, Iterable, Mapping, Sequence

import numpy as np


@dataclasses.dataclass(frozen=True)
class ScalarSeries:
    """All points of one scalar tag in one run, in logged order.

    Attributes:
      steps: int64 steps.
      wall_times: float64 seconds since the Unix epoch.
      values: float64 values (float32-exact where the writer stored float32).
    """

    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.steps)


@dataclasses.dataclass(frozen=True)
class HistogramSeries:
    """All histograms of one tag in one run, in logged order.

    Attributes:
      steps: int64 steps.
      wall_times: float64 seconds since the Unix epoch.
      edges: per histogram, float64 bucket edges (N + 1, non-decreasing).
      counts: per histogram, float64 bucket counts (N).
    """

    steps: np.ndarray
    wall_times: np.ndarray
    edges: tuple[np.ndarray, ...]
    counts: tuple[np.ndarray, ...]

    def __len__(self) -> int:
        return len(self.steps)


@dataclasses.dataclass(frozen=True)
class RunMeta:
    """What ingest knows about a run besides its series.

    Attributes:
      run: TensorBoard's run name (path relative to the logdir, `/`-separated).
      group: the logical run (Keras `x/train` and `x/validation` are `x`).
      framework: pytorch | tensorflow | paddle | unknown.
      writer: the writing library, or "" when unknown.
      format: tfevents | visualdl.
      evidence: why the framework and writer were chosen.
      files: the run's files (names relative to the run directory).
      warnings: problems with the files (torn or corrupt records, ...).
      other_tags: tags of kinds this plugin does not chart, by plugin name.
      display_names: tag -> display name, where the writer gave one.
      display_name: the run's display name, where the writer gave one.
      hparams: hyper-parameter sources found in the run's files
        (`core.hparams.HParamSource`), weakest first.
    """

    run: str
    group: str
    framework: str
    writer: str
    format: str
    evidence: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    other_tags: Mapping[str, tuple[str, ...]] = dataclasses.field(
        default_factory=dict
    )
    display_names: Mapping[str, str] = dataclasses.field(default_factory=dict)
    display_name: str = ""
    hparams: tuple[Any, ...] = ()


class _Columns:
    """Growable columns of one series; chunks are merged on first read."""

    def __init__(self, width: int) -> None:
        self._chunks: list[list[Any]] = [[] for _ in range(width)]
        self._merged: tuple[Any, ...] | None = None

    def append(self, *columns: Any) -> None:
        if self._merged is not None:
            for chunks, merged in zip(self._chunks, self._merged):
                chunks[:] = [merged]
            self._merged = None
        for chunks, column in zip(self._chunks, columns):
            chunks.append(column)

    def merged(self, merge: Any) -> tuple[Any, ...]:
        if self._merged is None:
            self._merged = tuple(merge(chunks) for chunks in self._chunks)
            self._chunks = [[] for _ in self._chunks]
        return self._merged


def _concat_frozen(chunks: list[np.ndarray]) -> np.ndarray:
    array = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
    array.flags.writeable = False
    return array


def _concat_tuple(chunks: list[tuple[np.ndarray, ...]]) -> tuple[Any, ...]:
    return tuple(item for chunk in chunks for item in chunk)


class _Run:
    def __init__(self, meta: RunMeta) -> None:
        self.meta = meta
        self.scalars: dict[str, _Columns] = {}
        self.histograms: dict[str, _Columns] = {}
        self.layouts: list[tuple[int, dict[str, Any]]] = []
        self.version = 0  # grows with every change to this run
        self.num_points = 0
        self.num_histograms = 0
        self.first_step: int | None = None
        self.last_step: int | None = None
        self.start_time: float | None = None
        self.end_time: float | None = None

    def note_points(self, steps: np.ndarray, wall_times: np.ndarray) -> None:
        if len(steps) == 0:
            return
        low, high = int(steps.min()), int(steps.max())
        first, last = float(wall_times.min()), float(wall_times.max())
        self.first_step = (
            low if self.first_step is None else min(self.first_step, low)
        )
        self.last_step = (
            high if self.last_step is None else max(self.last_step, high)
        )
        self.start_time = (
            first if self.start_time is None else min(self.start_time, first)
        )
        self.end_time = (
            last if self.end_time is None else max(self.end_time, last)
        )


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """Counts and ranges of a run, for the catalog."""

    meta: RunMeta
    scalar_tags: tuple[str, ...]
    histogram_tags: tuple[str, ...]
    num_points: int
    num_histograms: int
    first_step: int | None
    last_step: int | None
    start_time: float | None
    end_time: float | None
    has_layout: bool
    version: int  # changes whenever the run's data or metadata does


class Store:
    """Thread-safe store of every run's series.

    `version` grows with every change, so callers can cache results keyed by it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, _Run] = {}
        self._version = 0

    @property
    def version(self) -> int:
        return self._version

    def set_meta(self, meta: RunMeta) -> None:
        """Creates a run or replaces its metadata."""
        with self._lock:
            run = self._runs.get(meta.run)
            if run is None:
                self._runs[meta.run] = _Run(meta)
            elif run.meta == meta:
                return
            else:
                run.meta = meta
                run.version += 1
            self._version += 1

    def append_scalars(
        self,
        run: str,
        tag: str,
        steps: np.ndarray,
        wall_times: np.ndarray,
        values: np.ndarray,
    ) -> None:
        """Appends points (in logged order) to a run's scalar tag."""
        if len(steps) == 0:
            return
        with self._lock:
            state = self._runs[run]
            columns = state.scalars.get(tag)
            if columns is None:
                columns = state.scalars[tag] = _Columns(3)
            columns.append(
                np.asarray(steps, dtype=np.int64),
                np.asarray(wall_times, dtype=np.float64),
                np.asarray(values, dtype=np.float64),
            )
            state.num_points += len(steps)
            state.note_points(steps, wall_times)
            state.version += 1
            self._version += 1

    def append_histograms(
        self,
        run: str,
        tag: str,
        steps: Sequence[int],
        wall_times: Sequence[float],
        edges: Sequence[np.ndarray],
        counts: Sequence[np.ndarray],
    ) -> None:
        """Appends histograms (in logged order) to a run's histogram tag."""
        if len(steps) == 0:
            return
        step_array = np.asarray(steps, dtype=np.int64)
        wall_array = np.asarray(wall_times, dtype=np.float64)
        for array in (*edges, *counts):
            array.flags.writeable = False
        with self._lock:
            state = self._runs[run]
            columns = state.histograms.get(tag)
            if columns is None:
                columns = state.histograms[tag] = _Columns(4)
            columns.append(step_array, wall_array, tuple(edges), tuple(counts))
            state.num_histograms += len(step_array)
            state.note_points(step_array, wall_array)
            state.version += 1
            self._version += 1

    def add_layout(self, run: str, step: int, layout: dict[str, Any]) -> None:
        """Records a custom-scalar layout logged in a run."""
        with self._lock:
            state = self._runs[run]
            state.layouts.append((step, layout))
            state.version += 1
            self._version += 1

    def compact(self) -> None:
        """Merges every series' chunks now, one series at a time.

        Called after a reload so that memory holds one array per column and
        the first request after a reload does not pay for the merging.
        """
        with self._lock:
            states = list(self._runs.values())
        for state in states:
            with self._lock:
                scalar_columns = list(state.scalars.values())
                histogram_columns = list(state.histograms.values())
            for columns in scalar_columns:
                with self._lock:
                    columns.merged(_concat_frozen)
            for columns in histogram_columns:
                with self._lock:
                    columns.merged(_merge_hist_column)

    def replace_run(self, scratch: Store, run: str) -> None:
        """Puts `scratch`'s run `run` in place of this store's, at once.

        A source that re-reads a run whole (the data provider) builds it in
        a scratch store, so requests never see it half read or missing.
        """
        with scratch._lock:
            state = scratch._runs[run]
        with self._lock:
            old = self._runs.get(run)
            if old is not None:
                state.version += old.version + 1  # never an old value
            self._runs[run] = state
            self._version += 1

    def remove_run(self, run: str) -> None:
        with self._lock:
            if self._runs.pop(run, None) is not None:
                self._version += 1

    def runs(self) -> list[str]:
        with self._lock:
            return sorted(self._runs)

    def has_run(self, run: str) -> bool:
        with self._lock:
            return run in self._runs

    def meta(self, run: str) -> RunMeta:
        """Raises KeyError for an unknown run."""
        with self._lock:
            return self._runs[run].meta

    def summaries(self) -> list[RunSummary]:
        with self._lock:
            return [
                self._summary(self._runs[name]) for name in sorted(self._runs)
            ]

    def summary(self, run: str) -> RunSummary:
        with self._lock:
            return self._summary(self._runs[run])

    @staticmethod
    def _summary(state: _Run) -> RunSummary:
        return RunSummary(
            meta=state.meta,
            scalar_tags=tuple(sorted(state.scalars)),
            histogram_tags=tuple(sorted(state.histograms)),
            num_points=state.num_points,
            num_histograms=state.num_histograms,
            first_step=state.first_step,
            last_step=state.last_step,
            start_time=state.start_time,
            end_time=state.end_time,
            has_layout=bool(state.layouts),
            version=state.version,
        )

    def scalars(self, run: str, tag: str) -> ScalarSeries:
        """Every point of a scalar tag. Raises KeyError if unknown."""
        with self._lock:
            steps, walls, values = (
                self._runs[run].scalars[tag].merged(_concat_frozen)
            )
        return ScalarSeries(steps=steps, wall_times=walls, values=values)

    def run_scalars(self, run: str) -> dict[str, ScalarSeries]:
        """Every scalar tag of a run. Raises KeyError if unknown."""
        with self._lock:
            tags = list(self._runs[run].scalars)
        return {tag: self.scalars(run, tag) for tag in tags}

    def histograms(self, run: str, tag: str) -> HistogramSeries:
        """Every histogram of a tag. Raises KeyError if unknown."""
        with self._lock:
            columns = self._runs[run].histograms[tag]
            steps, walls, edges, counts = columns.merged(_merge_hist_column)
        return HistogramSeries(
            steps=steps, wall_times=walls, edges=edges, counts=counts
        )

    def histogram_tags_in_order(self, run: str) -> list[str]:
        """A run's histogram tags in the order they were first logged."""
        with self._lock:
            return list(self._runs[run].histograms)

    def layouts(self) -> dict[str, list[tuple[int, dict[str, Any]]]]:
        """Layouts logged per run, in logged order."""
        with self._lock:
            return {
                name: list(state.layouts)
                for name, state in sorted(self._runs.items())
                if state.layouts
            }

    def tags_by_run(self) -> Mapping[str, Iterable[str]]:
        with self._lock:
            return {
                name: tuple(state.scalars) for name, state in self._runs.items()
            }


def _merge_hist_column(chunks: list[Any]) -> Any:
    if isinstance(chunks[0], tuple):
        return _concat_tuple(chunks)
    return _concat_frozen(chunks)
