"""Per-run summaries of one metric (last, best, step of best), rank spread.

The Runs table's metric columns and its DDP rank-spread column.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class SeriesSummary:
    """One series summarised.

    Attributes:
        count: Points logged.
        last: Value at the largest step (the last logged there), or None.
        last_step: That step.
        best: Best finite value under `direction` (None without one).
        best_step: Step of the first point holding `best`.
    """

    count: int
    last: float | None
    last_step: int | None
    best: float | None
    best_step: int | None


def summarize_series(
    steps: npt.ArrayLike, values: npt.ArrayLike, *, direction: str | None
) -> SeriesSummary:
    """Last and best values of a series (any logged order).

    Args:
        steps: Logged steps.
        values: Logged values (NaN/Inf allowed: never "best").
        direction: "min", "max" or None (then no best).
    """
    s = np.asarray(steps, dtype=np.int64)
    v = np.asarray(values, dtype=np.float64)
    if s.size == 0:
        return SeriesSummary(0, None, None, None, None)
    order = np.argsort(s, kind="stable")
    s, v = s[order], v[order]
    last, last_step = float(v[-1]), int(s[-1])
    best = best_step = None
    finite = np.isfinite(v)
    if direction in ("min", "max") and finite.any():
        pick = np.where(finite, v, np.inf if direction == "min" else -np.inf)
        i = int(np.argmin(pick) if direction == "min" else np.argmax(pick))
        best, best_step = float(v[i]), int(s[i])
    return SeriesSummary(int(s.size), last, last_step, best, best_step)


@dataclass(frozen=True)
class RankSpread:
    """How far apart the ranks of one job are at their last common step.

    Attributes:
        step: The largest step every rank logged (None if there is none).
        spread: max |v_r − mean| / |mean| over the ranks' values there
            (None when the mean is 0 or a value is not finite).
        values: Each rank's value at that step.
    """

    step: int | None
    spread: float | None
    values: tuple[float, ...]


def rank_spread(
    series: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]],
) -> RankSpread:
    """The relative spread of ranks' values at their last common step.

    Args:
        series: (steps, values) per rank, any logged order; a step logged
            twice counts with its last value.
    """
    if len(series) < 2:
        return RankSpread(None, None, ())
    last: list[dict[int, float]] = []
    for steps, values in series:
        s = np.asarray(steps, dtype=np.int64)
        v = np.asarray(values, dtype=np.float64)
        last.append(dict(zip(s.tolist(), v.tolist())))
    common = set(last[0]).intersection(*last[1:])
    if not common:
        return RankSpread(None, None, ())
    step = max(common)
    vals = tuple(m[step] for m in last)
    if not all(math.isfinite(x) for x in vals):
        return RankSpread(step, None, vals)
    mean = sum(vals) / len(vals)
    if mean == 0:
        return RankSpread(step, None, vals)
    spread = max(abs(x - mean) for x in vals) / abs(mean)
    return RankSpread(step, spread, vals)
