"""The columnar series store: every point read, per (run, tag), as numpy arrays.

Readers (ingest) append chunks; routes take immutable snapshots. Nothing is
sampled away. Scalar points are kept packed (`packing`: float32 values where
exact, steps and wall times as narrow differences), about 8 bytes a point
instead of 24, in blocks that `compact()` seals after each reload; a request
decodes the blocks of the series it reads into the int64 / float64 / float64
arrays of a `ScalarSeries`, bit for bit what was appended.

Resumed runs (see docs/conventions.md, "Resumed runs"): every scalar point
keeps the attempt it was logged in, stored as attempt boundaries per series
(attempts only grow along a series' logged order, so this costs nothing per
point). A point is *current* unless a later point of its series, or a later
`SessionLog.START`, has a step at or below its own; `current_scalars` serves
the current points, `scalars` every point.

Loops: a tag logged by two loops at two step scales (a training loop at the
iteration, a validation loop at the epoch, under one tag) is not a restart.
Each loop (`series.split_loops`) is served as a series of its own: loop 0
under the raw tag, the others as `"<tag> ⟨loop 2⟩"` (`series.loop_tag`),
listed among the run's scalar tags.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from tb_multiframework.store.packing import PackedSeries
from tb_multiframework.store.scalar_reads import ScalarReads
from tb_multiframework.store.series import (
    AttemptBook,
    Columns,
    ScalarColumns,
    ScalarSeries,
    merge_hist_column,
)


@dataclasses.dataclass(frozen=True)
class AttemptStart:
    """Where a run started a new attempt (a resume or a restart).

    Attributes:
      attempt: The attempt's index (1 for the first resume).
      step: The step it started from: a `SessionLog.START`'s step, or the
        step a tag went back to.
      cause: "session_log" (`SessionLog.START`, e.g. torch's `purge_step`)
        or "step_decrease" (a tag logged a step below its previous one).
      tag: The tag that went back ("" for a session log).
      wall_time: When the attempt started.
    """

    attempt: int
    step: int
    cause: str
    tag: str = ""
    wall_time: float = 0.0


@dataclasses.dataclass(frozen=True)
class AttemptCounts:
    """Scalar points of one attempt of a run.

    Attributes:
      attempt: Attempt index (0 = the first).
      points: Scalar points logged in it.
      superseded: Of those, points a later attempt logged again (a step at or
        below theirs): not shown by default.
      repeated: Of those, points logged again at the same step within the
        same attempt (the last one is shown).
    """

    attempt: int
    points: int
    superseded: int
    repeated: int


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
      attempt_starts: where the run was resumed or restarted.
      trainer: the training loop that wrote through the writer (lightning,
        transformers, keras_fit, paddle_hapi) or "".
      trainer_evidence: why that trainer.
      parent: the run this one is a sub-run of (torch `add_scalars` /
        `add_hparams`), or "".
      sub_run: "add_scalars" | "add_hparams" | "".
      hparams: hyper-parameter sources found in the run's files
        (`core.hparams.HParamSource`), weakest first.
      file_spans: per log file, (name, scalar points, first and last wall
        time, lowest and highest step), for the shared-directory check.
      repeated_files: files that logged steps another file logged too.
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
    attempt_starts: tuple[AttemptStart, ...] = ()
    trainer: str = ""
    trainer_evidence: tuple[str, ...] = ()
    parent: str = ""
    sub_run: str = ""
    file_spans: tuple[tuple[str, int, float, float, int, int], ...] = ()
    repeated_files: tuple[str, ...] = ()


class _Run:
    def __init__(self, meta: RunMeta) -> None:
        self.meta = meta
        self.scalars: dict[str, ScalarColumns] = {}
        self.histograms: dict[str, Columns] = {}
        self.layouts: list[tuple[int, dict[str, Any]]] = []
        self.version = 0  # grows with every change to this run
        # the user says its restarts are not resumes: one attempt
        self.attempts_ignored = False
        self.num_points = 0
        self.num_histograms = 0
        self.first_step: int | None = None
        self.last_step: int | None = None
        self.start_time: float | None = None
        self.end_time: float | None = None

    def note_points(self, steps: np.ndarray, wall_times: np.ndarray) -> None:
        if len(steps) == 0:
            return
        self.note_range(
            int(steps.min()),
            int(steps.max()),
            float(np.fmin.reduce(wall_times)),
            float(np.fmax.reduce(wall_times)),
        )

    def note_range(
        self, low: int, high: int, first: float, last: float
    ) -> None:
        """Widens the run's ranges; NaN wall times are ignored."""
        self.first_step = (
            low if self.first_step is None else min(self.first_step, low)
        )
        self.last_step = (
            high if self.last_step is None else max(self.last_step, high)
        )
        self.start_time = _fbound(np.fmin, self.start_time, first)
        self.end_time = _fbound(np.fmax, self.end_time, last)


def _fbound(pick: Any, known: float | None, new: float) -> float | None:
    if known is None:
        return None if math.isnan(new) else new
    return float(pick(known, new))


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


__all__ = [
    "AttemptCounts",
    "AttemptStart",
    "HistogramSeries",
    "RunMeta",
    "RunSummary",
    "ScalarSeries",
    "Store",
]


class Store(ScalarReads):
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
        *,
        attempts: np.ndarray | None = None,
    ) -> None:
        """Appends points (in logged order) to a run's scalar tag.

        Args:
          attempts: the attempt index of each point (non-decreasing); None
            keeps the series' current attempt.
        """
        if len(steps) == 0:
            return
        step_array = np.asarray(steps, dtype=np.int64)
        with self._lock:
            state = self._runs[run]
            columns = state.scalars.get(tag)
            if columns is None:
                columns = state.scalars[tag] = ScalarColumns()
            columns.book.note_steps(step_array, attempts, columns.count)
            columns.append(
                step_array,
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
                columns = state.histograms[tag] = Columns(4)
            columns.append(step_array, wall_array, tuple(edges), tuple(counts))
            state.num_histograms += len(step_array)
            state.note_points(step_array, wall_array)
            state.version += 1
            self._version += 1

    def restore_scalars(
        self,
        run: str,
        tag: str,
        blocks: list[PackedSeries],
        *,
        attempts: Mapping[str, Any] | None = None,
    ) -> None:
        """Puts cached blocks in as a new series of a run.

        The run's step and time ranges are not touched: `note_ranges`.

        Args:
          blocks: the series' points, packed (e.g. read from the cache).
          attempts: the series' attempt bookkeeping, from `attempt_state`.

        Raises:
          ValueError: `attempts` is malformed (nothing is changed).
        """
        try:
            book = AttemptBook.from_json(attempts) if attempts else None
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"attempts of {tag!r}: {error!r}") from None
        with self._lock:
            state = self._runs[run]
            series = state.scalars[tag] = ScalarColumns()
            series.restore(blocks)
            if book is not None:
                series.book = book
            state.num_points += series.count
            state.version += 1
            self._version += 1

    def note_ranges(
        self,
        run: str,
        ranges: tuple[int | None, int | None, float | None, float | None],
    ) -> None:
        """Widens a run's (first step, last step, start, end time)."""
        low, high, first, last = ranges
        with self._lock:
            state = self._runs[run]
            if low is not None and high is not None:
                state.note_range(
                    low,
                    high,
                    math.nan if first is None else first,
                    math.nan if last is None else last,
                )
                state.version += 1
                self._version += 1

    def scalar_blocks(self, run: str, tag: str) -> list[PackedSeries]:
        """A series' points as packed blocks (immutable), in order."""
        with self._lock:
            series = self._runs[run].scalars[tag]
            series.pack()
            return list(series.blocks)

    def attempt_state(self, run: str) -> dict[str, dict[str, Any]]:
        """Each scalar series' attempt bookkeeping, for `restore_scalars`."""
        with self._lock:
            state = self._runs[run]
            return {tag: s.book.to_json() for tag, s in state.scalars.items()}

    def series_counts(self, run: str) -> tuple[dict[str, int], dict[str, int]]:
        """Points per scalar tag and histograms per histogram tag of a run."""
        with self._lock:
            state = self._runs[run]
            return (
                {tag: s.count for tag, s in state.scalars.items()},
                {tag: c.count for tag, c in state.histograms.items()},
            )

    def add_session_start(
        self,
        run: str,
        step: int,
        before: Mapping[str, int],
        *,
        low_point: bool = False,
    ) -> None:
        """Records a `SessionLog.START` (or a restart) at `step` of a run.

        Args:
          before: per scalar tag, how many of its points were logged before
            the START; those at steps >= `step` are superseded.
          low_point: a restart confirmed after its first (low) point was
            stored: that point, the next after the counted ones, joins the
            attempt its tag's following points are in (nothing else is
            marked: that attempt supersedes what it logs again).
        """
        with self._lock:
            state = self._runs[run]
            for tag, count in before.items():
                columns = state.scalars.get(tag)
                if columns is None:
                    continue
                if low_point:
                    # The low point joins the attempt its next point is in:
                    # the earlier points it went below are then superseded
                    # by that attempt, loop by loop.
                    columns.book.note_low_start(count)
                else:
                    columns.book.note_restart(count, int(step))
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
        """Packs every series' new points now, one series at a time.

        Called after a reload so that memory holds packed blocks (histograms:
        one array per column) and requests do not pay for packing.
        """
        with self._lock:
            states = list(self._runs.values())
        for state in states:
            with self._lock:
                scalar_columns = list(state.scalars.values())
                histogram_columns = list(state.histograms.values())
            for series in scalar_columns:
                with self._lock:
                    series.pack()
            for columns in histogram_columns:
                with self._lock:
                    columns.merged(merge_hist_column)

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
            names = sorted(self._runs)
        return [self.summary(name) for name in names]

    def summary(self, run: str) -> RunSummary:
        loops = self._loop_tags(run)
        with self._lock:
            return self._summary(self._runs[run], loops)

    @staticmethod
    def _summary(state: _Run, loops: Sequence[str] = ()) -> RunSummary:
        return RunSummary(
            meta=state.meta,
            scalar_tags=tuple(sorted([*state.scalars, *loops])),
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

    def histograms(self, run: str, tag: str) -> HistogramSeries:
        """Every histogram of a tag. Raises KeyError if unknown."""
        with self._lock:
            columns = self._runs[run].histograms[tag]
            steps, walls, edges, counts = columns.merged(merge_hist_column)
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

    def data_bytes(self) -> int:
        """Bytes of the series held (packed scalars, histogram columns):
        what grows because runs grow, as opposed to caches."""
        with self._lock:
            states = list(self._runs.values())
        total = 0
        for state in states:
            with self._lock:
                total += sum(c.nbytes for c in state.scalars.values())
                total += sum(c.nbytes for c in state.histograms.values())
        return total

    def tags_by_run(self) -> Mapping[str, Iterable[str]]:
        with self._lock:
            return {
                name: tuple(state.scalars) for name, state in self._runs.items()
            }
