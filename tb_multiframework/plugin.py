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
import mimetypes
import os
import posixpath
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tensorboard.backend import http_util
from tensorboard.plugins import base_plugin
from werkzeug import wrappers

from tb_multiframework import i18n, wiring
from tb_multiframework import route_args as args
from tb_multiframework.api import catalog, memtrace, stalltrace
from tb_multiframework.api import service as api
from tb_multiframework.api.limits import Busy, HeavySlots, peer_gone
from tb_multiframework.core import (
    filenames,
)
from tb_multiframework.core.axes import AXES
from tb_multiframework.settings.corrections import SettingsUnavailable
from tb_multiframework.settings.layouts import (
    LayoutExistsError,
    LayoutStoreError,
)
from tb_multiframework.sources import SOURCES
from tb_multiframework.store import allocator, collector
from tb_multiframework.wiring import static_dir

PLUGIN_NAME = "tb_multiframework"
# The tab's name in TensorBoard's header: short ("Multiframework" was cut),
# and padded with no-break spaces: once the header's tabs overflow, it
# scrolls the last tab (third-party plugins come last) about 36 px under its
# "INACTIVE" menu, so only the padding is covered (tests/e2e/test_tab_name.py).
TAB_NAME = "Frameworks" + "\u00a0" * 10
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

    def __init__(self) -> None:
        # Before TensorBoard starts its threads (it builds the loaders
        # first): a thread that allocated before the settings keeps an
        # arena of its own, which request threads would then share.
        allocator.keep_freed_memory()

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
        self._heavy = HeavySlots()
        memtrace.start_from_environment(self._api.memory_figures)
        stalltrace.start_from_environment()
        if self._loader is not None:
            self._loader.after_reload = self._after_reload
            interval = float(getattr(flags, "reload_interval", 5.0) or 0)
            blocking = getattr(flags, "reload_task", "auto") == "blocking"
            if blocking:
                try:
                    self._loader.reload()
                finally:
                    self._loader.loaded_once.set()
            if interval > 0 or not blocking:
                self._loader.start(interval, wait_first=blocking)

    def _after_reload(self) -> None:
        self._api.settled_context()
        # What the reload added is long-lived now: keep full collections
        # short (store/collector.py).
        collector.freeze_long_lived()

    def get_plugin_apps(self) -> dict[str, Callable[..., Any]]:
        return {
            "/index.js": self._serve_index,
            "/static/*": self._serve_static,
            "/runs": self.runs_route,
            "/metrics": self.metrics_route,
            "/tags": self.tags_route,
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
            "/i18n": self.i18n_route,
        }

    def is_active(self) -> bool:
        return self._loader is not None

    def frontend_metadata(self) -> base_plugin.FrontendMetadata:
        return base_plugin.FrontendMetadata(
            es_module_path="/index.js", tab_name=TAB_NAME
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
        return _answer(
            request,
            lambda: self._api.runs(
                all_tags=args.choice(request, "tags", ("some", "all"), "some")
                == "all"
            ),
        )

    @wrappers.Request.application
    def metrics_route(self, request: wrappers.Request) -> wrappers.Response:
        def page() -> Any:
            limit = request.args.get("limit")
            return self._api.cached_page(
                "metrics",
                search=request.args.get("search", ""),
                runs=args.run_names(request),
                keys=args.repeated(request, "key"),
                offset=args.integer(request, "offset", 0, 0, 1 << 40),
                limit=None
                if limit is None
                else args.integer(request, "limit", 0, 1, catalog.MAX_PAGE),
            )

        return _answer(request, page)

    @wrappers.Request.application
    def tags_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.cached_page(
                "tags",
                search=request.args.get("search", ""),
                runs=args.run_names(request),
                offset=args.integer(request, "offset", 0, 0, 1 << 40),
                limit=args.integer(
                    request,
                    "limit",
                    catalog.DEFAULT_TAG_PAGE,
                    1,
                    catalog.MAX_PAGE,
                ),
            ),
        )

    @wrappers.Request.application
    def scalars_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(
            request, lambda: self._api.scalars(args.scalar_query(request))
        )

    @wrappers.Request.application
    def export_route(self, request: wrappers.Request) -> wrappers.Response:
        if request.method not in ("GET", "HEAD"):
            # A download, never a write: any other method is refused, not
            # answered with the file (a fuzzed PUT got the CSV).
            return _error(request, 405, f"method {request.method} not allowed")

        def run() -> wrappers.Response:
            fmt = args.choice(request, "format", ("csv", "json"), "csv")
            query = args.scalar_query(request)
            gone = _gone(request)
            self._heavy.acquire(gone)
            try:
                pieces, content_type = self._api.export(query, fmt)
            except BaseException:
                self._heavy.release()
                raise
            # Named after what it holds; the name is reduced to [A-Za-z0-9._-]
            # so a hostile tag cannot shape the header or the file name.
            name = filenames.export_filename(
                metric=query.metric,
                tag=query.tag,
                x=query.x,
                fmt=fmt,
                date=datetime.date.today(),
            )
            return _streamed(
                request,
                pieces,
                content_type,
                release=self._heavy.release,
                disposition=f'attachment; filename="{name}"',
            )

        return _answer(request, run)

    @wrappers.Request.application
    def histograms_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.histograms(
                args.text(request, "run"),
                args.text(request, "tag"),
                args.choice(request, "x", AXES, "step"),
            ),
        )

    @wrappers.Request.application
    def histogram_diff_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.histogram_diff(
                args.histogram_query(request),
                args.number(request, "at", None),
            ),
        )

    @wrappers.Request.application
    def histogram_distances_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.histogram_distances(args.histogram_query(request)),
        )

    @wrappers.Request.application
    def histogram_pairs_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.histogram_pairs(
                args.text(request, "runA"), args.text(request, "runB")
            ),
        )

    @wrappers.Request.application
    def layouts_route(self, request: wrappers.Request) -> wrappers.Response:
        if request.method == "GET":
            return _answer(request, lambda: self._api.layouts())
        if request.method == "POST":
            return _answer(
                request, lambda: self._api.save_layout(args.json_body(request))
            )
        if request.method == "DELETE":

            def delete() -> Any:
                args.checked_mutation(request)
                return self._api.delete_layout(args.text(request, "name"))

            return _answer(request, delete)
        return _error(request, 405, f"method {request.method} not allowed")

    @wrappers.Request.application
    def layout_preview_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        if request.method != "POST":
            return _error(request, 405, "use POST with a JSON body")

        def preview() -> Any:
            body = args.json_body(request)
            gone = _gone(request)
            with self._heavy.held(gone):
                return self._api.preview_layout(body, should_stop=gone)

        return _answer(request, preview)

    @wrappers.Request.application
    def run_settings_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        if request.method != "POST":
            return _error(request, 405, "use POST with a JSON body")
        return _answer(
            request, lambda: self._api.save_run_settings(args.json_body(request))
        )

    @wrappers.Request.application
    def config_diff_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(request, lambda: self._api.config_diff(args.run_names(request)))

    @wrappers.Request.application
    def metric_summary_route(
        self, request: wrappers.Request
    ) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.metric_summary(args.text(request, "metric")),
        )

    @wrappers.Request.application
    def speed_route(self, request: wrappers.Request) -> wrappers.Response:
        return _answer(
            request,
            lambda: self._api.speed(tuple(dict.fromkeys(args.run_names(request)))),
        )

    @wrappers.Request.application
    def i18n_route(self, request: wrappers.Request) -> wrappers.Response:
        def answer() -> Any:
            lang = args.choice(request, "lang", i18n.LANGUAGES, i18n.DEFAULT_LANG)
            return {
                "lang": lang,
                "languages": list(i18n.LANGUAGES),
                "messages": i18n.messages(lang),
            }

        return _answer(request, answer)

    @wrappers.Request.application
    def anomalies_route(self, request: wrappers.Request) -> wrappers.Response:
        def find() -> Any:
            query = args.anomaly_query(request)
            if query.tag is not None or query.metric is not None:
                return self._api.anomalies(query)
            # Every series of some or all runs: heavy.
            gone = _gone(request)
            with self._heavy.held(gone):
                return self._api.anomalies(query, should_stop=gone)

        return _answer(request, find)


