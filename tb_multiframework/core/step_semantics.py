"""Steps that are timestamps: `global_step = int(elapsed * 1000)`.

Some scripts log with the elapsed milliseconds (or seconds, microseconds,
or the absolute Unix time) as the step to get a time axis. Such a tag's
steps are not steps: on the step or epoch axis it lands anywhere, and a
run mixing it with logical steps misaligns every comparison.

`classify_steps` calls a tag's steps timestamps only on positive evidence
(docs/conventions.md, "Steps that are timestamps"):

1. consecutive points advance `unit` steps a second of their wall time
   (`unit` = 1, 1000, 10^6 or 10^9) for at least `AGREE_FRACTION` of the
   intervals, within one step plus `REL_TOL` of the interval plus
   `ABS_SLACK` seconds (the clock is read a moment before the event's own
   wall time);
2. while the wall-time intervals vary (coefficient of variation at least
   `MIN_CV`): a loop logging at a steady rate would satisfy 1. too;
3. and the step increments vary (a logical counter logs constant
   increments: every step, every N steps).

Anything else is `steps` (as logged); with 1. alone the evidence says why
it is not enough. Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .types import FloatArray, Int64Array

UNITS = {
    1.0: "seconds",
    1e3: "milliseconds",
    1e6: "microseconds",
    1e9: "nanoseconds",
}
MIN_POINTS = 8  # points a tag needs to be judged at all
AGREE_FRACTION = 0.9  # intervals that must track the clock
REL_TOL = 0.05  # of the interval's wall time
ABS_SLACK = 0.005  # seconds between reading the clock and writing
MIN_CV = 0.1  # coefficient of variation of the wall-time intervals


@dataclass(frozen=True)
class StepSemantics:
    """What a tag's steps are.

    Attributes:
        kind: "timestamp" or "steps".
        unit: "milliseconds", ... for timestamps, else "".
        origin: "elapsed" (since some start) or "unix" (absolute) for
            timestamps, else "".
        evidence: The numbers behind the decision ("" when nothing
            suggested timestamps).
    """

    kind: str
    unit: str = ""
    origin: str = ""
    evidence: str = ""

    @property
    def is_timestamp(self) -> bool:
        return self.kind == "timestamp"


STEPS = StepSemantics("steps")


def classify_steps(steps: Int64Array, wall_times: FloatArray) -> StepSemantics:
    """Whether a tag's steps are timestamps (see the module docstring).

    Args:
        steps: Its steps, in logged order.
        wall_times: Their wall times.
    """
    s = np.asarray(steps, dtype=np.float64)
    w = np.asarray(wall_times, dtype=np.float64)
    if s.size < MIN_POINTS:
        return STEPS
    ds, dw = np.diff(s), np.diff(w)
    ok = np.isfinite(dw) & (dw > 0) & (ds > 0)
    if int(ok.sum()) < MIN_POINTS - 1:
        return STEPS
    ds, dw = ds[ok], dw[ok]
    # The unit from the whole span first: cheap, and most tags stop here.
    span = (s[-1] - s[0]) / (w[-1] - w[0]) if w[-1] > w[0] else 0.0
    unit = next((u for u in UNITS if 0.5 * u <= span <= 2.0 * u), None)
    if unit is None:
        return STEPS
    tol = 1.0 + REL_TOL * unit * dw + unit * ABS_SLACK
    agree = np.abs(ds - unit * dw) <= tol
    fraction = float(agree.mean())
    if fraction < AGREE_FRACTION:
        return STEPS
    name = UNITS[unit]
    cv = float(dw.std() / dw.mean())
    tracked = (
        f"{int(agree.sum())} of {agree.size} intervals advance {unit:g} steps "
        f"a second of wall time"
    )
    if cv < MIN_CV:
        return StepSemantics(
            "steps",
            evidence=f"{tracked}, as {name} would, but the intervals are "
            f"too regular (coefficient of variation {cv:.3f} < {MIN_CV}) to "
            "tell a clock from a loop at a steady rate: read as steps",
        )
    if np.unique(ds).size <= 2:
        return StepSemantics(
            "steps",
            evidence=f"{tracked}, but every increment is one of "
            f"{sorted(set(np.unique(ds).astype(int).tolist()))}: a counter",
        )
    offset = s[0] / unit - w[0]  # seconds: ~0 for absolute Unix time
    origin = "unix" if abs(offset) < 3600 else "elapsed"
    since = (
        "the Unix epoch"
        if origin == "unix"
        else f"a start at wall time {w[0] - s[0] / unit:.3f}"
    )
    return StepSemantics(
        "timestamp",
        unit=name,
        origin=origin,
        evidence=f"steps are {name} since {since}: {tracked} (±{REL_TOL:.0%}"
        f" + {ABS_SLACK * 1000:g} ms) while the intervals vary "
        f"{dw.min():.3g}–{dw.max():.3g} s (coefficient of variation "
        f"{cv:.2f})",
    )


def mixed_semantics_warning(
    semantics: dict[str, StepSemantics], step_tags: list[str]
) -> str:
    """The run's warning when timestamp tags sit beside step-counted ones.

    Args:
        semantics: tag -> its semantics (timestamp tags at least).
        step_tags: the run's other scalar tags (logical steps).
    """
    stamped = sorted(t for t, s in semantics.items() if s.is_timestamp)
    if not stamped or not step_tags:
        return ""
    unit = semantics[stamped[0]].unit
    others = sorted(step_tags)
    return (
        f"mixed step semantics: {_names(stamped)} log {unit} as steps "
        f"beside {_names(others)} at logical steps; the timestamp tags are "
        "placed on the relative and wall axes only"
    )


def _names(tags: list[str]) -> str:
    shown = ", ".join(tags[:3])
    return shown + (f" and {len(tags) - 3} more" if len(tags) > 3 else "")
