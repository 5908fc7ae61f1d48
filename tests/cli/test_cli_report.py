"""`tbmf report`: the Markdown card line by line, the HTML page in Chromium
(no console error, no request, drawn values equal to the `scalars` route),
and hostile run and tag names in both."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from tests.cli.conftest import Routes, assert_usage_error, tbmf, write_run
from tests.e2e.conftest import new_browser_page

pytestmark = pytest.mark.e2e

HOSTILE_RUN = "evil<script>window.__pwned=1</script>'\"`|\nrun"
HOSTILE_TAG = 'loss<img src=x onerror="window.__pwned=2">|`x`\nnext'

# Every drawn line of a report chart: uPlot's joined x column filtered to
# the rows where the line has a value.
READ_CHARTS = """
() => [...document.querySelectorAll('.chart')].map((el) => {
  const r = el.tbmfReport;
  if (!r) return {id: el.id, lines: null};
  const u = r.uplot, xs = u.data[0];
  return {id: el.id, lines: r.lines.map((key, i) => {
    const x = [], y = [];
    u.data[i + 1].forEach((v, j) => {
      if (v !== null && v !== undefined) { x.push(xs[j]); y.push(v); }
    });
    return {key, x, y};
  })};
})
"""


def _cells(row: str) -> list[str]:
    """A GFM table row's cells: split at pipes that are not escaped."""
    assert row.startswith("| ") and row.endswith(" |"), row
    return [c.strip() for c in re.split(r"(?<!\\)\|", row[1:-1])]


def _expected_verdict(item: dict, tolerance: float) -> str:
    base, cand = item["last"]["baseline"], item["last"]["candidate"]
    delta = cand - base
    size = abs(delta / base) if base else abs(delta)
    if size <= tolerance:
        return "✅"
    if item["direction"] is None:
        return "⚠️"
    better = delta < 0 if item["direction"] == "min" else delta > 0
    return "✅" if better else "❌"


def test_markdown_card_line_by_line(demo_logdir, tmp_path) -> None:
    args = ("-a", "pytorch_sgd", "-b", "keras_fit", "--x", "epoch")
    data = tbmf(
        "diff",
        demo_logdir,
        "pytorch_sgd",
        "keras_fit",
        "--x",
        "epoch",
        "--json",
    ).json()
    card = tmp_path / "card.md"
    result = tbmf("report", demo_logdir, *args, "--out", str(card))
    assert result.code == 0, result.err
    lines = card.read_text().split("\n")
    assert lines[0] == (
        "#### Training parity: `keras_fit` vs baseline `pytorch_sgd`"
    )
    assert lines[1] == ""
    assert _cells(lines[2]) == [
        "",
        "metric",
        "baseline (last)",
        "candidate",
        "change",
    ]
    assert lines[3] == "|:-:|:--|--:|--:|--:|"
    rows = lines[4 : 4 + len(data["metrics"])]
    assert len(data["metrics"]) >= 5
    for row, item in zip(rows, data["metrics"]):
        verdict, metric, base, cand, change = _cells(row)
        assert verdict == _expected_verdict(item, 0.05), (row, item)
        arrow = {"min": " ↓", "max": " ↑", None: ""}[item["direction"]]
        # Unlike series (a level unknown, another aggregation) are named
        # after it (tests/cli/test_cli_report_levels.py checks the words).
        assert metric.split(" — ")[0] == f"`{item['metric']}`{arrow}"
        assert float(base) == pytest.approx(item["last"]["baseline"], rel=1e-4)
        assert float(cand) == pytest.approx(item["last"]["candidate"], rel=1e-4)
        delta, pct = re.fullmatch(r"([+−]\S+) \(([+−]\S+)%\)", change).groups()
        assert float(delta.replace("−", "-")) == pytest.approx(
            item["last"]["delta"], rel=1e-4, abs=1e-12
        )
        assert float(pct.replace("−", "-")) == pytest.approx(
            100 * item["last"]["relative"], abs=0.06
        )
    after = lines[4 + len(rows) :]
    # the speed section (tests/cli/test_cli_speed.py checks its numbers)
    assert after[1].startswith("**Speed** (derived from wall time; ")
    assert _cells(after[3]) == ["", "figure", "baseline", "candidate", "change"]
    speed_rows = []
    for line in after[5:]:
        if not line.startswith("| "):
            break
        speed_rows.append(_cells(line))
    assert [r[1].rsplit(" (", 1)[1] for r in speed_rows][:2] == [
        "`time/step`) ↓",
        "`throughput/steps_per_s`) ↑",
    ]
    after = after[5 + len(speed_rows) :]
    assert after[:3] == ["", "Config: no hyper-parameters logged.", ""]
    after = after[2:]
    counts = {
        s: sum(_expected_verdict(i, 0.05) == s for i in data["metrics"])
        + sum(r[0] == s for r in speed_rows)
        for s in ("✅", "❌", "⚠️")
    }
    summary = " · ".join(f"{s} {n}" for s, n in counts.items() if n)
    assert after[1].startswith(summary + " — last values; ✅ within ±5%")
    assert after[3].startswith("<sub>tbmf ") and "x epoch" in after[3]
    assert after[4:] == [""]
    # a tighter tolerance turns the small val/loss change into a verdict
    strict = tbmf(
        "report",
        demo_logdir,
        *args,
        "--metric",
        "loss/val",
        "--tolerance",
        "0.0001",
        "--out",
        "-",
        "--format",
        "md",
    )
    (row,) = [r for r in strict.out.split("\n") if "loss/val@epoch" in r]
    assert _cells(row)[0] == "✅"  # the candidate's val loss is lower: better


