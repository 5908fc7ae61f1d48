"""Layouts logged in runs, merged into one read-only layout.

PyTorch/tensorboardX `add_custom_scalars` and TF `custom_scalar` summaries
log `tensorboard.Layout` protos; `convert_imported_layouts` merges the
newest one of each run as TensorBoard does (see its docstring for where we
differ), keeping the regexes as logged and warning about parts it skips.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from tb_multiframework.core.layouts.schema import (
    IMPORTED_LAYOUT_NAME,
    Category,
    Chart,
    Layout,
    MarginSeries,
)
from tb_multiframework.core.layouts.validation import regex_problem, shorten


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
                category = _ImportedCategory(title, raw.get("closed") is True)
                by_title[title] = category
                merged.append(category)
            category.add_source(run)
            for j, raw_chart in enumerate(_proto_list(raw, "chart")):
                chart = _import_chart(raw_chart, run, f"{where}.chart[{j}]")
                if isinstance(chart, str):
                    warnings.append(chart)
                else:
                    category.add_chart(chart, run)
    categories = tuple(c.freeze() for c in merged)
    for frozen in categories:
        for chart in frozen.charts:
            warnings.extend(_imported_regex_warnings(frozen, chart))
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

    def add_source(self, run: str) -> None:
        if run not in self.sources:
            self.sources.append(run)

    def add_chart(self, chart: Chart, run: str) -> None:
        try:
            index = self.charts.index(chart)
        except ValueError:
            self.charts.append(chart)
            self.chart_sources.append([run])
            return
        if run not in self.chart_sources[index]:
            self.chart_sources[index].append(run)

    def freeze(self) -> Category:
        charts = tuple(
            dataclasses.replace(chart, source=tuple(sources))
            for chart, sources in zip(self.charts, self.chart_sources)
        )
        return Category(
            title=self.title,
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


def _import_chart(raw: object, run: str, where: str) -> Chart | str:
    """Converts one logged chart, or says why it was skipped."""
    if not isinstance(raw, Mapping):
        return f"{where}: not an object; skipped"
    title = _proto_str(raw, "title")
    multiline = raw.get("multiline")
    margin = raw.get("margin")
    if isinstance(multiline, Mapping):
        tags = tuple(
            t for t in _proto_list(multiline, "tag") if isinstance(t, str)
        )
        return Chart(title=title, kind="multiline", tags=tags)
    if isinstance(margin, Mapping):
        series = tuple(
            MarginSeries(
                _proto_str(s, "value"),
                _proto_str(s, "lower"),
                _proto_str(s, "upper"),
            )
            for s in _proto_list(margin, "series")
            if isinstance(s, Mapping)
        )
        return Chart(title=title, kind="margin", series=series)
    return f"{where} {title!r}: neither multiline nor margin; skipped"


def _imported_regex_warnings(category: Category, chart: Chart) -> list[str]:
    where = f"category {category.title!r}, chart {chart.title!r}"
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
