"""Labelled anomaly cases: clean training curves, and the same curves with
one anomaly injected at a random place and strength, with the truth.

    python bench/anomaly_cases.py --seed 2 --out /tmp/cases   # write a set
    python bench/anomaly_cases.py --seed 2 --score           # score it

Clean curves come in many shapes: exponential and power-law decay, a
rising accuracy (binomial batch noise: k/B values), cosine and step
learning-rate schedules (the loss follows the cumulative rate; a step
decay drops it at once) and linear warm-up (these log their learning
rate, as runs do), a gradient norm with log-normal noise, validation
curves one point an epoch; smooth or noisy (Gaussian, or Student-t with
8 degrees of freedom), 100 to 100,000 points, logged every 1, 10 or 50
steps. Pairs (training + validation) and groups of 2-8 DDP ranks too.

Each kind is injected as a practitioner would recognise it on a chart;
the strengths are drawn from ranges written next to each injector (e.g.
a spike is 20-60 noise sigmas or 30-200 % of the level off the trend).
A case holds its series, which series is the learning rate, the pair or
group, and the truth: (series, kind, first step, last step).

Scoring (`score`): a finding is a hit when its kind is the injected kind
and its step range overlaps the injected range on the same series (on
any member of a group, for rank_desync). Per kind, recall = cases whose
injection was hit / cases, precision = findings that hit / findings of
that kind anywhere (clean cases and other kinds' cases included). Clean
false flags: findings on clean cases per 100 clean series.

Seeds: the detectors' thresholds were tuned on seeds 1 to 5
(`TUNE_SEEDS`, scored together); the test scores seed 12 (`SCORE_SEED`),
which was not looked at while tuning. (Seed 11 was the first held-out
seed; its table was seen once, mid-way, so it was retired.)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tb_multiframework.core import anomalies  # noqa: E402
from tb_multiframework.core.anomalies import (  # noqa: E402
    GROUP_KINDS,
    PAIR_KINDS,
    SERIES_KINDS,
)

TUNE_SEEDS = (1, 2, 3, 4, 5)
SCORE_SEED = 12
SINGLE_SHAPES = (
    "exp",
    "power",
    "accuracy",
    "cosine",
    "step",
    "warmup",
    "gradnorm",
)
ALL_KINDS = SERIES_KINDS + PAIR_KINDS + GROUP_KINDS  # the order cases are made


@dataclasses.dataclass
class Curve:
    """One scalar series of a case."""

    steps: np.ndarray
    values: np.ndarray
    direction: str | None
    role: str  # train | val | lr | rank


@dataclasses.dataclass
class Truth:
    series: str
    kind: str
    start_step: int
    end_step: int


@dataclasses.dataclass
class Case:
    """A labelled case: its series, how they relate, what was injected."""

    id: str
    kind: str  # "clean" or the injected kind
    shape: str
    series: dict[str, Curve]
    lr: str | None = None  # name of the learning-rate series
    pair: tuple[str, str] | None = None  # (train, val)
    group: tuple[str, ...] | None = None
    truth: list[Truth] = dataclasses.field(default_factory=list)

    def clean_series(self) -> int:
        """Series a detector looks at (the learning rate is an input)."""
        return sum(1 for c in self.series.values() if c.role != "lr")


# Clean curves.


@dataclasses.dataclass
class _Trace:
    """A curve under construction: trend, noise model, learning rate."""

    trend: np.ndarray  # the noise-free curve in the metric's own units
    direction: str | None
    noise: str  # none | gauss | student | binomial | lognormal
    sigma: np.ndarray  # per point noise sigma (relative for lognormal)
    batch: int = 0  # binomial batch size
    lr: np.ndarray | None = None
    milestones: tuple[int, ...] = ()  # indices where the rate jumps

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        values = _sample(rng, self.trend, self.noise, self.sigma, self.batch)
        if self.direction == "higher":  # an accuracy stays in [0, 1]
            values = np.clip(values, 0.0, 1.0)
        return values

    def level(self, i: int) -> float:
        """The badness level (up = worse, 0 = perfect) at point i."""
        value = float(self.trend[i])
        return 1.0 - value if self.direction == "higher" else value

    def sigma_at(self, i: int) -> float:
        if self.noise == "binomial":
            p = float(np.clip(self.trend[i], 0.0, 1.0))
            return math.sqrt(max(p * (1 - p), 1e-4) / self.batch)
        if self.noise == "lognormal":
            return float(self.sigma[i] * abs(self.trend[i]))
        return float(self.sigma[i])


def _sample(
    rng: np.random.Generator,
    trend: np.ndarray,
    noise: str,
    sigma: np.ndarray,
    batch: int,
) -> np.ndarray:
    n = len(trend)
    if noise == "none":
        return trend.copy()
    if noise == "binomial":
        return rng.binomial(batch, np.clip(trend, 0.0, 1.0)) / batch
    if noise == "lognormal":
        return trend * np.exp(sigma * rng.standard_normal(n))
    if noise == "student":
        # Scaled to unit variance: t(8) has variance 8/6.
        return trend + sigma * rng.standard_t(8, n) / math.sqrt(8 / 6)
    return trend + sigma * rng.standard_normal(n)


def _log_uniform(rng: np.random.Generator, low: float, high: float) -> float:
    return float(math.exp(rng.uniform(math.log(low), math.log(high))))


def _length(
    rng: np.random.Generator, low: int = 100, high: int = 100_000
) -> int:
    return int(_log_uniform(rng, low, high))


def _noise_model(
    rng: np.random.Generator, trend: np.ndarray, smooth_share: float = 0.25
) -> tuple[str, np.ndarray]:
    """Smooth, or Gaussian / Student-t noise, multiplicative or additive."""
    n = len(trend)
    if rng.random() < smooth_share:
        return "none", np.zeros(n)
    relative = _log_uniform(rng, 0.003, 0.2)
    if rng.random() < 0.5:
        sigma = relative * np.abs(trend)  # noise follows the level
    else:
        sigma = np.full(n, relative * float(np.median(np.abs(trend))))
    return ("student" if rng.random() < 0.25 else "gauss"), sigma


def _schedule_progress(lr: np.ndarray) -> np.ndarray:
    """Training progress 0..1 as the cumulative learning rate."""
    total = np.cumsum(lr)
    return total / total[-1]


def clean_trace(rng: np.random.Generator, shape: str, n: int) -> _Trace:
    """A noise-free curve of `shape` with its noise model."""
    t = np.arange(n, dtype=np.float64)
    u = t / max(n - 1, 1)
    if shape == "accuracy":
        top = rng.uniform(0.6, 0.995)
        start = rng.uniform(0.02, 0.4)
        tau = rng.uniform(0.03, 0.4)
        trend = top - (top - start) * np.exp(-u / tau)
        if rng.random() < 0.6:
            batch = int(rng.choice([32, 64, 128, 256]))
            return _Trace(trend, "higher", "binomial", np.zeros(n), batch)
        noise, sigma = _noise_model(rng, trend)
        sigma = np.minimum(sigma, 0.05)
        return _Trace(trend, "higher", noise, sigma)
    if shape == "gradnorm":
        trend = rng.uniform(0.2, 2) + rng.uniform(1, 20) * np.exp(
            -u / rng.uniform(0.02, 0.3)
        )
        return _Trace(
            trend, None, "lognormal", np.full(n, rng.uniform(0.02, 0.25))
        )
    scale = _log_uniform(rng, 1e-4, 10.0)
    floor = rng.uniform(0.0, 0.4) * scale
    lr = None
    milestones: tuple[int, ...] = ()
    if shape == "exp":
        trend = floor + scale * np.exp(-u / rng.uniform(0.03, 0.5))
    elif shape == "power":
        t0 = rng.uniform(0.002, 0.05)
        alpha = rng.uniform(0.3, 1.5)
        trend = floor + scale * (1 + u / t0) ** -alpha
    else:
        lr0 = _log_uniform(rng, 1e-4, 0.5)
        if shape == "cosine":
            lr = lr0 * 0.5 * (1 + np.cos(math.pi * u))
        elif shape == "step":
            count = int(rng.integers(2, 4))
            factor = float(rng.choice([0.1, 0.2, 0.5]))
            marks = np.sort(rng.uniform(0.25, 0.9, count))
            while count > 1 and np.diff(marks).min() < 0.1:
                marks = np.sort(rng.uniform(0.25, 0.9, count))
            milestones = tuple(int(m * n) for m in marks)
            lr = lr0 * factor ** np.searchsorted(
                np.array(milestones), np.arange(n), side="right"
            )
        else:  # warmup, then constant or cosine
            warm = max(2, int(rng.uniform(0.02, 0.1) * n))
            lr = np.full(n, lr0)
            if rng.random() < 0.5:
                rest = np.arange(n - warm) / max(n - warm - 1, 1)
                lr[warm:] = lr0 * 0.5 * (1 + np.cos(math.pi * rest))
                lr[warm:] = np.maximum(lr[warm:], lr0 * 1e-3)
            lr[:warm] = lr0 * (np.arange(warm) + 1) / warm
        progress = _schedule_progress(lr)
        trend = floor + scale * np.exp(-progress * rng.uniform(2, 6))
        # The noise floor of SGD shrinks with the rate: a step decay makes
        # the loss drop at once.
        trend += 0.2 * scale * np.sqrt(lr / lr0)
    noise, sigma = _noise_model(rng, trend)
    return _Trace(trend, "lower", noise, sigma, lr=lr, milestones=milestones)


def _steps(rng: np.random.Generator, n: int) -> np.ndarray:
    stride = int(rng.choice([1, 1, 1, 10, 50]))
    return np.arange(n, dtype=np.int64) * stride


def _single(
    rng: np.random.Generator, case_id: str, shape: str, n: int
) -> tuple[Case, _Trace]:
    trace = clean_trace(rng, shape, n)
    steps = _steps(rng, n)
    series = {
        "train": Curve(steps, trace.sample(rng), trace.direction, "train")
    }
    case = Case(case_id, "clean", shape, series)
    if trace.lr is not None:
        every = 1 if rng.random() < 0.5 else max(1, n // 50)
        keep = np.arange(0, n, every)
        keep = np.union1d(keep, [n - 1])
        series["learning_rate"] = Curve(steps[keep], trace.lr[keep], None, "lr")
        case.lr = "learning_rate"
    return case, trace


def _val_trace(rng: np.random.Generator, n: int) -> _Trace:
    """An epoch-level validation curve: smooth-ish, little noise."""
    shape = str(rng.choice(["exp", "power", "accuracy"]))
    trace = clean_trace(rng, shape, n)
    level = np.abs(trace.trend)
    if trace.noise == "binomial":
        trace.noise, trace.sigma = "gauss", np.minimum(
            np.sqrt(
                np.clip(trace.trend * (1 - trace.trend), 1e-4, None) / 2000
            ),
            0.05,
        )
    elif rng.random() < 0.3:
        trace.noise, trace.sigma = "none", np.zeros(n)
    else:
        trace.noise = "gauss"
        trace.sigma = _log_uniform(rng, 0.002, 0.03) * level
    return trace


def _pair(
    rng: np.random.Generator, case_id: str
) -> tuple[Case, _Trace, _Trace, int]:
    """Training (per batch) and validation (per epoch) of one model."""
    epochs = _length(rng, 10, 200)
    per_epoch = max(1, _length(rng, 20, 500) if epochs < 100 else 50)
    n = epochs * per_epoch
    shape = str(rng.choice(["exp", "power", "accuracy", "cosine"]))
    train = clean_trace(rng, shape, n)
    ends = (np.arange(epochs) + 1) * per_epoch - 1
    gap = rng.uniform(0.0, 0.3)
    if train.direction == "higher":
        val_trend = np.clip(train.trend[ends] * (1 - gap / 3), 0, 1)
    else:
        val_trend = train.trend[ends] * (1 + gap)
    val = _Trace(
        val_trend,
        train.direction,
        "gauss" if rng.random() < 0.7 else "none",
        _log_uniform(rng, 0.002, 0.02) * np.abs(val_trend),
    )
    steps = np.arange(n, dtype=np.int64)
    case = Case(
        case_id,
        "clean",
        f"pair-{shape}",
        {
            "train": Curve(steps, train.sample(rng), train.direction, "train"),
            "val": Curve(steps[ends], val.sample(rng), val.direction, "val"),
        },
        pair=("train", "val"),
    )
    return case, train, val, per_epoch


def _group(rng: np.random.Generator, case_id: str) -> tuple[Case, list[_Trace]]:
    ranks = int(rng.integers(2, 9))
    n = _length(rng, 200, 20_000)
    shape = str(rng.choice(["exp", "power", "accuracy", "cosine"]))
    base = clean_trace(rng, shape, n)
    steps = _steps(rng, n)
    traces = []
    series = {}
    for r in range(ranks):
        trace = dataclasses.replace(base)
        name = f"rank_{r}"
        series[name] = Curve(steps, trace.sample(rng), trace.direction, "rank")
        traces.append(trace)
    case = Case(case_id, "clean", f"group-{shape}", series)
    case.group = tuple(series)
    return case, traces


# Injections: each changes a clean case and records the truth.


def _badness_add(
    trace: _Trace, values: np.ndarray, delta: np.ndarray
) -> np.ndarray:
    """Adds `delta` in the worse direction (clipped for accuracies)."""
    if trace.direction == "higher":
        return np.clip(values - delta, 0.0, 1.0)
    return values + delta


def _truth(case: Case, name: str, kind: str, first: int, last: int) -> None:
    steps = case.series[name].steps
    case.truth.append(Truth(name, kind, int(steps[first]), int(steps[last])))


def inject_spike(rng: np.random.Generator, case: Case, trace: _Trace) -> bool:
    """1-5 points at least 20-60 noise sigmas and 30-200 % of the level
    off the trend, mostly the worse way (a loss up, an accuracy down by
    50-95 %, or more when 20 sigmas need it: not possible on an accuracy
    whose batch noise is too large, then no spike is injected)."""
    curve = case.series["train"]
    n = len(curve.values)
    width = int(rng.choice([1, 1, 1, 2, 3, 4, 5]))
    i = int(rng.integers(int(0.05 * n), int(0.95 * n) - width))
    sigma = max(trace.sigma_at(j) for j in range(i, i + width))
    level = abs(float(trace.trend[i]))
    by_noise = rng.uniform(20, 60) * sigma
    if trace.direction == "higher":
        size = max(rng.uniform(0.5, 0.95) * level, by_noise)
        if size > level:
            return False
        sign = -1.0
    else:
        size = max(by_noise, rng.uniform(0.3, 2.0) * level)
        # A loss can dip by at most 90 % of itself.
        better = trace.direction == "lower" and rng.random() < 0.2
        sign = -1.0 if better and size <= 0.9 * level else 1.0
    peak = int(rng.integers(i, i + width))
    for j in range(i, i + width):
        share = 1.0 if j == peak else rng.uniform(0.6, 1.0)
        curve.values[j] = trace.trend[j] + sign * size * share
    _truth(case, "train", "spike", i, i + width - 1)
    return True


def inject_cliff(rng: np.random.Generator, case: Case, trace: _Trace) -> None:
    """The level (loss, or error rate) drops by 40-90 % at once, and stays."""
    curve = case.series["train"]
    n = len(curve.values)
    for _ in range(50):
        p = int(rng.integers(int(0.2 * n), int(0.8 * n)))
        if all(abs(p - m) > 0.05 * n for m in trace.milestones):
            break
    keep = 1 - rng.uniform(0.4, 0.9)
    tail = slice(p, n)
    if trace.direction == "higher":
        error = 1 - trace.trend[tail]
        trace.trend[tail] = 1 - error * keep
        if trace.noise == "binomial":
            curve.values[tail] = _sample(
                rng,
                trace.trend[tail],
                "binomial",
                trace.sigma[tail],
                trace.batch,
            )
        else:
            curve.values[tail] = 1 - (1 - curve.values[tail]) * keep
    else:
        noise = curve.values[tail] - trace.trend[tail]
        proportional = trace.noise in ("lognormal",) or (
            trace.sigma[0] != trace.sigma[-1]
        )
        curve.values[tail] = trace.trend[tail] * keep + (
            noise * keep if proportional else noise
        )
    _truth(case, "train", "cliff", p - 1, p)


def inject_plateau(rng: np.random.Generator, case: Case, trace: _Trace) -> bool:
    """Stuck for 12-30 % of the run: the level holds, the noise almost
    vanishes (x0-0.1); then training resumes where it stopped (or the
    plateau lasts to the end, on noisy curves). Only where the clean
    curve still improves by 25 % of its range over that stretch."""
    curve = case.series["train"]
    n = len(curve.values)
    bad = trace.trend if trace.direction != "higher" else 1 - trace.trend
    span = float(bad.max() - bad.min())
    for _ in range(50):
        length = int(rng.uniform(0.12, 0.3) * n)
        p = int(rng.integers(int(0.1 * n), int(0.6 * n)))
        if bad[p] - bad[min(n - 1, p + length)] >= 0.25 * span:
            break
    else:
        return False
    to_end = trace.noise != "none" and rng.random() < 0.25
    clean = curve.values.copy()
    stop = n if to_end else p + length
    residual = clean[p:stop] - trace.trend[p:stop]
    curve.values[p:stop] = trace.trend[p] + residual * rng.uniform(0.0, 0.1)
    if not to_end:
        curve.values[stop:] = clean[p : n - length]
    _truth(case, "train", "plateau", p, stop - 1)
    return True


def _wave(kind: str, phase: np.ndarray) -> np.ndarray:
    if kind == "sine":
        return np.sin(2 * math.pi * phase)
    if kind == "square":
        return np.where((phase % 1.0) < 0.5, 1.0, -1.0)
    return 4 * np.abs((phase % 1.0) - 0.5) - 1  # triangle


def inject_oscillation(
    rng: np.random.Generator, case: Case, trace: _Trace
) -> None:
    """A period of 4-200 points (>= 8 cycles) over 40-100 % of the run,
    1.5-4 noise sigmas (or 3-20 % of the level on smooth curves) high:
    a pattern a person sees on the chart."""
    curve = case.series["train"]
    n = len(curve.values)
    period = _log_uniform(rng, 4, max(5, min(200, n / 10)))
    cover = max(rng.uniform(0.4, 1.0) * n, 8 * period)
    a = int(rng.integers(0, max(1, int(n - cover) + 1)))
    b = min(n, int(a + cover))
    index = np.arange(a, b)
    sigma = np.array(
        [trace.sigma_at(i) for i in index[:: max(1, len(index) // 50)]]
    )
    if trace.noise == "none":
        amplitude = rng.uniform(0.03, 0.2) * np.abs(trace.trend[a:b])
    else:
        amplitude = rng.uniform(1.5, 4.0) * float(np.median(sigma))
    wave = _wave(
        str(rng.choice(["sine", "square", "triangle"])),
        (index - a) / period + rng.random(),
    )
    curve.values[a:b] += amplitude * wave
    if trace.direction == "higher":
        curve.values[a:b] = np.clip(curve.values[a:b], 0.0, 1.0)
    _truth(case, "train", "oscillation", a, b - 1)


def inject_explosion(
    rng: np.random.Generator, case: Case, trace: _Trace
) -> None:
    """From 30-85 % of the run, growth by 10^2.5-10^8 by its end."""
    curve = case.series["train"]
    n = len(curve.values)
    p = int(rng.integers(int(0.3 * n), int(0.85 * n)))
    decades = rng.uniform(2.5, 8)
    ramp = (np.arange(n - p) / max(1, n - 1 - p)) ** rng.uniform(1.0, 1.5)
    curve.values[p:] = np.abs(curve.values[p:]) * 10 ** (decades * ramp) + 1e-12
    _truth(case, "train", "explosion", p, n - 1)


def inject_nonfinite(
    rng: np.random.Generator, case: Case, trace: _Trace
) -> None:
    """NaN from a point to the end, a few NaN/Inf, or one of them."""
    curve = case.series["train"]
    n = len(curve.values)
    p = int(rng.integers(int(0.05 * n), int(0.95 * n)))
    mode = rng.random()
    if mode < 0.4:
        curve.values[p:] = np.nan
        _truth(case, "train", "nonfinite", p, n - 1)
        return
    count = 1 if mode > 0.8 else int(rng.integers(2, 6))
    where = np.sort(
        rng.choice(np.arange(p, min(n, p + 20)), size=count, replace=False)
    )
    curve.values[where] = rng.choice([np.nan, np.inf, -np.inf], size=count)
    _truth(case, "train", "nonfinite", int(where[0]), int(where[-1]))


def inject_stepwise(
    rng: np.random.Generator, case: Case, trace: _Trace
) -> bool:
    """2-5 even steps worse, every 6 %+ of the run, each 15-50 % of the
    level and at least 6-12 noise sigmas, on a validation curve (one point
    an epoch). An accuracy falls by at most 70 % of itself in all; where
    that leaves no room for visible steps, none are injected."""
    curve = case.series["train"]
    n = len(curve.values)
    k = int(rng.integers(2, 6))
    first = int(rng.uniform(0.2, 0.5) * n)
    room = (0.92 * n - first) / max(1, k - 1)
    spacing = max(5, int(0.06 * n), int(rng.uniform(0.3, 1.0) * room))
    marks = [
        first + j * spacing for j in range(k) if first + j * spacing < 0.95 * n
    ]
    if len(marks) < 2:
        marks = [first, min(n - 2, first + spacing)]
    delta = np.zeros(n)
    for m in marks:
        step = max(
            rng.uniform(0.15, 0.5) * trace.level(m),
            rng.uniform(6, 12) * trace.sigma_at(m),
        )
        if trace.direction == "higher":
            cap = 0.7 * float(trace.trend[marks[0]]) / len(marks)
            if cap < 6 * trace.sigma_at(m):
                return False
            step = min(step, cap)
        delta[m:] += step
    curve.values[:] = _badness_add(trace, curve.values, delta)
    _truth(case, "train", "stepwise_rise", marks[0] - 1, marks[-1])
    return True


def inject_overfitting(
    rng: np.random.Generator, case: Case, train: _Trace, val: _Trace
) -> None:
    """Validation turns up from 30-75 % of the epochs by 30-100 % of what
    it had improved, while training keeps improving."""
    curve = case.series["val"]
    n = len(curve.values)
    m = int(rng.uniform(0.3, 0.75) * n)
    bad = val.trend if val.direction != "higher" else 1 - val.trend
    improved = float(bad[0] - bad[m])
    rise = rng.uniform(0.3, 1.0) * improved
    ramp = (np.arange(n - m) / max(1, n - 1 - m)) ** rng.uniform(1.0, 2.0)
    delta = np.zeros(n)
    delta[m:] = rise * ramp
    curve.values[:] = _badness_add(val, curve.values, delta)
    _truth(case, "val", "overfitting", m, n - 1)


def inject_drift(
    rng: np.random.Generator, case: Case, train: _Trace, val: _Trace
) -> None:
    """Training and validation worsen together, linearly, from 30-70 % of
    the run to its end, by 30-100 % of each curve's range."""
    start = rng.uniform(0.3, 0.7)
    for name, trace in (("train", train), ("val", val)):
        curve = case.series[name]
        n = len(curve.values)
        d = int(start * n)
        bad = trace.trend if trace.direction != "higher" else 1 - trace.trend
        size = rng.uniform(0.3, 1.0) * float(bad.max() - bad.min())
        delta = np.zeros(n)
        delta[d:] = size * np.arange(n - d) / max(1, n - 1 - d)
        curve.values[:] = _badness_add(trace, curve.values, delta)
        _truth(case, name, "drift", d, n - 1)


