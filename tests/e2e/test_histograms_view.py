"""The Histograms view in a real TensorBoard and a real Chromium.

A PyTorch layer (``pytorch_sgd``, ``weights/fc1.weight``) is compared with the
same layer written by Keras (``keras_fit/train``,
``mlp/fc1/kernel/histogram``). Expected numbers come from outside the view:
positions, steps, element counts and value ranges from the generator's record
``tests/data/demo_truth/*.json``; distances from the HTTP API (fetched with
urllib, as the brief asks) and, independently of the plugin's core, from the
CDFs of the raw histograms computed here with numpy.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Frame, Route

pytestmark = pytest.mark.e2e

TRUTH = Path(__file__).resolve().parents[1] / "data" / "demo_truth"
PLUGIN = "tb_multiframework"
RUN_A = "pytorch_sgd"
TAG_A = "weights/fc1.weight"
RUN_B = "keras_fit/train"
TAG_B = "mlp/fc1/kernel/histogram"
BINS = 60  # the view's default bucket count
DISTANCE_KEYS = ("wasserstein", "jensenShannon", "ks", "meanDelta", "stdDelta")
SCREENSHOT_VIEWPORT = {"width": 1400, "height": 1380}
_TIMEOUT_MS = 20_000


def _truth(run_dir: str, tag: str) -> dict[str, Any]:
    """The generator's record of one histogram tag."""
    group = run_dir.split("/")[0]
    record = json.loads((TRUTH / f"{group}.json").read_text())
    return record["dirs"][run_dir]["histograms"][tag]


TRUTH_A = _truth(RUN_A, TAG_A)
TRUTH_B = _truth(RUN_B, TAG_B)


def _expected_epochs() -> list[float]:
    """Epoch positions where both runs have a histogram, by hand.

    PyTorch logs at the 0-based step of each epoch's last batch, so the first
    histogram's step + 1 is the batches per epoch and step s sits at
    (s + 1) / batches. Keras logs at step = 0-based epoch k, which sits at
    k + 1 (docs/conventions.md).
    """
    batches = TRUTH_A["steps"][0] + 1
    epochs_a = [(s + 1) / batches for s in TRUTH_A["steps"]]
    epochs_b = {k + 1.0 for k in TRUTH_B["steps"]}
    return [x for x in epochs_a if x in epochs_b]


