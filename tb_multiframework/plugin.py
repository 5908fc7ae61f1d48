"""The TensorBoard plugin: flags, routes, and the static frontend.

Routes only parse and validate arguments, call `core`, and answer JSON. Bad
arguments are a 400 and unknown runs or tags a 404, both as `{"error": ...}`.
This module is the plugin's entry point, so its imports stay light.
"""

from __future__ import annotations

import json
import mimetypes
import os
import posixpath
from typing import Any, Callable

from tensorboard.backend import http_util
from tensorboard.plugins import base_plugin
from werkzeug import wrappers

from tb_multiframework import api
from tb_multiframework.config import ConfigFile, default_config_path
from tb_multiframework.ingest.loader import Loader
from tb_multiframework.store import Store

PLUGIN_NAME = "tb_multiframework"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# A wheel ships the frontend in static/; a source checkout (or an editable
# install) serves frontend/ beside the package.
_STATIC_DIRS = (
    os.path.join(_PACKAGE_DIR, "static"),
    os.path.join(os.path.dirname(_PACKAGE_DIR), "frontend"),
)
_STATIC_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".html": "text/html",
    ".json": "application/json",
    ".txt": "text/plain",
}


def static_dir() -> str | None:
    """The directory the frontend is served from, or None if missing."""
    for candidate in _STATIC_DIRS:
        if os.path.isfile(os.path.join(candidate, "index.js")):
            return candidate
    return None


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
            "and metric aliases for the tb_multiframework tab.",
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

    def load(self, context: base_plugin.TBContext) -> MultiframeworkPlugin:
        return MultiframeworkPlugin(context)


class MultiframeworkPlugin(base_plugin.TBPlugin):
    """Compares runs of PyTorch, TensorFlow/Keras and PaddlePaddle."""

    plugin_name = PLUGIN_NAME

    def __init__(self, context: base_plugin.TBContext) -> None:
        flags = context.flags
        self._logdir = context.logdir or ""
        self._config_file = ConfigFile(
            getattr(flags, "tbmf_config", "") or None
        )
        self._config_file.refresh()
        self._store = Store()
        self._loader = Loader(
            self._logdir, self._store, config=self._current_config
        )
        if self._logdir:
            interval = float(getattr(flags, "reload_interval", 5.0) or 0)
            if getattr(flags, "reload_task", "auto") == "blocking":
                self._loader.reload()
            self._loader.start(interval)

    def _current_config(self) -> Any:
        self._config_file.refresh()
        return self._config_file.config

    def get_plugin_apps(self) -> dict[str, Callable[..., Any]]:
        return {
            "/index.js": self._serve_index,
            "/static/*": self._serve_static,
            "/runs": self.runs_route,
        }

    def is_active(self) -> bool:
        return bool(self._logdir)

    def frontend_metadata(self) -> base_plugin.FrontendMetadata:
        return base_plugin.FrontendMetadata(
            es_module_path="/index.js", tab_name="Multiframework"
        )

    # Static files.

    @wrappers.Request.application
    def _serve_index(self, request: wrappers.Request) -> wrappers.Response:
        return self._static_response(request, "index.js")

    @wrappers.Request.application
    def _serve_static(self, request: wrappers.Request) -> wrappers.Response:
        marker = f"/{PLUGIN_NAME}/static/"
        path = request.path
        relative = (
            path[path.index(marker) + len(marker) :] if marker in path else ""
        )
        return self._static_response(request, relative)

    def _static_response(
        self, request: wrappers.Request, relative: str
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

    # Data routes.

    @wrappers.Request.application
    def runs_route(self, request: wrappers.Request) -> wrappers.Response:
        return _json(
            request,
            api.runs_payload(self._store, self._loader, self._config_file),
        )


def _json(
    request: wrappers.Request, payload: Any, code: int = 200
) -> wrappers.Response:
    body = json.dumps(
        payload, allow_nan=False, separators=(",", ":"), default=api.to_json
    )
    return http_util.Respond(request, body, "application/json", code=code)


def _error(
    request: wrappers.Request, code: int, message: str
) -> wrappers.Response:
    return _json(request, {"error": message}, code=code)
