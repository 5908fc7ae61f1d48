"""X axes for scalar series, and the per-run epoch map.

Axes: `step` (as logged), `epoch` (fractional epochs, see below),
`relative` (seconds since the run's first event), `wall` (Unix seconds) and
`progress` (step / the run's last step, 0..1).

The epoch convention, the same for every framework (docs/conventions.md):
x counts epochs *completed* when the value was logged. An epoch-level value
for the 0-based epoch index k sits at x = k + 1, the end of that epoch; a
batch-level point logged after b of the epoch's n batches sits at
x = k + b / n. So a PyTorch per-batch curve, Keras' running-mean
`batch_loss` (whose last point of an epoch equals `epoch_loss`), Keras
`epoch_loss` and Paddle hapi's `eval/loss` all meet at the end of each epoch.

A run's epoch map comes from the first of these that exists, each on
positive evidence (`core/epoch_sources.py`), else the run has no epoch axis
and says why and how to set one:

1. the user's config (`stepsPerEpoch`, `epochBase`; `epochOffset` shifts any
   source; `epochAxis: false` turns the axis off);
2. a scalar tag named `epoch`: an integer staircase (two or more values;
   its base, 0 or 1, from its value during the first epoch), fractional
   epochs, or a counter equal to its own step (the step is an epoch number);
3. Keras' layout: `epoch_*` tags (and weight histograms) at step = epoch
   index; iterations per epoch from `evaluation_*_vs_iterations` of the
   group's `validation` run, else from the wall clock;
4. tags logged once per epoch at steps 0, 1, 2, ... or 1, 2, 3, ... beside
   tags with far larger steps; steps per epoch and whether the step is the
   epoch index or the epochs completed from the wall clock (two or more
   epoch-level points).

Epoch-indexed tags sit at step + 1 (0-based index) or at step (epochs
completed), whatever the source. A run with none of these is `Excluded` with
the reason, never placed on another axis.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from . import epoch_sources
from .types import EpochSetting, Excluded, FloatArray, RunInfo, ScalarSeriesLike

AXES = ("step", "epoch", "relative", "wall", "progress")
STEP_IS_EPOCH = "step = epoch index"
_EPOCH_DECIMALS = 9  # epoch positions are rounded to 1e-9 epoch
HOW_TO_SET = (
    "set stepsPerEpoch (and epochBase 0 or 1 for tags logged once per epoch) "
    "for this run in the config, or in the Runs table"
)

_EMPTY = np.empty(0, dtype=np.float64)


@dataclass(frozen=True)
class EpochMap:
    """How one run's steps become fractional epochs.

    Attributes:
        source: Short human description ("config: 100 steps/epoch",
            "tag 'epoch'", "keras", "step = epoch index ...").
        epoch_indexed_tags: Tags whose step counts epochs (Keras `epoch_*`,
            tags logged once per epoch); placed at step + their shift.
        knot_steps: Increasing steps with known epoch positions.
        knot_epochs: The epoch positions at `knot_steps`.
        steps_per_epoch: Slope used without knots and beyond them.
        offset: Added to every position (the user's `epochOffset`).
        step_reason: Why step-counted tags cannot be placed, if they cannot.
        num_epochs: Epochs seen by the epoch-indexed tags (for `progress`).
        shifts: x - step of each epoch-indexed tag: 1.0 (the default) when
            the step is the 0-based epoch index, 0.0 when it counts epochs
            completed.
        evidence: What the map rests on, in words.
        set_by_user: Whether the user's config chose it.
    """

    source: str
    epoch_indexed_tags: frozenset[str] = frozenset()
    knot_steps: FloatArray = field(default_factory=lambda: _EMPTY.copy())
    knot_epochs: FloatArray = field(default_factory=lambda: _EMPTY.copy())
    steps_per_epoch: float | None = None
    offset: float = 0.0
    step_reason: str | None = None
    num_epochs: int = 0
    shifts: Mapping[str, float] = field(default_factory=dict)
    evidence: tuple[str, ...] = ()
    set_by_user: bool = False

    def shift(self, tag: str) -> float:
        """x - step of an epoch-indexed tag."""
        return float(self.shifts.get(tag, 1.0))

    def epochs(self, tag: str, steps: np.ndarray) -> FloatArray | Excluded:
        """Maps a tag's logged steps to fractional epochs.

        Args:
            tag: The raw tag (decides epoch-indexed vs step-counted).
            steps: Logged steps of that tag.

        Returns:
            Epoch positions, or `Excluded` when step-counted tags of this run
            cannot be placed.
        """
        s = np.asarray(steps, dtype=np.float64)
        if tag in self.epoch_indexed_tags:
            return s + self.shift(tag) + self.offset
        if self.step_reason is not None:
            return Excluded(self.step_reason)
        if self.steps_per_epoch is None:
            return Excluded(f"{self.source}: steps per epoch unknown")
        # Equal positions reached by different formulas (knot + slope vs
        # step / n) differ in the last bits; rounding makes them compare
        # equal, so difference curves do not get near-duplicate x.
        return np.round(_map_steps(s, self) + self.offset, _EPOCH_DECIMALS)


def build_epoch_map(
    run: RunInfo,
    group_scalars: Mapping[str, Mapping[str, ScalarSeriesLike]],
    *,
    setting: EpochSetting | None = None,
) -> EpochMap | Excluded:
    """Builds a run's epoch map from the first epoch source that exists.

    Args:
        run: The run to map.
        group_scalars: Every run of the run's group (this one included),
            each mapping tag -> series.
        setting: The user's setting for this run, if any.

    Returns:
        The map, or `Excluded` with the reason when no source exists.

    Raises:
        ValueError: If `run` is not in `group_scalars`.
    """
    own = group_scalars.get(run.run)
    if own is None:
        raise ValueError(f"run {run.run!r} is not in its group's scalars")
    offset = setting.epoch_offset if setting is not None else 0.0
    if setting is not None and setting.disabled:
        return Excluded(
            "no epoch axis: set by you (epochAxis false in the config)"
        )
    user_base = setting.epoch_base if setting is not None else None
    found = epoch_sources.epoch_indexed_tags(run, own, base=user_base)
    indexed = frozenset(found.shifts)
    base = EpochMap(
        source="",
        epoch_indexed_tags=indexed,
        offset=offset,
        num_epochs=_num_epochs(own, found.shifts),
        shifts=dict(found.shifts),
        evidence=found.evidence,
    )
    if setting is not None and setting.steps_per_epoch is not None:
        spe = float(setting.steps_per_epoch)
        emap = _with(
            base,
            f"config: {spe:g} steps/epoch",
            steps_per_epoch=spe,
            set_by_user=True,
            evidence=(
                f"stepsPerEpoch {spe:g} set by you",
                *base.evidence,
            ),
        )
        return _note_offset(emap, offset)
    reasons = []
    epoch_tag = _find_epoch_tag(own)
    if epoch_tag is None:
        reasons.append("no 'epoch' tag")
    else:
        from_tag = _map_from_epoch_tag(base, epoch_tag, own, user_base)
        if isinstance(from_tag, EpochMap):
            return _note_offset(from_tag, offset)
        reasons.append(from_tag)
    if found.convention == "keras":
        return _note_offset(_keras_map(base, run, group_scalars, own), offset)
    if found.convention is not None:
        return _note_offset(_indexed_map(base, own, found), offset)
    if found.problem:
        reasons.append(f"tags logged once per epoch? {found.problem}")
    else:
        reasons.append(
            "not a Keras layout, and no tags logged once per epoch at steps "
            "0, 1, 2, ... or 1, 2, 3, ... beside larger steps"
        )
    reasons.append(HOW_TO_SET)
    return Excluded("no epoch information: " + "; ".join(reasons))


def _note_offset(emap: EpochMap, offset: float) -> EpochMap:
    """Says the offset in the source; `epochs()` already adds it."""
    if not offset:
        return emap
    return _with(emap, f"{emap.source}, offset {offset:g}")


def axis_values(
    axis: str,
    series: ScalarSeriesLike,
    *,
    tag: str,
    epoch_map: EpochMap | Excluded | None = None,
    run_start_time: float | None = None,
    run_last_step: int | None = None,
) -> FloatArray | Excluded:
    """Positions of a series' points on an x axis, in logged order.

    Args:
        axis: One of `AXES`.
        series: The series.
        tag: Its raw tag (the epoch map treats epoch-indexed tags apart).
        epoch_map: The run's epoch map (axis `epoch`; `progress` of
            epoch-indexed tags).
        run_start_time: Wall time of the run's first event (`relative`).
        run_last_step: The run's largest step (`progress`).

    Returns:
        float64 x values, or `Excluded` when the series has no place on
        this axis.

    Raises:
        ValueError: On an unknown axis, or a missing argument the axis needs.
    """
    steps = np.asarray(series.steps, dtype=np.float64)
    if axis == "step":
        return steps
    if axis == "wall":
        return np.asarray(series.wall_times, dtype=np.float64).copy()
    if axis == "relative":
        if run_start_time is None:
            raise ValueError("axis 'relative' needs run_start_time")
        walls = np.asarray(series.wall_times, dtype=np.float64)
        return walls - float(run_start_time)
    if axis == "epoch":
        if epoch_map is None:
            raise ValueError("axis 'epoch' needs an epoch map")
        if isinstance(epoch_map, Excluded):
            return epoch_map
        return epoch_map.epochs(tag, steps)
    if axis == "progress":
        indexed = isinstance(epoch_map, EpochMap) and (
            tag in epoch_map.epoch_indexed_tags
        )
        if isinstance(epoch_map, EpochMap) and indexed:
            shift = epoch_map.shift(tag)
            return (steps + shift) / max(epoch_map.num_epochs, 1)
        if run_last_step is None:
            raise ValueError("axis 'progress' needs run_last_step")
        if run_last_step <= 0:
            return Excluded(
                f"progress needs a last step > 0, the run's is {run_last_step}"
            )
        return steps / float(run_last_step)
    raise ValueError(f"unknown axis {axis!r}; expected one of {AXES}")


def _map_steps(steps: FloatArray, emap: EpochMap) -> FloatArray:
    spe = emap.steps_per_epoch
    assert spe is not None
    ks, ke = emap.knot_steps, emap.knot_epochs
    if ks.size == 0:
        return steps / spe
    out = np.interp(steps, ks, ke)
    below = steps < ks[0]
    above = steps > ks[-1]
    out[below] = ke[0] + (steps[below] - ks[0]) / spe
    out[above] = ke[-1] + (steps[above] - ks[-1]) / spe
    return out


def _with(emap: EpochMap, source: str, **changes: Any) -> EpochMap:
    return replace(emap, source=source, **changes)


def _num_epochs(
    tags: Mapping[str, ScalarSeriesLike], shifts: Mapping[str, float]
) -> int:
    best = 0
    for tag, shift in shifts.items():
        steps = np.asarray(tags[tag].steps)
        if steps.size:
            best = max(best, int(round(float(steps.max()) + shift)))
    return best


def _find_epoch_tag(tags: Mapping[str, ScalarSeriesLike]) -> str | None:
    if "epoch" in tags:
        return "epoch"
    for tag in sorted(tags):
        if tag.lower() == "epoch":
            return tag
    for tag in sorted(tags):
        if tag.lower().endswith("/epoch"):
            return tag
    return None


def _map_from_epoch_tag(
    base: EpochMap,
    tag: str,
    own: Mapping[str, ScalarSeriesLike],
    user_base: int | None,
) -> EpochMap | str:
    series = own[tag]
    if tag in base.epoch_indexed_tags:
        # Logged once per epoch at step = epoch: says nothing about steps.
        return f"tag {tag!r} is logged at step = epoch index"
    steps = np.asarray(series.steps, dtype=np.float64)
    values = np.asarray(series.values, dtype=np.float64)
    ok = np.isfinite(values)
    steps, values = steps[ok], values[ok]
    if values.size == 0:
        return f"tag {tag!r} has no finite values"
    counter = epoch_sources.counter_at_own_steps(tag, series)
    if counter is not None:
        return _map_from_counter_steps(base, tag, own, counter, user_base)
    if np.all(values == np.round(values)):
        return _map_from_staircase(base, tag, own, steps, values, user_base)
    return _map_from_fractional(base, tag, steps, values)


def _map_from_counter_steps(
    base: EpochMap,
    tag: str,
    own: Mapping[str, ScalarSeriesLike],
    counter: tuple[float, str],
    user_base: int | None,
) -> EpochMap:
    """The counter equals its step: tags at those steps count epochs."""
    shift, evidence = counter
    if user_base is not None:
        shift = 1.0 - user_base
        evidence += f"; base {user_base} set by you"
    steps = set(np.asarray(own[tag].steps).tolist())
    same = sorted(
        t
        for t, s in own.items()
        if np.asarray(s.steps).size
        and set(np.asarray(s.steps).tolist()) <= steps
    )
    shifts = {**base.shifts, **{t: shift for t in same}}
    others = [t for t in own if t not in shifts]
    reason = (
        None
        if not others
        else f"tag {tag!r} counts epochs at its own steps; "
        f"{_few(others)} are logged at other steps: {HOW_TO_SET}"
    )
    return _with(
        base,
        f"tag {tag!r} (step = epoch number)",
        epoch_indexed_tags=frozenset(shifts),
        shifts=shifts,
        num_epochs=_num_epochs(own, shifts),
        step_reason=reason,
        evidence=(evidence, *base.evidence),
    )


def _map_from_staircase(
    base: EpochMap,
    tag: str,
    own: Mapping[str, ScalarSeriesLike],
    steps: FloatArray,
    values: FloatArray,
    user_base: int | None,
) -> EpochMap | str:
    epochs, which = np.unique(values, return_inverse=True)
    if epochs.size < 2:
        return (
            f"tag {tag!r} has one epoch value ({epochs[0]:g}) so far: "
            "steps per epoch unknown"
        )
    ends = np.full(epochs.size, -np.inf)
    np.maximum.at(ends, which, steps)  # epoch k ends at its last step
    if np.any(np.diff(ends) <= 0):
        return f"tag {tag!r} does not increase with step"
    # The newest epoch may be unfinished: only earlier epochs' ends are
    # knots; points past the last knot continue at the median slope.
    slopes = np.diff(ends) / np.diff(epochs)
    complete = slopes[:-1] if slopes.size > 1 else slopes
    spe = float(np.median(complete))
    counted = [
        np.asarray(s.steps)
        for t, s in own.items()
        if t not in base.epoch_indexed_tags and np.asarray(s.steps).size
    ]
    zero_based = bool(min(int(c.min()) for c in counted) == 0)
    first = int(np.argmin(steps))
    if user_base is not None:
        counts_from = user_base
        why = f"base {user_base} set by you"
    else:
        found, why = epoch_sources.staircase_base(
            float(values[first]), float(steps[first]), spe, zero_based
        )
        if found is None:
            return f"tag {tag!r}: {why}"
        counts_from = found
    # Epoch value v ends at its last step: v - base + 1 epochs completed.
    return _with(
        base,
        f"tag {tag!r}",
        knot_steps=ends[:-1].copy(),
        knot_epochs=epochs[:-1] - counts_from + 1.0,
        steps_per_epoch=spe,
        evidence=(
            f"tag {tag!r} is an epoch counter with {epochs.size} values, "
            f"{spe:.6g} steps/epoch; {why}",
            *base.evidence,
        ),
    )


def _map_from_fractional(
    base: EpochMap, tag: str, steps: FloatArray, values: FloatArray
) -> EpochMap | str:
    order = np.argsort(steps, kind="stable")
    steps, values = steps[order], values[order]
    last = np.r_[steps[1:] != steps[:-1], True]
    steps, values = steps[last], values[last]
    if np.any(np.diff(values) < 0):
        return f"tag {tag!r} (fractional) decreases with step"
    if steps.size < 2 or values[-1] == values[0]:
        return (
            f"tag {tag!r} (fractional) does not grow: steps per epoch unknown"
        )
    spe = float((steps[-1] - steps[0]) / (values[-1] - values[0]))
    return _with(
        base,
        f"tag {tag!r} (fractional epochs)",
        knot_steps=steps,
        knot_epochs=values,
        steps_per_epoch=spe,
        evidence=(
            f"tag {tag!r} holds fractional epochs completed "
            f"({values[0]:g} to {values[-1]:g})",
            *base.evidence,
        ),
    )


def _keras_map(
    base: EpochMap,
    run: RunInfo,
    group_scalars: Mapping[str, Mapping[str, ScalarSeriesLike]],
    own: Mapping[str, ScalarSeriesLike],
) -> EpochMap:
    for tags in _validation_runs(run, group_scalars):
        found = _keras_knots(tags)
        if found is not None:
            steps, epochs, spe = found
            return _with(
                base,
                "keras",
                knot_steps=steps,
                knot_epochs=epochs,
                steps_per_epoch=spe,
                evidence=(
                    *base.evidence,
                    "evaluation_*_vs_iterations gives the optimizer's "
                    f"iterations at each validated epoch's end ({spe:.6g} "
                    "steps/epoch)",
                ),
            )
    return _fit_map(base, own, "keras")


def _indexed_map(
    base: EpochMap, own: Mapping[str, ScalarSeriesLike], found: Any
) -> EpochMap:
    """Tags logged once per epoch; step-counted tags from the same fit."""
    label = STEP_IS_EPOCH
    if found.spe is None or found.knot is None:
        return _fit_map(base, own, label)
    step, epoch = found.knot
    return _with(
        base,
        f"{label} ({found.spe:.6g} steps/epoch from wall clock)",
        knot_steps=np.array([step], dtype=np.float64),
        knot_epochs=np.array([epoch], dtype=np.float64),
        steps_per_epoch=float(found.spe),
    )


def _fit_map(
    base: EpochMap, own: Mapping[str, ScalarSeriesLike], label: str
) -> EpochMap:
    counted = sorted(t for t in own if t not in base.epoch_indexed_tags)
    if not counted:
        return _with(base, label, step_reason=f"{label}: no step-counted tags")
    fit = epoch_sources.wall_clock_fit(own, dict(base.shifts), counted)
    if not fit.ok:
        reason = (
            f"{label}: steps per epoch unknown ({fit.reason}); {HOW_TO_SET}"
        )
        return _with(base, label, step_reason=reason)
    assert fit.spe is not None and fit.knot is not None
    step, epoch = fit.knot
    return _with(
        base,
        f"{label} ({fit.spe:.6g} steps/epoch from wall clock)",
        knot_steps=np.array([step], dtype=np.float64),
        knot_epochs=np.array([epoch], dtype=np.float64),
        steps_per_epoch=fit.spe,
        evidence=(*base.evidence, fit.describe()),
    )


def _validation_runs(
    run: RunInfo, group_scalars: Mapping[str, Mapping[str, ScalarSeriesLike]]
) -> list[Mapping[str, ScalarSeriesLike]]:
    found = [group_scalars[run.run]]
    for name in sorted(group_scalars):
        if name != run.run and name.rsplit("/", 1)[-1].lower() == "validation":
            found.append(group_scalars[name])
    return found


def _keras_knots(
    tags: Mapping[str, ScalarSeriesLike],
) -> tuple[FloatArray, FloatArray, float] | None:
    """Knots (iterations, epochs) from `evaluation_<q>_vs_iterations`."""
    for tag in sorted(tags):
        if not (
            tag.startswith("evaluation_") and tag.endswith("_vs_iterations")
        ):
            continue
        iters = np.unique(np.asarray(tags[tag].steps, dtype=np.float64))
        if iters.size == 0:
            continue
        quantity = tag[len("evaluation_") : -len("_vs_iterations")]
        partner = tags.get(f"epoch_{quantity}")
        epochs = np.arange(iters.size, dtype=np.float64)
        if partner is not None:
            logged = np.unique(np.asarray(partner.steps, dtype=np.float64))
            if logged.size == iters.size:
                epochs = logged  # validation_freq > 1 skips epochs
        ends = epochs + 1.0
        if np.any(np.diff(iters) <= 0) or iters[0] <= 0:
            continue
        if iters.size > 1:
            spe = float(np.median(np.diff(iters) / np.diff(ends)))
        else:
            spe = float(iters[0] / ends[0])  # training starts at iteration 0
        return iters, ends, spe
    return None


def _few(tags: list[str]) -> str:
    shown = ", ".join(repr(t) for t in sorted(tags)[:3])
    return shown + (f" and {len(tags) - 3} more" if len(tags) > 3 else "")
