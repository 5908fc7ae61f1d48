"""`tbmf list`: one line per run, the `GET runs` records as a table."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tb_multiframework.cli import common

HELP = "one line per run: group, framework, config, hparams, points, ..."
EPILOG = """\
examples:
  tbmf list runs/
  tbmf list runs/ --metric loss/val --sort best
  tbmf list runs/ --filter "lr<0.01 framework=pytorch" --sort=-points
  tbmf list runs/ --filter keras --json

Columns: run, group, framework, writer, trainer, config (hash of the
hyper-parameters), the hyper-parameters that differ between the listed
runs, points (scalar points read), steps (first–last), duration (first to
last event), warn (file problems: torn or corrupt records; --json has their
text), and with --metric its last and best value (best by direction: lowest
loss, highest accuracy). Empty columns are left out; when the table cannot
fit --width, the least useful columns are left out too (stderr says which).

--filter takes what the tab's filter box takes: clauses `key<op>value`
(ops < <= > >= = != ~, ~ = contains) over run, group, framework, writer,
format, configHash, points, steps, last, best, bestStep and any
hyper-parameter (`lr` finds `train.lr`), and the rest a case-insensitive
regular expression searched in run, group, framework and writer.
--sort takes a column (or a hyper-parameter); --sort=-COLUMN descends.
--json prints the `runs` route's answer for the listed runs (and the
`metric_summary` route's with --metric).
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
        "--filter", metavar="EXPR", help="as the tab's filter box"
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
    summary = _metric_summary(stack, args.metric) if args.metric else None
    if args.filter:
        runs = _filtered(runs, args.filter, summary)
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
        common.warn(args, f"no runs under {args.logdir} match")
        return common.EXIT_OK
    lines, dropped = common.render_table(
        [c.column for c in columns],
        [[c.text(r) for c in columns] for r in runs],
        args.width,
    )
    print("\n".join(lines))
    if dropped:
        common.warn(
            args,
            f"left out for --width {args.width}: {', '.join(dropped)} "
            "(a wider --width or --json shows them)",
        )
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


def _metric_fields(
    summary: dict[str, Any] | None,
) -> dict[str, Callable[[dict[str, Any]], Any]]:
    """last, best, beststep and spread by run, as the tab's columns."""
    if summary is None:
        return {}
    rows = {row["run"]: row for row in summary["runs"]}
    spreads = {
        member: spread
        for spread in summary.get("rankSpread", [])
        for member in spread["members"]
    }

    def field(name: str) -> Callable[[dict[str, Any]], Any]:
        def get(run: dict[str, Any]) -> Any:
            value = rows.get(run["run"], {}).get(name)
            return value if isinstance(value, (int, float)) else None

        return get

    return {
        "last": field("last"),
        "best": field("best"),
        "beststep": field("bestStep"),
        "spread": lambda r: (spreads.get(r["run"]) or {}).get("spread"),
    }


def _filtered(
    runs: list[dict[str, Any]], text: str, summary: dict[str, Any] | None
) -> list[dict[str, Any]]:
    from tb_multiframework.core import hparams, runfilter  # noqa: PLC0415

    clauses, rest = runfilter.parse_filter(text)
    keys = sorted({k for r in runs for k in r.get("hparams", {})})
    differing = hparams.differing_keys([r.get("hparams", {}) for r in runs])
    extra: dict[str, Callable[[dict[str, Any]], Any]] = {
        f"hp:{key.lower()}": (
            lambda r, key=key: r.get("hparams", {}).get(key, runfilter.MISSING)
        )
        for key in differing
    }
    for name, get in _metric_fields(summary).items():
        extra[name] = lambda r, get=get: _or_missing(get(r), runfilter.MISSING)
    return [
        r
        for r in runs
        if runfilter.run_matches(r, rest)
        and all(
            runfilter.clause_matches(
                runfilter.filter_value(r, c, extra, keys), c
            )
            for c in clauses
        )
    ]


def _or_missing(value: Any, missing: Any) -> Any:
    return missing if value is None else value


