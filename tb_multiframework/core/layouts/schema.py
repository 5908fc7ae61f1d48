"""The layout schema: its caps and defaults, and layouts as dataclasses.

The JSON form and its rules are in the package docstring
(`core/layouts/__init__.py`); `layout_to_json` writes a layout in it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

MAX_NAME_CHARS = 100  # characters in a layout name
MAX_TITLE_CHARS = 200  # characters in a category or chart title
MAX_CATEGORIES = 50  # categories per layout
MAX_CHARTS_PER_CATEGORY = 50  # charts per category
MAX_PATTERNS_PER_CHART = 20  # tags, metrics or margin series per chart
MAX_REGEX_CHARS = 500  # characters in one regex or margin tag name
MAX_LAYOUT_JSON_BYTES = 256 * 1024  # UTF-8 bytes of one layout's JSON
MAX_PREVIEW_MATCHES = 200  # matches listed per chart in a preview
MAX_PREVIEW_TESTS = 2_000_000  # regex tests (pattern x name) per preview
MAX_MATCH_SUBJECT_CHARS = 16_384  # longer run/tag/metric names never match

DEFAULT_SMOOTHING = 0.6  # TensorBoard's default smoothing weight
DEFAULT_X = "step"
IMPORTED_LAYOUT_NAME = "Logged in runs"

AXES = ("step", "epoch", "relative", "wall", "progress")
KINDS = ("multiline", "margin")

ChartKind = Literal["multiline", "margin"]

# The keys each part of a layout may have (`validate_layout`).
LAYOUT_KEYS = frozenset({"name", "categories"})
LAYOUT_OUTPUT_KEYS = frozenset({"readOnly", "warnings"})
CATEGORY_KEYS = frozenset({"title", "closed", "charts"})
CHART_KEYS = frozenset(
    {"title", "kind", "tags", "metrics", "series", "runs", "x"}
    | {"smoothing", "logY"}
)
SERIES_KEYS = frozenset({"value", "lower", "upper"})
SOURCE_KEY = "source"


@dataclass(frozen=True)
class MarginSeries:
    """One margin-chart series: three exact tag names of one run."""

    value: str
    lower: str
    upper: str


@dataclass(frozen=True)
class Chart:
    """A chart of a layout.

    Attributes:
      title: Shown above the chart.
      kind: "multiline" (regex-selected lines) or "margin" (value with a
        lower/upper band).
      tags: Multiline: regexes over raw tag names.
      metrics: Multiline: regexes over canonical metric names.
      series: Margin: the series to draw.
      runs: Regex over run names, or None for every run.
      x: X axis, one of AXES.
      smoothing: Smoothing weight in [0, 1).
      log_y: Log-scale y axis.
      source: Runs this chart was logged in (empty for user layouts).
    """

    title: str
    kind: ChartKind
    tags: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    series: tuple[MarginSeries, ...] = ()
    runs: str | None = None
    x: str = DEFAULT_X
    smoothing: float = DEFAULT_SMOOTHING
    log_y: bool = False
    source: tuple[str, ...] = ()


@dataclass(frozen=True)
class Category:
    """A titled, collapsible group of charts."""

    title: str
    closed: bool = False
    charts: tuple[Chart, ...] = ()
    source: tuple[str, ...] = ()


@dataclass(frozen=True)
class Layout:
    """A named dashboard.

    Attributes:
      name: Unique name of a user layout, or IMPORTED_LAYOUT_NAME.
      categories: The categories in display order.
      read_only: True for layouts imported from runs.
      warnings: What was wrong with imported layouts (skipped charts,
        regexes that do not compile), for the UI to show.
    """

    name: str
    categories: tuple[Category, ...] = ()
    read_only: bool = False
    warnings: tuple[str, ...] = ()


def layout_to_json(layout: Layout) -> dict[str, Any]:
    """Turns a layout into its JSON form (camelCase, every key present)."""
    return {
        "name": layout.name,
        "readOnly": layout.read_only,
        "warnings": list(layout.warnings),
        "categories": [
            {
                "title": category.title,
                "closed": category.closed,
                "source": list(category.source),
                "charts": [_chart_to_json(c) for c in category.charts],
            }
            for category in layout.categories
        ],
    }


def _chart_to_json(chart: Chart) -> dict[str, Any]:
    return {
        "title": chart.title,
        "kind": chart.kind,
        "tags": list(chart.tags),
        "metrics": list(chart.metrics),
        "series": [dataclasses.asdict(s) for s in chart.series],
        "runs": chart.runs,
        "x": chart.x,
        "smoothing": chart.smoothing,
        "logY": chart.log_y,
        "source": list(chart.source),
    }
