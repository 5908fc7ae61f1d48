"""The HTML page of `tbmf report`: one file, no network, opens from disk.

The vendored uPlot (the tab's chart library) and its CSS are inlined. Text
from the logs reaches the page only through `html.escape` (tables,
headings) or as JSON data in a `<script type="application/json">` block
with `<`, `>` and `&` written as `\\u003c`, `\\u003e`, `\\u0026` (so no name can
close the block), which the chart script reads with `JSON.parse` and hands
to uPlot, which writes labels with `textContent`.
"""

from __future__ import annotations

import html
import json
import os
from typing import Any

from tb_multiframework.cli import common, selection
from tb_multiframework.cli.lang import language, tr
from tb_multiframework.cli.report import ReportData
from tb_multiframework.cli.report_md import ARROWS

_CHART_HEIGHT = 260  # CSS pixels

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px;
  padding: 16px 24px 48px; color: #1d2330; background: #fff; }
h1 { font-size: 20px; margin: 8px 0; } h2 { font-size: 16px; margin: 28px 0 6px; }
.meta, .note { color: #5b6270; margin: 4px 0; }
.run { font-family: ui-monospace, monospace; background: #eef1f6; padding: 0 4px;
  border-radius: 3px; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e2e5eb; text-align: left;
  vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.name { font-family: ui-monospace, monospace; overflow-wrap: anywhere; max-width: 360px; }
.metric { border-top: 1px solid #e2e5eb; margin-top: 24px; }
.chart { min-height: 40px; margin: 8px 0; }
.excluded { color: #a33; }
.v { white-space: nowrap; font-weight: 600; padding: 0 6px; border-radius: 3px; }
.v.pass { color: #1b6e2d; background: #e3f4e6; }
.v.fail { color: #a11d1d; background: #fbe4e4; }
.v.warn { color: #8a5a00; background: #fdf1d8; }
"""

_SCRIPT = """
const DATA = JSON.parse(document.getElementById("tbmf-data").textContent);
const COLORS = {baseline: "#1f6fd1", candidate: "#e8590c", diff: "#7048e8"};
// The server writes non-finite values as strings; they are gaps here.
const num = (v) => (typeof v === "number" ? v : null);

function draw(el, title, lines) {
  const table = uPlot.join(lines.map((l) => [l.x, l.y.map(num)]));
  const opts = {
    title,
    width: Math.max(el.clientWidth, 320),
    height: CHART_HEIGHT,
    cursor: {sync: {key: el.dataset.sync}},
    scales: {x: {time: false}},
    axes: [{label: DATA.axis}, {}],
    series: [
      {label: DATA.axis},
      ...lines.map((l) => ({
        label: l.label,
        stroke: l.color,
        width: l.width,
        spanGaps: true,
      })),
    ],
  };
  const u = new uPlot(opts, table, el);
  el.tbmfReport = {uplot: u, lines: lines.map((l) => l.key)};
}

for (const chart of DATA.charts) {
  if (chart.excluded) continue;
  const curves = document.getElementById(chart.id + "-curves");
  const lines = [];
  for (const s of chart.series) {
    const who = s.role + ": " + s.run + " (" + s.tag + ")";
    if (DATA.smoothing > 0) {
      lines.push({key: s.role + ":raw", label: who + " raw", x: s.x, y: s.y,
                  color: COLORS[s.role] + "55", width: 1});
      lines.push({key: s.role + ":smoothed", label: who, x: s.x,
                  y: s.smoothed, color: COLORS[s.role], width: 1.5});
    } else {
      lines.push({key: s.role + ":raw", label: who, x: s.x, y: s.y,
                  color: COLORS[s.role], width: 1.5});
    }
  }
  draw(curves, chart.metric, lines);
  if (chart.diff) {
    const d = chart.diff;
    const y = DATA.smoothing > 0 ? d.smoothed : d.y;
    draw(document.getElementById(chart.id + "-diff"),
         "candidate − baseline",
         [{key: "diff", label: "candidate − baseline", x: d.x, y,
           color: COLORS.diff, width: 1.5}]);
  }
}
document.body.dataset.ready = "1";
"""


def render(data: ReportData) -> str:
    """The whole page."""
    uplot_js, uplot_css = _uplot()
    title = tr(
        "report.html.title", candidate=data.candidate, baseline=data.baseline
    )
    charts = []
    for i, chart in enumerate(data.charts):
        charts.append(dict(chart, id=f"m{i}"))
    payload = {
        "axis": data.axis,
        "smoothing": data.smoothing,
        "charts": charts,
    }
    parts = [
        "<!doctype html>",
        f'<html lang="{language()}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{uplot_css}{_CSS}</style>",
        "</head><body>",
        _header(data),
        _summary(data),
        _config(data),
        *(
            _metric_section(item, charts[i], data)
            for i, item in enumerate(data.items)
        ),
        _runs(data),
        '<script type="application/json" id="tbmf-data">'
        + _script_json(payload)
        + "</script>",
        '<script type="module">',
        uplot_js,
        f"const CHART_HEIGHT = {_CHART_HEIGHT};",
        _SCRIPT,
        "</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _e(text: Any) -> str:
    return html.escape(common.printable(str(text)), quote=True)


def _script_json(payload: Any) -> str:
    text = json.dumps(common.json_ready(payload), allow_nan=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _uplot() -> tuple[str, str]:
    from tb_multiframework.wiring import static_dir  # noqa: PLC0415

    root = static_dir()
    if root is None:
        raise common.UsageError(
            "the frontend files (vendored uPlot) are not installed"
        )
    folder = os.path.join(root, "vendor", "uplot")
    with open(os.path.join(folder, "uPlot.esm.js"), encoding="utf-8") as f:
        js = f.read()
    with open(os.path.join(folder, "uPlot.min.css"), encoding="utf-8") as f:
        css = f.read()
    if "</script" in js.lower() or "<!--" in js or "</style" in css.lower():
        raise common.UsageError("the vendored uPlot cannot be inlined")
    return js, css


def _header(data: ReportData) -> str:
    smoothing = (
        tr(
            "report.html.smoothing",
            weight=f"{data.smoothing:g}",
            mode=data.smoothing_mode,
        )
        if data.smoothing
        else tr("report.html.noSmoothing")
    )
    title = tr(
        "report.html.title",
        candidate=f'<span class="run">{_e(data.candidate)}</span>',
        baseline=f'<span class="run">{_e(data.baseline)}</span>',
    )
    meta = tr(
        "report.html.meta",
        axis=_e(data.axis),
        smoothing=_e(smoothing),
        compare=_e(tr(f"report.compare.{data.compare}")),
        tolerance=f"{data.tolerance * 100:.4g}",
        logdir=_e(data.logdir),
        version=_e(data.version),
        generated=_e(data.generated),
    )
    return f'<header><h1>{title}</h1><p class="meta">{meta}</p></header>'


def _summary(data: ReportData) -> str:
    compare = tr(f"report.compare.{data.compare}")
    head = (
        f"<tr><th></th><th>{tr('report.col.metric')}</th><th></th>"
        f'<th class="num">{_e(tr("report.html.baselineOf", compare=compare))}</th>'
        f'<th class="num">{tr("report.col.candidate")}</th>'
        f'<th class="num">{tr("report.col.change")}</th>'
        f'<th class="num">{tr("report.html.meanAbs")}</th>'
        f'<th class="num">{tr("report.html.maxAbs")}</th>'
        f'<th class="num">{_e(tr("report.html.at", axis=data.axis))}</th></tr>'
    )
    rows = []
    for i, item in enumerate(data.items):
        values = item[data.compare]
        diff = item["diff"] or {}
        rows.append(
            "<tr>"
            f"<td>{_badge(item['verdict'])}</td>"
            f'<td class="name"><a href="#m{i}">{_e(item["metric"])}</a></td>'
            f"<td>{_e(ARROWS.get(item['direction'], '').strip())}</td>"
            f'<td class="num">{_e(common.format_value(values["baseline"]))}</td>'
            f'<td class="num">{_e(common.format_value(values["candidate"]))}</td>'
            f'<td class="num">{_e(_change(values))}</td>'
            f'<td class="num">{_e(common.format_value(diff.get("meanAbs")))}</td>'
            f'<td class="num">{_e(common.format_value(diff.get("maxAbs")))}</td>'
            f'<td class="num">{_e(common.format_value(diff.get("maxAt")))}</td>'
            "</tr>"
        )
    for item in data.one_sided:
        rows.append(
            f'<tr><td>{common.MISSING}</td><td class="name">'
            f"{_e(item['metric'])}</td>"
            f'<td colspan="7">{_e(tr("report.notIn", run=item["missing"]))}'
            "</td></tr>"
        )
    return (
        f"<section><h2>{tr('report.html.summary')}</h2>"
        f"<table>{head}{''.join(rows)}</table>"
        f'<p class="note">{tr("report.html.legend")}</p></section>'
    )


_BADGES = {"✅": ("pass", "✓"), "❌": ("fail", "✗"), "⚠️": ("warn", "⚠")}


def _badge(verdict: dict[str, str]) -> str:
    """A verdict as a coloured text badge (no emoji font needed)."""
    kind, mark = _BADGES[verdict["symbol"]]
    return f'<span class="v {kind}">{mark} {_e(verdict["reason"])}</span>'


def _config(data: ReportData) -> str:
    rows = selection.config_rows(data.config)
    head = (
        f"<section><h2>{tr('report.html.config')}</h2>"
        f'<p class="note">{_e(selection.config_summary(data.config))}</p>'
    )
    if not rows:
        return head + "</section>"
    body = "".join(
        f'<tr><td class="name">{_e(key)}</td><td class="name">{_e(base)}</td>'
        f'<td class="name">{_e(cand)}</td></tr>'
        for key, base, cand in rows
    )
    return (
        head + f"<table><tr><th>{tr('report.col.key')}</th>"
        f"<th>{tr('report.col.baseline')}</th>"
        f"<th>{tr('report.col.candidate')}</th>"
        f"</tr>{body}</table></section>"
    )


def _change(values: dict[str, Any]) -> str:
    if values["delta"] is None:
        return common.MISSING
    text = common.format_signed(values["delta"])
    if values["relative"] is not None:
        text += f" ({common.format_percent(values['relative'])})"
    return text


def _metric_section(
    item: dict[str, Any], chart: dict[str, Any], data: ReportData
) -> str:
    a, b = item["baseline"], item["candidate"]
    known = item["direction"] in ("min", "max")
    direction = tr(
        f"report.direction.{item['direction'] if known else 'unknown'}"
    )
    lines = [
        f'<section class="metric" id="{chart["id"]}">',
        f'<h2><span class="run">{_e(item["metric"])}</span> '
        f"{_e(direction)}</h2>",
        f"<table><tr><th></th><th>{tr('report.col.run')}</th>"
        f"<th>{tr('report.col.tag')}</th>"
        f'<th class="num">{tr("report.compare.last")}</th>'
        f'<th class="num">{tr("report.compare.best")}</th>'
        f'<th class="num">{tr("report.col.points")}</th></tr>',
    ]
    for role, side in (("baseline", a), ("candidate", b)):
        lines.append(
            f"<tr><td>{tr(f'report.col.{role}')}</td>"
            f'<td class="name">{_e(side["run"])}</td>'
            f'<td class="name">{_e(side["tag"])}</td>'
            f'<td class="num">{_e(common.format_value(side["last"]))}</td>'
            f'<td class="num">{_e(common.format_value(side["best"]))}</td>'
            f'<td class="num">{_e(common.format_int(side["count"]))}</td></tr>'
        )
    lines.append("</table>")
    if chart.get("excluded"):
        lines.append(f'<p class="excluded">{_e(chart["excluded"])}</p>')
    else:
        drawn = ", ".join(
            tr(
                "report.html.drawnOf",
                role=s["role"],
                returned=common.format_int(s["returned"]),
                total=common.format_int(s["total"]),
            )
            for s in chart["series"]
        )
        lines.append(
            f'<p class="note">{_e(tr("report.html.drawn", drawn=drawn))}</p>'
        )
        sync = f'data-sync="{chart["id"]}"'
        lines.append(
            f'<div class="chart" id="{chart["id"]}-curves" {sync}></div>'
        )
        if chart.get("diff"):
            lines.append(
                f'<div class="chart" id="{chart["id"]}-diff" {sync}></div>'
            )
    lines.append("</section>")
    return "\n".join(lines)


def _runs(data: ReportData) -> str:
    head = (
        f"<tr><th>{tr('report.col.run')}</th>"
        f"<th>{tr('report.col.framework')}</th>"
        f"<th>{tr('report.col.writer')}</th>"
        f'<th class="num">{tr("report.col.points")}</th>'
        f'<th class="num">{tr("report.col.steps")}</th>'
        f'<th class="num">{tr("report.col.duration")}</th>'
        f"<th>{tr('report.col.epochAxis')}</th>"
        f"<th>{tr('report.col.warnings')}</th></tr>"
    )
    rows = []
    for run in data.runs:
        duration = (
            None
            if run["startTime"] is None or run["endTime"] is None
            else run["endTime"] - run["startTime"]
        )
        warnings = "<br>".join(_e(w) for w in run["warnings"]) or ""
        rows.append(
            f'<tr><td class="name">{_e(run["run"])}</td>'
            f"<td>{_e(run['framework'])}</td><td>{_e(run['writer'])}</td>"
            f'<td class="num">{_e(common.format_int(run["numPoints"]))}</td>'
            f'<td class="num">{_e(run["firstStep"])}–{_e(run["lastStep"])}</td>'
            f'<td class="num">{_e(common.format_duration(duration))}</td>'
            f"<td>{_e(run['epochSource'])}</td><td>{warnings}</td></tr>"
        )
    return (
        f"<section><h2>{tr('report.html.runs')}</h2>"
        f"<table>{head}{''.join(rows)}</table></section>"
    )
