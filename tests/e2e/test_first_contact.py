"""First contact with Compare (issue 22): it opens on the axis that makes
the selected runs comparable and says why in one line; an empty view says
what to do first.

Expected axes follow from the runs' frameworks and `hasEpochAxis` as
`GET runs` reports them (checked here first), on a copy of demo_logs/.
"""

from __future__ import annotations

import urllib.parse

import pytest

from tests.e2e.test_compare_view import _wait_for_panel

pytestmark = pytest.mark.e2e

_GUIDE = ".tbmf-cmp__guide"
THREE = ["keras_fit/train", "paddle_vdl", "pytorch_sgd"]  # 3 frameworks


def _open(tb_page, open_tab, server, runs):
    sel = urllib.parse.quote(",".join(sorted(runs)), safe="")
    return open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare"
        f"&tbmf.cm=loss%2Ftrain%40epoch&tbmf.sel={sel}",
    )


def test_opens_on_the_axis_that_makes_runs_comparable(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    server = tb_server()
    runs = {r["run"]: r for r in server.get_json("runs")["runs"]}
    assert len({runs[r]["framework"] for r in THREE}) == 3
    assert all(runs[r]["hasEpochAxis"] for r in THREE)
    assert not runs["tf2_loop"]["hasEpochAxis"]

    frame = _open(tb_page, open_tab, server, THREE)
    _wait_for_panel(frame, x="epoch")
    guide = frame.inner_text(_GUIDE)
    assert guide.startswith("Epoch axis:")
    assert "PyTorch" in guide and "TensorFlow" in guide and "Paddle" in guide
    assert "tbmf.cx=" not in tb_page.page.url  # a default, not a choice
    save_screenshot(tb_page, "first_contact_epoch.png")

    # A run without epochs among them: step, and the line names it.
    frame.check('.tbmf-cmp-run input[data-run="tf2_loop"]')
    _wait_for_panel(frame, x="step")
    guide = frame.inner_text(_GUIDE)
    assert guide.startswith("Step axis:") and "tf2_loop" in guide

    # The user's choice wins, and the line goes.
    frame.click('.tbmf-cmp-seg__item[data-axis="epoch"]')
    _wait_for_panel(frame, x="epoch")
    assert "tbmf.cx=epoch" in tb_page.page.url
    assert frame.locator(_GUIDE).is_hidden()


def test_an_empty_view_says_what_to_do_first(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.sel=-",
    )
    frame.wait_for_selector(f"{_GUIDE}:not([hidden])")
    assert frame.inner_text(_GUIDE).startswith("Start here: tick runs")


def test_group_by_keys_differing_first_and_searchable(
    tb_server, tb_page, open_tab
) -> None:
    """~150 HF `accelerator_config.*` keys (one run has them) came first in
    alphabetical order; now the keys that differ, those most runs have
    first, then the rest; a search box narrows them."""
    server = tb_server()
    runs = server.get_json("runs")["runs"]
    present: dict[str, int] = {}
    values: dict[str, set[str]] = {}
    for run in runs:
        for key, value in run["hparams"].items():
            present[key] = present.get(key, 0) + 1
            values.setdefault(key, set()).add(repr(value))
    differing = sorted(
        (k for k in present if len(values[k]) > 1 or present[k] < len(runs)),
        key=lambda k: (-present[k], k),
    )
    frame = open_tab(
        tb_page, server, suffix="#tb_multiframework&tbmf.view=compare"
    )
    select = '[data-control="group-by"]'
    frame.wait_for_selector(f"{select} optgroup", state="attached")
    shown = frame.eval_on_selector(
        select,
        """s => [...s.querySelectorAll('optgroup')].map(g => [g.label,
              [...g.querySelectorAll('option')].map(o => o.value)])""",
    )
    label, keys = shown[0]
    assert label == f"hyper-parameters that differ ({len(differing)})"
    assert keys == [f"hparam:{k}" for k in differing]
    assert not keys[0].startswith("hparam:accelerator_config.")
    frame.fill('[data-control="group-search"]', "seed")
    frame.wait_for_function(
        """sel => [...document.querySelectorAll(sel + ' optgroup option')]
              .every(o => o.value.toLowerCase().includes('seed'))""",
        arg=select,
    )
    found = frame.eval_on_selector_all(
        f"{select} optgroup option", "os => os.map(o => o.value)"
    )
    assert found and "hparam:seed" in found
