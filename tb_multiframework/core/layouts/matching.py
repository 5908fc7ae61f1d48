"""Which series a chart shows, and a live preview of a layout being edited.

Matching follows TensorBoard's custom-scalars plugin (the package docstring
gives the rules); every regex runs through `core.safe_regex`, never on
Python's backtracking engine in this process. `preview_layout` reads as
much of a half-written layout as has the right shape and says, per chart,
what it matches and which regexes cannot be used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tb_multiframework.core import safe_regex
from tb_multiframework.core.budget import Budget
from tb_multiframework.core.layouts.schema import (
    MAX_CATEGORIES,
    MAX_CHARTS_PER_CATEGORY,
    MAX_MATCH_SUBJECT_CHARS,
    MAX_PATTERNS_PER_CHART,
    MAX_PREVIEW_MATCHES,
    MAX_PREVIEW_TESTS,
    MAX_REGEX_CHARS,
    SERIES_KEYS,
    Chart,
    ChartKind,
    MarginSeries,
)
from tb_multiframework.core.layouts.validation import (
    RegexProblem,
    json_size_or_none,
    regex_problem,
    shorten,
    validate_layout,
)


@dataclass(frozen=True)
class Candidate:
    """A series a chart may show: a run's tag and its canonical metric."""

    run: str
    tag: str
    metric: str | None = None


@dataclass(frozen=True)
class Match:
    """A series a chart shows.

    For a margin chart ``tag`` is the value tag and ``lower``/``upper``
    name the band tags; for a multiline chart they are None.
    """

    run: str
    tag: str
    metric: str | None = None
    lower: str | None = None
    upper: str | None = None


@dataclass(frozen=True)
class MissingTags:
    """A run that has some but not all tags of a margin chart."""

    run: str
    tags: tuple[str, ...]


@dataclass(frozen=True)
class ChartPreview:
    """What one chart of a layout being edited matches.

    Attributes:
      category: Index of the category in the layout.
      chart: Index of the chart in its category.
      title: The chart title ("" when it is not a string).
      matches: Up to MAX_PREVIEW_MATCHES matches, using the regexes that
        are valid.
      total_matches: The number of matches before the cap.
      regex_errors: One entry per unusable regex.
      missing: Margin charts: runs lacking some of the series' tags.
      skipped: Why the chart was not matched ("" when it was): the
        preview's work budget ran out, or the client went away.
    """

    category: int
    chart: int
    title: str
    matches: tuple[Match, ...]
    total_matches: int
    regex_errors: tuple[RegexProblem, ...]
    missing: tuple[MissingTags, ...] = ()
    skipped: str = ""


@dataclass(frozen=True)
class LayoutPreview:
    """Live preview of a layout being edited.

    Attributes:
      error: The first reason ``validate_layout`` would reject the layout,
        or None when it can be saved.
      charts: One entry per chart that could be read.
    """

    error: str | None
    charts: tuple[ChartPreview, ...]


def _usable_regex(pattern: str) -> safe_regex.Regex | None:
    try:
        return safe_regex.compile(pattern)
    except safe_regex.RegexError:
        return None


def _test(
    regex: safe_regex.Regex, subjects: Sequence[str], how: Any
) -> list[bool]:
    """Matches a batch of names; a pattern the fallback engine gave up on
    matches nothing (and `regex_problem` reports it from then on)."""
    try:
        return regex.test(subjects, how)
    except safe_regex.RegexError:
        return [False] * len(subjects)


def match_chart(chart: Chart, candidates: Sequence[Candidate]) -> list[Match]:
    """Lists the series a chart shows among the candidates.

    Regexes that do not compile or are unsafe (see ``regex_problem``)
    match nothing; ``preview_layout`` says which they are.

    Args:
      chart: A chart of a validated or imported layout.
      candidates: Every (run, tag) available, with canonical metric names.

    Returns:
      Matches sorted by run, then tag (multiline) or series order (margin).
    """
    return _match(chart, candidates)[0]


