"""`tbmf list`: one line per run, the `GET runs` records as a table."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from tb_multiframework.cli import common, lang, list_rows
from tb_multiframework.cli.list_rows import RowColumn

_WIDTH = 100  # characters of the table


def register(commands: Any) -> None:
    parser = common.add_command(
        commands,
        "list",
        lang.tr("cli.help.list.summary"),
        lang.tr("cli.help.list.epilog"),
    )
    parser.add_argument(
        "--metric",
        metavar="M",
        help=lang.option_help("cli.help.list.metric"),
    )
    parser.add_argument(
        "--filter",
        metavar="EXPR",
        help=lang.option_help("cli.help.list.filter"),
    )
    parser.add_argument(
        "--sort",
        metavar="COLUMN",
        help=lang.option_help("cli.help.list.sort"),
    )
    parser.add_argument(
        "--width",
        type=_width,
        default=_WIDTH,
        metavar="N",
        help=lang.option_help("cli.help.list.width", default=_WIDTH),
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=lang.option_help("cli.help.list.asJson"),
    )
    parser.set_defaults(handler=run)


def _width(text: str) -> int:
    """argparse type of --width: characters, at least 40."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 40:
        raise argparse.ArgumentTypeError(f"must be at least 40, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    stack = common.load(args)
    payload = stack.api.runs()
    runs = payload["runs"]
    summary = _metric_summary(stack, args.metric) if args.metric else None
    if args.filter:
        runs = list_rows.filtered(runs, args.filter, summary)
    columns = _columns(runs, summary)
    if args.sort:
        runs = list_rows.sorted_rows(runs, args.sort, columns)
    if args.json:
        out = dict(payload, runs=runs)
        if summary is not None:
            out["metricSummary"] = summary
        common.print_json(out)
        return common.EXIT_OK
    if not runs:
        common.warn(args, lang.tr("cli.list.noMatch", logdir=args.logdir))
        return common.EXIT_OK
    lines, _ = common.render_table(
        [c.column for c in columns],
        [[c.text(r) for c in columns] for r in runs],
        args.width,
    )
    print("\n".join(lines))
    for error in payload["errors"]:
        common.warn(args, error)
    return common.EXIT_OK


def _metric_summary(stack: Any, token: str) -> dict[str, Any]:
    """Last and best of a metric per run (the `metric_summary` route)."""
    entry = common.pick_metric(token, stack.api.metrics()["metrics"])
    return stack.api.metric_summary(entry["key"])


def _columns(
    runs: Sequence[dict[str, Any]], summary: dict[str, Any] | None
) -> list[RowColumn]:
    def text(field: str) -> Callable[[dict[str, Any]], str]:
        return lambda r: common.printable(str(r.get(field) or ""))

    def value(field: str) -> Callable[[dict[str, Any]], Any]:
        return lambda r: r.get(field)

    def any_has(field: str) -> bool:
        return any(r.get(field) for r in runs)

    differing = _differing(runs)
    columns = [
        RowColumn(
            "run",
            common.column("run", elide=True, keep_tail=True, min_width=20),
            text("run"),
            value("run"),
        ),
        RowColumn(
            "group",
            common.column(
                "group", elide=True, keep_tail=True, min_width=14, drop=9
            ),
            _group_text,
            value("group"),
        ),
        RowColumn(
            "framework",
            common.column("framework", drop=3),
            text("framework"),
            value("framework"),
        ),
        RowColumn(
            "writer",
            common.column("writer", elide=True, drop=11),
            text("writer"),
            value("writer"),
        ),
    ]
    if any_has("trainer"):
        columns.append(
            RowColumn(
                "trainer",
                common.column("trainer", elide=True, drop=10),
                text("trainer"),
                value("trainer"),
            )
        )
    if any_has("configHash"):
        columns.append(
            RowColumn(
                "config",
                common.column("config", drop=8),
                text("configHash"),
                value("configHash"),
            )
        )
    if differing:
        columns.append(
            RowColumn(
                "hparams",
                common.column("hparams", elide=True, min_width=12, drop=7),
                lambda r: _hparams_text(r, differing),
                lambda r: _hparams_text(r, differing),
            )
        )
    columns += [
        RowColumn(
            "points",
            common.column("points", ">", drop=5),
            lambda r: common.format_int(r["numPoints"]),
            value("numPoints"),
        ),
        RowColumn(
            "steps",
            common.column("steps", ">", drop=6),
            _steps_text,
            value("lastStep"),
        ),
        RowColumn(
            "duration",
            common.column("duration", ">", drop=12),
            lambda r: common.format_duration(_duration(r)),
            _duration,
        ),
    ]
    if any(r["warnings"] for r in runs):
        columns.append(
            RowColumn(
                "warnings",
                common.column("warn", ">", drop=4),
                lambda r: str(len(r["warnings"])) if r["warnings"] else "",
                lambda r: len(r["warnings"]),
            )
        )
    if summary is not None:
        columns += _metric_columns(summary)
    return columns


def _metric_columns(summary: dict[str, Any]) -> list[RowColumn]:
    fields = list_rows.metric_fields(summary)

    def shown(
        get: Callable[[dict[str, Any]], Any],
    ) -> Callable[[dict[str, Any]], str]:
        return lambda r: (
            common.format_value(get(r)) if get(r) is not None else ""
        )

    columns = [
        RowColumn(
            "last",
            common.column(
                f"{summary['name']} last",
                ">",
                drop=1,
                label=lang.tr("cli.col.metricLast", metric=summary["name"]),
            ),
            shown(fields["last"]),
            fields["last"],
        ),
        RowColumn(
            "best",
            common.column("best", ">", drop=2),
            shown(fields["best"]),
            fields["best"],
        ),
    ]
    if summary.get("rankSpread"):
        columns.append(
            RowColumn(
                "spread",
                common.column(
                    "rank spread",
                    ">",
                    drop=13,
                    label=lang.tr("cli.col.rankSpread"),
                ),
                lambda r: _percent(fields["spread"](r)),
                fields["spread"],
            )
        )
    return columns


def _percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}%"