# Responses.


def _answer(
    request: wrappers.Request, compute: Callable[[], Any]
) -> wrappers.Response:
    """Runs a route's work and maps its errors to JSON answers."""
    try:
        result = compute()
    except args.Forbidden as error:
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
    except Busy as error:
        response = _error(request, 429, str(error))
        response.headers["Retry-After"] = "5"
        return response
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


def _gone(request: wrappers.Request) -> Callable[[], bool]:
    """Whether the client of `request` has gone away (checked on call)."""
    return peer_gone(request.environ.get("werkzeug.socket"))


def _streamed(
    request: wrappers.Request,
    pieces: Iterator[str],
    content_type: str,
    *,
    release: Callable[[], None],
    disposition: str,
) -> wrappers.Response:
    """A body sent as it is made, never held whole; `release` runs once
    when it is done or the client went away (the server then stops
    iterating and closes the generator)."""
    released = threading.Event()

    def release_once() -> None:
        if not released.is_set():
            released.set()
            release()

    def body() -> Iterator[bytes]:
        try:
            for piece in pieces:
                yield piece.encode("utf-8")
        finally:
            release_once()

    response = wrappers.Response(
        response=None if request.method == "HEAD" else body(),
        status=200,
        content_type=content_type,
        direct_passthrough=True,
        headers=[
            ("X-Content-Type-Options", "nosniff"),
            ("Expires", "0"),
            ("Cache-Control", "no-cache, must-revalidate"),
            ("Content-Disposition", disposition),
        ],
    )
    response.call_on_close(release_once)
    return response


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
