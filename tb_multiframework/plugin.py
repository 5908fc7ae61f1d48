"""The TensorBoard plugin: flags, routes, and the static frontend.

Routes only parse and validate arguments, call `api` (which calls `core`),
and answer JSON. Bad arguments are a 400 and unknown runs or tags a 404, both
as `{"error": ...}`; no argument can cause a 500. Requests that change
something (POST, DELETE) must carry `Content-Type: application/json` and
`X-XSRF-Protected: 1`, which a cross-site form cannot send: TensorBoard has
no XSRF protection of its own. This module is the plugin's entry point, so
its imports stay light.
"""

from __future__ import annotations

import datetime
import math
import mimetypes
import os
import posixpath
from collections.abc import Callable
from typing import Any

from tensorboard.backend import http_util
from tensorboard.plugins import base_plugin
from werkzeug import wrappers

from tb_multiframework import wiring
from tb_multiframework.api import service as api
from tb_multiframework.api.anomalies import AnomalyQuery
from tb_multiframework.api.views import ATTEMPT_MODES
from tb_multiframework.core import (
    aggregate,
    filenames,
    groups,
    histdiff,
    strict_json,
)
from tb_multiframework.core.aggregation import BATCH_VIEWS
from tb_multiframework.core.anomalies import parse_kinds
from tb_multiframework.core.axes import AXES
from tb_multiframework.core.diff import DIFF_MODES
from tb_multiframework.core.downsample import DEFAULT_POINTS, MAX_POINTS
from tb_multiframework.core.smoothing import SMOOTHING_MODES
from tb_multiframework.settings.corrections import SettingsUnavailable
from tb_multiframework.settings.layouts import (
    LayoutExistsError,
    LayoutStoreError,
)
from tb_multiframework.sources import SOURCES
from tb_multiframework.store import allocator
from tb_multiframework.wiring import static_dir

PLUGIN_NAME = "tb_multiframework"
_MAX_BODY_BYTES = 512 * 1024  # bytes of a POST body
_MAX_ARG_CHARS = 4096  # characters of one query argument
_MAX_RUNS = 200  # `run` arguments in one request
_STATIC_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".html": "text/html",
    ".json": "application/json",
    ".txt": "text/plain",
}


class MultiframeworkLoader(base_plugin.TBLoader):
    """Adds the plugin's flags and builds it."""

    def define_flags(self, parser: Any) -> None:
        group = parser.add_argument_group("tb_multiframework")
        group.add_argument(
            "--tbmf_config",
            metavar="PATH",
            type=str,
            default="",
            help="JSON file with per-run settings (framework, group, epochs) "
            "and metric aliases for the tb_multiframework tab (default: "
            "<logdir>/.tb_multiframework/config.json if present).",
        )
        group.add_argument(
            "--tbmf_layouts_dir",
            metavar="DIR",
            type=str,
            default="",
            help="Where the tb_multiframework tab saves user layouts "
            "(default: <logdir>/.tb_multiframework when writable, else the "
            "user's config directory).",
        )
        group.add_argument(
            "--tbmf_cache_dir",
            metavar="DIR",
            type=str,
            default="",
            help="Where the tb_multiframework tab keeps what it read, so a "
            "restart reads only new bytes (default: "
            "$XDG_CACHE_HOME/tb_multiframework, i.e. "
            "~/.cache/tb_multiframework; 'none' turns the cache off).",
        )
        group.add_argument(
            "--tbmf_source",
            choices=SOURCES,
            default="auto",
            help="Where the tb_multiframework tab reads runs: 'files' (reads "
            "the logdir itself, every point), 'provider' (through "
            "TensorBoard's data provider, e.g. --grpc_data_provider; "
            "sampled unless --samples_per_plugin keeps all) or 'auto' "
            "(files when the logdir is readable from this process).",
        )

    def load(self, context: base_plugin.TBContext) -> MultiframeworkPlugin:
        return MultiframeworkPlugin(context)


class _BadRequest(ValueError):
    """A malformed request (HTTP 400)."""


