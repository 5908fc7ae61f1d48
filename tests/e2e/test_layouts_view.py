"""The Layouts view, driven like a user in the real plugin iframe.

The issue's story: create a layout in the UI whose regex matches a
PyTorch tag and a Keras tag, watch the live preview list the (run, tag)
pairs and explain an invalid regex, save, reload the page and see the
dashboard again with both curves. Around it: the layout the demo runs
logged (read-only, with its margin chart drawn as a band), duplicating it,
deleting, renaming, export/import and the unsaved-changes guard.

Every test gets its own copy of ``demo_logs/`` and its own TensorBoard, so
saved layouts (``<logdir>/.tb_multiframework/layouts.json``) never leak
between tests or into the checkout. Expected matches are computed here with
Python's ``re.match`` over the tags of ``GET runs``; drawn values are
checked against ``tests/data/demo_truth`` (written when the demo logs were
generated), TensorBoard's EMA recomputed here, and ``GET scalars``.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from playwright.sync_api import Frame

from tests.e2e.chartdata import READ_CHART as _READ_CHART

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
DEMO_LOGS = REPO / "demo_logs"
TRUTH = REPO / "tests" / "data" / "demo_truth"
CHECKOUT_LAYOUTS = DEMO_LOGS / ".tb_multiframework" / "layouts.json"
TALL = {"width": 1400, "height": 1100}  # room for a dashboard row or two
EDITOR_SHOT = {"width": 1400, "height": 1500}  # the editor with a chart

NAME = "Validation loss: PyTorch vs Keras"
REGEX = "(Loss/val|epoch_loss)$"  # re.match: anchored at the start
BAD_REGEX = "(Loss/val|epoch_loss$"
IMPORTED = "Logged in runs"
SMOOTHING = 0.6  # a new chart's default, as TensorBoard's

# From the demo generator (the brief's demo data facts): category title ->
# (runs that logged it, number of charts).
IMPORTED_CATEGORIES = {
    "Loss": (["pytorch_sgd"], 2),
    "Accuracy": (["pytorch_sgd"], 1),
    "losses": (["tf2_loop"], 2),
    "accuracy": (["tf2_loop"], 1),
}
MARGIN_TITLE = "train loss, mean +- std of last 10 batches"


# Fixtures and helpers.


@pytest.fixture
def server(tb_server, tmp_path: Path) -> Iterator[Any]:
    """TensorBoard over this test's own copy of the demo logs."""
    before = _file_state(CHECKOUT_LAYOUTS)
    logdir = tmp_path / "demo_logs"
    shutil.copytree(DEMO_LOGS, logdir)
    saved = logdir / ".tb_multiframework" / "layouts.json"
    saved.unlink(missing_ok=True)  # start without user layouts
    started = tb_server(logdir=logdir)
    yield started
    started.stop()
    assert (
        _file_state(CHECKOUT_LAYOUTS) == before
    ), "the test wrote layouts into the checkout's demo_logs"


