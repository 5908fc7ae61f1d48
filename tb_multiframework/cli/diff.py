"""`tbmf diff`: two runs metric by metric, as the tab's Compare view sees
them with A as the baseline."""

from __future__ import annotations

import argparse
from typing import Any

from tb_multiframework.cli import common, export, lang, selection


def register(commands: Any) -> None:
    parser = common.add_command(
        commands,
        "diff",
        lang.tr("cli.help.diff.summary"),
        lang.tr("cli.help.diff.epilog"),
    )
    selection.add_pair_arguments(parser, positional=True)
    common.add_metrics_argument(
        parser, lang.option_help("cli.help.common.metrics")
    )
    export.add_axis_arguments(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help=lang.option_help("cli.help.common.asJson"),
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    common.check_axis(args.x)
    stack = common.load(args)
    from tb_multiframework.api import pairs  # noqa: PLC0415 - numpy

    pairing = selection.pair_metrics(
        stack, args.baseline, args.candidate, args.metric
    )
    records = selection.run_records(
        stack, pairing.baseline_runs + pairing.candidate_runs
    )
    common.warn_run_problems(args, records)
    compared = [
        pairs.compare_pair(
            stack.api,
            metric=m.key,
            baseline=m.baseline,
            candidate=m.candidate,
            axis=args.x,
            smoothing=args.smoothing,
            smoothing_mode=args.smoothing_mode,
        )
        for m in pairing.metrics
    ]
    config = selection.config_diff(stack, pairing)
    if args.json:
        common.print_json(
            {
                "baseline": args.baseline,
                "candidate": args.candidate,
                "x": args.x,
                "smoothing": args.smoothing,
                "smoothingMode": args.smoothing_mode,
                "runs": records,
                "configDiff": config,
                "metrics": [c.to_json() for c in compared],
                "oneSided": pairing.one_sided,
            }
        )
        return common.EXIT_OK
    print(_header(args, records, pairing))
    print(
        "\n"
        + lang.tr("cli.diff.config", summary=selection.config_summary(config))
    )
    rows = selection.config_rows(config)
    if rows:
        lines, _ = common.render_table(
            [
                common.column("key", elide=True, min_width=12),
                common.column("A", elide=True, min_width=10),
                common.column("B", elide=True, min_width=10),
            ],
            [[common.printable(c) for c in row] for row in rows],
            96,
        )
        print("\n".join("  " + line for line in lines))
    for comparison in compared:
        print()
        print("\n".join(metric_block(comparison.to_json(), args.x)))
    for item in pairing.one_sided:
        metric = common.printable(item["metric"])
        missing = lang.tr("report.notIn", run=common.printable(item["missing"]))
        print(f"\n{metric}: {missing}")
    return common.EXIT_OK


def _header(
    args: argparse.Namespace, records: list[dict[str, Any]], pairing: Any
) -> str:
    by_run = {r["run"]: r for r in records}
    lines = []
    for label, token, runs in (
        ("A", args.baseline, pairing.baseline_runs),
        ("B", args.candidate, pairing.candidate_runs),
    ):
        first = by_run[runs[0]]
        writer = first["writer"] or lang.tr("cli.diff.unknownWriter")
        what = f"{first['framework']} / {writer}"
        names = ", ".join(common.printable(r) for r in runs)
        shown = common.printable(token) + (
            f" ({names})" if runs != [token] else ""
        )
        lines.append(f"{label}  {shown}  {what}")
    smoothing = (
        lang.tr(
            "cli.diff.smoothing",
            weight=f"{args.smoothing:g}",
            mode=args.smoothing_mode,
        )
        if args.smoothing
        else ""
    )
    lines.append(f"x  {_axis(args.x)}{smoothing}")
    return "\n".join(lines)


def metric_block(item: dict[str, Any], axis: str) -> list[str]:
    """A metric's lines: last, best, and |B − A| over the overlap."""
    a, b = item["baseline"], item["candidate"]
    known = item["direction"] in ("min", "max")
    direction = lang.tr(
        f"report.direction.{item['direction'] if known else 'unknown'}"
    )
    tags = lang.tr(
        "cli.diff.tags",
        a=common.printable(a["tag"]),
        b=common.printable(b["tag"]),
    )
    metric = common.printable(item["metric"])
    lines = [f"{metric}  {direction}  {tags}"]
    for key in ("last", "best"):
        change = item[key]
        if change["baseline"] is None and change["candidate"] is None:
            continue
        steps = "  " + lang.tr(
            "cli.diff.steps",
            a=_int(a[key + "Step"]),
            b=_int(b[key + "Step"]),
        )
        lines.append(
            f"  {_pad(lang.tr(f'report.compare.{key}'), 8)}"
            f"{common.format_value(change['baseline'])} → "
            f"{common.format_value(change['candidate'])}   "
            f"{_delta(change)}{steps}"
        )
    lines.append("  " + _pad("|B − A|", 8) + _gap_text(item, _axis(axis)))
    return lines


def _gap_text(item: dict[str, Any], axis: str) -> str:
    if item["excluded"]:
        return lang.tr(
            "cli.diff.notAligned", why=common.printable(item["excluded"])
        )
    diff = item["diff"]
    if diff["overlap"] is None:
        return lang.tr("cli.diff.noOverlap", axis=axis)
    lo, hi = diff["overlap"]
    span = f"{axis} {common.format_value(lo)}–{common.format_value(hi)}"
    if diff["compared"] == 0:
        return lang.tr("cli.diff.noPair", span=span)
    return lang.tr(
        "cli.diff.gap",
        mean=common.format_value(diff["meanAbs"]),
        max=common.format_value(diff["maxAbs"]),
        at=f"{axis} {common.format_value(diff['maxAt'])}",
        count=common.format_int(diff["compared"]),
        span=span,
    )


def _delta(change: dict[str, Any]) -> str:
    if change["delta"] is None:
        return common.MISSING
    relative = change["relative"]
    pct = (
        f" ({common.format_percent(relative)})" if relative is not None else ""
    )
    return common.format_signed(change["delta"]) + pct


def _int(value: int | None) -> str:
    return common.format_int(value)


def _pad(text: str, cells: int) -> str:
    """`text` padded to `cells` terminal cells (a CJK character takes two)."""
    return text + " " * max(0, cells - common.display_width(text))


def _axis(axis: str) -> str:
    """The axis' name in the chosen language (`step`, `epoch`, ...)."""
    return lang.term("axis.", axis)
