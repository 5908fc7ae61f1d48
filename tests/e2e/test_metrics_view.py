"""The Metrics view (issue 22): a card per metric of the selected runs, a
filter, pins kept in the link, enlarge / Esc, card width, a per-card y
range, and a step table whose numbers are checked against the event files.

Expected numbers come from TensorBoard's own EventAccumulator reading the
copy of demo_logs/ the server reads (not from the tab's routes): each
run's value at x is its last point with step <= x (a step logged twice
keeps its later value); ranks and differences come from numpy.
"""

from __future__ import annotations

import csv
import io
import json
import re
import time
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Frame
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.util import tensor_util

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

_TIMEOUT_MS = 60_000
_METRIC = "loss/train@batch"
# Runs TensorBoard's reader can read (VisualDL's files it cannot), three
# frameworks, simple_value and TF2 tensor scalars both.
_TABLE_RUNS = ["keras_fit/train", "paddle_tbx", "pytorch_sgd", "tf2_loop"]
_BASELINE = "pytorch_sgd"
_CARD = '.tbmf-met-card[data-metric="{key}"]'
_Y_DOMAIN = """el => {
  const u = el.querySelector('.tbmf-chart').tbmfChart.uplot;
  return [u.scales.y.min, u.scales.y.max];
}"""


def _open(page, open_tab, server, query: str = "") -> Frame:
    frame = open_tab(
        page, server, suffix=f"#tb_multiframework&tbmf.view=metrics{query}"
    )
    frame.wait_for_selector(".tbmf-met-card", timeout=_TIMEOUT_MS)
    return frame


def _card_keys(frame: Frame) -> list[str]:
    return frame.eval_on_selector_all(
        ".tbmf-met-card", "cards => cards.map(c => c.dataset.metric)"
    )


def _wait_ready(frame: Frame, key: str) -> None:
    frame.wait_for_selector(
        f'{_CARD.format(key=key)} .tbmf-cmp-panel[data-state="ready"]',
        timeout=_TIMEOUT_MS,
    )


def _matches(entry: dict, pattern: str) -> bool:
    """GET metrics' search, as docs/api.md defines it: a case-insensitive
    regex anywhere in the name, the key or a member's tag."""
    texts = [entry["name"], entry["key"]] + [m["tag"] for m in entry["members"]]
    return any(re.search(pattern, t, re.IGNORECASE) for t in texts)


