"""Smoothing of scalar series: TensorBoard's EMA and an x-aware variant.

`smooth_ema` is TensorBoard's frontend `classicSmoothing` (debiased
exponential moving average over point index). TensorBoard runs it in the
browser on the sampled points; we run it on the server over all points.

`smooth_time_ema` decays by distance along x instead of by point index, so a
run that logs every step early and every 100 steps later, or two runs with
different logging rates, are smoothed over the same x span.

Both evaluate their recurrence with a log-depth scan (vectorised numpy, no
per-point Python loop); results agree with a sequential loop to rounding
(about 1e-15 relative).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .types import FloatArray

SMOOTHING_MODES = ("ema", "time")


def smooth_ema(values: npt.ArrayLike, weight: float) -> FloatArray:
    """TensorBoard's debiased EMA (`classicSmoothing`), point for point.

    For finite y, in order: `last = last * w + (1 - w) * y`, `n += 1`,
    `smoothed = last / (1 - w**n)` (`last` starts at 0). Non-finite values
    are returned unchanged and advance neither `last` nor `n`. A series whose
    values all equal the first one is returned as is (no rounding noise).
    `w == 1` gives 0 at every finite point, as TensorBoard does.

    Unlike TensorBoard, which clamps a bad weight into [0, 1], a weight
    outside [0, 1] is an error.

    Args:
        values: 1-D values in plotting order.
        weight: Smoothing weight in [0, 1].

    Returns:
        A new float64 array of the same length.

    Raises:
        ValueError: If `weight` is not in [0, 1] or `values` is not 1-D.
    """
    y = _as_1d(values, "values")
    w = _check_weight(weight, upper_inclusive=True)
    out = y.copy()
    if _is_constant(y):
        return out
    finite = np.isfinite(y)
    z = y[finite]
    if w == 0.0:
        return out
    if w == 1.0:
        out[finite] = 0.0
        return out
    last = _scan_constant_decay(w, (1.0 - w) * z)
    out[finite] = last / _debias(w, z.size)
    return out


def _debias(w: float, size: int) -> FloatArray:
    """1 - w**n for n = 1..size.

    Past the n where w**n drops below half an ulp of 1 the factor is exactly
    1.0; computing w**n there would crawl through subnormal numbers (about
    10x slower than everything else smoothing does), so it is not computed.
    """
    factor = np.ones(size)
    if 0.0 < w < 1.0:
        needed = min(size, int(math.log(2.0**-54) / math.log(w)) + 1)
        factor[:needed] = 1.0 - np.power(
            w, np.arange(1, needed + 1, dtype=np.float64)
        )
    return factor


def smooth_time_ema(
    x: npt.ArrayLike,
    values: npt.ArrayLike,
    weight: float,
    *,
    spacing: float | None = None,
) -> FloatArray:
    """Debiased EMA whose decay follows the x distance between points.

    With `d = spacing` (default: the median positive gap between consecutive
    x of finite points), the smoothed value at point k is the weighted mean

        sum_i w**((x_k - x_i) / d) * y_i  /  sum_i w**((x_k - x_i) / d)

    over the finite points i <= k. For evenly spaced x this is exactly
    TensorBoard's debiased EMA (`smooth_ema`); points at the same x count
    equally. Non-finite values pass through unchanged and take no part; a
    constant series is returned as is.

    Args:
        x: 1-D x positions, finite and non-decreasing.
        values: 1-D values, same length.
        weight: Smoothing weight in [0, 1): the weight of a point one
            `spacing` back relative to the current one.
        spacing: The x distance that counts as one step; must be > 0.

    Returns:
        A new float64 array of the same length as `values`.

    Raises:
        ValueError: On a bad weight or spacing, lengths that differ, or x
            that is not finite and non-decreasing.
    """
    xs = _as_1d(x, "x")
    y = _as_1d(values, "values")
    if xs.size != y.size:
        raise ValueError(f"x has {xs.size} points but values has {y.size}")
    if not np.all(np.isfinite(xs)):
        raise ValueError("x must be finite")
    if np.any(np.diff(xs) < 0):
        raise ValueError("x must be sorted (non-decreasing)")
    w = _check_weight(weight, upper_inclusive=False)
    out = y.copy()
    if w == 0.0 or _is_constant(y):
        return out
    finite = np.isfinite(y)
    z = y[finite]
    if z.size == 0:
        return out
    gaps = np.diff(xs[finite])
    d = _default_spacing(gaps) if spacing is None else float(spacing)
    if not (math.isfinite(d) and d > 0):
        raise ValueError(f"spacing must be > 0, got {spacing!r}")
    decay = np.empty(z.size, dtype=np.float64)
    decay[0] = 0.0  # nothing before the first point
    decay[1:] = np.power(w, gaps / d)
    stacked = np.vstack([z, np.ones_like(z)])
    num, den = _scan_variable_decay(decay, stacked)
    out[finite] = num / den
    return out


def _default_spacing(gaps: FloatArray) -> float:
    positive = gaps[gaps > 0]
    if positive.size == 0:
        return 1.0  # all points share one x: any spacing gives the same
    return float(np.median(positive))


def _scan_constant_decay(w: float, b: FloatArray) -> FloatArray:
    """Solves s_k = w * s_{k-1} + b_k (s_{-1} = 0) by Hillis-Steele scan."""
    s = b.copy()
    shift = 1
    factor = w
    while shift < s.size and factor > 0.0:
        # After this pass s_k sums the 2*shift terms ending at k.
        s[shift:] = s[shift:] + factor * s[:-shift]
        shift *= 2
        factor *= factor
    return s


def _scan_variable_decay(
    a: FloatArray, b: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Solves s_k = a_k * s_{k-1} + b_k (s_{-1} = 0) along b's last axis."""
    a = a.copy()
    s = b.copy()
    n = a.size
    shift = 1
    while shift < n:
        tail = a[shift:]
        if not np.any(tail):
            break  # every longer product is 0 too: nothing left to add
        s[..., shift:] = s[..., shift:] + tail * s[..., :-shift]
        a[shift:] = tail * a[:-shift]
        shift *= 2
    return s


def _is_constant(y: FloatArray) -> bool:
    # TensorBoard's `every(p => p.y == first)`: NaN is never equal.
    return bool(y.size == 0 or np.all(y == y[0]))


def _check_weight(weight: float, *, upper_inclusive: bool) -> float:
    w = float(weight)
    ok = 0.0 <= w <= 1.0 if upper_inclusive else 0.0 <= w < 1.0
    if not ok:
        bound = "[0, 1]" if upper_inclusive else "[0, 1)"
        raise ValueError(f"smoothing weight must be in {bound}, got {weight!r}")
    return w


def _as_1d(values: npt.ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    return arr
