"""Slow, obviously-correct scalar pipeline: the oracle for the fast core.

These are the implementations the fast path in `tb_multiframework.core`
replaced, kept verbatim where they were already simple (downsampling by
per-point bucket masks, difference curves by binary search) and written as
plain per-point loops where the fast path uses a different algorithm
(smoothing). `reference_compare` chains them exactly as `compare_scalars`
did: place (stable sort), smooth over all points, window, downsample; diffs
at full resolution, then downsampled.

Nothing here is imported by the plugin.
"""

from __future__ import annotations

import math

import numpy as np

from tb_multiframework.core.axes import axis_values
from tb_multiframework.core.types import Excluded

KEEP_ALL_FACTOR = 4


# --- smoothing: sequential loops ---------------------------------------------


def ema_loop(values, weight):
    """TensorBoard's frontend classicSmoothing, transcribed as a plain loop."""
    values = [float(v) for v in values]
    if not values or all(v == values[0] for v in values):
        return np.array(values, dtype=np.float64)
    last, num_accum, out = 0.0, 0, []
    for y in values:
        if not math.isfinite(y):
            out.append(y)
            continue
        last = last * weight + (1 - weight) * y
        num_accum += 1
        debias = 1 if weight == 1 else 1 - math.pow(weight, num_accum)
        out.append(last / debias)
    return np.array(out, dtype=np.float64)


def time_ema_loop(x, values, weight, spacing=None):
    """The x-aware EMA as a sequential recurrence over the finite points.

    num_k = w**(gap/d) * num_{k-1} + y_k, den_k = w**(gap/d) * den_{k-1} + 1,
    smoothed = num / den; d defaults to the median positive gap.
    """
    x = [float(v) for v in x]
    y = [float(v) for v in values]
    if not y or all(v == y[0] for v in y) or weight == 0.0:
        return np.array(y, dtype=np.float64)
    finite_x = [xi for xi, yi in zip(x, y) if math.isfinite(yi)]
    if spacing is None:
        gaps = sorted(
            b - a for a, b in zip(finite_x, finite_x[1:]) if b - a > 0
        )
        spacing = float(np.median(gaps)) if gaps else 1.0
    out, num, den, prev = [], 0.0, 0.0, None
    for xi, yi in zip(x, y):
        if not math.isfinite(yi):
            out.append(yi)
            continue
        decay = 0.0 if prev is None else weight ** ((xi - prev) / spacing)
        num = decay * num + yi
        den = decay * den + 1.0
        prev = xi
        out.append(num / den)
    return np.array(out, dtype=np.float64)


# --- downsampling: per-point bucket masks --------------------------------------


def downsample(x, y, buckets):
    """(indices, y_min, y_max) of the min/max downsampling (docs: conventions)."""
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    total = int(xs.size)
    if total <= KEEP_ALL_FACTOR * buckets:
        return np.arange(total), ys.copy(), ys.copy()
    lo, hi = float(xs[0]), float(xs[-1])
    if hi == lo:
        bucket = np.zeros(total, dtype=np.int64)
    else:
        scaled = np.floor((xs - lo) / (hi - lo) * buckets).astype(np.int64)
        bucket = np.minimum(scaled, buckets - 1)
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    ends = np.r_[starts[1:], total] - 1
    segment = np.cumsum(np.r_[False, bucket[1:] != bucket[:-1]])
    finite = np.isfinite(ys)
    seg_min = np.minimum.reduceat(np.where(finite, ys, np.inf), starts)
    seg_max = np.maximum.reduceat(np.where(finite, ys, -np.inf), starts)
    positions = np.arange(total, dtype=np.int64)

    def first_where(mask):
        return np.minimum.reduceat(np.where(mask, positions, total), starts)

    candidates = [
        starts,
        ends,
        first_where(finite & (ys == seg_min[segment])),
        first_where(finite & (ys == seg_max[segment])),
        first_where(np.isnan(ys)),
        first_where(ys == np.inf),
        first_where(ys == -np.inf),
    ]
    kept = np.unique(np.concatenate(candidates))
    kept = kept[kept < total]
    has_finite = np.isfinite(seg_min)
    band_min = np.where(has_finite, seg_min, np.nan)[segment[kept]]
    band_max = np.where(has_finite, seg_max, np.nan)[segment[kept]]
    return kept, band_min, band_max


# --- difference curves: binary search per grid point ---------------------------


