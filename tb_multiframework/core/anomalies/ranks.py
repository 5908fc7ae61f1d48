"""rank_desync: the ranks of one distributed run drift apart.

Ranks of a data-parallel run train one model on different shards: their
curves differ by noise but share one trend. Two things break that:

- a rank stops logging (hung, crashed) while the others go on;
- a rank's trend moves away from the others' median and stays away (it
  reads other data, or its copy of the model diverged).

Each rank is compared with the median of the others. The usual spread
between ranks is measured in the first fifth of the common step range
(relative to the level, for a loss-like metric whose noise follows its
level); a rank is off when it is `DESYNC_SIGMAS` x that spread (and
`DESYNC_LEVEL` of the level) away from the others, over a stretch of at
least `DESYNC_FRACTION` of the range.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import Anomaly, Prepared, fmt, fmt_step, say
from .robust import TINY, rolling_median, severity, trend_sigma

MIN_RANK_POINTS = 20  # points each rank needs
GRID_POINTS = 200  # points of the common grid the ranks are compared on
DESYNC_SIGMAS = 6.0  # distance from the median / usual spread
DESYNC_LEVEL = 0.1  # ... and / the level (or range) of the median
DESYNC_FRACTION = 0.1  # shortest desync, fraction of the common range
HUNG_FRACTION = 0.1  # a rank that stops this much earlier is hung
TREND_BLOCKS = 5  # coarse blocks of the rolling median of a rank's trend
MEDIAN_OF_5 = 0.56  # noise of a median of 5 / noise of its points


def detect_rank_desync(
    members: Sequence[Prepared], names: Sequence[str]
) -> list[list[Anomaly]]:
    """Per member, the ranges where it is out of step with the others."""
    out: list[list[Anomaly]] = [[] for _ in members]
    usable = [i for i, p in enumerate(members) if len(p) >= MIN_RANK_POINTS]
    if len(usable) < 2:
        return out
    firsts = np.array([members[i].x[0] for i in usable])
    lasts = np.array([members[i].x[-1] for i in usable])
    low, high = float(firsts.min()), float(lasts.max())
    span = high - low
    if span <= 0:
        return out
    for k, i in enumerate(usable):
        others = np.delete(lasts, k)
        if high - lasts[k] >= HUNG_FRACTION * span and others.max() > lasts[k]:
            p = members[i]
            out[i].append(
                p.anomaly(
                    "rank_desync",
                    len(p) - 1,
                    len(p) - 1,
                    severity((high - lasts[k]) / (HUNG_FRACTION * span), 5.0),
                    say(
                        "anomaly.rank.stops",
                        rank=names[i],
                        step=fmt_step(p.step_at(len(p) - 1)),
                        others=fmt_step(int(others.max())),
                    ),
                    {"lastStep": p.step_at(len(p) - 1), "groupLast": high},
                )
            )
    common_high = float(np.median(lasts))
    sharing = [i for k, i in enumerate(usable) if lasts[k] >= common_high]
    if len(sharing) < 2:
        return out
    common_low = float(max(members[i].x[0] for i in sharing))
    if common_high <= common_low:
        return out
    grid = np.linspace(common_low, common_high, GRID_POINTS)
    # Coarse trends (block medians, then a rolling median of 5 blocks) in
    # the metric's own units.
    trends = np.stack(
        [
            np.interp(
                grid,
                members[i].coarse_x(),
                members[i].bad.undo_array(
                    rolling_median(members[i].coarse.values, TREND_BLOCKS)
                ),
            )
            for i in sharing
        ]
    )
    # Each rank against the median of the others (with two ranks, the
    # other one: the median of both would split their distance).
    deviation = np.empty_like(trends)
    for row in range(len(sharing)):
        others = np.delete(trends, row, axis=0)
        deviation[row] = trends[row] - np.median(others, axis=0)
    median = np.median(trends, axis=0)
    head = GRID_POINTS // 5
    # Noise of the trends: of a block median, through a median of 5.
    noise = MEDIAN_OF_5 * float(
        np.median([trend_sigma(members[i].coarse.values) for i in sharing])
    )
    zero_bounded = all(members[i].bad.zero_bounded for i in sharing)
    if zero_bounded:
        # Relative to the level there and then: noise that follows the
        # level (a loss falling 100-fold) gives a usual spread that does.
        level = np.abs(median)
        relative = np.abs(deviation[:, :head]) / np.maximum(level[:head], TINY)
        spread = float(np.median(relative)) * level
    else:
        level = np.full(
            GRID_POINTS,
            float(np.quantile(median, 0.99) - np.quantile(median, 0.01)),
        )
        spread = np.full(
            GRID_POINTS, float(np.median(np.abs(deviation[:, :head])))
        )
    usual = np.maximum(spread, noise)
    threshold = np.maximum(DESYNC_SIGMAS * usual, DESYNC_LEVEL * level)
    threshold = np.maximum(threshold, TINY)
    need = max(3, int(DESYNC_FRACTION * GRID_POINTS))
    for row, i in enumerate(sharing):
        off = np.abs(deviation[row]) >= threshold
        run = _longest_run(off, gap=2)
        if run is None or run[1] - run[0] + 1 < need:
            continue
        g0, g1 = run
        p = members[i]
        first = int(np.searchsorted(p.x, grid[g0]))
        last = max(first, int(np.searchsorted(p.x, grid[g1], side="right")) - 1)
        peak = g0 + int(np.argmax(np.abs(deviation[row, g0 : g1 + 1])))
        size = float(deviation[row, peak])
        limit = float(threshold[peak])
        typical = float(usual[peak])
        message = say(
            f"anomaly.rank.{'above' if size > 0 else 'below'}",
            rank=names[i],
            step=fmt_step(p.step_at(first)),
            size=fmt(abs(size)),
            spread=fmt(typical),
        )
        out[i].append(
            p.anomaly(
                "rank_desync",
                first,
                last,
                severity(abs(size) / limit, 10.0),
                message,
                {
                    "deviation": size,
                    "usualSpread": typical,
                    "threshold": limit,
                },
            )
        )
    return out


def _longest_run(mask: np.ndarray, gap: int) -> tuple[int, int] | None:
    """The longest run of True, bridging gaps of up to `gap` False."""
    hits = np.flatnonzero(mask)
    if len(hits) == 0:
        return None
    breaks = np.flatnonzero(np.diff(hits) > gap + 1)
    starts = hits[np.r_[0, breaks + 1]]
    ends = hits[np.r_[breaks, len(hits) - 1]]
    k = int(np.argmax(ends - starts))
    return int(starts[k]), int(ends[k])