def test_one_card_per_metric_filter_pin_enlarge_width(
    tb_server, tb_page, open_tab, plugin_frame
) -> None:
    server = tb_server()
    index = server.get_json("metrics")["metrics"]
    assert len(index) > 12  # more than one screen of cards
    frame = _open(tb_page, open_tab, server)
    frame.wait_for_function(
        f"() => document.querySelectorAll('.tbmf-met-card').length === {len(index)}",
        timeout=_TIMEOUT_MS,
    )
    assert sorted(_card_keys(frame)) == sorted(e["key"] for e in index)
    # Lazy: the cards far below the fold have not fetched yet.
    mounted = frame.locator(".tbmf-met-card .tbmf-cmp-panel").count()
    assert 0 < mounted < len(index), mounted

    # The filter narrows to the metrics GET metrics' search defines.
    frame.fill(".tbmf-met-filter", "acc")
    expected = sorted(e["key"] for e in index if _matches(e, "acc"))
    assert 0 < len(expected) < len(index)
    frame.wait_for_function(
        f"() => document.querySelectorAll('.tbmf-met-card').length === {len(expected)}",
        timeout=_TIMEOUT_MS,
    )
    assert sorted(_card_keys(frame)) == expected
    assert "tbmf.mq=acc" in tb_page.page.url
    frame.fill(".tbmf-met-filter", "")
    frame.wait_for_function(
        f"() => document.querySelectorAll('.tbmf-met-card').length === {len(index)}",
        timeout=_TIMEOUT_MS,
    )

    # Pin the third card: it comes first, and the link keeps it.
    third = _card_keys(frame)[2]
    frame.click(f"{_CARD.format(key=third)} .tbmf-met-card__pin")
    frame.wait_for_function(
        "key => document.querySelector('.tbmf-met-card').dataset.metric === key",
        arg=third,
    )
    pin = frame.locator(f"{_CARD.format(key=third)} .tbmf-met-card__pin")
    assert pin.get_attribute("aria-pressed") == "true"
    labels = frame.eval_on_selector_all(
        ".tbmf-met-card__pin", "bs => bs.map(b => b.getAttribute('aria-label'))"
    )
    assert len(set(labels)) == len(labels), labels  # one name a card
    name = next(e["name"] for e in index if e["key"] == third)
    assert name in pin.get_attribute("aria-label")
    url = tb_page.page.url
    assert "tbmf.mp=" in url
    tb_page.page.goto(url)
    tb_page.page.reload()
    frame = plugin_frame(tb_page)
    frame.wait_for_selector(".tbmf-met-card", timeout=_TIMEOUT_MS)
    assert _card_keys(frame)[0] == third

    # Enlarge: first, the whole grid's width; Esc puts it back, focus on
    # its button.
    fourth = _card_keys(frame)[3]
    card = frame.locator(_CARD.format(key=fourth))
    narrow = card.bounding_box()["width"]
    card.locator(".tbmf-met-card__enlarge").click()
    frame.wait_for_selector(f"{_CARD.format(key=fourth)}.is-enlarged")
    assert _card_keys(frame)[0] == fourth
    grid = frame.locator(".tbmf-met-grid").bounding_box()["width"]
    assert card.bounding_box()["width"] == pytest.approx(grid, abs=2)
    assert card.bounding_box()["width"] > 1.5 * narrow
    assert "tbmf.me=" in tb_page.page.url
    tb_page.page.keyboard.press("Escape")
    frame.wait_for_selector(f"{_CARD.format(key=fourth)}:not(.is-enlarged)")
    assert _card_keys(frame)[3] == fourth
    assert card.bounding_box()["width"] == pytest.approx(narrow, abs=2)
    assert frame.evaluate(
        "() => document.activeElement.classList.contains('tbmf-met-card__enlarge')"
    )

    # Card width: L is at least 640 px a card, and kept in the link.
    frame.click('.tbmf-cmp-seg__item[data-width="l"]')
    frame.wait_for_selector('.tbmf-met-grid[data-width="l"]')
    assert card.bounding_box()["width"] >= 640
    assert "tbmf.mw=l" in tb_page.page.url
    tb_page.assert_no_errors()


def test_empty_view_says_what_to_do_first(tb_server, tb_page, open_tab) -> None:
    server = tb_server()
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=metrics&tbmf.sel=-",
    )
    guide = ".tbmf-met-guide:not([hidden])"
    frame.wait_for_selector(guide, timeout=_TIMEOUT_MS)
    assert frame.inner_text(guide).startswith("Start here: tick runs")
    assert frame.locator(".tbmf-met-card").count() == 0

    # Runs selected, but a filter nothing matches: one line says so.
    frame.click('button[data-action="runs-all"]')
    frame.wait_for_selector(".tbmf-met-card", timeout=_TIMEOUT_MS)
    frame.fill(".tbmf-met-filter", "no_such_metric_zzz")
    frame.wait_for_function(
        "() => document.querySelectorAll('.tbmf-met-card').length === 0",
        timeout=_TIMEOUT_MS,
    )
    frame.wait_for_function(
        "() => document.querySelector('.tbmf-met-guide').textContent"
        ".startsWith('No metric matches the filter')",
        timeout=_TIMEOUT_MS,
    )
    tb_page.assert_no_errors()


