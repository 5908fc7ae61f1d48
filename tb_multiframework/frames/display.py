"""Compact HTML for Jupyter: the experiment, its runs, any frame.

Every run name, tag, hyper-parameter and warning is hostile input: each cell
goes through `html.escape` (quotes included) and nothing else reaches the
markup. Frameworks are coloured badges; a run's warnings are shown in full,
amber, with their count. Long frames show their first `MAX_ROWS` rows and
say how many are left out.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

MAX_ROWS = 60  # rows of a frame shown in a notebook
MAX_CELL_CHARS = 300  # characters of one cell shown (the rest elided)
MAX_HPARAM_COLUMNS = 12  # hyper-parameter columns a runs table shows
FRAMEWORK_COLOURS = {
    "pytorch": "#ee4c2c",
    "tensorflow": "#e37400",
    "paddle": "#2932e1",
    "unknown": "#6b7280",
}
_STYLE = (
    "<style>.tbmf-t{border-collapse:collapse;font-size:12px}"
    ".tbmf-t th,.tbmf-t td{padding:2px 8px;text-align:left;"
    "border-bottom:1px solid #ddd;vertical-align:top}"
    ".tbmf-b{display:inline-block;padding:0 6px;border-radius:8px;"
    "color:#fff;font-size:11px}"
    ".tbmf-w{color:#b45309}.tbmf-n{color:#6b7280;font-size:11px}</style>"
)


def escape(value: Any) -> str:
    """Text of a value, escaped for HTML (and cut to MAX_CELL_CHARS)."""
    text = cell_text(value)
    if len(text) > MAX_CELL_CHARS:
        text = text[:MAX_CELL_CHARS] + "…"
    return html.escape(text, quote=True)


def cell_text(value: Any) -> str:
    """How a cell reads: numbers short, lists joined, missing blank."""
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if math.isnan(number):
            return "NaN"
        return f"{number:.6g}"
    if isinstance(value, (np.integer, np.bool_)):
        return str(value.item())
    if isinstance(value, np.ndarray):
        return f"array({value.size} values)"
    if isinstance(value, (list, tuple)):
        return "; ".join(cell_text(v) for v in value)
    return str(value)


def badge(framework: Any) -> str:
    """A framework as a coloured badge."""
    name = cell_text(framework)
    colour = FRAMEWORK_COLOURS.get(name, FRAMEWORK_COLOURS["unknown"])
    return (
        f'<span class="tbmf-b" style="background:{colour}">'
        f"{html.escape(name, quote=True)}</span>"
    )


def _warnings_cell(value: Any) -> str:
    items = (
        []
        if value is None
        else (
            list(value)
            if isinstance(value, (list, tuple, np.ndarray))
            else [value]
        )
    )
    items = [cell_text(v) for v in items if cell_text(v)]
    if not items:
        return ""
    lines = "<br>".join(escape(v) for v in items)
    return f'<span class="tbmf-w">⚠ {len(items)}: {lines}</span>'


def _cell(name: str, value: Any) -> str:
    if name == "framework":
        return badge(value)
    if name == "warnings":
        return _warnings_cell(value)
    return escape(value)


def table_html(
    names: Sequence[str],
    columns: Sequence[Any],
    *,
    rows: int,
    note: str = "",
    index: tuple[str, Any] | None = None,
) -> str:
    """A compact HTML table of columns (first `MAX_ROWS` rows).

    Args:
      names: column names (escaped here).
      columns: one sequence per name.
      rows: the number of rows.
      note: a line under the table (escaped).
      index: (name, values) shown as a first column, when meaningful.
    """
    shown = min(rows, MAX_ROWS)
    header_names = ([index[0]] if index is not None else []) + list(names)
    head = "".join(f"<th>{escape(n)}</th>" for n in header_names)
    body = []
    for i in range(shown):
        cells = []
        if index is not None:
            cells.append(f"<th>{escape(index[1][i])}</th>")
        cells += [
            f"<td>{_cell(n, c[i])}</td>"
            for n, c in zip(names, columns, strict=True)
        ]
        body.append("<tr>" + "".join(cells) + "</tr>")
    notes = [f"{rows} rows × {len(names)} columns"]
    if rows > shown:
        notes.append(f"first {shown} shown")
    if note:
        notes.append(note)
    return (
        _STYLE
        + f'<table class="tbmf-t"><thead><tr>{head}</tr></thead><tbody>'
        + "".join(body)
        + "</tbody></table>"
        + f'<div class="tbmf-n">{escape(" · ".join(notes))}</div>'
    )


def frame_html(frame: Any, note: str = "") -> str:
    """`table_html` of a pandas DataFrame (badges, warnings, escaping).

    A runs frame shows at most `MAX_HPARAM_COLUMNS` hyper-parameter columns,
    those whose values differ between runs, most often set first, and says
    how many it leaves out.
    """
    positions = list(range(len(frame.columns)))
    if frame.attrs.get("tbmf") == "runs":
        positions, hidden = _runs_columns(frame)
        if hidden:
            note = " · ".join(
                n
                for n in (
                    note,
                    f"{hidden} hyper-parameter columns not shown (the same "
                    f"for every run, or past {MAX_HPARAM_COLUMNS})",
                )
                if n
            )
    names = [_label(frame.columns[i]) for i in positions]
    columns = [frame.iloc[: MAX_ROWS + 1, i].tolist() for i in positions]
    index = None
    if frame.index.name is not None:
        index = (str(frame.index.name), frame.index[: MAX_ROWS + 1].tolist())
    return table_html(names, columns, rows=len(frame), note=note, index=index)


def _runs_columns(frame: Any) -> tuple[list[int], int]:
    """Positions of the runs frame's columns to show, and hidden count."""
    fixed, varying = [], []
    hparams = 0
    for i, name in enumerate(frame.columns):
        if not str(name).startswith("hparam:"):
            fixed.append(i)
            continue
        hparams += 1
        values = [
            "" if _missing(v) else cell_text(v)
            for v in frame.iloc[:, i].tolist()
        ]
        if len(set(values)) > 1:
            varying.append((-sum(1 for v in values if v), str(name), i))
    shown = [i for _, _, i in sorted(varying)[:MAX_HPARAM_COLUMNS]]
    return fixed + sorted(shown), hparams - len(shown)