def _match(
    chart: Chart, candidates: Sequence[Candidate]
) -> tuple[list[Match], list[MissingTags]]:
    candidates = [c for c in candidates if _short(c.run)]
    if chart.runs is not None:
        run_regex = _usable_regex(chart.runs)
        if run_regex is None:
            return [], []
        runs = sorted({c.run for c in candidates})
        kept = {
            run for run, ok in zip(runs, _test(run_regex, runs, "search")) if ok
        }
        candidates = [c for c in candidates if c.run in kept]
    unique = {(c.run, c.tag): c for c in candidates}
    if chart.kind == "margin":
        return _match_margin(chart.series, unique)
    return _match_multiline(chart, unique), []


def _short(text: str) -> bool:
    return len(text) <= MAX_MATCH_SUBJECT_CHARS


def _match_multiline(
    chart: Chart, candidates: Mapping[tuple[str, str], Candidate]
) -> list[Match]:
    by_metric = bool(chart.metrics)
    regexes = [
        r
        for r in map(_usable_regex, chart.metrics if by_metric else chart.tags)
        if r is not None
    ]
    subjects = sorted(
        {
            s
            for (_, tag), c in candidates.items()
            if (s := c.metric if by_metric else tag) is not None and _short(s)
        }
    )
    hits: set[str] = set()
    for regex in regexes:
        hits.update(
            s for s, ok in zip(subjects, _test(regex, subjects, "match")) if ok
        )
    matches = []
    for (run, tag), candidate in sorted(candidates.items()):
        subject = candidate.metric if by_metric else tag
        if subject in hits:
            matches.append(Match(run=run, tag=tag, metric=candidate.metric))
    return matches


def _match_margin(
    series: Sequence[MarginSeries],
    candidates: Mapping[tuple[str, str], Candidate],
) -> tuple[list[Match], list[MissingTags]]:
    tags_by_run: dict[str, set[str]] = {}
    for run, tag in candidates:
        tags_by_run.setdefault(run, set()).add(tag)
    matches = []
    missing = []
    for run in sorted(tags_by_run):
        present = tags_by_run[run]
        lacking: list[str] = []
        for s in series:
            wanted = (s.value, s.lower, s.upper)
            absent = [t for t in wanted if t not in present]
            if not absent:
                metric = candidates[(run, s.value)].metric
                matches.append(
                    Match(run, s.value, metric, lower=s.lower, upper=s.upper)
                )
            elif len(absent) < len(wanted):
                lacking.extend(t for t in absent if t not in lacking)
        if lacking:
            missing.append(MissingTags(run=run, tags=tuple(lacking)))
    return matches, missing


def preview_layout(
    obj: object,
    candidates: Sequence[Candidate],
    *,
    budget: Budget | None = None,
) -> LayoutPreview:
    """Matches each chart of a layout being edited, never raising.

    Reads as much of the layout as has the right shape, so that the UI
    can show matches and regex errors while the user types.

    Args:
      obj: The decoded JSON of a layout, possibly invalid.
      candidates: Every (run, tag) available.
      budget: regex tests (one pattern against one name) the preview may
        run; a chart whose tests do not fit is not matched and says so
        (`skipped`), as is every chart once the client has gone. Default:
        MAX_PREVIEW_TESTS.

    Returns:
      The first validation error (or None) and, per readable chart, its
      matches (from the regexes that compile) and its regex errors.
    """
    if budget is None:
        budget = Budget(MAX_PREVIEW_TESTS)
    try:
        validate_layout(obj)
        error = None
    except ValueError as problem:
        error = str(problem)
    if not isinstance(obj, Mapping) or json_size_or_none(obj) is None:
        # Not an object, not JSON, or over the size cap: nothing to read.
        return LayoutPreview(error=error, charts=())
    charts = []
    categories = obj.get("categories")
    for i, category in enumerate(_list_prefix(categories, MAX_CATEGORIES)):
        if not isinstance(category, Mapping):
            continue
        raw_charts = _list_prefix(
            category.get("charts"), MAX_CHARTS_PER_CATEGORY
        )
        for j, raw in enumerate(raw_charts):
            if isinstance(raw, Mapping):
                path = f"categories[{i}].charts[{j}]"
                charts.append(
                    _preview_chart(raw, i, j, path, candidates, budget)
                )
    return LayoutPreview(error=error, charts=tuple(charts))


def _list_prefix(value: object, cap: int) -> Sequence[Any]:
    return value[:cap] if isinstance(value, (list, tuple)) else ()