class _Forbidden(Exception):
    """A mutating request without the XSRF header or JSON type (HTTP 403)."""


class MultiframeworkPlugin(base_plugin.TBPlugin):
    """Compares runs of PyTorch, TensorFlow/Keras and PaddlePaddle."""

    plugin_name = PLUGIN_NAME

    def __init__(self, context: base_plugin.TBContext) -> None:
        allocator.keep_freed_memory()  # series are decoded per request
        flags = context.flags
        self._logdir = context.logdir or ""
        # TensorBoard hands plugins no logdir under --logdir_spec.
        self._logdir_spec = getattr(flags, "logdir_spec", "") or ""
        stack = wiring.build_stack(
            self._logdir,
            logdir_spec=self._logdir_spec,
            config_path=getattr(flags, "tbmf_config", "") or "",
            layouts_dir=getattr(flags, "tbmf_layouts_dir", "") or None,
            source=getattr(flags, "tbmf_source", "auto") or "auto",
            data_provider=context.data_provider,
            flags=flags,
            cache_dir=getattr(flags, "tbmf_cache_dir", "") or "",
        )
        self._loader = stack.loader
        self._api = stack.api
        if self._loader is not None:
            interval = float(getattr(flags, "reload_interval", 5.0) or 0)
            blocking = getattr(flags, "reload_task", "auto") == "blocking"
            if blocking:
                try:
                    self._loader.reload()
                finally:
                    self._loader.loaded_once.set()
            if interval > 0 or not blocking:
                self._loader.start(interval, wait_first=blocking)

    def get_plugin_apps(self) -> dict[str, Callable[..., Any]]:
        return {
            "/index.js": self._serve_index,
            "/static/*": self._serve_static,
            "/runs": self.runs_route,
            "/metrics": self.metrics_route,
            "/scalars": self.scalars_route,
            "/export": self.export_route,
            "/histograms": self.histograms_route,
            "/histogram_diff": self.histogram_diff_route,
            "/histogram_distances": self.histogram_distances_route,
            "/histogram_pairs": self.histogram_pairs_route,
            "/layouts": self.layouts_route,
            "/layout_preview": self.layout_preview_route,
            "/config_diff": self.config_diff_route,
            "/metric_summary": self.metric_summary_route,
            "/speed": self.speed_route,
            "/anomalies": self.anomalies_route,
            "/run_settings": self.run_settings_route,
        }

    def is_active(self) -> bool:
        return self._loader is not None

    def frontend_metadata(self) -> base_plugin.FrontendMetadata:
        return base_plugin.FrontendMetadata(
            es_module_path="/index.js", tab_name="Multiframework"
        )

    # Static files.

    @wrappers.Request.application
    def _serve_index(self, request: wrappers.Request) -> wrappers.Response:
        return _static_response(request, "index.js")

    @wrappers.Request.application
    def _serve_static(self, request: wrappers.Request) -> wrappers.Response:
        marker = f"/{PLUGIN_NAME}/static/"
        path = request.path
        relative = (
            path[path.index(marker) + len(marker) :] if marker in path else ""
        )
        return _static_response(request, relative)

    # Data routes.

    @wrappers.Request.application
    def runs_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(request, lambda: self._api.runs())

    @wrappers.Request.application
    def metrics_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(request, lambda: self._api.metrics())

    @wrappers.Request.application
    def scalars_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(
            request, lambda: self._api.scalars(_scalar_query(request))
        )

    @wrappers.Request.application
    def export_route(self, request: wrappers.Request) -> wrappers.Response:
        def run() -> wrappers.Response:
            fmt = _choice(request, "format", ("csv", "json"), "csv")
            query = _scalar_query(request)
            body, content_type = self._api.export(query, fmt)
            response = http_util.Respond(request, body, content_type)
            # Named after what it holds; the name is reduced to [A-Za-z0-9._-]
            # so a hostile tag cannot shape the header or the file name.
            name = filenames.export_filename(
                metric=query.metric,
                tag=query.tag,
                x=query.x,
                fmt=fmt,
                date=datetime.date.today(),
            )
            response.headers["Content-Disposition"] = (
                f'attachment; filename="{name}"'
            )
            return response

        return _answer(request, run)

    @wrappers.Request.application
    def histograms_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.histograms(
                _text(request, "run"),
                _text(request, "tag"),
                _choice(request, "x", AXES, "step"),
            ),
        )

    @wrappers.Request.application
    def histogram_diff_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.histogram_diff(
                _histogram_query(request),
                _number(request, "at", None),
            ),
        )

    @wrappers.Request.application
    def histogram_distances_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.histogram_distances(_histogram_query(request)),
        )

    @wrappers.Request.application
    def histogram_pairs_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.histogram_pairs(
                _text(request, "runA"), _text(request, "runB")
            ),
        )

    @wrappers.Request.application
    def layouts_route(self, request: wrappers.Request) -> wrappers.Response:
        if request.method == "GET":
            return _answer(request, lambda: self._api.layouts())
        if request.method == "POST":
            return _answer(
                request, lambda: self._api.save_layout(_json_body(request))
            )
        if request.method == "DELETE":

            def delete() -> Any:
                _checked_mutation(request)
                return self._api.delete_layout(_text(request, "name"))

            return _answer(request, delete)
        return _error(request, 405, f"method {request.method} not allowed")

    @wrappers.Request.application
    def layout_preview_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        if request.method != "POST":
            return _error(request, 405, "use POST with a JSON body")
        return _answer(
            request, lambda: self._api.preview_layout(_json_body(request))
        )

    @wrappers.Request.application
    def run_settings_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        if request.method != "POST":
            return _error(request, 405, "use POST with a JSON body")
        return _answer(
            request, lambda: self._api.save_run_settings(_json_body(request))
        )

    @wrappers.Request.application
    def config_diff_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(request, lambda: self._api.config_diff(_runs(request)))

    @wrappers.Request.application
    def metric_summary_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.metric_summary(_text(request, "metric")),
        )

    @wrappers.Request.application
    def speed_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.speed(tuple(dict.fromkeys(_runs(request)))),
        )

    @wrappers.Request.application
    def anomalies_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(
            request, lambda: self._api.anomalies(_anomaly_query(request))
        )


