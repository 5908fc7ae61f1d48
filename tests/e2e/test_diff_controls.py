"""The config diff button and the export's difference columns (issue 22).

- "Config diff of 27 selected" looked enabled while it was disabled: now
  it looks unavailable (dashed border, muted text, not-allowed cursor),
  says why in its title, and does nothing when clicked.
- The Compare view's CSV export had no difference column even with a
  baseline set: the link now carries the baseline and the CSV its `diff`
  columns, checked against the demo ground truth.

Real TensorBoard on a copy of demo_logs/, real Chromium.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from tests.e2e.test_compare_view import _wait_for_panel

pytestmark = pytest.mark.e2e

TRUTH = Path(__file__).resolve().parents[1] / "data" / "demo_truth"
SEEDS = [f"seeds/pytorch_seed{s}" for s in range(2)]
_BUTTON = '[data-action="config-diff"]'


def _look(frame) -> dict[str, str]:
    return frame.eval_on_selector(
        _BUTTON,
        """b => {
          const s = getComputedStyle(b);
          return {cursor: s.cursor, border: s.borderTopStyle,
                  color: s.color, background: s.backgroundColor,
                  disabled: b.getAttribute('aria-disabled') || 'false',
                  title: b.title, text: b.textContent};
        }""",
    )


def test_config_diff_button_looks_unavailable_and_says_why(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    server = tb_server()
    runs = len(server.get_json("runs")["runs"])
    assert runs > 20  # more than a config diff compares
    frame = open_tab(tb_page, server)
    frame.wait_for_selector(_BUTTON)
    off = _look(frame)
    assert off["text"] == f"Config diff of {runs} selected"
    assert off["disabled"] == "true"
    assert f"{runs} selected" in off["title"] and "at most 20" in off["title"]
    assert off["cursor"] == "not-allowed" and off["border"] == "dashed"
    save_screenshot(tb_page, "config_diff_unavailable.png")
    # Playwright waits for an aria-disabled button: force a real click.
    frame.click(_BUTTON, force=True)
    frame.wait_for_timeout(300)
    assert "tbmf.rd=" not in tb_page.page.url  # the diff stayed closed
    assert frame.locator('.tbmf-config-diff[data-state="ready"]').count() == 0
    # Two runs: available, and it looks it.
    frame.click('[data-action="select-none"]')
    for run in SEEDS:
        frame.click(f'input[aria-label="Select run {run}"]')
    frame.wait_for_function(
        f"document.querySelector('{_BUTTON}').getAttribute('aria-disabled')"
        " === 'false'"
    )
    on = _look(frame)
    assert on["cursor"] == "pointer" and on["border"] == "solid"
    assert on["color"] != off["color"]
    frame.click(_BUTTON)
    frame.wait_for_selector('.tbmf-config-diff[data-state="ready"]')


def test_export_carries_the_baseline_difference(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    sel = ",".join(r.replace("/", "%2F") for r in SEEDS)
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.ct=Loss%2Ftrain"
        f"&tbmf.cx=step&tbmf.sel={sel}&tbmf.cb={SEEDS[0].replace('/', '%2F')}",
    )
    _wait_for_panel(frame, run=SEEDS, baseline=SEEDS[0])
    href = frame.get_attribute('a.tbmf-cmp-export[data-format="csv"]', "href")
    assert href and "baseline=" in href
    text = frame.evaluate("async url => (await fetch(url)).text()", href)
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert header[-4:] == [
        "baseline_value",
        "baseline_smoothed",
        "diff",
        "diff_smoothed",
    ]
    with open(TRUTH / "seeds_pytorch.json") as handle:
        dirs = json.load(handle)["dirs"]
    base, other = (
        np.asarray(dirs[r]["scalars"]["Loss/train"]["values"], np.float32)
        for r in SEEDS
    )
    got = [float(r[header.index("diff")]) for r in rows[1:] if r[1] == SEEDS[1]]
    np.testing.assert_array_equal(
        got, other.astype(np.float64) - base.astype(np.float64)
    )
