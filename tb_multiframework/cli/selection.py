"""Which series two RUN arguments and --metric options name.

Shared by `diff`, `check` and `report`: a RUN is a run or a directory of
runs; a metric is a key or a name (every level of it); each run's first tag
of a metric stands for it, as in the tab. Two levels pairing the very same
two series (a series of unknown level is in both) are compared once.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from tb_multiframework.cli import common, lang
from tb_multiframework.cli.speed import SPEED_NAMES


@dataclass(frozen=True)
class PairedMetric:
    """A metric both sides have: its entry and each side's (run, tag)."""

    entry: dict[str, Any]
    baseline: tuple[str, str]
    candidate: tuple[str, str]

    @property
    def key(self) -> str:
        return str(self.entry["key"])

    def compared(self) -> dict[str, dict[str, Any]]:
        """What each side's series is: run, tag, level (None: unknown) and
        aggregation, from the metric index."""
        out = {}
        for side, (run, tag) in (
            ("baseline", self.baseline),
            ("candidate", self.candidate),
        ):
            member = next(
                m
                for m in self.entry["members"]
                if m["run"] == run and m["tag"] == tag
            )
            out[side] = {
                "run": run,
                "tag": tag,
                "level": member.get("level"),
                "aggregation": member.get("aggregation", "unknown"),
            }
        return out


@dataclass(frozen=True)
class Pairing:
    """The metrics two RUN arguments share, and those only one side has."""

    baseline_runs: list[str]
    candidate_runs: list[str]
    metrics: list[PairedMetric]
    one_sided: list[dict[str, str]]  # {"metric", "missing": run argument}


def pair_metrics(
    stack: Any,
    baseline: str,
    candidate: str,
    metric_tokens: list[str],
) -> Pairing:
    """Resolves the runs and metrics of a two-run command.

    Without metric tokens: every metric both sides have, in the metric
    index's order.

    Raises:
      UsageError: an unknown run or metric, a RUN naming several runs that
        have a metric, or no metric in common.
    """
    names = [r["run"] for r in stack.api.runs()["runs"]]
    runs_b = common.resolve_run(baseline, names)
    runs_c = common.resolve_run(candidate, names)
    metrics = stack.api.metrics()["metrics"]
    if metric_tokens:
        entries: list[dict[str, Any]] = []
        for token in metric_tokens:
            for entry in common.resolve_metrics(token, metrics):
                if entry not in entries:
                    entries.append(entry)
    else:
        # Speed and resources are compared as figures (`cli/speed.py`).
        entries = [m for m in metrics if m["name"] not in SPEED_NAMES]
    paired, one_sided = [], []
    seen: set[tuple[tuple[str, str], tuple[str, str]]] = set()
    for entry in entries:
        member_b = common.member_of(entry, runs_b, baseline)
        member_c = common.member_of(entry, runs_c, candidate)
        if member_b and member_c:
            # A series of unknown level is a member of every level of its
            # name: the same two series under @epoch and @batch would be
            # the same comparison twice.
            if (member_b, member_c) in seen:
                continue
            seen.add((member_b, member_c))
            paired.append(PairedMetric(entry, member_b, member_c))
        elif metric_tokens and (member_b or member_c):
            missing = candidate if member_b else baseline
            one_sided.append({"metric": entry["key"], "missing": missing})
    if not paired:
        shared = sorted(
            {
                m["key"]
                for m in metrics
                if {x["run"] for x in m["members"]} & set(runs_b)
                and {x["run"] for x in m["members"]} & set(runs_c)
            }
        )
        wanted = ", ".join(metric_tokens) or lang.tr("cli.err.anyMetric")
        raise common.UsageError(
            lang.tr(
                "cli.err.notShared",
                a=repr(baseline),
                b=repr(candidate),
                wanted=wanted,
                shared=(
                    lang.tr("cli.err.sharedMetrics", metrics=", ".join(shared))
                    if shared
                    else lang.tr("cli.err.noSharedMetric")
                ),
            )
        )
    return Pairing(runs_b, runs_c, paired, one_sided)


def add_pair_arguments(
    parser: argparse.ArgumentParser, *, positional: bool
) -> None:
    """The two runs: RUN_A RUN_B, or --baseline and --candidate."""
    if positional:
        parser.add_argument(
            "baseline",
            metavar="RUN_A",
            help=lang.option_help("cli.help.common.runA"),
        )
        parser.add_argument(
            "candidate",
            metavar="RUN_B",
            help=lang.option_help("cli.help.common.runB"),
        )
    else:
        parser.add_argument(
            "--baseline",
            "-a",
            metavar="RUN",
            required=True,
            help=lang.option_help("cli.help.common.baseline"),
        )
        parser.add_argument(
            "--candidate",
            "-b",
            metavar="RUN",
            required=True,
            help=lang.option_help("cli.help.common.candidate"),
        )


def run_records(stack: Any, runs: list[str]) -> list[dict[str, Any]]:
    """The `runs` route's records of these runs."""
    wanted = set(runs)
    return [r for r in stack.api.runs()["runs"] if r["run"] in wanted]


def config_diff(stack: Any, pairing: Pairing) -> dict[str, Any] | None:
    """The `config_diff` route's answer for the two sides' first runs.

    None when both sides are the same run. Hyper-parameters are pooled per
    logical run, so any run of a side stands for it.
    """
    runs = (pairing.baseline_runs[0], pairing.candidate_runs[0])
    if runs[0] == runs[1]:
        return None
    return stack.api.config_diff(runs)


def config_rows(diff: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    """(key, baseline value, candidate value) of the keys that differ."""
    if diff is None:
        return []
    base, cand = diff["runs"]
    rows = []
    for entry in diff["keys"]:
        if not entry["differs"]:
            continue
        shown = [
            (
                common.MISSING
                if run in entry["missing"]
                else _value_text(entry["values"].get(run))
            )
            for run in (base, cand)
        ]
        rows.append((entry["key"], shown[0], shown[1]))
    return rows


def config_summary(diff: dict[str, Any] | None) -> str:
    """`2 of 9 keys differ (config 889abb73 → fc67a21a)` and the like."""
    if diff is None:
        return lang.tr("cli.config.sameRun")
    if not diff["keys"]:
        return lang.tr("cli.config.none")
    base, cand = diff["runs"]
    hashes = diff["configHashes"]
    differing = sum(entry["differs"] for entry in diff["keys"])
    what = (
        lang.tr("cli.config.allSame")
        if not differing
        else lang.tr("cli.config.differ", n=differing, total=len(diff["keys"]))
    )
    return lang.tr(
        "cli.config.summary",
        what=what,
        a=hashes.get(base) or common.MISSING,
        b=hashes.get(cand) or common.MISSING,
    )


def _value_text(value: Any) -> str:
    if isinstance(value, float):
        return common.format_value(value)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)
