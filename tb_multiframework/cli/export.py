"""`tbmf export`: every aligned point, exactly as the `export` route sends it."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from typing import Any

from tb_multiframework.cli import common, lang


def register(commands: Any) -> None:
    parser = common.add_command(
        commands,
        "export",
        lang.tr("cli.help.export.summary"),
        lang.tr("cli.help.export.epilog"),
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--metric", metavar="M", help=lang.option_help("cli.help.export.metric")
    )
    what.add_argument(
        "--tag", metavar="T", help=lang.option_help("cli.help.export.tag")
    )
    parser.add_argument(
        "--run",
        metavar="R",
        action="append",
        default=[],
        help=lang.option_help("cli.help.export.run"),
    )
    add_axis_arguments(parser)
    parser.add_argument(
        "--x-min",
        type=float,
        metavar="X",
        help=lang.option_help("cli.help.export.xMin"),
    )
    parser.add_argument(
        "--x-max",
        type=float,
        metavar="X",
        help=lang.option_help("cli.help.export.xMax"),
    )
    parser.add_argument("--format", choices=("csv", "json"), default="csv")
    parser.add_argument(
        "--out", metavar="FILE", help=lang.option_help("cli.help.export.out")
    )
    parser.set_defaults(handler=run)


def add_axis_arguments(parser: argparse.ArgumentParser) -> None:
    """--x, --smoothing and --smoothing-mode, as the tab offers them."""
    parser.add_argument(
        "--x",
        default="step",
        metavar="AXIS",
        help=lang.option_help("cli.help.common.x"),
    )
    parser.add_argument(
        "--smoothing",
        type=common.parse_smoothing,
        default=0.0,
        metavar="W",
        help=lang.option_help("cli.help.common.smoothing"),
    )
    parser.add_argument(
        "--smoothing-mode",
        choices=("ema", "time"),
        default="ema",
        help=lang.option_help("cli.help.common.smoothingMode"),
    )


def run(args: argparse.Namespace) -> int:
    common.check_axis(args.x)
    if (args.x_min is None) != (args.x_max is None):
        raise common.UsageError(lang.tr("cli.err.xRange"))
    stack = common.load(args)
    from tb_multiframework.api.service import ScalarQuery  # noqa: PLC0415

    names = [r["run"] for r in stack.api.runs()["runs"]]
    runs: list[str] = []
    for token in args.run:
        runs.extend(
            r for r in common.resolve_run(token, names) if r not in runs
        )
    metric = None
    if args.metric is not None:
        entry = common.pick_metric(args.metric, metrics(stack), runs)
        metric = entry["key"]
        members = sorted({m["run"] for m in entry["members"]})
        if runs and not set(runs) & set(members):
            raise common.UsageError(
                lang.tr(
                    "cli.err.noRunHasMetric",
                    metric=metric,
                    runs=", ".join(members),
                )
            )
        runs = [r for r in runs if r in members]
    elif not runs:
        raise common.UsageError(lang.tr("cli.err.tagNeedsRun"))
    x_range = None if args.x_min is None else (args.x_min, args.x_max)
    pieces, _ = stack.api.export(
        ScalarQuery(
            runs=tuple(runs),
            tag=args.tag,
            metric=metric,
            x=args.x,
            smoothing=args.smoothing,
            smoothing_mode=args.smoothing_mode,
            x_range=x_range,
        ),
        args.format,
    )
    if not args.out:
        pieces = _ending_with_newline(pieces)  # a file gets the route's bytes
    common.write_output(args.out, pieces)
    return common.EXIT_OK


def _ending_with_newline(pieces: Iterable[str]) -> Iterator[str]:
    """The pieces, plus a newline if the text does not end with one (for
    the terminal)."""
    last = ""
    for piece in pieces:
        if piece:
            last = piece
            yield piece
    if not last.endswith("\n"):
        yield "\n"


def metrics(stack: Any) -> list[dict[str, Any]]:
    return stack.api.metrics()["metrics"]
