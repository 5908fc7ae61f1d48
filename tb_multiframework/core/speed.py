"""Training speed derived from wall time: step time, throughput, epochs.

Every event carries its wall time, so every run holds its speed whether
it logged one or not. `derive_speed` reads one *step stream* of a run (the
current points of its densest step-counted tag: `choose_stream`) and
returns a `RunSpeed`: per-interval step times and throughputs as series,
and a summary — the typical (median) and steady step time, steps and
samples a second, each attempt's warm-up, stalls as events, time per
epoch and the total training time. Definitions: docs/conventions.md,
"Training speed".

Robust to the ways runs log:

- logging every N steps: an interval between two logged points covers
  `Δstep` steps, its step time is `Δwall / Δstep`;
- several tags a step: one stream is read, never their union;
- resumed attempts: intervals never cross an attempt boundary (the gap is a
  `resume` event, not a step time), each attempt gets its own warm-up;
- epoch-end pauses and other stalls: the typical step time is a median, a
  stall is an interval whose time beyond the typical steps is well above
  the typical step time (`is_stall`); it is an `epoch_end` pause when the
  interval holds an epoch boundary.

Pure numpy; the api decides which tag is the stream and where epochs are.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .speed_epochs import (
    DerivedSeries,
    EpochTime,
    epoch_series,
    epoch_times,
    epochs_from_ends,
)
from .types import FloatArray, Int64Array

__all__ = [
    "DerivedSeries",
    "EpochTime",
]  # re-exported: the api imports them here

DERIVED_PREFIX = "[derived] "  # raw tag of a derived series
DERIVED_NOTE = "derived from wall time"
# Derived series: name -> (unit, what a point is).
DERIVED_METRICS: dict[str, tuple[str, str]] = {
    "time/step": ("s", "seconds a step over each logged interval"),
    "throughput/steps_per_s": ("steps/s", "steps a second over each interval"),
    "throughput/samples_per_s": (
        "samples/s",
        "samples a second over each interval (steps/s × samples a step)",
    ),
    "time/epoch": ("s", "seconds each epoch took, at its end"),
    "time/elapsed": ("s", "training seconds so far, resume gaps left out"),
}
MIN_INTERVALS = 3  # valid intervals needed for a step time
STALL_TYPICAL = 2.0  # a stall's excess, in typical step times, at least
STALL_SIGMAS = 8.0  # ... and in robust sigmas of the interval's step time
WARMUP_SLOW = 0.25  # a warm-up interval is this much slower than typical
WARMUP_SIGMAS = 4.0  # ... and this many robust sigmas
MAX_EVENTS = 500  # stalls listed per run (the rest counted)


@dataclass(frozen=True)
class Stall:
    """An interval well above the typical step time.

    Attributes:
        step: The logged step the interval starts at.
        end_step: The logged step it ends at.
        seconds: Its wall time.
        excess: Seconds beyond `Δstep` typical steps (the pause itself).
        kind: "epoch_end" (holds an epoch boundary: evaluation,
            checkpointing), "pause" (anything else: a data-loader stall, a
            checkpoint, a host hiccup) or "resume" (between two attempts).
    """

    step: int
    end_step: int
    seconds: float
    excess: float
    kind: str


@dataclass(frozen=True)
class Warmup:
    """The slow start of an attempt (compilation, caches, first batches).

    Attributes:
        attempt: The attempt it starts.
        step: Its first logged step.
        end_step: The logged step where the step time became typical.
        seconds: Wall time of its intervals.
        excess: Seconds beyond as many typical steps.
    """

    attempt: int
    step: int
    end_step: int
    seconds: float
    excess: float


@dataclass(frozen=True)
class AttemptSpan:
    """An attempt's first and last point (wall time and step)."""

    attempt: int
    first_wall: float
    last_wall: float
    first_step: int
    last_step: int


