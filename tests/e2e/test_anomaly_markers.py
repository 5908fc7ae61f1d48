"""Anomaly markers on the 50-run sweep chart are a layer the user controls
(issue 22): about 200 "!" chips and dashed bands covered the chart by
default, nothing hid them, and hovering near the top edge opened an anomaly
card for another run instead of the values.

Now: by default (more than 8 runs, more than 12 findings) only the
hovered run's markers; the
Compare toolbar's "Anomalies" menu chooses off / hovered run's / all, kept
in the URL (`cmk`); with more than 12 markers in view one band per run, tag
and kind; a card opens on click or focus, never on hover. Expected counts
come from `GET anomalies`, fetched here with urllib.

Same sweep and helpers as test_fifty_runs.py (scripts/make_sweep_logs.py).
"""

from __future__ import annotations

import urllib.parse

import pytest

from tests.e2e.test_fifty_runs import (  # noqa: F401, F811  (fixtures)
    _MAIN,
    _PANEL,
    METRIC,
    SPIKE_RUN_INDEX,
    SPIKE_STEP,
    TAG,
    _get,
    _move_to,
    _open_compare,
    _tooltip,
    server,
    sweep,
)

pytestmark = pytest.mark.e2e

_BANDS = f"{_MAIN} .tbmf-anomaly-band"


def _findings(server, names) -> list[dict]:  # noqa: F811
    """Every finding of the chart's series, as the server reports them."""
    while True:
        body = _get(
            server,
            "anomalies",
            [("run", n) for n in names] + [("tag", TAG), ("x", "step")],
        )
        if not body.get("pending"):
            return body["anomalies"]


def _bands(frame) -> list[dict]:
    return frame.eval_on_selector_all(
        _BANDS, "bs => bs.map(b => ({...b.dataset}))"
    )


def _wait_markers(frame, mode: str, count: int) -> None:
    frame.wait_for_function(
        """([sel, mode, n]) => {
          const p = document.querySelector(sel);
          return p.dataset.markers === mode &&
            document.querySelectorAll(
              sel + ' .tbmf-anomaly-band').length === n;
        }""",
        arg=[_PANEL, mode, count],
        timeout=30_000,
    )


def test_markers_are_a_layer_the_user_controls(
    tb_page,
    server,  # noqa: F811  (the fixture imported above)
    sweep,  # noqa: F811
    open_tab,
    save_screenshot,
) -> None:
    names = sweep["names"]
    findings = [f for f in _findings(server, names) if f["x"]]
    assert len(findings) > 100  # the issue counted about 200 chips
    frame = _open_compare(tb_page, server, open_tab)
    frame.wait_for_function(
        "n => document.querySelector('.tbmf-cmp-panel').dataset.anomalies"
        " === String(n)",
        arg=len(findings),
        timeout=60_000,
    )
    # Default with 50 runs: the hovered run's, and none hovered yet.
    _wait_markers(frame, "hovered", 0)
    assert "anomalies: auto" in frame.inner_text(
        '[data-control="anomaly-markers"]'
    )

    # Hover run_37's clipped spike: its markers only.
    run = sweep["runs"][SPIKE_RUN_INDEX]["name"]
    own = [f for f in findings if f["run"] == run]
    assert 0 < len(own) <= 12
    _move_to(tb_page, frame, _MAIN, SPIKE_STEP, None)
    _wait_markers(frame, "hovered", len(own))
    assert {b["run"] for b in _bands(frame)} == {run}
    assert sorted(int(b["step"]) for b in _bands(frame)) == sorted(
        f["step"] for f in own
    )

    # All: more than 12 in view, so one band per run, tag and kind.
    frame.select_option('[data-control="anomaly-markers"]', "all")
    groups = {(f["run"], f["tag"], f["kind"]) for f in findings}
    _wait_markers(frame, "all", len(groups))
    bands = _bands(frame)
    assert {(b["run"], b["tag"], b["kind"]) for b in bands} == groups
    assert sum(int(b["count"]) for b in bands) == len(findings)
    assert "tbmf.cmk=all" in tb_page.page.url
    save_screenshot(tb_page, "after_50runs/markers_all_summarised.png")

    # The top edge over a chip: the values tooltip, no anomaly card.
    chip = frame.eval_on_selector(
        f"{_BANDS} .tbmf-anomaly-chip",
        """c => { const r = c.getBoundingClientRect();
                   return [r.left + r.width / 2, r.top + r.height / 2]; }""",
    )
    box = tb_page.page.locator("iframe").bounding_box()
    tb_page.page.mouse.move(box["x"] + chip[0] - 4, box["y"] + chip[1])
    tb_page.page.mouse.move(box["x"] + chip[0], box["y"] + chip[1])
    frame.wait_for_function(
        f"!document.querySelector('{_MAIN} .tbmf-chart__tooltip').hidden"
    )
    assert _tooltip(frame)["rows"]
    assert frame.locator(f"{_MAIN} .tbmf-anomaly-card").is_hidden()
    # A click opens the card of that band.
    # (50 chips share the top edge: the one on top takes the click.)
    frame.locator(f"{_BANDS} .tbmf-anomaly-chip").first.click(force=True)
    frame.locator(f"{_MAIN} .tbmf-anomaly-card").wait_for(state="visible")

    # Off: nothing drawn, and the link says so.
    frame.select_option('[data-control="anomaly-markers"]', "off")
    _wait_markers(frame, "off", 0)
    assert "tbmf.cmk=off" in tb_page.page.url
    query = urllib.parse.urlsplit(tb_page.page.url).fragment
    assert "cmk=off" in query
