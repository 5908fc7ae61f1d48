"""What the tab inferred, in a real TensorBoard and Chromium: the Runs
table's detail row shows each inference with its status and evidence, and a
correction made there is saved in the config file and shown as "set by you".

Runs: a copy of the trainer matrix (tests/data/trainers), MMEngine's
epoch-based run (interleaved loops, a 1-based epoch counter) and the real
restart.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.conftest import start_tensorboard

pytestmark = pytest.mark.e2e

TRAINERS = Path(ROOT) / "tests" / "data" / "trainers"
MM = "mmengine_epoch/20261201_222720/vis_data"


@pytest.fixture(scope="module")
def matrix_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("inferences")
    logdir = root / "logs"
    for run in ("mmengine_epoch", "restart", "vdl_det_style"):
        shutil.copytree(TRAINERS / run, logdir / run)
    config = root / "tbmf.json"
    config.write_text("{}", encoding="utf-8")
    server = start_tensorboard(
        logdir, extra_args=("--tbmf_config", str(config))
    )
    yield server, config
    server.stop()


def _open_details(frame, run):
    row = frame.locator(f'tr.tbmf-run-row[data-run="{run}"]')
    row.locator("td[data-col=run]").click()
    section = frame.locator(
        f'tr.tbmf-detail-row[data-run="{run}"] section.tbmf-infer'
    )
    section.wait_for()
    return section


def _claim(section, label):
    return section.locator(f'tr[data-inference="{label}"]')


def test_inferences_with_evidence_and_a_saved_correction(
    matrix_server, tb_page, open_tab, save_screenshot
):
    server, config = matrix_server
    frame = open_tab(tb_page, server)
    section = _open_details(frame, MM)
    loops = _claim(section, "loops")
    assert "time: 2 loops" in loops.inner_text()
    epoch = _claim(section, "epochAxis")
    assert "from the files" in epoch.inner_text()
    epoch.locator("summary").click()
    assert "counts from 1" in epoch.inner_text()
    resumed = _claim(section, "resume")
    assert "no" in resumed.locator(".tbmf-infer__value").inner_text()
    save_screenshot(tb_page, "inferences_mmengine.png")

    section = _open_details(frame, "restart")
    trainer = _claim(section, "trainer")
    assert "unknown" in trainer.inner_text()
    trainer.locator("summary").click()
    assert "no trainer's signature" in trainer.inner_text()
    resumed = _claim(section, "resume")
    assert "yes" in resumed.inner_text()
    resumed.get_by_role("button", name="Not a resume").click()
    # The correction is in the file, and the table says so once reloaded.
    frame.wait_for_function(
        """() => {
          const row = document.querySelector(
            'tr.tbmf-detail-row[data-run="restart"] tr[data-inference="resume"]');
          return row && row.textContent.includes("set by you");
        }"""
    )
    saved = json.loads(config.read_text(encoding="utf-8"))
    assert saved["runs"]["restart"] == {"notResumed": True}
    note = frame.locator('tr.tbmf-run-row[data-run="restart"] .tbmf-run-note')
    assert note.count() == 0  # "resumed at step 24 ..." is gone
    save_screenshot(tb_page, "inferences_corrected.png")
