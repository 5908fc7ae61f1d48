"""Checks a user layout against the schema, naming the first rule broken.

`validate_layout` accepts a layout's decoded JSON (the package docstring
gives the schema) and returns it as a `Layout` with defaults filled in, or
raises `ValueError` as "<path>: <reason>". Regexes are checked by
`regex_problem` through `core.safe_regex`, which refuses constructs that
need backtracking.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tb_multiframework.core import safe_regex
from tb_multiframework.core.layouts.schema import (
    AXES,
    CATEGORY_KEYS,
    CHART_KEYS,
    DEFAULT_SMOOTHING,
    DEFAULT_X,
    LAYOUT_KEYS,
    LAYOUT_OUTPUT_KEYS,
    MAX_CATEGORIES,
    MAX_CHARTS_PER_CATEGORY,
    MAX_LAYOUT_JSON_BYTES,
    MAX_NAME_CHARS,
    MAX_PATTERNS_PER_CHART,
    MAX_REGEX_CHARS,
    MAX_TITLE_CHARS,
    SERIES_KEYS,
    SOURCE_KEY,
    Category,
    Chart,
    ChartKind,
    Layout,
    MarginSeries,
    layout_to_json,
)


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
        layout, "layout", LAYOUT_KEYS | LAYOUT_OUTPUT_KEYS, required=("name",)
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
            f"{shorten(text)!r}"
        )
    if not text.strip():
        raise ValueError(f"{path}: must not be only whitespace: {text!r}")
    if text != text.strip():
        raise ValueError(
            f"{path}: must not start or end with whitespace: {text!r}"
        )
    _check_printable(text, path)
    return text


def _validate_category(obj: object, path: str) -> Category:
    category = _expect_object(obj, path)
    _check_keys(
        category, path, CATEGORY_KEYS | {SOURCE_KEY}, required=("title",)
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
    _check_keys(chart, path, CHART_KEYS | {SOURCE_KEY}, required=("title",))
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
            f"{MAX_REGEX_CHARS}: {shorten(pattern)!r}"
        )
    problem = regex_problem(pattern, path=path)
    if problem is not None:
        raise ValueError(
            f"{path}: {problem.message} in regex {shorten(pattern)!r}"
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
    _check_keys(series, path, SERIES_KEYS, required=tuple(sorted(SERIES_KEYS)))
    tags = {}
    for key in ("value", "lower", "upper"):
        tag = _expect_string(series[key], f"{path}.{key}")
        if not tag:
            raise ValueError(f"{path}.{key}: must name a tag, got ''")
        if len(tag) > MAX_REGEX_CHARS:
            raise ValueError(
                f"{path}.{key}: tag of {len(tag)} characters, more than "
                f"{MAX_REGEX_CHARS}: {shorten(tag)!r}"
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
            f"{shorten(title)!r}"
        )
    _check_printable(title, path)
    return title


def _check_printable(text: str, path: str) -> None:
    for i, char in enumerate(text):
        kind = unicodedata.category(char)
        if kind.startswith("C") or kind in ("Zl", "Zp"):
            raise ValueError(
                f"{path}: control or invisible character U+{ord(char):04X} "
                f"at position {i} in {shorten(text)!r}"
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
                f"{path}: unknown key {shorten(str(key))!r} "
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


def json_size_or_none(obj: object) -> int | None:
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
    return f"{kind} {shorten(shown)}"


def shorten(text: str, limit: int = 80) -> str:
    """`text` cut to `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
