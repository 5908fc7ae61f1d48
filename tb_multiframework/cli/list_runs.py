"""`tbmf list`: one line per run, the `GET runs` records as a table."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tb_multiframework.cli import common

HELP = "one line per run: framework, writer, points, steps, duration, ..."
EPILOG = """\
examples:
  tbmf list runs/
  tbmf list runs/ --metric loss/val --sort best
  tbmf list runs/ --sort=-points --json

Columns: run, group, framework, writer, points (scalar points read), steps
(first–last), duration (first to last event), warn (file problems: torn or
corrupt records; `tbmf list --json` has their text), and with --metric the
metric's last and best value (best by its direction: lowest loss, highest
accuracy). --sort takes a column name; --sort=-COLUMN sorts descending.
--json prints the records of the `runs` route.
"""
_WIDTH = 100  # characters of the table


@dataclass(frozen=True)
class _Column:
    """A column of the table and how to sort by it."""

    id: str
    column: common.Column
    text: Callable[[dict[str, Any]], str]
    key: Callable[[dict[str, Any]], Any]


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "list",
        help=HELP,
        description=HELP,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common.add_logdir_arguments(parser)
    parser.add_argument(
        "--metric",
        metavar="M",
        help="add the last and best value of this metric (key or name)",
    )
    parser.add_argument(
        "--sort",
        metavar="COLUMN",
        help="sort by a column; --sort=-COLUMN descends",
    )
    parser.add_argument(
        "--width",
        type=int,
        default=_WIDTH,
        metavar="N",
        help=f"table width in characters (default {_WIDTH})",
    )
    parser.add_argument(
        "--json", action="store_true", help="the `runs` route's records"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    stack = common.load(args)
    payload = stack.api.runs()
    runs = payload["runs"]
    summary = None
    if args.metric:
        summary = _metric_summary(stack, args.metric)
    columns = _columns(runs, summary)
    if args.sort:
        runs = _sorted(runs, args.sort, columns)
    if args.json:
        out = dict(payload, runs=runs)
        if summary is not None:
            out["metricSummary"] = summary
        common.print_json(out)
        return common.EXIT_OK
    if not runs:
        common.warn(args, f"no runs under {args.logdir}")
        return common.EXIT_OK
    for line in common.render_table(
        [c.column for c in columns],
        [[c.text(r) for c in columns] for r in runs],
        max(args.width, 40),
    ):
        print(line)
    for error in payload["errors"]:
        common.warn(args, error)
    return common.EXIT_OK


def _metric_summary(stack: Any, token: str) -> dict[str, Any]:
    """Last and best of a metric per run (the `metric_summary` route)."""
    entries = common.resolve_metrics(token, stack.api.metrics()["metrics"])
    if len(entries) > 1:
        keys = ", ".join(e["key"] for e in entries)
        raise common.UsageError(
            f"metric {token!r} has several levels; name one: {keys}"
        )
    return stack.api.metric_summary(entries[0]["key"])


def _columns(
    runs: Sequence[dict[str, Any]], summary: dict[str, Any] | None
) -> list[_Column]:
    def text(field: str) -> Callable[[dict[str, Any]], str]:
        return lambda r: common.printable(str(r.get(field) or ""))

    def value(field: str) -> Callable[[dict[str, Any]], Any]:
        return lambda r: r.get(field)

    columns = [
        _Column(
            "run",
            common.Column("run", elide=True, min_width=20),
            text("run"),
            value("run"),
        ),
        _Column(
            "group",
            common.Column("group", elide=True),
            text("group"),
            value("group"),
        ),
        _Column(
            "framework",
            common.Column("framework", elide=True),
            text("framework"),
            value("framework"),
        ),
        _Column(
            "writer",
            common.Column("writer", elide=True),
            text("writer"),
            value("writer"),
        ),
    ]
    columns += [
        _Column(
            "points",
            common.Column("points", ">"),
            lambda r: common.format_int(r["numPoints"]),
            value("numPoints"),
        ),
        _Column(
            "steps",
            common.Column("steps", ">"),
            _steps_text,
            value("lastStep"),
        ),
        _Column(
            "duration",
            common.Column("duration", ">"),
            lambda r: common.format_duration(_duration(r)),
            _duration,
        ),
        _Column(
            "warnings",
            common.Column("warn", ">"),
            lambda r: str(len(r["warnings"])) if r["warnings"] else "",
            lambda r: len(r["warnings"]),
        ),
    ]
    if summary is not None:
        columns += _metric_columns(summary)
    return columns


def _metric_columns(summary: dict[str, Any]) -> list[_Column]:
    rows = {row["run"]: row for row in summary["runs"]}
    name = summary["metric"]

    def field(key: str) -> Callable[[dict[str, Any]], Any]:
        return lambda r: rows.get(r["run"], {}).get(key)

    return [
        _Column(
            "last",
            common.Column(f"{name} last", ">"),
            lambda r: (
                common.format_value(field("last")(r))
                if r["run"] in rows
                else ""
            ),
            field("last"),
        ),
        _Column(
            "best",
            common.Column("best", ">"),
            lambda r: (
                common.format_value(field("best")(r))
                if r["run"] in rows
                else ""
            ),
            field("best"),
        ),
    ]


def _steps_text(run: dict[str, Any]) -> str:
    first, last = run["firstStep"], run["lastStep"]
    if first is None or last is None:
        return common.MISSING
    if first == last:
        return common.format_int(first)
    return f"{common.format_int(first)}–{common.format_int(last)}"


def _duration(run: dict[str, Any]) -> float | None:
    start, end = run["startTime"], run["endTime"]
    return None if start is None or end is None else end - start


def _sorted(
    runs: Sequence[dict[str, Any]], spec: str, columns: Sequence[_Column]
) -> list[dict[str, Any]]:
    descending = spec.startswith("-")
    wanted = spec.lstrip("-")
    by_id = {c.id: c for c in columns}
    column = by_id.get(wanted)
    if column is None:
        raise common.UsageError(
            f"unknown column {wanted!r}; "
            + common.choices_text(wanted, list(by_id), "columns")
        )

    values = {id(r): column.key(r) for r in runs}
    present = [r for r in runs if not _missing(values[id(r)])]
    present.sort(key=lambda r: _order(values[id(r)]), reverse=descending)
    return present + [r for r in runs if _missing(values[id(r)])]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _order(value: Any) -> tuple[int, Any]:
    """Numbers before text; text case-insensitively."""
    if isinstance(value, (int, float)):
        return (0, value)
    return (1, str(value).lower())
