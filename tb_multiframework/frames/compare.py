"""Wide frames of a comparison and of group aggregates.

Both come from the `GET scalars` answer computed in-process at full
resolution (`Api.scalar_payload` with `points=None`): the same selection,
placement on the axis, smoothing, difference curves and aggregates as the
tab, without the downsampling. Here they are only laid side by side on the
union of their x:

* `compare`: columns `(kind, series)`, a series named by its run (`run
  [tag]` when a run has two tags of the metric), kinds `value` (as logged), `smoothed`
  (with a smoothing weight), `diff` (run − baseline on the union grid of
  their overlap, NaN outside it; docs/conventions.md "Difference curves")
  and `diff_smoothed`. A run's value is NaN at the x of other runs: values
  are never interpolated into the frame (the diffs are, by definition).
* `aggregate`: columns `(group, stat)`, stats the center (`mean` or
  `median`), `lower`, `upper` (the band), `count` (members with a value),
  and with a baseline group `diff`, `diff_lower`, `diff_upper`,
  `separated`, `count_baseline`.

A series with points at a repeated x keeps the last one logged there (as
the difference curves do); `attrs["collapsed"]` counts the others per run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tb_multiframework.core.diff import last_per_x

COMPARE_KINDS = ("value", "smoothed", "diff", "diff_smoothed")


def _index(xs: Sequence[np.ndarray]) -> np.ndarray:
    if not xs:
        return np.empty(0, dtype=np.float64)
    return np.unique(np.concatenate([np.asarray(x, np.float64) for x in xs]))


def _on_index(index: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y (one per unique sorted x) spread onto the index, NaN elsewhere."""
    out = np.full(index.size, np.nan)
    out[np.searchsorted(index, x)] = y
    return out


def series_labels(
    series: Sequence[dict[str, Any]],
) -> dict[tuple[str, str], str]:
    """(run, tag) -> column label: the run, or `run [tag]` for a run with
    several tags of the metric (VisualDL `Eval/Loss` and `Loss/eval`)."""
    runs = [s["run"] for s in series]
    labels = {
        (s["run"], s["tag"]): (
            s["run"]
            if runs.count(s["run"]) == 1
            else f"{s['run']} [{s['tag']}]"
        )
        for s in series
    }
    if len(set(labels.values())) < len(labels):  # hostile names: `a [b]`
        labels = {
            key: f"{key[0]} [{key[1]}] #{i}" for i, key in enumerate(labels)
        }
    return labels


def compare_columns(
    payload: dict[str, Any], *, smoothing: float
) -> tuple[np.ndarray, dict[tuple[str, str], np.ndarray], dict[str, Any]]:
    """(x index, columns, attrs) of a comparison answer."""
    series = [s for s in payload["series"] if not s.get("excluded")]
    label = series_labels(payload["series"])
    diffs = [d for d in payload["diffs"] if not d.get("excluded")]
    index = _index([s["x"] for s in series] + [d["x"] for d in diffs])
    columns: dict[tuple[str, str], np.ndarray] = {}
    collapsed: dict[str, int] = {}
    kinds = ["value", "smoothed"] if smoothing > 0 else ["value"]
    unique = {}
    for s in series:
        x, y, smoothed = last_per_x(
            np.asarray(s["x"], np.float64),
            np.asarray(s["y"], np.float64),
            np.asarray(s["smoothed"], np.float64),
        )
        name = label[(s["run"], s["tag"])]
        unique[name] = (x, y, smoothed)
        if len(s["x"]) != len(x):
            collapsed[name] = len(s["x"]) - len(x)
    for kind in kinds:
        for name, (x, y, smoothed) in unique.items():
            columns[(kind, name)] = _on_index(
                index, x, y if kind == "value" else smoothed
            )
    diff_kinds = ["diff", "diff_smoothed"] if smoothing > 0 else ["diff"]
    for kind in diff_kinds:
        for d in diffs:
            values = d["y"] if kind == "diff" else d["smoothed"]
            columns[(kind, label[(d["run"], d["tag"])])] = _on_index(
                index, np.asarray(d["x"]), np.asarray(values, np.float64)
            )
    attrs = {
        "tbmf": "compare",
        "x": payload["x"],
        "smoothing": payload["smoothing"],
        "smoothing_mode": payload["smoothingMode"],
        "baseline": payload["baseline"],
        "diff_mode": payload["diffMode"],
        "series": {
            label[(s["run"], s["tag"])]: (s["run"], s["tag"])
            for s in payload["series"]
        },
        "points": {
            label[(s["run"], s["tag"])]: int(s["total"])
            for s in payload["series"]
        },
        "excluded": {
            label[(s["run"], s["tag"])]: s["excluded"]
            for s in payload["series"]
            if s.get("excluded")
        },
        "diff_excluded": {
            label[(d["run"], d["tag"])]: d["excluded"]
            for d in payload["diffs"]
            if d.get("excluded")
        },
        "missing": {m["run"]: m["reason"] for m in payload["missing"]},
        "collapsed": collapsed,
    }
    return index, columns, attrs


def aggregate_columns(
    payload: dict[str, Any],
) -> tuple[np.ndarray, dict[tuple[str, str], np.ndarray], dict[str, Any]]:
    """(x index, columns, attrs) of a grouped answer (`aggregates`)."""
    groups = payload["aggregates"]
    diffs = payload["groupDiffs"]
    index = _index([g["x"] for g in groups] + [d["x"] for d in diffs])
    center = payload["aggregate"]
    columns: dict[tuple[str, str], np.ndarray] = {}
    for g in groups:
        x = np.asarray(g["x"], np.float64)
        columns[(g["group"], center)] = _on_index(index, x, g["y"])
        if g["lower"] is not None:
            columns[(g["group"], "lower")] = _on_index(index, x, g["lower"])
            columns[(g["group"], "upper")] = _on_index(index, x, g["upper"])
        columns[(g["group"], "count")] = _on_index(
            index, x, np.asarray(g["count"], np.float64)
        )
    for d in diffs:
        x = np.asarray(d["x"], np.float64)
        columns[(d["group"], "diff")] = _on_index(index, x, d["y"])
        if d["lower"] is not None:
            columns[(d["group"], "diff_lower")] = _on_index(
                index, x, d["lower"]
            )
            columns[(d["group"], "diff_upper")] = _on_index(
                index, x, d["upper"]
            )
        if d["separated"] is not None:
            columns[(d["group"], "separated")] = _on_index(
                index, x, np.asarray(d["separated"], np.float64)
            )
        columns[(d["group"], "count_baseline")] = _on_index(
            index, x, np.asarray(d["countBaseline"], np.float64)
        )
    attrs = {
        "tbmf": "aggregate",
        "x": payload["x"],
        "smoothing": payload["smoothing"],
        "group_by": payload["groupBy"],
        "center": center,
        "band": payload["band"],
        "baseline_group": payload["baselineGroup"],
        "members": {
            g["group"]: [(m["run"], m["tag"]) for m in g["members"]]
            for g in groups
        },
        "excluded": {
            g["group"]: [(e["run"], e["reason"]) for e in g["excluded"]]
            for g in groups
            if g["excluded"]
        },
        "missing": {m["run"]: m["reason"] for m in payload["missing"]},
    }
    return index, columns, attrs
