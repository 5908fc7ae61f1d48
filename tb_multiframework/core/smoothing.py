"""Smoothing of scalar series: TensorBoard's EMA and an x-aware variant.

`smooth_ema` is TensorBoard's frontend `classicSmoothing` (debiased
exponential moving average over point index). TensorBoard runs it in the
browser on the sampled points; we run it on the server over all points.

`smooth_time_ema` decays by distance along x instead of by point index, so a
run that logs every step early and every 100 steps later, or two runs with
different logging rates, are smoothed over the same x span.

Both evaluate their recurrence blocked (`_blocked_recurrence`: vectorised
numpy, no per-point Python loop, a few passes over the data); results agree
with a sequential loop to rounding (about 1e-15 relative).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .types import FloatArray, all_finite

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
    if w == 0.0 or _is_constant(y):
        return y.copy()
    if w == 1.0:
        out = y.copy()
        out[np.isfinite(y)] = 0.0
        return out
    return _ema(y, w, 0.0, 0)[0]


@dataclass(frozen=True)
class EmaState:
    """Where `smooth_ema` stands after a series, to continue it on append.

    Attributes:
        last: The average before debiasing, after the last finite point.
        count: Finite points so far.
        points: All points so far.
        constant: The value of every point when all are equal (such a
            series is returned as is), else None.
    """

    last: float
    count: int
    points: int
    constant: float | None


def smooth_ema_state(
    values: npt.ArrayLike, weight: float
) -> tuple[FloatArray, EmaState]:
    """`smooth_ema` for a weight in (0, 1), and its state at the end."""
    y = _as_1d(values, "values")
    w = _check_weight(weight, upper_inclusive=False)
    if w == 0.0:
        raise ValueError("smoothing weight must be > 0 to keep a state")
    if y.size and _is_constant(y):
        return y.copy(), EmaState(0.0, 0, y.size, float(y[0]))
    smoothed, last, count = _ema(y, w, 0.0, 0)
    return smoothed, EmaState(last, count, y.size, None)


def continue_ema(
    state: EmaState, values: npt.ArrayLike, weight: float
) -> tuple[FloatArray, EmaState] | None:
    """Smooths points appended to a series from the series' `EmaState`.

    The result equals `smooth_ema` of the whole series, cut to the new
    points, to rounding.

    Args:
        state: The state after the earlier points (`smooth_ema_state`).
        values: The appended points.
        weight: The same weight, in (0, 1).

    Returns:
        The new points smoothed and the new state, or None when the earlier
        points must be smoothed again: a constant series (returned as is)
        that the new points make non-constant, or no earlier points.
    """
    y = _as_1d(values, "values")
    w = _check_weight(weight, upper_inclusive=False)
    if state.points == 0 or w == 0.0:
        return None
    if state.constant is not None:
        if not bool(np.all(y == state.constant)):
            return None
        return y.copy(), dataclasses.replace(
            state, points=state.points + y.size
        )
    smoothed, last, count = _ema(y, w, state.last, state.count)
    return smoothed, EmaState(last, count, state.points + y.size, None)


def _ema(
    y: FloatArray, w: float, last: float, count: int
) -> tuple[FloatArray, float, int]:
    """The debiased EMA of y continuing from (last, count), 0 < w < 1.

    Returns:
        (smoothed values, last, count) after y.
    """
    if all_finite(y):
        smoothed = _blocked_recurrence(w, y, last, scale=1.0 - w)
        end = float(smoothed[-1]) if smoothed.size else last
        _debias_in_place(smoothed, w, count)
        return smoothed, end, count + y.size
    out = y.copy()
    finite = np.isfinite(y)
    running = _blocked_recurrence(w, y[finite], last, scale=1.0 - w)
    end = float(running[-1]) if running.size else last
    _debias_in_place(running, w, count)
    out[finite] = running
    return out, end, count + running.size


def _debias_in_place(last: FloatArray, w: float, before: int = 0) -> None:
    """last[k] /= 1 - w**(before + k + 1), TensorBoard's debias."""
    needed = _debiased_points(w, before + last.size) - before
    if needed > 0:
        last[:needed] /= 1.0 - np.power(
            w, np.arange(before + 1, before + needed + 1, dtype=np.float64)
        )


def _debiased_points(w: float, size: int) -> int:
    """How many leading points have 1 - w**n != 1.0.

    Past the n where w**n drops below half an ulp of 1 the factor is exactly
    1.0; computing w**n there would crawl through subnormal numbers (about
    10x slower than everything else smoothing does), so it is not computed.
    """
    if not 0.0 < w < 1.0:
        return 0
    return min(size, int(math.log(2.0**-54) / math.log(w)) + 1)


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
    stacked = np.empty((2, z.size), dtype=np.float64)
    stacked[0] = z
    stacked[1] = 1.0
    if gaps.size and gaps[0] > 0 and bool(np.all(gaps == gaps[0])):
        # Evenly spaced (the usual step axis): one decay for every point.
        num, den = _scan_constant_decay(w ** float(gaps[0] / d), stacked)
    else:
        decay = np.empty(z.size, dtype=np.float64)
        decay[0] = 0.0  # nothing before the first point
        decay[1:] = np.power(w, gaps / d)
        num, den = _scan_variable_decay(decay, stacked)
    out[finite] = num / den
    return out