def _js(x: float) -> str:
    """How JavaScript's String() writes a float (3.0 -> "3")."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _api(server, route: str, **params: object) -> dict[str, Any]:
    return server.get_json(f"{route}?{urllib.parse.urlencode(params)}")


def _diff(server, at: float) -> dict[str, Any]:
    return _api(
        server,
        "histogram_diff",
        runA=RUN_A,
        tagA=TAG_A,
        runB=RUN_B,
        tagB=TAG_B,
        x="epoch",
        at=_js(at),
        bins=BINS,
    )


def _cdf_distances(
    edges_a: list[float],
    counts_a: list[float],
    edges_b: list[float],
    counts_b: list[float],
) -> tuple[float, float]:
    """Wasserstein-1 and KS of two histograms read as uniform in a bucket.

    Both CDFs are piecewise linear with knots at their edges, so on the union
    of all edges F_A - F_B is linear between knots: KS is its largest |value|
    at a knot and W1 integrates |linear| segment by segment in closed form.
    """
    knots = np.union1d(edges_a, edges_b)

    def cdf(edges: list[float], counts: list[float]) -> np.ndarray:
        cumulative = np.concatenate([[0.0], np.cumsum(counts)]) / sum(counts)
        return np.interp(knots, edges, cumulative, left=0.0, right=1.0)

    gap = cdf(edges_a, counts_a) - cdf(edges_b, counts_b)
    ks = float(np.max(np.abs(gap)))
    w1 = 0.0
    for i in range(len(knots) - 1):
        d0, d1, width = gap[i], gap[i + 1], knots[i + 1] - knots[i]
        if d0 * d1 >= 0:
            w1 += (abs(d0) + abs(d1)) / 2 * width
        else:  # the line crosses zero inside the segment
            w1 += (d0 * d0 + d1 * d1) / (2 * (abs(d0) + abs(d1))) * width
    return w1, ks


def _open_view(tb_page, server, open_tab, suffix: str = "") -> Frame:
    frame = open_tab(tb_page, server, suffix=suffix)
    frame.click('.tbmf-tab[data-view="histograms"]')
    frame.wait_for_selector(
        ".tbmf-hist-body:not([hidden])", timeout=_TIMEOUT_MS
    )
    return frame


def _wait_shown(frame: Frame, *, tag_a: str, tag_b: str, at: float) -> None:
    """Waits until the distances table shows this pair at this position and
    nothing is loading any more."""
    frame.wait_for_function(
        """([tagA, tagB, at]) => {
          const t = document.querySelector('[data-role="distances"]');
          const root = document.querySelector('.tbmf-hist');
          return t && root && root.dataset.status === 'ready'
            && t.dataset.tagA === tagA && t.dataset.tagB === tagB
            && t.dataset.axis === 'epoch' && Number(t.dataset.at) === at;
        }""",
        arg=[tag_a, tag_b, at],
        timeout=_TIMEOUT_MS,
    )


def _table(frame: Frame) -> dict[str, tuple[float, str]]:
    """Each distance row: full-precision value and the text shown."""
    rows = frame.eval_on_selector_all(
        '[data-role="distances"] tr[data-distance]',
        """rows => rows.map(r => {
          const v = r.querySelector('.tbmf-hist-dist__value');
          return [r.dataset.distance, v.dataset.value, v.textContent];
        })""",
    )
    return {key: (float(value), text) for key, value, text in rows}


def _assert_table_matches(table, distances: dict[str, float]) -> None:
    assert set(table) == set(DISTANCE_KEYS)
    for key in DISTANCE_KEYS:
        value, text = table[key]
        assert value == distances[key], key
        # The text is the value to 5 significant digits.
        assert float(text) == pytest.approx(distances[key], rel=1e-4), key


def _chart_data(frame: Frame, chart: str) -> dict[str, Any]:
    return frame.eval_on_selector(
        f'[data-chart="{chart}"] .tbmf-histchart', "el => el.histChartData"
    )


def test_compare_a_pytorch_and_a_keras_layer(
    tb_server, tb_page, new_page, open_tab, save_screenshot
) -> None:
    server = tb_server()
    frame = _open_view(tb_page, server, open_tab)
    frame.select_option('select[data-role="run-a"]', RUN_A)
    frame.select_option('select[data-role="run-b"]', RUN_B)

    # Tag A by hand first (a gradient), then the suggested pair.
    frame.wait_for_selector(
        'select[data-role="tag-a"] optgroup[label="Gradients"] '
        'option[value="grads/fc1.weight"]',
        state="attached",
        timeout=_TIMEOUT_MS,
    )
    frame.select_option('select[data-role="tag-a"]', "grads/fc1.weight")
    frame.wait_for_function(
        """() => document.querySelector('[data-role="distances"]')
             ?.dataset.tagA === 'grads/fc1.weight'""",
        timeout=_TIMEOUT_MS,
    )
    assert frame.text_content('[data-side="a"] .tbmf-hist-kind') == "gradient"
    suggestion = frame.wait_for_selector(
        f'[data-role="suggestions"] button[data-tag-a="{TAG_A}"]'
        f'[data-tag-b="{TAG_B}"]',
        timeout=_TIMEOUT_MS,
    )
    elements = TRUTH_A["counts_total"][0]
    assert elements == TRUTH_B["counts_total"][0]
    assert f"{elements} elements" in suggestion.text_content()
    suggestion.click()
    frame.click('button[data-axis="epoch"]')

    epochs = _expected_epochs()
    assert len(epochs) == len(TRUTH_A["steps"])  # every epoch has both
    _wait_shown(frame, tag_a=TAG_A, tag_b=TAG_B, at=epochs[-1])
    assert (
        frame.get_attribute(
            f'button[data-tag-a="{TAG_A}"][data-tag-b="{TAG_B}"]',
            "aria-pressed",
        )
        == "true"
    )

    # The slider runs over the aligned positions and starts at the last.
    slider = frame.locator('input[data-role="position"]')
    assert slider.get_attribute("max") == str(len(epochs) - 1)
    assert slider.input_value() == str(len(epochs) - 1)
    distances = _api(
        server,
        "histogram_distances",
        runA=RUN_A,
        tagA=TAG_A,
        runB=RUN_B,
        tagB=TAG_B,
        x="epoch",
        bins=BINS,
    )
    assert distances["positions"] == pytest.approx(epochs)

    # The table equals the API at the last position.
    last = _diff(server, epochs[-1])
    table_last = _table(frame)
    _assert_table_matches(table_last, last["distances"])

    # Bars: the API's rebinned counts, summing to the layer's element count.
    bars_a = _chart_data(frame, "a")
    bars_b = _chart_data(frame, "b")
    assert bars_a["edges"] == last["edges"]
    assert [s["values"] for s in bars_a["series"]] == [
        pytest.approx(last["countsA"], rel=1e-12)
    ]
    assert [s["values"] for s in bars_b["series"]] == [
        pytest.approx(last["countsB"], rel=1e-12)
    ]
    assert last["normalized"] is False
    assert sum(bars_a["series"][0]["values"]) == pytest.approx(elements)
    assert sum(bars_b["series"][0]["values"]) == pytest.approx(elements)
    # The common edges span both logged ranges.
    assert bars_a["edges"][0] == pytest.approx(
        min(TRUTH_A["min"][-1], TRUTH_B["min"][-1]), abs=1e-7
    )
    assert bars_a["edges"][-1] == pytest.approx(
        max(TRUTH_A["max"][-1], TRUTH_B["max"][-1]), abs=1e-7
    )
    assert len(bars_a["edges"]) == BINS + 1
    # The difference chart splits A - B into its two signs.
    diff_bars = _chart_data(frame, "diff")
    drawn = [
        (p if p is not None else 0.0) + (n if n is not None else 0.0)
        for p, n in zip(
            diff_bars["series"][0]["values"], diff_bars["series"][1]["values"]
        )
    ]
    assert drawn == pytest.approx(
        [a - b for a, b in zip(last["countsA"], last["countsB"])], abs=1e-9
    )

    # Move the slider with the keyboard, as a user would: to the third epoch.
    slider.focus()
    slider.press("Home")
    slider.press("ArrowRight")
    slider.press("ArrowRight")
    third = epochs[2]
    _wait_shown(frame, tag_a=TAG_A, tag_b=TAG_B, at=third)
    table_third = _table(frame)
    assert table_third["wasserstein"][0] != table_last["wasserstein"][0]
    assert table_third["ks"][0] != table_last["ks"][0]
    at_third = _diff(server, third)
    _assert_table_matches(table_third, at_third["distances"])
    readout = frame.text_content('[data-role="readout"]')
    assert f"step {TRUTH_A['steps'][2]}" in readout
    assert f"step {TRUTH_B['steps'][2]}" in readout
    assert at_third["a"]["step"] == TRUTH_A["steps"][2]
    assert at_third["b"]["step"] == TRUTH_B["steps"][2]

    # Independently of the plugin's core: W1 and KS from the raw histograms.
    hist_a = _api(server, "histograms", run=RUN_A, tag=TAG_A, x="epoch")
    hist_b = _api(server, "histograms", run=RUN_B, tag=TAG_B, x="epoch")
    (raw_a,) = [s for s in hist_a["steps"] if s["step"] == TRUTH_A["steps"][2]]
    (raw_b,) = [s for s in hist_b["steps"] if s["step"] == TRUTH_B["steps"][2]]
    w1, ks = _cdf_distances(
        raw_a["edges"], raw_a["counts"], raw_b["edges"], raw_b["counts"]
    )
    assert table_third["wasserstein"][0] == pytest.approx(w1, rel=1e-9)
    assert table_third["ks"][0] == pytest.approx(ks, rel=1e-9)

    # Distance over training: one point per position, the API's values.
    trend = frame.eval_on_selector(
        '[data-role="trend"]',
        "el => ({x: Array.from(el.tbmfChart.uplot.data[0]),"
        " y: Array.from(el.tbmfChart.uplot.data[1])})",
    )
    assert trend["x"] == pytest.approx(epochs)
    assert trend["y"] == pytest.approx(distances["wasserstein"], rel=1e-12)
    # Choosing another distance charts it.
    frame.click('tr[data-distance="ks"]')
    frame.wait_for_function(
        """(ks) => {
          const el = document.querySelector('[data-role="trend"]');
          const y = el?.tbmfChart?.uplot?.data[1];
          return y && Math.abs(y[0] - ks) < 1e-15;
        }""",
        arg=distances["ks"][0],
        timeout=_TIMEOUT_MS,
    )

    # Ridge views: every logged histogram of each run, the compared one lit.
    for side, record in (("a", TRUTH_A), ("b", TRUTH_B)):
        ridge = frame.eval_on_selector(
            f'[data-ridge="{side}"] .tbmf-ridge', "el => el.ridgeData"
        )
        assert ridge["lines"] == len(record["steps"])
        assert ridge["steps"] == record["steps"]
        assert ridge["highlight"] == 2

    # The link reproduces the pair, axis and position.
    url = tb_page.page.url
    for key, value in (
        ("ha", RUN_A),
        ("hta", TAG_A),
        ("hb", RUN_B),
        ("htb", TAG_B),
        ("hx", "epoch"),
        ("hat", _js(third)),
    ):
        assert f"tbmf.{key}={urllib.parse.quote(value, safe='')}" in url

    tb_page.page.set_viewport_size(SCREENSHOT_VIEWPORT)
    frame.click('[data-role="mode"] button[data-mode="all"]')
    tb_page.page.mouse.move(0, 0)
    frame.wait_for_timeout(300)  # a resize frame for every chart
    save_screenshot(tb_page, "histograms.png")

    # A fresh page, dark, opened from that link.
    dark = new_page(viewport=SCREENSHOT_VIEWPORT)
    hash_part = url[url.index("#") :]
    dark_frame = open_tab(dark, server, suffix=f"?darkMode=true{hash_part}")
    dark_frame.wait_for_selector(
        ".tbmf-hist-body:not([hidden])", timeout=_TIMEOUT_MS
    )
    _wait_shown(dark_frame, tag_a=TAG_A, tag_b=TAG_B, at=third)
    assert dark_frame.get_attribute("html", "data-theme") == "dark"
    assert _table(dark_frame) == table_third
    dark_frame.wait_for_timeout(300)
    save_screenshot(dark, "histograms_dark.png")


def test_renderings_totals_and_axis_without_epochs(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    # Weights against biases: the totals differ, so both sides are shares.
    bias = "mlp/fc1/bias/histogram"
    state = urllib.parse.urlencode(
        {
            "tbmf.view": "histograms",
            "tbmf.ha": RUN_A,
            "tbmf.hta": TAG_A,
            "tbmf.hb": RUN_B,
            "tbmf.htb": bias,
            "tbmf.hx": "epoch",
            "tbmf.hm": "overlay",
        },
        quote_via=urllib.parse.quote,
    )
    frame = _open_view(tb_page, server, open_tab, suffix=f"#{PLUGIN}&{state}")
    _wait_shown(frame, tag_a=TAG_A, tag_b=bias, at=_expected_epochs()[-1])
    assert frame.get_attribute("[data-normalized]", "data-normalized") == "true"
    assert "Shares of each total" in frame.text_content('[data-role="caption"]')
    totals = frame.text_content('[data-role="totals"]')
    assert f"A {TRUTH_A['counts_total'][-1]} values" in totals
    assert f"B {_truth(RUN_B, bias)['counts_total'][-1]} values" in totals
    # Only the overlay is drawn, each side summing to 1.
    assert frame.locator("[data-chart]").count() == 1
    overlay = _chart_data(frame, "overlay")
    assert [sum(s["values"]) for s in overlay["series"]] == [
        pytest.approx(1.0),
        pytest.approx(1.0),
    ]

    # A run without epoch information: said so, and another axis offered.
    frame.select_option('select[data-role="run-b"]', "tf2_loop")
    frame.click('button[data-axis="epoch"]')
    notice = frame.wait_for_selector(
        '.tbmf-hist-notice[data-kind="warning"]', timeout=_TIMEOUT_MS
    )
    assert "tf2_loop has no epoch axis" in notice.text_content()
    assert (
        "is-unavailable"
        in frame.get_attribute('button[data-axis="epoch"]', "class").split()
    )
    frame.click('[data-switch-axis="step"]')
    frame.wait_for_function(
        """() => {
          const t = document.querySelector('[data-role="distances"]');
          return t && t.dataset.axis === 'step' && t.dataset.runB === 'tf2_loop'
            && document.querySelector('.tbmf-hist').dataset.status === 'ready';
        }""",
        timeout=_TIMEOUT_MS,
    )
    # tf2_loop logs at 50, 100, ...: PyTorch's 49, 99, ... match the nearest.
    truth_tf2 = _truth("tf2_loop", "mlp/fc1/kernel")
    chip_b = frame.get_attribute('.tbmf-hist-chip[data-side="b"]', "data-step")
    assert int(chip_b) == truth_tf2["steps"][-1]


def test_server_error_text_is_shown(tb_server, tb_page, open_tab) -> None:
    tb_page.allow_errors(r"Failed to load resource: .* status of 400")
    message = "bins must be <b>1..1000</b>"

    def fail(route: Route) -> None:
        route.fulfill(
            status=400,
            content_type="application/json",
            body=json.dumps({"error": message}),
        )

    tb_page.page.route(
        "**/data/plugin/tb_multiframework/histogram_diff?*", fail
    )
    frame = _open_view(tb_page, tb_server(), open_tab)
    shown = frame.wait_for_selector(
        '.tbmf-hist-message[data-kind="error"]', timeout=_TIMEOUT_MS
    )
    assert shown.text_content().strip() == (
        f"Cannot compare the histograms: {message}"
    )
    assert frame.locator(".tbmf-hist-message b").count() == 0  # text only


def test_slider_keeps_its_position_across_axis_buttons(
    tb_server, tb_page, open_tab
) -> None:
    """Clicking the active axis again keeps the position; another axis maps
    it onto the same step of A (it used to jump to the last position)."""
    server = tb_server()
    frame = _open_view(tb_page, server, open_tab)
    frame.select_option('select[data-role="run-a"]', RUN_A)
    frame.select_option('select[data-role="run-b"]', RUN_B)
    frame.click(
        f'[data-role="suggestions"] button[data-tag-a="{TAG_A}"]'
        f'[data-tag-b="{TAG_B}"]',
        timeout=_TIMEOUT_MS,
    )
    frame.click('button[data-axis="epoch"]')
    epochs = _expected_epochs()
    _wait_shown(frame, tag_a=TAG_A, tag_b=TAG_B, at=epochs[-1])
    slider = frame.locator('input[data-role="position"]')
    slider.focus()
    slider.press("Home")
    slider.press("ArrowRight")
    slider.press("ArrowRight")
    _wait_shown(frame, tag_a=TAG_A, tag_b=TAG_B, at=epochs[2])

    frame.click('button[data-axis="epoch"]')  # the active one, again
    frame.wait_for_timeout(300)
    _wait_shown(frame, tag_a=TAG_A, tag_b=TAG_B, at=epochs[2])
    assert slider.input_value() == "2"

    # Another axis: the position of A's same step there (from the API).
    progress = _api(
        server,
        "histogram_distances",
        runA=RUN_A,
        tagA=TAG_A,
        runB=RUN_B,
        tagB=TAG_B,
        x="progress",
        bins=BINS,
    )
    step = TRUTH_A["steps"][2]
    index = int(np.argmin([abs(s - step) for s in progress["stepsA"]]))
    frame.click('button[data-axis="progress"]')
    frame.wait_for_function(
        """at => {
          const t = document.querySelector('[data-role="distances"]');
          const root = document.querySelector('.tbmf-hist');
          return t && root && root.dataset.status === 'ready'
            && t.dataset.axis === 'progress' && Number(t.dataset.at) === at;
        }""",
        arg=progress["positions"][index],
        timeout=_TIMEOUT_MS,
    )
    assert slider.input_value() == str(index)
    assert index < len(progress["positions"]) - 1  # not the last one


def _pointer_at(tb_page, frame: Frame, selector: str, fx: float, fy: float):
    """Moves the real mouse to a fraction (fx, fy) of an element's box;
    returns the point in the iframe's window coordinates."""
    point = frame.eval_on_selector(
        selector,
        """(el, [fx, fy]) => {
          const r = el.getBoundingClientRect();
          return {x: r.left + r.width * fx, y: r.top + r.height * fy};
        }""",
        [fx, fy],
    )
    box = tb_page.page.locator("iframe").bounding_box()
    assert box is not None
    mouse = tb_page.page.mouse
    mouse.move(box["x"] + point["x"] - 5, box["y"] + point["y"] - 5)
    mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    return point


