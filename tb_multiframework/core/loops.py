"""Loops: one tag logged by several loops at several step scales.

MMEngine logs `time` from its training loop at step = iteration and from its
validation loop at step = epoch, into one tag of one file; a script may log
`loss` per batch and, under the same tag, once per epoch at the epoch
index. Such a series is no restart (nothing is logged again) and no single
curve (it zig-zags between two step scales): each loop is a series of its
own. `split_loops` tells them apart from the steps alone; the store serves
loop 0 under the raw tag and loop k under `loop_tag(tag, k)`.

numpy + stdlib only.
"""

from __future__ import annotations

import numpy as np

MAX_LOOPS = 4  # loops told apart per attempt; the rest share the last
_LOOP_OPEN, _LOOP_CLOSE = " \u27e8loop ", "\u27e9"  # "time ⟨loop 2⟩"


def loop_tag(tag: str, loop: int) -> str:
    """The name a series' second (third, ...) loop is served under.

    Loop 0 keeps the raw tag; loop k > 0 is `"<tag> ⟨loop k+1⟩"`.
    """
    return tag if loop == 0 else f"{tag}{_LOOP_OPEN}{loop + 1}{_LOOP_CLOSE}"


def parse_loop_tag(name: str) -> tuple[str, int] | None:
    """(raw tag, loop) of a name made by `loop_tag` with loop > 0, else None."""
    if not name.endswith(_LOOP_CLOSE):
        return None
    head, sep, number = name[: -len(_LOOP_CLOSE)].rpartition(_LOOP_OPEN)
    if not sep or not number.isdigit() or not head:
        return None
    loop = int(number) - 1
    if not 0 < loop < MAX_LOOPS or str(loop + 1) != number:
        return None
    return head, loop


def split_loops(steps: np.ndarray) -> np.ndarray:
    """Which loop logged each point of one attempt, from the steps alone.

    Points are dealt, in logged order, to the first loop whose largest step
    so far is at or below theirs; a point below every loop's largest step
    opens a new loop. One loop logging its steps in order is loop 0; a
    validation loop that logs the same tag at step = epoch between the
    training loop's iterations becomes a second loop instead of a zig-zag.
    Loops are then numbered by their largest step, largest first (so the
    training loop is loop 0 whichever logged first). Past `MAX_LOOPS` the
    last loop takes every remaining point.

    Args:
      steps: int64 steps of one attempt in logged order.

    Returns:
      int8 loop of each point.
    """
    n = len(steps)
    loops = np.zeros(n, dtype=np.int8)
    if n < 2:
        return loops
    rest = np.arange(n)
    for level in range(MAX_LOOPS - 1):
        sub = steps[rest]
        before = np.empty(len(sub), dtype=np.int64)
        before[0] = np.iinfo(np.int64).min
        before[1:] = np.maximum.accumulate(sub)[:-1]
        # A point at or above the running maximum of the points left is the
        # first remaining loop's; dips are left to the next loops.
        keep = sub >= before
        # The running maximum over every point left equals the first loop's:
        # the dips lie below it by definition.
        dips = rest[~keep]
        if len(dips) == 0:
            break
        loops[dips] = level + 1
        rest = dips
    count = int(loops.max()) + 1
    if count > 1:
        tops = np.full(count, np.iinfo(np.int64).min, dtype=np.int64)
        np.maximum.at(tops, loops, steps)
        rank = np.empty(count, dtype=np.int8)
        rank[np.argsort(-tops, kind="stable")] = np.arange(count)
        loops = rank[loops]
    return loops