def inject_rank_desync(
    rng: np.random.Generator, case: Case, traces: list[_Trace]
) -> None:
    """One rank moves 20-100 % of the level away from the others (at once
    or over up to 30 % of the run), or stops logging at 30-80 %."""
    assert case.group is not None
    name = str(rng.choice(case.group))
    curve = case.series[name]
    n = len(curve.values)
    p = int(rng.uniform(0.3, 0.8) * n)
    if rng.random() < 0.4:
        curve.steps = curve.steps[:p]
        curve.values = curve.values[:p]
        _truth(case, name, "rank_desync", p - 1, p - 1)
        return
    trace = traces[0]
    level = float(np.median(np.abs(trace.trend[p:])))
    size = rng.uniform(0.2, 1.0) * level * (1 if rng.random() < 0.7 else -1)
    if trace.direction == "higher":  # an accuracy stays within 5-95 %
        room = level - 0.05 if size > 0 else 0.95 - level
        size = float(np.sign(size) * min(abs(size), 0.8 * room))
    ramp = np.clip(np.arange(n - p) / max(1.0, rng.uniform(0, 0.3) * n), 0, 1)
    delta = np.zeros(n)
    delta[p:] = size * ramp
    curve.values = _badness_add(trace, curve.values, delta)
    _truth(case, name, "rank_desync", p, n - 1)


