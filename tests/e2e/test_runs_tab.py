"""The MULTIFRAMEWORK tab in a real TensorBoard and Chromium: the runs table.

Expected frameworks come from what each demo generator ran (the constant
below), never from the API under test.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Frame, Request

pytestmark = pytest.mark.e2e

# run -> (framework, writer, group), from scripts/demo/gen_*.py.
EXPECTED_RUNS = {
    "pytorch_sgd": ("pytorch", "torch.utils.tensorboard", "pytorch_sgd"),
    "keras_fit/train": ("tensorflow", "keras", "keras_fit"),
    "keras_fit/validation": ("tensorflow", "keras", "keras_fit"),
    "tf2_loop": ("tensorflow", "tf.summary", "tf2_loop"),
    "paddle_vdl": ("paddle", "visualdl", "paddle_vdl"),
    "paddle_hapi": ("paddle", "visualdl", "paddle_hapi"),
    # tensorboardX files do not say which framework wrote them; the demo's
    # .tb_multiframework/config.json says Paddle.
    "paddle_tbx": ("paddle", "tensorboardX", "paddle_tbx"),
}
BADGE_TEXT = {
    "pytorch": "PyTorch",
    "tensorflow": "TensorFlow",
    "paddle": "Paddle",
    "unknown": "Unknown",
}
# The brand colours the issue asks for, as CSS computes them.
BADGE_RGB = {
    "pytorch": "rgb(238, 76, 44)",  # #EE4C2C
    "tensorflow": "rgb(255, 111, 0)",  # #FF6F00
    "paddle": "rgb(41, 50, 225)",  # #2932E1
}
_ROW = "tr.tbmf-run-row"
PLUGIN_PATH = "/data/plugin/tb_multiframework/"


def _rows(frame: Frame) -> dict[str, dict[str, str]]:
    """Every run row of the table: framework badge, writer, group, points."""
    frame.wait_for_selector(_ROW)
    # Queried and read in one synchronous call: eval_on_selector_all finds
    # the rows and evaluates in two steps, and a re-render in between left
    # detached rows, whose computed style is empty.
    rows = frame.evaluate(
        """sel => [...document.querySelectorAll(sel)].map(row => {
          const cell = col => row.querySelector(`td[data-col="${col}"]`);
          const badge = cell("framework").querySelector(".tbmf-badge");
          return {
            run: row.dataset.run,
            framework: badge.dataset.framework,
            badgeText: badge.textContent,
            badgeColor: getComputedStyle(badge).backgroundColor,
            // The writer's name; a trainer (Lightning, ...) sits below it.
            writer: cell("writer").firstElementChild.textContent,
            trainer: cell("writer").querySelector(".tbmf-trainer")
              ?.textContent ?? "",
            group: cell("group").textContent,
            points: cell("points").textContent,
            steps: cell("steps").textContent,
          };
        })""",
        _ROW,
    )
    return {row["run"]: row for row in rows}


def _as_int(text: str) -> int:
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", text), f"not a count: {text!r}"
    return int(text.replace(",", ""))


@pytest.mark.parametrize("load_fast", ["false", "true"])
def test_runs_table_lists_every_demo_run(
    tb_server, tb_page, open_tab, save_screenshot, load_fast: str
) -> None:
    server = tb_server(load_fast=load_fast)
    frame = open_tab(tb_page, server)
    rows = _rows(frame)

    for run, (framework, writer, group) in EXPECTED_RUNS.items():
        assert run in rows, f"{run} missing from the table: {sorted(rows)}"
        row = rows[run]
        assert row["framework"] == framework, run
        assert row["badgeText"] == BADGE_TEXT[framework], run
        assert row["badgeColor"] == BADGE_RGB[framework], run
        assert row["writer"] == writer, run
        # A run that is its own group leaves the cell empty.
        assert row["group"] == (group if group != run else ""), run

    # The points column shows the API's count in full (no sampling, 1,234
    # formatting), and the table has exactly the API's runs.
    api = {entry["run"]: entry for entry in server.get_json("runs")["runs"]}
    assert set(rows) == set(api)
    for run, row in rows.items():
        assert _as_int(row["points"]) == api[run]["numPoints"], run
        # A directory holding only hyper-parameters (Keras' hparams
        # KerasCallback writes them beside train/ and validation/) is a run
        # with no points, as in TensorBoard.
        if "hparams" not in api[run]["otherTags"]:
            assert row["points"] != "0", f"{run} shows no points"

    save_screenshot(tb_page, f"runs_{load_fast}.png")
    tb_page.assert_no_errors()


def test_keras_subruns_grouped_under_their_group(
    tb_server, tb_page, open_tab
) -> None:
    frame = open_tab(tb_page, tb_server())
    frame.wait_for_selector(_ROW)
    order = frame.eval_on_selector_all(
        "tbody tr",
        """rows => rows.map(r => r.classList.contains("tbmf-group-row")
              ? "group:" + r.dataset.group : r.dataset.run)""",
    )
    start = order.index("group:keras_fit")
    assert order[start + 1 : start + 3] == [
        "keras_fit/train",
        "keras_fit/validation",
    ]
    # Folding the group hides its members.
    frame.click('tr[data-group="keras_fit"] button.tbmf-expander')
    assert frame.locator('tr[data-run="keras_fit/train"]').count() == 0
    frame.click('tr[data-group="keras_fit"] button.tbmf-expander')
    assert frame.locator('tr[data-run="keras_fit/train"]').count() == 1


def test_row_detail_explains_framework_and_lists_tags(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    frame = open_tab(tb_page, server)
    frame.click('tr[data-run="keras_fit/train"] td[data-col="points"]')
    detail = frame.locator('tr.tbmf-detail-row[data-run="keras_fit/train"]')
    detail.wait_for()
    api = next(
        r
        for r in server.get_json("runs")["runs"]
        if r["run"] == "keras_fit/train"
    )
    shown_tags = detail.locator(".tbmf-tag").all_text_contents()
    for tag in api["scalarTags"] + api["histogramTags"]:
        assert tag in shown_tags
    text = detail.inner_text()
    for evidence in api["evidence"]:
        assert evidence in text
    for name in api["files"]:
        assert name in text
    # Keras' model-config tag is not charted: listed under "other tags".
    assert "keras" in shown_tags


def test_sort_filter_and_selection(tb_server, tb_page, open_tab) -> None:
    server = tb_server()
    frame = open_tab(tb_page, server)
    frame.wait_for_selector(_ROW)

    # Sorting by points, descending first for a numeric column.
    frame.click('th[data-col="points"] button')
    api = server.get_json("runs")["runs"]
    by_points = sorted(api, key=lambda r: (-r["numPoints"], r["run"]))
    shown = frame.eval_on_selector_all(
        _ROW, "rows => rows.map(r => r.dataset.run)"
    )
    # Grouped sub-runs stay under their group: compare ungrouped runs only.
    singles = [r["run"] for r in by_points if r["group"] == r["run"]]
    assert [run for run in shown if run in singles] == singles
    assert (
        frame.get_attribute('th[data-col="points"]', "aria-sort")
        == "descending"
    )

    # The filter box is a case-insensitive regex over names and frameworks.
    frame.fill(".tbmf-search__input", "^PADDLE")
    frame.wait_for_function(
        "document.querySelectorAll('tr.tbmf-run-row').length === 3"
    )
    shown = set(
        frame.eval_on_selector_all(_ROW, "rows => rows.map(r => r.dataset.run)")
    )
    assert shown == {"paddle_vdl", "paddle_hapi", "paddle_tbx"}
    frame.fill(".tbmf-search__input", "")

    # Framework chips filter too.
    frame.click('.tbmf-chip[data-framework="tensorflow"]')
    tensorflow = sum(r["framework"] == "tensorflow" for r in api)
    frame.wait_for_function(
        f"document.querySelectorAll('tr.tbmf-run-row').length === {tensorflow}"
    )
    frame.click('.tbmf-chip[data-framework="tensorflow"]')

    # Unchecking one run leaves all others selected.
    frame.wait_for_function(
        f"document.querySelectorAll('{_ROW}').length === {len(api)}"
    )
    frame.uncheck('tr[data-run="tf2_loop"] input[type=checkbox]')
    summary = frame.text_content(".tbmf-selection__text")
    assert summary == f"{len(api) - 1} of {len(api)} runs selected"
    assert not frame.is_checked(".tbmf-col-check input[type=checkbox] >> nth=0")
    frame.click('[data-action="select-none"]')
    assert frame.text_content(".tbmf-selection__text") == (
        f"0 of {len(api)} runs selected"
    )
    frame.click('[data-action="select-all"]')
    assert frame.is_checked('tr[data-run="tf2_loop"] input[type=checkbox]')


def test_works_under_path_prefix(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    server = tb_server(path_prefix="/tb")
    assert server.base_url.endswith("/tb/")
    origin = server.base_url[: -len("tb/")]
    # TensorBoard 2.21's own page asks for its Roboto fonts at the origin's
    # root, ignoring --path_prefix (404s in the top frame, not the plugin's).
    tb_page.allow_errors(
        rf"^console\.error Failed to load resource: .* 404 .*"
        rf"\({re.escape(origin)}font-roboto/[^/]+\.woff2:0\)$"
    )
    plugin_requests: list[str] = []

    def on_request(request: Request) -> None:
        if (
            "plugin_entry.html" in request.frame.url
            or PLUGIN_PATH in request.url
        ):
            plugin_requests.append(request.url)

    tb_page.page.on("request", on_request)
    frame = open_tab(tb_page, server)
    rows = _rows(frame)
    for run, (framework, _, _) in EXPECTED_RUNS.items():
        assert rows[run]["framework"] == framework
    assert frame.url.startswith(server.base_url)
    save_screenshot(tb_page, "runs_prefix.png")
    outside = [u for u in plugin_requests if not u.startswith(server.base_url)]
    assert plugin_requests and not outside, f"outside the prefix: {outside}"
    assert any(u.endswith(PLUGIN_PATH + "runs") for u in plugin_requests)


def _background_luminance(frame: Frame) -> float:
    """Relative luminance (0 black .. 1 white) of the iframe's background."""
    rgb = frame.evaluate("getComputedStyle(document.body).backgroundColor")
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _wait_luminance(frame: Frame, *, dark: bool) -> None:
    condition = "< 0.3" if dark else "> 0.8"
    frame.wait_for_function(f"""() => {{
          const [r, g, b] = getComputedStyle(document.body).backgroundColor
            .match(/\\d+/g).slice(0, 3).map(v => v / 255);
          return 0.2126 * r + 0.7152 * g + 0.0722 * b {condition};
        }}""")