# Arguments.


def _text(request: wrappers.Request, name: str) -> str:
    value = request.args.get(name)
    if value is None or value == "":
        raise _BadRequest(f"missing argument {name!r}")
    if len(value) > _MAX_ARG_CHARS:
        raise _BadRequest(f"argument {name!r} is too long")
    return value


def _optional_text(request: wrappers.Request, name: str) -> str | None:
    return _text(request, name) if request.args.get(name) else None


def _choice(
    request: wrappers.Request,
    name: str,
    allowed: tuple[str, ...],
    default: str,
) -> str:
    value = request.args.get(name, default)
    if value not in allowed:
        raise _BadRequest(
            f"argument {name!r} is {value!r}; expected one of {list(allowed)}"
        )
    return value


def _number(
    request: wrappers.Request, name: str, default: float | None
) -> float | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise _BadRequest(
            f"argument {name!r} is not a number: {raw!r}"
        ) from None
    if not math.isfinite(value):
        raise _BadRequest(f"argument {name!r} must be finite, got {raw!r}")
    return value


def _integer(
    request: wrappers.Request, name: str, default: int, low: int, high: int
) -> int:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise _BadRequest(
            f"argument {name!r} is not an integer: {raw!r}"
        ) from None
    if not low <= value <= high:
        raise _BadRequest(
            f"argument {name!r} must be in [{low}, {high}], got {value}"
        )
    return value


def _runs(request: wrappers.Request) -> tuple[str, ...]:
    """The repeated `run` argument."""
    runs = tuple(request.args.getlist("run"))
    if len(runs) > _MAX_RUNS:
        raise _BadRequest(f"{len(runs)} runs named; at most {_MAX_RUNS}")
    if any(not run or len(run) > _MAX_ARG_CHARS for run in runs):
        raise _BadRequest("empty or overlong 'run' argument")
    return runs


