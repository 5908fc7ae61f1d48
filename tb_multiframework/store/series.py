"""What the store keeps a series in: packed scalar blocks, histogram chunks.

`ScalarColumns` holds one scalar series as packed blocks (`packing`) plus
the points not packed yet, and its attempt bookkeeping (`AttemptBook`, see
`current_points`); `Columns` holds histogram rows in chunks merged on first
read. `decode_blocks` turns packed blocks back into a `ScalarSeries`.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Mapping, Sequence

import numpy as np

from tb_multiframework.core.loops import split_loops
from tb_multiframework.store.packing import PackedSeries, pack_series


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
class SeriesAttempts:
    """The attempt facts of one scalar series.

    Attributes:
      attempts: int attempt index of every point, in logged order.
      current: bool, the points shown by default (one per step and loop).
      superseded: bool, points a later attempt superseded.
      loops: int loop of every point within its attempt (0: the loop with
        the largest steps; 1, 2, ...: loops logging the same tag at smaller
        steps, e.g. a validation loop's step = epoch beside the training
        loop's step = iteration).
    """

    attempts: np.ndarray
    current: np.ndarray
    superseded: np.ndarray
    loops: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros(0, dtype=np.int8)
    )

    @property
    def num_loops(self) -> int:
        """Loops of the series (1 when one loop logs it)."""
        return int(self.loops.max()) + 1 if len(self.loops) else 1


_NO_STEP = np.iinfo(np.int64).max  # "no later step" in suffix minima
def current_points(
    steps: np.ndarray,
    boundaries: Sequence[tuple[int, int]],
    restarts: Sequence[tuple[int, int]],
) -> SeriesAttempts:
    """Which points of a series are current, superseded or repeated.

    Within an attempt each loop (`split_loops`) is a series of its own: a
    point is not current when a later point of its loop logs its step again
    (*repeated*; the last one is shown). A point is *superseded* when a
    later attempt logged its step again in the same loop, or a later
    `SessionLog.START` (or a confirmed restart) is at or below its step
    (TensorBoard's rule for restarts, applied without deleting anything and
    without letting one loop hide another's points).

    Args:
      steps: int64 steps in logged order.
      boundaries: (index of the first point, attempt) of each attempt run in
        the series, increasing.
      restarts: (points logged before it, step) of each `SessionLog.START`
        or restart confirmed after its first point was stored.

    Returns:
      Per-point attempt index, loops and current/superseded masks.
    """
    n = len(steps)
    attempts = np.zeros(n, dtype=np.int32)
    for start, attempt in boundaries:
        attempts[start:] = attempt
    if n == 0:
        empty = np.zeros(0, dtype=bool)
        return SeriesAttempts(attempts, empty, empty, np.zeros(0, np.int8))
    cuts = [start for start, _ in boundaries if 0 < start < n]
    edges = [0, *cuts, n]
    loops = np.zeros(n, dtype=np.int8)
    for lo, hi in zip(edges[:-1], edges[1:]):
        loops[lo:hi] = split_loops(steps[lo:hi])
    current = np.ones(n, dtype=bool)
    superseded = np.zeros(n, dtype=bool)
    for loop in np.unique(loops).tolist():
        mine = np.flatnonzero(loops == loop)
        sub = steps[mine]
        later = np.empty(len(sub), dtype=np.int64)
        later[-1] = _NO_STEP
        later[:-1] = np.minimum.accumulate(sub[::-1])[::-1][1:]
        current[mine] = sub < later
        # Later attempts' minimum step of this loop after each point.
        seg = np.searchsorted(np.asarray(cuts, dtype=np.int64), mine, "right")
        later_attempts = np.full(len(sub), _NO_STEP, dtype=np.int64)
        tail = _NO_STEP
        for k in range(len(edges) - 2, -1, -1):
            here = seg == k
            later_attempts[here] = tail
            if here.any():
                tail = min(tail, int(sub[here].min()))
        superseded[mine] = sub >= later_attempts
    for before, step in restarts:
        hit = steps[:before] >= step
        superseded[:before] |= hit
        current[:before] &= ~hit
    current &= ~superseded
    return SeriesAttempts(attempts, current, superseded & ~current, loops)


class Columns:
    """Growable columns of one series; chunks are merged on first read."""

    def __init__(self, width: int) -> None:
        self._chunks: list[list[Any]] = [[] for _ in range(width)]
        self._merged: tuple[Any, ...] | None = None
        self.count = 0  # rows appended

    def append(self, *columns: Any) -> None:
        if self._merged is not None:
            for chunks, merged in zip(self._chunks, self._merged):
                chunks[:] = [merged]
            self._merged = None
        for chunks, column in zip(self._chunks, columns):
            chunks.append(column)
        self.count += len(columns[0])

    def merged(self, merge: Any) -> tuple[Any, ...]:
        if self._merged is None:
            self._merged = tuple(merge(chunks) for chunks in self._chunks)
            self._chunks = [[] for _ in self._chunks]
        return self._merged

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays held (merged or not)."""
        held = [*(self._merged or ()), *(c for chunks in self._chunks for c in chunks)]
        return sum(_array_bytes(column) for column in held)


def _array_bytes(column: Any) -> int:
    if isinstance(column, tuple):
        return sum(_array_bytes(item) for item in column)
    return int(getattr(column, "nbytes", 0))


_BLOCK_POINTS = 1 << 16  # a block is merged with new points up to this size


class AttemptBook:
    """A scalar series' attempt boundaries and restarts (see `current_points`).

    Costs nothing per point until a series restarts; then the per-point
    facts are computed on first use and kept until the series changes.
    """

    def __init__(self) -> None:
        self.last_step: int | None = None
        self.strict = True  # steps strictly increase, no restart so far
        self.boundaries: list[tuple[int, int]] = []  # (first index, attempt)
        self.restarts: list[tuple[int, int]] = []  # (points before, step)
        self._attempts: SeriesAttempts | None = None

    def note_steps(
        self, steps: np.ndarray, attempts: np.ndarray | None, count: int
    ) -> None:
        """Keeps the attempt boundaries and whether steps stayed increasing.

        Args:
          count: points the series had before these.
        """
        if len(steps) == 0:
            return
        if self.strict:
            first = int(steps[0])
            self.strict = (
                self.last_step is None or first > self.last_step
            ) and bool(np.all(np.diff(steps) > 0))
        if attempts is not None:
            last = self.boundaries[-1][1] if self.boundaries else 0
            changes = np.flatnonzero(np.diff(attempts)) + 1
            starts = [0, *changes.tolist()]
            for index in starts:
                attempt = int(attempts[index])
                if attempt != last or (not self.boundaries and attempt):
                    self.boundaries.append((count + index, attempt))
                    last = attempt
        self.last_step = int(steps[-1])
        self._attempts = None

    def note_restart(self, before: int, step: int) -> None:
        if before > 0:
            self.restarts.append((before, step))
            self.strict = False
            self._attempts = None

    def note_low_start(self, index: int) -> None:
        """Moves the last attempt's start back to point `index`: the low
        point of a restart, read before the point that confirmed it."""
        for k in range(len(self.boundaries) - 1, -1, -1):
            first, attempt = self.boundaries[k]
            if first == index + 1:
                if k == 0 or self.boundaries[k - 1][0] < index:
                    self.boundaries[k] = (index, attempt)
                    self._attempts = None
                return
            if first <= index:
                return

    @property
    def trivial(self) -> bool:
        """Every point is current (no restart, steps increasing)."""
        return self.strict and not self.boundaries

    def frozen(self) -> tuple[Any, ...]:
        """What `current_points` needs, as of now (for use off the lock)."""
        return (tuple(self.boundaries), tuple(self.restarts))

    def cached(self, count: int) -> SeriesAttempts | None:
        """The attempt facts computed for the first `count` points, if kept."""
        found = self._attempts
        if found is None or len(found.attempts) != count:
            return None
        return found

    def keep(self, found: SeriesAttempts, count: int, state: Any) -> None:
        """Keeps facts computed off the lock, if the series has not moved."""
        if state == self.frozen() and len(found.attempts) == count:
            self._attempts = found

    def attempts(self, steps: np.ndarray) -> SeriesAttempts | None:
        """The series' attempt facts; None when every point is current and
        one loop logged them."""
        if self.trivial:
            return None
        found = self.cached(len(steps))
        if found is None:
            found = self._attempts = current_points(
                steps, self.boundaries, self.restarts
            )
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "lastStep": self.last_step,
            "strict": self.strict,
            "boundaries": self.boundaries,
            "restarts": self.restarts,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> AttemptBook:
        book = AttemptBook()
        last = data["lastStep"]
        book.last_step = None if last is None else int(last)
        book.strict = bool(data["strict"])
        book.boundaries = [(int(a), int(b)) for a, b in data["boundaries"]]
        book.restarts = [(int(a), int(b)) for a, b in data["restarts"]]
        return book


class ScalarColumns:
    """One scalar series: packed blocks, plus points not yet packed.

    Blocks from a persistent cache are never repacked; the
    last block packed here grows by merging until `_BLOCK_POINTS`.
    """

    def __init__(self) -> None:
        self.blocks: list[PackedSeries] = []
        self.sealed = 0  # leading blocks not to repack (from the cache)
        self.count = 0  # points, packed or not
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.book = AttemptBook()
        # The last decoded arrays, while someone (a request, the placed
        # cache) still holds them: handing out the very same arrays again
        # costs no decoding and keeps identity-keyed caches valid. Weak, so
        # the store itself keeps only the packed form.
        self._decoded: tuple[int, tuple[weakref.ref[Any], ...]] | None = None

    def decoded(self) -> ScalarSeries | None:
        """The arrays last decoded, if still alive and still every point."""
        if self._decoded is None or self._decoded[0] != self.count:
            return None
        steps, walls, values = (ref() for ref in self._decoded[1])
        if steps is None or walls is None or values is None:
            return None
        return ScalarSeries(steps=steps, wall_times=walls, values=values)

    def remember(self, series: ScalarSeries, count: int) -> None:
        """Notes `series` as the decoding of the first `count` points."""
        self._decoded = (
            count,
            tuple(
                weakref.ref(a)
                for a in (series.steps, series.wall_times, series.values)
            ),
        )

    def append(
        self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray
    ) -> None:
        self._pending.append((steps, walls, values))
        self.count += len(steps)

    def pack(self) -> None:
        """Packs the pending points into the last block or a new one."""
        if not self._pending:
            return
        columns = [np.concatenate(c) for c in zip(*self._pending)]
        self._pending = []
        if (
            len(self.blocks) > self.sealed
            and len(self.blocks[-1]) + len(columns[0]) <= _BLOCK_POINTS
        ):
            last = self.blocks.pop().decode()
            columns = [np.concatenate(pair) for pair in zip(last, columns)]
        self.blocks.append(pack_series(*columns))

    def restore(self, blocks: list[PackedSeries]) -> None:
        """Puts cached blocks first (the series must be empty)."""
        assert self.count == 0, "restore into an empty series only"
        self.blocks = list(blocks)
        self.sealed = len(blocks)
        self.count = sum(len(b) for b in blocks)

    @property
    def nbytes(self) -> int:
        return sum(block.nbytes for block in self.blocks) + sum(
            a.nbytes for chunk in self._pending for a in chunk
        )


def decode_blocks(blocks: Sequence[PackedSeries]) -> ScalarSeries:
    """A series' points, unpacked into read-only int64/float64 arrays."""
    parts = [block.decode() for block in blocks]
    if len(parts) == 1:
        columns = list(parts[0])
    elif parts:
        columns = [np.concatenate(c) for c in zip(*parts)]
    else:
        columns = [np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)]
    for array in columns:
        array.flags.writeable = False
    return ScalarSeries(
        steps=columns[0], wall_times=columns[1], values=columns[2]
    )


def concat_frozen(chunks: list[np.ndarray]) -> np.ndarray:
    array = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
    array.flags.writeable = False
    return array


def _concat_tuple(chunks: list[tuple[np.ndarray, ...]]) -> tuple[Any, ...]:
    return tuple(item for chunk in chunks for item in chunk)


def merge_hist_column(chunks: list[Any]) -> Any:
    if isinstance(chunks[0], tuple):
        return _concat_tuple(chunks)
    return concat_frozen(chunks)