def _read_points(logdir: Path, run: str, tag: str) -> dict[int, float]:
    """step -> value of one (run, tag), by TensorBoard's own reader."""
    acc = ea.EventAccumulator(
        str(logdir / run), size_guidance={ea.SCALARS: 0, ea.TENSORS: 0}
    )
    acc.Reload()
    points: dict[int, float] = {}
    if tag in acc.Tags()["scalars"]:
        for event in acc.Scalars(tag):
            points[event.step] = float(event.value)
    else:
        for event in acc.Tensors(tag):
            points[event.step] = float(
                tensor_util.make_ndarray(event.tensor_proto)
            )
    return points


def _value_at(points: dict[int, float], x: float) -> tuple[int, float] | None:
    steps = [s for s in points if s <= x]
    if not steps:
        return None
    step = max(steps)
    return step, points[step]


def _run_colours(frame: Frame, chart: str) -> dict[str, str]:
    """Each drawn run's colour, as the chart holds it."""
    return frame.eval_on_selector(
        chart,
        """el => Object.fromEntries(el.tbmfChart.slots
          .filter(s => s.run).map(s => [s.run, s.color]))""",
    )


def _wait_for_x(frame: Frame, card: str, x: float) -> None:
    frame.wait_for_function(
        """([sel, x]) => {
          const t = document.querySelector(sel + ' .tbmf-met-table');
          return t.dataset.state === 'ready' && Number(t.dataset.x) === x;
        }""",
        arg=[card, x],
        timeout=_TIMEOUT_MS,
    )


def _table(frame: Frame, key: str) -> dict[str, dict[str, str]]:
    return {
        row["run"]: row
        for row in frame.eval_on_selector_all(
            f"{_CARD.format(key=key)} .tbmf-met-table tbody tr",
            """rows => rows.map(r => {
              const out = {run: r.dataset.run};
              for (const td of r.querySelectorAll('td')) {
                out[td.dataset.col] = td.dataset.value;
              }
              return out;
            })""",
        )
    }


