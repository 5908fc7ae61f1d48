"""Custom-scalar layouts: schema, import from runs, merging and regex matching.

A layout is a named dashboard: categories of charts, each chart a set of
series picked by regular expressions. Layouts come from two places: those
logged into runs (PyTorch/tensorboardX ``add_custom_scalars``, TF
``custom_scalar`` summaries), which are read-only, and user layouts saved
from the UI.

JSON schema (what ``layout_to_json`` emits and ``validate_layout`` accepts)::

    {"name": str,                      # 1..100 chars, see validate_layout_name
     "readOnly": bool,                 # output only: ignored on input
     "warnings": [str],                # output only: ignored on input
     "categories": [{                  # <= MAX_CATEGORIES
        "title": str,                  # 0..200 chars, no control characters
        "closed": bool,                # default false
        "source": [run],               # output only: runs it was logged in
        "charts": [{                   # <= MAX_CHARTS_PER_CATEGORY
           "title": str,
           "kind": "multiline" | "margin",
           "tags": [regex],            # multiline: exactly one of tags and
           "metrics": [regex],         #   metrics is non-empty
           "series": [{"value": tag, "lower": tag, "upper": tag}],  # margin
           "runs": regex | null,       # default null: every run
           "x": "step" | "epoch" | "relative" | "wall" | "progress",
           "smoothing": number,        # in [0, 1), default 0.6
           "logY": bool,               # default false
           "source": [run]}]}]}        # output only

Only ``name``, ``title`` and ``kind`` are required; missing optional keys
take the defaults above, unknown keys are rejected by name. Lists hold at
most MAX_PATTERNS_PER_CHART entries, a regex or tag at most MAX_REGEX_CHARS
characters, and the whole JSON at most MAX_LAYOUT_JSON_BYTES.

Names: 1..MAX_NAME_CHARS characters of any letters, digits, punctuation,
symbols and spaces (any script), no leading or trailing whitespace, no
control, format (zero-width, bidi override), private-use, unassigned or
line/paragraph separator characters. They are JSON keys, never file
names, so ``/`` and ``.`` are fine.

Matching, per (run, tag) pair, as TensorBoard's custom-scalars plugin does:

- ``tags`` regexes are applied with ``re.match`` (anchored at the start,
  not the end) to each run's raw tag names: TensorBoard joins a chart's
  regexes into ``(r1)|(r2)`` and calls ``regex.match(tag)`` per run. We
  apply them one by one, which selects the same tags but does not break
  on inline flags or group numbers.
- ``metrics`` regexes use the same ``re.match`` over canonical metric names.
- ``runs`` uses ``re.search`` over run names, like TensorBoard's run filter.
- Margin series name exact tags; a run shows a series only when it logged
  all three of value, lower and upper.

Regexes are Python's syntax but never run on Python's backtracking
engine, where ``(a|aa)+$`` takes exponential time on a short tag: they go
through ``core.safe_regex`` (RE2, linear time; without google-re2, Python's
``re`` in a worker process with a time budget). Constructs only a
backtracking engine has (backreferences, lookarounds, possessive repeats,
atomic and conditional groups) are refused with their name.
"""

from __future__ import annotations

import dataclasses
import json
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tb_multiframework.core import safe_regex

MAX_NAME_CHARS = 100  # characters in a layout name
MAX_TITLE_CHARS = 200  # characters in a category or chart title
MAX_CATEGORIES = 50  # categories per layout
MAX_CHARTS_PER_CATEGORY = 50  # charts per category
MAX_PATTERNS_PER_CHART = 20  # tags, metrics or margin series per chart
MAX_REGEX_CHARS = 500  # characters in one regex or margin tag name
MAX_LAYOUT_JSON_BYTES = 256 * 1024  # UTF-8 bytes of one layout's JSON
MAX_PREVIEW_MATCHES = 200  # matches listed per chart in a preview
MAX_MATCH_SUBJECT_CHARS = 16_384  # longer run/tag/metric names never match

DEFAULT_SMOOTHING = 0.6  # TensorBoard's default smoothing weight
DEFAULT_X = "step"
IMPORTED_LAYOUT_NAME = "Logged in runs"

AXES = ("step", "epoch", "relative", "wall", "progress")
KINDS = ("multiline", "margin")

ChartKind = Literal["multiline", "margin"]

