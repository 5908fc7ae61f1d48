"""TensorBoard's entry point: the plugin, or a tab saying why it cannot run.

TensorBoard imports every `tensorboard_plugins` entry point and builds
every plugin in one process, with no protection: an exception in any of
them stops TensorBoard, and every other tab goes with it. This module is
that entry point. It imports nothing but the standard library and
TensorBoard's `base_plugin`, then imports and builds the real plugin
(`tb_multiframework.plugin`) inside a `try`. When that fails (a dependency
missing or of an incompatible version, a start-up error), TensorBoard still
starts, and this tab shows what went wrong and how to fix it. Nothing else
in the package imports this module.
"""

from __future__ import annotations

import html
import json
import logging
import os
import sys
import traceback
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any

from tensorboard.plugins import base_plugin

PLUGIN_NAME = "tb_multiframework"  # as tb_multiframework.plugin names it
# The tab's name, as tb_multiframework.plugin.TAB_NAME has it (padded with
# no-break spaces that TensorBoard's header may cover): a broken tab keeps
# its name, and its messages use it.
TAB_TITLE = "Frameworks"
TAB_NAME = TAB_TITLE + "\u00a0" * 10
_DISTRIBUTION = "tb-multiframework"
_DEPENDENCIES = ("tensorboard", "numpy", "protobuf", "werkzeug")
# The plugin's own flags, declared again here so that a command line using
# them still parses when the plugin cannot be imported.
_FLAGS = (
    "--tbmf_config",
    "--tbmf_layouts_dir",
    "--tbmf_cache_dir",
    "--tbmf_source",
)

logger = logging.getLogger(__name__)


class MultiframeworkLoader(base_plugin.TBLoader):
    """Loads the real plugin, or stands in for it with an error tab."""

    def __init__(self) -> None:
        self._loader: Any = None
        self._problem: Problem | None = None
        try:
            from tb_multiframework import plugin  # noqa: PLC0415

            self._loader = plugin.MultiframeworkLoader()
        except Exception as error:  # noqa: BLE001 - TensorBoard must start
            self._problem = describe(error, stage="import")

    def define_flags(self, parser: Any) -> None:
        if self._loader is not None:
            try:
                self._loader.define_flags(parser)
                return
            except Exception as error:  # noqa: BLE001 - TensorBoard must start
                self._problem = describe(error, stage="flags")
                self._loader = None
        group = parser.add_argument_group(PLUGIN_NAME)
        for flag in _FLAGS:
            try:
                group.add_argument(flag, type=str, default="", help="unused")
            except Exception:  # noqa: BLE001 - defined before the failure
                continue

    def load(self, context: base_plugin.TBContext) -> base_plugin.TBPlugin:
        if self._loader is not None:
            try:
                return self._loader.load(context)
            except Exception as error:  # noqa: BLE001 - TensorBoard must start
                self._problem = describe(error, stage="start")
        assert self._problem is not None
        logger.error(
            "tb_multiframework: %s\n%s", self._problem.what, self._problem.trace
        )
        return ProblemPlugin(context, self._problem)


class Problem:
    """Why the plugin cannot run, for people.

    Attributes:
      what: one line: what failed.
      fix: what to do about it.
      details: lines of facts (installed versions, requirements, where).
      trace: the traceback, for the log.
    """

    def __init__(
        self, what: str, fix: str, details: list[str], trace: str
    ) -> None:
        self.what = what
        self.fix = fix
        self.details = details
        self.trace = trace

    def as_json(self) -> dict[str, Any]:
        return {"what": self.what, "fix": self.fix, "details": self.details}