@dataclass(frozen=True)
class RunSpeed:
    """A run's speed, derived from wall time.

    Attributes:
        stream: The tag read ("" when the run has none), `stream_evidence`
            why it, or why none.
        logged_every: The median steps between two logged points.
        intervals: Valid intervals read (Δstep > 0, Δwall > 0, one attempt).
        median_step_time: Median seconds a step over intervals (weighted by
            their steps); None with fewer than `MIN_INTERVALS`.
        steady_step_time: Seconds a step over intervals that are neither
            warm-up nor stalls (their total time / their total steps).
        mean_step_time: Seconds a step over every interval of every attempt
            (training time / steps): warm-ups and stalls included.
        samples_per_step: From the run's hyper-parameters or a logged tag;
            None when not known (`samples_source` says why).
        total_seconds: First to last logged point of the stream, resume
            gaps included; `training_seconds`: the attempts' spans added.
        warmups, stalls, epochs: see the classes; `stalls_dropped` counts
            stalls past `MAX_EVENTS`.
        epoch_source: How epoch boundaries were found, or why not.
        series: Derived series by metric name (`DERIVED_METRICS`).
    """

    stream: str
    stream_evidence: str
    logged_every: int = 0
    intervals: int = 0
    median_step_time: float | None = None
    steady_step_time: float | None = None
    mean_step_time: float | None = None
    samples_per_step: float | None = None
    samples_source: str = ""
    total_seconds: float | None = None
    training_seconds: float | None = None
    warmups: tuple[Warmup, ...] = ()
    stalls: tuple[Stall, ...] = ()
    stalls_dropped: int = 0
    epochs: tuple[EpochTime, ...] = ()
    epoch_source: str = ""
    series: Mapping[str, DerivedSeries] = dataclasses.field(
        default_factory=dict
    )

    @property
    def steps_per_second(self) -> float | None:
        """Steady steps a second (1 / `steady_step_time`)."""
        return _inverse(self.steady_step_time)

    @property
    def samples_per_second(self) -> float | None:
        """Steady samples a second, when the samples a step are known."""
        rate = self.steps_per_second
        if rate is None or self.samples_per_step is None:
            return None
        return rate * self.samples_per_step

    @property
    def median_epoch_seconds(self) -> float | None:
        if not self.epochs:
            return None
        return float(np.median([e.seconds for e in self.epochs]))


def derived_tag(name: str) -> str:
    """The raw tag of a derived series (`[derived] time/step`)."""
    return DERIVED_PREFIX + name


def derived_name(tag: str) -> str | None:
    """The metric name of a derived tag, None for any other tag."""
    if tag.startswith(DERIVED_PREFIX):
        name = tag[len(DERIVED_PREFIX) :]
        if name in DERIVED_METRICS:
            return name
    return None


def choose_stream(
    candidates: Mapping[str, int], excluded: Mapping[str, str]
) -> tuple[str, str]:
    """The densest step-counted tag of a run, and why.

    Args:
        candidates: tag -> its number of distinct current steps.
        excluded: tags not to use -> why (epoch-indexed, timestamp steps).

    Returns:
        (tag, evidence); tag "" when there is none.
    """
    usable = {t: n for t, n in candidates.items() if t not in excluded}
    if not usable:
        why = "; ".join(f"{t}: {r}" for t, r in sorted(excluded.items())[:5])
        return "", "no step-counted scalar tag" + (f" ({why})" if why else "")
    # An epoch counter is logged again at evaluations (HF's train/epoch):
    # a metric's first logging of a step times it better.
    tag = min(usable, key=lambda t: (-usable[t], _is_counter(t), t))
    return tag, (
        f"the densest step-counted tag: {usable[tag]} distinct steps"
        + (f" of {len(usable)} tags" if len(usable) > 1 else "")
    )


def _is_counter(tag: str) -> bool:
    low = tag.lower()
    return low == "epoch" or low.endswith("/epoch") or low in ("iter", "step")


