"""Evidence for a run's epochs: which tags count epochs, from what base.

Each function here looks for one kind of positive evidence and says what it
found, or why it found nothing (`core/axes.py` puts them together):

* `epoch_indexed_tags`: tags whose step counts epochs. Keras' callback writes
  `epoch_*` at the 0-based epoch index (its own code says so). Elsewhere a tag
  whose steps are consecutive integers from 0 or 1, with at least two of
  them, beside tags counting far larger steps, is logged once per epoch; the
  base (does step k mean "epoch index k", x = k + 1, or "k epochs
  completed", x = k?) comes from the wall clock: how many batches had been
  written when each of its points was (`wall_clock_fit`).
* `counter_at_own_steps`: an `epoch` tag whose value equals its step at every
  point says that this step scale counts epochs, and its first value gives
  the base.
* `staircase_base`: an integer `epoch` counter logged at batch steps (a
  staircase) is 0-based or 1-based: its value during the first epoch.

Nothing is assumed: a fit that does not hold within half an epoch, a single
epoch value, or a base other than 0 or 1 is reported as a reason instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .types import RunInfo, ScalarSeriesLike

EPOCH_INDEX_RATIO = 4  # other tags' last step / epochs, to call steps epochs
FIT_TOLERANCE = 0.5  # epochs a wall-clock fit may be off at any point
_KERAS_STEP_COUNTED = re.compile(r"batch_|evaluation_.+_vs_iterations$")


@dataclass(frozen=True)
class Indexed:
    """Tags whose step counts epochs, and where each sits.

    Attributes:
        convention: "keras", "step = epoch index" or None (none found).
        shifts: tag -> x - step (1.0: the step is the 0-based epoch index,
            x = step + 1; 0.0: the step counts epochs completed, x = step).
        evidence: Why, in words.
        problem: Why candidates were not used, or "".
        spe: Steps per epoch found on the way (wall-clock fit), or None.
        knot: (step, epoch) ending a known epoch (wall-clock fit), or None.
    """

    convention: str | None
    shifts: Mapping[str, float]
    evidence: tuple[str, ...] = ()
    problem: str = ""
    spe: float | None = None
    knot: tuple[float, float] | None = None


def is_keras(run: RunInfo, names: list[str]) -> bool:
    """Keras' TensorBoard callback layout (its writer, or its sub-runs)."""
    if run.writer == "keras":
        return True
    return (
        run.framework == "tensorflow"
        and run.basename in ("train", "validation")
        and any(t.startswith("epoch_") for t in names)
    )


def epoch_indexed_tags(
    run: RunInfo,
    tags: Mapping[str, ScalarSeriesLike],
    *,
    base: int | None = None,
) -> Indexed:
    """Which tags count epochs, with their base (see the module docstring).

    Args:
        run: The run.
        tags: Its series (histogram positions included).
        base: The user's base (0 or 1) for tags found by their steps.
    """
    names = list(tags)
    if is_keras(run, names):
        shifts = {t: 1.0 for t in names if not _KERAS_STEP_COUNTED.match(t)}
        return Indexed(
            "keras",
            shifts,
            (
                "Keras' TensorBoard callback writes epoch_* (and weight "
                "histograms) at step = the 0-based epoch index",
            ),
        )
    candidates, top = _consecutive_from_0_or_1(tags)
    if not candidates:
        return Indexed(None, {})
    counted = sorted(t for t in names if t not in candidates)
    first = {t: int(np.min(tags[t].steps)) for t in candidates}
    if base is not None:
        shift = 1.0 - base
        shifts = {t: shift for t in candidates}
        fit = wall_clock_fit(tags, shifts, counted)
        return Indexed(
            "step = epoch index",
            shifts,
            (
                f"{_tag_list(candidates)} logged once at each step "
                f"{_steps_text(candidates, tags)} beside steps up to {top}",
                f"base {base} set by you",
            ),
            spe=fit.spe if fit.ok else None,
            knot=fit.knot if fit.ok else None,
        )
    # The base from the wall clock, the same for every candidate logged at
    # the same steps (a validation loop's metrics share one write).
    groups: dict[int, list[str]] = {}
    for tag, low in first.items():
        groups.setdefault(low, []).append(tag)
    shifts = {}
    evidence = []
    problems = []
    spe = knot = None
    for _low, group in sorted(groups.items()):
        fit = wall_clock_fit(tags, {t: None for t in group}, counted)
        if not fit.ok:
            problems.append(f"{_tag_list(group)}: {fit.reason}")
            continue
        assert fit.shift is not None
        shifts.update({t: fit.shift for t in group})
        meaning = (
            "the 0-based epoch index (x = step + 1)"
            if fit.shift == 1.0
            else "the epochs completed (x = step)"
        )
        evidence.append(
            f"{_tag_list(group)} logged once at each step "
            f"{_steps_text(group, tags)} beside steps up to {top}; "
            f"{fit.describe()}: the step is {meaning}"
        )
        spe, knot = fit.spe, fit.knot
    if not shifts:
        return Indexed(None, {}, problem="; ".join(problems))
    return Indexed(
        "step = epoch index",
        shifts,
        tuple(evidence),
        "; ".join(problems),
        spe=spe,
        knot=knot,
    )


