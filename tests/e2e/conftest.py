"""Browser-test harness: a real TensorBoard process and a real Chromium.

Fixtures:
  ``e2e_logdir``   a private copy of ``demo_logs/`` (the tests never touch the
                   checkout's files, and a generator rewriting them meanwhile
                   cannot change the numbers under a test).
  ``tb_server``    ``tb_server(load_fast="false", path_prefix="", logdir=None,
                   extra_args=())`` starts (once a session a configuration)
                   ``tensorboard --logdir ... --host 127.0.0.1 --port 0``
                   (logdir defaults to the copy above), waits for the plugin's
                   ``runs`` route to answer ``loading: false`` and stops the
                   process group at the end.
  ``browser``      Chromium from ``/usr/bin/chromium`` through Playwright
                   (in tests/conftest.py: one a process, shared with the
                   browser tests of tests/cli).
  ``tb_page``      a fresh page whose console errors and uncaught errors,
                   including those of the plugin's iframe (CSP violations land
                   there), fail the test.

  ``new_page``     ``new_page(**context_options)``: more such pages.
  ``open_tab``     ``open_tab(page, server, suffix="")`` opens TensorBoard,
                   clicks the tab and returns the plugin iframe's ``Frame``.
  ``plugin_frame`` ``plugin_frame(page)``: the iframe of a page on the tab.
  ``save_screenshot``  ``save_screenshot(page, "x.png")`` into screenshots/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Frame,
    Page,
)

REPO = Path(__file__).resolve().parents[2]
DEMO_LOGS = REPO / "demo_logs"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
PLUGIN = "tb_multiframework"
VIEWPORT = {"width": 1400, "height": 900}
_START_TIMEOUT_S = 60.0  # until TensorBoard prints its URL
_LOAD_TIMEOUT_S = 120.0  # until the plugin finished its first load
_STOP_TIMEOUT_S = 10.0  # after SIGTERM, before SIGKILL
_URL_LINE = re.compile(r"TensorBoard \S+ at (http://\S+?)/? \(Press CTRL\+C")


@dataclass
class TensorBoardServer:
    """A running ``tensorboard`` process."""

    process: subprocess.Popen[str]
    base_url: str  # ends with "/", includes the path prefix
    logdir: Path | str | None
    load_fast: str
    path_prefix: str
    log: list[str] = field(default_factory=list)

    def url(self, suffix: str = "") -> str:
        """The TensorBoard page URL plus ``suffix`` (query and/or hash)."""
        return self.base_url + suffix

    def plugin_url(self, route: str) -> str:
        return f"{self.base_url}data/plugin/{PLUGIN}/{route}"

    def get_json(self, route: str) -> dict:
        """GETs a plugin route straight from the server (not the browser)."""
        with urllib.request.urlopen(self.plugin_url(route), timeout=30) as r:
            return json.loads(r.read().decode("utf-8"))

    def stop(self) -> None:
        """Stops TensorBoard and its children (the Rust data server)."""
        if self.process.poll() is not None:
            return
        pgid = self.process.pid  # start_new_session: the pid leads the group
        try:
            os.killpg(pgid, signal.SIGTERM)
            self.process.wait(timeout=_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(pgid, signal.SIGKILL)
            self.process.wait(timeout=_STOP_TIMEOUT_S)
        except ProcessLookupError:
            pass


def _tensorboard_command() -> list[str]:
    script = Path(sys.executable).with_name("tensorboard")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "tensorboard.main"]


def start_tensorboard(
    logdir: Path | str | None,
    *,
    load_fast: str = "false",
    path_prefix: str = "",
    extra_args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> TensorBoardServer:
    """Starts TensorBoard on a free port and waits until the plugin loaded.

    Args:
        logdir: ``--logdir``; None for none (with ``--grpc_data_provider``
            in ``extra_args``).
        env: the process' environment (default: this one's).

    Raises:
        RuntimeError: TensorBoard exited, or did not come up in time.
    """
    command = _tensorboard_command() + (
        [] if logdir is None else ["--logdir", str(logdir)]
    )
    command += [
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        f"--load_fast={load_fast}",
    ]
    if path_prefix:
        command += ["--path_prefix", path_prefix]
    command += list(extra_args)
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
    )
    log: list[str] = []
    found = threading.Event()
    url_holder: list[str] = []

    def read_stderr() -> None:
        # Keep draining stderr for the process' whole life so a full pipe
        # can never block TensorBoard.
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line.rstrip("\n"))
            match = _URL_LINE.search(line)
            if match and not found.is_set():
                url_holder.append(match.group(1))
                found.set()

    threading.Thread(target=read_stderr, daemon=True).start()
    server = TensorBoardServer(
        process=process,
        base_url="",
        logdir=logdir,
        load_fast=load_fast,
        path_prefix=path_prefix,
        log=log,
    )
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not found.wait(0.2):
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(
                f"TensorBoard did not start ({' '.join(command)}):\n"
                + "\n".join(log[-40:])
            )
    server.base_url = url_holder[0].rstrip("/") + "/"
    _wait_until_loaded(server)
    return server


def _wait_until_loaded(server: TensorBoardServer) -> None:
    deadline = time.monotonic() + _LOAD_TIMEOUT_S
    last_error = ""
    while time.monotonic() < deadline:
        try:
            payload = server.get_json("runs")
            if payload.get("loading") is False:
                return
            last_error = "still loading"
        except OSError as error:
            last_error = str(error)
        if server.process.poll() is not None:
            break
        time.sleep(0.3)
    server.stop()
    raise RuntimeError(
        f"the runs route never finished loading ({last_error}):\n"
        + "\n".join(server.log[-40:])
    )


@pytest.fixture(scope="session")
def e2e_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of demo_logs/ (with its .tb_multiframework config)."""
    if not DEMO_LOGS.is_dir():
        pytest.fail(
            f"{DEMO_LOGS} is missing: generate it with scripts/make_demo_logs.py",
            pytrace=False,
        )
    target = tmp_path_factory.mktemp("e2e") / "demo_logs"
    shutil.copytree(DEMO_LOGS, target)
    return target