_SINGLE_INJECTORS: dict[str, Callable[..., object]] = {
    "nonfinite": inject_nonfinite,
    "spike": inject_spike,
    "cliff": inject_cliff,
    "plateau": inject_plateau,
    "oscillation": inject_oscillation,
    "explosion": inject_explosion,
}
# Shapes each single-series kind is injected into.
_SHAPES_FOR = {
    "nonfinite": SINGLE_SHAPES,
    "spike": SINGLE_SHAPES,
    "cliff": ("exp", "power", "accuracy", "cosine", "step", "warmup"),
    # A plateau delays the curve: not on schedules whose jumps it would
    # move away from the learning rate's.
    "plateau": ("exp", "power", "accuracy", "cosine"),
    "oscillation": SINGLE_SHAPES,
    "explosion": ("exp", "power", "cosine", "step", "warmup", "gradnorm"),
}


def make_cases(seed: int, per_kind: int = 60, clean: int = 240) -> list[Case]:
    """`per_kind` cases of every kind plus `clean` clean cases.

    Clean cases: 70 % single curves (every shape, 15 % of them
    validation-like), 15 % pairs, 15 % rank groups.
    """
    rng = np.random.default_rng(seed)
    cases: list[Case] = []
    for i in range(clean):
        roll = rng.random()
        cid = f"clean-{i}"
        if roll < 0.15:
            cases.append(_pair(rng, cid)[0])
        elif roll < 0.3:
            cases.append(_group(rng, cid)[0])
        elif roll < 0.4:
            case, _ = _val_single(rng, cid)
            cases.append(case)
        else:
            shape = SINGLE_SHAPES[i % len(SINGLE_SHAPES)]
            cases.append(_single(rng, cid, shape, _length(rng))[0])
    for kind in ALL_KINDS:
        made = 0
        attempt = 0
        while made < per_kind:
            attempt += 1
            cid = f"{kind}-{made}"
            if kind == "stepwise_rise":
                case, trace = _val_single(rng, cid)
                if not inject_stepwise(rng, case, trace):
                    continue
            elif kind in ("overfitting", "drift"):
                case, train, val, _ = _pair(rng, cid)
                if kind == "overfitting":
                    inject_overfitting(rng, case, train, val)
                else:
                    inject_drift(rng, case, train, val)
            elif kind == "rank_desync":
                case, traces = _group(rng, cid)
                inject_rank_desync(rng, case, traces)
            else:
                shapes = _SHAPES_FOR[kind]
                shape = shapes[attempt % len(shapes)]
                case, trace = _single(rng, cid, shape, _length(rng))
                if _SINGLE_INJECTORS[kind](rng, case, trace) is False:
                    continue
            case.kind = kind
            cases.append(case)
            made += 1
    return cases