def _gap_to(frame: Frame, tooltip: str, point: dict[str, float]) -> float:
    """Pixels between the point and the nearest edge of the shown tooltip."""
    frame.wait_for_selector(tooltip, state="visible", timeout=_TIMEOUT_MS)
    r = frame.eval_on_selector(
        tooltip,
        "el => { const r = el.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; }",
    )
    dx = max(r[0] - point["x"], 0.0, point["x"] - r[2])
    dy = max(r[1] - point["y"], 0.0, point["y"] - r[3])
    return float(np.hypot(dx, dy))


def test_tooltips_stay_at_the_pointer_on_a_scrolled_page(
    tb_server, tb_page, open_tab
) -> None:
    """The histogram and ridge tooltips are `position: fixed` but were
    placed in the chart's own coordinates: off by the chart's place in the
    window (far off once the page is scrolled). Each now sits beside the
    pointer (the line chart's 14 px gap), scrolled or not."""
    server = tb_server()
    # A short window, so each chart is reached by scrolling.
    tb_page.page.set_viewport_size({"width": 1000, "height": 560})
    hash_part = "&".join(
        f"tbmf.{key}={urllib.parse.quote(value, safe='')}"
        for key, value in (
            ("view", "histograms"),
            ("ha", RUN_A),
            ("hta", TAG_A),
            ("hb", RUN_B),
            ("htb", TAG_B),
        )
    )
    frame = _open_view(
        tb_page, server, open_tab, suffix=f"#{PLUGIN}&{hash_part}"
    )
    hist = ".tbmf-hist-charts__cell .tbmf-histchart .u-over"
    ridge = '[data-ridge="b"] .tbmf-ridge canvas'
    frame.wait_for_selector(hist, timeout=_TIMEOUT_MS)
    frame.wait_for_selector(ridge, timeout=_TIMEOUT_MS)
    for target, tooltip in (
        (hist, ".tbmf-histchart .tbmf-chart__tooltip:not([hidden])"),
        (ridge, '[data-ridge="b"] .tbmf-chart__tooltip:not([hidden])'),
    ):
        # Scroll the chart to the window's middle: the page scrolled.
        scrolled = frame.eval_on_selector(
            target,
            """el => {
              el.scrollIntoView({block: 'center'});
              const s = document.scrollingElement;
              let y = s.scrollTop;
              for (let p = el.parentElement; p; p = p.parentElement) {
                y += p.scrollTop;
              }
              return y;
            }""",
        )
        assert scrolled > 0, "the page did not scroll: make the view taller"
        point = _pointer_at(tb_page, frame, target, 0.4, 0.5)
        assert _gap_to(frame, tooltip, point) <= 20
        tb_page.page.mouse.move(0, 0)