def _preview_chart(
    raw: Mapping[str, Any],
    category: int,
    index: int,
    path: str,
    candidates: Sequence[Candidate],
    budget: Budget,
) -> ChartPreview:
    problems: list[RegexProblem] = []

    def usable(key: str) -> tuple[str, ...]:
        kept = []
        for k, item in enumerate(
            _list_prefix(raw.get(key), MAX_PATTERNS_PER_CHART)
        ):
            if not isinstance(item, str) or not item:
                continue
            problem = _preview_problem(item, f"{path}.{key}[{k}]")
            if problem is None:
                kept.append(item)
            else:
                problems.append(problem)
        return tuple(kept)

    tags = usable("tags")
    metrics = usable("metrics")
    runs = raw.get("runs")
    run_ok = True
    if isinstance(runs, str) and runs:
        problem = _preview_problem(runs, f"{path}.runs")
        if problem is not None:
            problems.append(problem)
            run_ok = False
    else:
        runs = None
    series = tuple(
        MarginSeries(s["value"], s["lower"], s["upper"])
        for s in _list_prefix(raw.get("series"), MAX_PATTERNS_PER_CHART)
        if isinstance(s, Mapping)
        and all(isinstance(s.get(k), str) for k in SERIES_KEYS)
    )
    title = raw.get("title")
    title = title if isinstance(title, str) else ""
    matches: list[Match] = []
    missing: list[MissingTags] = []
    skipped = ""
    # An upper bound of the chart's regex tests: each pattern (and the run
    # filter) against every name.
    cost = (len(tags) + len(metrics) + (1 if runs else 0)) * len(candidates)
    if run_ok and not budget.take(cost):
        run_ok = False
        skipped = (
            "not matched: the client went away"
            if budget.stopped
            else f"not matched: the preview's budget of "
            f"{int(budget.units):,} regex tests is spent (this chart needs "
            f"up to {cost:,}); fewer regexes or runs show it"
        )
    if run_ok:
        kind: ChartKind = (
            "margin" if raw.get("kind") == "margin" else "multiline"
        )
        chart = Chart(
            title=title,
            kind=kind,
            tags=() if metrics else tags,
            metrics=metrics,
            series=series,
            runs=runs,
        )
        matches, missing = _match(chart, candidates)
        # A pattern the fallback engine gave up on while matching.
        late = [
            (f"{path}.{key}[{k}]", item)
            for key, items in (("tags", tags), ("metrics", metrics))
            for k, item in enumerate(items)
        ] + ([(f"{path}.runs", runs)] if runs else [])
        for where, item in late:
            problem = regex_problem(item, path=where)
            if problem is not None:
                problems.append(problem)
    return ChartPreview(
        category=category,
        chart=index,
        title=title,
        matches=tuple(matches[:MAX_PREVIEW_MATCHES]),
        total_matches=len(matches),
        regex_errors=tuple(problems),
        missing=tuple(missing),
        skipped=skipped,
    )


def _preview_problem(pattern: str, path: str) -> RegexProblem | None:
    if len(pattern) > MAX_REGEX_CHARS:
        return RegexProblem(
            path,
            shorten(pattern),
            f"regex of {len(pattern)} characters, more than {MAX_REGEX_CHARS}",
            None,
        )
    return regex_problem(pattern, path=path)


def preview_to_json(preview: LayoutPreview) -> dict[str, Any]:
    """Turns a preview into JSON for the UI (camelCase)."""
    return {
        "error": preview.error,
        "charts": [
            {
                "category": c.category,
                "chart": c.chart,
                "title": c.title,
                "matches": [_match_to_json(m) for m in c.matches],
                "totalMatches": c.total_matches,
                "regexErrors": [
                    {
                        "path": p.path,
                        "pattern": p.pattern,
                        "message": p.message,
                        "position": p.position,
                    }
                    for p in c.regex_errors
                ],
                "missing": [
                    {"run": m.run, "tags": list(m.tags)} for m in c.missing
                ],
                "skipped": c.skipped,
            }
            for c in preview.charts
        ],
    }


def _match_to_json(match: Match) -> dict[str, Any]:
    return {
        "run": match.run,
        "tag": match.tag,
        "metric": match.metric,
        "lower": match.lower,
        "upper": match.upper,
    }
