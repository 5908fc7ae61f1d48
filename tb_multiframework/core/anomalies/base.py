"""What every detector reads and returns: the kinds, a prepared series, and
an `Anomaly`."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from tb_multiframework import i18n

from ..types import FloatArray, Int64Array
from .robust import (
    BASE_WIDTH,
    COARSE_POINTS,
    Badness,
    Coarse,
    badness,
    coarse_view,
    local_noise,
    rolling_median,
)

KINDS = (
    "nonfinite",
    "spike",
    "cliff",
    "plateau",
    "oscillation",
    "stepwise_rise",
    "overfitting",
    "drift",
    "explosion",
    "rank_desync",
)
PAIR_KINDS = ("overfitting", "drift")  # a train and a val series
GROUP_KINDS = ("rank_desync",)  # the ranks of one distributed run
SERIES_KINDS = tuple(  # one series alone
    kind for kind in KINDS if kind not in PAIR_KINDS + GROUP_KINDS
)

USUAL_CAUSES = {
    "nonfinite": "exploding gradients, a learning rate too high, log(0) "
    "or a division by zero",
    "spike": "a bad batch, learning-rate warm-up, an AMP (fp16) overflow",
    "cliff": "a label leak, a batch of a single class, a data bug",
    "plateau": "a learning rate too low, stuck in a minimum, no signal in "
    "the data",
    "oscillation": "data not shuffled, a sampler bug",
    "stepwise_rise": "a validation or augmentation leak",
    "overfitting": "overfitting: more data, regularisation or early "
    "stopping",
    "drift": "preprocessing drift (the data changes under the model)",
    "explosion": "bad initialisation, no gradient clipping",
    "rank_desync": "a rank reading different data, or a hung rank",
}

MAX_PER_KIND = 50  # anomalies of one kind reported per series
DESPIKE_SIGMAS = 6.0  # points this many local sigmas off are outliers
ROBUST_BLOCK = 5  # coarse blocks this large are medians of the raw values
SIDE_WIDTH = 5  # points of the medians left and right of an outlier


@dataclasses.dataclass(frozen=True)
class Anomaly:
    """One flagged range of one series.

    Attributes:
        kind: one of `KINDS`.
        start: index of the first point of the range, in the series
            sorted by step (all points, non-finite ones included).
        end: index of the last point of the range (inclusive).
        start_step: the step at `start`.
        end_step: the step at `end`.
        severity: 0..1 (0.3 at the detection threshold).
        message: one sentence for a person (English).
        evidence: the numbers behind the decision.
        message_id: the sentence's id in the message catalogs
            (`tb_multiframework/i18n`), "" when it has none.
        message_params: the parameters of `message_id`.
    """

    kind: str
    start: int
    end: int
    start_step: int
    end_step: int
    severity: float
    message: str
    evidence: dict[str, Any]
    message_id: str = ""
    message_params: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Message:
    """A sentence for a person: a catalog message and its parameters.

    Its English text is the catalog's, so the text sent and the message id
    sent beside it cannot disagree.
    """

    key: str
    params: dict[str, Any]

    @property
    def text(self) -> str:
        """The English sentence."""
        return i18n.t(self.key, self.params)


def say(key: str, **params: Any) -> Message:
    """The catalog message `key` with its parameters."""
    return Message(key, params)


class Prepared:
    """A series sorted by step, with what several detectors share.

    Detectors read the finite points (`y`); ranges found on them are
    turned back into indices of the whole sorted series by `anomaly`.
    """

    def __init__(
        self,
        steps: np.ndarray,
        values: np.ndarray,
        direction: str | None = None,
        x: np.ndarray | None = None,
    ) -> None:
        steps = np.asarray(steps, dtype=np.int64)
        values = np.asarray(values, dtype=np.float64)
        positions = (
            steps.astype(np.float64)
            if x is None
            else np.asarray(x, dtype=np.float64)
        )
        if (
            steps.shape != values.shape
            or steps.shape != positions.shape
            or steps.ndim != 1
        ):
            raise ValueError(
                f"steps, values and x must be 1-d of one length, got "
                f"{steps.shape}, {values.shape} and {positions.shape}"
            )
        if len(steps) > 1 and np.any(steps[1:] < steps[:-1]):
            order = np.argsort(steps, kind="stable")
            steps, values = steps[order], values[order]
            positions = positions[order]
        self.steps: Int64Array = steps
        self.values: FloatArray = values
        self.direction = direction
        self.finite = np.isfinite(values)
        usable = self.finite & np.isfinite(positions)
        self.index: np.ndarray = np.flatnonzero(usable)
        self.y: FloatArray = values[usable]
        self.x: FloatArray = positions[usable]

    def __len__(self) -> int:
        return len(self.y)

    @functools.cached_property
    def bad(self) -> Badness:
        """How the values turn so that up is worse."""
        return badness(self.y, self.direction)

    @functools.cached_property
    def base(self) -> FloatArray:
        """Rolling median of the finite values (spikes removed)."""
        return rolling_median(self.y, base_width(len(self.y)))

    @functools.cached_property
    def bad_base(self) -> FloatArray:
        """`base` turned so that up is worse."""
        return self.bad.apply(self.base)

    @functools.cached_property
    def local_sigma(self) -> FloatArray:
        """Per finite point, the noise sigma around it (off `base`)."""
        n = len(self.y)
        return local_noise(self.y - self.base, int(np.clip(n // 16, 16, 64)))

    @functools.cached_property
    def despiked(self) -> FloatArray:
        """The finite values with isolated outliers replaced by `base`.

        An outlier is off `base` by `DESPIKE_SIGMAS` local sigmas and 10 %
        of the level, and off the medians of the points just left and just
        right of it in the same direction (a corner of a step sits on one
        side's level). Unlike `base`, this keeps a step on a slope sharp:
        a rolling median shaves a step that is small next to the slope
        across its window.
        """
        y, base = self.y, self.base
        if len(y) < 2 * SIDE_WIDTH + 1:
            return y
        limit = np.maximum(
            DESPIKE_SIGMAS * self.local_sigma, 0.1 * np.abs(base)
        )
        off = np.abs(y - base) > limit
        if not off.any():
            return y
        near = rolling_median(y, SIDE_WIDTH)
        shift = SIDE_WIDTH // 2 + 1
        left = np.r_[np.full(shift, np.nan), near[:-shift]]
        right = np.r_[near[shift:], np.full(shift, np.nan)]
        up = (y - left > limit) & (y - right > limit)
        down = (left - y > limit) & (right - y > limit)
        off &= up | down
        if not off.any():
            return y
        return np.where(off, base, y)

    @functools.cached_property
    def coarse(self) -> Coarse:
        """Block medians of `despiked`, turned so that up is worse.

        Blocks of `ROBUST_BLOCK` points or more are medians of the values
        themselves: a median of that many points ignores a spike anyway,
        and a long series then needs no rolling median for its trend.
        """
        n = len(self.y)
        if n // COARSE_POINTS >= ROBUST_BLOCK:
            return coarse_view(self.bad.apply(self.y))
        return coarse_view(self.bad.apply(self.despiked))

    def coarse_x(self) -> FloatArray:
        """x at the middle of each coarse block."""
        coarse = self.coarse
        return self.x[(coarse.starts + coarse.stops - 1) // 2]

    def step_at(self, i: int) -> int:
        """The step of finite point i."""
        return int(self.steps[self.index[i]])

    def anomaly(
        self,
        kind: str,
        first: int,
        last: int,
        severity: float,
        message: str | Message,
        evidence: dict[str, Any],
        *,
        finite: bool = True,
    ) -> Anomaly:
        """An anomaly over points first..last (inclusive).

        Args:
            finite: first and last index the finite points (`y`); False:
                they index all sorted points (`values`).
        """
        size = len(self.y) if finite else len(self.values)
        first = int(np.clip(first, 0, size - 1))
        last = int(np.clip(last, first, size - 1))
        if finite:
            start, end = int(self.index[first]), int(self.index[last])
        else:
            start, end = first, last
        return Anomaly(
            kind=kind,
            start=start,
            end=end,
            start_step=int(self.steps[start]),
            end_step=int(self.steps[end]),
            severity=float(severity),
            message=message.text if isinstance(message, Message) else message,
            evidence=evidence,
            message_id=message.key if isinstance(message, Message) else "",
            message_params=(
                dict(message.params) if isinstance(message, Message) else {}
            ),
        )


def base_width(n: int) -> int:
    """Rolling-median width: `BASE_WIDTH`, narrower for short series."""
    if n >= 100:
        return BASE_WIDTH
    return max(5 if n >= 20 else 3, min(BASE_WIDTH, n // 10 | 1))


def fmt(value: float) -> str:
    """A value for a message: 4 significant digits."""
    return f"{value:.4g}"


def fmt_step(step: int) -> str:
    """A step for a message: 12,345."""
    return f"{step:,}"
