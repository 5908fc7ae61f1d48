"""The experiment layer in the browser: groups with bands, the runs table's
hyper-parameter and metric columns, column filters, and the config diff.

Real TensorBoard on a copy of demo_logs/, real Chromium. Numbers come from
the demo ground truth (tests/data/demo_truth/) and numpy, not from the
code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.e2e.chartdata import READ_CHART

pytestmark = pytest.mark.e2e

TRUTH = Path(__file__).resolve().parents[1] / "data" / "demo_truth"
_PANEL = ".tbmf-cmp-panel"
_MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"
_DIFF = ".tbmf-cmp-panel__diff .tbmf-chart"
SEEDS = [f"seeds/pytorch_seed{s}" for s in range(3)]


def _truth(name: str, run_dir: str, tag: str) -> np.ndarray:
    with open(TRUTH / f"{name}.json") as handle:
        series = json.load(handle)["dirs"][run_dir]["scalars"][tag]
    return np.asarray(series["values"], np.float32).astype(np.float64)


def _wait_grouped(frame, group_by: str) -> None:
    frame.wait_for_function(
        """groupBy => {
          const panel = document.querySelector('.tbmf-cmp-panel');
          if (!panel || panel.dataset.state !== 'ready') return false;
          if (panel.classList.contains('is-loading')) return false;
          const params = new URLSearchParams(panel.dataset.query || '');
          return params.get('groupBy') === groupBy;
        }""",
        arg=group_by,
    )


def test_group_by_framework_shows_one_band_per_framework(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    """The issue's story: the demo, loss/train on the epoch axis, grouped by
    framework, mean ± std: one line with a band per framework."""
    server = tb_server()
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare"
        "&tbmf.cm=loss%2Ftrain%40epoch&tbmf.cx=epoch&tbmf.cs=0.6",
    )
    frame.wait_for_selector(f'{_PANEL}[data-state="ready"]')
    frame.select_option('[data-control="group-by"]', "framework")
    _wait_grouped(frame, "framework")
    slots = frame.evaluate(READ_CHART, _MAIN)
    groups = {s["key"]: s for s in slots if s["key"].startswith("group:")}
    assert set(groups) == {"group:pytorch", "group:tensorflow", "group:paddle"}
    for slot in groups.values():
        assert slot["line"]["x"], slot["key"]
        # the band: upper above lower wherever both are drawn
        upper = dict(zip(slot["upper"]["x"], slot["upper"]["y"]))
        lower = dict(zip(slot["lower"]["x"], slot["lower"]["y"]))
        both = set(upper) & set(lower)
        assert both and all(upper[x] >= lower[x] for x in both)
    legend = frame.inner_text(f"{_MAIN}")
    # pytorch members: the metric's PyTorch runs (the demo grows new runs).
    frameworks = {
        r["run"]: r["framework"] for r in server.get_json("runs")["runs"]
    }
    (entry,) = [
        m
        for m in server.get_json("metrics")["metrics"]
        if m["key"] == "loss/train@epoch"
    ]
    torch_runs = {
        m["run"] for m in entry["members"] if frameworks[m["run"]] == "pytorch"
    }
    assert "mean ± std" in legend
    assert f"{len(torch_runs)} runs" in legend
    # members on demand: faint lines appear, linked to their group
    frame.click('[data-control="members"]')
    frame.wait_for_function(
        "() => new URLSearchParams(document.querySelector('.tbmf-cmp-panel')"
        ".dataset.query).get('includeSeries') === '1' && "
        "document.querySelector('.tbmf-cmp-panel').dataset.state === 'ready'"
        " && !document.querySelector('.tbmf-cmp-panel').classList"
        ".contains('is-loading')"
    )
    slots = frame.evaluate(READ_CHART, _MAIN)
    members = [s for s in slots if s["key"].startswith("member:")]
    assert any("seeds/pytorch_seed0" in s["key"] for s in members)
    save_screenshot(tb_page, "experiments_framework_bands.png")


def test_seed_group_mean_and_baseline_group(
    tb_server, tb_page, open_tab
) -> None:
    """Two seed groups, step axis: the drawn mean is numpy's mean of the
    three seeds' losses; against the Keras group a difference chart."""
    server = tb_server()
    runs = SEEDS + [f"seeds/keras_seed{s}/train" for s in range(3)]
    sel = ",".join(r.replace("/", "%2F") for r in sorted(runs))
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.ct=Loss%2Ftrain"
        f"&tbmf.cx=step&tbmf.cg=group&tbmf.cp=20000&tbmf.sel={sel}",
    )
    _wait_grouped(frame, "group")
    slots = {s["key"]: s for s in frame.evaluate(READ_CHART, _MAIN)}
    torch = slots["group:seeds/pytorch_seed*"]
    matrix = np.array([_truth("seeds_pytorch", r, "Loss/train") for r in SEEDS])
    np.testing.assert_allclose(
        torch["line"]["y"], matrix.mean(axis=0), rtol=1e-9
    )
    std = matrix.std(axis=0, ddof=1)
    np.testing.assert_allclose(
        torch["upper"]["y"], matrix.mean(0) + std, rtol=1e-9
    )

    # Against the Keras seeds on the epoch axis (loss/train matches both).
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare"
        "&tbmf.cm=loss%2Ftrain%40epoch&tbmf.cx=epoch&tbmf.cg=group"
        f"&tbmf.sel={sel}",
    )
    _wait_grouped(frame, "group")
    frame.select_option('[data-control="baseline-group"]', "seeds/keras_seed*")
    frame.wait_for_function(
        "() => new URLSearchParams(document.querySelector('.tbmf-cmp-panel')"
        ".dataset.query).get('baselineGroup') === 'seeds/keras_seed*'"
    )
    frame.wait_for_selector(_DIFF)
    title = frame.inner_text(".tbmf-cmp-panel__diff")
    assert "seeds/keras_seed*" in title
    diff = {s["key"]: s for s in frame.evaluate(READ_CHART, _DIFF)}
    line = diff["groupdiff:seeds/pytorch_seed*"]["line"]
    keras = np.array(
        [
            _truth("seeds_keras", f"seeds/keras_seed{s}/train", "epoch_loss")
            for s in range(3)
        ]
    )
    # at the end of epoch 8 (x = 8): PyTorch's last batch vs Keras' epoch 7
    at = line["x"].index(8)
    assert line["y"][at] == pytest.approx(
        matrix[:, -1].mean() - keras[:, -1].mean(), rel=1e-6
    )


