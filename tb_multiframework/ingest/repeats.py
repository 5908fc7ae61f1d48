"""Steps a run logged again in another file (a resumed run writing a second
file that starts again at step 0, a restarted loop), for its warnings.

Every point is kept and served; this only says that some steps appear in
more than one file, and which. Repeats inside one file are not a restart:
PyTorch Lightning logs its `epoch` counter three times at each epoch's last
step, the HF Trainer its `train/epoch` at evaluation and logging steps, and
a resumed run always opens a new file. It costs O(points appended): each
(tag, file) keeps its step range, and the exact count (a sort of that tag's
steps) is computed only for tags whose files' ranges overlap, and only when
they got new points.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


class StepRepeats:
    """Tracks, for one run, which scalar tags a later file logged again."""

    def __init__(self) -> None:
        # tag -> file -> (lowest, highest) step, files in first-seen order
        self._ranges: dict[str, dict[str, tuple[int, int]]] = {}
        self._changed: set[str] = set()  # tags to count again
        # tag -> (its steps logged again, most times one was, files); plain
        # Python values, so that the reader state can be cached.
        self._repeated: dict[str, tuple[list[int], int, list[str]]] = {}
        self._warning = ""
        # file -> [points, first wall, last wall, lowest step, highest step]
        # of its scalar points (for the shared-directory check, core/writers)
        self._spans: dict[str, list[float]] = {}

    def add(
        self,
        file: str,
        tag: str,
        steps: np.ndarray,
        wall_times: np.ndarray | None = None,
    ) -> None:
        """Notes points appended to `tag` from `file`, in logged order."""
        if len(steps) == 0:
            return
        if wall_times is not None:
            self._note_span(file, steps, wall_times)
        lo, hi = int(steps.min()), int(steps.max())
        files = self._ranges.setdefault(tag, {})
        old = files.get(file)
        files[file] = (
            (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
        )
        low, high = files[file]
        if any(
            other != file and a <= high and b >= low
            for other, (a, b) in files.items()
        ):
            self._changed.add(tag)

    def _note_span(
        self, file: str, steps: np.ndarray, wall_times: np.ndarray
    ) -> None:
        spans = getattr(self, "_spans", None)
        if spans is None:  # reader state cached before spans were kept
            spans = self._spans = {}
        walls = wall_times[np.isfinite(wall_times)]
        lo_w = float(walls.min()) if walls.size else math.inf
        hi_w = float(walls.max()) if walls.size else -math.inf
        new = [
            float(len(steps)),
            lo_w,
            hi_w,
            int(steps.min()),
            int(steps.max()),
        ]
        old = spans.get(file)
        if old is not None:
            new = [
                old[0] + new[0],
                min(old[1], new[1]),
                max(old[2], new[2]),
                min(old[3], new[3]),
                max(old[4], new[4]),
            ]
        spans[file] = new

    def file_spans(self) -> list[tuple[str, int, float, float, int, int]]:
        """(file, points, first wall, last wall, lowest step, highest step)
        of every file's scalar points, in file-name order."""
        spans = getattr(self, "_spans", None) or {}
        return [
            (name, int(p), w0, w1, int(s0), int(s1))
            for name, (p, w0, w1, s0, s1) in sorted(spans.items())
        ]

    def repeated_files(self) -> list[str]:
        """Files involved in steps logged again by another file."""
        return sorted(
            {f for _, _, names in self._repeated.values() for f in names}
        )

    def warning(self, steps_of: Callable[[str], np.ndarray]) -> str:
        """The run's warning, or "" when no file logged a step again.

        Args:
          steps_of: all steps of a tag, from the store.
        """
        if not self._changed:
            return self._warning
        for tag in sorted(self._changed):
            found = self._count(tag, steps_of(tag))
            if found is None:
                self._repeated.pop(tag, None)
            else:
                self._repeated[tag] = found
        self._changed.clear()
        self._warning = self._describe()
        return self._warning

    def _count(
        self, tag: str, steps: np.ndarray
    ) -> tuple[list[int], int, list[str]] | None:
        """Steps of `tag` inside two files' ranges and logged more than
        once, the most times one was logged, and the files involved."""
        files = list(self._ranges[tag].items())
        inside = np.zeros(len(steps), dtype=bool)
        involved: set[str] = set()
        for i, (name_a, (a_lo, a_hi)) in enumerate(files):
            for name_b, (b_lo, b_hi) in files[i + 1 :]:
                lo, hi = max(a_lo, b_lo), min(a_hi, b_hi)
                if lo <= hi:
                    inside |= (steps >= lo) & (steps <= hi)
                    involved.update((name_a, name_b))
        values, counts = np.unique(steps[inside], return_counts=True)
        twice = counts > 1
        if not twice.any():
            return None
        return values[twice].tolist(), int(counts.max()), sorted(involved)

    def _describe(self) -> str:
        if not self._repeated:
            return ""
        steps = np.unique(
            np.concatenate(
                [np.asarray(s, np.int64) for s, _, _ in self._repeated.values()]
            )
        )
        lo, hi = int(steps[0]), int(steps[-1])
        times = max(n for _, n, _ in self._repeated.values())
        files = sorted(
            {f for _, _, names in self._repeated.values() for f in names}
        )
        span = f"step {lo}" if lo == hi else f"steps {lo}–{hi}"
        count = "twice" if times == 2 else f"{times} times"
        tags = len(self._repeated)
        return (
            f"{span} logged {count} ({len(files)} files: {', '.join(files)}; "
            f"{len(steps)} distinct step{'s' if len(steps) > 1 else ''}, "
            f"{tags} tag{'s' if tags > 1 else ''}): a resumed or restarted "
            "run; every point is kept"
        )