def derive_speed(
    stream: str,
    steps: Int64Array,
    wall_times: FloatArray,
    *,
    attempts: Int64Array | None = None,
    epoch_x: FloatArray | None = None,
    epoch_ends: tuple[Int64Array, FloatArray] | None = None,
    epoch_source: str = "",
    samples_per_step: float | None = None,
    samples_source: str = "",
    evidence: str = "",
    attempt_spans: Sequence[AttemptSpan] | None = None,
) -> RunSpeed:
    """A run's speed from its step stream's current points.

    Args:
        stream: The stream's tag.
        steps: Its current points' steps (one per step).
        wall_times: Their wall times.
        attempts: Their attempt index (None: one attempt).
        epoch_x: Their positions on the epoch axis (None: no epoch map).
        epoch_ends: Without `epoch_x`, (epoch index, wall time) of points
            written at each epoch's end (Keras `epoch_*`), if any.
        epoch_source: Where the epochs come from (shown).
        samples_per_step: Samples a step, when known.
        samples_source: Where that number comes from, or why unknown.
        evidence: Why this stream.
        attempt_spans: Each attempt's span over *all* its points (its
            superseded ones too: they were trained); None: from `steps`.

    Returns:
        The run's speed; fields stay None where the points do not tell.
    """
    steps = np.asarray(steps, dtype=np.int64)
    walls = np.asarray(wall_times, dtype=np.float64)
    att = (
        np.zeros(steps.size, np.int64)
        if attempts is None
        else np.asarray(attempts, dtype=np.int64)
    )
    order = np.argsort(steps, kind="stable")
    steps, walls, att = steps[order], walls[order], att[order]
    ex = None if epoch_x is None else np.asarray(epoch_x, np.float64)[order]
    base = RunSpeed(
        stream=stream,
        stream_evidence=evidence,
        samples_per_step=samples_per_step,
        samples_source=samples_source,
        epoch_source=epoch_source,
    )
    if steps.size < 2:
        return _epoch_only(base, epoch_ends)
    ds = np.diff(steps).astype(np.float64)
    dw = np.diff(walls)
    same = att[1:] == att[:-1]
    valid = same & (ds > 0) & np.isfinite(dw) & (dw > 0)
    if int(valid.sum()) < MIN_INTERVALS:
        return dataclasses.replace(
            _epoch_only(base, epoch_ends),
            stream_evidence=f"{evidence}; fewer than {MIN_INTERVALS} "
            "intervals with both steps and wall time advancing",
        )
    rate = np.where(valid, dw / np.where(ds > 0, ds, 1.0), np.nan)
    median = _weighted_median(rate[valid], ds[valid])
    sigma = _robust_sigma(rate[valid])
    excess = dw - ds * median
    warm = _warmup_mask(rate, valid, att, median, sigma)
    stall = valid & ~warm & is_stall(excess, ds, median, sigma)
    steady = valid & ~warm & ~stall
    steady_time = (
        float(dw[steady].sum() / ds[steady].sum()) if steady.any() else None
    )
    kinds = _stall_kinds(stall, ex)
    stalls = [
        Stall(
            int(steps[i]),
            int(steps[i + 1]),
            float(dw[i]),
            float(excess[i]),
            kinds[i],
        )
        for i in np.flatnonzero(stall)
    ]
    if attempt_spans is None:
        attempt_spans = [
            AttemptSpan(
                a,
                float(walls[att == a].min()),
                float(walls[att == a].max()),
                int(steps[att == a].min()),
                int(steps[att == a].max()),
            )
            for a in np.unique(att).tolist()
        ]
    ordered = sorted(attempt_spans, key=lambda a: a.first_wall)
    stalls += [
        Stall(
            prev.last_step,
            nxt.first_step,
            nxt.first_wall - prev.last_wall,
            nxt.first_wall - prev.last_wall,
            "resume",
        )
        for prev, nxt in zip(ordered, ordered[1:])
        if nxt.first_wall > prev.last_wall  # overlapping: not a resume
    ]
    stalls.sort(key=lambda s: (s.end_step, s.step))
    elapsed = np.concatenate(
        [[0.0], np.cumsum(np.where(same & (dw > 0), dw, 0))]
    )
    epochs, epoch_note = epoch_times(
        steps, walls, ex, stall, same, median, epoch_ends
    )
    speed = dataclasses.replace(
        base,
        logged_every=int(_weighted_median(ds[valid], np.ones(1))),
        intervals=int(valid.sum()),
        median_step_time=median,
        steady_step_time=steady_time,
        mean_step_time=float(dw[valid].sum() / ds[valid].sum()),
        total_seconds=float(ordered[-1].last_wall - ordered[0].first_wall),
        training_seconds=_union_length(
            [(a.first_wall, a.last_wall) for a in ordered]
        ),
        warmups=_warmups(steps, dw, ds, warm, att, median),
        stalls=tuple(stalls[:MAX_EVENTS]),
        stalls_dropped=max(0, len(stalls) - MAX_EVENTS),
        epochs=epochs,
        epoch_source=epoch_source + epoch_note,
    )
    at = np.flatnonzero(valid) + 1
    series = {
        "time/step": _series(steps[at], walls[at], rate[valid]),
        "throughput/steps_per_s": _series(
            steps[at], walls[at], 1.0 / rate[valid]
        ),
        "time/elapsed": _series(steps, walls, elapsed),
    }
    if samples_per_step is not None:
        series["throughput/samples_per_s"] = _series(
            steps[at], walls[at], samples_per_step / rate[valid]
        )
    if epochs:
        series["time/epoch"] = epoch_series(epochs)
    return dataclasses.replace(speed, series=series)


