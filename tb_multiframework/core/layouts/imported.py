"""Layouts logged in runs, merged into one read-only layout.

PyTorch/tensorboardX `add_custom_scalars` and TF `custom_scalar` summaries
log `tensorboard.Layout` protos; `convert_imported_layouts` merges the
newest one of each run as TensorBoard does (see its docstring for where we
differ), keeping the regexes as logged and warning about parts it skips.

Logged layouts come from files anyone can write, so the merge is bounded:
at most MAX_IMPORTED_CATEGORIES categories, MAX_IMPORTED_CHARTS charts in
all, MAX_IMPORTED_PATTERNS tag regexes or margin series a chart and
MAX_IMPORTED_PATTERNS_TOTAL in all (validating 200,000 regexes took 5 s
on every `GET layouts`), titles cut to MAX_TITLE_CHARS for display, and
MAX_IMPORTED_WARNINGS warnings; every part left out is counted in a
warning. TensorBoard has no such bounds; a real layout is far inside them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from tb_multiframework.core.layouts.schema import (
    IMPORTED_LAYOUT_NAME,
    MAX_TITLE_CHARS,
    Category,
    Chart,
    Layout,
    MarginSeries,
)
from tb_multiframework.core.layouts.validation import regex_problem, shorten

MAX_IMPORTED_CATEGORIES = 500
MAX_IMPORTED_CHARTS = 2_000  # over all categories
MAX_IMPORTED_PATTERNS = 100  # tag regexes or margin series of one chart
MAX_IMPORTED_PATTERNS_TOTAL = 10_000  # over all charts (each is validated)
MAX_IMPORTED_WARNINGS = 100


def convert_imported_layouts(
    per_run: Mapping[str, Mapping[str, Any] | Sequence[Mapping[str, Any]]],
) -> Layout:
    """Merges the layouts logged in runs into one read-only layout.

    TensorBoard's rule (custom_scalars_plugin.layout_impl): runs in sorted
    order; a category whose title was seen before receives the new charts,
    and a chart equal to one already in that category (same title and
    content) is skipped. Unlike TensorBoard, repeated titles inside one
    run's layout are merged too, and charts added to a category first seen
    in a later run are kept (TensorBoard extends a detached copy and loses
    them). Each category and chart lists the runs it was logged in.

    Args:
      per_run: Run name to its decoded ``tensorboard.Layout`` protos as
        ``json_format.MessageToDict(..., preserving_proto_field_name=True)``
        dicts; either one dict or a list, oldest first, of which the last
        (newest) is used, as TensorBoard does.

    Returns:
      A layout named IMPORTED_LAYOUT_NAME, read-only, with warnings for
      parts that were skipped or regexes that cannot be used. Regexes are
      kept as logged; charts with bad ones match nothing.
    """
    warnings: list[str] = []
    merged: list[_ImportedCategory] = []
    by_title: dict[str, _ImportedCategory] = {}
    charts = patterns = 0
    left_out = {"categories": 0, "charts": 0}
    for run in sorted(per_run):
        layout = _newest_layout(per_run[run])
        if layout is None:
            warnings.append(f"run {run!r}: layout is not an object; skipped")
            continue
        for i, raw in enumerate(_proto_list(layout, "category")):
            where = f"run {run!r}: category[{i}]"
            if not isinstance(raw, Mapping):
                warnings.append(f"{where}: not an object; skipped")
                continue
            title = _proto_str(raw, "title")
            category = by_title.get(title)
            if category is None:
                if len(merged) >= MAX_IMPORTED_CATEGORIES:
                    left_out["categories"] += 1
                    continue
                category = _ImportedCategory(title, raw.get("closed") is True)
                by_title[title] = category
                merged.append(category)
            category.add_source(run)
            for j, raw_chart in enumerate(_proto_list(raw, "chart")):
                if (
                    charts >= MAX_IMPORTED_CHARTS
                    or patterns >= MAX_IMPORTED_PATTERNS_TOTAL
                ):
                    left_out["charts"] += 1
                    continue
                chart, problem = _import_chart(raw_chart, f"{where}.chart[{j}]")
                if problem is not None:
                    warnings.append(problem)
                if chart is not None and category.add_chart(chart, run):
                    charts += 1
                    patterns += len(chart.tags) + len(chart.series)
    if left_out["categories"]:
        warnings.append(
            f"{left_out['categories']:,} categories beyond the first "
            f"{MAX_IMPORTED_CATEGORIES:,} left out, with their charts"
        )
    if left_out["charts"]:
        warnings.append(
            f"{left_out['charts']:,} charts left out: past "
            f"{MAX_IMPORTED_CHARTS:,} charts or "
            f"{MAX_IMPORTED_PATTERNS_TOTAL:,} tag regexes in all"
        )
    categories = tuple(c.freeze() for c in merged)
    for frozen in categories:
        for chart in frozen.charts:
            warnings.extend(_imported_regex_warnings(frozen, chart))
    if len(warnings) > MAX_IMPORTED_WARNINGS:
        more = len(warnings) - MAX_IMPORTED_WARNINGS
        warnings[MAX_IMPORTED_WARNINGS:] = [f"… and {more:,} more warnings"]
    return Layout(
        name=IMPORTED_LAYOUT_NAME,
        categories=categories,
        read_only=True,
        warnings=tuple(warnings),
    )


class _ImportedCategory:
    """A category being merged: charts in order, each with its runs."""

    def __init__(self, title: str, closed: bool) -> None:
        self.title = title
        self.closed = closed
        self.sources: list[str] = []
        self.charts: list[Chart] = []
        self.chart_sources: list[list[str]] = []
        self._index: dict[Chart, int] = {}  # equal charts merge

    def add_source(self, run: str) -> None:
        if run not in self.sources:
            self.sources.append(run)

    def add_chart(self, chart: Chart, run: str) -> bool:
        """Adds a chart, or the run to an equal one; True when new."""
        index = self._index.get(chart)
        if index is None:
            self._index[chart] = len(self.charts)
            self.charts.append(chart)
            self.chart_sources.append([run])
            return True
        if run not in self.chart_sources[index]:
            self.chart_sources[index].append(run)
        return False

    def freeze(self) -> Category:
        # Titles are cut only now: two long titles that differ past the
        # cut stay apart while merging.
        charts = tuple(
            dataclasses.replace(
                chart,
                title=shorten(chart.title, MAX_TITLE_CHARS),
                source=tuple(sources),
            )
            for chart, sources in zip(self.charts, self.chart_sources)
        )
        return Category(
            title=shorten(self.title, MAX_TITLE_CHARS),
            closed=self.closed,
            charts=charts,
            source=tuple(self.sources),
        )


def _newest_layout(
    value: Mapping[str, Any] | Sequence[Mapping[str, Any]],
) -> Mapping[str, Any] | None:
    if isinstance(value, Mapping):
        return value
    if isinstance(value, (list, tuple)) and value:
        newest = value[-1]
        return newest if isinstance(newest, Mapping) else None
    if isinstance(value, (list, tuple)):
        return {}
    return None


def _import_chart(raw: object, where: str) -> tuple[Chart | None, str | None]:
    """Converts one logged chart: (the chart or None, what was wrong)."""
    if not isinstance(raw, Mapping):
        return None, f"{where}: not an object; skipped"
    title = _proto_str(raw, "title")
    multiline = raw.get("multiline")
    margin = raw.get("margin")
    if isinstance(multiline, Mapping):
        tags = [t for t in _proto_list(multiline, "tag") if isinstance(t, str)]
        chart = Chart(
            title=title,
            kind="multiline",
            tags=tuple(tags[:MAX_IMPORTED_PATTERNS]),
        )
        return chart, _cut(where, title, "tag regexes", len(tags))
    if isinstance(margin, Mapping):
        series = [
            MarginSeries(
                _proto_str(s, "value"),
                _proto_str(s, "lower"),
                _proto_str(s, "upper"),
            )
            for s in _proto_list(margin, "series")
            if isinstance(s, Mapping)
        ]
        chart = Chart(
            title=title,
            kind="margin",
            series=tuple(series[:MAX_IMPORTED_PATTERNS]),
        )
        return chart, _cut(where, title, "margin series", len(series))
    return (
        None,
        f"{where} {shorten(title)!r}: neither multiline nor margin; skipped",
    )


def _cut(where: str, title: str, what: str, count: int) -> str | None:
    """The warning for a chart's patterns past MAX_IMPORTED_PATTERNS."""
    if count <= MAX_IMPORTED_PATTERNS:
        return None
    return (
        f"{where} {shorten(title)!r}: {count - MAX_IMPORTED_PATTERNS:,} {what} "
        f"beyond the first {MAX_IMPORTED_PATTERNS} left out"
    )


def _imported_regex_warnings(category: Category, chart: Chart) -> list[str]:
    where = (
        f"category {shorten(category.title)!r}, chart {shorten(chart.title)!r}"
    )
    runs = ", ".join(chart.source)
    found = []
    if chart.kind == "multiline" and not chart.tags:
        found.append(f"{where} (runs {runs}): no tag regexes; shows nothing")
    for k, pattern in enumerate(chart.tags):
        problem = regex_problem(pattern)
        if problem is not None:
            found.append(
                f"{where} (runs {runs}): tags[{k}] {shorten(pattern)!r}: "
                f"{problem.message}; matches nothing"
            )
    return found


def _proto_list(message: Mapping[str, Any], key: str) -> Sequence[Any]:
    # MessageToDict leaves out empty repeated fields.
    value = message.get(key, [])
    return value if isinstance(value, (list, tuple)) else []


def _proto_str(message: Mapping[str, Any], key: str) -> str:
    # MessageToDict leaves out empty strings (proto3 defaults).
    value = message.get(key, "")
    return value if isinstance(value, str) else ""
