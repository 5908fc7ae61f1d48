"""The reusable chart component (frontend/components/chart.js), driven inside
the real plugin iframe (real CSP, real uPlot, real Chromium).

Expected colours, values and nearest points are computed here in Python from
the input data, independently of the component.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Frame

pytestmark = pytest.mark.e2e

RUN_A = "run_a"
RUN_B = '<img src=x onerror="window.__xss = 1">'  # must stay text
XS_A = list(range(21))
YS_A = [0.5 * x for x in XS_A]
GAP_AT = 5  # YS_A[5] is logged as null
XS_B = list(range(0, 21, 3))
YS_B = [10 - 0.3 * x for x in XS_B]
BAND_LOW = -1.0  # band of A: [y - 1, y + 2]
BAND_HIGH = 2.0
HOST_WIDTH = 700  # CSS pixels

_SETUP = """
async ({xsA, ysA, gapAt, xsB, ysB, low, high, runA, runB, width}) => {
  const base = document.baseURI;
  const {createChart} = await import(new URL("static/components/chart.js", base));
  const {RUN_PALETTE} = await import(new URL("static/colors.js", base));
  const host = document.createElement("div");
  host.id = "chart-host";
  host.style.cssText = `position: fixed; left: 16px; top: 56px; z-index: 50;
    width: ${width}px; padding: 8px; background: var(--bg);`;
  document.body.appendChild(host);
  const yA = ysA.map((y, i) => (i === gapAt ? null : y));
  window.__charts = {
    one: createChart(host, {
      title: "loss", xLabel: "step", syncKey: "e2e",
      series: [
        {run: runA, label: runA, x: xsA, y: yA,
         yMin: yA.map((y) => (y === null ? null : y + low)),
         yMax: yA.map((y) => (y === null ? null : y + high))},
        {run: runB, label: runB, x: xsB, y: ysB},
      ],
    }),
    two: createChart(host, {
      title: "other", xLabel: "step", syncKey: "e2e", height: 160,
      series: [{run: runA, label: runA, x: xsA, y: xsA.map((x) => x * x)}],
    }),
  };
  return RUN_PALETTE;
}
"""


def fnv1a(text: str) -> int:
    """32-bit FNV-1a over UTF-16 code units (what JS strings index)."""
    value = 0x811C9DC5
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        value ^= data[i] | (data[i + 1] << 8)
        value = (value * 0x01000193) & 0xFFFFFFFF
    return value


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = int(hex_colour.lstrip("#"), 16)
    return (value >> 16) & 255, (value >> 8) & 255, value & 255


def _css_rgb(text: str) -> tuple[int, int, int]:
    r, g, b = (int(v) for v in re.findall(r"\d+", text)[:3])
    return r, g, b


def _hover(tb_page, frame: Frame, chart: str, x: float) -> None:
    """Moves the real mouse over ``chart`` at data x, mid-height."""
    point = frame.evaluate(
        """([name, x]) => {
          const u = window.__charts[name].uplot;
          const r = u.over.getBoundingClientRect();
          return {x: r.left + u.valToPos(x, "x"), y: r.top + r.height / 2};
        }""",
        [chart, x],
    )
    box = tb_page.page.locator("iframe").bounding_box()
    tb_page.page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])


def _tooltip(frame: Frame, chart: str) -> dict[str, object]:
    return frame.evaluate(
        """name => {
          const tip = window.__charts[name].element
            .querySelector(".tbmf-chart__tooltip");
          return {
            hidden: tip.hidden,
            head: tip.querySelector(".tbmf-chart__tooltip-head")?.textContent,
            rows: [...tip.querySelectorAll(".tbmf-chart__tooltip-row")].map(
              (row) => ({
                label: row.querySelector(".tbmf-chart__label").textContent,
                value: row.querySelector(".tbmf-chart__value").textContent,
                at: row.querySelector(".tbmf-chart__at")?.textContent ?? null,
              })),
          };
        }""",
        chart,
    )


@pytest.fixture
def chart_frame(tb_server, tb_page, open_tab) -> tuple[Frame, list[str]]:
    frame = open_tab(tb_page, tb_server())
    frame.wait_for_selector("tr.tbmf-run-row")
    palette = frame.evaluate(
        _SETUP,
        {
            "xsA": XS_A,
            "ysA": YS_A,
            "gapAt": GAP_AT,
            "xsB": XS_B,
            "ysB": YS_B,
            "low": BAND_LOW,
            "high": BAND_HIGH,
            "runA": RUN_A,
            "runB": RUN_B,
            "width": HOST_WIDTH,
        },
    )
    return frame, palette


def test_colours_follow_the_run_name(chart_frame) -> None:
    frame, palette = chart_frame
    swatches = frame.evaluate(
        """() => Object.fromEntries(Object.entries(window.__charts).map(
          ([name, chart]) => [name, [...chart.element.querySelectorAll(
            ".tbmf-chart__legend-item")].map((item) => [
              item.querySelector(".tbmf-chart__label").textContent,
              getComputedStyle(item.querySelector(".tbmf-chart__swatch"))
                .backgroundColor])]))"""
    )
    expected_a = _rgb(palette[fnv1a(RUN_A) % len(palette)])
    expected_b = _rgb(palette[fnv1a(RUN_B) % len(palette)])
    one = dict(swatches["one"])
    two = dict(swatches["two"])
    assert _css_rgb(one[RUN_A]) == expected_a
    assert _css_rgb(one[RUN_B]) == expected_b
    # The same run has the same colour in another chart.
    assert _css_rgb(two[RUN_A]) == expected_a


def test_names_are_text_not_html(chart_frame) -> None:
    frame, _ = chart_frame
    assert (
        frame.evaluate("document.querySelectorAll('#chart-host img').length")
        == 0
    )
    labels = frame.eval_on_selector_all(
        "#chart-host .tbmf-chart__legend-item .tbmf-chart__label",
        "els => els.map(e => e.textContent)",
    )
    assert RUN_B in labels
    assert frame.evaluate("window.__xss === undefined")


def test_tooltip_lists_each_series_at_the_cursor(tb_page, chart_frame) -> None:
    frame, _ = chart_frame
    _hover(tb_page, frame, "one", 4)
    frame.wait_for_function(
        "!window.__charts.one.element.querySelector('.tbmf-chart__tooltip').hidden"
    )
    tip = _tooltip(frame, "one")
    assert tip["head"] == "step 4"
    rows = {row["label"]: row for row in tip["rows"]}
    assert rows[RUN_A]["value"] == "2" and rows[RUN_A]["at"] is None
    # B logged no step 4: the tooltip shows its nearest logged point.
    nearest = min(XS_B, key=lambda x: abs(x - 4))
    assert rows[RUN_B]["value"] == f"{YS_B[XS_B.index(nearest)]:g}"
    assert rows[RUN_B]["at"] == f"@ {nearest}"

    # The logged null is a gap, not a value.
    _hover(tb_page, frame, "one", GAP_AT)
    frame.wait_for_function(
        f"window.__charts.one.element.querySelector('.tbmf-chart__tooltip-head')"
        f".textContent === 'step {GAP_AT}'"
    )
    rows = {row["label"]: row for row in _tooltip(frame, "one")["rows"]}
    assert rows[RUN_A]["value"] == "—"
    assert (
        frame.evaluate(f"window.__charts.one.uplot.data[1][{GAP_AT}]") is None
    )


def test_cursor_sync_links_charts(tb_page, chart_frame) -> None:
    """The synced chart follows the cursor, but only the chart under the
    pointer shows a tooltip (two would cover both charts)."""
    frame, _ = chart_frame
    _hover(tb_page, frame, "one", 12)
    frame.wait_for_function("window.__charts.two.uplot.cursor.idx === 12")
    assert _tooltip(frame, "two")["hidden"]
    one = _tooltip(frame, "one")
    assert not one["hidden"] and one["head"] == "step 12"
    _hover(tb_page, frame, "two", 12)
    frame.wait_for_function(
        "!window.__charts.two.element.querySelector('.tbmf-chart__tooltip').hidden"
    )
    tip = _tooltip(frame, "two")
    assert tip["head"] == "step 12"
    assert tip["rows"][0]["value"] == "144"
    assert _tooltip(frame, "one")["hidden"]


def test_min_max_band_is_drawn(chart_frame) -> None:
    frame, palette = chart_frame
    x = 16.5  # between logged steps and off the integer grid lines
    line = 0.5 * x
    inside = line + 0.4 * BAND_HIGH  # above the line, below the upper edge
    outside = line + BAND_HIGH + 1.5
    pixels = frame.evaluate(
        """([x, ys]) => {
          const u = window.__charts.one.uplot;
          const cx = Math.round(u.valToPos(x, "x", true));
          return ys.map((y) => Array.from(u.ctx.getImageData(
            cx, Math.round(u.valToPos(y, "y", true)), 1, 1).data));
        }""",
        [x, [inside, outside]],
    )
    colour = _rgb(palette[fnv1a(RUN_A) % len(palette)])
    r, g, b, alpha = pixels[0]
    # The band is the run's colour at low opacity (0.18 of 255 ≈ 46).
    assert 25 <= alpha <= 90, pixels
    assert max(abs(r - colour[0]), abs(g - colour[1]), abs(b - colour[2])) <= 40
    assert pixels[1][3] <= 25, pixels  # nothing (or a faint grid line)


def test_log_y_toggle(chart_frame) -> None:
    frame, _ = chart_frame
    button = "#chart-host .tbmf-chart:first-child .tbmf-chart__tool"
    frame.click(button)
    assert frame.get_attribute(button, "aria-pressed") == "true"
    assert frame.evaluate("window.__charts.one.uplot.scales.y.distr") == 3
    # log(0) does not exist: A's first value (0) is hidden on log y.
    assert YS_A[0] == 0
    assert frame.evaluate("window.__charts.one.uplot.data[1][0]") is None
    frame.click(button)
    assert frame.evaluate("window.__charts.one.uplot.scales.y.distr") == 1
    assert frame.evaluate("window.__charts.one.uplot.data[1][0]") == 0


def test_legend_toggles_a_series_and_its_band(chart_frame) -> None:
    frame, _ = chart_frame
    item = (
        "#chart-host .tbmf-chart:first-child "
        f'.tbmf-chart__legend-item[data-key="{RUN_A}"]'
    )
    frame.click(item)
    shown = frame.evaluate(
        "window.__charts.one.uplot.series.slice(1).map((s) => s.show)"
    )
    # A's line and its two band edges hide; B stays.
    assert shown == [False, False, False, True]
    assert frame.get_attribute(item, "aria-pressed") == "false"
    frame.click(item)
    assert frame.evaluate(
        "window.__charts.one.uplot.series.slice(1).every((s) => s.show)"
    )


def test_resizes_with_container_and_destroys_cleanly(chart_frame) -> None:
    frame, _ = chart_frame
    width = frame.evaluate("window.__charts.one.uplot.width")
    frame.evaluate(
        "document.getElementById('chart-host').style.width = '420px'"
    )
    frame.wait_for_function(f"window.__charts.one.uplot.width < {width - 200}")
    narrow = frame.evaluate("""() => [window.__charts.one.uplot.width,
          window.__charts.one.element.querySelector('.tbmf-chart__plot')
            .clientWidth]""")
    assert narrow[0] == narrow[1]

    frame.evaluate(
        "window.__charts.one.destroy(); window.__charts.two.destroy()"
    )
    assert (
        frame.evaluate("document.getElementById('chart-host').children.length")
        == 0
    )
    assert frame.evaluate("window.__charts.one.uplot") is None
    # Resizing after destroy must not touch the dead chart (no errors).
    frame.evaluate(
        "document.getElementById('chart-host').style.width = '600px'"
    )
    frame.wait_for_timeout(100)


def test_chart_screenshot(tb_page, chart_frame, save_screenshot) -> None:
    frame, _ = chart_frame
    _hover(tb_page, frame, "one", 9)
    frame.wait_for_function(
        "!window.__charts.one.element.querySelector('.tbmf-chart__tooltip').hidden"
    )
    save_screenshot(tb_page, "chart.png")
