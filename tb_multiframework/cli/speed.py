"""Training speed for `tbmf report` and `tbmf check`: one number per run.

Both compare the speed summaries of the `speed` route (docs/api.md), not
the curves: a run's median step time, steady steps and samples a second,
median time per epoch and training time, derived from wall time. Faster is
better: a candidate slower by more than the tolerance fails, one faster by
any amount passes.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from tb_multiframework.cli import common, lang


@dataclass(frozen=True)
class SpeedFigure:
    """One compared figure: its metric name, label, field, direction."""

    metric: str
    label: str
    field: str
    direction: str  # "min": lower is better, "max": higher
    unit: str


FIGURES = (
    SpeedFigure(
        "time/step", "step time (median)", "medianStepTime", "min", "s"
    ),
    SpeedFigure(
        "throughput/steps_per_s",
        "throughput",
        "stepsPerSecond",
        "max",
        "steps/s",
    ),
    SpeedFigure(
        "throughput/samples_per_s",
        "throughput",
        "samplesPerSecond",
        "max",
        "samples/s",
    ),
    SpeedFigure(
        "time/epoch",
        "time per epoch (median)",
        "medianEpochSeconds",
        "min",
        "s",
    ),
    SpeedFigure("time/total", "training time", "trainingSeconds", "min", "s"),
)
BY_METRIC = {f.metric: f for f in FIGURES}
# Every canonical speed/resource name: not in a report's default metrics
# (the speed section has them).
SPEED_NAMES = frozenset(
    {
        *BY_METRIC,
        "time/data",
        "time/eval",
        "time/elapsed",
        "throughput/tokens_per_s",
        "throughput/eval_steps_per_s",
        "throughput/eval_samples_per_s",
        "gpu/memory_gb",
        "gpu/utilization",
    }
)


def parse_tolerance(text: str) -> float:
    """argparse type of --tolerance: `5%` or `0.05`."""
    body = text.strip()
    scale = 1.0
    if body.endswith("%"):
        body, scale = body[:-1], 0.01
    value = common.parse_nonnegative(body) * scale
    return value


def run_speed(stack: Any, token: str) -> dict[str, Any] | None:
    """The speed of the run a RUN argument names: the run itself, or the
    run under it read over the most intervals (Keras `train`, not its
    `validation`)."""
    names = [r["run"] for r in stack.api.runs()["runs"]]
    runs = common.resolve_run(token, names)
    found = stack.api.speed_payload(tuple(runs))["runs"]
    if not found:
        return None
    exact = [r for r in found if r["run"] == token]
    if exact and exact[0]["intervals"]:
        return exact[0]
    return max(found, key=lambda r: (r["intervals"], r["run"]))


def compare(
    base: dict[str, Any] | None,
    cand: dict[str, Any] | None,
    tolerance: float,
    figures: tuple[SpeedFigure, ...] = FIGURES,
) -> list[dict[str, Any]]:
    """One item per figure either run has: values, change, verdict."""
    from tb_multiframework.core import parity  # noqa: PLC0415 - numpy

    items = []
    for figure in figures:
        b = None if base is None else base.get(figure.field)
        c = None if cand is None else cand.get(figure.field)
        if b is None and c is None:
            continue
        change = parity.judge_change(
            b, c, direction=figure.direction, tolerance=tolerance
        )
        items.append(
            {
                "metric": figure.metric,
                "label": figure.label,
                "unit": figure.unit,
                "direction": figure.direction,
                "baseline": b,
                "candidate": c,
                "delta": change.delta,
                "relative": change.relative,
                "verdict": {"symbol": change.verdict, "reason": change.reason},
            }
        )
    return items


def check(
    args: argparse.Namespace, stack: Any, metrics: list[str]
) -> list[dict[str, Any]]:
    """`tbmf check --metric time/step ...`: the summaries, one-sided."""
    base = run_speed(stack, args.baseline)
    cand = run_speed(stack, args.candidate)
    figures = tuple(BY_METRIC[m] for m in metrics)
    results = []
    for item in compare(base, cand, args.tolerance, figures):
        symbol = item["verdict"]["symbol"]
        results.append(
            {
                "kind": "speed",
                "metric": item["metric"],
                "baseline": {"run": None if base is None else base["run"]},
                "candidate": {"run": None if cand is None else cand["run"]},
                "values": item,
                "tolerance": args.tolerance,
                "passed": symbol == "✅",
            }
        )
    missing = [
        f.metric
        for f in figures
        if f.metric not in {r["metric"] for r in results}
    ]
    for metric in missing:
        results.append(
            {
                "kind": "speed",
                "metric": metric,
                "baseline": {"run": None if base is None else base["run"]},
                "candidate": {"run": None if cand is None else cand["run"]},
                "values": None,
                "tolerance": args.tolerance,
                "passed": False,
                "reason": "neither run has it (see `tbmf`'s speed route)",
            }
        )
    return results


def check_lines(result: dict[str, Any]) -> list[str]:
    word = "PASS" if result["passed"] else "FAIL"
    who = lang.tr(
        "cli.check.runs",
        candidate=common.printable(str(result["candidate"]["run"])),
        baseline=common.printable(str(result["baseline"]["run"])),
    )
    item = result["values"]
    if item is None:
        return [f"{word}  {result['metric']}: {who}: {result['reason']}"]
    derived = lang.tr("cli.check.derived", label=item["label"])
    tolerance = lang.tr(
        "cli.check.tolerance",
        percent=f"{result['tolerance'] * 100:g}",
        direction=lang.tr(f"report.direction.{item['direction']}"),
    )
    return [
        f"{word}  {result['metric']} ({derived}): "
        f"{who}: {format_figure(item['baseline'], item['unit'])} → "
        f"{format_figure(item['candidate'], item['unit'])}"
        f"{_change_text(item)}; {tolerance}"
    ]


def format_figure(value: float | None, unit: str) -> str:
    if value is None:
        return common.MISSING
    if unit == "s" and value < 1:
        return f"{value * 1000:.4g} ms"
    return f"{value:.4g} {unit}"


def _change_text(item: dict[str, Any]) -> str:
    if item["relative"] is None:
        return ""
    return f" ({common.format_percent(item['relative'])})"
