"""The Compare view, driven like a user in the real plugin iframe.

The user's story: pick a PyTorch, a Keras and a Paddle run, pick
``loss/train`` (batch level), switch to the epoch axis, set PyTorch as the
baseline, read each run's difference from it, find the loss spike although
the series were downsampled, share the URL, export the data.

What the page draws is read from uPlot itself (``element.tbmfChart.uplot``)
and compared with ``GET scalars`` fetched here with urllib; the difference
curves are recomputed here with numpy from the API's series, and the spike
and the values from ``tests/data/demo_truth`` (written when the demo logs
were generated), independently of the plugin.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Frame

from tests import eventfiles
from tests.e2e.chartdata import READ_CHART as _READ_CHART

pytestmark = pytest.mark.e2e

TRUTH = Path(__file__).resolve().parents[1] / "data" / "demo_truth"
RUNS = ["keras_fit/train", "paddle_vdl", "pytorch_sgd"]  # three frameworks
METRIC = "loss/train@batch"
BASELINE = "pytorch_sgd"
DEFAULT_POINTS = 1000  # the view's default buckets a series
SPIKE_STEP = 217  # where pytorch_sgd's Loss/train spikes (demo_truth notes)
TALL = {"width": 1400, "height": 1000}  # room for both charts in screenshots

_PANEL = ".tbmf-cmp-panel"
_MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"
_DIFF = ".tbmf-cmp-panel__diff .tbmf-chart"


# Helpers.


def _get(server, route: str, params: list[tuple[str, Any]]) -> Any:
    query = urllib.parse.urlencode([(k, str(v)) for k, v in params])
    with urllib.request.urlopen(
        f"{server.plugin_url(route)}?{query}", timeout=30
    ) as response:
        body = response.read().decode("utf-8")
    return json.loads(body) if route != "export" else body


def _scalars(server, runs, **args: Any) -> dict[str, Any]:
    params: list[tuple[str, Any]] = [("run", run) for run in runs]
    params += [(k, v) for k, v in args.items() if v is not None]
    return _get(server, "scalars", params)


def _num(value: Any) -> float:
    """A JSON value as a float: the server sends NaN/Inf as strings."""
    return float(value) if value is not None else math.nan


def _panel_args(frame: Frame) -> dict[str, list[str]]:
    query = frame.get_attribute(_PANEL, "data-query") or ""
    return urllib.parse.parse_qs(query.lstrip("?"))


def _wait_for_panel(frame: Frame, **expected: str | list[str] | None) -> None:
    """Waits until the panel drew an answer to a request with these
    arguments (``None``: argument absent; a list: repeated argument)."""
    checks = {
        key: (value if isinstance(value, list) or value is None else [value])
        for key, value in expected.items()
    }
    frame.wait_for_function(
        """checks => {
          const panel = document.querySelector('.tbmf-cmp-panel');
          if (!panel || panel.dataset.state !== 'ready') return false;
          if (panel.classList.contains('is-loading')) return false;
          const params = new URLSearchParams(panel.dataset.query || '');
          return Object.entries(checks).every(([key, want]) => {
            const got = params.getAll(key);
            if (want === null) return got.length === 0;
            return JSON.stringify([...got].sort()) ===
              JSON.stringify([...want].sort());
          });
        }""",
        arg=checks,
    )


def _open_compare(tb_page, server, open_tab, suffix: str = "") -> Frame:
    frame = open_tab(tb_page, server, suffix=suffix)
    frame.click('.tbmf-tab[data-view="compare"]')
    frame.wait_for_selector(f'{_PANEL}[data-state="ready"]')
    return frame


def _set_up_three_frameworks(frame: Frame) -> None:
    """The story's clicks: three runs, loss/train (batch), epoch, baseline."""
    frame.click('[data-action="runs-none"]')
    frame.wait_for_function(
        "document.querySelectorAll('li.tbmf-run-chip').length === 0"
    )
    for run in RUNS:
        frame.click(f'.tbmf-cmp-run input[data-run="{run}"]')
        frame.wait_for_selector(f'li.tbmf-run-chip[data-run="{run}"]')
    frame.click('.tbmf-cmp-card--metrics [data-mode="metrics"]')
    frame.click(f'.tbmf-cmp-level[data-metric-key="{METRIC}"]')
    frame.click('.tbmf-cmp-seg__item[data-axis="epoch"]')
    frame.select_option('[data-control="baseline"]', BASELINE)
    _wait_for_panel(
        frame, run=RUNS, metric=METRIC, x="epoch", baseline=BASELINE
    )