def _scalar_query(request: wrappers.Request) -> api.ScalarQuery:
    runs = _runs(request)
    tag = _optional_text(request, "tag")
    metric = _optional_text(request, "metric")
    if (tag is None) == (metric is None):
        raise _BadRequest("give exactly one of 'tag' and 'metric'")
    smoothing = _number(request, "smoothing", 0.0)
    assert smoothing is not None
    if not 0.0 <= smoothing < 1.0:
        raise _BadRequest(
            f"argument 'smoothing' must be in [0, 1), got {smoothing}"
        )
    x_min, x_max = _number(request, "xMin", None), _number(
        request, "xMax", None
    )
    if (x_min is None) != (x_max is None):
        raise _BadRequest("give both 'xMin' and 'xMax', or neither")
    x_range = None if x_min is None or x_max is None else (x_min, x_max)
    if x_range is not None and x_range[0] > x_range[1]:
        raise _BadRequest(f"xMin {x_min} is above xMax {x_max}")
    return api.ScalarQuery(
        runs=runs,
        tag=tag,
        metric=metric,
        x=_choice(request, "x", AXES, "step"),
        smoothing=smoothing,
        smoothing_mode=_choice(
            request, "smoothingMode", tuple(SMOOTHING_MODES), "ema"
        ),
        points=_integer(request, "points", DEFAULT_POINTS, 1, MAX_POINTS),
        baseline=_optional_text(request, "baseline"),
        diff_mode=_choice(request, "diffMode", tuple(DIFF_MODES), "difference"),
        x_range=x_range,
        attempts=_choice(request, "attempts", ATTEMPT_MODES, "current"),
        batch_values=_choice(request, "batchValues", BATCH_VIEWS, "logged"),
        encoding=_choice(request, "encoding", api.SCALAR_ENCODINGS, "json"),
        **_aggregate_args(request),
    )


def _aggregate_args(request: wrappers.Request) -> dict[str, Any]:
    """groupBy, aggregate, band, baselineGroup and includeSeries."""
    group_by = request.args.get("groupBy") or "group"
    if len(group_by) > _MAX_ARG_CHARS:
        raise _BadRequest("argument 'groupBy' is too long")
    center = _choice(request, "aggregate", aggregate.AGGREGATES, "none")
    band = _choice(request, "band", aggregate.BANDS, "none")
    baseline_group = _optional_text(request, "baselineGroup")
    include = _choice(
        request, "includeSeries", ("1", "0", "true", "false"), "1"
    )
    if center == "none" and (band != "none" or baseline_group is not None):
        raise _BadRequest("'band' and 'baselineGroup' need an 'aggregate'")
    if baseline_group is not None and request.args.get("diffMode") == "ratio":
        raise _BadRequest("a group baseline draws differences only")
    return {
        "group_by": groups.check_group_by(group_by),
        "aggregate": center,
        "band": band,
        "baseline_group": baseline_group,
        "include_series": include in ("1", "true"),
    }


def _histogram_query(request: wrappers.Request) -> api.HistogramQuery:
    return api.HistogramQuery(
        run_a=_text(request, "runA"),
        tag_a=_text(request, "tagA"),
        run_b=_text(request, "runB"),
        tag_b=_text(request, "tagB"),
        x=_choice(request, "x", AXES, "step"),
        bins=_integer(
            request, "bins", histdiff.DEFAULT_BINS, 1, histdiff.MAX_BINS
        ),
    )


def _anomaly_query(request: wrappers.Request) -> AnomalyQuery:
    runs = _runs(request)
    tag = _optional_text(request, "tag")
    metric = _optional_text(request, "metric")
    if tag is not None and metric is not None:
        raise _BadRequest("give at most one of 'tag' and 'metric'")
    kinds = None
    raw = request.args.getlist("kinds")
    if sum(len(value) for value in raw) > _MAX_ARG_CHARS:
        raise _BadRequest("argument 'kinds' is too long")
    listed = [k.strip() for value in raw for k in value.split(",") if k.strip()]
    if listed:  # absent or empty: every kind
        kinds = frozenset(parse_kinds(listed))
    return AnomalyQuery(
        runs=runs,
        tag=tag,
        metric=metric,
        kinds=kinds,
        x=_choice(request, "x", AXES, "step"),
    )


