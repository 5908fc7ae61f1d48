"""Loading, error and live-update states of the tab, in a real browser.

Failures are provoked by intercepting the plugin's ``runs`` request in the
browser, so TensorBoard itself stays healthy; the live update writes a real
event file into a logdir TensorBoard watches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Route
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

pytestmark = pytest.mark.e2e

_ROW = "tr.tbmf-run-row"
_RUNS_ROUTE = "**/data/plugin/tb_multiframework/runs"


def _write_run(logdir: Path, run: str, points: int) -> None:
    """Writes ``points`` scalar events of tag ``loss`` into ``logdir/run``."""
    writer = EventFileWriter(str(logdir / run))
    for step in range(points):
        value = summary_pb2.Summary.Value(
            tag="loss", simple_value=1.0 / (step + 1)
        )
        writer.add_event(
            event_pb2.Event(
                wall_time=1_700_000_000.0 + step,
                step=step,
                summary=summary_pb2.Summary(value=[value]),
            )
        )
    writer.close()


def test_server_error_text_is_shown_and_retry_recovers(
    tb_server, tb_page, open_tab
) -> None:
    # The provoked 400 is logged by Chromium as a failed resource load.
    tb_page.allow_errors(r"Failed to load resource: .* status of 400")
    page = tb_page.page
    message = "bad <b>argument</b> from the server"

    def fail(route: Route) -> None:
        route.fulfill(
            status=400,
            content_type="application/json",
            body=json.dumps({"error": message}),
        )

    page.route(_RUNS_ROUTE, fail)
    frame = open_tab(tb_page, tb_server())
    banner = frame.wait_for_selector(".tbmf-banner--error")
    assert (
        banner.text_content()
        .strip()
        .startswith(f"Cannot load the runs: {message}")
    )
    assert frame.locator(".tbmf-banner--error b").count() == 0  # text, not HTML
    assert frame.text_content(".tbmf-status").strip() == "Offline"

    page.unroute(_RUNS_ROUTE, fail)
    frame.click(".tbmf-banner--error button")
    frame.wait_for_selector(_ROW)
    assert frame.locator(".tbmf-banner--error").count() == 0


def test_loading_state_then_table_without_user_action(
    tb_server, tb_page, open_tab
) -> None:
    page = tb_page.page
    answered = []

    def still_loading(route: Route) -> None:
        if len(answered) < 2:
            answered.append(route.request.url)
            route.fulfill(
                content_type="application/json",
                body=json.dumps(
                    {
                        "runs": [],
                        "loading": True,
                        "dataVersion": 0,
                        "errors": [],
                    }
                ),
            )
        else:
            route.continue_()

    page.route(_RUNS_ROUTE, still_loading)
    frame = open_tab(tb_page, tb_server())
    frame.wait_for_selector("text=TensorBoard is reading the logdir…")
    assert "Reading the logdir" in frame.text_content(".tbmf-status")
    # While loading the catalog polls every second: rows come by themselves.
    frame.wait_for_selector(_ROW, timeout=15_000)
    assert len(answered) == 2
    assert frame.text_content(".tbmf-status").startswith("Updated")


def test_global_errors_are_shown(tb_server, tb_page, open_tab) -> None:
    page = tb_page.page
    problem = "config /x/config.json not used: Expecting ',' delimiter"

    def add_error(route: Route) -> None:
        response = route.fetch()
        payload = response.json()
        payload["errors"] = [problem]
        route.fulfill(response=response, json=payload)

    page.route(_RUNS_ROUTE, add_error)
    frame = open_tab(tb_page, tb_server())
    banner = frame.wait_for_selector(".tbmf-banner--warning")
    assert banner.text_content().strip() == problem
    frame.wait_for_selector(_ROW)  # the table still shows


def test_new_run_appears_by_polling(
    tb_server, tb_page, open_tab, tmp_path: Path
) -> None:
    logdir = tmp_path / "live"
    _write_run(logdir, "first", 5)
    server = tb_server(logdir=logdir, extra_args=("--reload_interval", "1"))
    frame = open_tab(tb_page, server)
    frame.wait_for_selector('tr[data-run="first"]')
    assert frame.locator(_ROW).count() == 1

    _write_run(logdir, "second", 7)
    # TensorBoard reloads every second here; the tab polls every 5 s.
    frame.wait_for_selector('tr[data-run="second"]', timeout=30_000)
    points = frame.text_content('tr[data-run="second"] td[data-col="points"]')
    assert points == "7"