_LAYOUT_KEYS = frozenset({"name", "categories"})
_LAYOUT_OUTPUT_KEYS = frozenset({"readOnly", "warnings"})
_CATEGORY_KEYS = frozenset({"title", "closed", "charts"})
_CHART_KEYS = frozenset(
    {"title", "kind", "tags", "metrics", "series", "runs", "x"}
    | {"smoothing", "logY"}
)
_SERIES_KEYS = frozenset({"value", "lower", "upper"})
_SOURCE_KEY = "source"


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
class RegexProblem:
    """Why one regex of a chart cannot be used.

    Attributes:
      path: Where it is, e.g. "categories[1].charts[0].tags[2]".
      pattern: The regex as given.
      message: Python's explanation, e.g. "unterminated character set at
        position 3".
      position: Offset of the error in the pattern, if known.
    """

    path: str
    pattern: str
    message: str
    position: int | None


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
    """

    category: int
    chart: int
    title: str
    matches: tuple[Match, ...]
    total_matches: int
    regex_errors: tuple[RegexProblem, ...]
    missing: tuple[MissingTags, ...] = ()


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


# ---------------------------------------------------------------------------
# Validation


def validate_layout(obj: object) -> Layout:
    """Checks a user layout against the schema and returns it.

    Args:
      obj: The decoded JSON of one layout.

    Returns:
      The layout with defaults filled in; output-only keys (readOnly,
      warnings, source) are accepted and dropped, so an imported layout
      can be duplicated as it is.

    Raises:
      ValueError: The first rule broken, as "<path>: <reason>".
    """
    size = _json_size(obj)
    if size > MAX_LAYOUT_JSON_BYTES:
        raise ValueError(
            f"layout: {size} bytes of JSON, more than the "
            f"{MAX_LAYOUT_JSON_BYTES // 1024} KiB allowed"
        )
    layout = _expect_object(obj, "layout")
    _check_keys(
        layout, "layout", _LAYOUT_KEYS | _LAYOUT_OUTPUT_KEYS, required=("name",)
    )
    name = validate_layout_name(layout["name"])
    raw_categories = _expect_array(
        layout.get("categories", []), "categories", cap=MAX_CATEGORIES
    )
    categories = tuple(
        _validate_category(c, f"categories[{i}]")
        for i, c in enumerate(raw_categories)
    )
    valid = Layout(name=name, categories=categories)
    # Defaults make the stored form larger than the input; capping it too
    # means a saved layout always passes validation again when read back.
    size = _json_size(layout_to_json(valid))
    if size > MAX_LAYOUT_JSON_BYTES:
        raise ValueError(
            f"layout: {size} bytes of JSON once defaults are filled in, more "
            f"than the {MAX_LAYOUT_JSON_BYTES // 1024} KiB allowed"
        )
    return valid


def validate_layout_name(name: object, *, path: str = "name") -> str:
    """Checks a layout name against the naming rules (module docstring).

    Args:
      name: The candidate name.
      path: Where the name is, for the error message.

    Returns:
      The name, unchanged.

    Raises:
      ValueError: The rule broken, with the name.
    """
    text = _expect_string(name, path)
    if not text:
        raise ValueError(f"{path}: must not be empty")
    if len(text) > MAX_NAME_CHARS:
        raise ValueError(
            f"{path}: {len(text)} characters, more than {MAX_NAME_CHARS}: "
            f"{_shorten(text)!r}"
        )
    if not text.strip():
        raise ValueError(f"{path}: must not be only whitespace: {text!r}")
    if text != text.strip():
        raise ValueError(
            f"{path}: must not start or end with whitespace: {text!r}"
        )
    _check_printable(text, path)
    return text


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


def _validate_category(obj: object, path: str) -> Category:
    category = _expect_object(obj, path)
    _check_keys(
        category, path, _CATEGORY_KEYS | {_SOURCE_KEY}, required=("title",)
    )
    title = _validate_title(category["title"], f"{path}.title")
    closed = _expect_bool(category.get("closed", False), f"{path}.closed")
    raw_charts = _expect_array(
        category.get("charts", []),
        f"{path}.charts",
        cap=MAX_CHARTS_PER_CATEGORY,
    )
    charts = tuple(
        _validate_chart(c, f"{path}.charts[{i}]")
        for i, c in enumerate(raw_charts)
    )
    return Category(title=title, closed=closed, charts=charts)


def _validate_chart(obj: object, path: str) -> Chart:
    chart = _expect_object(obj, path)
    _check_keys(chart, path, _CHART_KEYS | {_SOURCE_KEY}, required=("title",))
    if "kind" not in chart:
        raise ValueError(f"{path}: missing key 'kind' (multiline or margin)")
    title = _validate_title(chart["title"], f"{path}.title")
    kind = _validate_kind(chart["kind"], f"{path}.kind")
    tags = _validate_patterns(chart.get("tags", []), f"{path}.tags")
    metrics = _validate_patterns(chart.get("metrics", []), f"{path}.metrics")
    series = _validate_series_list(chart.get("series", []), f"{path}.series")
    if kind == "multiline":
        if series:
            raise ValueError(
                f"{path}.series: only margin charts have series; "
                "a multiline chart selects lines with tags or metrics"
            )
        if bool(tags) == bool(metrics):
            raise ValueError(
                f"{path}: a multiline chart needs exactly one of 'tags' and "
                "'metrics' non-empty"
            )
    else:
        if tags or metrics:
            key = "tags" if tags else "metrics"
            raise ValueError(
                f"{path}.{key}: a margin chart names exact tags in 'series', "
                f"not {key} regexes"
            )
        if not series:
            raise ValueError(f"{path}.series: a margin chart needs a series")
    runs = _validate_runs(chart.get("runs"), f"{path}.runs")
    x = chart.get("x", DEFAULT_X)
    if not isinstance(x, str) or x not in AXES:
        raise ValueError(
            f"{path}.x: must be one of {', '.join(AXES)}; got {_show(x)}"
        )
    smoothing = _validate_smoothing(
        chart.get("smoothing", DEFAULT_SMOOTHING), f"{path}.smoothing"
    )
    log_y = _expect_bool(chart.get("logY", False), f"{path}.logY")
    return Chart(
        title=title,
        kind=kind,
        tags=tags,
        metrics=metrics,
        series=series,
        runs=runs,
        x=x,
        smoothing=smoothing,
        log_y=log_y,
    )


def _validate_kind(value: object, path: str) -> ChartKind:
    if value == "multiline" and isinstance(value, str):
        return "multiline"
    if value == "margin" and isinstance(value, str):
        return "margin"
    raise ValueError(f"{path}: must be multiline or margin; got {_show(value)}")


def _validate_patterns(value: object, path: str) -> tuple[str, ...]:
    items = _expect_array(value, path, cap=MAX_PATTERNS_PER_CHART)
    return tuple(
        _validate_pattern(item, f"{path}[{i}]") for i, item in enumerate(items)
    )


def _validate_pattern(value: object, path: str) -> str:
    pattern = _expect_string(value, path)
    if not pattern:
        raise ValueError(f"{path}: must not be an empty regex")
    if len(pattern) > MAX_REGEX_CHARS:
        raise ValueError(
            f"{path}: regex of {len(pattern)} characters, more than "
            f"{MAX_REGEX_CHARS}: {_shorten(pattern)!r}"
        )
    problem = regex_problem(pattern, path=path)
    if problem is not None:
        raise ValueError(
            f"{path}: {problem.message} in regex {_shorten(pattern)!r}"
        )
    return pattern


def _validate_runs(value: object, path: str) -> str | None:
    # An empty run filter from a cleared text box means "every run".
    if value is None or value == "":
        return None
    return _validate_pattern(value, path)


def _validate_series_list(value: object, path: str) -> tuple[MarginSeries, ...]:
    items = _expect_array(value, path, cap=MAX_PATTERNS_PER_CHART)
    return tuple(
        _validate_series(item, f"{path}[{i}]") for i, item in enumerate(items)
    )


def _validate_series(value: object, path: str) -> MarginSeries:
    series = _expect_object(value, path)
    _check_keys(
        series, path, _SERIES_KEYS, required=tuple(sorted(_SERIES_KEYS))
    )
    tags = {}
    for key in ("value", "lower", "upper"):
        tag = _expect_string(series[key], f"{path}.{key}")
        if not tag:
            raise ValueError(f"{path}.{key}: must name a tag, got ''")
        if len(tag) > MAX_REGEX_CHARS:
            raise ValueError(
                f"{path}.{key}: tag of {len(tag)} characters, more than "
                f"{MAX_REGEX_CHARS}: {_shorten(tag)!r}"
            )
        tags[key] = tag
    return MarginSeries(**tags)


def _validate_smoothing(value: object, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _wrong_type(path, "a number", value)
    number = float(value)
    if not (math.isfinite(number) and 0.0 <= number < 1.0):
        raise ValueError(f"{path}: must be in [0, 1), got {value!r}")
    return number


def _validate_title(value: object, path: str) -> str:
    title = _expect_string(value, path)
    if len(title) > MAX_TITLE_CHARS:
        raise ValueError(
            f"{path}: {len(title)} characters, more than {MAX_TITLE_CHARS}: "
            f"{_shorten(title)!r}"
        )
    _check_printable(title, path)
    return title


def _check_printable(text: str, path: str) -> None:
    for i, char in enumerate(text):
        kind = unicodedata.category(char)
        if kind.startswith("C") or kind in ("Zl", "Zp"):
            raise ValueError(
                f"{path}: control or invisible character U+{ord(char):04X} "
                f"at position {i} in {_shorten(text)!r}"
            )


def _check_keys(
    obj: Mapping[str, Any],
    path: str,
    allowed: frozenset[str],
    *,
    required: tuple[str, ...],
) -> None:
    for key in obj:
        if key not in allowed:
            raise ValueError(
                f"{path}: unknown key {_shorten(str(key))!r} "
                f"(allowed: {', '.join(sorted(allowed))})"
            )
    for key in required:
        if key not in obj:
            raise ValueError(f"{path}: missing key {key!r}")


def _expect_object(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _wrong_type(path, "an object", value)
    return value


def _expect_array(value: object, path: str, *, cap: int) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise _wrong_type(path, "an array", value)
    if len(value) > cap:
        raise ValueError(f"{path}: {len(value)} entries, more than {cap}")
    return value


def _expect_string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise _wrong_type(path, "a string", value)
    return value


def _expect_bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise _wrong_type(path, "true or false", value)
    return value


def _wrong_type(path: str, expected: str, value: object) -> ValueError:
    return ValueError(f"{path}: expected {expected}, got {_show(value)}")


def _json_size(obj: object) -> int:
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as error:
        raise ValueError(f"layout: not JSON data ({error})") from error
    return len(text.encode("utf-8"))


def _json_size_or_none(obj: object) -> int | None:
    """The JSON size of obj if it is JSON within the cap, else None."""
    try:
        size = _json_size(obj)
    except ValueError:
        return None
    return size if size <= MAX_LAYOUT_JSON_BYTES else None


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _show(value: object) -> str:
    """Names a JSON value's type and, for scalars, the value itself."""
    kind = _json_type(value)
    if isinstance(value, (Mapping, list, tuple)):
        return kind
    if value is None:
        return kind
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(value)
    return f"{kind} {_shorten(shown)}"


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------------------
# Regexes


