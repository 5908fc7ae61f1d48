"""The Markdown card of `tbmf report`: one table line per metric.

Every name from the logs goes into a code span (`md_code`), where nothing
is markup; a `|` cannot end the table cell and a newline cannot end the
row.
"""

from __future__ import annotations

import html
import re

from tb_multiframework.cli import common, selection, speed
from tb_multiframework.cli.lang import language, tr
from tb_multiframework.cli.report import ReportData

ARROWS = {"min": " ↓", "max": " ↑"}


def md_code(text: str) -> str:
    """A name from the logs as an inert code span for a table cell.

    Inside a code span nothing is markup (no emphasis, links, HTML or
    @mentions). The fence is one backtick longer than the longest run of
    backticks in the name; `|` is escaped because GitHub splits table cells
    before it parses spans; newlines and other control characters are shown
    as escapes (`\n`).
    """
    body = common.printable(str(text)).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * (longest + 1)
    if body.startswith("`") or body.endswith("`"):
        body = f" {body} "
    return f"{fence}{body}{fence}"


def render(data: ReportData) -> str:
    """The card, ending in a newline."""
    lines = [
        tr(
            "report.md.title",
            candidate=md_code(data.candidate),
            baseline=md_code(data.baseline),
        ),
        "",
        "| | "
        + " | ".join(
            [
                tr("report.col.metric"),
                tr("report.col.baselineOf", compare=_compare(data)),
                tr("report.col.candidate"),
                tr("report.col.change"),
            ]
        )
        + " |",
        "|:-:|:--|--:|--:|--:|",
    ]
    for item in data.items:
        values = item[data.compare]
        change = common.MISSING
        if values["delta"] is not None:
            change = common.format_signed(values["delta"])
            if values["relative"] is not None:
                change += f" ({common.format_percent(values['relative'])})"
        lines.append(
            "| "
            + " | ".join(
                [
                    item["verdict"]["symbol"],
                    md_code(item["metric"]) + ARROWS.get(item["direction"], ""),
                    common.format_value(values["baseline"]),
                    common.format_value(values["candidate"]),
                    change,
                ]
            )
            + " |"
        )
    for item in data.one_sided:
        lines.append(
            f"| {common.MISSING} | {md_code(item['metric'])} | | | "
            f"{tr('report.notIn', run=md_code(item['missing']))} |"
        )
    lines += _speed_lines(data)
    counts = {
        symbol: sum(i["verdict"]["symbol"] == symbol for i in data.items)
        + sum(i["verdict"]["symbol"] == symbol for i in data.speed)
        for symbol in ("✅", "❌", "⚠️")
    }
    tolerance = f"{data.tolerance:.4g}".replace("-", "−")
    lines += [
        "",
        *_config_lines(data),
        " · ".join(f"{symbol} {n}" for symbol, n in counts.items() if n)
        + tr(
            "report.md.legend",
            compare=_compare(data),
            tolerance=_pct(data.tolerance),
        ),
        "",
        # A card in another language than English names it.
        ("<sub>" if language() == "en" else f'<sub lang="{language()}">')
        + tr(
            "report.md.footer",
            version=data.version,
            axis=data.axis,
            tolerance=tolerance,
            generated=data.generated,
        )
        + "</sub>",
    ]
    return "\n".join(lines) + "\n"


def _speed_lines(data: ReportData) -> list[str]:
    """The speed section: one line per figure, derived from wall time."""
    if not data.speed:
        return []
    base, cand = (md_code(str(r)) for r in data.speed_runs)
    lines = [
        "",
        tr("report.md.speed", baseline=base, candidate=cand),
        "",
        "| | "
        + " | ".join(
            [
                tr("report.col.figure"),
                tr("report.col.baseline"),
                tr("report.col.candidate"),
                tr("report.col.change"),
            ]
        )
        + " |",
        "|:-:|:--|--:|--:|--:|",
    ]
    for item in data.speed:
        change = common.MISSING
        if item["relative"] is not None:
            change = common.format_percent(item["relative"])
        arrow = ARROWS.get(item["direction"], "")
        lines.append(
            f"| {item['verdict']['symbol']} | {item['label']} "
            f"({md_code(item['metric'])}){arrow} | "
            f"{speed.format_figure(item['baseline'], item['unit'])} | "
            f"{speed.format_figure(item['candidate'], item['unit'])} | "
            f"{change} |"
        )
    return lines


def _config_lines(data: ReportData) -> list[str]:
    """A folded table of the hyper-parameters that differ, if any do."""
    rows = selection.config_rows(data.config)
    if not rows:
        return [
            tr(
                "report.md.config",
                summary=selection.config_summary(data.config),
            ),
            "",
        ]
    # One raw HTML block, no blank line inside: CommonMark renderers (GitHub)
    # and those that pass an HTML block through untouched (Python-Markdown)
    # then both show it as written, and every value is HTML-escaped, so a
    # `<script>` in a hyper-parameter is text in either.
    lines = [
        "<details><summary>"
        + tr(
            "report.configPrefix",
            summary=_html(selection.config_summary(data.config)),
        )
        + "</summary>",
        "<table>",
        f"<tr><th>{tr('report.col.key')}</th>"
        f"<th>{tr('report.col.baseline')}</th>"
        f"<th>{tr('report.col.candidate')}</th></tr>",
    ]
    for key, base, cand in rows:
        cells = "".join(
            f"<td><code>{_html(value)}</code></td>" for value in (key, base, cand)
        )
        lines.append(f"<tr>{cells}</tr>")
    return lines + ["</table>", "</details>", ""]


def _html(text: str) -> str:
    """A name or value as inert HTML text (control characters escaped)."""
    return html.escape(common.printable(str(text)), quote=True)


def _pct(fraction: float) -> str:
    return f"{fraction * 100:.4g}%"


def _compare(data: ReportData) -> str:
    """What the verdicts compare (`last`, `best`) in the chosen language."""
    return tr(f"report.compare.{data.compare}")