def test_follows_tensorboard_dark_mode_toggle(
    tb_server, tb_page, open_tab, save_screenshot
) -> None:
    frame = open_tab(tb_page, tb_server())
    frame.wait_for_selector(_ROW)
    assert _background_luminance(frame) > 0.8

    page = tb_page.page
    page.click("app-header-dark-mode-toggle button")
    page.get_by_role("menuitem", name="Dark").click()
    page.wait_for_selector(".mat-mdc-menu-panel", state="detached")
    assert "dark-mode" in (page.get_attribute("body", "class") or "")
    _wait_luminance(frame, dark=True)
    assert _background_luminance(frame) < 0.3
    save_screenshot(tb_page, "runs_dark.png")

    page.click("app-header-dark-mode-toggle button")
    page.get_by_role("menuitem", name="Light").click()
    _wait_luminance(frame, dark=False)
    assert _background_luminance(frame) > 0.8


def test_dark_mode_from_url_and_from_browser_preference(
    tb_server, tb_page, new_page, open_tab
) -> None:
    server = tb_server()
    # TensorBoard's ?darkMode=true.
    frame = open_tab(tb_page, server, suffix="?darkMode=true")
    frame.wait_for_selector(_ROW)
    assert frame.get_attribute("html", "data-theme") == "dark"
    assert _background_luminance(frame) < 0.3
    # TensorBoard left on "browser default", with a dark OS preference.
    dark_os = new_page(color_scheme="dark")
    frame = open_tab(dark_os, server)
    frame.wait_for_selector(_ROW)
    assert frame.get_attribute("html", "data-theme") == "dark"
    assert _background_luminance(frame) < 0.3
