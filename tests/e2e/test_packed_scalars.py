"""The tab fetches packed scalars (`encoding=b64`) and draws what JSON says.

Two runs in a real TensorBoard, one with NaN, +Inf and -Inf points, the
other its baseline: the browser's own request for `scalars` must ask for
`encoding=b64` and get an uncompressed answer; the main chart must mark the
non-finite points, and the difference chart must draw a gap (not a 0) where
the difference is NaN and a marker where it is infinite. Expected numbers
come from the plain JSON answer fetched here and from numpy.
"""

from __future__ import annotations

import math
import urllib.parse

import numpy as np
import pytest

from tests import eventfiles
from tests.e2e.chartdata import READ_CHART

pytestmark = pytest.mark.e2e

_MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"
_DIFF = ".tbmf-cmp-panel__diff .tbmf-chart"
VALUES = [1.0, 0.9, math.nan, 0.7, math.inf, 0.5, -math.inf, 0.3, 0.2, 0.1]


def _write_runs(logdir) -> None:
    for run, values in (("odd", VALUES), ("base", [0.25] * len(VALUES))):
        events = [eventfiles.file_version_event(1.0)] + [
            eventfiles.scalar_event("loss", step, 10.0 + step, value)
            for step, value in enumerate(values)
        ]
        eventfiles.write(
            str(logdir / run / eventfiles.TORCH_NAME),
            eventfiles.record_bytes(events),
        )


def test_packed_answer_is_drawn_like_the_json_answer(
    tb_server, tb_page, open_tab, tmp_path
) -> None:
    _write_runs(tmp_path / "logs")
    server = tb_server(logdir=tmp_path / "logs")
    answers = []
    tb_page.page.on(
        "response",
        lambda r: answers.append(r) if "/scalars?" in r.url else None,
    )
    suffix = (
        "#tb_multiframework&tbmf.view=compare&tbmf.sel=odd,base"
        "&tbmf.ct=loss&tbmf.cb=base"
    )
    frame = open_tab(tb_page, server, suffix=suffix)
    frame.wait_for_selector(f"{_DIFF}")
    frame.wait_for_function(
        "sel => document.querySelector(sel)?.tbmfChart?.uplot", arg=_DIFF
    )

    assert answers, "the tab fetched no scalars"
    asked = urllib.parse.parse_qs(urllib.parse.urlsplit(answers[-1].url).query)
    assert asked["encoding"] == ["b64"]
    assert answers[-1].headers.get("content-encoding") is None
    assert answers[-1].json()["encoding"] == "b64"

    plain = server.get_json(
        "scalars?run=odd&run=base&tag=loss&baseline=base&points=1000"
    )
    drawn = {s["run"]: s for s in frame.evaluate(READ_CHART, _MAIN)}
    assert drawn["odd"]["markers"] == [
        {"x": 2, "kind": "nan"},
        {"x": 4, "kind": "inf"},
        {"x": 6, "kind": "-inf"},
    ]
    finite = [s for s, v in enumerate(VALUES) if math.isfinite(v)]
    assert drawn["odd"]["line"]["x"] == finite
    assert drawn["odd"]["line"]["y"] == pytest.approx(
        [VALUES[s] for s in finite]
    )

    # odd - base at every step; NaN is a gap, +-Inf a marker, never a 0.
    expected = np.array(VALUES) - 0.25
    (diff,) = [
        s for s in frame.evaluate(READ_CHART, _DIFF) if s["run"] == "odd"
    ]
    finite_diff = [s for s in range(len(VALUES)) if np.isfinite(expected[s])]
    assert diff["line"]["x"] == finite_diff
    assert diff["line"]["y"] == pytest.approx(expected[finite_diff].tolist())
    assert diff["markers"] == [
        {"x": 4, "kind": "inf"},
        {"x": 6, "kind": "-inf"},
    ]
    json_diff = plain["diffs"][0]["y"]
    assert json_diff[2] == "NaN" and json_diff[4] == "Infinity"