def _file_state(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


def _saved_layouts(server) -> dict[str, Any]:
    """The layouts file the plugin wrote, read from disk."""
    path = server.logdir / ".tb_multiframework" / "layouts.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text("utf-8"))
    assert data["version"] == 1
    return data["layouts"]


def _scalars(server, runs: list[str], **args: Any) -> dict[str, Any]:
    params = [("run", run) for run in runs]
    params += [(k, str(v)) for k, v in args.items() if v is not None]
    url = f"{server.plugin_url('scalars')}?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read().decode("utf-8"))


def _truth(run: str, tag: str) -> tuple[np.ndarray, np.ndarray]:
    """Steps and values the generator logged (tests/data/demo_truth)."""
    top = run.split("/")[0]
    data = json.loads((TRUTH / f"{top}.json").read_text("utf-8"))
    series = data["dirs"][run]["scalars"][tag]
    return np.asarray(series["steps"], float), np.asarray(series["values"])


def _tensorboard_ema(values: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard's debiased EMA, written out as its frontend does."""
    out = []
    last = 0.0
    n = 0
    for value in values:
        if not math.isfinite(value):
            out.append(value)
            continue
        last = last * weight + (1 - weight) * value
        n += 1
        out.append(last / (1 - weight**n))
    return np.asarray(out)


def _expected_pairs(server, regex: str) -> set[tuple[str, str]]:
    """(run, tag) pairs whose tag re.match-es ``regex`` (TensorBoard's rule)."""
    pattern = re.compile(regex)
    return {
        (run["run"], tag)
        for run in server.get_json("runs")["runs"]
        for tag in run["scalarTags"]
        if pattern.match(tag)
    }


def _open_layouts(tb_page, server, open_tab) -> Frame:
    frame = open_tab(tb_page, server)
    frame.click('.tbmf-tab[data-view="layouts"]')
    frame.wait_for_selector(".tbmf-lay-list .tbmf-lay-item")
    return frame


def _chart_selector(category: int, chart: int) -> str:
    return f'.tbmf-lay-chart[data-category="{category}"][data-chart="{chart}"]'


def _wait_for_chart(frame: Frame, category: int, chart: int) -> str:
    """Waits until a dashboard chart drew; returns its uPlot selector."""
    host = _chart_selector(category, chart)
    frame.wait_for_selector(
        f'{host} .tbmf-cmp-panel[data-state="ready"]:not(.is-loading)'
    )
    return f"{host} .tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"


def _pairs_shown(frame: Frame, row: str) -> set[tuple[str, str]]:
    chips = frame.eval_on_selector_all(
        f"{row} .tbmf-lay-pair",
        "els => els.map(e => [e.dataset.run, e.dataset.tag])",
    )
    return {(run, tag) for run, tag in chips}


def _wait_for_count(frame: Frame, row: str, count: int) -> None:
    frame.wait_for_function(
        """([row, count]) => {
          const el = document.querySelector(row + ' .tbmf-lay-count');
          return el && el.dataset.count === String(count);
        }""",
        arg=[row, count],
    )


def _assert_close(got, want, *, rtol: float = 1e-6) -> None:
    np.testing.assert_allclose(
        np.asarray(got, float), np.asarray(want, float), rtol=rtol, atol=1e-9
    )


def _answer_dialog(frame: Frame, choice: str) -> None:
    frame.wait_for_selector("dialog.tbmf-lay-dialog[open]")
    frame.click(f'dialog.tbmf-lay-dialog[open] [data-choice="{choice}"]')
    frame.wait_for_selector("dialog.tbmf-lay-dialog", state="detached")


# Tests.


def test_imported_layout_dashboard(
    server, tb_page, new_page, open_tab, plugin_frame, save_screenshot
) -> None:
    tb_page.page.set_viewport_size(TALL)
    frame = _open_layouts(tb_page, server, open_tab)

    # The list: the logged layout first, read-only, with its source runs.
    first = frame.locator(".tbmf-lay-item").first
    assert first.get_attribute("data-kind") == "imported"
    assert first.get_attribute("data-layout") == IMPORTED
    assert first.locator(".tbmf-lay-badge").inner_text() == "read-only"
    assert "pytorch_sgd" in first.inner_text()
    assert "tf2_loop" in first.inner_text()
    # It opens by default, read-only: no Edit, but Duplicate to edit.
    frame.wait_for_selector('.tbmf-lay-dash[data-imported="true"]')
    assert frame.locator('.tbmf-lay-dash [data-action="edit"]').count() == 0
    assert frame.is_visible('.tbmf-lay-dash [data-action="duplicate"]')

    # Categories merged across runs, labelled with the runs they came from.
    sections = frame.eval_on_selector_all(
        ".tbmf-lay-cat",
        """els => els.map(e => ({
          title: e.dataset.title,
          sources: [...e.querySelectorAll('.tbmf-lay-source')]
            .map(s => s.dataset.run),
          charts: e.querySelectorAll('.tbmf-lay-chart').length,
          open: e.classList.contains('is-open'),
        }))""",
    )
    assert {
        s["title"]: (s["sources"], s["charts"]) for s in sections
    } == IMPORTED_CATEGORIES
    assert all(s["open"] for s in sections)  # none is logged as closed

    # The margin chart: LossBand/mean as a line, a band from lower to upper.
    loss = next(i for i, s in enumerate(sections) if s["title"] == "Loss")
    titles = frame.eval_on_selector_all(
        f'.tbmf-lay-cat[data-category="{loss}"] .tbmf-cmp-panel__title',
        "els => els.map(e => e.textContent)",
    )
    margin = titles.index(MARGIN_TITLE)
    chart = _wait_for_chart(frame, loss, margin)
    slots = frame.evaluate(_READ_CHART, chart)
    assert [s["key"] for s in slots] == ["pytorch_sgd · LossBand/mean"]
    band = slots[0]
    steps, mean = _truth("pytorch_sgd", "LossBand/mean")
    _, lower = _truth("pytorch_sgd", "LossBand/lower")
    _, upper = _truth("pytorch_sgd", "LossBand/upper")
    _assert_close(band["line"]["x"], steps)
    _assert_close(band["line"]["y"], mean)
    _assert_close(band["lower"]["x"], steps)
    _assert_close(band["lower"]["y"], lower)
    _assert_close(band["upper"]["y"], upper)
    assert np.all(np.asarray(band["lower"]["y"]) <= np.asarray(mean) + 1e-9)
    assert np.all(np.asarray(band["upper"]["y"]) >= np.asarray(mean) - 1e-9)

    # The multiline chart of the same category: both tags of pytorch_sgd
    # (and any other run with them), smoothed on the server as TensorBoard
    # does.
    train_vs_val = titles.index("train vs val")
    chart = _wait_for_chart(frame, loss, train_vs_val)
    slots = {s["key"]: s for s in frame.evaluate(_READ_CHART, chart)}
    expected = _expected_pairs(server, "Loss/train") | _expected_pairs(
        server, "Loss/val"
    )
    assert {k for k in slots if not k.endswith("(raw)")} == {
        f"{run} · {tag}" for run, tag in expected
    }
    steps, values = _truth("pytorch_sgd", "Loss/val")
    smoothed = slots["pytorch_sgd · Loss/val"]
    _assert_close(smoothed["line"]["x"], steps)
    _assert_close(smoothed["line"]["y"], _tensorboard_ema(values, SMOOTHING))

    # A category folds and unfolds.
    head = f'.tbmf-lay-cat[data-category="{loss}"] .tbmf-lay-cat__head'
    grid = f'.tbmf-lay-cat[data-category="{loss}"] .tbmf-lay-cat__grid'
    frame.click(head)
    assert frame.get_attribute(head, "aria-expanded") == "false"
    assert not frame.is_visible(grid)
    frame.click(head)
    assert frame.is_visible(grid)
    _wait_for_chart(frame, loss, margin)
    frame.evaluate("document.activeElement.blur()")
    save_screenshot(tb_page, "layouts_dashboard.png")

    # Dark mode, one x axis for every chart and a baseline, from a link.
    state = {
        "tbmf.view": "layouts",
        "tbmf.li": "1",
        "tbmf.lx": "epoch",
        "tbmf.lb": "pytorch_sgd",
    }
    dark = new_page(viewport=TALL)
    dark.page.goto(
        server.url(
            "?darkMode=true#tb_multiframework&"
            + "&".join(
                f"{urllib.parse.quote(k, safe='')}="
                f"{urllib.parse.quote(v, safe='')}"
                for k, v in state.items()
            )
        )
    )
    dark_frame = plugin_frame(dark)
    assert dark_frame.get_attribute("html", "data-theme") == "dark"
    chart = _wait_for_chart(dark_frame, loss, train_vs_val)
    query = dark_frame.get_attribute(
        f"{_chart_selector(loss, train_vs_val)} .tbmf-cmp-panel", "data-query"
    )
    assert "x=epoch" in query and "baseline=pytorch_sgd" in query
    assert dark_frame.get_attribute('[data-axis="epoch"]', "aria-pressed") == (
        "true"
    )
    # The difference chart against the baseline is there.
    dark_frame.wait_for_selector(
        f"{_chart_selector(loss, train_vs_val)} .tbmf-cmp-panel__diff .tbmf-chart"
    )
    save_screenshot(dark, "layouts_dashboard_dark.png")


def test_create_layout_in_the_ui_save_reload_and_see_both_curves(
    server, tb_page, open_tab, plugin_frame, save_screenshot
) -> None:
    tb_page.page.set_viewport_size(TALL)
    frame = _open_layouts(tb_page, server, open_tab)

    # A new layout: name, a category, a multiline chart.
    frame.click('.tbmf-lay-list-card [data-action="new-layout"]')
    frame.wait_for_selector(".tbmf-lay-editor")
    frame.fill('[data-field="name"]', NAME)
    frame.click('[data-action="add-category"]')
    frame.fill('[data-field="category-title"]', "Validation")
    frame.click('[data-action="add-chart"]')
    frame.fill('[data-field="chart-title"]', "Validation loss")
    # Epochs put Keras' epoch-indexed and PyTorch's step-indexed values on
    # one axis.
    frame.select_option('[data-field="x"]', "epoch")

    # Typing the regex: the live preview lists the matching (run, tag) pairs.
    row0 = '.tbmf-lay-echart .tbmf-lay-rx[data-row="0"]'
    frame.locator(f'{row0} [data-field="pattern"]').press_sequentially(REGEX)
    expected = _expected_pairs(server, REGEX)
    assert ("pytorch_sgd", "Loss/val") in expected
    assert ("keras_fit/validation", "epoch_loss") in expected
    _wait_for_count(frame, row0, len(expected))
    shown = _pairs_shown(frame, row0)
    # The preview lists at most 12 pairs (preview.js LISTED_PAIRS) and counts
    # the rest.
    assert shown <= expected and len(shown) == min(len(expected), 12)

    # A second regex, invalid: explained inline with Python's message and a
    # caret under the position it names.
    frame.click('.tbmf-lay-echart [data-action="add-pattern"]')
    row1 = '.tbmf-lay-echart .tbmf-lay-rx[data-row="1"]'
    frame.locator(f'{row1} [data-field="pattern"]').press_sequentially(
        BAD_REGEX
    )
    frame.wait_for_selector(f"{row1} .tbmf-lay-rx-error")
    with pytest.raises(re.error) as problem:
        re.compile(BAD_REGEX)
    text = frame.inner_text(f"{row1} .tbmf-lay-rx-error__text")
    assert problem.value.msg in text
    caret = frame.locator(f"{row1} .tbmf-lay-caret")
    assert caret.get_attribute("data-position") == str(problem.value.pos)
    pattern_line, caret_line = caret.inner_text().split("\n")[:2]
    assert pattern_line == BAD_REGEX
    assert caret_line.index("^") == problem.value.pos
    assert "is-invalid" in frame.get_attribute(
        f'{row1} [data-field="pattern"]', "class"
    )

    # A margin chart with the tag pickers.
    frame.click('.tbmf-lay-ecat [data-action="add-chart"]')
    margin = '.tbmf-lay-echart[data-category="0"][data-chart="1"]'
    frame.fill(f'{margin} [data-field="chart-title"]', "Train loss band")
    frame.click(f'{margin} [data-kind="margin"]')
    for part, tag in (
        ("value", "LossBand/mean"),
        ("lower", "LossBand/lower"),
        ("upper", "LossBand/upper"),
    ):
        frame.fill(f'{margin} [data-field="series-{part}"]', tag)
    _wait_for_count(frame, f'{margin} .tbmf-lay-margin[data-row="0"]', 1)

    # The first chart drawn in the editor, from the valid regex's pairs.
    first = '.tbmf-lay-echart[data-category="0"][data-chart="0"]'
    frame.click(f'{first} [data-action="toggle-chart"]')
    frame.wait_for_selector(
        f'{first} .tbmf-cmp-panel[data-state="ready"]:not(.is-loading)'
    )
    drawn = frame.evaluate(
        _READ_CHART, f"{first} .tbmf-lay-echart__chart .tbmf-chart"
    )
    assert {s["key"] for s in drawn if not s["key"].endswith("(raw)")} == {
        f"{run} · {tag}" for run, tag in expected
    }
    frame.evaluate("document.activeElement.blur()")
    assert frame.get_attribute(".tbmf-lay-editor", "data-dirty") == "true"
    tb_page.page.set_viewport_size(EDITOR_SHOT)
    save_screenshot(tb_page, "layouts_editor.png")
    tb_page.page.set_viewport_size(TALL)

    # Saving while a regex is invalid: the server's message, inline.
    # Chromium logs every 4xx answer as a console error: this one is asked
    # for on purpose.
    tb_page.allow_errors(r"400 \(BAD REQUEST\).*/tb_multiframework/layouts:")
    frame.click('.tbmf-lay-editor [data-action="save"]')
    frame.wait_for_selector(".tbmf-lay-save-error:not([hidden])")
    assert problem.value.msg in frame.inner_text(".tbmf-lay-save-error")
    assert _saved_layouts(server) == {}

    # Fix it: the explanation goes, the pairs are listed.
    frame.fill(f'{row1} [data-field="pattern"]', "Loss/val$")
    _wait_for_count(frame, row1, len(_expected_pairs(server, "Loss/val$")))
    assert frame.locator(f"{row1} .tbmf-lay-rx-error").count() == 0
    frame.click('.tbmf-lay-editor [data-action="save"]')
    frame.wait_for_function(
        "document.querySelector('.tbmf-lay-editor').dataset.dirty === 'false'"
    )
    assert frame.is_hidden(".tbmf-lay-save-error")

    # On disk, as typed.
    saved = _saved_layouts(server)
    assert list(saved) == [NAME]
    category = saved[NAME]["categories"][0]
    assert category["title"] == "Validation"
    assert category["charts"][0]["tags"] == [REGEX, "Loss/val$"]
    assert category["charts"][0]["kind"] == "multiline"
    assert category["charts"][0]["x"] == "epoch"
    assert category["charts"][1]["series"] == [
        {
            "value": "LossBand/mean",
            "lower": "LossBand/lower",
            "upper": "LossBand/upper",
        }
    ]

    # Leave the editor: the dashboard of the saved layout, named in the URL.
    frame.click('.tbmf-lay-editor [data-action="close"]')
    frame.wait_for_selector(f'.tbmf-lay-dash[data-layout="{NAME}"]')
    url = tb_page.page.url
    assert "tbmf.ln=" + urllib.parse.quote(NAME, safe="") in url

    # Reload: TensorBoard's URL brings the layout back, with both curves.
    tb_page.page.reload()
    frame = plugin_frame(tb_page)
    frame.wait_for_selector(f'.tbmf-lay-dash[data-layout="{NAME}"]')
    chart = _wait_for_chart(frame, 0, 0)
    slots = {s["key"]: s for s in frame.evaluate(_READ_CHART, chart)}
    assert {k for k in slots if not k.endswith("(raw)")} == {
        f"{run} · {tag}" for run, tag in expected
    }
    for run, tag in [
        ("pytorch_sgd", "Loss/val"),
        ("keras_fit/validation", "epoch_loss"),
    ]:
        key = f"{run} · {tag}"
        _, values = _truth(run, tag)
        raw = slots[f"{key} (raw)"]["line"]
        _assert_close(raw["y"], values)
        _assert_close(
            slots[key]["line"]["y"], _tensorboard_ema(values, SMOOTHING)
        )
        api = _scalars(
            server, [run], tag=tag, x="epoch", smoothing=SMOOTHING, points=1000
        )["series"][0]
        _assert_close(raw["x"], api["x"], rtol=0)
        _assert_close(raw["y"], api["y"], rtol=0)
        _assert_close(slots[key]["line"]["y"], api["smoothed"], rtol=0)
    # Both are validation losses of epochs 1..8: the same x on this axis.
    assert (
        slots["pytorch_sgd · Loss/val"]["line"]["x"]
        == slots["keras_fit/validation · epoch_loss"]["line"]["x"]
        == [float(k) for k in range(1, 9)]
    )

    # Duplicate the logged layout: an editable copy, saved at once.
    frame.click('.tbmf-lay-item[data-kind="imported"] button')
    frame.wait_for_selector('.tbmf-lay-dash[data-imported="true"]')
    frame.click('.tbmf-lay-dash [data-action="duplicate"]')
    frame.wait_for_selector(".tbmf-lay-editor")
    copy = f"{IMPORTED} (copy)"
    assert frame.input_value('[data-field="name"]') == copy
    assert set(_saved_layouts(server)) == {NAME, copy}
    assert [c["title"] for c in _saved_layouts(server)[copy]["categories"]] == (
        list(IMPORTED_CATEGORIES)
    )

    # Delete it (after confirming): gone from the list and from disk.
    frame.click('.tbmf-lay-editor [data-action="delete"]')
    _answer_dialog(frame, "ok")
    frame.wait_for_function(
        """name => ![...document.querySelectorAll('.tbmf-lay-item')]
            .some(e => e.dataset.layout === name)""",
        arg=copy,
    )
    assert set(_saved_layouts(server)) == {NAME}


def test_rename_export_import_and_unsaved_changes(
    server,
    tb_page,
    new_page,
    open_tab,
    plugin_frame,
    save_screenshot,
    tmp_path: Path,
) -> None:
    frame = _open_layouts(tb_page, server, open_tab)

    # Import a file whose first category is logged closed.
    layout = {
        "name": "Imported from a file",
        "categories": [
            {
                "title": "closed at first",
                "closed": True,
                "charts": [
                    {
                        "title": "accuracy",
                        "kind": "multiline",
                        "metrics": ["accuracy/.*"],
                    }
                ],
            },
            {
                "title": "open",
                "charts": [
                    {"title": "lr", "kind": "multiline", "tags": [".*lr$"]}
                ],
            },
        ],
    }
    source = tmp_path / "in.layout.json"
    source.write_text(json.dumps(layout), "utf-8")
    frame.set_input_files('[data-control="import-file"]', str(source))
    frame.wait_for_selector(f'.tbmf-lay-dash[data-layout="{layout["name"]}"]')
    assert set(_saved_layouts(server)) == {layout["name"]}
    closed = '.tbmf-lay-cat[data-category="0"]'
    assert frame.get_attribute(
        f"{closed} .tbmf-lay-cat__head", "aria-expanded"
    ) == ("false")
    assert not frame.is_visible(f"{closed} .tbmf-lay-cat__grid")
    _wait_for_chart(frame, 1, 0)

    # An invalid file is refused with the reason; nothing is saved.
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": " spaced ", "categories": []}), "utf-8")
    frame.set_input_files('[data-control="import-file"]', str(bad))
    frame.wait_for_selector(".tbmf-lay-list__messages .tbmf-lay-message--error")
    assert "whitespace" in frame.inner_text(".tbmf-lay-list__messages")
    assert set(_saved_layouts(server)) == {layout["name"]}

    # Export: the layout as a JSON file equal to what was imported (with
    # the defaults filled in).
    with tb_page.page.expect_download() as download_info:
        frame.click('.tbmf-lay-dash [data-action="export"]')
    download = download_info.value
    assert download.suggested_filename == "Imported from a file.layout.json"
    exported = json.loads(Path(download.path()).read_text("utf-8"))
    assert exported["name"] == layout["name"]
    assert exported["categories"][0]["closed"] is True
    assert exported["categories"][0]["charts"][0]["metrics"] == ["accuracy/.*"]
    assert exported["categories"][1]["charts"][0]["tags"] == [".*lr$"]
    assert "readOnly" not in exported

    # Edit, change the title, try to leave: asked first; keep editing.
    frame.click('.tbmf-lay-dash [data-action="edit"]')
    frame.wait_for_selector(".tbmf-lay-editor")
    frame.fill('[data-field="category-title"] >> nth=1', "learning rate")
    assert frame.get_attribute(".tbmf-lay-editor", "data-dirty") == "true"
    frame.click('.tbmf-lay-item[data-kind="imported"] button')
    _answer_dialog(frame, "cancel")
    assert frame.input_value('[data-field="category-title"] >> nth=1') == (
        "learning rate"
    )

    # Rename and save: the old name is gone from disk, the URL follows.
    renamed = "Accuracy and learning rate"
    frame.fill('[data-field="name"]', renamed)
    frame.click('.tbmf-lay-editor [data-action="save"]')
    frame.wait_for_function(
        "document.querySelector('.tbmf-lay-editor').dataset.dirty === 'false'"
    )
    saved = _saved_layouts(server)
    assert set(saved) == {renamed}
    assert saved[renamed]["categories"][1]["title"] == "learning rate"
    assert "tbmf.ln=" + urllib.parse.quote(renamed, safe="") in tb_page.page.url

    # A link to the editor opens the editor, in a fresh browser.
    link = tb_page.page.url
    assert "tbmf.le=1" in link
    other = new_page(viewport=TALL)
    base, _, fragment = link.partition("#")
    other.page.goto(f"{base}?darkMode=true#{fragment}")
    other_frame = plugin_frame(other)
    other_frame.wait_for_selector(".tbmf-lay-editor")
    assert other_frame.input_value('[data-field="name"]') == renamed
    assert other_frame.get_attribute("html", "data-theme") == "dark"
    other_frame.click(
        '.tbmf-lay-echart[data-category="1"] [data-action="toggle-chart"]'
    )
    other_frame.wait_for_selector(
        '.tbmf-lay-echart[data-category="1"] '
        '.tbmf-cmp-panel[data-state="ready"]:not(.is-loading)'
    )
    save_screenshot(other, "layouts_editor_dark.png")

    # Unsaved change, leave and discard: the logged layout opens and the
    # saved file is unchanged.
    frame.fill('[data-field="chart-title"] >> nth=0', "changed")
    frame.click('.tbmf-lay-item[data-kind="imported"] button')
    _answer_dialog(frame, "ok")
    frame.wait_for_selector('.tbmf-lay-dash[data-imported="true"]')
    assert _saved_layouts(server) == saved


def test_editor_speaks_the_users_words_and_delete_needs_no_reload(
    server, tb_page, open_tab
) -> None:
    """An empty layout is not "ready to save"; schema errors are said in the
    form's words next to the chart or name they are about; a new layout can
    be deleted right after its first save."""
    tb_page.page.set_viewport_size(TALL)
    frame = _open_layouts(tb_page, server, open_tab)
    frame.click('.tbmf-lay-list-card [data-action="new-layout"]')
    frame.wait_for_selector(".tbmf-lay-editor")
    status = ".tbmf-lay-editor .tbmf-lay-status"
    frame.wait_for_function(
        f"document.querySelector('{status}')?.textContent.includes('Nothing')"
    )
    assert "ready to save" not in frame.inner_text(status)
    delete = '.tbmf-lay-editor [data-action="delete"]'
    assert frame.is_disabled(delete)

    frame.click('[data-action="add-category"]')
    frame.fill('[data-field="category-title"]', "Losses")
    frame.click('[data-action="add-chart"]')
    frame.fill('[data-field="chart-title"]', "Train")
    problem = '.tbmf-lay-echart [data-problem="chart"]'
    frame.wait_for_function(
        f"document.querySelector('{status}').textContent"
        ".includes('chart “Train”')"
    )
    frame.wait_for_selector(f"{problem}:not([hidden])")
    assert frame.inner_text(problem).startswith("Add a tag or metric pattern")
    text = frame.inner_text(status)
    assert text.startswith(
        "Not ready to save: Category “Losses”, chart “Train”"
    )
    assert "categories[" not in text and "'tags'" not in text

    frame.fill('[data-field="name"]', "")
    name_problem = '[data-problem="name"]'
    frame.wait_for_selector(f"{name_problem}:not([hidden])")
    assert frame.inner_text(name_problem) == "Give it a name."
    frame.fill('[data-field="name"]', "Words")

    row0 = '.tbmf-lay-echart .tbmf-lay-rx[data-row="0"]'
    frame.fill(f'{row0} [data-field="pattern"]', "Loss/train")
    frame.wait_for_function(
        f"document.querySelector('{status}').textContent"
        ".includes('Valid layout: ready to save')"
    )
    assert frame.is_hidden(problem)
    frame.click('.tbmf-lay-editor [data-action="save"]')
    frame.wait_for_function(
        "document.querySelector('.tbmf-lay-editor').dataset.dirty === 'false'"
    )
    assert list(_saved_layouts(server)) == ["Words"]
    # Deletable at once, no reload.
    frame.wait_for_selector(f"{delete}:not([disabled])")
    frame.click(delete)
    _answer_dialog(frame, "ok")
    frame.wait_for_function(
        "!document.querySelector('.tbmf-lay-editor')", timeout=10_000
    )
    assert _saved_layouts(server) == {}


def test_discarding_a_new_layouts_restored_changes_keeps_its_name(
    server, tb_page, open_tab, plugin_frame
) -> None:
    """A new layout's unsaved changes come back after a reload with
    "Discard them": that emptied the layout's name (an unsaved new layout
    with no name). It returns to the new layout as first opened, default
    name included, with nothing unsaved."""
    frame = _open_layouts(tb_page, server, open_tab)
    frame.click('.tbmf-lay-list-card [data-action="new-layout"]')
    frame.wait_for_selector(".tbmf-lay-editor")
    default = frame.input_value('[data-field="name"]')
    assert default.strip()
    frame.fill('[data-field="name"]', "Half-made")
    frame.click('[data-action="add-category"]')
    frame.fill('[data-field="category-title"]', "Loss")
    # Leave it unsaved: a reload restores the changes (sessionStorage).
    frame.wait_for_timeout(300)
    tb_page.page.reload()
    frame = plugin_frame(tb_page)
    frame.wait_for_selector('[data-action="discard-restored"]')
    assert frame.input_value('[data-field="name"]') == "Half-made"
    frame.click('[data-action="discard-restored"]')
    assert frame.input_value('[data-field="name"]') == default
    assert frame.locator('[data-field="category-title"]').count() == 0
    assert frame.get_attribute(".tbmf-lay-editor", "data-dirty") == "false"
    assert frame.locator('[data-action="discard-restored"]').count() == 0