def _page_point(tb_page, frame: Frame, chart: str, x: float) -> tuple:
    """Page coordinates of data ``x`` at mid-height of ``chart``."""
    point = frame.evaluate(
        """([sel, x]) => {
          const u = document.querySelector(sel).tbmfChart.uplot;
          const r = u.over.getBoundingClientRect();
          return [r.left + u.valToPos(x, 'x'), r.top + r.height / 2];
        }""",
        [chart, x],
    )
    box = tb_page.page.locator("iframe").bounding_box()
    assert box is not None
    return box["x"] + point[0], box["y"] + point[1]


def _by_key(slots: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {slot["key"]: slot for slot in slots}


def _assert_series_equal(drawn: dict[str, Any], api_x, api_y) -> None:
    """The drawn points are the API's points, non-finite ones left out."""
    keep = [i for i, v in enumerate(api_y) if math.isfinite(_num(v))]
    assert drawn["line"]["x"] == [api_x[i] for i in keep]
    assert drawn["line"]["y"] == [_num(api_y[i]) for i in keep]


def _linear_diff(xa, ya, xb, yb) -> tuple[np.ndarray, np.ndarray]:
    """A − B on the union of both x inside their overlap (numpy.interp)."""
    xa, ya, xb, yb = map(np.asarray, (xa, ya, xb, yb))
    lo, hi = max(xa[0], xb[0]), min(xa[-1], xb[-1])
    grid = np.union1d(xa, xb)
    grid = grid[(grid >= lo) & (grid <= hi)]
    return grid, np.interp(grid, xa, ya) - np.interp(grid, xb, yb)


# The story.


def test_three_frameworks_on_epoch_with_baseline(
    tb_server, tb_page, new_page, open_tab, plugin_frame, save_screenshot
) -> None:
    server = tb_server()
    frameworks = {
        r["run"]: r["framework"] for r in server.get_json("runs")["runs"]
    }
    assert {frameworks[run] for run in RUNS} == {
        "pytorch",
        "tensorflow",
        "paddle",
    }
    frame = _open_compare(tb_page, server, open_tab)
    _set_up_three_frameworks(frame)

    api = _scalars(
        server,
        RUNS,
        metric=METRIC,
        x="epoch",
        points=DEFAULT_POINTS,
        baseline=BASELINE,
    )
    api_series = {f"{s['run']} · {s['tag']}": s for s in api["series"]}
    assert {s["run"] for s in api["series"]} == set(RUNS)
    assert not any(s.get("excluded") for s in api["series"])

    # The main chart: one series a (run, tag), the API's x and y.
    main = _by_key(frame.evaluate(_READ_CHART, _MAIN))
    assert set(main) == set(api_series)
    for key, series in api_series.items():
        _assert_series_equal(main[key], series["x"], series["y"])
        assert main[key]["run"] == series["run"]
    # Epoch axis: 8 epochs of 50 batches, batch b of epoch k at k + b/50.
    for series in api["series"]:
        assert series["x"][-1] == pytest.approx(8.0)
    # The baseline's own curve is dashed, the others are not.
    baseline_key = next(
        k for k, s in api_series.items() if s["run"] == BASELINE
    )
    assert main[baseline_key]["dash"]
    assert all(not main[k]["dash"] for k in main if k != baseline_key)

    # PyTorch's values are what the generator logged (demo_truth).
    truth = json.loads((TRUTH / "pytorch_sgd.json").read_text())
    logged = truth["dirs"]["pytorch_sgd"]["scalars"]["Loss/train"]
    order = np.argsort(logged["steps"], kind="stable")
    np.testing.assert_allclose(
        main[baseline_key]["line"]["y"],
        np.asarray(logged["values"])[order],
        rtol=1e-6,
    )

    # The difference chart: each other run minus PyTorch, as the API sends
    # it and as numpy computes it from the two series.
    diff = _by_key(frame.evaluate(_READ_CHART, _DIFF))
    assert {d["run"] for d in api["diffs"]} == set(RUNS) - {BASELINE}
    base = api_series[baseline_key]
    for d in api["diffs"]:
        key = f"{d['run']} · {d['tag']}"
        _assert_series_equal(diff[key], d["x"], d["y"])
        series = api_series[key]
        grid, expected = _linear_diff(
            series["x"],
            [_num(v) for v in series["y"]],
            base["x"],
            [_num(v) for v in base["y"]],
        )
        np.testing.assert_allclose(diff[key]["line"]["x"], grid, atol=1e-12)
        np.testing.assert_allclose(
            diff[key]["line"]["y"], expected, rtol=1e-9, atol=1e-12
        )
    reference = [s for s in diff.values() if s["run"] == BASELINE]
    assert len(reference) == 1 and reference[0]["dash"]
    assert set(reference[0]["line"]["y"]) == {0}

    # "N of M points": the API's returned and total, summed.
    returned = sum(s["returned"] for s in api["series"])
    total = sum(s["total"] for s in api["series"])
    badge = frame.locator(".tbmf-cmp-badge")
    assert badge.get_attribute("data-returned") == str(returned)
    assert badge.get_attribute("data-total") == str(total)
    text = badge.text_content() or ""
    assert f"{total:,}" in text
    if returned == total:
        assert text.startswith("All")
    else:
        assert f"{returned:,}" in text

    tb_page.page.set_viewport_size(TALL)
    frame.wait_for_timeout(300)  # the charts follow the new width
    # The tooltip lists each run's value at the cursor: at the spike.
    spike_x = (SPIKE_STEP + 1) / 50  # 0-based step, 50 batches an epoch
    tb_page.page.mouse.move(*_page_point(tb_page, frame, _MAIN, spike_x))
    tip = frame.locator(f"{_MAIN} .tbmf-chart__tooltip")
    tip.wait_for(state="visible")
    rows = tip.locator(".tbmf-chart__tooltip-row .tbmf-chart__label")
    assert set(rows.all_text_contents()) == set(api_series)
    shot = save_screenshot(tb_page, "compare_epoch.png")
    assert shot.stat().st_size > 20_000

    # The URL reproduces the view in a colleague's fresh browser.
    url = tb_page.page.url
    query = frame.get_attribute(_PANEL, "data-query")
    other = new_page(viewport=TALL)
    other.page.goto(url)
    again = plugin_frame(other)
    again.wait_for_selector(f'{_PANEL}[data-state="ready"]')
    _wait_for_panel(
        again, run=RUNS, metric=METRIC, x="epoch", baseline=BASELINE
    )
    assert again.get_attribute(_PANEL, "data-query") == query
    assert set(_by_key(again.evaluate(_READ_CHART, _MAIN))) == set(main)
    assert set(_by_key(again.evaluate(_READ_CHART, _DIFF))) == set(diff)
    assert again.get_attribute('[data-axis="epoch"]', "aria-pressed") == "true"
    assert again.input_value('[data-control="baseline"]') == BASELINE


def test_dark_mode_screenshot(
    tb_server, new_page, plugin_frame, save_screenshot
) -> None:
    server = tb_server()
    state = {
        "tbmf.view": "compare",
        "tbmf.sel": ",".join(sorted(RUNS)),
        "tbmf.cm": METRIC,
        "tbmf.cx": "epoch",
        "tbmf.cb": BASELINE,
        "tbmf.cs": "0.6",
    }
    suffix = "?darkMode=true#tb_multiframework&" + "&".join(
        f"{urllib.parse.quote(k, safe='')}={urllib.parse.quote(v, safe='')}"
        for k, v in state.items()
    )
    page = new_page(viewport=TALL)
    page.page.goto(server.url(suffix))
    frame = plugin_frame(page)
    assert frame.get_attribute("html", "data-theme") == "dark"
    _wait_for_panel(
        frame, run=RUNS, x="epoch", baseline=BASELINE, smoothing="0.6"
    )
    frame.wait_for_selector(_DIFF)
    # With smoothing, each run is a faint raw line under a bold smoothed one.
    main = frame.evaluate(_READ_CHART, _MAIN)
    assert len(main) == 2 * len(RUNS)
    assert sum(1 for s in main if s["key"].endswith("(raw)")) == len(RUNS)
    save_screenshot(page, "compare_dark.png")


def test_spike_survives_downsampling(tb_server, tb_page, open_tab) -> None:
    server = tb_server()
    points = 50
    suffix = "#tb_multiframework&" + "&".join(
        [
            "tbmf.view=compare",
            "tbmf.sel=pytorch_sgd",
            f"tbmf.cm={urllib.parse.quote(METRIC, safe='')}",
            f"tbmf.cp={points}",
        ]
    )
    frame = open_tab(tb_page, server, suffix=suffix)
    _wait_for_panel(
        frame, run=["pytorch_sgd"], metric=METRIC, x="step", points=str(points)
    )
    api = _scalars(
        server, ["pytorch_sgd"], metric=METRIC, x="step", points=points
    )
    (series,) = api["series"]
    assert series["returned"] < series["total"]  # really downsampled

    truth = json.loads((TRUTH / "pytorch_sgd.json").read_text())
    logged = truth["dirs"]["pytorch_sgd"]["scalars"]["Loss/train"]
    spike = max(logged["values"])
    assert logged["steps"][int(np.argmax(logged["values"]))] == SPIKE_STEP
    neighbours = [
        v
        for s, v in zip(logged["steps"], logged["values"])
        if 0 < abs(s - SPIKE_STEP) <= 5
    ]
    assert max(neighbours) < 0.9 < spike  # a real spike

    (drawn,) = frame.evaluate(_READ_CHART, _MAIN)
    near = [
        y
        for x, y in zip(drawn["upper"]["x"], drawn["upper"]["y"])
        if abs(x - SPIKE_STEP) <= 10
    ]
    assert max(near) == pytest.approx(spike, rel=1e-6)
    assert max(drawn["line"]["y"]) == pytest.approx(spike, rel=1e-6)
    _assert_series_equal(drawn, series["x"], series["y"])

    badge = frame.locator(".tbmf-cmp-badge")
    assert badge.get_attribute("data-returned") == str(series["returned"])
    assert badge.get_attribute("data-total") == str(series["total"])
    assert (
        badge.text_content()
        == f"{series['returned']:,} of {series['total']:,} points"
    )


def test_csv_export_has_every_point(tb_server, tb_page, open_tab) -> None:
    server = tb_server()
    frame = _open_compare(tb_page, server, open_tab)
    _set_up_three_frameworks(frame)
    api = _scalars(
        server, RUNS, metric=METRIC, x="epoch", points=DEFAULT_POINTS
    )
    totals = sum(s["total"] for s in api["series"])

    with tb_page.page.expect_download() as info:
        frame.click('.tbmf-cmp-export[data-format="csv"]')
    path = info.value.path()
    assert path is not None
    rows = list(csv.reader(io.StringIO(Path(path).read_text())))
    header, body = rows[0], rows[1:]
    assert header == [
        "x",
        "run",
        "tag",
        "step",
        "wall_time",
        "value",
        "smoothed",
        # A baseline is set: its difference columns (issue 22).
        "baseline_value",
        "baseline_smoothed",
        "diff",
        "diff_smoothed",
    ]
    assert len(body) == totals
    assert {row[1] for row in body} == set(RUNS)
    # Aligned on the epoch axis and sorted by x.
    xs = [float(row[0]) for row in body]
    assert xs == sorted(xs) and xs[-1] == pytest.approx(8.0)

    json_href = frame.get_attribute(
        '.tbmf-cmp-export[data-format="json"]', "href"
    )
    args = urllib.parse.parse_qs(urllib.parse.urlsplit(json_href).query)
    assert sorted(args["run"]) == sorted(RUNS)
    assert args["metric"] == [METRIC] and args["x"] == ["epoch"]
    assert args["format"] == ["json"]


def test_runs_off_the_axis_are_listed_with_the_fix(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    frame = _open_compare(tb_page, server, open_tab)
    frame.click('[data-action="runs-all"]')
    frame.click(f'.tbmf-cmp-level[data-metric-key="{METRIC}"]')
    frame.click('.tbmf-cmp-seg__item[data-axis="epoch"]')
    every_run = [r["run"] for r in server.get_json("runs")["runs"]]
    _wait_for_panel(frame, run=every_run, metric=METRIC, x="epoch")
    api = _scalars(server, every_run, metric=METRIC, x="epoch")

    excluded = {
        s["run"]: s["excluded"] for s in api["series"] if s.get("excluded")
    }
    assert "tf2_loop" in excluded
    for run, reason in excluded.items():
        item = frame.locator(
            f'.tbmf-cmp-note[data-kind="excluded"][data-run="{run}"]'
        )
        assert item.get_attribute("data-reason") == reason
    # One summary line for all of them, the fix once behind it.
    group = frame.locator('.tbmf-cmp-notes__group[data-kind="excluded"]')
    assert group.count() == 1
    n = len(excluded)
    runs_have = f"{n} runs have" if n != 1 else "1 run has"
    assert group.locator(".tbmf-cmp-notes__summary-text").text_content() == (
        f"{runs_have} no epoch information — set stepsPerEpoch"
    )
    hint = group.locator(".tbmf-cmp-note__hint").text_content() or ""
    snippet = json.loads(
        group.locator(".tbmf-cmp-note__snippet").text_content() or "{}"
    )
    assert "stepsPerEpoch" in hint
    assert sorted(snippet["runs"]) == sorted(excluded)
    missing = {m["run"] for m in api["missing"]}
    assert "keras_fit/validation" in missing
    shown = set(
        frame.eval_on_selector_all(
            '.tbmf-cmp-note[data-kind="missing"]',
            "items => items.map(i => i.dataset.run)",
        )
    )
    assert shown == missing
    # Excluded runs are not drawn on another axis in their place.
    drawn_runs = {s["run"] for s in frame.evaluate(_READ_CHART, _MAIN)}
    assert drawn_runs == {
        s["run"] for s in api["series"] if not s.get("excluded")
    }


def test_zoom_loads_the_window_and_double_click_resets(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    frame = _open_compare(tb_page, server, open_tab)
    _set_up_three_frameworks(frame)
    frame.click('[data-control="more"] > summary')
    frame.select_option('[data-control="points"]', "100")
    _wait_for_panel(frame, x="epoch", points="100", xMin=None)
    before = frame.locator(".tbmf-cmp-badge").get_attribute("data-returned")

    def to_page(x: float) -> tuple[float, float]:
        return _page_point(tb_page, frame, _MAIN, x)

    mouse = tb_page.page.mouse
    start, end = to_page(4.0), to_page(5.0)
    mouse.move(*start)
    mouse.down()
    mouse.move(*end, steps=10)
    mouse.up()
    frame.wait_for_function(
        "new URLSearchParams(document.querySelector('.tbmf-cmp-panel')"
        ".dataset.query).has('xMin')"
    )
    args = _panel_args(frame)
    x_min, x_max = float(args["xMin"][0]), float(args["xMax"][0])
    assert 3.9 < x_min < 4.1 and 4.9 < x_max < 5.1
    api = _scalars(
        server,
        RUNS,
        metric=METRIC,
        x="epoch",
        points=100,
        baseline=BASELINE,
        xMin=args["xMin"][0],
        xMax=args["xMax"][0],
    )
    # One epoch of each run at full resolution (plus one point each side).
    for series in api["series"]:
        inside = [x for x in series["x"] if x_min <= x <= x_max]
        assert len(inside) >= 45
    main = _by_key(frame.evaluate(_READ_CHART, _MAIN))
    for series in api["series"]:
        key = f"{series['run']} · {series['tag']}"
        _assert_series_equal(main[key], series["x"], series["y"])
    badge = frame.locator(".tbmf-cmp-badge")
    assert badge.get_attribute("data-returned") == str(
        sum(s["returned"] for s in api["series"])
    )
    # The window is in the URL, and the x scale holds it.
    assert "tbmf.cz=" in tb_page.page.url
    scale = frame.evaluate(
        "(() => { const u = document.querySelector("
        "'.tbmf-cmp-panel__chart .tbmf-chart').tbmfChart.uplot;"
        " return [u.scales.x.min, u.scales.x.max]; })()"
    )
    assert scale == pytest.approx([x_min, x_max])

    mouse.dblclick(*to_page((x_min + x_max) / 2))
    _wait_for_panel(frame, x="epoch", points="100", xMin=None, xMax=None)
    assert "tbmf.cz=" not in tb_page.page.url
    assert badge.get_attribute("data-returned") == before


def test_raw_tag_mode(tb_server, tb_page, open_tab) -> None:
    server = tb_server()
    frame = _open_compare(tb_page, server, open_tab)
    frame.click('[data-action="runs-all"]')
    frame.click('.tbmf-cmp-card--metrics [data-mode="tags"]')
    frame.click('.tbmf-cmp-tag[data-tag="Loss/train"]')
    every_run = [r["run"] for r in server.get_json("runs")["runs"]]
    _wait_for_panel(frame, tag="Loss/train", metric=None, run=every_run)
    having = {
        r["run"]
        for r in server.get_json("runs")["runs"]
        if "Loss/train" in r["scalarTags"]
    }
    drawn = frame.evaluate(_READ_CHART, _MAIN)
    assert {s["run"] for s in drawn} == having
    # One tag for all: the legend names the runs.
    assert {s["label"] for s in drawn} == having


def test_non_finite_values_are_marked_and_new_data_appears(
    tb_server, tb_page, open_tab, tmp_path
) -> None:
    """NaN/Inf get markers; appended points show up without a reload, zoom
    and selection kept."""
    run_dir = tmp_path / "logs" / "nan_run"
    path = str(run_dir / eventfiles.TORCH_NAME)
    values = [1.0, 0.9, float("nan"), 0.7, float("inf"), 0.5, 0.4, 0.3]
    events = [eventfiles.file_version_event(1.0)] + [
        eventfiles.scalar_event("loss", step, 10.0 + step, value)
        for step, value in enumerate(values)
    ]
    eventfiles.write(path, eventfiles.record_bytes(events))
    server = tb_server(
        logdir=tmp_path / "logs", extra_args=("--reload_interval", "1")
    )
    suffix = (
        "#tb_multiframework&tbmf.view=compare&tbmf.sel=nan_run"
        "&tbmf.ct=loss&tbmf.cz=0%2C20"
    )
    frame = open_tab(tb_page, server, suffix=suffix)
    _wait_for_panel(frame, tag="loss", run="nan_run", xMin="0", xMax="20")
    (drawn,) = frame.evaluate(_READ_CHART, _MAIN)
    assert drawn["markers"] == [
        {"x": 2, "kind": "nan"},
        {"x": 4, "kind": "inf"},
    ]
    finite = [(s, v) for s, v in enumerate(values) if math.isfinite(v)]
    assert drawn["line"]["x"] == [s for s, _ in finite]
    assert drawn["line"]["y"] == pytest.approx([v for _, v in finite])

    more = [
        eventfiles.scalar_event("loss", step, 10.0 + step, 0.2)
        for step in range(len(values), len(values) + 5)
    ]
    eventfiles.write(path, eventfiles.record_bytes(more), mode="ab")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        total = frame.locator(".tbmf-cmp-badge").get_attribute("data-total")
        if total == str(len(values) + 5):
            break
        frame.wait_for_timeout(250)
    assert frame.locator(".tbmf-cmp-badge").get_attribute("data-total") == str(
        len(values) + 5
    )
    (drawn,) = frame.evaluate(_READ_CHART, _MAIN)
    assert drawn["line"]["x"][-1] == len(values) + 4
    args = _panel_args(frame)
    assert args["xMin"] == ["0"] and args["run"] == ["nan_run"]


def test_ratio_mode(tb_server, tb_page, open_tab) -> None:
    server = tb_server()
    suffix = "#tb_multiframework&" + "&".join(
        [
            "tbmf.view=compare",
            "tbmf.sel=keras_fit%2Ftrain%2Cpytorch_sgd",
            f"tbmf.cm={urllib.parse.quote(METRIC, safe='')}",
            "tbmf.cx=epoch",
            f"tbmf.cb={BASELINE}",
        ]
    )
    frame = open_tab(tb_page, server, suffix=suffix)
    _wait_for_panel(frame, baseline=BASELINE, diffMode=None)
    frame.click('[data-diff-mode="ratio"]')
    _wait_for_panel(frame, baseline=BASELINE, diffMode="ratio")
    runs = ["keras_fit/train", BASELINE]
    api = _scalars(
        server,
        runs,
        metric=METRIC,
        x="epoch",
        points=DEFAULT_POINTS,
        baseline=BASELINE,
        diffMode="ratio",
    )
    (d,) = api["diffs"]
    series = {s["run"]: s for s in api["series"]}
    a, b = series["keras_fit/train"], series[BASELINE]
    grid = np.union1d(a["x"], b["x"])
    grid = grid[
        (grid >= max(a["x"][0], b["x"][0]))
        & (grid <= min(a["x"][-1], b["x"][-1]))
    ]
    expected = np.interp(grid, a["x"], [_num(v) for v in a["y"]]) / np.interp(
        grid, b["x"], [_num(v) for v in b["y"]]
    )
    diff = _by_key(frame.evaluate(_READ_CHART, _DIFF))
    drawn = diff[f"{d['run']} · {d['tag']}"]
    _assert_series_equal(drawn, d["x"], d["y"])
    np.testing.assert_allclose(drawn["line"]["y"], expected, rtol=1e-9)
    (reference,) = [s for s in diff.values() if s["run"] == BASELINE]
    assert set(reference["line"]["y"]) == {1}
    assert "÷" in (frame.text_content(".tbmf-cmp-panel__diff-title") or "")


def test_server_errors_are_shown(tb_server, tb_page, open_tab) -> None:
    server = tb_server()
    bogus = "no_such/metric@batch"
    suffix = (
        "#tb_multiframework&tbmf.view=compare&tbmf.sel=pytorch_sgd"
        f"&tbmf.cm={urllib.parse.quote(bogus, safe='')}"
    )
    # Chromium logs every 4xx answer as a console error: this one is asked
    # for on purpose.
    tb_page.allow_errors(r"404 \(NOT FOUND\).*/scalars\?.*no_such%2Fmetric")
    frame = open_tab(tb_page, server, suffix=suffix)
    frame.wait_for_selector(f'{_PANEL}[data-state="error"]')
    with pytest.raises(urllib.error.HTTPError) as raised:
        _scalars(server, ["pytorch_sgd"], metric=bogus, points=DEFAULT_POINTS)
    assert raised.value.code == 404
    message = json.loads(raised.value.read().decode("utf-8"))["error"]
    assert frame.text_content(".tbmf-cmp-panel__error-text") == message
    # Picking a real metric recovers.
    frame.click(f'.tbmf-cmp-level[data-metric-key="{METRIC}"]')
    _wait_for_panel(frame, metric=METRIC)
    assert frame.is_hidden(".tbmf-cmp-panel__error")