@pytest.fixture(scope="session")
def tb_server(
    e2e_logdir: Path,
) -> Iterator[Callable[..., TensorBoardServer]]:
    """Starts TensorBoard servers on demand, one per configuration."""
    servers: dict[tuple[object, ...], TensorBoardServer] = {}

    def get(
        *,
        load_fast: str = "false",
        path_prefix: str = "",
        logdir: Path | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> TensorBoardServer:
        key = (load_fast, path_prefix, logdir, extra_args)
        if key not in servers:
            servers[key] = start_tensorboard(
                logdir or e2e_logdir,
                load_fast=load_fast,
                path_prefix=path_prefix,
                extra_args=extra_args,
            )
        return servers[key]

    yield get
    for server in servers.values():
        server.stop()


@dataclass
class BrowserPage:
    """A page plus every console error and uncaught error it produced."""

    page: Page
    context: BrowserContext
    errors: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def allow_errors(self, pattern: str) -> None:
        """Tolerates errors matching ``pattern`` (a regex): only for
        TensorBoard's own, documented bugs, never for the plugin's."""
        self.allowed.append(re.compile(pattern))

    def unexpected_errors(self) -> list[str]:
        return [
            error
            for error in self.errors
            if not any(pattern.search(error) for pattern in self.allowed)
        ]

    def assert_no_errors(self) -> None:
        errors = self.unexpected_errors()
        assert not errors, "browser errors:\n" + "\n".join(errors)


def new_browser_page(
    browser: Browser, **context_options: object
) -> BrowserPage:
    """A fresh context and page that record errors from every frame."""
    options: dict[str, object] = {"viewport": VIEWPORT, "color_scheme": "light"}
    options.update(context_options)
    context = browser.new_context(**options)  # type: ignore[arg-type]
    page = context.new_page()
    recorded = BrowserPage(page=page, context=context)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            location = message.location
            recorded.errors.append(
                f"console.error {message.text} "
                f"({location.get('url', '')}:{location.get('lineNumber', '')})"
            )

    # Playwright reports console messages and uncaught errors of child frames
    # on the page, so the plugin iframe's CSP violations arrive here too.
    page.on("console", on_console)
    page.on(
        "pageerror", lambda error: recorded.errors.append(f"pageerror {error}")
    )
    return recorded


@pytest.fixture
def tb_page(browser: Browser) -> Iterator[BrowserPage]:
    """A page for one test; any browser error fails the test."""
    recorded = new_browser_page(browser)
    yield recorded
    recorded.context.close()
    recorded.assert_no_errors()


@pytest.fixture
def new_page(browser: Browser) -> Iterator[Callable[..., BrowserPage]]:
    """Makes more pages (e.g. another colour scheme), each error-checked."""
    made: list[BrowserPage] = []

    def make(**context_options: object) -> BrowserPage:
        made.append(new_browser_page(browser, **context_options))
        return made[-1]

    yield make
    for recorded in made:
        recorded.context.close()
    for recorded in made:
        recorded.assert_no_errors()


@pytest.fixture(name="open_tab")
def open_tab_fixture() -> Callable[..., Frame]:
    """``open_tab(page, server, suffix="")``: see open_tab()."""
    return open_tab


@pytest.fixture(name="plugin_frame")
def plugin_frame_fixture() -> Callable[[BrowserPage], Frame]:
    """``plugin_frame(page)``: the plugin iframe of a page already on the tab."""
    return plugin_frame


@pytest.fixture(name="save_screenshot")
def save_screenshot_fixture() -> Callable[[BrowserPage, str], Path]:
    """``save_screenshot(page, "name.png")`` into tests/e2e/screenshots/."""
    return screenshot


def open_tab(
    recorded: BrowserPage, server: TensorBoardServer, *, suffix: str = ""
) -> Frame:
    """Opens TensorBoard, clicks the MULTIFRAMEWORK tab, returns the Frame.

    Args:
        suffix: appended to the TensorBoard URL (query and/or hash).
    """
    page = recorded.page
    page.goto(server.url(suffix))
    page.locator(f'.plugin-name[data-plugin-id="{PLUGIN}"]').click()
    return plugin_frame(recorded)


def plugin_frame(recorded: BrowserPage) -> Frame:
    """The plugin iframe's Frame, once its app shell is up."""
    handle = recorded.page.wait_for_selector(
        f'iframe[src*="plugin_entry.html?name={PLUGIN}"]'
    )
    assert handle is not None
    frame = handle.content_frame()
    assert frame is not None, "the plugin iframe has no frame"
    frame.wait_for_selector(".tbmf-app")
    return frame


def screenshot(recorded: BrowserPage, name: str) -> Path:
    """Saves a screenshot of the page under tests/e2e/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    recorded.page.screenshot(path=str(path))
    return path
