"""The plugin never takes TensorBoard down (tb_multiframework/entry.py).

Each test starts a real `tensorboard` process through the installed
`tensorboard_plugins` entry point and breaks the plugin from outside: a
`sitecustomize.py` on PYTHONPATH makes an import of the package fail (as a
missing or incompatible dependency does) or makes its start-up raise.
TensorBoard must keep serving its own tabs, and this tab must say what
went wrong and how to fix it, with every text escaped.
"""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from importlib import metadata
from pathlib import Path

import pytest

from tb_multiframework import entry
from tests.breakage import BREAK_IMPORT
from tests.conftest import DEMO_LOGS

_URL_LINE = re.compile(r"TensorBoard \S+ at (http://\S+?)/? \(Press CTRL\+C")
_START_TIMEOUT_S = 90.0  # until TensorBoard prints its URL
LOGDIR = os.path.join(DEMO_LOGS, "pytorch_sgd")


_BREAK_START = """
import importlib.machinery
import sys


class _Break:
    def find_spec(self, name, path=None, target=None):
        if name != "tb_multiframework.wiring":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        real = spec.loader.exec_module

        def exec_module(module):
            real(module)

            def build_stack(*args, **kwargs):
                raise PermissionError(13, "Permission denied", "/srv/<cache>&")

            module.build_stack = build_stack

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _Break())
"""


class Server:
    def __init__(self, process: subprocess.Popen, url: str, log: list[str]):
        self.process, self.url, self.log = process, url, log

    def get(self, path: str) -> tuple[int, str, str]:
        """(status, content type, body) of GET `path`."""
        with urllib.request.urlopen(self.url + path, timeout=60) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


@pytest.fixture
def tensorboard(tmp_path):
    """start(sitecustomize_source or None, *flags) -> a running Server."""
    servers: list[Server] = []

    def start(sitecustomize: str | None, *flags: str) -> Server:
        env = dict(os.environ)
        if sitecustomize is not None:
            shadow = tmp_path / "shadow"
            shadow.mkdir(exist_ok=True)
            (shadow / "sitecustomize.py").write_text(sitecustomize)
            env["PYTHONPATH"] = os.pathsep.join(
                [str(shadow), *filter(None, [env.get("PYTHONPATH")])]
            )
        script = Path(sys.executable).with_name("tensorboard")
        command = (
            [str(script)]
            if script.exists()
            else [
                sys.executable,
                "-m",
                "tensorboard.main",
            ]
        )
        command += [
            "--logdir",
            LOGDIR,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--load_fast=false",
            *flags,
        ]
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
        found: list[str] = []
        ready = threading.Event()

        def drain() -> None:
            for line in process.stderr:
                log.append(line.rstrip("\n"))
                match = _URL_LINE.search(line)
                if match and not ready.is_set():
                    found.append(match.group(1).rstrip("/") + "/")
                    ready.set()

        threading.Thread(target=drain, daemon=True).start()
        server = Server(process, "", log)
        servers.append(server)
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not ready.wait(0.2):
            if process.poll() is not None or time.monotonic() > deadline:
                server.stop()
                pytest.fail("TensorBoard did not start:\n" + "\n".join(log))
        server.url = found[0]
        return server

    yield start
    for server in servers:
        server.stop()


def _assert_tensorboard_serves(server: Server) -> None:
    """TensorBoard's own routes and scalars tab answer, and lists this tab."""
    status, _, body = server.get("data/plugins_listing")
    listing = json.loads(body)
    assert status == 200 and "scalars" in listing
    assert "tb_multiframework" in listing
    status, _, body = server.get("data/plugin/scalars/tags")
    assert status == 200 and json.loads(body)  # the run's tags
    status, _, _ = server.get("")
    assert status == 200


def _problem(server: Server) -> tuple[dict, str]:
    """The tab's problem: (the JSON inside index.js, the HTML page)."""
    status, kind, script = server.get("data/plugin/tb_multiframework/index.js")
    assert status == 200 and kind.startswith("text/javascript")
    literal = script.split("const problem = ", 1)[1].split(";\n", 1)[0]
    status, kind, page = server.get("data/plugin/tb_multiframework/problem")
    assert status == 200 and kind.startswith("text/html")
    return json.loads(literal), page


def test_incompatible_dependency_leaves_tensorboard_up(tensorboard):
    message = "module 'numpy' has no attribute '<typing>' & more"
    server = tensorboard(
        BREAK_IMPORT.format(error=f"AttributeError({message!r})")
    )
    _assert_tensorboard_serves(server)
    problem, page = _problem(server)
    assert message in problem["what"] and "version" in problem["what"]
    assert "pip install --upgrade tb-multiframework" in problem["fix"]
    numpy_line = f"numpy {metadata.version('numpy')}"
    assert numpy_line in problem["details"]
    # Escaped: the page shows the text, never markup from it.
    assert html.escape(message) in page and message not in page
    assert html.escape(numpy_line) in page
    assert any("AttributeError" in line for line in server.log)


