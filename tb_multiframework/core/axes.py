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

A run's epoch map comes from the first of these that exists:

1. the user's config (`stepsPerEpoch`; `epochOffset` shifts any source);
2. a scalar tag named `epoch` (an integer staircase, or fractional epochs);
3. Keras' layout: `epoch_*` tags (and weight histograms) at step = epoch
   index; iterations per epoch
   from `evaluation_*_vs_iterations` of the group's `validation` run, else
   estimated from wall-clock times;
4. Paddle hapi's layout (`paddle.callbacks.VisualDL`): `eval/*` at step =
   epoch index; steps per epoch of `train/*` estimated from wall-clock times;
5. tags logged at step = 0, 1, 2, ... (one point per epoch, the common
   `add_scalar(tag, value, epoch)`) beside tags with far larger steps; steps
   per epoch of the others estimated from wall-clock times.

Whatever the source, epoch-indexed tags (Keras `epoch_*`, hapi `eval/*`,
tags found by 5.) sit at step + 1. A run with none of these is `Excluded`
with the reason, never placed on another axis.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .types import EpochSetting, Excluded, FloatArray, RunInfo, ScalarSeriesLike

AXES = ("step", "epoch", "relative", "wall", "progress")
STEP_IS_EPOCH = "step = epoch index"
_EPOCH_INDEX_RATIO = 4  # other tags' last step / epochs, to call steps epochs
_EPOCH_DECIMALS = 9  # epoch positions are rounded to 1e-9 epoch

_EMPTY = np.empty(0, dtype=np.float64)
_KERAS_STEP_COUNTED = re.compile(r"batch_|evaluation_.+_vs_iterations$")


@dataclass(frozen=True)
class EpochMap:
    """How one run's steps become fractional epochs.

    Attributes:
        source: Short human description ("config: 100 steps/epoch",
            "tag 'epoch'", "keras", "paddle hapi ...").
        epoch_indexed_tags: Tags whose step is a 0-based epoch index
            (Keras `epoch_*`, Paddle hapi `eval/*`); placed at step + 1.
        knot_steps: Increasing steps with known epoch positions.
        knot_epochs: The epoch positions at `knot_steps`.
        steps_per_epoch: Slope used without knots and beyond them.
        offset: Added to every position (the user's `epochOffset`).
        step_reason: Why step-counted tags cannot be placed, if they cannot.
        num_epochs: Epochs seen by the epoch-indexed tags (for `progress`).
    """

    source: str
    epoch_indexed_tags: frozenset[str] = frozenset()
    knot_steps: FloatArray = field(default_factory=lambda: _EMPTY.copy())
    knot_epochs: FloatArray = field(default_factory=lambda: _EMPTY.copy())
    steps_per_epoch: float | None = None
    offset: float = 0.0
    step_reason: str | None = None
    num_epochs: int = 0

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
            return s + 1.0 + self.offset
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
    convention, indexed = _epoch_indexed_tags(run, own)
    offset = setting.epoch_offset if setting is not None else 0.0
    base = EpochMap(
        source="",
        epoch_indexed_tags=indexed,
        offset=offset,
        num_epochs=_num_epochs(own, indexed),
    )
    if setting is not None and setting.steps_per_epoch is not None:
        spe = float(setting.steps_per_epoch)
        emap = _with(base, f"config: {spe:g} steps/epoch", steps_per_epoch=spe)
        return _note_offset(emap, offset)
    reasons = []
    epoch_tag = _find_epoch_tag(own)
    if epoch_tag is None:
        reasons.append("no 'epoch' tag")
    elif epoch_tag in indexed:
        # Logged once per epoch at step = epoch: says nothing about steps.
        reasons.append(f"tag {epoch_tag!r} is logged at step = epoch index")
    else:
        found = _map_from_epoch_tag(base, epoch_tag, own[epoch_tag])
        if isinstance(found, EpochMap):
            return _note_offset(found, offset)
        reasons.append(found)
    if convention == "keras":
        return _note_offset(_keras_map(base, run, group_scalars, own), offset)
    if convention is not None:
        return _note_offset(_wall_clock_map(base, own, convention), offset)
    reasons.append(
        "not a Keras or Paddle hapi layout, and no tags logged at "
        "step = epoch index"
    )
    reasons.append("set stepsPerEpoch for this run in the config")
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
            return (steps + 1.0) / max(epoch_map.num_epochs, 1)
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
    tags: Mapping[str, ScalarSeriesLike], indexed: frozenset[str]
) -> int:
    best = 0
    for tag in indexed:
        steps = np.asarray(tags[tag].steps)
        if steps.size:
            best = max(best, int(steps.max()) + 1)
    return best


def _epoch_indexed_tags(
    run: RunInfo, tags: Mapping[str, ScalarSeriesLike]
) -> tuple[str | None, frozenset[str]]:
    """Which convention the run follows and its epoch-indexed tags."""
    names = list(tags)
    if _is_keras(run, names):
        # The callback writes everything at step = epoch (epoch_* scalars,
        # weight histograms) except batch_* and evaluation_*_vs_iterations.
        return "keras", frozenset(
            t for t in names if not _KERAS_STEP_COUNTED.match(t)
        )
    if run.writer == "visualdl" or run.framework == "paddle":
        evals = [t for t in names if t.startswith("eval/")]
        trains = [t for t in names if t.startswith("train/")]
        if evals and _looks_like_hapi(tags, evals, trains):
            return "paddle hapi", frozenset(evals)
    by_pattern = _tags_at_epoch_index(tags)
    if by_pattern:
        return STEP_IS_EPOCH, by_pattern
    return None, frozenset()