def _consecutive_from_0_or_1(
    tags: Mapping[str, ScalarSeriesLike],
) -> tuple[list[str], int]:
    """Tags at steps b, b+1, ..., b+m-1 (b in {0, 1}, m >= 2) beside tags
    reaching at least `EPOCH_INDEX_RATIO` x (b + m) steps."""
    found: dict[str, int] = {}
    top = -1
    for tag, series in tags.items():
        steps = np.asarray(series.steps)
        if steps.size == 0:
            continue
        low, high = int(steps.min()), int(steps.max())
        top = max(top, high)
        # b..b+m-1 needs m distinct steps, so a larger max rules it out
        # without counting (this runs over every point of every run).
        if low not in (0, 1) or high - low + 1 > steps.size or high == low:
            continue
        gaps = np.diff(steps)
        if (gaps >= 0).all():
            distinct = 1 + int(np.count_nonzero(gaps))
        else:
            distinct = int(np.unique(steps).size)
        if high - low + 1 == distinct:
            found[tag] = high + 1
    chosen = sorted(
        tag for tag, end in found.items() if top >= EPOCH_INDEX_RATIO * end
    )
    return chosen, top


@dataclass(frozen=True)
class Fit:
    """Epochs completed when each epoch-level point was written.

    Attributes:
        ok: Whether the fit holds.
        reason: Why not, when it does not.
        spe: Steps per epoch of the step-counted tags.
        shift: x - step of the epoch-level points (1.0 or 0.0).
        knot: (last step-counted step written by the newest epoch-level
            point, its epoch position).
        zero_based: Whether step-counted tags count from 0.
    """

    ok: bool
    reason: str = ""
    spe: float | None = None
    shift: float | None = None
    knot: tuple[float, float] | None = None
    zero_based: bool = False
    points: int = 0

    def describe(self) -> str:
        counted = "from 0" if self.zero_based else "from 1"
        return (
            f"{self.spe:.6g} steps/epoch from the wall clock (the batches "
            f"written before each of its {self.points} points; batch steps "
            f"count {counted})"
        )


