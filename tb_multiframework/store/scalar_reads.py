"""How the store serves a run's scalar series: loops and attempts.

`ScalarReads` is the reading half of `Store` (store.py): every point of a
raw tag as read (`all_points`), a tag logged by several loops served as one
series per loop (`core.loops`: loop 0 under the raw tag, loop k under
`"<tag> ⟨loop k+1⟩"`), and each series' current points (one per step and
loop; earlier attempts' points a later attempt logged again are
superseded). Computed on first use from the steps and the attempt
bookkeeping ingest recorded, never stored.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from tb_multiframework.core.loops import loop_tag, parse_loop_tag
from tb_multiframework.store.series import (
    ScalarSeries,
    SeriesAttempts,
    current_points,
    decode_blocks,
)

if TYPE_CHECKING:
    from tb_multiframework.store.store import (
        AttemptCounts,
        RunSummary,
        _Run,
    )


class ScalarReads:
    """The scalar-reading methods of `Store` (it holds `_lock`, `_runs`)."""

    _lock: threading.Lock
    _runs: dict[str, _Run]
    _version: int

    def summary(self, run: str) -> RunSummary:  # defined by Store
        raise NotImplementedError

    def _loop_tags(self, run: str) -> list[str]:
        """The extra names of series logged by several loops (`loop_tag`)."""
        with self._lock:
            state = self._runs[run]
            maybe = [
                tag
                for tag, columns in state.scalars.items()
                if not columns.book.strict
            ]
        names: list[str] = []
        for tag in maybe:
            found = self._attempts(run, tag)
            if found is None:
                continue
            names.extend(loop_tag(tag, k) for k in range(1, found.num_loops))
        with self._lock:
            real = self._runs[run].scalars
            return [name for name in names if name not in real]

    def raw_scalar_tags(self, run: str) -> list[str]:
        """A run's scalar tags as logged (no loop names), sorted."""
        with self._lock:
            return sorted(self._runs[run].scalars)

    def loop_tags(self, run: str) -> dict[str, tuple[str, int]]:
        """A run's loop names -> (raw tag, loop). Raises KeyError if unknown."""
        return {
            name: found
            for name in self._loop_tags(run)
            if (found := parse_loop_tag(name)) is not None
        }

    def scalars(self, run: str, tag: str) -> ScalarSeries:
        """Every point of a scalar tag (of its loop). Raises KeyError if unknown.

        A tag logged by several loops serves loop 0 under its raw name and
        loop k under `loop_tag(tag, k)`.
        """
        return self.scalar_view(run, tag)[0]

    def scalar_view(
        self, run: str, tag: str
    ) -> tuple[ScalarSeries, SeriesAttempts | None]:
        """Every point of a served tag and its attempt facts, one version.

        Both come from one snapshot of the series, so the masks always have
        the series' length even while a reader appends (read under two
        locks, they once disagreed: a 500 under load). The attempt facts
        are None when every point is current.

        Raises:
          KeyError: an unknown run or tag.
        """
        base, loop = self._resolve(run, tag)
        every, found = self._view(run, base)
        if found is None or found.num_loops == 1:
            if loop:
                raise KeyError(tag)
            return every, found
        keep = found.loops == loop
        if not keep.any():
            raise KeyError(tag)
        return _subset(every, keep), SeriesAttempts(
            found.attempts[keep],
            found.current[keep],
            found.superseded[keep],
            found.loops[keep],
        )

    def _resolve(self, run: str, tag: str) -> tuple[str, int]:
        """(raw tag, loop) of a served name. Raises KeyError if unknown."""
        with self._lock:
            state = self._runs[run]
            if tag in state.scalars:
                return tag, 0
        found = parse_loop_tag(tag)
        if found is None:
            raise KeyError(tag)
        with self._lock:
            if found[0] not in self._runs[run].scalars:
                raise KeyError(tag)
        return found

    def all_points(self, run: str, tag: str) -> ScalarSeries:
        """Every point of a raw tag as read: every loop and attempt, in
        logged order. Raises KeyError if unknown."""
        return self._view(run, tag)[0]

    def _view(
        self, run: str, tag: str
    ) -> tuple[ScalarSeries, SeriesAttempts | None]:
        """A raw tag's points and attempt facts (every loop), one snapshot.

        Decoding and `current_points` run outside the lock (blocks are
        immutable); what they were computed from is taken under it at once.
        """
        with self._lock:
            state = self._runs[run]
            series = state.scalars[tag]
            found = series.decoded()
            if found is None:
                series.pack()
                blocks = list(series.blocks)
            count = series.count
            book = series.book
            ignored = state.attempts_ignored
            trivial = book.trivial
            attempts = None if trivial or ignored else book.cached(count)
            frozen = book.frozen()
        if found is None:
            found = decode_blocks(blocks)
            with self._lock:
                series.remember(found, count)
        if trivial:
            return found, None
        if ignored:
            return found, current_points(found.steps, (), ())
        if attempts is None:
            attempts = current_points(found.steps, *frozen)
            with self._lock:
                book.keep(attempts, count, frozen)
        return found, attempts

    def run_scalars(
        self, run: str, *, current: bool = False
    ) -> dict[str, ScalarSeries]:
        """Every scalar tag (and loop) of a run. Raises KeyError if unknown.

        Args:
          current: only the current points (see `current_scalars`).
        """
        tags = self.summary(run).scalar_tags
        get = self.current_scalars if current else self.scalars
        return {tag: get(run, tag) for tag in tags}

    def _attempts(self, run: str, tag: str) -> SeriesAttempts | None:
        """A raw tag's attempt facts, every loop; None when all are current."""
        return self._view(run, tag)[1]

    def set_attempts_ignored(self, run: str, ignored: bool) -> None:
        """Reads a run as one attempt (the user says it was not resumed):
        every point current, steps logged again shown as loops."""
        with self._lock:
            state = self._runs.get(run)
            if state is None or state.attempts_ignored == ignored:
                return
            state.attempts_ignored = ignored
            state.version += 1
            self._version += 1

    def scalar_attempts(self, run: str, tag: str) -> SeriesAttempts | None:
        """A series' attempts and current points; None when all are current.

        For a tag logged by several loops, the facts of the loop it names
        (aligned with `scalars(run, tag)`). Raises KeyError if unknown.
        """
        return self.scalar_view(run, tag)[1]

    def current_scalars(self, run: str, tag: str) -> ScalarSeries:
        """The points shown by default: one per step (and loop), the latest.

        Raises KeyError if unknown.
        """
        series, found = self.scalar_view(run, tag)
        if found is None or bool(found.current.all()):
            return series
        return _subset(series, found.current)

    def attempt_counts(self, run: str) -> list[AttemptCounts]:
        """Scalar points per attempt of a run, superseded ones counted.

        Raises KeyError if unknown.
        """
        from tb_multiframework.store.store import AttemptCounts  # noqa: PLC0415

        with self._lock:
            tags = list(self._runs[run].scalars)
        totals: dict[int, list[int]] = {}
        for tag in tags:
            with self._lock:
                columns = self._runs[run].scalars[tag]
                book = columns.book
                attempt = book.boundaries[-1][1] if book.boundaries else 0
                count = columns.count
                trivial = book.trivial
            # Every point current: counted without decoding the series
            # (`runs` asks this of every tag of every run).
            found = None if trivial else self._attempts(run, tag)
            if found is None:
                totals.setdefault(attempt, [0, 0, 0])[0] += count
                continue
            repeated = ~found.current & ~found.superseded
            for attempt in np.unique(found.attempts).tolist():
                mine = found.attempts == attempt
                entry = totals.setdefault(int(attempt), [0, 0, 0])
                entry[0] += int(mine.sum())
                entry[1] += int((found.superseded & mine).sum())
                entry[2] += int((repeated & mine).sum())
        return [
            AttemptCounts(attempt, *totals[attempt])
            for attempt in sorted(totals)
        ]


def _subset(series: ScalarSeries, keep: np.ndarray) -> ScalarSeries:
    return ScalarSeries(
        steps=series.steps[keep],
        wall_times=series.wall_times[keep],
        values=series.values[keep],
    )
