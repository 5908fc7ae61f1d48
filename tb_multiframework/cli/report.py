"""`tbmf report`: a candidate run against a baseline as a pull-request card
(Markdown) or one self-contained HTML page."""

from __future__ import annotations

import argparse
import datetime
import json
import os
from dataclasses import dataclass, field
from typing import Any

from tb_multiframework import __version__
from tb_multiframework.cli import common, export, lang, selection, speed

_DEFAULT_TOLERANCE = 0.05  # relative change counted as no change
_DEFAULT_POINTS = 2000  # points per series in the HTML charts
FORMATS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html"}


def register(commands: Any) -> None:
    parser = common.add_command(
        commands,
        "report",
        lang.tr("cli.help.report.summary"),
        lang.tr("cli.help.report.epilog"),
    )
    selection.add_pair_arguments(parser, positional=False)
    common.add_metrics_argument(
        parser, lang.option_help("cli.help.common.metrics")
    )
    export.add_axis_arguments(parser)
    parser.add_argument(
        "--tolerance",
        type=common.parse_nonnegative,
        default=_DEFAULT_TOLERANCE,
        metavar="T",
        help=lang.option_help(
            "cli.help.report.tolerance",
            default=_DEFAULT_TOLERANCE,
            percent=f"{_DEFAULT_TOLERANCE * 100:g}",
        ),
    )
    parser.add_argument(
        "--compare",
        choices=("last", "best"),
        default="last",
        help=lang.option_help("cli.help.report.compare"),
    )
    parser.add_argument(
        "--points",
        type=int,
        default=_DEFAULT_POINTS,
        metavar="N",
        help=lang.option_help(
            "cli.help.report.points", default=_DEFAULT_POINTS
        ),
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        required=True,
        help=lang.option_help("cli.help.report.out"),
    )
    parser.add_argument(
        "--format",
        choices=("md", "html"),
        help=lang.option_help("cli.help.report.format"),
    )
    parser.set_defaults(handler=run)


@dataclass
class ReportData:
    """What both report formats show."""

    baseline: str  # the RUN arguments
    candidate: str
    axis: str
    smoothing: float
    smoothing_mode: str
    tolerance: float
    compare: str
    logdir: str
    runs: list[dict[str, Any]]  # `runs` route records of both sides
    items: list[dict[str, Any]]  # per metric: pair JSON + "verdict"
    one_sided: list[dict[str, str]]
    config: dict[str, Any] | None  # the `config_diff` route's answer
    generated: str = field(
        default_factory=lambda: (
            datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        )
    )
    version: str = __version__
    charts: list[dict[str, Any]] = field(default_factory=list)
    # the speed section: `cli.speed.compare` items, and the two runs read
    speed: list[dict[str, Any]] = field(default_factory=list)
    speed_runs: tuple[str | None, str | None] = (None, None)


def run(args: argparse.Namespace) -> int:
    fmt = args.format or FORMATS.get(os.path.splitext(args.out)[1].lower())
    if fmt is None:
        raise common.UsageError(
            lang.tr("cli.err.outFormat", out=repr(args.out))
        )
    common.check_axis(args.x)
    from tb_multiframework.core.downsample import MAX_POINTS  # noqa: PLC0415

    if not 1 <= args.points <= MAX_POINTS:
        raise common.UsageError(
            lang.tr("cli.err.range", option="--points", max=MAX_POINTS)
        )
    stack = common.load(args)
    data = gather(stack, args, with_charts=fmt == "html")
    common.warn_run_problems(args, data.runs)
    if fmt == "md":
        from tb_multiframework.cli import report_md  # noqa: PLC0415

        text = report_md.render(data)
    else:
        from tb_multiframework.cli import report_html  # noqa: PLC0415

        text = report_html.render(data)
    common.write_output(args.out, text)
    return common.EXIT_OK


def gather(
    stack: Any, args: argparse.Namespace, *, with_charts: bool
) -> ReportData:
    """Compares every paired metric; with charts, the tab's curves too."""
    from tb_multiframework.api import pairs  # noqa: PLC0415 - numpy
    from tb_multiframework.core import parity  # noqa: PLC0415

    pairing = selection.pair_metrics(
        stack, args.baseline, args.candidate, args.metric
    )
    items, charts = [], []
    for paired in pairing.metrics:
        comparison = pairs.compare_pair(
            stack.api,
            metric=paired.key,
            baseline=paired.baseline,
            candidate=paired.candidate,
            axis=args.x,
            smoothing=args.smoothing,
            smoothing_mode=args.smoothing_mode,
        )
        item = comparison.to_json()
        item["compared"] = paired.compared()
        values = item[args.compare]
        change = parity.judge_change(
            values["baseline"],
            values["candidate"],
            direction=comparison.direction,
            tolerance=args.tolerance,
        )
        item["verdict"] = {"symbol": change.verdict, "reason": change.reason}
        items.append(item)
        if with_charts:
            charts.append(_chart(stack, args, paired, item))
    base_speed = speed.run_speed(stack, args.baseline)
    cand_speed = speed.run_speed(stack, args.candidate)
    return ReportData(
        speed=speed.compare(base_speed, cand_speed, args.tolerance),
        speed_runs=(
            None if base_speed is None else base_speed["run"],
            None if cand_speed is None else cand_speed["run"],
        ),
        baseline=args.baseline,
        candidate=args.candidate,
        axis=args.x,
        smoothing=args.smoothing,
        smoothing_mode=args.smoothing_mode,
        tolerance=args.tolerance,
        compare=args.compare,
        logdir=args.logdir,
        runs=selection.run_records(
            stack, pairing.baseline_runs + pairing.candidate_runs
        ),
        items=items,
        one_sided=pairing.one_sided,
        config=selection.config_diff(stack, pairing),
        charts=charts,
    )


def _chart(
    stack: Any, args: argparse.Namespace, paired: Any, item: dict[str, Any]
) -> dict[str, Any]:
    """The `scalars` route's answer for the pair, cut to its two series."""
    from tb_multiframework.api.service import ScalarQuery  # noqa: PLC0415

    chart: dict[str, Any] = {"metric": paired.key, "excluded": item["excluded"]}
    if item["excluded"]:
        return chart
    b_run, c_run = paired.baseline[0], paired.candidate[0]
    answer = json.loads(
        stack.api.scalars(
            ScalarQuery(
                runs=tuple(dict.fromkeys((b_run, c_run))),
                tag=None,
                metric=paired.key,
                x=args.x,
                smoothing=args.smoothing,
                smoothing_mode=args.smoothing_mode,
                points=args.points,
                baseline=b_run if b_run != c_run else None,
            )
        ).data
    )
    wanted = {paired.baseline: "baseline", paired.candidate: "candidate"}
    chart["series"] = [
        dict(s, role=wanted[(s["run"], s["tag"])])
        for s in answer["series"]
        if (s["run"], s["tag"]) in wanted
    ]
    chart["diff"] = next(
        (
            d
            for d in answer["diffs"]
            if (d["run"], d["tag"]) == paired.candidate
            and (d["baseline"], d["baselineTag"]) == paired.baseline
        ),
        None,
    )
    return chart
