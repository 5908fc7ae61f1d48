"""Every view of the tab, and the shell, in Simplified Chinese.

A real TensorBoard over demo_logs/ and a real Chromium whose language is
zh-CN: the tab picks Chinese from `navigator.languages`, every text the
user reads in the Histograms, Layouts, Compare and Runs views is from the
zh-CN catalog (no English word is left, run and tag names, framework and
distance names aside), server-made texts (warnings, evidence, anomaly
messages) included, and nothing labelled overflows its box (CJK glyphs
are wider) at 1000×700 in the light and the dark theme. Screenshots:
docs/screenshots/zh-CN/.

Not drawn here: the reason layouts cannot be saved (a read-only logdir;
its message ids are checked in tests/i18n/test_server_messages.py).
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import Frame

from tb_multiframework import i18n
from tests.e2e.conftest import plugin_frame

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "docs" / "screenshots" / "zh-CN"
ZH = json.loads(
    (REPO / "tb_multiframework/i18n/catalogs/zh-CN.json").read_text("utf-8")
)
VIEWPORT = {"width": 1000, "height": 700}
_TIMEOUT_MS = 30_000
# Latin words a Chinese UI keeps: product, framework and method names,
# API names a hint quotes, units and symbols.
KEPT = {
    "tensorboard",
    "pytorch",
    "tensorflow",
    "keras",
    "paddle",
    "paddlepaddle",
    "visualdl",
    "tensorboardx",
    "wasserstein",
    "jensen",
    "shannon",
    "kolmogorov",
    "smirnov",
    "summarywriter",
    "add_histogram",
    "summary",
    "histogram",
    "histogram_freq",
    "add_custom_scalars",
    "custom_scalar",
    "loss",
    "ema",
    "kib",
    "json",
    "ctrl",
    "english",
    "std",
    "mean",
    "max",
    "min",
    "nan",
    "inf",
    "python",
    "csv",
    "esc",
    "png",
    "markdown",
    "tfevents",
    "vdlrecords",
    "optimizer",
    "adam",
    "ddp",
    "rank",
    "lightning",
    "transformers",
    "hapi",
    "mmengine",
    "hparams",
    "yaml",
    "stepsperepoch",
    "epochbase",
    "sessionlog",
    "purge_step",
    "add_hparams",
    "add_scalars",
    "visualizer",
    "tensorboardlogger",
    "version_n",
    "trainingarguments",
    "tbmf_config",
    "trainer",
    "eval",
    "torch",
    "args",
    "amp",
    "derived",
}
# Names the tab shows as they are (products, trainers).
NAMES_KEPT = ["HF Trainer", "Keras fit", "Paddle hapi", "Lightning"]

# Collects what the user reads in the shell and the view: text nodes and
# the title / aria-label / placeholder / label attributes. Run, tag and
# metric names are blanked out before the words are counted.
_COLLECT = r"""
([names]) => {
  const root = document.querySelector('.tbmf-app');
  const skip = (el) => el.closest('.tbmf-lay-path, code, pre, .tbmf-toast');
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && style.visibility !== 'hidden';
  };
  const texts = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || skip(el) || el.closest('select')) continue;
    if (node.textContent.trim() && visible(el)) {
      texts.push(node.textContent);
    }
  }
  for (const el of root.querySelectorAll(
      '[title], [aria-label], [placeholder], optgroup[label]')) {
    if (skip(el) || !visible(el)) continue;
    for (const name of ['title', 'aria-label', 'placeholder', 'label']) {
      const value = el.getAttribute(name);
      if (value && !(el.tagName === 'OPTION')) texts.push(value);
    }
  }
  const sorted = [...names].sort((a, b) => b.length - a.length);
  const english = [];
  for (const text of texts) {
    // Dotted identifiers are code (re.match, tf.summary.histogram), and so
    // are config paths, paths, snake_case and camelCase names
    // (runs[<run>].trainer, train/<metric>, epoch_*, stepsPerEpoch).
    // Quoted words are names too ('Train', the server's evidence quotes).
    let rest = text.replace(/'[^'\n]*'/g, ' ')
      .replace(/\w+\[[^\]]*\](\.\w+)*/g, ' ')
      .replace(/\w+(\.\w+)+/g, ' ')
      .replace(/[\w*<>.@-]*\/[\w*<>.@/-]*/g, ' ')
      .replace(/\w*_\w*/g, ' ')
      .replace(/\b[a-z]+[A-Z]\w*/g, ' ');
    for (const name of sorted) rest = rest.split(name).join(' ');
    const words = rest.match(/[A-Za-z][A-Za-z_]{2,}/g) || [];
    if (words.length) english.push([text, words]);
  }
  return english;
}
"""

# Labelled elements whose text does not fit their box. Names (run, tag,
# layout) may be cut with an ellipsis by design; labels may not.
_OVERFLOW = """
([names]) => {
  const named = new Set(names);
  const selector = [
    'button', 'label', 'h2', 'h3', 'th', 'legend', 'summary',
    '.tbmf-tab', '.tbmf-seg-group__label', '.tbmf-cmp-toolbar__label',
    '.tbmf-hist-heading', '.tbmf-hist-field__label', '.tbmf-hist-pill',
    '.tbmf-lay-action', '.tbmf-lay-badge', '.tbmf-lay-editor__mode',
  ].join(',');
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const text = el.textContent.trim();
    if (!text || named.has(text)) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      out.push([text.slice(0, 60), el.scrollWidth, el.clientWidth]);
    }
  }
  return out;
}
"""


def _names(server) -> list[str]:
    """Run, tag, metric and layout names: the user's, never translated."""
    runs = server.get_json("runs?tags=all")["runs"]
    names = set()
    for run in runs:
        names.add(run["run"])
        names.update(run.get("scalarTags", []))
        names.update(run.get("histogramTags", []))
        names.add(run.get("framework") or "")
        names.add(run.get("writer") or "")
    metrics = server.get_json("metrics")
    for metric in metrics.get("metrics", []):
        names.add(metric.get("key") or "")
        names.add(metric.get("name") or "")
    layouts = server.get_json("layouts")
    if layouts.get("imported"):
        names.add(layouts["imported"]["name"])
        for category in layouts["imported"]["categories"]:
            names.add(category["title"])
            for chart in category["charts"]:
                names.add(chart["title"])
    for run in runs:
        names.add(run.get("group") or "")
        names.update(run["run"].split("/"))
        names.update(run.get("files", []))
        names.update(run.get("hparams", {}))
        names.update(str(v) for v in run.get("hparams", {}).values())
    names.update(NAMES_KEPT)
    # Shorter names are no word to count, and would cut words ("no" out
    # of "Smirnov").
    return sorted(n for n in names if len(n) > 2)


