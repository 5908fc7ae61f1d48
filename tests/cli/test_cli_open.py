"""`tbmf open`: real TensorBoard on just the named runs, and the printed link
opens the tab's Compare view on them in Chromium."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from urllib.parse import urlsplit

import pytest

from tests.cli.conftest import ROOT, assert_usage_error, tbmf
from tests.e2e.conftest import new_browser_page, plugin_frame

pytestmark = pytest.mark.e2e

_START_TIMEOUT_S = 90.0


class _Opened:
    """A running `tbmf open` and the link it printed."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tb_multiframework.cli.main", "open", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=ROOT),
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.errors: list[str] = []
        got = threading.Event()

        def read_out() -> None:
            for line in self.process.stdout:
                self.lines.append(line.rstrip("\n"))
                got.set()

        def read_err() -> None:
            for line in self.process.stderr:
                self.errors.append(line.rstrip("\n"))

        threading.Thread(target=read_out, daemon=True).start()
        threading.Thread(target=read_err, daemon=True).start()
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not got.wait(0.2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(
                    "no link printed:\n" + "\n".join(self.errors)
                )
        self.link = self.lines[0]
        parts = urlsplit(self.link)
        self.base = f"{parts.scheme}://{parts.netloc}/"

    def runs(self) -> dict:
        """The plugin's runs route, once its first load is done."""
        url = self.base + "data/plugin/tb_multiframework/runs"
        deadline = time.monotonic() + _START_TIMEOUT_S
        while True:
            with urllib.request.urlopen(url, timeout=30) as response:
                body = json.loads(response.read().decode("utf-8"))
            if not body["loading"] or time.monotonic() > deadline:
                return body
            time.sleep(0.3)

    def stop(self) -> int:
        """SIGTERM to `tbmf open`: it stops TensorBoard and exits."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                return self.process.wait(timeout=20)
            finally:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return self.process.returncode


def test_link_opens_the_comparison_of_just_those_runs(
    demo_logdir, browser
) -> None:
    opened = _Opened(
        demo_logdir,
        "keras_fit",
        "pytorch_sgd",
        "--metric",
        "loss/val",
        "--x",
        "epoch",
        "--port",
        "0",
        "--host",
        "127.0.0.1",
    )
    try:
        assert opened.link.startswith(opened.base + "#tb_multiframework&")
        body = opened.runs()
        assert [r["run"] for r in body["runs"]] == [
            "keras_fit/train",
            "keras_fit/validation",
            "pytorch_sgd",
        ]
        # the same runs, names and data as under --logdir
        full = tbmf("list", demo_logdir, "--json").json()["runs"]
        by_name = {r["run"]: r for r in full}
        for run in body["runs"]:
            for field in ("framework", "writer", "numPoints", "epochSource"):
                assert run[field] == by_name[run["run"]][field], field
        page = new_browser_page(browser)
        try:
            page.page.goto(opened.link)
            frame = plugin_frame(page)
            frame.wait_for_selector('.tbmf-view[data-view="compare"]')
            frame.wait_for_selector(".tbmf-run-chip")
            chips = frame.eval_on_selector_all(
                ".tbmf-run-chip", "chips => chips.map(c => c.dataset.run)"
            )
            assert sorted(chips) == [
                "keras_fit/train",
                "keras_fit/validation",
                "pytorch_sgd",
            ]
            state = frame.evaluate("() => location.hash")
            assert "cm=loss%2Fval%40epoch" in state
            assert "cx=epoch" in state
            assert "cb=keras_fit%2Fvalidation" in state
            frame.wait_for_selector(".tbmf-chart, .tbmf-compare-chart canvas")
        finally:
            page.context.close()
        page.assert_no_errors()
    finally:
        code = opened.stop()
    assert code == 130  # stopped by a signal, as Ctrl-C (README: exit codes)
    time.sleep(0.5)
    with pytest.raises(OSError):  # TensorBoard is gone too
        urllib.request.urlopen(opened.base, timeout=5)


def test_open_usage_errors(demo_logdir, tmp_path) -> None:
    assert_usage_error(
        tbmf("open", demo_logdir, "pytorch", "--port", "0"),
        "unknown run 'pytorch'",
        "did you mean 'pytorch_sgd'",
    )
    assert_usage_error(
        tbmf("open", demo_logdir, "pytorch_sgd", "--metric", "los"),
        "unknown metric 'los'",
    )
    (tmp_path / "a,b").mkdir()
    (tmp_path / "a,b" / "events.out.tfevents.1.host").write_bytes(b"")
    assert_usage_error(
        tbmf("open", str(tmp_path), "a,b"), "cannot name a run containing"
    )
