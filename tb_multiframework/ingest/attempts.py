"""Which attempt of a run each scalar point was logged in.

A run resumed from a checkpoint logs some steps again. TensorBoard's rule
decides where a new attempt starts: a `SessionLog.START` event (torch's
`SummaryWriter(purge_step=N)` writes one at step N; TF1's Supervisor at every
session start), or a tag logging a step below the step it logged last. The
run-level attempt counter grows at each such event; a tag that goes back
after the counter already grew since its previous point (the same restart,
seen earlier on another tag) joins that attempt instead of starting one.

A file boundary matters for one thing only: the first point of a tag in a
new file at the *same* step as that tag's last point in an earlier file
starts an attempt too (a resumed script re-logging its checkpoint's step,
e.g. torch `add_scalars` sub-runs, which get no START). Within one file a
repeated step is just that (Lightning logs `epoch` three times at an epoch's
last step): the last value is shown, none starts an attempt.

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
    __slots__ = ("count", "last_step", "attempt", "file")

    def __init__(self) -> None:
        self.count = 0  # points of the tag stored so far
        self.last_step = 0
        self.attempt = 0  # attempt of its last point
        self.file = ""  # file of its last point


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
    ) -> tuple[np.ndarray, list[tuple[int, dict[str, int]]]]:
        """Attempts of a chunk's points, in logged order.

        Args:
          tags: the chunk's scalar tags; `tag_ids` index them.
          tag_ids, steps, wall_times, records: per point, in logged order
            (`records` is the record index of each point in the chunk).
          session_starts: (record index, step, wall time) of each
            `SessionLog.START` in the chunk.
          file: the file the chunk comes from.

        Returns:
          (attempt of each point, [(START step, {tag: points before it})]);
          the second part tells the store which points each START supersedes.
        """
        n = len(steps)
        backward, same, previous = self._backward(tags, tag_ids, steps, file)
        events: list[tuple[int, int, int]] = []  # (position, kind, index)
        for i in np.flatnonzero(backward).tolist():
            events.append((i, 1, i))
        positions = np.searchsorted(records, [r for r, _, _ in session_starts])
        for k, position in enumerate(np.asarray(positions).tolist()):
            events.append((int(position), 0, k))  # before the point there
        events.sort()
        base = self.attempt
        cuts: list[int] = []  # positions where the attempt grows by one
        restarts: list[tuple[int, dict[str, int]]] = []
        for position, kind, index in events:
            if kind == 0:
                _, step, wall = session_starts[index]
                if not (self._seen_points or position > 0):
                    continue  # a first attempt's own START supersedes nothing
                self._new_attempt(step, SESSION_LOG, "", wall, cuts, position)
                restarts.append(
                    (step, self._before(tags, tag_ids, position))
                )  # counts from earlier chunks are added: _remember is last
                continue
            tag = tags[int(tag_ids[index])]
            p = int(previous[index])
            prev_attempt = (
                self._tags[tag].attempt
                if p < 0
                else base + bisect.bisect_right(cuts, p)
            )
            if prev_attempt < self.attempt:
                continue  # joins the restart already seen on another tag
            self._new_attempt(
                int(steps[index]),
                STEP_RELOGGED if same[index] else STEP_DECREASE,
                tag,
                float(wall_times[index]),
                cuts,
                index,
            )
        attempts = base + np.searchsorted(
            np.asarray(cuts, dtype=np.int64), np.arange(n), side="right"
        )
        self._remember(tags, tag_ids, steps, attempts, file)
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

    def _backward(
        self,
        tags: Sequence[str],
        tag_ids: np.ndarray,
        steps: np.ndarray,
        file: str,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Points below their tag's previous step, and that previous point.

        At or below, for a tag's first point in a new file.

        Returns:
          (bool mask, the part of it at the same step, index of each point's
          previous point of the same tag in this chunk, -1 when it was in an
          earlier chunk or none).
        """
        n = len(steps)
        previous = np.full(n, -1, dtype=np.int64)
        if n == 0:
            return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool), previous
        order = np.argsort(tag_ids, kind="stable")
        ids = tag_ids[order]
        first = np.r_[True, ids[1:] != ids[:-1]]
        prev_steps = np.empty(n, dtype=np.int64)
        prev_steps[1:] = steps[order][:-1]
        carried = np.array(
            [
                (
                    self._tags[tags[i]].last_step
                    if tags[i] in self._tags
                    else np.iinfo(np.int64).min
                )
                for i in ids[first].tolist()
            ],
            dtype=np.int64,
        )
        prev_steps[first] = carried
        new_file = np.zeros(n, dtype=bool)
        new_file[first] = [
            tags[i] in self._tags and self._tags[tags[i]].file != file
            for i in ids[first].tolist()
        ]
        prev_index = np.empty(n, dtype=np.int64)
        prev_index[1:] = order[:-1]
        prev_index[first] = -1
        sorted_steps = steps[order]
        backward = np.zeros(n, dtype=bool)
        same = np.zeros(n, dtype=bool)
        same[order] = new_file & (sorted_steps == prev_steps)
        backward[order] = sorted_steps < prev_steps
        backward |= same
        previous[order] = prev_index
        return backward, same, previous

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
            state.last_step = int(steps[index])
            state.attempt = int(attempts[index])
            state.file = file
            state.count += int(counts[tag_id])