def test_step_table_matches_the_event_files(
    tb_server, new_page, open_tab, e2e_logdir
) -> None:
    server = tb_server()
    entry = next(
        e
        for e in server.get_json(
            "metrics?key=" + urllib.parse.quote(_METRIC, safe="")
        )["metrics"]
    )
    tags = {m["run"]: m["tag"] for m in entry["members"]}
    assert set(_TABLE_RUNS) <= set(tags)
    points = {
        run: _read_points(e2e_logdir, run, tags[run]) for run in _TABLE_RUNS
    }

    page = new_page(permissions=["clipboard-read", "clipboard-write"])
    sel = urllib.parse.quote(",".join(_TABLE_RUNS), safe="")
    frame = _open(
        page,
        open_tab,
        server,
        f"&tbmf.sel={sel}&tbmf.cx=step&tbmf.cb={_BASELINE}"
        f"&tbmf.mq={urllib.parse.quote('^loss/train$', safe='')}",
    )
    _wait_ready(frame, _METRIC)
    card = _CARD.format(key=_METRIC)

    # A click on the plot picks the logged x nearest to it.
    over = frame.locator(f"{card} .u-over")
    box = over.bounding_box()
    over.click(position={"x": box["width"] * 0.4, "y": box["height"] / 2})
    frame.wait_for_selector(f'{card} .tbmf-met-table[data-state="ready"]')
    clicked = float(frame.get_attribute(f"{card} .tbmf-met-table", "data-x"))
    assert any(clicked in p for p in points.values())

    # The ends (End, Home on the focused chart): at the last x a run that
    # stopped a step earlier shows its last point (the step says which), at
    # the first x a run that starts later has no value: never extrapolated.
    all_x = sorted({s for p in points.values() for s in p})
    figure = frame.locator(f"{card} [role=figure]")
    for key, x in (("End", all_x[-1]), ("Home", all_x[0])):
        figure.focus()
        page.page.keyboard.press(key)
        _wait_for_x(frame, card, x)
        table = _table(frame, _METRIC)
        for run in _TABLE_RUNS:
            at = _value_at(points[run], x)
            got = table[run]
            if at is None:
                assert got["value"] == "" and got["step"] == "", run
            else:
                assert (int(got["step"]), float(got["value"])) == at, run
    assert any(_value_at(p, all_x[-1])[0] < all_x[-1] for p in points.values())
    assert any(_value_at(p, all_x[0]) is None for p in points.values())

    # Keyboard: Home is the first logged x, each arrow the next one.
    figure.focus()
    page.page.keyboard.press("Home")
    for _ in range(37):
        page.page.keyboard.press("ArrowRight")
    _wait_for_x(frame, card, all_x[37])
    x = all_x[37]
    assert "tbmf.mc=" in page.page.url  # the picked x is in the link

    table = _table(frame, _METRIC)
    assert set(table) == set(_TABLE_RUNS)
    expected = {run: _value_at(points[run], x) for run in _TABLE_RUNS}
    assert all(v is not None for v in expected.values()), expected
    for run, (step, value) in expected.items():
        assert int(table[run]["step"]) == step, run
        assert float(table[run]["value"]) == value, run

    # Rank: loss, lower is better (1 = lowest; ties share the rank).
    assert (
        frame.get_attribute(f"{card} .tbmf-met-table", "data-direction")
        == "min"
    )
    values = np.array([expected[r][1] for r in _TABLE_RUNS])
    ranks = {
        run: 1 + int(np.sum(values < values[i]))
        for i, run in enumerate(_TABLE_RUNS)
    }
    assert {r: int(table[r]["rank"]) for r in _TABLE_RUNS} == ranks
    # Difference to the baseline, in float64 as numpy computes it.
    base = np.float64(expected[_BASELINE][1])
    for run in _TABLE_RUNS:
        assert float(table[run]["diff"]) == float(
            np.float64(expected[run][1]) - base
        ), run

    # Copy as Markdown: read back from the clipboard, the same numbers.
    frame.click(f"{card} .tbmf-met-table__copy")
    frame.wait_for_selector(".tbmf-toast:not([hidden])")
    markdown = frame.evaluate("() => navigator.clipboard.readText()")
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in markdown.splitlines()
        if line.startswith("| ") and not line.startswith("| ---")
    ]
    head, body = rows[0], rows[1:]
    assert head[0] == "Run" and head[-1] == "Rank"
    parsed = {r[0]: dict(zip(head, r)) for r in body}
    assert set(parsed) == set(_TABLE_RUNS)
    for run, (step, value) in expected.items():
        assert int(parsed[run]["Logged at step"]) == step
        assert float(parsed[run]["Value"]) == value
        assert int(parsed[run]["Rank"]) == ranks[run]
        assert float(parsed[run][f"− {_BASELINE}"]) == float(
            np.float64(value) - base
        )

    # Another baseline from the toolbar (Compare's `cb`): the differences
    # follow it.
    assert frame.input_value(".tbmf-met-baseline") == _BASELINE
    frame.select_option(".tbmf-met-baseline", "tf2_loop")
    frame.wait_for_function(
        "sel => [...document.querySelectorAll(sel + ' thead th')]"
        ".some(th => th.textContent === '− tf2_loop')",
        arg=card,
        timeout=_TIMEOUT_MS,
    )
    table = _table(frame, _METRIC)
    other = np.float64(expected["tf2_loop"][1])
    for run in _TABLE_RUNS:
        assert float(table[run]["diff"]) == float(
            np.float64(expected[run][1]) - other
        ), run
    assert "tbmf.cb=tf2_loop" in page.page.url

    # The x belongs to its axis: on epochs the table waits for a pick, back
    # on steps it is there again.
    frame.click('.tbmf-cmp-seg__item[data-axis="epoch"]')
    frame.wait_for_selector(f'{card} .tbmf-met-table[data-state="empty"]')
    frame.click('.tbmf-cmp-seg__item[data-axis="step"]')
    _wait_for_x(frame, card, x)

    # CSV: the card's GET export, with the baseline's diff columns.
    href = frame.eval_on_selector(
        f"{card} .tbmf-met-card__tools a", "a => a.href"
    )
    assert "/export?" in href and "format=csv" in href
    with urllib.request.urlopen(href, timeout=60) as answer:
        rows = list(csv.DictReader(io.StringIO(answer.read().decode())))
    assert {"run", "step", "value", "diff"} <= set(rows[0])
    for run, (step, value) in expected.items():
        row = next(
            r for r in rows if r["run"] == run and int(r["step"]) == step
        )
        assert np.float32(row["value"]) == np.float32(value), run

    # PNG: the plot as an image file.
    with page.page.expect_download() as download:
        frame.click(f"{card} .tbmf-met-card__tools button:text-is('PNG')")
    path = download.value.path()
    assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert download.value.suggested_filename == "loss_train_batch.png"

    # Open in Compare: the same metric, as Compare's deep view, each run in
    # the colour it has here.
    colours = _run_colours(frame, f"{card} .tbmf-chart")
    assert len(set(colours.values())) == len(_TABLE_RUNS), colours
    frame.click(f"{card} .tbmf-met-card__compare")
    frame.wait_for_selector(
        '.tbmf-cmp-panel[data-state="ready"]', timeout=_TIMEOUT_MS
    )
    query = frame.get_attribute(
        ".tbmf-cmp__panel .tbmf-cmp-panel", "data-query"
    )
    assert "metric=loss%2Ftrain%40batch" in query
    assert "tbmf.view=compare" in page.page.url
    assert _run_colours(frame, ".tbmf-cmp__panel .tbmf-chart") == colours
    page.assert_no_errors()