def _default_spacing(gaps: FloatArray) -> float:
    positive = gaps[gaps > 0]
    if positive.size == 0:
        return 1.0  # all points share one x: any spacing gives the same
    return float(np.median(positive))


def _scan_constant_decay(
    w: float, b: FloatArray, initial: float = 0.0
) -> FloatArray:
    """Solves s_k = w * s_{k-1} + b_k, s_{-1} = `initial`."""
    return _blocked_recurrence(w, b, initial)


def _scan_variable_decay(
    a: FloatArray, b: FloatArray, initial: float = 0.0
) -> FloatArray:
    """Solves s_k = a_k * s_{k-1} + b_k, s_{-1} = `initial`."""
    return _blocked_recurrence(a, b, initial)


_BLOCK = 64  # points a block of the blocked recurrence (tuned at 100k)


def _blocked_recurrence(
    a: float | FloatArray,
    b: FloatArray,
    initial: float,
    *,
    scale: float = 1.0,
) -> FloatArray:
    """The first-order linear recurrence s_k = a_k * s_{k-1} + b_k, blocked.

    The series is cut into m blocks of L points laid out as an (L, m)
    array, so that one numpy operation advances every block by one point:
    L steps over m blocks instead of n Python steps. Inside a block the
    arithmetic is the sequential loop's (`a * s + b`, in that order). Each
    block's true start (the previous block's true end) then solves the same
    recurrence over the m blocks with the block's product of decays (a
    log-depth scan), and is added to each point of the block times the
    product of the decays since the block started. The result equals the
    sequential loop to rounding (about 1e-15 relative). Two n-sized arrays
    are allocated, the result and one scratch layout.

    Args:
        a: The decay, a float or one per point (a[0] multiplies `initial`).
        b: The inputs, float64 of shape (n,) or (rows, n): rows share `a`.
        initial: s_{-1} of every row.
        scale: b_k is `scale * b[k]` (saves the caller a temporary).

    Returns:
        s, a new float64 array shaped like b.
    """
    n = b.shape[-1]
    if n == 0:
        return np.array(b, dtype=np.float64)
    rows = b.reshape(-1, n)
    r = rows.shape[0]
    first = a if isinstance(a, float) else float(a[0])
    if n <= 2 * _BLOCK:
        s = np.multiply(rows, scale, dtype=np.float64)
        if initial != 0.0:
            s[:, 0] = first * initial + s[:, 0]
        for row in s:
            _sequential(a, row)
        return s.reshape(b.shape)
    size = _BLOCK
    m = -(-n // size)
    # np.empty, not np.zeros: calloc'd pages would fault in one by one.
    grid = np.empty((r, m * size), dtype=np.float64)
    np.multiply(rows, scale, out=grid[:, :n])
    grid[:, n:] = 0.0
    if initial != 0.0:
        grid[:, 0] = first * initial + grid[:, 0]
    local = np.empty((size, r, m), dtype=np.float64)
    np.copyto(local, grid.reshape(r, m, size).transpose(2, 0, 1))
    tmp = np.empty((r, m), dtype=np.float64)
    gain: FloatArray
    if isinstance(a, float):
        for j in range(1, size):
            np.multiply(local[j - 1], a, out=tmp)
            np.add(tmp, local[j], out=local[j])
        powers = a ** np.arange(1, size + 1, dtype=np.float64)
        ends = _log_scan(np.full(m, powers[-1]), local[-1])
        gain = powers[:, None, None]
    else:
        decay = np.empty(m * size, dtype=np.float64)
        decay[:n] = a
        decay[n:] = 1.0
        decay[0] = 0.0  # `initial` is already in s[0]
        steps = np.empty((size, m), dtype=np.float64)
        np.copyto(steps, decay.reshape(m, size).T)
        # steps becomes the running product of decays, in place.
        for j in range(1, size):
            np.multiply(local[j - 1], steps[j], out=tmp)
            np.add(tmp, local[j], out=local[j])
            np.multiply(steps[j - 1], steps[j], out=steps[j])
        ends = _log_scan(steps[-1].copy(), local[-1])
        gain = steps[:, None, :]
    # Block i starts from block i-1's true end.
    starts = np.empty((r, m), dtype=np.float64)
    starts[:, 0] = 0.0
    starts[:, 1:] = ends[:, :-1]
    correction = grid.reshape(size, r, m)  # grid's memory is free now
    np.multiply(gain, starts[None, :, :], out=correction)
    np.add(local, correction, out=local)
    np.copyto(grid.reshape(r, m, size), local.transpose(1, 2, 0))
    return grid[:, :n].reshape(b.shape)


def _log_scan(a: FloatArray, b: FloatArray) -> FloatArray:
    """s_k = a_k * s_{k-1} + b_k (s_{-1} = 0) along b's last axis, by a
    Hillis-Steele scan (for the short series of block ends)."""
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


def _sequential(a: float | FloatArray, s: FloatArray) -> None:
    """In place: s_k = a_k * s_{k-1} + s_k for k >= 1 (short series)."""
    values = s.tolist()
    if isinstance(a, float):
        for k in range(1, len(values)):
            values[k] = a * values[k - 1] + values[k]
    else:
        decays = a.tolist()
        for k in range(1, len(values)):
            values[k] = decays[k] * values[k - 1] + values[k]
    s[:] = values


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