def describe(error: BaseException, *, stage: str) -> Problem:
    """A `Problem` for `error`, raised while importing ("import"), adding
    flags ("flags") or building ("start") the plugin."""
    message = f"{type(error).__name__}: {error}"
    python = sys.executable or "python"
    reinstall = f'"{python}" -m pip install --upgrade {_DISTRIBUTION}'
    if isinstance(error, ModuleNotFoundError):
        what = (
            f"The {TAB_TITLE} tab cannot start: the package "
            f"{error.name!r} is not installed ({message})."
        )
        fix = (
            f"Install it into the Python environment TensorBoard runs from "
            f"({python}); `{reinstall}` installs every dependency the tab "
            f"needs. Then restart TensorBoard."
        )
    elif stage != "start":
        what = (
            f"The {TAB_TITLE} tab cannot start: a package it needs could "
            f"not be loaded, most likely a version it does not support "
            f"({message})."
        )
        fix = (
            f"Compare the installed versions below with the requirements, "
            f"then run `{reinstall}` (or install a supported version of the "
            f"package named in the error). Then restart TensorBoard."
        )
    elif isinstance(error, OSError):
        place = error.filename or "a file or directory it uses"
        what = (
            f"The {TAB_TITLE} tab cannot start: {place} cannot be used "
            f"({message})."
        )
        fix = (
            "Make it readable (and, for a directory, writable) by the user "
            "running TensorBoard, or point the tab elsewhere: --tbmf_config "
            "FILE, --tbmf_layouts_dir DIR, --tbmf_cache_dir DIR (or none to "
            "turn the cache off). Then restart TensorBoard."
        )
    else:
        what = f"The {TAB_TITLE} tab failed while starting ({message})."
        fix = (
            "Check the flags given to the tab (--tbmf_*) and the logdir; the "
            "TensorBoard console shows the full traceback. If the error "
            f"persists, `{reinstall}`."
        )
    return Problem(what, fix, _facts(error), _trace(error))


def _facts(error: BaseException) -> list[str]:
    lines = []
    where = _where(error)
    if where:
        lines.append(f"Raised at {where}")
    lines.append(f"Python {sys.version.split()[0]} at {sys.executable}")
    for name in (_DISTRIBUTION, *_DEPENDENCIES):
        lines.append(f"{name} {_installed(name)}")
    try:
        required = metadata.requires(_DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        required = []
    needs = [r for r in required if "extra ==" not in r]
    if needs:
        lines.append(f"{_DISTRIBUTION} requires: " + ", ".join(needs))
    return lines


def _installed(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(not installed)"


def _where(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f"{os.path.normpath(last.filename)}:{last.lineno}"


def _trace(error: BaseException) -> str:
    return "".join(
        traceback.format_exception(type(error), error, error.__traceback__)
    )


class ProblemPlugin(base_plugin.TBPlugin):
    """The tab when the plugin cannot run: says why, serves nothing else.

    Plain WSGI and the standard library only: werkzeug may be what failed.
    """

    plugin_name = PLUGIN_NAME

    def __init__(self, context: base_plugin.TBContext, problem: Problem):
        self._problem = problem

    def get_plugin_apps(self) -> dict[str, Callable[..., Any]]:
        return {
            "/index.js": self._index_js,
            "/problem": self._problem_page,
        }

    def is_active(self) -> bool:
        return True

    def frontend_metadata(self) -> base_plugin.FrontendMetadata:
        return base_plugin.FrontendMetadata(
            es_module_path="/index.js", tab_name=TAB_NAME
        )

    def _index_js(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        # JSON with every non-ASCII character escaped is a valid JavaScript
        # literal; the text goes into the page with textContent only.
        body = _INDEX_JS.replace(
            "PROBLEM_JSON", json.dumps(self._problem.as_json())
        )
        return _respond(start_response, "text/javascript", body)

    def _problem_page(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        return _respond(
            start_response, "text/html", problem_html(self._problem)
        )


def problem_html(problem: Problem) -> str:
    """A plain HTML page with the problem, every text escaped."""
    details = "".join(
        f"<li>{html.escape(line)}</li>" for line in problem.details
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{TAB_TITLE}: cannot start</title></head><body>"
        f"<h1>{html.escape(problem.what)}</h1>"
        f"<p><strong>How to fix it:</strong> {html.escape(problem.fix)}</p>"
        f"<ul>{details}</ul></body></html>"
    )


def _respond(
    start_response: Callable[..., Any], kind: str, body: str
) -> list[bytes]:
    data = body.encode("utf-8")
    start_response(
        "200 OK",
        [
            ("Content-Type", f"{kind}; charset=utf-8"),
            ("Content-Length", str(len(data))),
            ("X-Content-Type-Options", "nosniff"),
        ],
    )
    return [data]


_INDEX_JS = """\
const problem = PROBLEM_JSON;

export function render() {
  const main = document.createElement("main");
  main.setAttribute("role", "alert");
  main.style.cssText = "font-family: sans-serif; margin: 24px; max-width: 60em";
  const title = document.createElement("h2");
  title.textContent = problem.what;
  const fix = document.createElement("p");
  const label = document.createElement("strong");
  label.textContent = "How to fix it: ";
  fix.append(label, problem.fix);
  const list = document.createElement("ul");
  for (const line of problem.details) {
    const item = document.createElement("li");
    item.textContent = line;
    list.append(item);
  }
  main.append(title, fix, list);
  document.body.append(main);
}
"""