def _differing(runs: Sequence[dict[str, Any]]) -> list[str]:
    """Hyper-parameter keys that differ between the listed runs.

    As in the tab, a key some runs lack differs; keys whose values differ
    between the runs that have them come first (they are what the eye
    looks for: seed, lr), then the rest, each part by name.
    """
    if not any(r.get("hparams") for r in runs):
        return []
    from tb_multiframework.core import hparams  # noqa: PLC0415

    differing = hparams.differing_keys([r.get("hparams", {}) for r in runs])
    having = {
        key: [r["hparams"] for r in runs if key in r.get("hparams", {})]
        for key in differing
    }
    by_value = {
        key
        for key, values in having.items()
        if hparams.differing_keys([{key: v[key]} for v in values])
    }
    return sorted(differing, key=lambda key: (key not in by_value, key))


def _hparams_text(run: dict[str, Any], keys: Sequence[str]) -> str:
    """`lr=0.01 seed=1`: differing keys by their shortest unique suffix."""
    values = run.get("hparams", {})
    parts = []
    for key in keys:
        if key not in values:
            continue
        short = key.rsplit(".", 1)[-1]
        if sum(k.rsplit(".", 1)[-1] == short for k in keys) > 1:
            short = key
        value = values[key]
        shown = (
            common.format_value(value)
            if isinstance(value, float)
            else str(value)
        )
        parts.append(f"{short}={shown}")
    return common.printable(" ".join(parts))


def _group_text(run: dict[str, Any]) -> str:
    """The group, blank for a run that is a group of its own."""
    group = run.get("group") or ""
    return "" if group == run["run"] else common.printable(group)


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