def _val_single(rng: np.random.Generator, case_id: str) -> tuple[Case, _Trace]:
    """A validation-like curve alone: one point an epoch, 20-400 epochs."""
    n = _length(rng, 20, 400)
    trace = _val_trace(rng, n)
    per_epoch = int(rng.choice([1, 50, 100, 391]))
    steps = (np.arange(n, dtype=np.int64) + 1) * per_epoch - (per_epoch > 1)
    series = {"train": Curve(steps, trace.sample(rng), trace.direction, "val")}
    return Case(case_id, "clean", "val", series), trace


# Running the detectors and scoring them.


@dataclasses.dataclass
class Finding:
    case: str
    series: str
    kind: str
    start_step: int
    end_step: int


def detect_case(case: Case) -> list[Finding]:
    """Every detector over a case, the way the plugin's API runs them."""
    lr = case.series.get(case.lr) if case.lr else None
    lr_input = None if lr is None else (lr.steps, lr.values)
    per_series: dict[str, list] = {}
    for name, curve in case.series.items():
        if curve.role == "lr":
            continue
        per_series[name] = anomalies.detect_series(
            curve.steps,
            curve.values,
            direction=curve.direction,
            validation=curve.role == "val",
            lr=lr_input,
        )
    if case.pair:
        train, val = (case.series[k] for k in case.pair)
        on_train, on_val = anomalies.detect_pair(
            (train.steps, train.values),
            (val.steps, val.values),
            direction=val.direction,
        )
        per_series[case.pair[0]] += on_train
        per_series[case.pair[1]] += on_val
    if case.group:
        members = [case.series[k] for k in case.group]
        found = anomalies.detect_group(
            [(m.steps, m.values) for m in members],
            names=list(case.group),
            direction=members[0].direction,
        )
        for name, items in zip(case.group, found):
            per_series[name] += items
    out = []
    for name, items in per_series.items():
        for a in anomalies.resolve(items):
            out.append(Finding(case.id, name, a.kind, a.start_step, a.end_step))
    return out