def _checked_mutation(request: wrappers.Request) -> None:
    """Refuses a mutating request a cross-site page could have sent."""
    if request.headers.get("X-XSRF-Protected") != "1":
        raise _Forbidden("missing header X-XSRF-Protected: 1")
    if request.mimetype != "application/json":
        raise _Forbidden(
            f"Content-Type must be application/json, not {request.mimetype!r}"
        )


def _json_body(request: wrappers.Request) -> Any:
    _checked_mutation(request)
    length = request.content_length
    if length is not None and length > _MAX_BODY_BYTES:
        raise _BadRequest(f"body of {length} bytes exceeds {_MAX_BODY_BYTES}")
    raw = request.get_data(cache=False)
    if len(raw) > _MAX_BODY_BYTES:
        raise _BadRequest(f"body exceeds {_MAX_BODY_BYTES} bytes")
    try:
        return strict_json.loads(raw)
    except strict_json.JsonError as error:
        raise _BadRequest(f"body is not acceptable JSON: {error}") from None


# Responses.


def _answer(
    request: wrappers.Request, compute: Callable[[], Any]
) -> wrappers.Response:
    """Runs a route's work and maps its errors to JSON answers."""
    try:
        result = compute()
    except _Forbidden as error:
        return _error(request, 403, str(error))
    except api.NotFound as error:
        return _error(request, 404, str(error.args[0] if error.args else error))
    except LayoutExistsError as error:
        return _error(request, 409, str(error))
    except ValueError as error:
        return _error(request, 400, str(error))
    except (
        api.LayoutsUnavailable,
        LayoutStoreError,
        SettingsUnavailable,
    ) as error:
        return _error(request, 503, str(error))
    if isinstance(result, wrappers.Response):
        return result
    if isinstance(result, api.Encoded):
        if not result.compress:
            return _uncompressed_json(request, result.data)
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            return http_util.Respond(
                request,
                result.gzipped(),
                "application/json",
                content_encoding="gzip",
            )
        return http_util.Respond(request, result.data, "application/json")
    return _json(request, result)


def _uncompressed_json(
    request: wrappers.Request, body: bytes
) -> wrappers.Response:
    """JSON sent as is even to a client accepting gzip (`Respond` would
    compress it), with the headers `Respond` sets on JSON."""
    return wrappers.Response(
        response=None if request.method == "HEAD" else body,
        status=200,
        headers=[
            ("Content-Length", str(len(body))),
            ("X-Content-Type-Options", "nosniff"),
            ("Expires", "0"),
            ("Cache-Control", "no-cache, must-revalidate"),
        ],
        content_type="application/json",
    )


def _json(
    request: wrappers.Request, payload: Any, code: int = 200
) -> wrappers.Response:
    body = api.encode_json(payload)
    return http_util.Respond(request, body, "application/json", code=code)


def _error(
    request: wrappers.Request, code: int, message: str
) -> wrappers.Response:
    return _json(request, {"error": message}, code=code)


def _static_response(
    request: wrappers.Request, relative: str
) -> wrappers.Response:
    root = static_dir()
    if root is None:
        return _error(request, 404, "the frontend files are not installed")
    normalized = posixpath.normpath("/" + relative).lstrip("/")
    if (
        not relative
        or normalized != relative
        or relative.startswith(".")
        or "\\" in relative
    ):
        return _error(request, 400, f"invalid static path {relative!r}")
    full = os.path.join(root, *normalized.split("/"))
    if not os.path.isfile(full):
        return _error(request, 404, f"no static file {relative!r}")
    extension = os.path.splitext(full)[1]
    content_type = _STATIC_TYPES.get(extension) or (
        mimetypes.guess_type(full)[0] or "application/octet-stream"
    )
    with open(full, "rb") as handle:
        content = handle.read()
    return http_util.Respond(request, content, content_type)