def test_missing_dependency_names_it(tensorboard):
    server = tensorboard(
        BREAK_IMPORT.format(
            error="ModuleNotFoundError(\"No module named 'numpy'\", "
            "name='numpy')"
        )
    )
    _assert_tensorboard_serves(server)
    problem, page = _problem(server)
    assert "'numpy' is not installed" in problem["what"]
    assert sys.executable in problem["fix"]
    assert html.escape("'numpy' is not installed") in page


def test_start_up_failure_leaves_tensorboard_up(tensorboard):
    server = tensorboard(_BREAK_START)
    _assert_tensorboard_serves(server)
    problem, page = _problem(server)
    assert "/srv/<cache>& cannot be used" in problem["what"]
    assert "--tbmf_cache_dir" in problem["fix"]
    assert "/srv/&lt;cache&gt;&amp; cannot be used" in page
    assert "<cache>" not in page


def test_unreadable_config_and_unusable_cache_are_reported(
    tensorboard, tmp_path
):
    """Not failures: the tab works and says what it could not use."""
    config = tmp_path / "config_dir"
    config.mkdir()
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    cache = blocker / "cache"  # under a file: never creatable, even by root
    server = tensorboard(
        None, "--tbmf_config", str(config), "--tbmf_cache_dir", str(cache)
    )
    _assert_tensorboard_serves(server)
    deadline = time.monotonic() + 120
    while True:
        status, _, body = server.get("data/plugin/tb_multiframework/runs")
        runs = json.loads(body)
        if not runs["loading"] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert status == 200 and [r["run"] for r in runs["runs"]] == ["."]
    assert any(str(config) in e for e in runs["errors"])
    assert runs["source"]["cache"]["enabled"] is False
    assert str(cache) in runs["source"]["cache"]["note"]


def test_entry_module_imports_only_stdlib_and_base_plugin(tmp_path):
    """entry.py must import when everything but TensorBoard's base_plugin
    is broken: nothing else of the package, no numpy, werkzeug, protobuf."""
    code = textwrap.dedent(
        """
        import sys
        before = set(sys.modules)
        from tb_multiframework import entry
        new = set(sys.modules) - before
        print(sorted(m for m in new if m.startswith(
            ("tb_multiframework.", "numpy", "werkzeug", "google"))))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    # tensorboard.plugins.base_plugin imports nothing of these either.
    assert out.stdout.strip() == "['tb_multiframework.entry']"
    for path in Path(entry.__file__).parent.rglob("*.py"):
        if path.name != "entry.py":
            assert "entry" not in re.findall(
                r"^\s*from tb_multiframework(?:\.\w+)* import (\w+)",
                path.read_text(),
                flags=re.M,
            ), path


def test_problem_page_escapes_everything():
    problem = entry.describe(ValueError("<b>&'\""), stage="start")
    page = entry.problem_html(problem)
    assert "<b>" not in page and "&lt;b&gt;&amp;" in page
    assert problem.fix and problem.details


def test_entry_point_is_the_entry_module():
    (found,) = [
        e.value
        for e in metadata.entry_points(group="tensorboard_plugins")
        if e.name == "tb_multiframework"
    ]
    assert found == "tb_multiframework.entry:MultiframeworkLoader"


def test_problem_texts_name_the_tab_as_the_header_does():
    """The tab is "Frameworks" in TensorBoard's header; the page shown when
    it cannot start said "The Multiframework tab" and a broken tab was
    named "Multiframework" (cut in the header). Both use the tab's name."""
    from tb_multiframework import plugin

    assert entry.TAB_NAME == plugin.TAB_NAME
    name = plugin.TAB_NAME.strip("\u00a0")
    for error, stage in (
        (ModuleNotFoundError("No module named 'x'", name="x"), "import"),
        (ImportError("bad version"), "import"),
        (OSError(13, "Permission denied", "/x"), "start"),
        (ValueError("boom"), "start"),
    ):
        problem = entry.describe(error, stage=stage)
        assert problem.what.startswith(f"The {name} tab "), problem.what
        assert "Multiframework" not in problem.what + problem.fix
        page = entry.problem_html(problem)
        assert f"<title>{name}: cannot start</title>" in page
        assert "Multiframework" not in page
    broken = entry.ProblemPlugin(
        None, entry.describe(ValueError(), stage="start")
    )  # type: ignore[arg-type]
    assert broken.frontend_metadata().tab_name == plugin.TAB_NAME
