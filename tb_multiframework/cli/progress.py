"""The progress bar `tbmf` shows on stderr while it reads a slow logdir."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import TextIO

PROGRESS_AFTER_S = 1.0  # seconds of reading before the progress bar shows
_PROGRESS_TICK_S = 0.1  # seconds between redraws


class Progress:
    """A progress bar on stderr, drawn only once reading takes a while.

    `update(done, total)` may be called from the reading thread as often as
    it likes; a background thread redraws at most every 0.1 s, starting
    after `PROGRESS_AFTER_S`, and clears the line at the end.
    """

    def __init__(
        self, label: str, *, enabled: bool, stream: TextIO | None = None
    ) -> None:
        self._label = label
        self._enabled = enabled
        self._stream = stream or sys.stderr
        self._done = self._total = 0
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._drawn = False
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if self._enabled:
            self._thread = threading.Thread(
                target=self._tick, name="tbmf-progress", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self._stream.write("\r\x1b[K")
            self._stream.flush()

    def update(self, done: int, total: int) -> None:
        self._done, self._total = done, total

    def line(self, width: int) -> str:
        """The bar as text, at most `width` characters."""
        elapsed = time.monotonic() - self._started
        done, total = self._done, self._total
        tail = f" {done / 1e6:.1f}/{total / 1e6:.1f} MB {elapsed:.1f} s"
        if total <= 0:
            return f"tbmf: {self._label} {done / 1e6:.1f} MB {elapsed:.1f} s"[
                :width
            ]
        fraction = min(done / total, 1.0)
        head = f"tbmf: {self._label} "
        pct = f" {fraction * 100:3.0f}%"
        room = width - len(head) - len(pct) - len(tail) - 2
        if room < 10:
            return (head + pct + tail)[:width]
        filled = int(round(fraction * room))
        return f"{head}[{'#' * filled}{'-' * (room - filled)}]{pct}{tail}"

    def _tick(self) -> None:
        if self._stop.wait(PROGRESS_AFTER_S):
            return
        while True:
            width = shutil.get_terminal_size((80, 24)).columns - 1
            self._stream.write("\r" + self.line(width))
            self._stream.flush()
            self._drawn = True
            if self._stop.wait(_PROGRESS_TICK_S):
                return