def _hits(finding: Finding, case: Case) -> bool:
    for truth in case.truth:
        if truth.kind != finding.kind:
            continue
        same = truth.series == finding.series or (
            finding.kind == "rank_desync" and case.group is not None
        )
        if (
            same
            and finding.start_step <= truth.end_step
            and truth.start_step <= finding.end_step
        ):
            return True
    return False


@dataclasses.dataclass
class Scores:
    recall: dict[str, float]
    precision: dict[str, float]
    cases: dict[str, int]
    findings: dict[str, int]
    clean_flags: int
    clean_series: int
    points: int
    seconds: float
    misses: dict[str, list[str]]
    false: dict[str, list[str]]

    @property
    def clean_flags_per_100(self) -> float:
        return 100.0 * self.clean_flags / max(1, self.clean_series)

    def table(self) -> str:
        lines = [
            "| kind | cases | recall | findings | precision |",
            "|---|---|---|---|---|",
        ]
        for kind in ALL_KINDS:
            lines.append(
                f"| {kind} | {self.cases.get(kind, 0)} | "
                f"{self.recall.get(kind, 0):.3f} | {self.findings.get(kind, 0)} | "
                f"{self.precision.get(kind, 1):.3f} |"
            )
        lines.append(
            f"\nclean: {self.clean_flags} false flags on {self.clean_series} "
            f"clean series = {self.clean_flags_per_100:.2f} per 100; "
            f"{self.points:,} points scored in {self.seconds:.1f} s"
        )
        return "\n".join(lines)


