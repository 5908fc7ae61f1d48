"""Steps a run logged more than once (a resumed run writing a second file
that starts again at step 0, a restarted loop), for its warnings.

Every point is kept and served; this only says that some steps appear more
than once, and in how many files. It costs O(points appended) while a tag's
steps only grow: the exact count (a sort of that tag's steps) is computed
only for tags whose steps went back, and only when they got new points.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class StepRepeats:
    """Tracks, for one run, which scalar tags logged a step again."""

    def __init__(self) -> None:
        self._top: dict[str, int] = {}  # tag -> largest step seen
        self._ranges: dict[tuple[str, str], tuple[int, int]] = {}
        self._changed: set[str] = set()  # tags to count again
        self._repeated: dict[str, tuple[np.ndarray, int]] = {}
        self._warning = ""

    def add(self, file: str, tag: str, steps: np.ndarray) -> None:
        """Notes points appended to `tag` from `file`, in logged order."""
        if len(steps) == 0:
            return
        lo, hi = int(steps.min()), int(steps.max())
        old = self._ranges.get((tag, file))
        self._ranges[(tag, file)] = (
            (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
        )
        top = self._top.get(tag)
        went_back = bool(np.any(steps[1:] <= np.maximum.accumulate(steps)[:-1]))
        if went_back or (top is not None and lo <= top):
            self._changed.add(tag)
        self._top[tag] = hi if top is None else max(top, hi)

    def warning(self, steps_of: Callable[[str], np.ndarray]) -> str:
        """The run's warning, or "" when no step was logged twice.

        Args:
          steps_of: all steps of a tag, from the store.
        """
        if not self._changed:
            return self._warning
        for tag in sorted(self._changed):
            values, counts = np.unique(steps_of(tag), return_counts=True)
            twice = counts > 1
            if twice.any():
                self._repeated[tag] = (values[twice], int(counts.max()))
            else:
                self._repeated.pop(tag, None)
        self._changed.clear()
        self._warning = self._describe()
        return self._warning

    def _describe(self) -> str:
        if not self._repeated:
            return ""
        steps = np.unique(
            np.concatenate([s for s, _ in self._repeated.values()])
        )
        lo, hi = int(steps[0]), int(steps[-1])
        times = max(n for _, n in self._repeated.values())
        files = sorted(
            {
                file
                for (tag, file), (a, b) in self._ranges.items()
                if tag in self._repeated and a <= hi and b >= lo
            }
        )
        span = f"step {lo}" if lo == hi else f"steps {lo}–{hi}"
        count = "twice" if times == 2 else f"{times} times"
        where = (
            f"{len(files)} files: {', '.join(files)}"
            if len(files) > 1
            else f"in {files[0]}" if files else "one file"
        )
        tags = len(self._repeated)
        return (
            f"{span} logged {count} ({where}; {len(steps)} distinct steps, "
            f"{tags} tag{'s' if tags > 1 else ''}): a resumed or restarted "
            "run; every point is kept"
        )
