"""Numbers, names and tables as `tbmf` prints them (as the tab shows them).

Standard library only: `tbmf --help` imports this.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MISSING = "—"


def printable(text: str) -> str:
    """A name made safe for a terminal: control characters escaped.

    Run and tag names come from files; an escape sequence in one must not
    drive the user's terminal.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def printable_lines(text: str) -> str:
    """Text for a terminal: lines kept, every other control, format (bidi
    override, zero-width) or separator character escaped. A CR stays only
    before a LF (CSV's line ends); a lone CR could overwrite a line."""
    lines = text.split("\n")
    out = []
    for line in lines:
        end = "\r" if line.endswith("\r") else ""
        body = line[:-1] if end else line
        out.append(
            (body if body.isprintable() else printable(body.replace("\t", " ")))
            + end
        )
    return "\n".join(out)


class TerminalText:
    """A text stream to a terminal that never passes escape sequences.

    Names in the output come from the logs: an ESC, backspace or U+202E in
    one must not drive or mislead the user's terminal, whichever code
    printed it. Output to a pipe or a file is not wrapped (it is data).
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(printable_lines(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def format_value(value: float | None) -> str:
    """Five significant digits, as the tab shows values."""
    if value is None:
        return MISSING
    if isinstance(value, str):
        return value
    if not math.isfinite(value):
        return "NaN" if value != value else ("Inf" if value > 0 else "-Inf")
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-4 or magnitude >= 1e9):
        return f"{value:.3e}"
    text = f"{value:.5g}"
    if "e" in text:  # 5 significant digits of a number >= 1e5
        text = f"{value:.0f}"
    return text


def format_signed(value: float | None) -> str:
    """A change with its sign: +0.0032, −1.5."""
    if value is None:
        return MISSING
    text = format_value(value)
    if isinstance(value, float) and not math.isfinite(value):
        return text
    return text.replace("-", "−") if value < 0 else "+" + text


def format_percent(value: float | None) -> str:
    """A relative change: +12.3%, −0.4%."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{value * 100:+.1f}%".replace("-", "−")


def format_int(value: int | None) -> str:
    return MISSING if value is None else f"{value:,}"


def format_duration(seconds: float | None) -> str:
    """850 ms, 42.5 s, 3 min 12 s, 1 h 04 min, 2 d 03 h (as the tab)."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return MISSING
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{round(seconds)} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes:02d} min"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours:02d} h"


@dataclass(frozen=True)
class Column:
    """A table column.

    Attributes:
        title: Header text.
        align: "<" left or ">" right.
        elide: Whether long cells may be cut (ending in "…").
        keep_tail: Cut long cells in the middle instead, keeping the end
            (run names differ at the end: `seed0`/`seed1`, `Loss_train`).
        min_width: Cells an elided column keeps at least.
        drop: Order in which columns are left out when even the narrowest
            table is too wide: highest first; 0 is never left out.
        label: The header in the reader's language, when not `title`.
    """

    title: str
    align: str = "<"
    elide: bool = False
    keep_tail: bool = False
    min_width: int = 6
    drop: int = 0
    label: str = ""

    @property
    def heading(self) -> str:
        return self.label or self.title


def display_width(text: str) -> int:
    """Terminal cells of a string (East Asian wide characters take two)."""
    return sum(
        2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text
    )


def elide(text: str, width: int, keep_tail: bool = False) -> str:
    """Cuts text to `width` cells, marking the cut with "…".

    The cut is at the end, or with `keep_tail` in the middle: a third of
    the cells for the start, the rest for the end.
    """
    if display_width(text) <= width:
        return text
    if not keep_tail:
        return _take(text, width - 1) + "…"
    head = _take(text, (width - 1) // 3)
    tail = _take(text[::-1], width - 1 - display_width(head))[::-1]
    return head + "…" + tail


def _take(text: str, cells: int) -> str:
    """The longest start of `text` that fits in `cells` terminal cells."""
    out, used = [], 0
    for ch in text:
        width = display_width(ch)
        if used + width > cells:
            break
        out.append(ch)
        used += width
    return "".join(out)


def render_table(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int
) -> tuple[list[str], list[str]]:
    """An aligned table at most `width` cells wide where possible.

    The widest elidable columns give up cells first, down to their
    `min_width`; if that is not enough, columns are left out by `drop`.

    Returns:
        (lines, headings of the columns left out).
    """
    gap = 2
    keep = list(range(len(columns)))
    widths = [
        max([display_width(c.heading)] + [display_width(r[i]) for r in rows])
        for i, c in enumerate(columns)
    ]

    def floor(i: int) -> int:
        c = columns[i]
        if not c.elide:
            return widths[i]
        return min(widths[i], max(c.min_width, display_width(c.heading)))

    def total(indices: list[int], sizes: dict[int, int]) -> int:
        return sum(sizes[i] for i in indices) + gap * (len(indices) - 1)

    floors = {i: floor(i) for i in keep}
    droppable = sorted(
        (i for i in keep if columns[i].drop), key=lambda i: -columns[i].drop
    )
    dropped = []
    while total(keep, floors) > width and droppable:
        i = droppable.pop(0)
        keep.remove(i)
        dropped.append(columns[i].heading)
    sizes = {i: widths[i] for i in keep}
    excess = total(keep, sizes) - width
    while excess > 0:
        candidates = [i for i in keep if sizes[i] > floors[i]]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: sizes[i] - floors[i])
        sizes[widest] -= 1
        excess -= 1
    lines = []
    for cells in [[c.heading for c in columns], *rows]:
        parts = []
        for i in keep:
            text = elide(cells[i], sizes[i], columns[i].keep_tail)
            pad = " " * (sizes[i] - display_width(text))
            parts.append(text + pad if columns[i].align == "<" else pad + text)
        lines.append((" " * gap).join(parts).rstrip())
    return lines, dropped