def _missing(value: Any) -> bool:
    return value is None or (
        isinstance(value, (float, np.floating)) and math.isnan(value)
    )


def _label(column: Any) -> str:
    if isinstance(column, tuple):
        return " / ".join(str(part) for part in column)
    return str(column)


def experiment_html(
    logdir: str,
    runs: Sequence[dict[str, Any]],
    *,
    points: int,
    histograms: int,
    errors: Sequence[str],
) -> str:
    """The experiment at a glance: frameworks, counts, problems, runs."""
    frameworks: dict[str, int] = {}
    for run in runs:
        frameworks[run["framework"]] = frameworks.get(run["framework"], 0) + 1
    badges = " ".join(
        f"{badge(name)} {count}" for name, count in sorted(frameworks.items())
    )
    warned = sum(1 for run in runs if run["warnings"])
    problems = ""
    if warned or errors:
        parts = [f"{warned} runs with warnings"] if warned else []
        parts += [escape(e) for e in errors]
        problems = f'<div class="tbmf-w">⚠ {" · ".join(parts)}</div>'
    names = [
        "run",
        "framework",
        "writer",
        "trainer",
        "group",
        "points",
        "warnings",
    ]
    columns = [[run[n] for run in runs] for n in names]
    head = (
        f"<div><b>{escape(logdir)}</b>: {len(runs)} runs · "
        f"{points:,} scalar points · {histograms:,} histograms · {badges}</div>"
    )
    return head + problems + table_html(names, columns, rows=len(runs))


def attrs_note(attrs: dict[str, Any]) -> str:
    """What a frame left out and why, from its attrs (plain text)."""
    parts = []
    for key, label in (
        ("excluded", "not on this axis"),
        ("missing", "without this metric"),
        ("diff_excluded", "no difference curve"),
    ):
        found = attrs.get(key) or {}
        if found:
            items = ", ".join(f"{k} ({cell_text(v)})" for k, v in found.items())
            parts.append(f"{label}: {items}")
    collapsed = attrs.get("collapsed") or {}
    if collapsed:
        items = ", ".join(f"{k}: {v}" for k, v in collapsed.items())
        parts.append(f"points at a repeated x (the last kept): {items}")
    return " · ".join(parts)