def _tags_at_epoch_index(
    tags: Mapping[str, ScalarSeriesLike],
) -> frozenset[str]:
    """Tags logged at step = 0, 1, 2, ... beside tags with far larger steps.

    Many scripts log epoch metrics with `add_scalar(tag, v, epoch)` and batch
    metrics with the global step; the first kind is recognised by its steps
    being exactly 0..m-1 while some tag of the run reaches at least
    `_EPOCH_INDEX_RATIO * m`.
    """
    candidates = {}
    last_step = -1
    for tag, series in tags.items():
        steps = np.asarray(series.steps)
        if steps.size == 0:
            continue
        low, high = int(steps.min()), int(steps.max())
        last_step = max(last_step, high)
        # 0..m-1 needs m distinct steps, so a larger max rules it out
        # without counting (this runs over every point of every run).
        if low != 0 or high >= steps.size:
            continue
        gaps = np.diff(steps)
        if (gaps >= 0).all():
            distinct = 1 + int(np.count_nonzero(gaps))
        else:
            distinct = int(np.unique(steps).size)
        if high == distinct - 1:
            candidates[tag] = distinct
    return frozenset(
        tag
        for tag, count in candidates.items()
        if last_step >= _EPOCH_INDEX_RATIO * count
    )


def _is_keras(run: RunInfo, names: list[str]) -> bool:
    if run.writer == "keras":
        return True
    return (
        run.framework == "tensorflow"
        and run.basename in ("train", "validation")
        and any(t.startswith("epoch_") for t in names)
    )


def _looks_like_hapi(
    tags: Mapping[str, ScalarSeriesLike], evals: list[str], trains: list[str]
) -> bool:
    # hapi logs eval/* at the epoch index (0, eval_freq, ...), far below the
    # batch counter of train/*; a script logging eval at global steps is not.
    eval_steps = np.concatenate([np.asarray(tags[t].steps) for t in evals])
    if eval_steps.size == 0 or eval_steps.min() != 0:
        return False
    if not trains:
        return True
    train_steps = np.concatenate([np.asarray(tags[t].steps) for t in trains])
    return train_steps.size == 0 or eval_steps.max() < train_steps.max()


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
    base: EpochMap, tag: str, series: ScalarSeriesLike
) -> EpochMap | str:
    steps = np.asarray(series.steps, dtype=np.float64)
    values = np.asarray(series.values, dtype=np.float64)
    ok = np.isfinite(values)
    steps, values = steps[ok], values[ok]
    if values.size == 0:
        return f"tag {tag!r} has no finite values"
    if np.all(values == np.round(values)):
        return _map_from_staircase(base, tag, steps, values)
    return _map_from_fractional(base, tag, steps, values)


def _map_from_staircase(
    base: EpochMap, tag: str, steps: FloatArray, values: FloatArray
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
    return _with(
        base,
        f"tag {tag!r}",
        knot_steps=ends[:-1].copy(),
        knot_epochs=epochs[:-1] + 1.0,
        steps_per_epoch=spe,
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
            )
    return _wall_clock_map(base, own, "keras")


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


def _wall_clock_map(
    base: EpochMap, own: Mapping[str, ScalarSeriesLike], label: str
) -> EpochMap:
    counted = sorted(t for t in own if t not in base.epoch_indexed_tags)
    if not counted:
        return _with(base, label, step_reason=f"{label}: no step-counted tags")
    found = _knot_from_wall_clock(own, sorted(base.epoch_indexed_tags), counted)
    if found is None:
        reason = (
            f"{label}: no epoch-level point written after a step-counted "
            "point, so steps per epoch are unknown (set stepsPerEpoch in the "
            "config)"
        )
        return _with(base, label, step_reason=reason)
    step, epoch, spe = found
    return _with(
        base,
        f"{label} ({spe:.6g} steps/epoch from wall clock)",
        knot_steps=np.array([step], dtype=np.float64),
        knot_epochs=np.array([epoch], dtype=np.float64),
        steps_per_epoch=spe,
    )


def _knot_from_wall_clock(
    tags: Mapping[str, ScalarSeriesLike],
    indexed: list[str],
    counted: list[str],
) -> tuple[float, float, float] | None:
    """Finds where an epoch ended among the step-counted points.

    The epoch-level point of epoch k is written after the epoch's last batch,
    so the largest step written by then ends epoch k; with batch steps
    counting from 1 (from 0: add 1) that step is (k + 1) * n. The newest
    epoch gives the least relative error.

    Returns:
        (step ending epoch k, k + 1, steps per epoch), or None.
    """
    e_steps = np.concatenate([np.asarray(tags[t].steps) for t in indexed])
    e_walls = np.concatenate([np.asarray(tags[t].wall_times) for t in indexed])
    b_steps = np.concatenate([np.asarray(tags[t].steps) for t in counted])
    b_walls = np.concatenate([np.asarray(tags[t].wall_times) for t in counted])
    if b_steps.size == 0 or e_steps.size == 0:
        return None
    order = np.argsort(b_walls, kind="stable")
    b_walls = b_walls[order]
    running_max = np.maximum.accumulate(b_steps[order].astype(np.float64))
    from_zero = 1.0 if b_steps.min() == 0 else 0.0
    for k in sorted(set(e_steps.tolist()), reverse=True):
        end_wall = e_walls[e_steps == k].min()
        seen = int(np.searchsorted(b_walls, end_wall, side="right"))
        if seen == 0:
            continue
        last = float(running_max[seen - 1])
        spe = (last + from_zero) / (float(k) + 1.0)
        if math.isfinite(spe) and spe > 0:
            return last, float(k) + 1.0, spe
    return None