def is_stall(
    excess: FloatArray, ds: FloatArray, median: float, sigma: float
) -> np.ndarray:
    """Intervals whose time beyond `Δstep` typical steps is a stall.

    The excess must be at least `STALL_TYPICAL` typical step times and
    `STALL_SIGMAS` robust sigmas of the per-step time times `Δstep` (so
    step-time noise summed over a long interval is not a stall).
    """
    floor = np.maximum(STALL_TYPICAL * median, STALL_SIGMAS * sigma * ds)
    return np.asarray(excess > floor)


def _warmup_mask(
    rate: FloatArray,
    valid: np.ndarray,
    att: Int64Array,
    median: float,
    sigma: float,
) -> np.ndarray:
    """The leading slow intervals of each attempt."""
    slow = rate > median + max(WARMUP_SLOW * median, WARMUP_SIGMAS * sigma)
    warm = np.zeros(rate.size, dtype=bool)
    starts = np.flatnonzero(np.concatenate([[True], att[1:] != att[:-1]]))
    for start in starts.tolist():
        i = start  # interval i joins point i and i + 1
        limit = start + max(1, int(0.2 * np.sum(att == att[start])))
        while i < rate.size and i < limit and valid[i] and slow[i]:
            warm[i] = True
            i += 1
        if i >= limit:  # slow for a fifth of the attempt: not a warm-up
            warm[start:i] = False
    return warm


def _warmups(
    steps: Int64Array,
    dw: FloatArray,
    ds: FloatArray,
    warm: np.ndarray,
    att: Int64Array,
    median: float,
) -> tuple[Warmup, ...]:
    out = []
    idx = np.flatnonzero(warm)
    if idx.size == 0:
        return ()
    breaks = np.flatnonzero(np.diff(idx) > 1) + 1
    for block in np.split(idx, breaks):
        first, last = int(block[0]), int(block[-1])
        seconds = float(dw[block].sum())
        out.append(
            Warmup(
                attempt=int(att[first]),
                step=int(steps[first]),
                end_step=int(steps[last + 1]),
                seconds=seconds,
                excess=seconds - float(ds[block].sum()) * median,
            )
        )
    return tuple(out)


def _stall_kinds(stall: np.ndarray, ex: FloatArray | None) -> list[str]:
    """ "epoch_end" where the interval holds an epoch boundary."""
    kinds = ["pause"] * stall.size
    if ex is None:
        return kinds
    for i in np.flatnonzero(stall).tolist():
        a, b = ex[i], ex[i + 1]
        # Some integer k with a <= k < b: the pause follows epoch k's end.
        if np.isfinite(a) and np.isfinite(b) and math.ceil(a) < b:
            kinds[i] = "epoch_end"
    return kinds


def _epoch_only(
    base: RunSpeed, epoch_ends: tuple[Int64Array, FloatArray] | None
) -> RunSpeed:
    """A run without a usable stream: epochs from epoch-end points only."""
    if epoch_ends is None:
        return base
    epochs = epochs_from_ends(epoch_ends)
    if not epochs:
        return base
    series = {"time/epoch": epoch_series(epochs)}
    return dataclasses.replace(
        base,
        epochs=epochs,
        series=series,
        epoch_source=(base.epoch_source or "")
        + "; epochs from the epoch-end points",
    )


def _series(
    steps: np.ndarray, walls: np.ndarray, values: np.ndarray
) -> DerivedSeries:
    return DerivedSeries(
        steps=np.ascontiguousarray(steps, np.int64),
        wall_times=np.ascontiguousarray(walls, np.float64),
        values=np.ascontiguousarray(values, np.float64),
    )


def _weighted_median(values: FloatArray, weights: FloatArray) -> float:
    """The weighted median; with equal weights (or one weight for all) the
    plain median, found by a partition instead of a sort."""
    if weights.size and bool(np.all(weights == weights[0])):
        if values.size and bool(np.all(values == values[0])):
            return float(values[0])
        return float(np.median(values))
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order]
    cum = np.cumsum(w)
    half = cum[-1] / 2.0
    i = int(np.searchsorted(cum, half))
    if cum[i] == half and i + 1 < v.size:
        return float((v[i] + v[i + 1]) / 2.0)
    return float(v[i])


def _robust_sigma(values: FloatArray) -> float:
    med = float(np.median(values))
    return 1.4826 * float(np.median(np.abs(values - med)))


def _union_length(spans: list[tuple[float, float]]) -> float:
    """Seconds covered by the spans (sorted by start), overlaps once."""
    total, end = 0.0, -math.inf
    for lo, hi in spans:
        if hi > end:
            total += hi - max(lo, end)
            end = hi
    return float(total)


def _inverse(value: float | None) -> float | None:
    if value is None or value <= 0 or not math.isfinite(value):
        return None
    return 1.0 / value
