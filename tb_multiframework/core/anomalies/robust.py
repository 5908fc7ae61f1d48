"""Robust statistics every detector shares: medians and MADs, not means.

A training curve is a trend plus noise plus, sometimes, a few wild points.
Means and standard deviations follow the wild points; medians and median
absolute deviations (MAD) do not. Everything here is vectorised numpy and
linear in the number of points (rolling medians use `np.partition` over a
small window; coarse views take block medians).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..types import FloatArray

MAD_TO_SIGMA = 1.4826  # sigma of a normal distribution per unit of MAD
Q90_TO_SIGMA = 1.645  # the 90th percentile of |N(0, 1)|
Q25_TO_SIGMA = 0.3186  # the 25th percentile of |N(0, 1)|
COARSE_POINTS = 300  # blocks of the coarse view of a long series
BASE_WIDTH = 11  # points of the rolling median a spike is measured against
NOISE_BLOCK = 64  # points per block of a local noise estimate
TINY = 1e-300


def mad_sigma(values: FloatArray) -> float:
    """1.4826 x the median absolute deviation: sigma for normal noise."""
    if len(values) == 0:
        return 0.0
    center = np.median(values)
    return float(MAD_TO_SIGMA * np.median(np.abs(values - center)))


def noise_sigma(residuals: FloatArray) -> float:
    """A noise scale that survives quantised values and heavy tails.

    The MAD is 0 when most residuals are exactly 0 (an accuracy logged as
    k/32 that is mostly 32/32); the 90th percentile of |r| is not. The
    larger of the two, both scaled to a normal sigma. (The 90th, not a
    higher one: a 5-point spike in 64 points must not set the scale.)
    """
    if len(residuals) == 0:
        return 0.0
    magnitude = np.abs(residuals)
    q90 = float(np.quantile(magnitude, 0.90)) / Q90_TO_SIGMA
    return max(MAD_TO_SIGMA * float(np.median(magnitude)), q90)


def odd_width(width: int, n: int) -> int:
    """The largest odd window <= width that fits n points (at least 1)."""
    width = min(width, n if n % 2 else n - 1)
    return max(1, width if width % 2 else width - 1)


def rolling_median(values: FloatArray, width: int) -> FloatArray:
    """Centred rolling median; the start is point-reflected, the end not.

    At the start, point reflection (2*y[0] - y[k]) continues a straight
    trend, so the first points of a steeply falling curve keep a centred
    median. At the end the last `width` points are used as they are:
    reflection would mirror a spike at the last point (the one a live run
    just logged) into its own baseline and hide it, and curves are flat
    there more often than steep.
    """
    n = len(values)
    width = odd_width(width, n)
    if width <= 1:
        return values.copy()
    half = width // 2
    head = 2 * values[0] - values[half:0:-1]
    padded = np.concatenate([head, values])
    windows = sliding_window_view(padded, width)
    medians = np.partition(windows, half, axis=1)[:, half]
    return medians[np.minimum(np.arange(n), len(medians) - 1)]


@dataclasses.dataclass(frozen=True)
class Coarse:
    """A long series seen as block medians (at most `COARSE_POINTS`).

    Attributes:
        values: one median per block.
        starts: index of each block's first point.
        stops: index one past each block's last point.
        block: points per block (the last block may hold more).
    """

    values: FloatArray
    starts: np.ndarray
    stops: np.ndarray
    block: int

    def __len__(self) -> int:
        return len(self.values)

    def centers(self) -> FloatArray:
        """Each block's middle, in point indices."""
        return (self.starts + self.stops - 1) / 2.0


