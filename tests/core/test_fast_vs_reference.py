"""The fast scalar path equals the slow reference on random adversarial data.

Every test draws its series from a seeded generator (the seed is printed, so
a failure can be replayed with TBMF_FUZZ_SEED=<seed>): NaN, +-Inf, repeated x
(a restarted run), ragged x ranges, constant series, lengths 0, 1, 2 and
around the smoothing block size, float32 values, huge and tiny magnitudes.
The oracle is `reference_scalars`: plain loops for smoothing and the
implementations the fast path replaced for downsampling and differences.

What must be equal: which points are kept, their x, values, steps and band
(bit for bit: they are copied, never computed), difference values (the same
formula on the same operands) and counts. Smoothed values are sums computed
in another order: equal to rounding (1e-12 of the series' magnitude).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pytest

from tb_multiframework.core.compare import (
    Selection,
    compare_scalars,
    place_series,
)
from tb_multiframework.core.diff import difference_curve
from tb_multiframework.core.downsample import downsample_minmax
from tb_multiframework.core.smoothing import (
    continue_ema,
    smooth_ema,
    smooth_ema_state,
    smooth_time_ema,
)
from tb_multiframework.core.types import RunInfo
from tests.core import reference_scalars as ref

SEEDS = (
    [int(os.environ["TBMF_FUZZ_SEED"])]
    if "TBMF_FUZZ_SEED" in os.environ
    else list(range(40))
)
LENGTHS = (0, 1, 2, 3, 5, 63, 64, 65, 127, 128, 129, 130, 1000, 4097)


@dataclass(frozen=True)
class Series:
    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


def _rng(seed: int) -> np.random.Generator:
    print(f"seed={seed} (replay: TBMF_FUZZ_SEED={seed})")
    return np.random.default_rng(seed)


def random_values(rng: np.random.Generator, n: int) -> np.ndarray:
    """Values with the features that break naive fast paths."""
    kind = int(rng.integers(0, 7))
    scale = 10.0 ** rng.choice([-300, -8, 0, 0, 0, 6, 300])
    if kind == 0:
        y = np.full(n, float(rng.normal()))  # constant
    elif kind == 1:
        y = np.round(rng.normal(size=n) * 3)  # many ties
    elif kind == 2:
        y = rng.normal(size=n).astype(np.float32).astype(np.float64)
    else:
        y = rng.normal(size=n).cumsum()
    y = y * scale
    if n and rng.random() < 0.6:
        for value in (np.nan, np.inf, -np.inf):
            count = int(rng.integers(0, 4))
            y[rng.integers(0, n, count)] = value
    if n and rng.random() < 0.1:
        y[:] = np.nan
    return y


def random_steps(rng: np.random.Generator, n: int) -> np.ndarray:
    """Steps as logged: increasing, with gaps, a restart repeating steps."""
    kind = int(rng.integers(0, 4))
    if kind == 0:
        steps = np.arange(n) * int(rng.integers(1, 5))
    elif kind == 1:
        steps = np.cumsum(rng.integers(0, 3, n))  # repeated steps
    elif kind == 2:
        steps = np.sort(rng.integers(0, max(n // 3, 1), n))
    else:  # a restart: steps go back and are logged again
        cut = int(rng.integers(0, n + 1))
        steps = np.r_[np.arange(cut), np.arange(n - cut) + cut // 2]
    return (steps + int(rng.integers(0, 50))).astype(np.int64)


def random_selection(rng: np.random.Generator, name: str, n: int) -> Selection:
    steps = random_steps(rng, n)
    walls = 1.7e9 + np.sort(rng.uniform(0, 1e4, n))
    series = Series(steps, walls, random_values(rng, n))
    run = RunInfo(name, name, "pytorch", "torch.utils.tensorboard")
    return Selection(
        run=run,
        tag="loss",
        series=series,
        run_start_time=1.7e9,
        run_last_step=int(steps.max()) if n else 1,
    )


def assert_close(got, expected, label):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, label
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(np.isfinite(got), finite, err_msg=label)
    np.testing.assert_array_equal(
        got[~finite], expected[~finite], err_msg=label
    )
    if finite.any():
        scale = max(np.abs(expected[finite]).max(), np.finfo(float).tiny)
        error = np.abs(got[finite] - expected[finite]).max() / scale
        assert error < 1e-12, f"{label}: relative error {error}"


def assert_same(got, expected, label):
    np.testing.assert_array_equal(
        np.asarray(got), np.asarray(expected), err_msg=label
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_smoothing_equals_sequential_loops(seed):
    rng = _rng(seed)
    for n in LENGTHS:
        y = random_values(rng, n)
        for w in (0.0, 0.05, 0.6, 0.99, 0.999):
            assert_close(smooth_ema(y, w), ref.ema_loop(y, w), f"ema n={n}")
            x = np.sort(rng.uniform(0, 100, n))
            if n > 2 and rng.random() < 0.3:
                x = np.arange(n) * 2.5  # evenly spaced: one decay
            if n > 3:
                x[2] = x[1]  # a repeated x
            if w < 1:
                assert_close(
                    smooth_time_ema(x, y, w),
                    ref.time_ema_loop(x, y, w),
                    f"time n={n} w={w}",
                )


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_ema_continued_over_appends_equals_one_pass(seed):
    rng = _rng(seed)
    n = int(rng.integers(1, 3000))
    y = random_values(rng, n)
    cuts = np.sort(rng.integers(1, n + 1, 3))
    w = float(rng.choice([0.3, 0.9, 0.999]))
    smoothed, state = smooth_ema_state(y[: cuts[0]], w)
    parts = [smoothed]
    start = int(cuts[0])
    for cut in [*cuts[1:].tolist(), n]:
        step = continue_ema(state, y[start:cut], w)
        if step is None:  # a constant series broken: smooth again
            smoothed, state = smooth_ema_state(y[:cut], w)
            parts = [smoothed]
        else:
            parts.append(step[0])
            state = step[1]
        start = cut
    assert_close(np.concatenate(parts), ref.ema_loop(y, w), "continued")


@pytest.mark.parametrize("seed", SEEDS)
def test_downsampling_keeps_the_same_points_and_band(seed):
    rng = _rng(seed)
    for n in (*LENGTHS, int(rng.integers(5000, 30000))):
        kind = int(rng.integers(0, 5))
        if kind == 0:
            x = np.sort(rng.uniform(-1e3, 1e3, n))
        elif kind == 1:
            x = np.sort(rng.integers(0, 40, n)).astype(np.float64)
        elif kind == 2:  # huge and tiny x spans
            x = np.cumsum(rng.exponential(size=n)) * 10.0 ** rng.uniform(
                -300, 300
            )
        elif kind == 3:
            x = np.arange(n, dtype=np.float64)
        else:  # two clusters far apart: most buckets empty
            x = np.sort(
                np.r_[rng.uniform(0, 1, n // 2), rng.uniform(1e6, 1e6 + 1, n)]
            )[:n]
        y = random_values(rng, n)
        for buckets in (1, 2, 7, int(rng.integers(1, 2000))):
            kept, band_min, band_max = ref.downsample(x, y, buckets)
            out = downsample_minmax(x, y, buckets=buckets)
            label = f"n={n} kind={kind} buckets={buckets}"
            assert_same(out.indices, kept, label)
            assert_same(out.x, x[kept], label)
            assert_same(out.y, y[kept], label)
            assert_same(out.y_min, band_min, label)
            assert_same(out.y_max, band_max, label)
            assert out.total == n and out.returned == kept.size


@pytest.mark.parametrize("seed", SEEDS)
def test_difference_curves_equal_reference(seed):
    rng = _rng(seed)
    for _ in range(6):
        a = random_selection(rng, "a", int(rng.choice(LENGTHS)))
        b = random_selection(rng, "b", int(rng.choice(LENGTHS)))
        if rng.random() < 0.4:  # the usual case: the same steps
            b = random_selection(rng, "b", a.series.values.size)
            b = Selection(
                b.run,
                b.tag,
                Series(a.series.steps, b.series.wall_times, b.series.values),
            )
        pa = place_series(a, "step")
        pb = place_series(b, "step")
        for mode in ("difference", "ratio"):
            grid, expected = ref.difference(pa.x, pa.y, pb.x, pb.y, mode)
            out = difference_curve(pa.x, pa.y, pb.x, pb.y, mode=mode)
            assert_same(out.x, grid, mode)
            assert_same(out.y, expected, mode)


@pytest.mark.parametrize("seed", SEEDS)
def test_comparison_equals_reference(seed):
    rng = _rng(seed)
    count = int(rng.integers(1, 6))
    selections = [
        random_selection(rng, f"run{i}", int(rng.choice(LENGTHS)))
        for i in range(count)
    ]
    if rng.random() < 0.5 and count > 1:  # same steps as the first run
        first = selections[0].series
        selections[1] = Selection(
            selections[1].run,
            "loss",
            Series(
                first.steps,
                first.wall_times,
                random_values(rng, first.values.size),
            ),
            run_start_time=1.7e9,
            run_last_step=selections[0].run_last_step,
        )
    axis = str(rng.choice(["step", "wall", "relative", "progress"]))
    smoothing = float(rng.choice([0.0, 0.0, 0.6, 0.95]))
    mode = str(rng.choice(["ema", "time"]))
    points = int(rng.choice([1, 4, 10, 100, 2000]))
    baseline = selections[int(rng.integers(0, count))].run.run
    x_range = None
    if rng.random() < 0.5:
        lo, hi = np.sort(rng.uniform(-50, 1500, 2))
        if axis in ("wall",):
            lo, hi = lo + 1.7e9, hi + 1.7e9
        if axis == "progress":
            lo, hi = lo / 1500, hi / 1500
        x_range = (float(lo), float(hi))
    for diff_mode in ("difference", "ratio"):
        arguments = dict(
            axis=axis,
            smoothing=smoothing,
            smoothing_mode=mode,
            points=points,
            baseline=baseline,
            diff_mode=diff_mode,
            x_range=x_range,
        )
        got = compare_scalars(selections, **arguments)
        expected = ref.reference_compare(selections, **arguments)
        label = f"{arguments}"
        for s, e in zip(got.series, expected["series"], strict=True):
            if "excluded" in e:
                assert s.excluded == e["excluded"]
                continue
            for field in ("x", "y", "steps"):
                assert_same(getattr(s, field), e[field], f"{label} {field}")
            assert_same(s.y_min, e["yMin"], label)
            assert_same(s.y_max, e["yMax"], label)
            assert_close(s.smoothed, e["smoothed"], f"{label} smoothed")
            assert s.returned == e["returned"]
            assert s.total == s.steps.size or s.total >= s.returned
        for d, e in zip(got.diffs, expected["diffs"], strict=True):
            if "excluded" in e:
                assert d.excluded
                continue
            assert_same(d.x, e["x"], label)
            assert_same(d.y, e["y"], label)
            assert_same(d.y_min, e["yMin"], label)
            assert_same(d.y_max, e["yMax"], label)
            assert (d.total, d.returned) == (e["total"], e["returned"])
            _assert_smoothed_diff(d.smoothed, e["smoothed"], label)


def _assert_smoothed_diff(got, expected, label):
    """Differences of smoothed values: each operand equal to rounding, so
    the difference is too, relative to the operands' magnitude (a
    cancellation leaves only the rounding)."""
    got, expected = np.asarray(got), np.asarray(expected)
    finite = np.isfinite(expected) & np.isfinite(got)
    assert_same(np.isnan(got), np.isnan(expected), label)
    if finite.any():
        scale = max(np.abs(expected[finite]).max(), 1e-300)
        assert np.all(np.abs(got - expected)[finite] <= 1e-10 * scale), label


def test_huge_and_tiny_values_smooth_without_overflow():
    y = np.array([1e300, -1e300, 1e-300, 5e299] * 100)
    for w in (0.5, 0.99):
        assert_close(smooth_ema(y, w), ref.ema_loop(y, w), "huge")
    assert math.isfinite(smooth_ema(y, 0.5)[-1])
