"""Speed derived from wall time in the real tab: the Runs table's step
time and training time, and `time/epoch` in Compare on the epoch axis,
checked against the schedule the timed logs were written with
(tests/data/speed/timed/truth.json, scripts/speed/gen_timed.py)."""

from __future__ import annotations

import json
import shutil
import urllib.parse
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

TIMED = Path(ROOT) / "tests" / "data" / "speed" / "timed"


@pytest.fixture(scope="module")
def speed_logdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("speed_e2e")
    for run in ("every_step", "every_10", "resumed"):
        shutil.copytree(TIMED / run, root / run)
    return root


@pytest.fixture(scope="module")
def truth() -> dict:
    return json.loads((TIMED / "truth.json").read_text())["runs"]


def test_runs_table_and_compare(
    tb_server, tb_page, open_tab, speed_logdir, truth, save_screenshot
) -> None:
    server = tb_server(logdir=speed_logdir)
    frame = open_tab(tb_page, server)
    frame.wait_for_selector('tr[data-run="every_step"] td[data-col="steptime"]')
    cells = frame.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll(
             'tr.tbmf-run-row')].map(row => [row.dataset.run, {
               step: row.querySelector('td[data-col="steptime"]').textContent,
               title: row.querySelector('td[data-col="steptime"]').title,
               train: row.querySelector('td[data-col="traintime"]').textContent,
             }]))"""
    )
    for run in ("every_step", "every_10"):
        ms = float(cells[run]["step"].removesuffix(" ms"))
        assert ms == pytest.approx(
            1000 * truth[run]["medianStepTime"], rel=0.01
        )
        assert "derived from wall time" in cells[run]["title"]
        assert cells[run]["train"] == "1 min 23 s"  # 83.3 s, no resume
    # resumed: 49.3 + 40.2 s of training, the 50 s downtime left out
    assert cells["resumed"]["train"] == "1 min 30 s"
    save_screenshot(tb_page, "speed_runs.png")

    state = {
        "tbmf.view": "compare",
        "tbmf.sel": "every_10,every_step",
        "tbmf.cm": "time/epoch",
        "tbmf.cx": "epoch",
    }
    suffix = "#tb_multiframework&" + "&".join(
        f"{urllib.parse.quote(k, safe='')}={urllib.parse.quote(v, safe='')}"
        for k, v in state.items()
    )
    frame = open_tab(tb_page, server, suffix=suffix)
    frame.wait_for_selector('.tbmf-cmp-panel[data-state="ready"]')
    frame.wait_for_selector(".tbmf-cmp-metric__derived")
    legend = frame.inner_text(".tbmf-cmp-panel")
    assert "[derived] time/epoch" in legend
    save_screenshot(tb_page, "speed_compare_epoch_time.png")