def coarse_view(values: FloatArray, points: int = COARSE_POINTS) -> Coarse:
    """Block medians of a series, about `points` blocks of equal size.

    The remainder joins the last block, so every point belongs to one.
    """
    n = len(values)
    block = max(1, n // points)
    count = max(1, n // block)
    starts = np.arange(count) * block
    stops = starts + block
    stops[-1] = n
    if block == 1:
        medians = values[:count].astype(np.float64, copy=True)
        if n > count:
            medians[-1] = np.median(values[count - 1 :])
    else:
        body = values[: (count - 1) * block].reshape(count - 1, block)
        medians = np.empty(count)
        medians[:-1] = np.median(body, axis=1)
        medians[-1] = np.median(values[(count - 1) * block :])
    return Coarse(values=medians, starts=starts, stops=stops, block=block)


def second_diff_sigma(values: FloatArray) -> float:
    """Noise sigma from second differences (blind to a smooth trend)."""
    if len(values) < 3:
        return 0.0
    d2 = values[2:] - 2 * values[1:-1] + values[:-2]
    return mad_sigma(d2) / math.sqrt(6.0)


def trend_sigma(c: FloatArray) -> float:
    """Noise sigma of a coarse trend, from its second differences.

    From their 25th percentile, not the median: in a short series a steep
    start and a few steps make many large second differences, which must
    not set the scale. When that is 0, as for the block medians of a
    quantised series (accuracies of k/32), `noise_sigma`'s percentile.
    """
    if len(c) < 3:
        return 0.0
    d2 = np.abs(c[2:] - 2 * c[1:-1] + c[:-2])
    sigma = float(np.quantile(d2, 0.25)) / Q25_TO_SIGMA
    if sigma <= 0.0:
        sigma = noise_sigma(d2)
    return sigma / math.sqrt(6.0)


def blockwise(
    values: FloatArray, block: int, reduce: str = "noise"
) -> tuple[FloatArray, np.ndarray]:
    """A statistic per block of `block` points (remainder in the last).

    Args:
        values: the series.
        block: points per block.
        reduce: "noise" (`noise_sigma` of each block's values around 0) or
            "median".

    Returns:
        (one value per block, each block's first index).
    """
    n = len(values)
    block = max(1, min(block, n))
    count = max(1, n // block)
    starts = np.arange(count) * block
    out = np.empty(count)
    body = values[: (count - 1) * block].reshape(count - 1, block)
    last = values[(count - 1) * block :]
    if reduce == "median":
        out[:-1] = np.median(body, axis=1)
        out[-1] = np.median(last)
        return out, starts
    # Sorted rows: the median and the 90th percentile are columns (as
    # np.quantile's linear interpolation, without its per-call overhead).
    ordered = np.sort(np.abs(body), axis=1)
    out[:-1] = np.maximum(
        MAD_TO_SIGMA * _column(ordered, 0.5),
        _column(ordered, 0.9) / Q90_TO_SIGMA,
    )
    out[-1] = noise_sigma(last)
    return out, starts


def _column(ordered: np.ndarray, quantile: float) -> np.ndarray:
    """A quantile of each sorted row (linear interpolation)."""
    position = quantile * (ordered.shape[1] - 1)
    low = int(position)
    high = min(low + 1, ordered.shape[1] - 1)
    weight = position - low
    return ordered[:, low] * (1 - weight) + ordered[:, high] * weight


def local_noise(residuals: FloatArray, block: int = NOISE_BLOCK) -> FloatArray:
    """Per point, the noise sigma of its neighbourhood.

    Blocks of `block` points get a `noise_sigma`; each point takes the
    median over its block and the two next to it, so a block that holds a
    spike or a step does not set the scale alone.
    """
    n = len(residuals)
    sigmas, _ = blockwise(residuals, block)
    count = len(sigmas)
    if count >= 3:
        # The median of three neighbouring blocks (at the ends: the first
        # or last three), so one block with a burst does not set its scale.
        first = np.clip(np.arange(count) - 1, 0, count - 3)
        stacked = np.stack(
            [sigmas[first], sigmas[first + 1], sigmas[first + 2]]
        )
        sigmas = np.median(stacked, axis=0)
    block = max(1, min(block, n))
    return sigmas[np.minimum(np.arange(n) // block, count - 1)]


def severity(ratio: float, full: float = 10.0) -> float:
    """0.3 at the detection threshold (ratio 1) up to 1 at `full` x it."""
    if not math.isfinite(ratio) or ratio >= full:
        return 1.0
    if ratio <= 1.0:
        return 0.3
    return round(0.3 + 0.7 * math.log(ratio) / math.log(full), 3)


@dataclasses.dataclass(frozen=True)
class Badness:
    """How a metric is turned so that up is worse: `offset + sign * value`.

    Attributes:
        sign: 1 or -1.
        offset: 0, or 1 / 100 for an accuracy turned into an error rate.
        zero_bounded: the turned values cannot go below 0 (a loss, an
            error rate): a change can be judged relative to the level,
            e.g. "dropped 80 %".
    """

    sign: float
    offset: float
    zero_bounded: bool

    def apply(self, values: FloatArray) -> FloatArray:
        """The turned values."""
        if self.sign == 1.0 and self.offset == 0.0:
            return values
        return self.offset + self.sign * values

    def undo(self, value: float) -> float:
        """A turned value back in the metric's own units."""
        return (value - self.offset) * self.sign

    def undo_array(self, values: FloatArray) -> FloatArray:
        """Turned values back in the metric's own units."""
        return (values - self.offset) * self.sign


def badness(values: FloatArray, direction: str | None) -> Badness:
    """How to turn a metric so that higher is worse.

    Lower-is-better metrics stay as they are (zero-bounded when 95 % of
    the values are >= 0: noise around a loss near 0 dips below it);
    accuracies in [0, 1] or [0, 100] become error rates; other
    higher-is-better metrics are negated; an unknown direction is treated
    as lower-is-better (a norm, a loss-like quantity).
    """
    if len(values) == 0:
        return Badness(1.0, 0.0, False)
    low, high = float(values.min()), float(values.max())
    if direction == "higher":
        if low >= -0.05 and high <= 1.5:  # a fraction (noise may overshoot)
            return Badness(-1.0, 1.0, True)
        if low >= -5.0 and high <= 105.0:  # a percentage
            return Badness(-1.0, 100.0, True)
        return Badness(-1.0, 0.0, False)
    return Badness(1.0, 0.0, float(np.quantile(values, 0.05)) >= 0.0)


def robust_range(values: FloatArray) -> float:
    """Spread between the 1st and 99th percentile."""
    if len(values) == 0:
        return 0.0
    low, high = np.quantile(values, [0.01, 0.99])
    return float(high - low)


def spearman(values: FloatArray) -> float:
    """Rank correlation of a sequence with its index (trend strength)."""
    n = len(values)
    if n < 3:
        return 0.0
    ranks = np.empty(n)
    ranks[np.argsort(values, kind="stable")] = np.arange(n)
    index = np.arange(n, dtype=np.float64)
    ranks -= ranks.mean()
    index -= index.mean()
    denominator = math.sqrt(float((ranks**2).sum() * (index**2).sum()))
    return (
        0.0 if denominator == 0 else float((ranks * index).sum()) / denominator
    )
