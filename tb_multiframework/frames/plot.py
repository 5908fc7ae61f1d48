"""`plot()` of a comparison or an aggregate, with matplotlib.

A comparison draws each run (the smoothed curve solid over the raw values
faint, as the tab does) and, with a baseline, the differences below on the
same x. An aggregate draws each group's center with its band, and the group
differences below. matplotlib is optional: without it `plot()` raises an
ImportError saying how to install it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

MATPLOTLIB_HINT = "plot() needs matplotlib: pip install matplotlib"


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        raise ImportError(MATPLOTLIB_HINT) from None
    return plt


def _axes(has_lower: bool, ax: Any) -> tuple[Any, Any]:
    plt = _pyplot()
    if ax is not None:
        return ax, None
    if has_lower:
        fig, (top, bottom) = plt.subplots(
            2,
            1,
            sharex=True,
            figsize=(8, 6),
            gridspec_kw={"height_ratios": [2, 1]},
        )
        return top, bottom
    fig, top = plt.subplots(figsize=(8, 4))
    return top, None


def _finite(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = ~np.isnan(y)
    return x[keep], y[keep]


def _band(
    ax: Any,
    x: np.ndarray,
    lower: np.ndarray | None,
    upper: np.ndarray | None,
    line: Any,
) -> None:
    """A band in its line's colour where both bounds are known."""
    if lower is None or upper is None:
        return
    keep = ~(np.isnan(lower) | np.isnan(upper))
    ax.fill_between(
        x[keep],
        lower[keep],
        upper[keep],
        color=line.get_color(),
        alpha=0.2,
        linewidth=0,
    )


def plot_compare(
    x: np.ndarray,
    column: Callable[[str, str], np.ndarray | None],
    attrs: Mapping[str, Any],
    runs: list[str],
    *,
    ax: Any = None,
) -> Any:
    """Draws a comparison; returns the axes (one, or top and bottom).

    Args:
      x: the index.
      column: (kind, run) -> the column, or None when absent.
      attrs: the frame's attrs.
      runs: the runs, in column order.
      ax: draw the curves on this axes (no difference panel).
    """
    smoothed = attrs.get("smoothing", 0) > 0
    diff_runs = [r for r in runs if column("diff", r) is not None]
    top, bottom = _axes(bool(diff_runs), ax)
    for run in runs:
        raw = column("value", run)
        if raw is None:
            continue
        shown = column("smoothed", run) if smoothed else raw
        assert shown is not None
        (line,) = top.plot(*_finite(x, shown), label=run, linewidth=1.2)
        if smoothed:
            top.plot(
                *_finite(x, raw), color=line.get_color(), alpha=0.25, lw=0.8
            )
    top.set_ylabel(attrs.get("metric") or "value")
    top.legend(fontsize=8)
    if bottom is not None:
        kind = "diff_smoothed" if smoothed else "diff"
        for run in diff_runs:
            values = column(kind, run)
            assert values is not None
            bottom.plot(*_finite(x, values), label=run, linewidth=1.0)
        bottom.axhline(0.0, color="#888", linewidth=0.6)
        sign = "÷" if attrs.get("diff_mode") == "ratio" else "−"
        bottom.set_ylabel(f"{sign} {attrs.get('baseline')}")
        bottom.set_xlabel(attrs.get("x", "x"))
        return np.array([top, bottom])
    top.set_xlabel(attrs.get("x", "x"))
    return top


def plot_aggregate(
    x: np.ndarray,
    column: Callable[[str, str], np.ndarray | None],
    attrs: Mapping[str, Any],
    groups: list[str],
    *,
    ax: Any = None,
) -> Any:
    """Draws group centers with their bands, group differences below."""
    center = attrs.get("center", "mean")
    diff_groups = [g for g in groups if column(g, "diff") is not None]
    top, bottom = _axes(bool(diff_groups), ax)
    for group in groups:
        y = column(group, center)
        if y is None:
            continue
        (line,) = top.plot(*_finite(x, y), label=group, linewidth=1.2)
        _band(top, x, column(group, "lower"), column(group, "upper"), line)
    top.set_ylabel(f"{center} ({attrs.get('band')})")
    top.legend(fontsize=8)
    if bottom is None:
        top.set_xlabel(attrs.get("x", "x"))
        return top
    for group in diff_groups:
        y = column(group, "diff")
        assert y is not None
        (line,) = bottom.plot(*_finite(x, y), label=group, linewidth=1.0)
        lower, upper = column(group, "diff_lower"), column(group, "diff_upper")
        _band(bottom, x, lower, upper, line)
    bottom.axhline(0.0, color="#888", linewidth=0.6)
    bottom.set_ylabel(f"− {attrs.get('baseline_group')}")
    bottom.set_xlabel(attrs.get("x", "x"))
    return np.array([top, bottom])


def plot_frame(frame: Any, *, ax: Any = None) -> Any:
    """`plot()` of a comparison or aggregate frame (pandas or `Table`)."""
    attrs = frame.attrs
    kind = attrs.get("tbmf")
    if hasattr(frame, "index") and hasattr(frame, "iloc"):
        x = np.asarray(frame.index, dtype=np.float64)
        names = list(frame.columns)
    else:
        x = np.asarray(frame[attrs["x"]], dtype=np.float64)
        names = [c for c in frame.columns if isinstance(c, tuple)]

    def column(a: str, b: str) -> np.ndarray | None:
        if (a, b) not in names:
            return None
        return np.asarray(frame[(a, b)], dtype=np.float64)

    if kind == "compare":
        runs = list(dict.fromkeys(r for k, r in names if k == "value"))
        return plot_compare(x, column, attrs, runs, ax=ax)
    if kind == "aggregate":
        groups = list(dict.fromkeys(g for g, _ in names))
        return plot_aggregate(x, column, attrs, groups, ax=ax)
    raise ValueError(f"plot() draws comparisons and aggregates, not {kind!r}")