def test_markdown_config_diff(demo_logdir, demo_routes) -> None:
    a, b = "seeds/keras_seed0", "seeds/pytorch_seed1"
    diff = demo_routes.get("config_diff", run=[a, b])
    assert (
        tbmf(
            "diff", demo_logdir, a, b, "--metric", "loss/val", "--json"
        ).json()["configDiff"]
        == diff
    )
    card = tbmf(
        "report",
        demo_logdir,
        "-a",
        a,
        "-b",
        b,
        "--metric",
        "loss/val",
        "--out",
        "-",
        "--format",
        "md",
    ).out.split("\n")
    start = card.index("<tr><th>key</th><th>baseline</th><th>candidate</th></tr>")
    differing = [k for k in diff["keys"] if k["differs"]]
    assert len(differing) >= 2
    assert card[start - 2] == (
        f"<details><summary>Config: {len(differing)} of {len(diff['keys'])}"
        f" keys differ (config {diff['configHashes'][a]} → "
        f"{diff['configHashes'][b]})</summary>"
    )
    assert card[start - 1] == "<table>"
    rows = card[start + 1 : start + 1 + len(differing)]
    assert [_html_cells(r) for r in rows] == [
        [k["key"], str(k["values"][a]), str(k["values"][b])] for k in differing
    ]
    end = start + 1 + len(differing)
    assert card[end : end + 2] == ["</table>", "</details>"]


