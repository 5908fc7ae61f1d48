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

The package, by seam: `schema.py` (caps, defaults, the dataclasses,
`layout_to_json`), `validation.py` (`validate_layout`, names, regexes),
`matching.py` (`match_chart`, the live `preview_layout`) and `imported.py`
(`convert_imported_layouts`). Import from the package:
``from tb_multiframework.core import layouts``.
"""

from __future__ import annotations

from tb_multiframework.core.layouts.imported import convert_imported_layouts
from tb_multiframework.core.layouts.matching import (
    Candidate,
    ChartPreview,
    LayoutPreview,
    Match,
    MissingTags,
    match_chart,
    preview_layout,
    preview_to_json,
)
from tb_multiframework.core.layouts.schema import (
    AXES,
    DEFAULT_SMOOTHING,
    DEFAULT_X,
    IMPORTED_LAYOUT_NAME,
    KINDS,
    MAX_CATEGORIES,
    MAX_CHARTS_PER_CATEGORY,
    MAX_LAYOUT_JSON_BYTES,
    MAX_MATCH_SUBJECT_CHARS,
    MAX_NAME_CHARS,
    MAX_PATTERNS_PER_CHART,
    MAX_PREVIEW_MATCHES,
    MAX_PREVIEW_TESTS,
    MAX_REGEX_CHARS,
    MAX_TITLE_CHARS,
    Category,
    Chart,
    ChartKind,
    Layout,
    MarginSeries,
    layout_to_json,
)
from tb_multiframework.core.layouts.validation import (
    RegexProblem,
    regex_problem,
    validate_layout,
    validate_layout_name,
)

__all__ = [
    "AXES",
    "DEFAULT_SMOOTHING",
    "DEFAULT_X",
    "IMPORTED_LAYOUT_NAME",
    "KINDS",
    "MAX_CATEGORIES",
    "MAX_CHARTS_PER_CATEGORY",
    "MAX_LAYOUT_JSON_BYTES",
    "MAX_MATCH_SUBJECT_CHARS",
    "MAX_NAME_CHARS",
    "MAX_PATTERNS_PER_CHART",
    "MAX_PREVIEW_MATCHES",
    "MAX_PREVIEW_TESTS",
    "MAX_REGEX_CHARS",
    "MAX_TITLE_CHARS",
    "Candidate",
    "Category",
    "Chart",
    "ChartKind",
    "ChartPreview",
    "Layout",
    "LayoutPreview",
    "MarginSeries",
    "Match",
    "MissingTags",
    "RegexProblem",
    "convert_imported_layouts",
    "layout_to_json",
    "match_chart",
    "preview_layout",
    "preview_to_json",
    "regex_problem",
    "validate_layout",
    "validate_layout_name",
]
