"""Query arguments and request bodies of the plugin's routes, checked.

Every argument is validated here before a route calls `api`: a missing,
malformed or overlong one is a `BadRequest` (HTTP 400), a mutating request
without the XSRF header or the JSON type a `Forbidden` (403). Split from
`plugin.py`, which keeps the routes.
"""

from __future__ import annotations

import math
from typing import Any

from werkzeug import wrappers

from tb_multiframework.api import service as api
from tb_multiframework.api.anomalies import AnomalyQuery
from tb_multiframework.api.views import ATTEMPT_MODES
from tb_multiframework.core import aggregate, groups, histdiff, strict_json
from tb_multiframework.core.aggregation import BATCH_VIEWS
from tb_multiframework.core.anomalies import parse_kinds
from tb_multiframework.core.axes import AXES
from tb_multiframework.core.diff import DIFF_MODES
from tb_multiframework.core.downsample import DEFAULT_POINTS, MAX_POINTS
from tb_multiframework.core.smoothing import SMOOTHING_MODES

MAX_BODY_BYTES = 512 * 1024  # bytes of a POST body
# Characters of one query argument: above the longest tag or run name the
# plugin lists (ingest.loader.MAX_TAG_BYTES, a path), so every listed name
# can be asked for.
MAX_ARG_CHARS = 16384
MAX_RUNS = 200  # `run` arguments in one request


class BadRequest(ValueError):
    """A malformed request (HTTP 400)."""


class Forbidden(Exception):
    """A mutating request without the XSRF header or JSON type (HTTP 403)."""


def text(request: wrappers.Request, name: str) -> str:
    value = request.args.get(name)
    if value is None or value == "":
        raise BadRequest(f"missing argument {name!r}")
    if len(value) > MAX_ARG_CHARS:
        raise BadRequest(f"argument {name!r} is too long")
    return value


def optional_text(request: wrappers.Request, name: str) -> str | None:
    return text(request, name) if request.args.get(name) else None


def choice(
    request: wrappers.Request,
    name: str,
    allowed: tuple[str, ...],
    default: str,
) -> str:
    value = request.args.get(name, default)
    if value not in allowed:
        raise BadRequest(
            f"argument {name!r} is {value!r}; expected one of {list(allowed)}"
        )
    return value


def number(
    request: wrappers.Request, name: str, default: float | None
) -> float | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise BadRequest(
            f"argument {name!r} is not a number: {raw!r}"
        ) from None
    if not math.isfinite(value):
        raise BadRequest(f"argument {name!r} must be finite, got {raw!r}")
    return value


def integer(
    request: wrappers.Request, name: str, default: int, low: int, high: int
) -> int:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(
            f"argument {name!r} is not an integer: {raw!r}"
        ) from None
    if not low <= value <= high:
        raise BadRequest(
            f"argument {name!r} must be in [{low}, {high}], got {value}"
        )
    return value


def run_names(request: wrappers.Request) -> tuple[str, ...]:
    """The repeated `run` argument."""
    runs = tuple(request.args.getlist("run"))
    if len(runs) > MAX_RUNS:
        raise BadRequest(f"{len(runs)} runs named; at most {MAX_RUNS}")
    if any(not run or len(run) > MAX_ARG_CHARS for run in runs):
        raise BadRequest("empty or overlong 'run' argument")
    return runs


def repeated(request: wrappers.Request, name: str) -> tuple[str, ...]:
    """A repeated argument (at most `MAX_RUNS` values)."""
    values = tuple(request.args.getlist(name))
    if len(values) > MAX_RUNS:
        raise BadRequest(f"{len(values)} {name!r} given; at most {MAX_RUNS}")
    if any(not v or len(v) > MAX_ARG_CHARS for v in values):
        raise BadRequest(f"empty or overlong {name!r} argument")
    return values


