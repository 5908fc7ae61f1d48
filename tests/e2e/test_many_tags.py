"""The Compare tab with a run of 3,000 tags: it fetches what it shows.

Tree::

    logs/wide/events...   tags w0000/loss ... w2999/loss, 5 points each
                          (value of w<i>/loss at step s: i + s / 10)

The metric picker asks the server for a page (never the whole index),
says how many more match, and finds any tag by search; the raw-tag list
does the same through `GET tags`. Values drawn are checked against the
values written.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request

import numpy as np
import pytest

from tests import eventfiles
from tests.e2e.chartdata import READ_CHART

pytestmark = pytest.mark.e2e

N = 3000
_MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"


def _logdir(root):
    payloads = [eventfiles.file_version_event(1.0)]
    for step in range(5):
        payloads += [
            eventfiles.scalar_event(f"w{i:04d}/loss", step, 10.0 + step, i + step / 10)
            for i in range(N)
        ]
    eventfiles.write(
        str(root / "wide" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes(payloads),
    )
    return root


def test_the_picker_pages_and_searches_on_the_server(
    tb_server, tb_page, open_tab, save_screenshot, tmp_path
) -> None:
    server = tb_server(logdir=_logdir(tmp_path / "logs"))
    asked: list[dict[str, list[str]]] = []
    tb_page.page.on(
        "request",
        lambda request: asked.append(
            urllib.parse.parse_qs(urllib.parse.urlsplit(request.url).query)
        )
        if "/tb_multiframework/metrics" in request.url
        or "/tb_multiframework/tags" in request.url
        else None,
    )
    frame = open_tab(
        tb_page, server, suffix="#tb_multiframework&tbmf.view=compare&tbmf.sel=wide"
    )
    more = frame.wait_for_selector(".tbmf-cmp-metrics__more")
    assert more is not None
    with urllib.request.urlopen(
        server.plugin_url("metrics") + "?limit=1", timeout=60
    ) as answer:
        total = json.loads(answer.read())["total"]
    assert total >= N  # at least one entry a tag
    # A page of 500 entries is shown (grouped by name), the rest counted.
    names = frame.eval_on_selector_all("li.tbmf-cmp-metric", "els => els.length")
    assert 0 < names <= 500
    assert more.get_attribute("data-more") == str(total - 500)
    assert all("limit" in query or "key" in query for query in asked), asked
    frame.fill('[data-control="metric-search"]', "w2999")
    row = 'li.tbmf-cmp-metric[data-name^="w2999/"]'
    frame.wait_for_selector(row)
    assert frame.eval_on_selector_all(row, "els => els.length") == 1
    frame.click(f"{row} .tbmf-cmp-metric__name")
    frame.wait_for_function(
        "s => { const e = document.querySelector(s);"
        " return e && e.tbmfChart && e.tbmfChart.uplot &&"
        " e.tbmfChart.uplot.data.length > 1 }",
        arg=_MAIN,
    )
    frame.wait_for_function(
        "() => document.querySelector('.tbmf-cmp-panel')"
        ".getAttribute('data-query').includes('w2999')"
    )
    (drawn,) = frame.evaluate(READ_CHART, _MAIN)
    assert [round(v, 4) for v in drawn["line"]["y"]] == [
        round(float(np.float32(2999 + s / 10)), 4) for s in range(5)
    ]
    save_screenshot(tb_page, "many_tags_picker.png")
    # Raw tags: a page from the server too.
    frame.fill('[data-control="metric-search"]', "")
    frame.click('.tbmf-cmp-card--metrics [data-mode="tags"]')
    more = frame.wait_for_selector(".tbmf-cmp-metrics__more")
    assert more.get_attribute("data-more") == str(N - 500)
    frame.fill('[data-control="metric-search"]', "w1234/")
    frame.wait_for_selector('.tbmf-cmp-tag[data-tag="w1234/loss"]')
    assert frame.eval_on_selector_all(".tbmf-cmp-tag", "els => els.length") == 1
    assert any("search" in q and q["search"] == ["w1234/"] for q in asked)
