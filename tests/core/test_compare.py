"""The orchestrating comparison, the export rows, and core's import purity."""

import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tb_multiframework.core.axes import EpochMap, build_epoch_map
from tb_multiframework.core.compare import (
    MAX_SELECTIONS,
    Selection,
    compare_scalars,
    export_rows,
)
from tb_multiframework.core.downsample import MAX_POINTS
from tb_multiframework.core.types import Excluded, RunInfo
from tests.core.reference_scalars import ema_loop as tb_smooth

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Series:
    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


def make(steps, values, walls=None):
    steps = np.asarray(steps, dtype=np.int64)
    walls = 1000.0 + steps if walls is None else np.asarray(walls, float)
    return Series(steps, walls, np.asarray(values, dtype=np.float64))


def select(name, s, **kw):
    run = RunInfo(name, name, "pytorch", "torch.utils.tensorboard")
    kw.setdefault("run_start_time", 1000.0)
    kw.setdefault("run_last_step", int(s.steps.max()))
    return Selection(run=run, tag="loss", series=s, **kw)


def test_series_sorted_smoothed_and_counted():
    # A restarted run: steps 3, 4 logged twice, out of order in the file.
    s = make([0, 1, 2, 3, 4, 3, 4, 5], [5.0, 4.0, 3.0, 9.0, 9.0, 2.5, 2.0, 1.0])
    out = compare_scalars([select("a", s)], axis="step", smoothing=0.6)
    (r,) = out.series
    assert r.x.tolist() == [0, 1, 2, 3, 3, 4, 4, 5]
    # stable sort: equal steps keep their logged order
    assert r.y.tolist() == [5.0, 4.0, 3.0, 9.0, 2.5, 9.0, 2.0, 1.0]
    np.testing.assert_allclose(r.smoothed, tb_smooth(r.y.tolist(), 0.6))
    assert (r.total, r.returned, r.excluded) == (8, 8, None)


def test_smoothing_runs_over_all_points_before_downsampling():
    rng = np.random.default_rng(8)
    n = 20_000
    s = make(np.arange(n), rng.normal(size=n).cumsum())
    out = compare_scalars(
        [select("a", s)], axis="step", smoothing=0.9, points=50
    )
    (r,) = out.series
    assert r.total == n and r.returned == r.x.size <= 4 * 50
    full = tb_smooth(s.values.tolist(), 0.9)
    np.testing.assert_allclose(r.smoothed, full[r.x.astype(int)], rtol=1e-10)
    # smoothing only the kept points would give something else
    assert not np.allclose(r.smoothed, tb_smooth(r.y.tolist(), 0.9))