def scalar_query(request: wrappers.Request) -> api.ScalarQuery:
    runs = run_names(request)
    tag = optional_text(request, "tag")
    metric = optional_text(request, "metric")
    if (tag is None) == (metric is None):
        raise BadRequest("give exactly one of 'tag' and 'metric'")
    smoothing = number(request, "smoothing", 0.0)
    assert smoothing is not None
    if not 0.0 <= smoothing < 1.0:
        raise BadRequest(
            f"argument 'smoothing' must be in [0, 1), got {smoothing}"
        )
    x_min, x_max = number(request, "xMin", None), number(
        request, "xMax", None
    )
    if (x_min is None) != (x_max is None):
        raise BadRequest("give both 'xMin' and 'xMax', or neither")
    x_range = None if x_min is None or x_max is None else (x_min, x_max)
    if x_range is not None and x_range[0] > x_range[1]:
        raise BadRequest(f"xMin {x_min} is above xMax {x_max}")
    return api.ScalarQuery(
        runs=runs,
        tag=tag,
        metric=metric,
        x=choice(request, "x", AXES, "step"),
        smoothing=smoothing,
        smoothing_mode=choice(
            request, "smoothingMode", tuple(SMOOTHING_MODES), "ema"
        ),
        points=integer(request, "points", DEFAULT_POINTS, 1, MAX_POINTS),
        baseline=optional_text(request, "baseline"),
        diff_mode=choice(request, "diffMode", tuple(DIFF_MODES), "difference"),
        x_range=x_range,
        attempts=choice(request, "attempts", ATTEMPT_MODES, "current"),
        batch_values=choice(request, "batchValues", BATCH_VIEWS, "logged"),
        encoding=choice(request, "encoding", api.SCALAR_ENCODINGS, "json"),
        **aggregate_args(request),
    )


def aggregate_args(request: wrappers.Request) -> dict[str, Any]:
    """groupBy, aggregate, band, baselineGroup and includeSeries."""
    group_by = request.args.get("groupBy") or "group"
    if len(group_by) > MAX_ARG_CHARS:
        raise BadRequest("argument 'groupBy' is too long")
    center = choice(request, "aggregate", aggregate.AGGREGATES, "none")
    band = choice(request, "band", aggregate.BANDS, "none")
    baseline_group = optional_text(request, "baselineGroup")
    include = choice(
        request, "includeSeries", ("1", "0", "true", "false"), "1"
    )
    if center == "none" and (band != "none" or baseline_group is not None):
        raise BadRequest("'band' and 'baselineGroup' need an 'aggregate'")
    if baseline_group is not None and request.args.get("diffMode") == "ratio":
        raise BadRequest("a group baseline draws differences only")
    return {
        "group_by": groups.check_group_by(group_by),
        "aggregate": center,
        "band": band,
        "baseline_group": baseline_group,
        "include_series": include in ("1", "true"),
    }


def histogram_query(request: wrappers.Request) -> api.HistogramQuery:
    return api.HistogramQuery(
        run_a=text(request, "runA"),
        tag_a=text(request, "tagA"),
        run_b=text(request, "runB"),
        tag_b=text(request, "tagB"),
        x=choice(request, "x", AXES, "step"),
        bins=integer(
            request, "bins", histdiff.DEFAULT_BINS, 1, histdiff.MAX_BINS
        ),
    )


def anomaly_query(request: wrappers.Request) -> AnomalyQuery:
    runs = run_names(request)
    tag = optional_text(request, "tag")
    metric = optional_text(request, "metric")
    if tag is not None and metric is not None:
        raise BadRequest("give at most one of 'tag' and 'metric'")
    kinds = None
    raw = request.args.getlist("kinds")
    if sum(len(value) for value in raw) > MAX_ARG_CHARS:
        raise BadRequest("argument 'kinds' is too long")
    listed = [k.strip() for value in raw for k in value.split(",") if k.strip()]
    if listed:  # absent or empty: every kind
        kinds = frozenset(parse_kinds(listed))
    return AnomalyQuery(
        runs=runs,
        tag=tag,
        metric=metric,
        kinds=kinds,
        x=choice(request, "x", AXES, "step"),
    )


def checked_mutation(request: wrappers.Request) -> None:
    """Refuses a mutating request a cross-site page could have sent."""
    if request.headers.get("X-XSRF-Protected") != "1":
        raise Forbidden("missing header X-XSRF-Protected: 1")
    if request.mimetype != "application/json":
        raise Forbidden(
            f"Content-Type must be application/json, not {request.mimetype!r}"
        )


def json_body(request: wrappers.Request) -> Any:
    checked_mutation(request)
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        raise BadRequest(f"body of {length} bytes exceeds {MAX_BODY_BYTES}")
    raw = request.get_data(cache=False)
    if len(raw) > MAX_BODY_BYTES:
        raise BadRequest(f"body exceeds {MAX_BODY_BYTES} bytes")
    try:
        return strict_json.loads(raw)
    except strict_json.JsonError as error:
        raise BadRequest(f"body is not acceptable JSON: {error}") from None
