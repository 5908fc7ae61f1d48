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