def score(cases: list[Case]) -> Scores:
    """Runs the detectors over every case and scores them (see top)."""
    hit_cases: dict[str, int] = {}
    totals: dict[str, int] = {}
    found: dict[str, int] = {}
    good: dict[str, int] = {}
    misses: dict[str, list[str]] = {}
    false: dict[str, list[str]] = {}
    clean_flags = 0
    clean_series = 0
    points = 0
    started = time.perf_counter()
    for case in cases:
        points += sum(len(c.values) for c in case.series.values())
        findings = detect_case(case)
        if case.kind == "clean":
            clean_series += case.clean_series()
            clean_flags += len(findings)
        else:
            totals[case.kind] = totals.get(case.kind, 0) + 1
            if any(f.kind == case.kind and _hits(f, case) for f in findings):
                hit_cases[case.kind] = hit_cases.get(case.kind, 0) + 1
            else:
                misses.setdefault(case.kind, []).append(case.id)
        for f in findings:
            found[f.kind] = found.get(f.kind, 0) + 1
            if _hits(f, case):
                good[f.kind] = good.get(f.kind, 0) + 1
            else:
                false.setdefault(f.kind, []).append(
                    f"{case.id}:{f.series}@{f.start_step}"
                )
    seconds = time.perf_counter() - started
    return Scores(
        recall={k: hit_cases.get(k, 0) / v for k, v in totals.items()},
        precision={k: good.get(k, 0) / v for k, v in found.items()},
        cases=totals,
        findings=found,
        clean_flags=clean_flags,
        clean_series=clean_series,
        points=points,
        seconds=seconds,
        misses=misses,
        false=false,
    )


