"""Run colours are stable and stay distinct (issue 22, item 3).

- A run keeps its colour for the session when the selection changes
  (`keras_fit/validation` was purple with every demo run drawn, blue once
  three runs were selected), and a link (the URL state) shows the same
  colours.
- With a run filter and "matching runs only", no two of the runs drawn
  are near-identical (`#ee6677` and `#f83e45` were drawn together among 10
  sweep runs): CIEDE2000 is computed here, in Python, from the colours the
  chart draws.

Real TensorBoard, real Chromium; the chart is read through uPlot.
"""

from __future__ import annotations

import math
import re

import pytest
from playwright.sync_api import Frame

from scripts.make_sweep_logs import write_sweep
from tests.e2e.test_compare_view import _wait_for_panel

pytestmark = pytest.mark.e2e

_PANEL = ".tbmf-cmp-panel"
_MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"
CLOSE = 15.0  # CIEDE2000: closer thin lines are easily confused
THREE = ["keras_fit/validation", "paddle_vdl", "pytorch_sgd"]
SEED = 14  # the sweep of test_fifty_runs


def _styles(frame: Frame) -> dict[str, tuple[str, str]]:
    """run -> (colour, dash) as uPlot draws the main chart."""
    found = frame.evaluate(
        """sel => {
          const c = document.querySelector(sel).tbmfChart;
          return c.slots.filter((s) => s.run).map((s) => [s.run,
            c.uplot.series[s.index].stroke(),
            JSON.stringify(c.uplot.series[s.index].dash ?? null)]);
        }""",
        _MAIN,
    )
    return {run: (color.lower(), dash) for run, color, dash in found}


def _lab(hex_color: str) -> tuple[float, float, float]:
    """sRGB -> CIELAB (D65)."""
    rgb = [int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb
    )
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return (
            t ** (1 / 3)
            if t > (6 / 29) ** 3
            else t / (3 * (6 / 29) ** 2) + 4 / 29
        )

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _ciede2000(c1: str, c2: str) -> float:
    return _ciede2000_lab(_lab(c1), _lab(c2))


def _ciede2000_lab(lab1, lab2) -> float:
    """Sharma, Wu and Dalal (2005), kL = kC = kH = 1."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    cm = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cm**7 / (cm**7 + 25**7)))
    a1, a2 = a1 * (1 + g), a2 * (1 + g)
    c1p, c2p = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1p else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2p else 0.0
    dh = 0.0
    if c1p * c2p:
        dh = h2 - h1
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    big_dh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lm, cmp_ = (l1 + l2) / 2, (c1p + c2p) / 2
    hm = h1 + h2
    if c1p * c2p:
        if abs(h1 - h2) <= 180:
            hm /= 2
        else:
            hm = (hm + 360) / 2 if hm < 360 else (hm - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(hm - 30))
        + 0.24 * math.cos(math.radians(2 * hm))
        + 0.32 * math.cos(math.radians(3 * hm + 6))
        - 0.20 * math.cos(math.radians(4 * hm - 63))
    )
    theta = 30 * math.exp(-(((hm - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cmp_**7 / (cmp_**7 + 25**7))
    sl = 1 + 0.015 * (lm - 50) ** 2 / math.sqrt(20 + (lm - 50) ** 2)
    sc = 1 + 0.045 * cmp_
    sh = 1 + 0.015 * cmp_ * t
    rt = -math.sin(math.radians(2 * theta)) * rc
    dl, dc = l2 - l1, c2p - c1p
    return math.sqrt(
        (dl / sl) ** 2
        + (dc / sc) ** 2
        + (big_dh / sh) ** 2
        + rt * (dc / sc) * (big_dh / sh)
    )


def test_ciede2000_reference_pairs() -> None:
    """Sharma et al.'s published pairs."""
    assert _ciede2000_lab(
        (50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)
    ) == pytest.approx(2.0425, abs=1e-4)
    assert _ciede2000_lab((50.0, 2.5, 0.0), (73.0, 25.0, -18.0)) == (
        pytest.approx(27.1492, abs=1e-4)
    )
    assert _ciede2000("#ee6677", "#f83e45") < CLOSE  # the two reds


def test_a_run_keeps_its_colour_when_the_selection_changes(
    tb_server, tb_page, new_page, open_tab, plugin_frame
) -> None:
    server = tb_server()
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.cm=loss%2Fval%40epoch",
    )
    frame.wait_for_selector(f'{_PANEL}[data-state="ready"]', timeout=60_000)
    _wait_for_panel(frame)
    before = _styles(frame)
    assert set(THREE) <= set(before)
    frame.click('[data-action="runs-none"]')
    for run in THREE:
        frame.check(f'.tbmf-cmp-run input[data-run="{run}"]')
    _wait_for_panel(frame, run=THREE)
    after = _styles(frame)
    assert after == {run: before[run] for run in THREE}
    # Remembered under a key of its own (the Compare view's `ca` is taken).
    assert "tbmf.rst=" in tb_page.page.url
    # The link shows the same colours.
    other = new_page()
    other.page.goto(tb_page.page.url)
    again = plugin_frame(other)
    again.wait_for_selector(f'{_PANEL}[data-state="ready"]', timeout=60_000)
    _wait_for_panel(again, run=THREE)
    assert _styles(again) == after
    # Back to every run: the three still have their colours, and every
    # run drawn has a style of its own.
    frame.click('[data-action="runs-all"]')
    frame.wait_for_function(
        """([sel, n]) => {
          const p = document.querySelector('.tbmf-cmp-panel');
          return p.dataset.state === 'ready'
            && !p.classList.contains('is-loading')
            && document.querySelector(sel).tbmfChart.slots.length > n;
        }""",
        arg=[_MAIN, len(THREE)],
    )
    every = _styles(frame)
    assert {run: every[run] for run in THREE} == after
    assert len(set(every.values())) == len(every)


@pytest.fixture(scope="module")
def sweep_logdir(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("sweep") / "sweep"
    write_sweep(str(logdir), seed=SEED)
    return logdir


def test_matching_runs_only_draws_no_near_identical_colours(
    tb_server, tb_page, open_tab, sweep_logdir
) -> None:
    server = tb_server(logdir=sweep_logdir)
    tb_page.page.set_viewport_size({"width": 1440, "height": 900})
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.cm=loss%2Fval",
    )
    frame.wait_for_selector(f'{_PANEL}[data-state="ready"]', timeout=60_000)
    _wait_for_panel(frame)
    names = sorted(_styles(frame))
    assert len(names) == 50
    # Ten runs, among them the 20th and 21st by name: palette neighbours
    # #ee6677 and #f83e45 when colours went by name order.
    pattern = "^run_(19|20|0[0-7])_"
    matching = [n for n in names if re.search(pattern, n)]
    assert len(matching) == 10
    frame.fill('[data-control="run-search"]', pattern)
    frame.check('[data-control="run-filter-narrows"]')
    _wait_for_panel(frame, run=matching)
    styles = _styles(frame)
    assert sorted(styles) == matching
    closest = min(
        (_ciede2000(a[0], b[0]), ra, rb)
        for i, (ra, a) in enumerate(sorted(styles.items()))
        for rb, b in sorted(styles.items())[i + 1 :]
        if a[1] == b[1]
    )
    assert closest[0] >= CLOSE, closest