def wall_clock_fit(
    tags: Mapping[str, ScalarSeriesLike],
    shifts: Mapping[str, float | None],
    counted: list[str],
) -> Fit:
    """Fits steps per epoch and the base from the order of writing.

    An epoch-level point is written after its epoch's last batch: the batch
    steps written by then, B (plus 1 when steps count from 0), are the
    epochs completed times the steps per epoch n. With two or more
    epoch-level points n is the median of dB / dstep; the epochs completed
    at each point, (B + 1{from 0}) / n, minus its step gives the shift
    (0: the step counts epochs completed, 1: it is the 0-based index), which
    must agree within `FIT_TOLERANCE` at every point.

    Args:
        tags: The run's series.
        shifts: The epoch-level tags and their known shift (None: find it).
        counted: The step-counted tags.
    """
    if not counted:
        return Fit(False, "no step-counted tags")
    e_steps = np.concatenate([np.asarray(tags[t].steps) for t in shifts])
    e_walls = np.concatenate([np.asarray(tags[t].wall_times) for t in shifts])
    b_steps = np.concatenate([np.asarray(tags[t].steps) for t in counted])
    b_walls = np.concatenate([np.asarray(tags[t].wall_times) for t in counted])
    ok = np.isfinite(e_walls)
    e_steps, e_walls = e_steps[ok].astype(np.float64), e_walls[ok]
    if b_steps.size == 0 or e_steps.size == 0:
        return Fit(False, "no points to compare")
    order = np.argsort(b_walls, kind="stable")
    b_walls = b_walls[order]
    running = np.maximum.accumulate(b_steps[order].astype(np.float64))
    zero_based = bool(b_steps.min() == 0)
    offset = 1.0 if zero_based else 0.0
    # Per distinct epoch-level step, its first write.
    firsts: dict[float, float] = {}
    for step, wall in zip(e_steps.tolist(), e_walls.tolist()):
        firsts[step] = min(wall, firsts.get(step, math.inf))
    steps = np.array(sorted(firsts), dtype=np.float64)
    if steps.size < 2:
        return Fit(
            False,
            f"one epoch-level step ({steps[0]:g}) so far: two are needed "
            "to tell steps per epoch",
        )
    walls = np.array([firsts[s] for s in steps.tolist()])
    seen = np.searchsorted(b_walls, walls, side="right")
    batches = np.where(seen > 0, running[np.maximum(seen - 1, 0)] + offset, 0.0)
    rates = np.diff(batches) / np.diff(steps)
    rates = rates[rates > 0]
    if rates.size == 0:
        return Fit(False, "no batches were written between its points")
    spe = float(np.median(rates))
    if not (math.isfinite(spe) and spe >= 1.0):
        return Fit(False, f"{spe:g} steps per epoch is not a count of batches")
    completed = batches / spe
    known = {s for s in shifts.values() if s is not None}
    if known:
        shift = known.pop()
    else:
        shift = float(np.round(np.median(completed - steps)))
    if shift not in (0.0, 1.0):
        return Fit(
            False,
            f"its steps are {shift:+g} epochs from the epochs completed when "
            "they were written: not an epoch count from 0 or 1",
        )
    off = np.abs(completed - steps - shift)
    if float(off.max()) > FIT_TOLERANCE:
        worst = int(np.argmax(off))
        return Fit(
            False,
            f"at step {steps[worst]:g}, {completed[worst]:.3g} epochs had "
            f"been completed at {spe:.6g} steps/epoch: the points do not "
            "follow one epoch length",
        )
    last = int(np.argmax(steps))
    return Fit(
        True,
        spe=spe,
        shift=shift,
        knot=(float(batches[last] - offset), float(steps[last] + shift)),
        zero_based=zero_based,
        points=int(steps.size),
    )


def counter_at_own_steps(
    tag: str, series: ScalarSeriesLike
) -> tuple[float, str] | None:
    """(shift, evidence) when an epoch counter equals its step everywhere.

    The step is then an epoch number; the counter's first value says from
    what it counts (0: x = step + 1, 1: x = step).
    """
    steps = np.asarray(series.steps, dtype=np.float64)
    values = np.asarray(series.values, dtype=np.float64)
    if steps.size < 2 or not np.array_equal(steps, values):
        return None
    first = float(values[np.argmin(steps)])
    if first not in (0.0, 1.0):
        return None
    distinct = np.unique(steps).size
    if distinct < 2:
        return None
    shift = 1.0 - first
    return shift, (
        f"tag {tag!r} equals its step at all {steps.size} points "
        f"({distinct} epochs, the first {first:g}): the step is the epoch "
        f"number counted from {first:g}"
    )


def staircase_base(
    first_value: float,
    first_step: float,
    spe: float,
    zero_based: bool,
) -> tuple[int | None, str]:
    """The base of an integer epoch counter, from its first point.

    The point at `first_step` lies in the 0-based epoch
    k = ceil((step + 1{from 0}) / n) - 1; the counter read `first_value`
    there, so it counts from `first_value - k`.

    Returns:
        (0 or 1, evidence), or (None, why not).
    """
    batches = first_step + (1.0 if zero_based else 0.0)
    k = max(0, math.ceil(round(batches / spe, 9)) - 1)
    base = first_value - k
    where = (
        "in the first epoch"
        if k == 0
        else f"in epoch {k} (0-based) at {spe:.6g} steps/epoch"
    )
    if base in (0.0, 1.0):
        return int(base), (
            f"it reads {first_value:g} at step {first_step:g}, {where}: it "
            f"counts from {int(base)}"
        )
    return None, (
        f"it reads {first_value:g} at step {first_step:g}, {where}: a count "
        f"from {base:g}, neither 0 nor 1"
    )


def _tag_list(tags: list[str]) -> str:
    shown = ", ".join(repr(t) for t in sorted(tags)[:3])
    more = len(tags) - 3
    return shown + (f" and {more} more" if more > 0 else "")


def _steps_text(group: list[str], tags: Mapping[str, ScalarSeriesLike]) -> str:
    steps = np.unique(
        np.concatenate([np.asarray(tags[t].steps) for t in group])
    )
    if steps.size > 4:
        return f"{steps[0]}, {steps[1]}, ..., {steps[-1]}"
    return ", ".join(str(s) for s in steps.tolist())