def resample_at(x, y, at):
    right = np.searchsorted(x, at, side="left")
    right = np.minimum(right, x.size - 1)
    hit = x[right] == at
    left = np.maximum(right - 1, 0)
    x0, x1 = x[left], x[right]
    y0, y1 = y[left], y[right]
    both_finite = np.isfinite(y0) & np.isfinite(y1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (at - x0) / np.where(x1 == x0, 1.0, x1 - x0)
        line = y0 + t * (y1 - y0)
    out = np.where(both_finite, line, np.nan)
    return np.where(hit, y1, out).astype(np.float64)


def difference(xa, ya, xb, yb, mode="difference"):
    """(grid, A - B or A / B) on the union of x in the overlap."""

    def last_per_x(x, y):
        x, y = np.asarray(x, float), np.asarray(y, float)
        if x.size == 0:
            return x, y
        last = np.r_[x[1:] != x[:-1], True]
        return x[last], y[last]

    a_x, a_y = last_per_x(xa, ya)
    b_x, b_y = last_per_x(xb, yb)
    empty = np.empty(0)
    if a_x.size == 0 or b_x.size == 0:
        return empty, empty
    lo, hi = max(a_x[0], b_x[0]), min(a_x[-1], b_x[-1])
    if lo > hi:
        return empty, empty
    grid = np.unique(
        np.concatenate(
            [a_x[(a_x >= lo) & (a_x <= hi)], b_x[(b_x >= lo) & (b_x <= hi)]]
        )
    )
    va, vb = resample_at(a_x, a_y, grid), resample_at(b_x, b_y, grid)
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "difference":
            out = va - vb
        else:
            out = np.where(vb == 0, np.nan, va / np.where(vb == 0, 1.0, vb))
    return grid, out


# --- the whole comparison --------------------------------------------------------


def place(sel, axis, smoothing, mode):
    """(x, y, smoothed, steps) sorted by x (stable), or Excluded."""
    x = axis_values(
        axis,
        sel.series,
        tag=sel.tag,
        epoch_map=sel.epoch_map,
        run_start_time=sel.run_start_time,
        run_last_step=sel.run_last_step,
    )
    if isinstance(x, Excluded):
        return x
    if not np.all(np.isfinite(x)):
        return Excluded(f"non-finite {axis} positions in the log")
    order = np.argsort(x, kind="stable")
    x = np.asarray(x, float)[order]
    y = np.asarray(sel.series.values, float)[order]
    steps = np.asarray(sel.series.steps, np.int64)[order]
    if smoothing == 0.0:
        smoothed = y.copy()
    elif mode == "time":
        smoothed = time_ema_loop(x, y, smoothing)
    else:
        smoothed = ema_loop(y, smoothing)
    return x, y, smoothed, steps


def window(x, x_range):
    if x_range is None:
        return 0, x.size
    lo = int(np.searchsorted(x, x_range[0], side="left")) - 1
    hi = int(np.searchsorted(x, x_range[1], side="right")) + 1
    return max(lo, 0), min(hi, x.size)


def reference_compare(
    selections,
    *,
    axis,
    smoothing=0.0,
    smoothing_mode="ema",
    points=1000,
    baseline=None,
    diff_mode="difference",
    x_range=None,
):
    """{"series": [...], "diffs": [...]} of plain dicts, as the old core did."""
    buckets = max(1, -(-points // KEEP_ALL_FACTOR))
    placed = [place(s, axis, smoothing, smoothing_mode) for s in selections]
    series = []
    for p in placed:
        if isinstance(p, Excluded):
            series.append({"excluded": p.reason})
            continue
        x, y, sm, steps = p
        lo, hi = window(x, x_range)
        kept, bmin, bmax = downsample(x[lo:hi], y[lo:hi], buckets)
        series.append(
            {
                "x": x[lo:hi][kept],
                "y": y[lo:hi][kept],
                "yMin": bmin,
                "yMax": bmax,
                "smoothed": sm[lo:hi][kept],
                "steps": steps[lo:hi][kept],
                "returned": kept.size,
            }
        )
    diffs = []
    if baseline is not None:
        bi = next(i for i, s in enumerate(selections) if s.run.run == baseline)
        base = placed[bi]
        for i, p in enumerate(placed):
            if i == bi:
                continue
            if isinstance(p, Excluded) or isinstance(base, Excluded):
                diffs.append({"excluded": True})
                continue
            gx, gy = difference(p[0], p[1], base[0], base[1], diff_mode)
            _, gs = difference(p[0], p[2], base[0], base[2], diff_mode)
            lo, hi = window(gx, x_range)
            kept, bmin, bmax = downsample(gx[lo:hi], gy[lo:hi], buckets)
            diffs.append(
                {
                    "x": gx[lo:hi][kept],
                    "y": gy[lo:hi][kept],
                    "yMin": bmin,
                    "yMax": bmax,
                    "smoothed": gs[lo:hi][kept],
                    "total": gx.size,
                    "returned": kept.size,
                }
            )
    return {"series": series, "diffs": diffs}
