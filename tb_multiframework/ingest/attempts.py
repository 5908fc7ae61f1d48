"""Which attempt of a run each scalar point was logged in.

A run resumed from a checkpoint logs some steps again. A new attempt starts
on positive evidence that steps are logged again:

* a `SessionLog.START` event (torch's `SummaryWriter(purge_step=N)` writes
  one at step N; TF1's Supervisor at every session start);
* the first point of a tag in a *new file* (a new writer: a restarted
  process) at or below the largest step that tag logged before;
* within one file, a tag going below its largest step *and going on from
  there*: its next point lies above the low one and at or below the old
  largest step, so a range of steps is logged again.

A point below a tag's largest step that is followed by a point *above* that
largest step is no restart: another loop logs the same tag at another step
scale (MMEngine logs `time` from the training loop at the iteration and from
the validation loop at the epoch). Such points stay current; the store
serves each loop as its own series (`store.series.split_loops`). A low point
that is the last one read so far waits for the next point of its tag (the
next chunk) to be decided; until then it counts as another loop's.

The run-level attempt counter grows at each restart; a tag that goes back
after the counter already grew since its previous point (the same restart,
seen earlier on another tag) joins that attempt instead of starting one.
Within one file a repeated step is just that (Lightning logs `epoch` three
times at an epoch's last step): the last value is shown, none starts an
attempt.

Steps of different tags need not share units (Keras logs `epoch_*` at the
epoch index and `batch_*` at the iteration), so the step *a restart starts
from* is kept per tag by the store: a point is superseded by a later point of
its own tag at or below its step, or by a later START at or below it.

Points are ordered by the files' read order (file names sorted, each file in
order), which is their logged order for a run written by one process at a
time. Nothing here drops a point; the store keeps every one.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np

from tb_multiframework.store.store import AttemptStart

SESSION_LOG = "session_log"
STEP_DECREASE = "step_decrease"
STEP_RELOGGED = "step_relogged"  # the same step again, in a new file


class _Tag:
    __slots__ = ("count", "last_step", "attempt", "file", "top", "pending")

    def __init__(self) -> None:
        self.count = 0  # points of the tag stored so far
        self.last_step = 0
        self.attempt = 0  # attempt of its last point
        self.file = ""  # file of its last point
        self.top = 0  # its largest step since its attempt began
        # (low step, largest step before it, points stored before it, its
        # wall time) of a last point read below the largest step, not
        # decided yet
        self.pending: tuple[int, int, int, float] | None = None


class _Restart:
    """A chunk point where a tag starts logging steps again."""

    __slots__ = ("index", "cause", "step", "before", "wall")

    def __init__(
        self,
        index: int,
        cause: str,
        step: int,
        before: int = -1,
        wall: float | None = None,
    ) -> None:
        self.index = index  # the point in the chunk
        self.cause = cause
        self.step = step  # the step the tag went back to
        # points of the tag stored before the low point, when that point was
        # read in an earlier chunk (they are superseded from `step` on)
        self.before = before
        self.wall = wall  # the low point's wall time, when read before


class AttemptTracker:
    """Assigns attempts to one run's scalar points, chunk after chunk."""

    def __init__(self) -> None:
        self.attempt = 0
        self.starts: list[AttemptStart] = []
        self._tags: dict[str, _Tag] = {}
        self._seen_points = False

    def assign(
        self,
        tags: Sequence[str],
        tag_ids: np.ndarray,
        steps: np.ndarray,
        wall_times: np.ndarray,
        records: np.ndarray,
        session_starts: Sequence[tuple[int, int, float]],
        *,
        file: str = "",
    ) -> tuple[np.ndarray, list[tuple[int, dict[str, int], bool]]]:
        """Attempts of a chunk's points, in logged order.

        Args:
          tags: the chunk's scalar tags; `tag_ids` index them.
          tag_ids, steps, wall_times, records: per point, in logged order
            (`records` is the record index of each point in the chunk).
          session_starts: (record index, step, wall time) of each
            `SessionLog.START` in the chunk.
          file: the file the chunk comes from.

        Returns:
          (attempt of each point, [(step, {tag: points before it}, low)]):
          the second part tells the store which points each START (low
          False) or each restart whose low point came in an earlier chunk
          (low True: that point, the tag's next after the counted ones,
          opens the new attempt) supersedes.
        """
        n = len(steps)
        found, previous, tops, pending = self._restarts(
            tags, tag_ids, steps, wall_times, file
        )
        by_index = {r.index: r for r in found}
        events: list[tuple[int, int, int]] = []  # (position, kind, index)
        for i in sorted(by_index):
            events.append((i, 1, i))
        positions = np.searchsorted(records, [r for r, _, _ in session_starts])
        for k, position in enumerate(np.asarray(positions).tolist()):
            events.append((int(position), 0, k))  # before the point there
        events.sort()
        base = self.attempt
        cuts: list[int] = []  # positions where the attempt grows by one
        restarts: list[tuple[int, dict[str, int], bool]] = []
        for position, kind, index in events:
            if kind == 0:
                _, step, wall = session_starts[index]
                if not (self._seen_points or position > 0):
                    continue  # a first attempt's own START supersedes nothing
                self._new_attempt(step, SESSION_LOG, "", wall, cuts, position)
                restarts.append(
                    (step, self._before(tags, tag_ids, position), False)
                )  # counts from earlier chunks are added: _remember is last
                continue
            tag = tags[int(tag_ids[index])]
            p = int(previous[index])
            prev_attempt = (
                self._tags[tag].attempt
                if p < 0
                else base + bisect.bisect_right(cuts, p)
            )
            restart = by_index[index]
            if restart.before >= 0:
                # The low point was stored with the chunk before: it opens
                # this point's attempt, and the earlier points it went below
                # are superseded from its step on.
                restarts.append((restart.step, {tag: restart.before}, True))
            if prev_attempt < self.attempt:
                continue  # joins the restart already seen on another tag
            self._new_attempt(
                restart.step,
                restart.cause,
                tag,
                float(wall_times[index]) if restart.wall is None else restart.wall,
                cuts,
                index,
            )
        attempts = base + np.searchsorted(
            np.asarray(cuts, dtype=np.int64), np.arange(n), side="right"
        )
        self._remember(tags, tag_ids, steps, attempts, file, tops, pending)
        return attempts, restarts

    def _new_attempt(
        self,
        step: int,
        cause: str,
        tag: str,
        wall: float,
        cuts: list[int],
        position: int,
    ) -> None:
        self.attempt += 1
        cuts.append(position)
        self.starts.append(AttemptStart(self.attempt, step, cause, tag, wall))

    def _restarts(
        self,
        tags: Sequence[str],
        tag_ids: np.ndarray,
        steps: np.ndarray,
        wall_times: np.ndarray,
        file: str,
    ) -> tuple[
        list[_Restart],
        np.ndarray,
        dict[int, int],
        dict[int, tuple[int, int, int, float] | None],
    ]:
        """The chunk's points where a tag starts logging steps again.

        Returns:
          (the restarts, index of each point's previous point of the same
          tag in this chunk or -1, each tag's largest step since its
          attempt began after the chunk, each tag's undecided low point).
        """
        n = len(steps)
        previous = np.full(n, -1, dtype=np.int64)
        found: list[_Restart] = []
        tops: dict[int, int] = {}
        pending: dict[int, tuple[int, int, int, float] | None] = {}
        if n == 0:
            return found, previous, tops, pending
        order = np.argsort(tag_ids, kind="stable")
        ids = tag_ids[order]
        bounds = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1], True])
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            where = order[lo:hi]
            previous[where[1:]] = where[:-1]
            tag_id = int(ids[lo])
            state = self._tags.get(tags[tag_id])
            mine = steps[where]
            tops[tag_id], pending[tag_id] = self._tag_restarts(
                state, where, mine, wall_times[where], file, found
            )
        return found, previous, tops, pending

    @staticmethod
    def _tag_restarts(
        state: _Tag | None,
        where: np.ndarray,
        mine: np.ndarray,
        walls: np.ndarray,
        file: str,
        found: list[_Restart],
    ) -> tuple[int, tuple[int, int, int, float] | None]:
        """One tag's restarts in a chunk; (its largest step, undecided point)."""
        known = state is not None
        top = state.top if state is not None else int(mine[0])
        pending = state.pending if state is not None else None
        new_file = state is not None and state.file != file
        high = int(mine.max())
        if not new_file and pending is None and (not known or top <= high):
            # Fast path: no point below the running largest step.
            running = np.maximum.accumulate(mine)
            below = mine[1:] < running[:-1]
            if not (known and int(mine[0]) < top) and not below.any():
                return max(top, high), None
        count = state.count if state is not None else 0
        values = mine.tolist()
        positions = where.tolist()
        for k, step in enumerate(values):
            if k == 0 and pending is not None:
                low, old_top, before, wall = pending
                pending = None
                if low < step <= old_top:
                    found.append(
                        _Restart(positions[0], STEP_DECREASE, low, before, wall)
                    )
                    top = step
                    continue
            if k == 0 and new_file and step <= top:
                cause = STEP_RELOGGED if step == top else STEP_DECREASE
                found.append(_Restart(positions[0], cause, step))
                top = step
                continue
            if (known or k > 0) and step < top:
                if k + 1 < len(values):
                    if step < values[k + 1] <= top:
                        found.append(
                            _Restart(positions[k], STEP_DECREASE, step)
                        )
                        top = step
                    # else: another loop's point, or decided by the next one
                    continue
                pending = (step, top, count + k, float(walls[k]))
                continue
            top = max(top, step)
        return top, pending

    def _before(
        self, tags: Sequence[str], tag_ids: np.ndarray, position: int
    ) -> dict[str, int]:
        """Stored points of each tag logged before chunk point `position`."""
        out = {tag: state.count for tag, state in self._tags.items()}
        head = tag_ids[:position]
        if len(head):
            counts = np.bincount(head, minlength=len(tags))
            for i in np.flatnonzero(counts).tolist():
                out[tags[i]] = out.get(tags[i], 0) + int(counts[i])
        return {tag: count for tag, count in out.items() if count}

    def _remember(
        self,
        tags: Sequence[str],
        tag_ids: np.ndarray,
        steps: np.ndarray,
        attempts: np.ndarray,
        file: str,
        tops: dict[int, int],
        pending: dict[int, tuple[int, int, int, float] | None],
    ) -> None:
        if len(steps) == 0:
            return
        self._seen_points = True
        # The last point of each tag in this chunk.
        reverse = tag_ids[::-1]
        ids, last = np.unique(reverse, return_index=True)
        last = len(tag_ids) - 1 - last
        counts = np.bincount(tag_ids, minlength=len(tags))
        for tag_id, index in zip(ids.tolist(), last.tolist()):
            state = self._tags.setdefault(tags[tag_id], _Tag())
            state.top = tops[tag_id]
            state.pending = pending[tag_id]
            state.last_step = int(steps[index])
            state.attempt = int(attempts[index])
            state.file = file
            state.count += int(counts[tag_id])