def _hover(frame: Frame, card) -> None:
    # Near the bottom: nearest-first would list low values first there.
    over = card.locator(".u-over")
    box = over.bounding_box()
    over.hover(position={"x": box["width"] * 0.55, "y": box["height"] * 0.9})
    frame.wait_for_selector(".tbmf-chart__tooltip:not([hidden])")


def _tooltip_values(frame: Frame, card) -> list[float]:
    _hover(frame, card)
    texts = frame.eval_on_selector_all(
        ".tbmf-chart__tooltip:not([hidden]) .tbmf-chart__value",
        "vs => vs.map(v => v.textContent)",
    )
    assert len(texts) >= 3, texts
    return [float(t.replace(",", "")) for t in texts]


def _tooltip_labels(frame: Frame, card) -> list[str]:
    _hover(frame, card)
    return frame.eval_on_selector_all(
        ".tbmf-chart__tooltip:not([hidden]) .tbmf-chart__label",
        "ls => ls.map(l => l.textContent)",
    )


def test_card_y_range_log_y_and_tooltip_order_are_kept(
    tb_server, tb_page, open_tab, plugin_frame
) -> None:
    server = tb_server()
    frame = _open(
        tb_page,
        open_tab,
        server,
        f"&tbmf.mq={urllib.parse.quote('^loss/train$', safe='')}",
    )
    _wait_ready(frame, _METRIC)
    card = frame.locator(_CARD.format(key=_METRIC))
    fitted = card.evaluate(_Y_DOMAIN)
    card.locator('[data-bound="lo"]').fill("0.25")
    card.locator('[data-bound="hi"]').fill("1.75")
    card.locator('[data-bound="hi"]').press("Enter")
    frame.wait_for_function(
        """el => {
          const u = el.querySelector('.tbmf-chart')?.tbmfChart?.uplot;
          return u && u.scales.y.min === 0.25 && u.scales.y.max === 1.75;
        }""",
        arg=card.element_handle(),
        timeout=_TIMEOUT_MS,
    )
    card.locator(".tbmf-met-card__sort").select_option("desc")

    # Kept in the link: a reload draws the same range and order.
    tb_page.page.goto(tb_page.page.url)
    tb_page.page.reload()
    frame = plugin_frame(tb_page)
    _wait_ready(frame, _METRIC)
    card = frame.locator(_CARD.format(key=_METRIC))
    assert card.evaluate(_Y_DOMAIN) == [0.25, 1.75]
    assert card.locator(".tbmf-met-card__sort").input_value() == "desc"
    # The tooltip lists the runs by value, highest first.
    assert _tooltip_values(frame, card) == sorted(
        _tooltip_values(frame, card), reverse=True
    )
    card.locator(".tbmf-met-card__sort").select_option("name")
    frame.wait_for_function(
        "el => el.querySelector('.tbmf-chart').tbmfChart._options"
        ".tooltipSort === 'name'",
        arg=card.element_handle(),
    )
    labels = _tooltip_labels(frame, card)
    assert labels == sorted(labels), labels

    # Log y: a minimum <= 0 cannot apply, the maximum still does.
    card.locator('[data-bound="lo"]').fill("-1")
    card.locator('[data-bound="lo"]').press("Enter")
    card.locator(".tbmf-met-card__tools .tbmf-cmp-toggle").click()
    frame.wait_for_function(
        """el => {
          const u = el.querySelector('.tbmf-chart')?.tbmfChart?.uplot;
          return u && u.scales.y.distr === 3 && u.scales.y.min > 0
            && u.scales.y.max === 1.75;
        }""",
        arg=card.element_handle(),
        timeout=_TIMEOUT_MS,
    )

    # Fit to data: the y range goes, the fitted one is back (linear again
    # once log y is off).
    card.locator(".tbmf-met-card__tools .tbmf-cmp-toggle").click()
    card.locator(".tbmf-met-card__tools .tbmf-button--text").first.click()
    frame.wait_for_function(
        """([el, lo, hi]) => {
          const u = el.querySelector('.tbmf-chart')?.tbmfChart?.uplot;
          return u && u.scales.y.min === lo && u.scales.y.max === hi;
        }""",
        arg=[card.element_handle(), *fitted],
        timeout=_TIMEOUT_MS,
    )
    tb_page.assert_no_errors()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshot(tb_server, new_page, open_tab, theme: str) -> None:
    """docs/screenshots/metrics_view_<theme>.png at 1440x900: four runs of
    three frameworks, loss/train pinned with its step table at step 250
    against the PyTorch baseline."""
    server = tb_server()
    page = new_page(viewport={"width": 1440, "height": 900})
    sel = urllib.parse.quote(",".join(_TABLE_RUNS), safe="")
    cards = urllib.parse.quote(json.dumps({_METRIC: {"x": 250}}), safe="")
    frame = open_tab(
        page,
        server,
        suffix=("?darkMode=true" if theme == "dark" else "")
        + "#tb_multiframework&tbmf.view=metrics"
        f"&tbmf.sel={sel}&tbmf.cx=step&tbmf.cb={_BASELINE}"
        f"&tbmf.mp={urllib.parse.quote(_METRIC, safe='')}&tbmf.mc={cards}",
    )
    _wait_ready(frame, _METRIC)
    frame.wait_for_selector(
        f'{_CARD.format(key=_METRIC)} .tbmf-met-table[data-state="ready"]',
        timeout=_TIMEOUT_MS,
    )
    assert _card_keys(frame)[0] == _METRIC
    frame.wait_for_timeout(500)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.page.screenshot(path=str(SCREENSHOTS / f"metrics_view_{theme}.png"))
    page.assert_no_errors()


