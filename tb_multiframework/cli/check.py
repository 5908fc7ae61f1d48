"""`tbmf check`: exit 0 when the candidate stays within tolerance of the
baseline, 1 when it does not, 2 on a usage error."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import Any

from tb_multiframework.cli import common, export, lang, selection, speed

_DEFAULT_RTOL = 0.05  # relative tolerance
_DEFAULT_HIST_TOL = 0.1  # KS statistic and W1 limit
_DEFAULT_SPEED_TOL = 0.05  # relative slow-down a speed check allows


def register(commands: Any) -> None:
    parser = common.add_command(
        commands,
        "check",
        lang.tr("cli.help.check.summary"),
        lang.tr("cli.help.check.epilog"),
    )
    selection.add_pair_arguments(parser, positional=False)
    common.add_metrics_argument(
        parser, lang.option_help("cli.help.check.metric")
    )
    export.add_axis_arguments(parser)
    parser.add_argument(
        "--rtol",
        type=common.parse_nonnegative,
        default=_DEFAULT_RTOL,
        metavar="R",
        help=lang.option_help("cli.help.check.rtol", default=_DEFAULT_RTOL),
    )
    parser.add_argument(
        "--atol",
        type=common.parse_nonnegative,
        default=0.0,
        metavar="A",
        help=lang.option_help("cli.help.check.atol"),
    )
    parser.add_argument(
        "--window",
        type=parse_window,
        default="all",
        metavar="W",
        help=lang.option_help("cli.help.check.window"),
    )
    parser.add_argument(
        "--histograms",
        nargs=2,
        metavar=("TAG_A", "TAG_B"),
        help=lang.option_help("cli.help.check.histograms"),
    )
    parser.add_argument(
        "--hist-tol",
        type=parse_hist_tol,
        default=None,
        metavar="T",
        help=lang.option_help(
            "cli.help.check.histTol", default=_DEFAULT_HIST_TOL
        ),
    )
    parser.add_argument(
        "--bins",
        type=int,
        default=None,
        metavar="N",
        help=lang.option_help("cli.help.check.bins"),
    )
    parser.add_argument(
        "--tolerance",
        type=speed.parse_tolerance,
        default=_DEFAULT_SPEED_TOL,
        metavar="T",
        help=lang.option_help("cli.help.check.tolerance"),
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=lang.option_help("cli.help.common.asJson"),
    )
    parser.set_defaults(handler=run)


def parse_window(text: str) -> str | tuple[float, float]:
    """argparse type of --window."""
    if text in ("all", "last"):
        return text
    if ":" not in text:
        raise argparse.ArgumentTypeError(
            f"expected all, last or FROM:TO, got {text!r}"
        )
    lo_text, hi_text = text.split(":", 1)
    try:
        lo = float(lo_text) if lo_text.strip() else -math.inf
        hi = float(hi_text) if hi_text.strip() else math.inf
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"FROM and TO must be numbers: {text!r}"
        ) from None
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise argparse.ArgumentTypeError(f"need FROM <= TO: {text!r}")
    return (lo, hi)


def parse_hist_tol(text: str) -> dict[str, float]:
    """argparse type of --hist-tol: `0.1` or `ks=0.1,w1=0.02`."""
    names = {"ks": "ks", "w1": "wasserstein", "wasserstein": "wasserstein"}
    if "=" not in text:
        value = common.parse_nonnegative(text)
        return {"wasserstein": value, "ks": value}
    limits = {}
    for part in text.split(","):
        key, _, value = part.partition("=")
        if key.strip().lower() not in names:
            raise argparse.ArgumentTypeError(
                f"unknown distance {key.strip()!r}; use ks and w1"
            )
        limits[names[key.strip().lower()]] = common.parse_nonnegative(value)
    return limits


def run(args: argparse.Namespace) -> int:
    common.check_axis(args.x)
    if not args.metric and not args.histograms:
        raise common.UsageError(lang.tr("cli.err.checkWhat"))
    if args.hist_tol is not None and not args.histograms:
        raise common.UsageError(lang.tr("cli.err.histTol"))
    from tb_multiframework.api import pairs  # noqa: PLC0415 - numpy
    from tb_multiframework.core import histdiff, parity  # noqa: PLC0415

    if args.bins is not None and not 1 <= args.bins <= histdiff.MAX_BINS:
        raise common.UsageError(
            lang.tr("cli.err.range", option="--bins", max=histdiff.MAX_BINS)
        )
    stack = common.load(args)

    results = []
    speed_metrics = [m for m in args.metric or [] if m in speed.BY_METRIC]
    curve_metrics = [m for m in args.metric or [] if m not in speed.BY_METRIC]
    if speed_metrics:
        results += speed.check(args, stack, speed_metrics)
    if curve_metrics:
        pairing = selection.pair_metrics(
            stack, args.baseline, args.candidate, curve_metrics
        )
        for item in pairing.one_sided:
            message = lang.tr(
                "cli.err.noMetricIn",
                run=repr(item["missing"]),
                metric=item["metric"],
            )
            if item["metric"] in curve_metrics:  # named by its exact key
                raise common.UsageError(message)
            common.warn(
                args, lang.tr("cli.warn.levelNotChecked", message=message)
            )
        common.warn_run_problems(
            args,
            selection.run_records(
                stack, pairing.baseline_runs + pairing.candidate_runs
            ),
        )
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
            if comparison.excluded:
                raise common.UsageError(comparison.excluded)
            results.append(_metric_result(args, comparison, parity))
    if args.histograms:
        results.append(_histogram_result(args, stack, parity))
    passed = all(r["passed"] for r in results)
    if args.json:
        common.print_json({"passed": passed, "checks": results})
    else:
        for result in results:
            lines = (
                speed.check_lines(result)
                if result["kind"] == "speed"
                else _lines(result)
            )
            print("\n".join(lines))
    return common.EXIT_OK if passed else common.EXIT_FAILED


def _metric_result(
    args: argparse.Namespace, comparison: Any, parity: Any
) -> dict[str, Any]:
    base, cand = comparison.baseline, comparison.candidate
    out: dict[str, Any] = {
        "kind": "metric",
        "metric": comparison.metric,
        "baseline": {"run": base.run, "tag": base.tag},
        "candidate": {"run": cand.run, "tag": cand.tag},
        "x": args.x,
        "smoothing": args.smoothing,
        "rtol": args.rtol,
        "atol": args.atol,
        "window": _window_json(args.window),
        "ranges": {
            "baseline": _range(base.placed.x),
            "candidate": _range(cand.placed.x),
        },
    }
    aligned = comparison.aligned
    if aligned.x.size == 0:
        out.update(passed=False, reason="the runs do not overlap on this axis")
        return out
    found = parity.check_tolerance(
        aligned, rtol=args.rtol, atol=args.atol, window=args.window
    )
    out.update(_verdict_json(found, _violation_json))
    return out


def _histogram_result(
    args: argparse.Namespace, stack: Any, parity: Any
) -> dict[str, Any]:
    from tb_multiframework.api.service import HistogramQuery  # noqa: PLC0415

    tag_a, tag_b = args.histograms
    run_a = _histogram_run(stack, args.baseline, tag_a)
    run_b = _histogram_run(stack, args.candidate, tag_b)
    query = HistogramQuery(
        run_a=run_a,
        tag_a=tag_a,
        run_b=run_b,
        tag_b=tag_b,
        x=args.x,
        **({"bins": args.bins} if args.bins else {}),
    )
    found = json.loads(stack.api.histogram_distances(query).data)
    limits = args.hist_tol or {
        "wasserstein": _DEFAULT_HIST_TOL,
        "ks": _DEFAULT_HIST_TOL,
    }
    out: dict[str, Any] = {
        "kind": "histograms",
        "baseline": {"run": run_a, "tag": tag_a},
        "candidate": {"run": run_b, "tag": tag_b},
        "x": args.x,
        "limits": limits,
        "window": _window_json(args.window),
    }
    if not found["positions"]:
        spans = [
            _positions_text(stack.api.histograms(run, tag, args.x))
            for run, tag in ((run_a, tag_a), (run_b, tag_b))
        ]
        out.update(
            passed=False,
            reason=f"no histogram positions in common on {args.x} "
            f"(baseline at {spans[0]}, candidate at {spans[1]})",
        )
        return out
    check = parity.check_distances(
        found["positions"],
        {"wasserstein": found["wasserstein"], "ks": found["ks"]},
        limits,
        window=args.window,
    )
    out.update(_verdict_json(check, _distance_json))
    return out


def _histogram_run(stack: Any, token: str, tag: str) -> str:
    names = [r["run"] for r in stack.api.runs()["runs"]]
    runs = common.resolve_run(token, names)
    records = selection.run_records(stack, runs)
    having = [r["run"] for r in records if tag in r["histogramTags"]]
    if len(having) == 1:
        return having[0]
    if len(having) > 1:
        raise common.UsageError(
            lang.tr(
                "cli.err.ambiguousHistogram",
                token=repr(token),
                n=len(having),
                tag=repr(tag),
                runs=", ".join(having),
            )
        )
    tags = sorted({t for r in records for t in r["histogramTags"]})
    raise common.UsageError(
        lang.tr(
            "cli.err.noHistogramTag",
            token=repr(token),
            tag=repr(tag),
            choices=common.choices_text(tag, tags, "histogramTags"),
        )
    )


def _positions_text(answer: dict[str, Any]) -> str:
    if answer["excluded"]:
        return f"none: {answer['excluded']}"
    xs = [step["x"] for step in answer["steps"]]
    if not xs:
        return "none"
    return f"{common.format_value(min(xs))}–{common.format_value(max(xs))}"


def _range(x: Any) -> list[float] | None:
    return [float(x[0]), float(x[-1])] if x.size else None


def _window_json(window: Any) -> Any:
    return list(window) if isinstance(window, tuple) else window


def _verdict_json(
    found: Any, describe: Callable[[Any], dict[str, Any] | None]
) -> dict[str, Any]:
    """A parity check's verdict (scalars or histograms) as JSON fields."""
    return {
        "passed": found.passed,
        "checked": found.checked,
        "violations": found.violations,
        "checkedRange": list(found.window),
        "first": describe(found.first),
        "worst": describe(found.worst),
    }