def _html_cells(row: str) -> list[str]:
    """The text of each <td> of one HTML table row (html.parser decodes)."""
    from html.parser import HTMLParser

    cells: list[str] = []

    class Cells(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "td":
                cells.append("")

        def handle_data(self, data):
            if cells:
                cells[-1] += data

    Cells(convert_charrefs=True).feed(row)
    return cells


def test_markdown_config_block_escapes_html(tmp_path) -> None:
    """Issue 20, point 10: a `<script>` in a hyper-parameter value ran in
    Markdown renderers that pass raw HTML (Python-Markdown keeps a
    `<details>` block as it is)."""
    from html.parser import HTMLParser

    import markdown  # TensorBoard's own dependency

    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    for run, lr in (("a", hostile), ("b", 0.1)):
        write_run(tmp_path, run, {"loss/val": [(s, 1.0 / (1 + s)) for s in range(5)]})
        (tmp_path / run / "config.json").write_text(json.dumps({"lr": lr}))
    card = tbmf(
        "report", str(tmp_path), "-a", "a", "-b", "b", "--out", "-",
        "--format", "md",
    ).out
    assert "lr" in card
    rendered = markdown.markdown(card, extensions=["tables"])
    tags, text = [], []

    class Scan(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append(tag)

        def handle_data(self, data):
            text.append(data)

    Scan(convert_charrefs=True).feed(rendered)
    assert "script" not in tags and "img" not in tags
    assert hostile in "".join(text)


@pytest.fixture(scope="module")
def hostile_logdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    curve = [(s, 1.0 / (1 + s)) for s in range(40)]
    write_run(root, HOSTILE_RUN, {HOSTILE_TAG: curve})
    write_run(root, "plain", {HOSTILE_TAG: [(s, v * 1.1) for s, v in curve]})
    return root


def test_markdown_escapes_hostile_names(hostile_logdir) -> None:
    result = tbmf(
        "report",
        str(hostile_logdir),
        "-a",
        HOSTILE_RUN,
        "-b",
        "plain",
        "--out",
        "-",
        "--format",
        "md",
    )
    assert result.code == 0, result.err
    lines = result.out.split("\n")
    # the run's backtick gets a longer fence, its pipe is escaped and its
    # newline shown as \n: the heading stays one line
    assert lines[0] == (
        "#### Training parity: `plain` vs baseline "
        "``evil<script>window.__pwned=1</script>'\"`\\|\\nrun``"
    )
    (row,) = [line for line in lines if line.startswith("| ❌")]
    cells = _cells(row)
    assert len(cells) == 5  # no pipe in a name split a cell
    # the metric name: canonical (spaces and the newline became _), inert
    metric, _, compared = cells[1].partition(" — ")
    assert metric == (
        '``loss<img_src=x_onerror="window.__pwned=2">\\|`x`_next`` ↓'
    )
    # Of unknown level, the row says which series it compared: the raw tag,
    # fenced and escaped the same way (no newline, no bare pipe).
    tag = '``loss<img src=x onerror="window.__pwned=2">\\|`x`\\nnext``'
    assert compared == (
        f"{tag} aggregation unknown, level unknown vs "
        f"{tag} aggregation unknown, level unknown"
    )


def _open_page(browser, path: Path):
    """A page on the report; its console errors and requests are recorded."""
    recorded = new_browser_page(browser)
    requests: list[str] = []
    recorded.page.on("request", lambda r: requests.append(r.url))
    recorded.page.goto(path.as_uri())
    recorded.page.wait_for_selector("body[data-ready='1']", timeout=30_000)
    return recorded.context, recorded.page, recorded.errors, requests


def _finite(values) -> list[float | None]:
    return [v if isinstance(v, (int, float)) else None for v in values]


@pytest.mark.parametrize("smoothing", ["0", "0.6"])
def test_html_draws_the_routes_values(
    demo_logdir, demo_routes, tmp_path, browser, smoothing
) -> None:
    page_file = tmp_path / "report.html"
    result = tbmf(
        "report",
        demo_logdir,
        "-a",
        "pytorch_sgd",
        "-b",
        "keras_fit",
        "--x",
        "epoch",
        "--smoothing",
        smoothing,
        "--metric",
        "loss/val",
        "--metric",
        "loss/train@batch",
        "--out",
        str(page_file),
    )
    assert result.code == 0, result.err
    text = page_file.read_text()
    assert "<script src" not in text and "<link" not in text
    context, page, errors, requests = _open_page(browser, page_file)
    try:
        charts = {c["id"]: c["lines"] for c in page.evaluate(READ_CHARTS)}
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    finally:
        context.close()
    assert errors == []
    assert all(url.startswith("file:") for url in requests), requests
    field = "smoothed" if float(smoothing) else "y"
    for i, (metric, base, cand) in enumerate(
        [
            (
                "loss/val@epoch",
                ("pytorch_sgd", "Loss/val"),
                ("keras_fit/validation", "epoch_loss"),
            ),
            (
                "loss/train@batch",
                ("pytorch_sgd", "Loss/train"),
                ("keras_fit/train", "batch_loss"),
            ),
        ]
    ):
        answer = demo_routes.get(
            "scalars",
            metric=metric,
            run=[base[0], cand[0]],
            x="epoch",
            smoothing=smoothing,
            baseline=base[0],
            points=2000,
        )
        series = {(s["run"], s["tag"]): s for s in answer["series"]}
        drawn = {line["key"]: line for line in charts[f"m{i}-curves"]}
        for role, key in (("baseline", base), ("candidate", cand)):
            want = series[key]
            line = drawn[
                f"{role}:smoothed" if float(smoothing) else f"{role}:raw"
            ]
            pairs = [
                (x, y)
                for x, y in zip(want["x"], _finite(want[field]))
                if y is not None
            ]
            assert list(zip(line["x"], line["y"])) == pairs
            assert len(pairs) > 5
        (diff,) = [d for d in answer["diffs"] if (d["run"], d["tag"]) == cand]
        (line,) = charts[f"m{i}-diff"]
        pairs = [
            (x, y)
            for x, y in zip(diff["x"], _finite(diff[field]))
            if y is not None and math.isfinite(y)
        ]
        assert list(zip(line["x"], line["y"])) == pairs


def test_html_with_hostile_names(hostile_logdir, tmp_path, browser) -> None:
    page_file = tmp_path / "hostile.html"
    result = tbmf(
        "report",
        str(hostile_logdir),
        "-a",
        HOSTILE_RUN,
        "-b",
        "plain",
        "--out",
        str(page_file),
    )
    assert result.code == 0, result.err
    context, page, errors, requests = _open_page(browser, page_file)
    try:
        pwned = page.evaluate("() => window.__pwned ?? null")
        heading = page.inner_text("h1")
        cells = page.eval_on_selector_all(
            "td.name", "tds => tds.map(td => td.textContent)"
        )
        legends = page.eval_on_selector_all(
            ".u-legend .u-label", "els => els.map(e => e.textContent)"
        )
        images = page.eval_on_selector_all("img", "els => els.length")
    finally:
        context.close()
    assert pwned is None and images == 0
    assert errors == []
    assert all(url.startswith("file:") for url in requests), requests
    shown_run = HOSTILE_RUN.replace("\n", "\\n")
    assert heading == f"Training parity: plain vs baseline {shown_run}"
    assert shown_run in cells
    assert HOSTILE_TAG.replace("\n", "\\n") in cells
    assert f"baseline: {HOSTILE_RUN} ({HOSTILE_TAG})" in legends


def test_report_usage_errors(demo_logdir, tmp_path) -> None:
    assert_usage_error(
        tbmf(
            "report",
            demo_logdir,
            "-a",
            "pytorch_sgd",
            "-b",
            "keras_fit",
            "--out",
            str(tmp_path / "x.txt"),
        ),
        "end it in .md or .html",
    )
    assert_usage_error(
        tbmf(
            "report",
            demo_logdir,
            "-a",
            "pytorch_sgd",
            "-b",
            "keras_fit",
            "--out",
            str(tmp_path / "x.md"),
            "--points",
            "0",
        ),
        "--points",
    )
    assert not (tmp_path / "x.md").exists()


def test_routes_see_the_hostile_runs(hostile_logdir) -> None:
    runs = [r["run"] for r in Routes(str(hostile_logdir)).get("runs")["runs"]]
    assert runs == sorted([HOSTILE_RUN, "plain"])
