"""Anomalies in the tab, in a real TensorBoard and Chromium: the demo's
injected spike (pytorch_sgd ``Loss/train`` at step 217, the step of its
largest logged value in ``tests/data/demo_truth``) is marked on the Compare
chart at that x on the step and epoch axes, on the Layouts chart of the
layout the run logged, and as a badge in the Runs table, whose "runs with
anomalies" filter keeps only that run."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Frame

pytestmark = pytest.mark.e2e

TRUTH = Path(__file__).resolve().parents[1] / "data" / "demo_truth"
METRIC = "loss/train@batch"
TALL = {"width": 1400, "height": 1000}
_PANEL = ".tbmf-cmp-panel"
_MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"
_BAND = '.tbmf-anomaly-band[data-run="pytorch_sgd"][data-tag="Loss/train"]'


def _spike_step() -> int:
    truth = json.loads((TRUTH / "pytorch_sgd.json").read_text())
    logged = truth["dirs"]["pytorch_sgd"]["scalars"]["Loss/train"]
    return int(logged["steps"][int(np.argmax(logged["values"]))])


def _band_center_and_expected(frame: Frame, chart: str, x: float):
    """(the band's centre, uPlot's pixel for data x), both CSS pixels from
    the plot's left edge."""
    return frame.evaluate(
        """([chart, band, x]) => {
          const u = document.querySelector(chart).tbmfChart.uplot;
          const over = u.over.getBoundingClientRect();
          const b = document.querySelector(chart + ' ' + band)
            .getBoundingClientRect();
          return [b.left + b.width / 2 - over.left, u.valToPos(x, 'x')];
        }""",
        [chart, _BAND, x],
    )


def _open(tb_page, server, open_tab, view: str, **state: str) -> Frame:
    items = [f"tbmf.view={view}"] + [
        f"tbmf.{k}={urllib.parse.quote(v, safe='')}" for k, v in state.items()
    ]
    return open_tab(
        tb_page, server, suffix="#tb_multiframework&" + "&".join(items)
    )


def test_spike_marked_on_compare_and_in_runs(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    step = _spike_step()
    assert step == 217
    server = tb_server()
    tb_page.page.set_viewport_size(TALL)
    frame = _open(
        tb_page, server, open_tab, "compare", sel="pytorch_sgd", cm=METRIC
    )
    frame.wait_for_selector(f'{_PANEL}[data-state="ready"][data-anomalies="1"]')
    band = frame.locator(f"{_MAIN} {_BAND}")
    assert band.get_attribute("data-kind") == "spike"
    assert band.get_attribute("data-step") == str(step)
    center, expected = _band_center_and_expected(frame, _MAIN, step)
    assert center == pytest.approx(expected, abs=1.5)

    # A click (not a hover: the pointer over the plot keeps the values
    # tooltip, issue 22): the message and the usual cause.
    band.locator(".tbmf-anomaly-chip").click()
    card = frame.locator(f"{_MAIN} .tbmf-anomaly-card")
    card.wait_for(state="visible")
    text = card.inner_text()
    assert "spike" in text and f"step {step}" in text
    assert "Usual cause: a bad batch" in text
    assert "pytorch_sgd · Loss/train" in text
    save_screenshot(tb_page, "anomaly_compare.png")

    # The epoch axis: 50 steps an epoch (the run's epoch staircase), so
    # step 217 sits at 4 + 18 / 50.
    frame.click('.tbmf-cmp-seg__item[data-axis="epoch"]')
    frame.wait_for_function("""() => {
          const p = document.querySelector('.tbmf-cmp-panel');
          return p.dataset.query && p.dataset.query.includes('x=epoch') &&
            p.dataset.anomalies === '1' &&
            document.querySelector('.tbmf-anomaly-band');
        }""")
    frame.wait_for_timeout(200)
    center, expected = _band_center_and_expected(frame, _MAIN, 4.36)
    assert center == pytest.approx(expected, abs=1.5)

    # Runs: a badge on pytorch_sgd only; the filter keeps only it.
    frame.click('.tbmf-tab[data-view="runs"]')
    badge = frame.locator(
        'tr.tbmf-run-row[data-run="pytorch_sgd"] .tbmf-anomaly-badge'
    )
    badge.wait_for()
    assert badge.inner_text() == "⚠ 1"
    assert badge.get_attribute("aria-label") == "1 anomaly"
    assert "spike" in (badge.get_attribute("title") or "")
    assert frame.locator(".tbmf-anomaly-badge").count() == 1
    total = frame.locator("tr.tbmf-run-row").count()
    assert total > 1
    frame.click('[data-action="anomaly-filter"]')
    frame.wait_for_function(
        "document.querySelectorAll('tr.tbmf-run-row').length === 1"
    )
    rows = frame.eval_on_selector_all(
        "tr.tbmf-run-row", "els => els.map(e => e.dataset.run)"
    )
    assert rows == ["pytorch_sgd"]
    assert "an=1" in tb_page.page.url.replace("tbmf.an", "an")
    save_screenshot(tb_page, "anomaly_runs.png")


def test_spike_marked_on_the_logged_layout(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    server = tb_server()
    tb_page.page.set_viewport_size(TALL)
    frame = _open(tb_page, server, open_tab, "layouts")
    chart = ".tbmf-lay-chart .tbmf-cmp-panel[data-anomalies='1']"
    frame.wait_for_selector(f"{chart} {_BAND}")
    selector = f"{chart} > .tbmf-cmp-panel__chart .tbmf-chart"
    center, expected = _band_center_and_expected(frame, selector, 217)
    assert center == pytest.approx(expected, abs=1.5)
    frame.locator(f"{chart} {_BAND}").first.scroll_into_view_if_needed()
    save_screenshot(tb_page, "anomaly_layouts.png")