_WIDE_RUNS = 50
_WIDE_TAGS = 40
_WIDE_STEPS = 500


@pytest.fixture(scope="module")
def wide_logdir(tmp_path_factory) -> Path:
    """50 runs x 40 scalar tags x 500 steps, simple_value events."""
    from tests.eventfiles import (
        file_version_event,
        record_bytes,
        scalar_event,
        write,
    )

    root = tmp_path_factory.mktemp("wide") / "wide"
    rng = np.random.default_rng(22)
    for r in range(_WIDE_RUNS):
        values = rng.random((_WIDE_TAGS, _WIDE_STEPS), dtype=np.float32)
        payloads = [file_version_event()]
        for step in range(_WIDE_STEPS):
            for t in range(_WIDE_TAGS):
                payloads.append(
                    scalar_event(
                        f"quantity_{t:02d}/train",
                        step,
                        1000.0 + step,
                        float(values[t, step]),
                    )
                )
        run = root / f"run_{r:02d}"
        run.mkdir(parents=True)
        write(
            str(run / "events.out.tfevents.1000.host.1.0"),
            record_bytes(payloads),
        )
    return root


def test_forty_metrics_fifty_runs_fetch_what_is_shown(
    tb_server, tb_page, open_tab, wide_logdir
) -> None:
    """Only the cards near the viewport ask for their scalars; the rest do
    as they scroll into view. Prints the timings."""
    server = tb_server(logdir=wide_logdir)
    # 40 logged metrics, and the 3 derived from wall time (time/step, ...).
    total = server.get_json("metrics")["total"]
    assert total == _WIDE_TAGS + 3
    asked: list[str] = []
    tb_page.page.on(
        "request",
        lambda r: asked.append(r.url) if "/scalars?" in r.url else None,
    )
    began = time.perf_counter()
    frame = _open(tb_page, open_tab, server, "&tbmf.cx=step")
    frame.wait_for_function(
        f"() => document.querySelectorAll('.tbmf-met-card').length === {total}",
        timeout=_TIMEOUT_MS,
    )
    frame.wait_for_function(
        """() => {
          const p = [...document.querySelectorAll('.tbmf-met-card .tbmf-cmp-panel')];
          return p.length > 0 && p.every(e => e.dataset.state === 'ready');
        }""",
        timeout=_TIMEOUT_MS,
    )
    first_screen = time.perf_counter() - began
    mounted = frame.locator(".tbmf-met-card .tbmf-cmp-panel").count()
    first_requests = len(asked)
    assert 0 < mounted < total / 2, mounted
    assert first_requests == mounted, (first_requests, mounted)
    queries = [
        urllib.parse.parse_qs(urllib.parse.urlsplit(u).query) for u in asked
    ]
    assert all(len(q["run"]) == _WIDE_RUNS for q in queries)

    # Scrolling to the end mounts the rest, one request a card.
    began = time.perf_counter()
    for _ in range(30):
        frame.evaluate("() => document.scrollingElement.scrollBy(0, 600)")
        frame.wait_for_timeout(100)
        if frame.locator(".tbmf-met-card .tbmf-cmp-panel").count() == total:
            break
    frame.wait_for_function(
        f"""() => {{
          const p = [...document.querySelectorAll('.tbmf-met-card .tbmf-cmp-panel')];
          return p.length === {total}
            && p.every(e => e.dataset.state === 'ready');
        }}""",
        timeout=_TIMEOUT_MS,
    )
    rest = time.perf_counter() - began
    assert len(asked) == total

    # A pick on the last card: its table for 50 runs.
    last = frame.locator(".tbmf-met-card").last
    last.locator("[role=figure]").focus()
    began = time.perf_counter()
    tb_page.page.keyboard.press("End")
    frame.wait_for_function(
        """el => el.querySelector('.tbmf-met-table').dataset.state === 'ready'
          && el.querySelectorAll('.tbmf-met-table tbody tr').length === 50""",
        arg=last.element_handle(),
        timeout=_TIMEOUT_MS,
    )
    pick = time.perf_counter() - began
    print(
        f"\n{total} metrics x {_WIDE_RUNS} runs: first screen {mounted}"
        f" cards, {first_requests} scalars requests, drawn in"
        f" {first_screen:.1f} s; the other {total - mounted} on scrolling"
        f" in {rest:.1f} s; a step table of {_WIDE_RUNS} runs in"
        f" {pick * 1000:.0f} ms"
    )
    tb_page.assert_no_errors()