def _url(server, state: dict[str, str], *, dark: bool) -> str:
    query = "?darkMode=true" if dark else ""
    fragment = "&".join(
        f"{urllib.parse.quote(k, safe='')}={urllib.parse.quote(v, safe='')}"
        for k, v in state.items()
    )
    return server.url(f"{query}#tb_multiframework&{fragment}")


def _open(new_page, server, state, *, dark: bool, locale: str = "zh-CN"):
    recorded = new_page(
        viewport=VIEWPORT,
        locale=locale,
        color_scheme="dark" if dark else "light",
    )
    recorded.page.goto(_url(server, state, dark=dark))
    return recorded, plugin_frame(recorded)


def test_a_cjk_font_is_installed():
    """Without one Chromium draws tofu boxes: the widths measured below and
    the screenshots would mean nothing (scripts/test.sh installs one)."""
    out = subprocess.run(
        ["fc-list", ":lang=zh"], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip(), "no CJK font: apt-get install fonts-wqy-microhei"


def _assert_chinese(frame: Frame, names: list[str], where: str) -> None:
    english = frame.evaluate(_COLLECT, [names])
    left = [
        (text, words)
        for text, words in english
        if any(w.lower() not in KEPT for w in words)
    ]
    assert not left, f"{where}: English left in the UI:\n" + "\n".join(
        f"  {text!r}: {words}" for text, words in left
    )
    overflow = frame.evaluate(_OVERFLOW, [names])
    assert not overflow, f"{where}: labels overflow their box: {overflow}"


def _shot(recorded, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    recorded.page.screenshot(path=str(SHOTS / name))


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_histograms_view_in_chinese(tb_server, new_page, dark):
    server = tb_server()
    recorded, frame = _open(
        new_page, server, {"tbmf.view": "histograms"}, dark=dark
    )
    frame.wait_for_function(
        """() => {
          const root = document.querySelector('.tbmf-hist');
          const t = document.querySelector('[data-role="distances"]');
          return root && root.dataset.status === 'ready' && t
            && t.dataset.at !== undefined;
        }""",
        timeout=_TIMEOUT_MS,
    )
    assert frame.evaluate("document.documentElement.lang") == "zh-CN"
    assert (
        frame.inner_text('.tbmf-tab[data-view="histograms"]')
        == ZH["shell.tab.histograms"]
    )
    assert ZH["hist.distances.title"] in frame.inner_text(".tbmf-main")
    _assert_chinese(frame, _names(server), "histograms")
    _shot(recorded, f"histograms_{'dark' if dark else 'light'}.png")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_layouts_dashboard_and_editor_in_chinese(tb_server, new_page, dark):
    server = tb_server()
    theme = "dark" if dark else "light"
    recorded, frame = _open(
        new_page, server, {"tbmf.view": "layouts", "tbmf.li": "1"}, dark=dark
    )
    frame.wait_for_selector(".tbmf-lay-list .tbmf-lay-item")
    frame.wait_for_selector(
        '.tbmf-lay-chart .tbmf-cmp-panel[data-state="ready"]',
        timeout=_TIMEOUT_MS,
    )
    names = _names(server)
    assert ZH["layouts.toolbar.expandAll"] in frame.inner_text(".tbmf-main")
    _assert_chinese(frame, names, "layouts dashboard")
    _shot(recorded, f"layouts_dashboard_{theme}.png")

    # A new layout in the editor, with a category and a chart card.
    frame.click('[data-action="new-layout"]')
    frame.wait_for_selector(".tbmf-lay-editor")
    frame.click('[data-action="add-category"]')
    frame.click('[data-action="add-chart"]')
    frame.wait_for_selector(".tbmf-lay-echart")
    frame.wait_for_function(
        "() => !document.querySelector('.tbmf-lay-editor.is-previewing')"
    )
    names = [*names, ZH["layouts.untitled"]]
    _assert_chinese(frame, names, "layouts editor")
    _shot(recorded, f"layouts_editor_{theme}.png")


def test_language_switch_is_kept_in_the_link_and_storage(tb_server, new_page):
    server = tb_server()
    # An English browser: English first.
    recorded, frame = _open(
        new_page,
        server,
        {"tbmf.view": "histograms"},
        dark=False,
        locale="en-US",
    )
    tab = '.tbmf-tab[data-view="histograms"]'
    assert frame.inner_text(tab) == "Histograms"
    frame.select_option(".tbmf-lang-select", "zh-CN")
    frame.wait_for_function(
        "([tab, text]) => document.querySelector(tab)?.textContent === text",
        arg=[tab, ZH["shell.tab.histograms"]],
    )
    assert "tbmf.lang=zh-CN" in recorded.page.url
    assert frame.evaluate("localStorage.getItem('tbmf.pref.lang')") == "zh-CN"
    # The view was drawn again in Chinese.
    frame.wait_for_selector(
        f'text="{ZH["hist.distances.title"]}"', timeout=_TIMEOUT_MS
    )
    # A bare link in the same browser: the stored choice.
    recorded.page.goto(server.url("#tb_multiframework"))
    frame = plugin_frame(recorded)
    assert frame.inner_text(tab) == ZH["shell.tab.histograms"]
    # A link that names English wins over the stored choice.
    recorded.page.goto(
        _url(server, {"tbmf.view": "histograms", "tbmf.lang": "en"}, dark=False)
    )
    frame = plugin_frame(recorded)
    assert frame.inner_text(tab) == "Histograms"
    assert frame.evaluate("document.documentElement.lang") == "en"


def test_numbers_times_and_durations_follow_the_language(tb_server, new_page):
    """intl.js in the running tab: Intl's forms for the tab's language."""
    server = tb_server()
    results = {}
    for locale in ("zh-CN", "en-US"):
        recorded, frame = _open(
            new_page,
            server,
            {"tbmf.view": "histograms"},
            dark=False,
            locale=locale,
        )
        results[locale] = frame.evaluate(
            """async () => {
              const m = await import(
                new URL("static/intl.js", document.baseURI).href);
              return [m.formatDurationIntl(192), m.formatDurationIntl(0.25),
                      m.formatDurationIntl(3 * 3600 + 240),
                      m.formatInteger(1234567),
                      m.formatTimeOfDay(Date.UTC(2026, 0, 2, 3, 4, 5))];
            }"""
        )
    zh, en = results["zh-CN"], results["en-US"]
    assert zh[:4] == ["3分钟12秒", "250毫秒", "3小时4分钟", "1,234,567"]
    assert en[:4] == ["3 min 12 sec", "250 ms", "3 hr 4 min", "1,234,567"]
    # Hours, minutes and seconds of the browser's local time, two digits.
    assert re.fullmatch(r"\d\d:04:05", zh[4]) and zh[4] == en[4]


def _open_details(frame: Frame, run: str) -> None:
    """Opens a run's detail row and every evidence list in it."""
    frame.click(f'tr.tbmf-run-row[data-run="{run}"] .tbmf-col-expand button')
    frame.wait_for_selector(
        f'tr.tbmf-detail-row[data-run="{run}"] section.tbmf-infer'
    )
    frame.evaluate(
        """(run) => {
          const row = document.querySelector(
            `tr.tbmf-detail-row[data-run="${run}"]`);
          for (const d of row.querySelectorAll('details')) d.open = true;
        }""",
        run,
    )


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_runs_view_with_details_and_config_diff_in_chinese(
    tb_server, new_page, dark
):
    server = tb_server()
    theme = "dark" if dark else "light"
    runs = ["pytorch_resumed", "pytorch_sgd", "paddle_vdl", "lightning_mlp"]
    recorded, frame = _open(
        new_page,
        server,
        {"tbmf.view": "runs", "tbmf.sel": ",".join(runs), "tbmf.rd": "1"},
        dark=dark,
    )
    frame.wait_for_selector("tr.tbmf-run-row")
    frame.wait_for_selector('.tbmf-config-diff[data-state="ready"]')
    names = _names(server)
    assert ZH["runs.diff"] in frame.inner_text(".tbmf-config-diff")
    _assert_chinese(frame, names, "runs table and config diff")
    _shot(recorded, f"runs_{theme}.png")

    # A resumed run: attempts, warnings, inferences with their evidence.
    _open_details(frame, "pytorch_resumed")
    detail = frame.inner_text('tr.tbmf-detail-row[data-run="pytorch_resumed"]')
    assert ZH["runs.infer.title"] in detail
    assert ZH["runs.detail.why"] in detail
    # Server-made texts from their ids, in Chinese: a warning, the resume's
    # evidence, the framework's evidence.
    run = next(
        r
        for r in server.get_json("runs")["runs"]
        if r["run"] == "pytorch_resumed"
    )
    messages = [
        run["warningMessages"][0],
        run["inferences"]["resume"]["evidenceMessages"][0],
        run["evidenceMessages"][0],
    ]
    for message in messages:
        text = i18n.t(message["id"], message["params"], lang="zh-CN")
        assert text in detail, text
    _assert_chinese(frame, names, "runs detail row")
    frame.locator(
        'tr.tbmf-detail-row[data-run="pytorch_resumed"] section.tbmf-infer'
    ).scroll_into_view_if_needed()
    _shot(recorded, f"runs_details_{theme}.png")
    # A run whose trainer and epoch axis are unknown: the reasons.
    _open_details(frame, "pytorch_sgd")
    unknown = frame.inner_text('tr.tbmf-detail-row[data-run="pytorch_sgd"]')
    assert ZH["runs.infer.status.unknown"] in unknown
    _assert_chinese(frame, names, "runs detail row (unknowns)")


def _finding(server) -> dict:
    """A finding of the demo's anomalies on a run that has no warnings
    (its chart is drawn on the step axis)."""
    found = server.get_json("anomalies")["anomalies"]
    assert found, "the demo has anomalies"
    return found[0]


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_compare_view_with_baseline_and_anomaly_card_in_chinese(
    tb_server, new_page, dark
):
    server = tb_server()
    theme = "dark" if dark else "light"
    finding = _finding(server)
    runs = sorted({finding["run"], "pytorch_sgd", "paddle_vdl"})
    baseline = next(r for r in runs if r != finding["run"])
    recorded, frame = _open(
        new_page,
        server,
        {
            "tbmf.view": "compare",
            "tbmf.sel": ",".join(runs),
            "tbmf.ct": finding["tag"],
            "tbmf.cb": baseline,
            "tbmf.cmk": "all",
        },
        dark=dark,
    )
    frame.wait_for_selector(
        '.tbmf-cmp-panel[data-state="ready"]', timeout=_TIMEOUT_MS
    )
    frame.wait_for_selector(".tbmf-anomaly-chip", timeout=_TIMEOUT_MS)
    names = _names(server)
    _assert_chinese(frame, names, "compare with a baseline")
    frame.locator(".tbmf-anomaly-chip").first.click(force=True)
    card = frame.locator(".tbmf-anomaly-card").first
    card.wait_for(state="visible")
    text = card.inner_text()
    assert ZH["anomaly.card.cause"].split("{")[0] in text
    # The message is the catalog's Chinese, made from the finding's id.
    assert not re.search(
        r"[A-Za-z]{4,}",
        re.sub(r"'[^']*'", "", text)
        .replace(finding["run"], "")
        .replace(finding["tag"], ""),
    ), text
    _assert_chinese(frame, names, "compare anomaly card")
    _shot(recorded, f"compare_baseline_anomaly_{theme}.png")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_compare_view_grouped_in_chinese(tb_server, new_page, dark):
    server = tb_server()
    theme = "dark" if dark else "light"
    metric = "loss/train@batch"
    entry = next(
        m for m in server.get_json("metrics")["metrics"] if m["key"] == metric
    )
    # The runs that have the metric (the others would bring the scalars
    # route's reasons, which have no message ids).
    runs = sorted({m["run"] for m in entry["members"]})
    recorded, frame = _open(
        new_page,
        server,
        {
            "tbmf.view": "compare",
            "tbmf.sel": ",".join(runs),
            "tbmf.cm": metric,
            "tbmf.cg": "framework",
            "tbmf.cmb": "1",
            "tbmf.cbg": "pytorch",
        },
        dark=dark,
    )
    frame.wait_for_selector(
        '.tbmf-cmp-panel[data-state="ready"]', timeout=_TIMEOUT_MS
    )
    frame.wait_for_selector(".tbmf-chart__legend-item")
    text = frame.inner_text(".tbmf-main")
    assert ZH["cmp.groups"] in text
    _assert_chinese(frame, _names(server), "compare grouped")
    _shot(recorded, f"compare_groups_{theme}.png")


def test_compare_notes_on_runs_it_cannot_draw_in_chinese(tb_server, new_page):
    """Every run on the epoch axis: the notes on runs without epochs and
    runs without the metric, with the server's reasons, in Chinese."""
    server = tb_server()
    recorded, frame = _open(
        new_page,
        server,
        {
            "tbmf.view": "compare",
            "tbmf.cm": "loss/val@epoch",
            "tbmf.cx": "epoch",
        },
        dark=False,
    )
    frame.wait_for_selector(
        '.tbmf-cmp-panel[data-state="ready"]', timeout=_TIMEOUT_MS
    )
    frame.wait_for_selector('.tbmf-cmp-notes__group[data-kind="missing"]')
    frame.evaluate(
        "() => document.querySelectorAll('.tbmf-cmp-notes details')"
        ".forEach((d) => { d.open = true; })"
    )
    notes = frame.inner_text(".tbmf-cmp-notes")
    assert ZH["evidence.epoch.noInfo"].split("：")[0] in notes
    _assert_chinese(frame, _names(server), "compare notes")
    _shot(recorded, "compare_notes_light.png")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_metrics_view_in_chinese(tb_server, new_page, dark):
    """The Metrics view's own parts (toolbar, cards' buttons, the step
    table); the charts inside the cards are the Compare panel's."""
    server = tb_server()
    cards = json.dumps({"loss/train@batch": {"x": 250}})
    recorded, frame = _open(
        new_page,
        server,
        {
            "tbmf.view": "metrics",
            "tbmf.cx": "step",
            "tbmf.sel": "keras_fit/train,pytorch_sgd",
            "tbmf.cb": "pytorch_sgd",
            "tbmf.mp": "loss/train@batch",
            "tbmf.mc": cards,
        },
        dark=dark,
    )
    frame.wait_for_selector(
        '.tbmf-met-card .tbmf-met-table[data-state="ready"]',
        timeout=_TIMEOUT_MS,
    )
    assert (
        frame.inner_text('.tbmf-tab[data-view="metrics"]')
        == ZH["shell.tab.metrics"]
    )
    assert ZH["metrics.table.copy"] in frame.inner_text(".tbmf-main")
    _assert_chinese(frame, _names(server), "metrics")
    _shot(recorded, f"metrics_{'dark' if dark else 'light'}.png")
