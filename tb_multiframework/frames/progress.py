"""A progress bar while a logdir is read: HTML in a notebook, text on a
terminal, nothing otherwise (a script's log stays clean).

`reading(label, enabled)` is a context manager whose `update(done, total)`
the loader calls with bytes read and bytes to read. The bar appears only
after `SHOW_AFTER_S` (small logdirs read silently) and is redrawn at most
every `TICK_S`.
"""

from __future__ import annotations

import html
import sys
import time
from typing import Any

SHOW_AFTER_S = 0.5  # seconds of reading before the bar shows
TICK_S = 0.2  # seconds between redraws
_BAR_CHARS = 30  # width of the text bar


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython with a kernel)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    get = getattr(shell, "get_ipython", None)
    ip = get() if get is not None else None
    return ip is not None and getattr(ip, "kernel", None) is not None


class Reading:
    """One read's progress display (see module docstring)."""

    def __init__(self, label: str, mode: str) -> None:
        self._label = label
        self._mode = mode  # "html" | "text" | "off"
        self._started = time.monotonic()
        self._last = 0.0
        self._handle: Any = None
        self._shown = False
        self.done = 0
        self.total = 0

    def __enter__(self) -> Reading:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._shown:
            return
        if self._mode == "text":
            sys.stderr.write("\r" + " " * (len(self._label) + _BAR_CHARS + 30))
            sys.stderr.write("\r")
            sys.stderr.flush()
        elif self._handle is not None:
            from IPython.display import HTML  # noqa: PLC0415

            seconds = time.monotonic() - self._started
            note = f"{seconds:.1f} s"
            self._handle.update(
                HTML(_html(self._label, self.total, self.total, note))
            )

    def update(self, done: int, total: int) -> None:
        """Called by the loader: bytes read so far, bytes to read."""
        self.done, self.total = done, total
        now = time.monotonic()
        if self._mode == "off" or now - self._started < SHOW_AFTER_S:
            return
        if self._shown and now - self._last < TICK_S:
            return
        self._last = now
        self._shown = True
        if self._mode == "text":
            sys.stderr.write("\r" + _text(self._label, done, total))
            sys.stderr.flush()
            return
        from IPython.display import HTML, display  # noqa: PLC0415

        body = HTML(_html(self._label, done, total, ""))
        if self._handle is None:
            self._handle = display(body, display_id=True)
        else:
            self._handle.update(body)


def reading(label: str, enabled: bool | None) -> Reading:
    """A progress display; `enabled` None chooses by where this runs."""
    if enabled is False:
        return Reading(label, "off")
    if in_notebook():
        return Reading(label, "html")
    if enabled or sys.stderr.isatty():
        return Reading(label, "text")
    return Reading(label, "off")


def _fraction(done: int, total: int) -> float:
    return min(done / total, 1.0) if total > 0 else 0.0


def _text(label: str, done: int, total: int) -> str:
    filled = int(_fraction(done, total) * _BAR_CHARS)
    bar = "#" * filled + "." * (_BAR_CHARS - filled)
    return f"{label} [{bar}] {done / 1e6:.1f}/{total / 1e6:.1f} MB"


def _html(label: str, done: int, total: int, note: str) -> str:
    percent = 100.0 * _fraction(done, total)
    return (
        '<div style="font-family:monospace;font-size:12px">'
        f"{html.escape(label)} "
        f'<progress value="{percent:.0f}" max="100" style="width:240px">'
        f"</progress> {done / 1e6:.1f}/{total / 1e6:.1f} MB "
        f"{html.escape(note)}</div>"
    )