def _columns(
    runs: Sequence[dict[str, Any]], summary: dict[str, Any] | None
) -> list[_Column]:
    def text(field: str) -> Callable[[dict[str, Any]], str]:
        return lambda r: common.printable(str(r.get(field) or ""))

    def value(field: str) -> Callable[[dict[str, Any]], Any]:
        return lambda r: r.get(field)

    def any_has(field: str) -> bool:
        return any(r.get(field) for r in runs)

    differing = _differing(runs)
    columns = [
        _Column(
            "run",
            common.Column("run", elide=True, min_width=20),
            text("run"),
            value("run"),
        ),
        _Column(
            "group",
            common.Column("group", elide=True, drop=9),
            text("group"),
            value("group"),
        ),
        _Column(
            "framework",
            common.Column("framework", drop=3),
            text("framework"),
            value("framework"),
        ),
        _Column(
            "writer",
            common.Column("writer", elide=True, drop=11),
            text("writer"),
            value("writer"),
        ),
    ]
    if any_has("trainer"):
        columns.append(
            _Column(
                "trainer",
                common.Column("trainer", elide=True, drop=10),
                text("trainer"),
                value("trainer"),
            )
        )
    if any_has("configHash"):
        columns.append(
            _Column(
                "config",
                common.Column("config", drop=8),
                text("configHash"),
                value("configHash"),
            )
        )
    if differing:
        columns.append(
            _Column(
                "hparams",
                common.Column("hparams", elide=True, min_width=12, drop=7),
                lambda r: _hparams_text(r, differing),
                lambda r: _hparams_text(r, differing),
            )
        )
    columns += [
        _Column(
            "points",
            common.Column("points", ">", drop=5),
            lambda r: common.format_int(r["numPoints"]),
            value("numPoints"),
        ),
        _Column(
            "steps",
            common.Column("steps", ">", drop=6),
            _steps_text,
            value("lastStep"),
        ),
        _Column(
            "duration",
            common.Column("duration", ">", drop=12),
            lambda r: common.format_duration(_duration(r)),
            _duration,
        ),
    ]
    if any(r["warnings"] for r in runs):
        columns.append(
            _Column(
                "warnings",
                common.Column("warn", ">", drop=4),
                lambda r: str(len(r["warnings"])) if r["warnings"] else "",
                lambda r: len(r["warnings"]),
            )
        )
    if summary is not None:
        columns += _metric_columns(summary)
    return columns


def _metric_columns(summary: dict[str, Any]) -> list[_Column]:
    fields = _metric_fields(summary)

    def shown(
        get: Callable[[dict[str, Any]], Any],
    ) -> Callable[[dict[str, Any]], str]:
        return lambda r: (
            common.format_value(get(r)) if get(r) is not None else ""
        )

    columns = [
        _Column(
            "last",
            common.Column(f"{summary['name']} last", ">", drop=1),
            shown(fields["last"]),
            fields["last"],
        ),
        _Column(
            "best",
            common.Column("best", ">", drop=2),
            shown(fields["best"]),
            fields["best"],
        ),
    ]
    if summary.get("rankSpread"):
        columns.append(
            _Column(
                "spread",
                common.Column("rank spread", ">", drop=13),
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
    column = by_id.get(wanted) or _hparam_column(runs, wanted)
    if column is None:
        raise common.UsageError(
            f"unknown column {wanted!r}; "
            + common.choices_text(wanted, list(by_id), "columns")
            + " (or a hyper-parameter)"
        )
    values = {id(r): column.key(r) for r in runs}
    present = [r for r in runs if not _missing(values[id(r)])]
    present.sort(key=lambda r: _order(values[id(r)]), reverse=descending)
    return present + [r for r in runs if _missing(values[id(r)])]


def _hparam_column(
    runs: Sequence[dict[str, Any]], wanted: str
) -> _Column | None:
    from tb_multiframework.core import runfilter  # noqa: PLC0415

    keys = sorted({k for r in runs for k in r.get("hparams", {})})
    key = runfilter.resolve_key(keys, wanted.removeprefix("hp:"))
    if key is None:
        return None
    return _Column(
        key,
        common.Column(key),
        lambda r: str(r.get("hparams", {}).get(key, "")),
        lambda r: r.get("hparams", {}).get(key),
    )


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _order(value: Any) -> tuple[int, Any]:
    """Numbers before text; text case-insensitively."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value)
    return (1, str(value).lower())
