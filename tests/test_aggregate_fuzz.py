"""The aggregate path of `GET scalars`, fuzzed with awkward groups.

Groups mix members that are empty, excluded from the axis, single-point,
all-NaN and disjoint in x with ordinary ones; `api.experiments.aggregates`
(the code behind `aggregate=mean|median`) must answer every group, list
the excluded members, and match numpy's nanmean/nanmedian/nanstd computed
here from the placed members alone. Issue 22: one group whose only member
had no epoch axis turned the whole answer into "zero-size array to
reduction operation minimum which has no identity".
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tb_multiframework.api import experiments
from tb_multiframework.core.compare import PlacedSeries, Selection
from tb_multiframework.core.types import Excluded, RunInfo

SEED = 20261204
KINDS = ("normal", "empty", "excluded", "single", "all_nan", "disjoint")


def _member(rng, kind):
    """(x, y) of one member of the given kind, or None for excluded."""
    if kind == "excluded":
        return None
    if kind == "empty":
        return np.empty(0), np.empty(0)
    if kind == "single":
        return np.array([float(rng.integers(0, 40)) / 4]), rng.normal(size=1)
    n = int(rng.integers(2, 25))
    offset = 100.0 if kind == "disjoint" else 0.0
    x = np.sort(rng.choice(np.arange(80) / 4, size=n, replace=False)) + offset
    y = np.full(n, np.nan) if kind == "all_nan" else rng.normal(size=n)
    if kind == "normal":
        y[rng.random(n) < 0.1] = np.nan
    return x, y


def _reference(members, center):
    """Grid, count, center and sample std of the members, with numpy."""
    xs = [x for x, _ in members if x.size]
    grid = np.unique(np.concatenate(xs)) if xs else np.empty(0)
    rows = []
    for x, y in members:
        row = np.full(grid.size, np.nan)
        if x.size:
            inside = (grid >= x[0]) & (grid <= x[-1])
            for j in np.flatnonzero(inside):
                k = int(np.searchsorted(x, grid[j]))
                if x[k] == grid[j]:
                    row[j] = y[k]
                elif np.isfinite(y[k - 1]) and np.isfinite(y[k]):
                    row[j] = np.interp(
                        grid[j], x[k - 1 : k + 1], y[k - 1 : k + 1]
                    )
        rows.append(row)
    m = np.array(rows).reshape(len(rows), grid.size)
    count = np.sum(~np.isnan(m), axis=0)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        mid = (np.nanmean if center == "mean" else np.nanmedian)(m, axis=0)
        std = np.nanstd(m, axis=0, ddof=1)
    if m.shape[0] == 0:
        mid = np.full(grid.size, np.nan)
    std = np.where(count >= 2, std, np.nan)
    return grid, count, mid, std


def _selection(run):
    info = RunInfo(run=run, group=run)
    return Selection(run=info, tag="loss", series=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("center", ["mean", "median"])
def test_awkward_groups_against_numpy(center):
    rng = np.random.default_rng(SEED)
    print("seed", SEED)
    for trial in range(60):
        placed, selections, names = {}, [], []
        for g in range(int(rng.integers(1, 5))):
            for i in range(int(rng.integers(1, 6))):
                run = f"g{g}/r{i}"
                kind = str(rng.choice(KINDS))
                member = _member(rng, kind)
                placed[run] = member
                selections.append(_selection(run))
                names.append(f"g{g}")

        def place(sel, axis, smoothing, mode, placed=placed):
            found = placed[sel.run.run]
            if found is None:
                return Excluded("no epoch axis: the run logs no epochs")
            x, y = found
            return PlacedSeries(x, y, y, x.astype(np.int64), x)

        baseline = str(rng.choice(sorted(set(names))))
        body = experiments.aggregates(
            selections,
            names,
            experiments.AggregateQuery("group", center, "std", baseline),
            axis="epoch",
            smoothing=0.0,
            smoothing_mode="ema",
            points=None,
            x_range=None,
            place=place,
        )
        assert [a["group"] for a in body["aggregates"]] == sorted(set(names))
        for entry in body["aggregates"]:
            runs = [
                s.run.run
                for s, n in zip(selections, names)
                if n == entry["group"]
            ]
            excluded = [r for r in runs if placed[r] is None]
            assert [e["run"] for e in entry["excluded"]] == excluded, trial
            assert all(
                "no epoch axis" in e["reason"] for e in entry["excluded"]
            )
            members = [placed[r] for r in runs if placed[r] is not None]
            assert [m["run"] for m in entry["members"]] == [
                r for r in runs if placed[r] is not None
            ]
            grid, count, mid, std = _reference(members, center)
            np.testing.assert_array_equal(entry["x"], grid)
            np.testing.assert_array_equal(entry["count"], count)
            np.testing.assert_allclose(entry["y"], mid, rtol=1e-12, atol=1e-12)
            if grid.size:
                np.testing.assert_allclose(
                    np.asarray(entry["upper"]) - mid, std, rtol=1e-9, atol=1e-12
                )
        assert len(body["groupDiffs"]) == len(set(names)) - 1


def test_a_group_of_excluded_members_only():
    """tf2_loop alone on the epoch axis: listed as excluded, no error."""
    body = experiments.aggregates(
        [_selection("tf2_loop"), _selection("keras")],
        ["tf2_loop", "keras"],
        experiments.AggregateQuery("group", "mean", "std", None),
        axis="epoch",
        smoothing=0.0,
        smoothing_mode="ema",
        points=1000,
        x_range=None,
        place=lambda sel, *_: (
            Excluded("no epoch axis")
            if sel.run.run == "tf2_loop"
            else PlacedSeries(
                np.array([1.0, 2.0]),
                np.array([3.0, 4.0]),
                np.array([3.0, 4.0]),
                np.array([1, 2]),
                np.array([0.0, 1.0]),
            )
        ),
    )
    groups = {a["group"]: a for a in body["aggregates"]}
    assert groups["tf2_loop"]["excluded"] == [
        {"run": "tf2_loop", "reason": "no epoch axis"}
    ]
    assert groups["tf2_loop"]["members"] == []
    assert list(groups["tf2_loop"]["x"]) == []
    assert list(groups["keras"]["y"]) == [3.0, 4.0]
