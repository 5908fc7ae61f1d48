"""`tbmf anomalies`: the tab's anomaly findings (the `anomalies` route) as a
table, and an exit code for CI."""

from __future__ import annotations

import argparse
from typing import Any

from tb_multiframework.cli import common, lang

_WIDTH = 100  # characters of the table


def register(commands: Any) -> None:
    parser = common.add_command(
        commands,
        "anomalies",
        lang.tr("cli.help.anomalies.summary"),
        lang.tr("cli.help.anomalies.epilog"),
    )
    parser.add_argument(
        "--run",
        metavar="R",
        action="append",
        default=[],
        help=lang.option_help("cli.help.anomalies.run"),
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--metric",
        metavar="M",
        help=lang.option_help("cli.help.anomalies.metric"),
    )
    what.add_argument(
        "--tag", metavar="T", help=lang.option_help("cli.help.anomalies.tag")
    )
    parser.add_argument(
        "--kinds",
        metavar="K,K",
        help=lang.option_help("cli.help.anomalies.kinds"),
    )
    parser.add_argument(
        "--fail-on",
        metavar="KINDS",
        help=lang.option_help("cli.help.anomalies.failOn"),
    )
    parser.add_argument(
        "--x",
        default="step",
        metavar="AXIS",
        help=lang.option_help("cli.help.anomalies.x"),
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=lang.option_help("cli.help.anomalies.asJson"),
    )
    parser.set_defaults(handler=run)


def _kinds(text: str | None) -> frozenset[str] | None:
    """A comma-separated list of kinds, checked against the detectors'."""
    if text is None:
        return None
    from tb_multiframework.core.anomalies import (
        KINDS,
        parse_kinds,
    )  # noqa: PLC0415

    listed = [k.strip() for k in text.split(",") if k.strip()]
    if listed == ["any"]:
        return frozenset(KINDS)
    try:
        return frozenset(parse_kinds(listed))
    except ValueError:
        unknown = [k for k in listed if k not in KINDS]
        raise common.UsageError(
            lang.tr(
                "cli.err.unknownKind",
                kind=repr(unknown[0]),
                choices=common.choices_text(unknown[0], list(KINDS), "kinds"),
            )
        ) from None


def run(args: argparse.Namespace) -> int:
    common.check_axis(args.x)
    kinds = _kinds(args.kinds)
    fail_on = _kinds(args.fail_on) or frozenset()
    stack = common.load(args)
    from tb_multiframework.api.anomalies import AnomalyQuery  # noqa: PLC0415

    names = [r["run"] for r in stack.api.runs()["runs"]]
    runs: list[str] = []
    for token in args.run:
        runs += [r for r in common.resolve_run(token, names) if r not in runs]
    metric = None
    if args.metric:
        metric = common.pick_metric(
            args.metric, stack.api.metrics()["metrics"], runs
        )["key"]
    payload = stack.api.anomaly_payload(
        AnomalyQuery(
            runs=tuple(runs), tag=args.tag, metric=metric, kinds=kinds, x=args.x
        )
    )
    failing = sorted({a["kind"] for a in payload["anomalies"]} & fail_on)
    if args.json:
        common.print_json(
            dict(payload, failOn=sorted(fail_on), failing=failing)
        )
    else:
        _print(args, payload)
    if failing:
        if not args.json:
            common.warn(
                args, lang.tr("cli.anomalies.failOn", kinds=", ".join(failing))
            )
        return common.EXIT_FAILED
    return common.EXIT_OK


def _print(args: argparse.Namespace, payload: dict[str, Any]) -> None:
    found = payload["anomalies"]
    if found:
        lines, _ = common.render_table(
            [
                common.column("run", elide=True, min_width=16),
                common.column("series", elide=True, min_width=12),
                common.column("kind"),
                common.column("steps", ">"),
                common.column("severity", ">"),
                common.column("what", elide=True, min_width=20),
            ],
            [
                [
                    common.printable(a["run"]),
                    common.printable(a["metric"] or a["tag"]),
                    a["kind"],
                    _steps(a),
                    common.format_value(a["severity"]),
                    common.printable(
                        lang.server_text(
                            (a.get("i18n") or {}).get("message"), a["message"]
                        )
                    ),
                ]
                for a in found
            ],
            _WIDTH,
        )
        print("\n".join(lines))
    shown = (
        lang.tr("cli.anomalies.listed", n=len(found))
        if payload.get("truncated")
        else ""
    )
    print(
        lang.tr(
            "cli.anomalies.found", n=payload["total"], series=payload["series"]
        )
        + shown
    )


def _steps(anomaly: dict[str, Any]) -> str:
    start, end = anomaly["step"], anomaly["endStep"]
    if start == end:
        return common.format_int(start)
    return f"{common.format_int(start)}–{common.format_int(end)}"
