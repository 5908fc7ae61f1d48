"""A learning-rate schedule, as far as it explains a change in a curve.

A step schedule (lr x 0.1 at epoch 30) makes the loss drop at once, a warm
restart makes it jump up, and a warm-up holds it flat: none of those is
an anomaly. A jump of a curve is explained when the run's learning rate
jumps by a factor of `LR_CHANGE` or more at the same place; a flat stretch
when the rate rises across it or jumps where it ends. (A rate that decays
slowly explains nothing: a loss stuck while the rate decays is stuck.)
"""

from __future__ import annotations

import math

import numpy as np

LR_CHANGE = 1.2  # factor between consecutive learning rates that counts
JUMP_NEIGHBOURS = 5  # changes each side a jump is compared with
JUMP_OVER = 3.0  # a jump is this many times the median change around it
NEGLIGIBLE = 1e-3  # rates below this share of the largest do not count


class Schedule:
    """The learning rates a run logged, sorted by step.

    Args:
        steps: steps of the learning-rate tag.
        values: its values (non-finite and non-positive ones are ignored).
    """

    def __init__(self, steps: np.ndarray, values: np.ndarray) -> None:
        steps = np.asarray(steps, dtype=np.int64)
        values = np.asarray(values, dtype=np.float64)
        keep = np.isfinite(values) & (values > 0)
        order = np.argsort(steps[keep], kind="stable")
        self.steps = steps[keep][order]
        self.values = values[keep][order]
        change = np.abs(np.diff(np.log(self.values)))
        jump = change >= math.log(LR_CHANGE)
        # A jump stands out of the changes around it: a cosine schedule
        # near its end changes fast too, but smoothly.
        for i in np.flatnonzero(jump).tolist():
            lo, hi = max(0, i - JUMP_NEIGHBOURS), i + JUMP_NEIGHBOURS + 1
            around = np.r_[change[lo:i], change[i + 1 : hi]]
            if len(around) and change[i] < JUMP_OVER * float(np.median(around)):
                jump[i] = False
        # Among rates ~0 (the end of a cosine schedule) nothing moves.
        if len(self.values):
            larger = np.maximum(self.values[:-1], self.values[1:])
            jump &= larger >= NEGLIGIBLE * float(self.values.max())
        where = np.flatnonzero(jump)
        # Between the last step at the old rate and the first at the new.
        self.jumps = np.stack([self.steps[where], self.steps[where + 1]], 1)

    def __len__(self) -> int:
        return len(self.steps)

    def jump_near(self, low: float, high: float) -> tuple[int, int] | None:
        """A jump of the rate overlapping the steps [low, high], if any."""
        if len(self.jumps) == 0:
            return None
        hit = (self.jumps[:, 0] <= high) & (self.jumps[:, 1] >= low)
        where = np.flatnonzero(hit)
        if len(where) == 0:
            return None
        return int(self.jumps[where[0], 0]), int(self.jumps[where[0], 1])

    def rises_within(self, low: float, high: float) -> bool:
        """Whether the rate jumps within [low, high] or rises by
        `LR_CHANGE` or more across it (a warm-up)."""
        if len(self.steps) == 0:
            return False
        if self.jump_near(low, high) is not None:
            return True
        inside = self.values[(self.steps >= low) & (self.steps <= high)]
        before = self.values[self.steps < low]
        if len(before):
            inside = np.r_[before[-1], inside]
        if len(inside) < 2:
            return False
        return float(inside[-1] / inside.min()) >= LR_CHANGE