def regex_problem(pattern: str, *, path: str = "") -> RegexProblem | None:
    """Says why a regex cannot be used, or None when it can.

    Args:
      pattern: A regular expression in Python's syntax.
      path: Where it is, copied into the result.

    Returns:
      None, or the reason (see `safe_regex.compile`): Python's own error
      with its position, or the construct that matching in linear time
      rules out (a backreference, a lookaround, ...).
    """
    error = safe_regex.check(pattern)
    if error is None:
        return None
    return RegexProblem(path, pattern, error.message, error.position)


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


# ---------------------------------------------------------------------------
# Matching


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
    obj: object, candidates: Sequence[Candidate]
) -> LayoutPreview:
    """Matches each chart of a layout being edited, never raising.

    Reads as much of the layout as has the right shape, so that the UI
    can show matches and regex errors while the user types.

    Args:
      obj: The decoded JSON of a layout, possibly invalid.
      candidates: Every (run, tag) available.

    Returns:
      The first validation error (or None) and, per readable chart, its
      matches (from the regexes that compile) and its regex errors.
    """
    try:
        validate_layout(obj)
        error = None
    except ValueError as problem:
        error = str(problem)
    if not isinstance(obj, Mapping) or _json_size_or_none(obj) is None:
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
                charts.append(_preview_chart(raw, i, j, path, candidates))
    return LayoutPreview(error=error, charts=tuple(charts))


def _list_prefix(value: object, cap: int) -> Sequence[Any]:
    return value[:cap] if isinstance(value, (list, tuple)) else ()


def _preview_chart(
    raw: Mapping[str, Any],
    category: int,
    index: int,
    path: str,
    candidates: Sequence[Candidate],
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
        and all(isinstance(s.get(k), str) for k in _SERIES_KEYS)
    )
    title = raw.get("title")
    title = title if isinstance(title, str) else ""
    matches: list[Match] = []
    missing: list[MissingTags] = []
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
    )


def _preview_problem(pattern: str, path: str) -> RegexProblem | None:
    if len(pattern) > MAX_REGEX_CHARS:
        return RegexProblem(
            path,
            _shorten(pattern),
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


# ---------------------------------------------------------------------------
# Layouts logged in runs


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
                f"{where} (runs {runs}): tags[{k}] {_shorten(pattern)!r}: "
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
