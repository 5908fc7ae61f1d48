"""core/anomalies: each detector on curves built here with numpy, where the
answer is known from the construction (the injected step, period, growth),
plus the robust helpers against plain reference implementations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tb_multiframework.core import anomalies
from tb_multiframework.core.anomalies.robust import (
    coarse_view,
    mad_sigma,
    rolling_median,
)
from tb_multiframework.core.anomalies.schedule import Schedule
from tb_multiframework.core.direction import (
    is_counter,
    is_learning_rate,
    metric_direction,
)

SEED = 20261130


def rng(offset: int = 0) -> np.random.Generator:
    return np.random.default_rng(SEED + offset)


def loss_curve(n: int, noise: float = 0.02, offset: int = 0) -> np.ndarray:
    t = np.arange(n)
    trend = 0.2 + 2.0 * np.exp(-t / (0.2 * n))
    return trend * (1 + noise * rng(offset).standard_normal(n))


def kinds_of(found: list[anomalies.Anomaly]) -> list[str]:
    return [a.kind for a in found]


# The direction of a metric.


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("loss/train", "lower"),
        ("Loss/val", "lower"),
        ("epoch_loss", "lower"),
        ("LossBand/upper", "lower"),
        ("val_mse", "lower"),
        ("top1_error", "lower"),
        ("perplexity/val", "lower"),
        ("step_time", "lower"),
        ("time_per_step", "lower"),
        ("accuracy/val", "higher"),
        ("Accuracy/train", "higher"),
        ("eval/acc", "higher"),
        ("val_auc", "higher"),
        ("f1/test", "higher"),
        ("mIoU", "higher"),
        ("mAP/val", "higher"),
        ("samples_per_sec", "higher"),
        ("tokens-per-second", "higher"),
        ("reward/episode", "higher"),
        ("learning_rate", None),
        ("lr", None),
        ("grad_norm", None),
        ("epoch", None),
        ("", None),
    ],
)
def test_metric_direction(name: str, expected: str | None) -> None:
    assert metric_direction(name) == expected


def test_schedules_and_counters() -> None:
    assert is_learning_rate("learning_rate/train")
    assert is_learning_rate("Train/LR")
    assert is_learning_rate("epoch_learning_rate")
    assert not is_learning_rate("loss/train")
    assert is_counter("epoch")
    assert is_counter("global_step")
    assert not is_counter("epoch_loss")


# Robust helpers against plain implementations.


def test_rolling_median_matches_a_loop() -> None:
    for case in range(20):
        gen = rng(case)
        n = int(gen.integers(1, 60))
        width = int(gen.choice([1, 3, 5, 11]))
        y = gen.standard_normal(n) * 10 ** gen.uniform(-3, 3)
        got = rolling_median(y, width)
        w = width if n >= width else (n if n % 2 else n - 1)
        w = max(w, 1)
        half = w // 2
        # Point reflection about the first point, written out by hand;
        # near the end the last w points.
        padded = [2 * y[0] - y[k] for k in range(half, 0, -1)] + list(y)
        expected = []
        for i in range(n):
            start = min(i, len(padded) - w)
            expected.append(float(np.median(padded[start : start + w])))
        np.testing.assert_allclose(got, expected, rtol=0, atol=0)


def test_a_spike_at_the_last_point_is_found() -> None:
    y = loss_curve(500, noise=0.03)
    y[-1] *= 6
    found = anomalies.detect_series(np.arange(500), y, direction="lower")
    assert [(a.kind, a.start_step) for a in found] == [("spike", 499)]


def test_mad_sigma_of_normal_noise() -> None:
    sample = rng().standard_normal(200_000) * 3.0
    assert mad_sigma(sample) == pytest.approx(3.0, rel=0.01)


def test_coarse_view_covers_every_point() -> None:
    y = rng().standard_normal(1001)
    coarse = coarse_view(y, points=100)
    assert coarse.starts[0] == 0 and coarse.stops[-1] == len(y)
    assert np.all(coarse.stops[:-1] == coarse.starts[1:])
    for k in (0, 50, len(coarse) - 1):
        part = y[coarse.starts[k] : coarse.stops[k]]
        assert coarse.values[k] == np.median(part)


# Single series.


def test_nonfinite_runs_and_counts() -> None:
    y = loss_curve(500)
    y[100] = np.nan
    y[101] = np.inf
    y[300:] = np.nan
    steps = np.arange(500) * 10
    found = anomalies.detect_series(steps, y, direction="lower")
    nonfinite = [a for a in found if a.kind == "nonfinite"]
    bad = np.flatnonzero(~np.isfinite(y))
    assert [(a.start_step, a.end_step) for a in nonfinite] == [
        (1000, 1010),
        (3000, 4990),
    ]
    assert sum(
        a.evidence["nan"] + a.evidence["posInf"] for a in nonfinite
    ) == len(bad)
    assert nonfinite[1].evidence["toEnd"] is True
    assert "to the end" in nonfinite[1].message
    # No other detector reads the non-finite points.
    assert set(kinds_of(found)) == {"nonfinite"}


def test_spike_on_a_noisy_loss_and_nothing_on_the_clean_one() -> None:
    y = loss_curve(2000, noise=0.05)
    assert anomalies.detect_series(np.arange(2000), y, direction="lower") == []
    spiked = y.copy()
    spiked[1234] = 4.0 * y[1234]
    found = anomalies.detect_series(np.arange(2000), spiked, direction="lower")
    assert kinds_of(found) == ["spike"]
    assert (found[0].start_step, found[0].end_step) == (1234, 1234)
    assert found[0].evidence["value"] == spiked[1234]
    trend = np.median(spiked[1229:1240])
    assert found[0].evidence["trend"] == pytest.approx(trend, rel=0.05)


def test_spike_is_scale_free() -> None:
    y = loss_curve(1000, noise=0.03)
    y[500] *= 5
    for scale in (1e-6, 1.0, 1e6):
        found = anomalies.detect_series(
            np.arange(1000), y * scale, direction="lower"
        )
        assert [(a.kind, a.start_step) for a in found] == [("spike", 500)]


def test_steps_out_of_order_are_sorted() -> None:
    y = loss_curve(600, noise=0.03)
    y[200] *= 6
    order = rng(1).permutation(600)
    found = anomalies.detect_series(
        np.arange(600)[order], y[order], direction="lower"
    )
    assert [(a.kind, a.start_step, a.start) for a in found] == [
        ("spike", 200, 200)
    ]


def test_cliff_and_its_learning_rate_explanation() -> None:
    n = 3000
    y = loss_curve(n, noise=0.03, offset=2)
    y[2000:] *= 0.3  # 70 % drop that stays
    steps = np.arange(n)
    found = anomalies.detect_series(steps, y, direction="lower")
    assert kinds_of(found) == ["cliff"]
    cliff = found[0]
    assert cliff.start_step <= 2000 <= cliff.end_step + 1
    # The levels of the construction at the drop: 0.2 + 2 e^(-2000/600).
    level = 0.2 + 2.0 * math.exp(-2000 / 600)
    assert cliff.evidence["before"] == pytest.approx(level, rel=0.1)
    assert cliff.evidence["after"] == pytest.approx(0.3 * level, rel=0.15)
    # The learning rate drops by 10x at the same step: a schedule, no cliff.
    lr = np.where(steps < 2000, 0.1, 0.01)
    assert (
        anomalies.detect_series(steps, y, direction="lower", lr=(steps, lr))
        == []
    )
    # ... logged once an epoch of 100 steps: still the same place.
    epochs = steps[99::100]
    assert (
        anomalies.detect_series(
            steps, y, direction="lower", lr=(epochs, lr[99::100])
        )
        == []
    )


def test_accuracy_cliff_goes_up() -> None:
    n = 2000
    t = np.arange(n)
    acc = 0.8 - 0.5 * np.exp(-t / 300) + 0.01 * rng(3).standard_normal(n)
    acc[1500:] = 1 - (1 - acc[1500:]) * 0.2  # error rate falls by 80 %
    found = anomalies.detect_series(t, acc, direction="higher")
    assert kinds_of(found) == ["cliff"]
    assert found[0].evidence["after"] > found[0].evidence["before"]


def test_stepwise_rise_on_a_validation_metric_only() -> None:
    n = 60
    t = np.arange(n)
    val = 0.3 + 0.5 * np.exp(-t / 10) + 0.002 * rng(4).standard_normal(n)
    marks = [20, 30, 40, 50]
    for m in marks:
        val[m:] += 0.06
    found = anomalies.detect_series(t, val, direction="lower", validation=True)
    assert kinds_of(found) == ["stepwise_rise"]
    assert found[0].evidence["steps"] == pytest.approx(marks, abs=1)
    assert found[0].evidence["spacing"] == pytest.approx(10, abs=1)
    assert anomalies.detect_series(t, val, direction="lower") == []


def test_plateau_where_the_noise_collapses() -> None:
    n = 4000
    y = loss_curve(n, noise=0.05, offset=5)
    y[1000:1800] = y[1000] + 0.001 * (y[1000:1800] - np.median(y[1000:1800]))
    y[1800:] = loss_curve(n, noise=0.05, offset=5)[1000 : n - 800]
    found = anomalies.detect_series(np.arange(n), y, direction="lower")
    plateaus = [a for a in found if a.kind == "plateau"]
    assert len(plateaus) == 1
    assert plateaus[0].start_step <= 1100 and plateaus[0].end_step >= 1700
    assert plateaus[0].evidence["noiseRatio"] < 0.25


def test_warm_up_explains_a_flat_start() -> None:
    n = 3000
    steps = np.arange(n)
    lr = np.minimum(1.0, (steps + 1) / 600)
    progress = np.cumsum(lr) / lr.sum()
    y = 0.1 + 2 * np.exp(-5 * progress)
    y[200:500] = y[200]  # flat while the rate is still ramping
    assert [
        a.kind
        for a in anomalies.detect_series(
            steps, y, direction="lower", lr=(steps, lr)
        )
        if a.kind == "plateau"
    ] == []


def test_oscillation_period_and_amplitude() -> None:
    n = 8192
    t = np.arange(n)
    y = loss_curve(n, noise=0.0) + 0.01 * rng(6).standard_normal(n)
    y[2048:] += 0.03 * np.sin(2 * math.pi * t[2048:] / 32)
    found = anomalies.detect_series(t * 5, y, direction="lower")
    assert kinds_of(found) == ["oscillation"]
    osc = found[0].evidence
    assert osc["periodPoints"] == pytest.approx(32, rel=0.03)
    assert osc["period"] == pytest.approx(32 * 5, rel=0.03)
    assert osc["amplitude"] == pytest.approx(0.03, rel=0.25)
    assert found[0].start_step >= 2048 * 5 - 1024 * 5


def test_explosion_decades() -> None:
    n = 1000
    t = np.arange(n)
    y = loss_curve(n, noise=0.05, offset=7)
    growth = np.where(t >= 600, 10 ** (5 * (t - 600) / 399), 1.0)
    found = anomalies.detect_series(t, y * growth, direction="lower")
    assert kinds_of(found) == ["explosion"]
    expected = math.log10(y[-20:].mean() * 1e5 / y[560:600].mean())
    assert found[0].evidence["decades"] == pytest.approx(expected, abs=0.5)
    assert 550 <= found[0].start_step <= 700
    # An accuracy climbing from ~0 to 0.9 gains decades too: not a fault.
    acc = 0.9 - 0.9 * np.exp(-t / 100) + 1e-6
    assert anomalies.detect_series(t, acc, direction="higher") == []


def test_unknown_kind_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match="sparkle"):
        anomalies.detect_series(np.arange(3), np.ones(3), kinds=["sparkle"])


def test_bad_shapes_are_errors() -> None:
    with pytest.raises(ValueError, match="one length"):
        anomalies.detect_series(np.arange(3), np.ones(4))


def test_constant_and_tiny_series_flag_nothing() -> None:
    for n in (0, 1, 2, 5, 30, 500):
        assert anomalies.detect_series(np.arange(n), np.ones(n)) == []
    assert anomalies.detect_series(np.arange(100), np.zeros(100)) == []


# Pairs and groups.


def pair(n_train: int = 5000, epochs: int = 50, offset: int = 8):
    t = np.arange(n_train)
    train = loss_curve(n_train, noise=0.05, offset=offset)
    per_epoch = n_train // epochs
    ends = (np.arange(epochs) + 1) * per_epoch - 1
    val = (0.25 + 2.0 * np.exp(-ends / (0.2 * n_train))) * (
        1 + 0.005 * rng(offset + 1).standard_normal(epochs)
    )
    return t, train, ends, val


def test_overfitting_from_the_epoch_it_starts() -> None:
    t, train, ends, val = pair()
    clean_t, clean_v = anomalies.detect_pair(
        (t, train), (ends, val), direction="lower"
    )
    assert clean_t == [] and clean_v == []
    rising = val.copy()
    rising[30:] += 0.5 * (np.arange(20) / 19) ** 1.5
    on_train, on_val = anomalies.detect_pair(
        (t, train),
        (ends, rising),
        direction="lower",
        val_x=np.arange(50) + 1.0,
        train_x=(t + 1) / 100,
        axis="epoch",
    )
    assert on_train == []
    assert kinds_of(on_val) == ["overfitting"]
    best = int(np.argmin(rising))
    assert on_val[0].evidence["bestStep"] == pytest.approx(ends[best], abs=200)
    assert "epoch" in on_val[0].message


def test_drift_of_both_and_not_overfitting() -> None:
    t, train, ends, val = pair(offset=9)
    ramp_t = np.clip((t - 2500) / 2500, 0, None) * 0.6
    ramp_v = np.clip((ends - 2500) / 2500, 0, None) * 0.6
    on_train, on_val = anomalies.detect_pair(
        (t, train + ramp_t), (ends, val + ramp_v), direction="lower"
    )
    assert kinds_of(on_train) == ["drift"] and kinds_of(on_val) == ["drift"]
    assert on_train[0].start_step == pytest.approx(2500, abs=600)


def ranks(count: int = 4, n: int = 2000, offset: int = 10):
    return [
        (np.arange(n), loss_curve(n, noise=0.05, offset=offset + r))
        for r in range(count)
    ]


def test_rank_desync_one_rank_moves_away() -> None:
    members = ranks()
    names = [f"rank_{r}" for r in range(4)]
    assert all(
        items == [] for items in anomalies.detect_group(members, names=names)
    )
    steps, values = members[2]
    moved = values.copy()
    moved[1200:] += 0.5 * np.median(values[1200:])
    members[2] = (steps, moved)
    found = anomalies.detect_group(members, names=names)
    assert [len(items) for items in found] == [0, 0, 1, 0]
    assert found[2][0].kind == "rank_desync"
    assert found[2][0].start_step == pytest.approx(1200, abs=60)
    assert "rank_2" in found[2][0].message


def test_rank_desync_a_hung_rank() -> None:
    members = ranks(3)
    steps, values = members[1]
    members[1] = (steps[:800], values[:800])
    found = anomalies.detect_group(members, names=["a", "b", "c"])
    assert [len(items) for items in found] == [0, 1, 0]
    assert found[1][0].start_step == 799
    assert "stops at step 799" in found[1][0].message


def test_resolve_drops_what_an_explosion_explains() -> None:
    def make(kind: str, start: int, end: int) -> anomalies.Anomaly:
        return anomalies.Anomaly(kind, start, end, start, end, 0.5, kind, {})

    kept = anomalies.resolve(
        [
            make("spike", 50, 50),
            make("explosion", 40, 99),
            make("spike", 10, 10),
        ]
    )
    assert [(a.kind, a.start) for a in kept] == [
        ("spike", 10),
        ("explosion", 40),
    ]


def test_schedule_jumps() -> None:
    steps = np.arange(1000)
    step_lr = np.where(steps < 300, 0.1, np.where(steps < 700, 0.01, 0.001))
    assert Schedule(steps, step_lr).jumps.tolist() == [[299, 300], [699, 700]]
    cosine = 0.1 * 0.5 * (1 + np.cos(math.pi * steps / 999))
    assert Schedule(steps, cosine).jumps.tolist() == []


@pytest.mark.parametrize(("per_epoch", "noise"), [(50, 0.0), (10, 0.001)])
def test_a_staircase_rise_is_a_stepwise_rise_not_oscillation(
    per_epoch: int, noise: float
) -> None:
    """A validation loss logged several times per evaluation, worse by the
    same 0.03 at each of 20 evaluations: treads and risers by hand."""
    rng = np.random.default_rng(3)
    steps = np.arange(20 * per_epoch)
    val = 0.5 + 0.03 * (steps // per_epoch) + noise * rng.standard_normal(
        steps.size
    )
    train = np.exp(-steps / (steps.size / 3)) + 0.01 * rng.standard_normal(
        steps.size
    )
    found = anomalies.detect_series(
        steps, val, direction="lower", validation=True
    )
    _, pair = anomalies.detect_pair(
        (steps, train), (steps, val), direction="lower"
    )
    kinds = {a.kind for a in anomalies.resolve([*found, *pair])}
    assert kinds == {"stepwise_rise"}
    (rise,) = [a for a in found if a.kind == "stepwise_rise"]
    # the 19 risers: between the last point of level k and the first of k+1
    assert rise.evidence["steps"] == [per_epoch * k for k in range(1, 20)]
    assert rise.evidence["total"] == pytest.approx(19 * 0.03, abs=0.01)


def test_a_staircase_down_or_a_noisy_rise_is_no_staircase() -> None:
    steps = np.arange(1000)
    falling = 1.0 - 0.03 * (steps // 50)
    found = anomalies.detect_series(
        steps, falling, direction="lower", validation=True
    )
    assert "stepwise_rise" not in {a.kind for a in found}
    rng = np.random.default_rng(5)
    noisy = 0.5 + 0.0003 * steps + 0.01 * rng.standard_normal(steps.size)
    found = anomalies.detect_series(
        steps, noisy, direction="lower", validation=True
    )
    assert "stepwise_rise" not in {a.kind for a in found}