def write_cases(cases: list[Case], directory: str) -> None:
    """One .npz per case (its series) and truth.json for the set."""
    os.makedirs(directory, exist_ok=True)
    index = []
    for case in cases:
        arrays = {}
        for name, curve in case.series.items():
            arrays[f"{name}/steps"] = curve.steps
            arrays[f"{name}/values"] = curve.values
        np.savez_compressed(os.path.join(directory, f"{case.id}.npz"), **arrays)
        index.append(
            {
                "id": case.id,
                "kind": case.kind,
                "shape": case.shape,
                "series": {
                    name: {"direction": c.direction, "role": c.role}
                    for name, c in case.series.items()
                },
                "lr": case.lr,
                "pair": case.pair,
                "group": case.group,
                "truth": [dataclasses.asdict(t) for t in case.truth],
            }
        )
    with open(os.path.join(directory, "truth.json"), "w") as handle:
        json.dump(index, handle, indent=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--seed",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[SCORE_SEED],
        help="a seed, or several separated by commas (scored together)",
    )
    parser.add_argument("--per-kind", type=int, default=60)
    parser.add_argument("--clean", type=int, default=240)
    parser.add_argument("--out", help="write the cases to this directory")
    parser.add_argument("--score", action="store_true", help="score them")
    parser.add_argument("--verbose", action="store_true", help="list misses")
    args = parser.parse_args(argv)
    cases = []
    for seed in args.seed:
        for case in make_cases(seed, args.per_kind, args.clean):
            if len(args.seed) > 1:
                case.id = f"s{seed}:{case.id}"
            cases.append(case)
    if args.out:
        write_cases(cases, args.out)
        print(f"wrote {len(cases)} cases to {args.out}")
    if args.score:
        sys.path.insert(
            0, os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        )
        scores = score(cases)
        print(f"seed {','.join(map(str, args.seed))}")
        print(scores.table())
        if args.verbose:
            for kind, ids in scores.misses.items():
                print("missed", kind, ids[:30])
            for kind, ids in scores.false.items():
                print("false", kind, ids[:30])
    return 0


if __name__ == "__main__":
    sys.exit(main())
