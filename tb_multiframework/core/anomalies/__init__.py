"""Anomaly detection: the failure patterns of a training curve.

Pure numpy over series of (step, value). Three entry points, by what a
detector needs to see:

- `detect_series`: one series (nonfinite, spike, cliff, plateau,
  oscillation, stepwise_rise, explosion), optionally with the run's
  learning-rate schedule, which explains cliffs, steps and plateaus;
- `detect_pair`: a training and a validation series of one metric
  (overfitting, drift);
- `detect_group`: the ranks of one distributed run (rank_desync).

`resolve` merges what the three found for one series and drops findings a
stronger one explains (a spike inside an explosion is part of it). The
detectors are robust (medians and MADs), scale-free (thresholds are
relative to the series' own noise and level) and aware of which way a
metric should go (`core.direction.metric_direction`). Each module says
how its kind is decided; docs/conventions.md (Anomalies) gives the
definitions, the README the scores on a labelled benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .base import (
    GROUP_KINDS,
    KINDS,
    PAIR_KINDS,
    SERIES_KINDS,
    USUAL_CAUSES,
    Anomaly,
    Prepared,
)
from .levels import (
    MIN_EXPLOSION_SERIES,
    MIN_SHIFT_BLOCKS,
    STAIR_RISERS,
    detect_cliffs,
    detect_explosion,
    detect_stepwise_rise,
)
from .pairs import detect_drift, detect_overfitting
from .periodic import MIN_OSCILLATION_SERIES, detect_oscillation
from .plateau import MIN_PLATEAU_BLOCKS, detect_plateaus
from .pointwise import MIN_SPIKE_SERIES, detect_nonfinite, detect_spikes
from .ranks import detect_rank_desync
from .schedule import Schedule

__all__ = [
    "GROUP_KINDS",
    "KINDS",
    "PAIR_KINDS",
    "SERIES_KINDS",
    "USUAL_CAUSES",
    "Anomaly",
    "detect_group",
    "detect_pair",
    "detect_series",
    "parse_kinds",
    "resolve",
]

Series = tuple[np.ndarray, np.ndarray]  # (steps, values)

# A finding of the first kind absorbs findings of the listed kinds that
# overlap it: they are the same event seen by a narrower detector.
_ABSORBS: dict[str, tuple[str, ...]] = {
    "explosion": (
        "spike",
        "cliff",
        "stepwise_rise",
        "plateau",
        "oscillation",
        "drift",
        "overfitting",
    ),
    "stepwise_rise": ("overfitting", "drift", "plateau", "oscillation"),
    "cliff": ("plateau",),
    "oscillation": ("spike", "plateau", "cliff"),
    "rank_desync": ("plateau", "cliff", "stepwise_rise", "drift"),
}


def parse_kinds(kinds: Iterable[str] | None) -> frozenset[str]:
    """The set of kinds asked for (all when None).

    Raises:
        ValueError: for an unknown kind, naming it.
    """
    if kinds is None:
        return frozenset(KINDS)
    wanted = frozenset(kinds)
    unknown = sorted(wanted - set(KINDS))
    if unknown:
        raise ValueError(
            f"unknown anomaly kind(s) {unknown}; expected some of {list(KINDS)}"
        )
    return wanted


# Finite points below which every detector but `nonfinite` finds nothing
# (each returns early), so none of their shared work is done: a run of
# 200,000 two-point series is scanned at the cost of its NaN checks.
MIN_DETECTED_POINTS = min(
    MIN_SHIFT_BLOCKS,  # cliffs, stepwise rises (coarse blocks <= points)
    4 * STAIR_RISERS,  # staircases
    MIN_PLATEAU_BLOCKS,
    MIN_SPIKE_SERIES,
    MIN_OSCILLATION_SERIES,
    MIN_EXPLOSION_SERIES,
)


def detect_series(
    steps: np.ndarray,
    values: np.ndarray,
    *,
    direction: str | None = None,
    validation: bool = False,
    lr: Series | None = None,
    kinds: Iterable[str] | None = None,
) -> list[Anomaly]:
    """The anomalies of one series.

    Args:
        steps: steps, in any order (sorted stably here).
        values: values; NaN and +-Inf are the `nonfinite` kind and are left
            out of every other detector.
        direction: "lower" or "higher" (which way is better), or None.
        validation: a validation (or test) metric: only those are checked
            for `stepwise_rise` (a leak shows where the model is evaluated;
            a training curve's noise has steps of every kind).
        lr: the run's learning rate as (steps, values), if it logs one.
        kinds: kinds to look for (default: all of `SERIES_KINDS`).

    Returns:
        Anomalies sorted by start, overlaps resolved (`resolve`).
    """
    wanted = parse_kinds(kinds)
    p = Prepared(steps, values, direction)
    schedule = None if lr is None else Schedule(*lr)
    detectors: list[tuple[str, Callable[[], list[Anomaly]]]] = [
        ("nonfinite", lambda: detect_nonfinite(p)),
        ("spike", lambda: detect_spikes(p)),
        ("cliff", lambda: detect_cliffs(p, schedule)),
        ("plateau", lambda: detect_plateaus(p, schedule)),
        ("oscillation", lambda: detect_oscillation(p)),
        ("stepwise_rise", lambda: detect_stepwise_rise(p, schedule)),
        ("explosion", lambda: detect_explosion(p)),
    ]
    found: list[Anomaly] = []
    if not validation:
        wanted -= {"stepwise_rise"}
    if len(p) < MIN_DETECTED_POINTS:
        wanted &= {"nonfinite"}  # the others would find nothing
    for kind, detector in detectors:
        if kind in wanted and len(p.values):
            found.extend(detector())
    return resolve(found)


def detect_pair(
    train: Series,
    val: Series,
    *,
    direction: str | None = None,
    train_x: np.ndarray | None = None,
    val_x: np.ndarray | None = None,
    axis: str = "step",
    kinds: Iterable[str] | None = None,
) -> tuple[list[Anomaly], list[Anomaly]]:
    """Overfitting and drift of a training/validation pair of one metric.

    Args:
        train: (steps, values) of the training series.
        val: (steps, values) of the validation series.
        direction: which way the metric is better.
        train_x: positions of the training points on an axis both series
            share (e.g. epochs), in the order of `train`; default: steps.
        val_x: the same for the validation points.
        axis: the name of that axis ("epoch" adds epochs to messages).
        kinds: kinds to look for (default: all of `PAIR_KINDS`).

    Returns:
        (the training series' anomalies, the validation series').
    """
    wanted = parse_kinds(kinds)
    t = Prepared(*train, direction, x=train_x)
    v = Prepared(*val, direction, x=val_x)
    on_train: list[Anomaly] = []
    on_val: list[Anomaly] = []
    if "overfitting" in wanted:
        on_val.extend(detect_overfitting(t, v, axis=axis))
    if "drift" in wanted and not on_val:
        drift_t, drift_v = detect_drift(t, v, axis=axis)
        on_train.extend(drift_t)
        on_val.extend(drift_v)
    return on_train, on_val


def detect_group(
    members: Sequence[Series],
    *,
    names: Sequence[str],
    direction: str | None = None,
    kinds: Iterable[str] | None = None,
) -> list[list[Anomaly]]:
    """rank_desync over the ranks of one distributed run (one tag each).

    Args:
        members: (steps, values) of each rank's series of one tag.
        names: each rank's name, for messages.
        direction: which way the metric is better.
        kinds: kinds to look for (default: all of `GROUP_KINDS`).

    Returns:
        Per member, its anomalies.
    """
    if len(names) != len(members):
        raise ValueError(f"{len(names)} names for {len(members)} members")
    if "rank_desync" not in parse_kinds(kinds):
        return [[] for _ in members]
    prepared = [Prepared(s, v, direction) for s, v in members]
    return detect_rank_desync(prepared, names)


def resolve(anomalies: Iterable[Anomaly]) -> list[Anomaly]:
    """One series' findings, without those a stronger finding explains.

    A finding is dropped when it overlaps a finding of a kind that absorbs
    it (`_ABSORBS`: e.g. an explosion absorbs the spikes and steps inside
    it). The rest is sorted by start, then kind.
    """
    found = list(anomalies)
    kept = []
    for a in found:
        absorbed = any(
            a.kind in _ABSORBS.get(b.kind, ())
            and a.start <= b.end
            and b.start <= a.end
            for b in found
            if b is not a
        )
        if not absorbed:
            kept.append(a)
    return sorted(kept, key=lambda a: (a.start, KINDS.index(a.kind)))