def test_runs_table_columns_filter_and_config_diff(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    server = tb_server()
    frame = open_tab(
        tb_page, server, suffix="#tb_multiframework&tbmf.q=seeds%2Fpytorch"
    )
    frame.wait_for_selector('th[data-col="hp:seed"]')
    # constant hyper-parameters are folded into one line
    same = frame.inner_text(".tbmf-same-for-all")
    assert "lr=0.05" in same and "optimizer=sgd" in same
    assert frame.locator('th[data-col="hp:lr"]').count() == 0
    # metric columns: loss/val@epoch by default, from the truth by hand
    frame.wait_for_selector('td[data-col="best"]')
    values = _truth("seeds_pytorch", SEEDS[1], "Loss/val")
    row = frame.locator(f'tr.tbmf-run-row[data-run="{SEEDS[1]}"]')
    best = row.locator('td[data-col="best"]').inner_text()
    assert float(best) == pytest.approx(values.min(), rel=1e-3)
    # a column filter (parsed, not evaluated)
    frame.fill(".tbmf-search__input", "seeds/pytorch seed>=1")
    frame.wait_for_function(
        "document.querySelectorAll('tr.tbmf-run-row').length === 2"
    )
    shown = frame.eval_on_selector_all(
        "tr.tbmf-run-row", "rows => rows.map(r => r.dataset.run)"
    )
    assert shown == SEEDS[1:]
    # select two runs and open their config diff
    frame.click('[data-action="select-none"]')
    for run in SEEDS[1:]:
        frame.click(f'input[aria-label="Select run {run}"]')
    frame.click('[data-action="config-diff"]')
    frame.wait_for_selector('.tbmf-config-diff[data-state="ready"]')
    first = frame.locator(".tbmf-config-diff tbody tr").first
    assert first.get_attribute("data-key") == "seed"
    assert "is-different" in (first.get_attribute("class") or "")
    cells = first.locator("td").all_inner_texts()
    assert cells == ["1", "2"]
    head = frame.inner_text(".tbmf-config-diff__head")
    assert "1 key differ" in head
    save_screenshot(tb_page, "experiments_config_diff.png")


def test_hparam_columns_put_keys_most_runs_have_first(
    tb_server, tb_page, open_tab
) -> None:
    """With every demo run shown, the HF Trainer's hundred `args` keys
    (one run has them) must not push lr and seed out of the table."""
    server = tb_server()
    runs = server.get_json("runs")["runs"]
    frame = open_tab(tb_page, server)
    frame.wait_for_selector('th[data-col^="hp:"]')
    keys = frame.eval_on_selector_all(
        'th[data-col^="hp:"]', "ths => ths.map(t => t.dataset.col.slice(3))"
    )
    # Independently: how many runs have each key, and which keys differ.
    present = {}
    for run in runs:
        for key in run["hparams"]:
            present[key] = present.get(key, 0) + 1
    differing = [
        key
        for key in present
        if len({repr(run["hparams"].get(key, "\0absent")) for run in runs}) > 1
    ]
    expected = sorted(differing, key=lambda k: (-present[k], k))
    assert keys == expected[: len(keys)]
    assert present[keys[0]] == max(present[k] for k in differing)


def test_ddp_ranks_are_one_group_with_a_rank_spread(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    frame = open_tab(tb_page, server, suffix="#tb_multiframework&tbmf.q=ddp")
    frame.wait_for_selector('tr.tbmf-group-row[data-group="ddp"]')
    frame.wait_for_selector('tr.tbmf-group-row td[data-col="spread"]')
    text = frame.inner_text(
        'tr.tbmf-group-row[data-group="ddp"] td[data-col="spread"]'
    )
    last = [_truth("ddp", f"ddp/rank_{r}", "Loss/val")[-1] for r in (0, 1)]
    mean = np.mean(last)
    want = 100 * max(abs(v - mean) for v in last) / abs(mean)
    assert float(text.rstrip("%")) == pytest.approx(want, abs=0.06)