def test_diff_against_baseline_at_full_resolution():
    xa = np.arange(0, 100, 3)
    xb = np.arange(10, 120, 7)
    a = make(xa, np.sin(xa / 10.0))
    b = make(xb, np.cos(xb / 10.0))
    out = compare_scalars(
        [select("a", a), select("b", b)], axis="step", baseline="b"
    )
    (d,) = out.diffs
    assert (d.run, d.baseline) == ("a", "b")
    grid = np.union1d(xa, xb).astype(float)
    grid = grid[(grid >= 10) & (grid <= 99)]
    expected = np.interp(grid, xa, np.sin(xa / 10.0)) - np.interp(
        grid, xb, np.cos(xb / 10.0)
    )
    np.testing.assert_array_equal(d.x, grid)
    np.testing.assert_allclose(d.y, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(d.smoothed, expected, rtol=1e-12, atol=1e-12)
    assert d.total == grid.size


def test_excluded_series_says_why_and_is_not_on_another_axis():
    s = make([0, 1, 2], [1.0, 2.0, 3.0])
    emap = build_epoch_map(
        RunInfo("a", "a", "pytorch", "torch.utils.tensorboard"),
        {"a": {"loss": s}},
    )
    assert isinstance(emap, Excluded)
    out = compare_scalars(
        [select("a", s, epoch_map=emap), select("b", s, epoch_map=emap)],
        axis="epoch",
        baseline="b",
    )
    r = out.series[0]
    assert r.excluded.startswith("no epoch information")
    assert (r.total, r.returned, r.x.size) == (3, 0, 0)
    assert out.diffs[0].excluded.startswith("no epoch information")
    body = out.to_json()
    assert body["series"][0]["excluded"] == r.excluded


def test_x_range_keeps_one_neighbour_each_side():
    s = make(np.arange(10), np.arange(10.0))
    out = compare_scalars([select("a", s)], axis="step", x_range=(3.5, 6.0))
    assert out.series[0].x.tolist() == [3, 4, 5, 6, 7]
    assert out.series[0].total == 10


def test_json_shape():
    s = make([0, 1], [1.0, float("nan")])
    body = compare_scalars(
        [select("a", s), select("b", s)], axis="relative", baseline="a"
    ).to_json()
    assert body["x"] == "relative"
    series = body["series"][0]
    assert set(series) >= {
        "run",
        "tag",
        "x",
        "y",
        "yMin",
        "yMax",
        "smoothed",
        "total",
        "returned",
    }
    assert list(series["x"]) == [0.0, 1.0]
    assert math.isnan(series["y"][1])
    assert set(body["diffs"][0]) >= {"run", "baseline", "x", "y"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"axis": "time"}, "'time'"),
        ({"axis": "step", "smoothing": 1.0}, "1.0"),
        ({"axis": "step", "smoothing": -0.1}, "-0.1"),
        ({"axis": "step", "smoothing": float("nan")}, "nan"),
        ({"axis": "step", "smoothing": "0.5"}, "'0.5'"),
        ({"axis": "step", "points": 0}, "got 0"),
        ({"axis": "step", "points": MAX_POINTS + 1}, str(MAX_POINTS + 1)),
        ({"axis": "step", "smoothing_mode": "gauss"}, "'gauss'"),
        ({"axis": "step", "diff_mode": "log"}, "'log'"),
        ({"axis": "step", "baseline": "zzz"}, "'zzz'"),
        ({"axis": "step", "x_range": (5.0, 1.0)}, r"\(5.0, 1.0\)"),
    ],
)
def test_bad_arguments_name_the_value(kwargs, message):
    s = make([0, 1], [1.0, 2.0])
    with pytest.raises(ValueError, match=message):
        compare_scalars([select("a", s)], **kwargs)


def test_too_many_series():
    s = make([0, 1], [1.0, 2.0])
    with pytest.raises(ValueError, match=str(MAX_SELECTIONS)):
        compare_scalars([select("a", s)] * (MAX_SELECTIONS + 1), axis="step")


def test_time_mode_smoothing_is_used():
    s = make([0, 1, 3], [1.0, 2.0, 4.0])
    out = compare_scalars(
        [select("a", s)], axis="step", smoothing=0.5, smoothing_mode="time"
    )
    # spacing = median gap 1.5: weights 0.5**(3/1.5), 0.5**(2/1.5), 1
    w = [0.25, 0.5 ** (2 / 1.5), 1.0]
    expected = (w[0] * 1 + w[1] * 2 + w[2] * 4) / sum(w)
    assert out.series[0].smoothed[-1] == pytest.approx(expected)


def test_export_rows_are_aligned_by_x():
    a = make([2, 0, 1], [20.0, 0.0, 10.0])
    b = make([1, 3], [100.0, 300.0])
    one = EpochMap(source="config: 1 steps/epoch", steps_per_epoch=1.0)
    excluded = select("c", a, epoch_map=Excluded("no epoch information"))
    rows = list(
        export_rows(
            [
                select("a", a, epoch_map=one),
                select("b", b, epoch_map=one),
                excluded,
            ],
            axis="epoch",
            smoothing=0.0,
        )
    )
    assert [(r.x, r.run, r.value) for r in rows] == [
        (0.0, "a", 0.0),
        (1.0, "a", 10.0),
        (1.0, "b", 100.0),
        (2.0, "a", 20.0),
        (3.0, "b", 300.0),
    ]
    assert rows[0].step == 0 and rows[0].wall_time == 1000.0
    assert rows[0].smoothed == 0.0


def test_export_validates_before_streaming():
    with pytest.raises(ValueError, match="'bogus'"):
        export_rows([], axis="bogus")


def test_core_imports_no_server_or_proto_modules():
    code = (
        "import importlib, pkgutil, sys\n"
        "import tb_multiframework.core as core\n"
        "for m in pkgutil.iter_modules(core.__path__):\n"
        "    importlib.import_module('tb_multiframework.core.' + m.name)\n"
        "bad = [n for n in sys.modules if n.split('.')[0] in "
        "('tensorboard', 'werkzeug') or n.startswith('google.protobuf')]\n"
        "print(len(list(pkgutil.iter_modules(core.__path__))))\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) >= 7  # our seven modules at least
