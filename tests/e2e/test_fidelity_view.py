"""Resumed runs and trainers as a user meets them, in real Chromium.

The Runs table says that ``pytorch_resumed`` (a real torch run resumed with
``purge_step``) was resumed and how many points were superseded, and names
the trainer of the Lightning and HF Trainer runs; Compare draws the
superseded points faint and dashed when asked, and shows Keras' running
means as per-batch values. Expected numbers come from the generators' ground
truth (tests/data/demo_truth) and hand rules, never from the plugin.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import numpy as np
import pytest

from tests.e2e.chartdata import READ_CHART

pytestmark = pytest.mark.e2e

TRUTH = Path(__file__).resolve().parents[1] / "data" / "demo_truth"
_PANEL = ".tbmf-cmp-panel"
_MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"
CRASH_STEP, RESUME_STEP = 279, 200  # scripts/demo/gen_pytorch_resumed.py


def _truth(run_file: str, run_dir: str) -> dict:
    with open(TRUTH / f"{run_file}.json") as handle:
        return json.load(handle)["dirs"][run_dir]["scalars"]


def _hash(**state: str) -> str:
    return "#tb_multiframework&" + "&".join(
        f"tbmf.{k}={urllib.parse.quote(v, safe='@/,')}"
        for k, v in state.items()
    )


def _wait_for_query(frame, **expected: str) -> None:
    frame.wait_for_function(
        """want => {
          const panel = document.querySelector('.tbmf-cmp-panel');
          if (!panel || panel.dataset.state !== 'ready') return false;
          if (panel.classList.contains('is-loading')) return false;
          const got = new URLSearchParams(panel.dataset.query || '');
          return Object.entries(want).every(([k, v]) =>
            v === null ? !got.has(k) : got.get(k) === v);
        }""",
        arg=expected,
    )


def test_runs_table_shows_resume_note_and_trainers(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    server = tb_server()
    frame = open_tab(tb_page, server)
    frame.wait_for_selector('tr.tbmf-run-row[data-run="pytorch_resumed"]')
    note = frame.text_content(
        'tr.tbmf-run-row[data-run="pytorch_resumed"] .tbmf-run-note'
    )
    # By hand: attempt 0 logged Loss/train and epoch at every step up to the
    # crash and Loss/val, Accuracy/val at step 249; attempt 1 resumed at 200.
    superseded = 2 * (CRASH_STEP - RESUME_STEP + 1) + 2
    assert note == (
        f"resumed at step {RESUME_STEP} · {superseded} points superseded"
    )
    trainers = {
        run: frame.text_content(
            f'tr.tbmf-run-row[data-run="{run}"] .tbmf-trainer'
        )
        for run in ("lightning_mlp/version_0", "hf_trainer", "paddle_hapi")
    }
    assert trainers == {
        "lightning_mlp/version_0": "Lightning",
        "hf_trainer": "HF Trainer",
        "paddle_hapi": "Paddle hapi",
    }
    # Runs that were not resumed carry no note (Lightning repeats steps).
    assert (
        frame.query_selector(
            'tr.tbmf-run-row[data-run="lightning_mlp/version_0"] .tbmf-run-note'
        )
        is None
    )
    # The add_scalars sub-runs sit in the resumed run's group.
    group_runs = frame.eval_on_selector_all(
        'tr.tbmf-run-row.is-member[data-run^="pytorch_resumed/"]',
        "rows => rows.map(r => r.dataset.run)",
    )
    assert {"pytorch_resumed/Loss_train", "pytorch_resumed/Loss_val"} <= set(
        group_runs
    )
    frame.click('tr.tbmf-run-row[data-run="pytorch_resumed"] .tbmf-expander')
    attempts = frame.text_content(
        'tr.tbmf-detail-row[data-run="pytorch_resumed"] .tbmf-attempts'
    )
    assert f"resumed at step {RESUME_STEP} (SessionLog.START" in attempts
    save_screenshot(tb_page, "fidelity_runs.png")


def test_compare_draws_superseded_points_faint_and_dashed(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    server = tb_server()
    suffix = _hash(
        view="compare",
        sel="pytorch_resumed",
        ct="Loss/train",
        cx="epoch",
    )
    frame = open_tab(tb_page, server, suffix=suffix)
    _wait_for_query(frame, tag="Loss/train", x="epoch", attempts=None)
    slots = frame.evaluate(READ_CHART, _MAIN)
    assert [s["label"] for s in slots] == ["pytorch_resumed"]
    truth = _truth("pytorch_resumed", "pytorch_resumed")["Loss/train"]
    last = dict(zip(truth["steps"], truth["values"]))  # later attempt wins
    np.testing.assert_allclose(
        slots[0]["line"]["y"],
        np.float32([last[s] for s in range(400)]),
        rtol=0,
        atol=0,
    )

    frame.click('[data-control="more"] > summary')  # under "More"
    frame.click('[data-control="attempts"]')
    _wait_for_query(frame, tag="Loss/train", attempts="all")
    slots = {s["label"]: s for s in frame.evaluate(READ_CHART, _MAIN)}
    old = slots["pytorch_resumed (attempt 0, superseded)"]
    assert old["dash"] == [4, 4]
    first = dict(
        zip(truth["steps"][: CRASH_STEP + 1], truth["values"][: CRASH_STEP + 1])
    )
    steps = list(range(RESUME_STEP, CRASH_STEP + 1))
    # 50 batches an epoch, 0-based steps: step s sits at (s + 1) / 50.
    np.testing.assert_allclose(old["line"]["x"], [(s + 1) / 50 for s in steps])
    np.testing.assert_array_equal(
        old["line"]["y"], np.float32([first[s] for s in steps])
    )
    opacity = frame.evaluate(
        """sel => {
          const chart = document.querySelector(sel).tbmfChart;
          const slot = chart.slots.find(s => s.label.includes('superseded'));
          return chart.uplot.series[slot.index].alpha;
        }""",
        _MAIN,
    )
    assert 0 < opacity < 1
    save_screenshot(tb_page, "fidelity_compare_superseded.png")


def test_compare_shows_keras_running_means_as_per_batch_values(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    suffix = _hash(
        view="compare", sel="keras_fit/train", ct="batch_loss", cx="epoch"
    )
    frame = open_tab(tb_page, server, suffix=suffix)
    _wait_for_query(frame, tag="batch_loss", batchValues=None)
    frame.click('[data-control="more"] > summary')  # under "More"
    frame.select_option('[data-control="batch-values"]', "per_batch")
    _wait_for_query(frame, tag="batch_loss", batchValues="per_batch")
    (slot,) = frame.evaluate(READ_CHART, _MAIN)
    means = np.float32(
        _truth("keras_fit", "keras_fit/train")["batch_loss"]["values"]
    ).astype(np.float64)
    # By hand: within each epoch of 50 batches, v_b = b·m_b − (b−1)·m_(b−1).
    per_batch = []
    for epoch in means.reshape(8, 50):
        b = np.arange(1, 51)
        per_batch += list(b * epoch - (b - 1) * np.r_[0.0, epoch[:-1]])
    np.testing.assert_allclose(slot["line"]["y"], per_batch, rtol=1e-12)