def _violation_json(v: Any) -> dict[str, Any] | None:
    if v is None:
        return None
    return {
        "x": v.x,
        "baseline": v.baseline,
        "candidate": v.candidate,
        "allowed": v.allowed,
        "ratio": v.ratio,
    }


def _distance_json(v: Any) -> dict[str, Any] | None:
    if v is None:
        return None
    return {
        "x": v.x,
        "distance": v.distance,
        "value": v.value,
        "limit": v.limit,
    }


def _lines(result: dict[str, Any]) -> list[str]:
    """PASS/FAIL and, on failure, the first and the worst violation.

    PASS and FAIL stay in English in every language: CI logs are searched
    for them."""
    word = "PASS" if result["passed"] else "FAIL"
    axis = lang.term("axis.", result["x"])
    base, cand = result["baseline"], result["candidate"]
    who = lang.tr(
        "cli.check.who",
        candidate=common.printable(cand["run"]),
        candidateTag=common.printable(cand["tag"]),
        baseline=common.printable(base["run"]),
        baselineTag=common.printable(base["tag"]),
    )
    what = (
        result["metric"]
        if result["kind"] == "metric"
        else lang.tr("cli.check.histograms")
    )
    if "reason" in result:
        return [f"{word}  {what}: {who}: {result['reason']}"]
    lo, hi = result["checkedRange"]
    span = f"{axis} {common.format_value(lo)}–{common.format_value(hi)}"
    if result["kind"] == "metric":
        limit = f"rtol {result['rtol']:g}, atol {result['atol']:g}"
    else:
        limit = ", ".join(
            f"{'W1' if k == 'wasserstein' else 'KS'} ≤ {v:g}"
            for k, v in result["limits"].items()
        )
    checked = common.format_int(result["checked"])
    if result["passed"]:
        within = lang.tr(
            "cli.check.pass", checked=checked, limit=limit, span=span
        )
        return [f"{word}  {what}: {who}: {within}"]
    out = lang.tr(
        "cli.check.fail",
        violations=common.format_int(result["violations"]),
        checked=checked,
        limit=limit,
        span=span,
    )
    lines = [f"{word}  {what}: {who}: {out}"]
    for label in ("first", "worst"):
        v = result[label]
        where = lang.tr(
            f"cli.check.{label}", at=f"{axis} {common.format_value(v['x'])}"
        )
        if result["kind"] == "metric":
            gap = abs(v["candidate"] - v["baseline"])
            detail = lang.tr(
                "cli.check.metricGap",
                baseline=common.format_value(v["baseline"]),
                candidate=common.format_value(v["candidate"]),
                gap=common.format_value(gap),
                allowed=common.format_value(v["allowed"]),
            )
        else:
            name = "W1" if v["distance"] == "wasserstein" else "KS"
            detail = (
                f"{name} {common.format_value(v['value'])} > "
                f"{common.format_value(v['limit'])}"
            )
        lines.append(f"  {where}: {detail}")
    return lines
