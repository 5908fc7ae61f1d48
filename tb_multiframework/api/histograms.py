"""The histogram routes: one tag's histograms, and two tags compared.

`Api` (api.py) caches the two-histogram answers; `HistogramAnswers`
computes them from the store and the runs' `Context`: each histogram placed
on the asked axis (the epoch axis through the run's epoch map), two
histograms on common edges with their distances (`core.histdiff`), the
distances over training, and suggested tag pairs (`core.pairing`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from tb_multiframework.api.context import Context, NotFound, Positions
from tb_multiframework.core import histdiff, pairing
from tb_multiframework.core.axes import axis_values
from tb_multiframework.core.types import Excluded
from tb_multiframework.store.store import HistogramSeries, RunSummary, Store


@dataclasses.dataclass(frozen=True)
class HistogramQuery:
    """Parsed arguments of the two-histogram routes."""

    run_a: str
    tag_a: str
    run_b: str
    tag_b: str
    x: str = "step"
    bins: int = histdiff.DEFAULT_BINS


class HistogramAnswers:
    """The answers of the histogram routes, uncached.

    Args:
      store: the series store.
      context: the runs' context of the current data version (`Api`'s,
        called again wherever the answer reads it).
    """

    def __init__(self, store: Store, context: Callable[[], Context]) -> None:
        self._store = store
        self._context = context

    def histograms(self, run: str, tag: str, axis: str) -> dict[str, Any]:
        """`GET histograms`: every histogram of a (run, tag)."""
        series = self._histogram_series(run, tag)
        positions = self._histogram_positions(run, tag, series, axis)
        excluded = positions.reason if isinstance(positions, Excluded) else None
        xs = None if excluded else positions
        return {
            "run": run,
            "tag": tag,
            "x": axis,
            "excluded": excluded,
            "steps": [
                {
                    "step": int(series.steps[i]),
                    "wallTime": float(series.wall_times[i]),
                    "x": None if xs is None else float(xs[i]),
                    "edges": series.edges[i],
                    "counts": series.counts[i],
                }
                for i in range(len(series))
            ],
        }

    def diff(self, query: HistogramQuery, at: float | None) -> dict[str, Any]:
        """The `GET histogram_diff` answer: the histograms of both tags
        nearest to `at` (by default the smaller of their last positions),
        on common edges, with their distances."""
        a, pos_a = self._placed_histograms(query.run_a, query.tag_a, query.x)
        b, pos_b = self._placed_histograms(query.run_b, query.tag_b, query.x)
        if len(a) == 0 or len(b) == 0:
            raise NotFound("one of the tags has no histograms")
        if at is None:
            at = float(min(np.nanmax(pos_a), np.nanmax(pos_b)))
        index_a = histdiff.nearest_index(pos_a, at)
        index_b = histdiff.nearest_index(pos_b, at)
        hist_a = histdiff.clean_histogram(a.edges[index_a], a.counts[index_a])
        hist_b = histdiff.clean_histogram(b.edges[index_b], b.counts[index_b])
        diff = histdiff.compare_histograms(hist_a, hist_b, bins=query.bins)
        return {
            "x": query.x,
            "at": at,
            "a": _histogram_side(query.run_a, query.tag_a, a, pos_a, index_a),
            "b": _histogram_side(query.run_b, query.tag_b, b, pos_b, index_b),
            "edges": diff.edges,
            "countsA": diff.counts_a,
            "countsB": diff.counts_b,
            "diff": diff.diff,
            "normalized": diff.normalized,
            "totalA": diff.total_a,
            "totalB": diff.total_b,
            "momentsA": dataclasses.asdict(diff.moments_a),
            "momentsB": dataclasses.asdict(diff.moments_b),
            "distances": {
                "wasserstein": diff.distances.wasserstein,
                "jensenShannon": diff.distances.jensen_shannon,
                "ks": diff.distances.ks,
                "meanDelta": diff.distances.mean_delta,
                "stdDelta": diff.distances.std_delta,
            },
        }

    def distances(self, query: HistogramQuery) -> dict[str, Any]:
        """The `GET histogram_distances` answer: the distances over
        training."""
        a, pos_a = self._placed_histograms(query.run_a, query.tag_a, query.x)
        b, pos_b = self._placed_histograms(query.run_b, query.tag_b, query.x)
        found = histdiff.distance_series(
            a, b, positions_a=pos_a, positions_b=pos_b, bins=query.bins
        )
        return {
            "x": query.x,
            "positions": found.positions,
            "positionsB": found.positions_b,
            "stepsA": found.steps_a,
            "stepsB": found.steps_b,
            "wasserstein": found.wasserstein,
            "jensenShannon": found.jensen_shannon,
            "ks": found.ks,
            "meanDelta": found.mean_delta,
            "stdDelta": found.std_delta,
        }

    def pairs(self, run_a: str, run_b: str) -> dict[str, Any]:
        """The `GET histogram_pairs` answer: suggested tag pairs between
        two runs."""
        infos_a = self._hist_tag_infos(run_a)
        infos_b = self._hist_tag_infos(run_b)
        pairs = pairing.suggest_tag_pairs(infos_a, infos_b)
        return {
            "runA": run_a,
            "runB": run_b,
            "tagsA": [_tag_info_json(i) for i in infos_a],
            "tagsB": [_tag_info_json(i) for i in infos_b],
            "pairs": [
                {
                    "tagA": p.tag_a,
                    "tagB": p.tag_b,
                    "score": p.score,
                    "reasons": list(p.reasons),
                    "reasonMessages": [
                        {"id": key, "params": params}
                        for key, params in p.reason_messages
                    ],
                }
                for p in pairs
            ],
        }

    def _hist_tag_infos(self, run: str) -> list[pairing.HistTagInfo]:
        self._summary(run)  # 404 for an unknown run
        infos = []
        # First-seen order: writers log layers in model order.
        for order, tag in enumerate(self._store.histogram_tags_in_order(run)):
            series = self._store.histograms(run, tag)
            count = (
                int(round(float(series.counts[0].sum())))
                if len(series)
                else None
            )
            infos.append(pairing.HistTagInfo(tag, count or None, order))
        return infos[: pairing.MAX_PAIR_TAGS]

    def _summary(self, run: str) -> RunSummary:
        summary = self._context().summaries.get(run)
        if summary is None:
            raise NotFound(f"unknown run {run!r}")
        return summary

    def _histogram_series(self, run: str, tag: str) -> HistogramSeries:
        summary = self._summary(run)
        if tag not in summary.histogram_tags:
            raise NotFound(f"run {run!r} has no histogram tag {tag!r}")
        return self._store.histograms(run, tag)

    def _histogram_positions(
        self, run: str, tag: str, series: HistogramSeries, axis: str
    ) -> np.ndarray | Excluded:
        ctx = self._context()
        return axis_values(
            axis,
            Positions(series.steps, series.wall_times, np.zeros(len(series))),
            tag=tag,
            epoch_map=ctx.epoch_maps[run],
            run_start_time=ctx.summaries[run].start_time,
            run_last_step=ctx.summaries[run].last_step,
        )

    def _placed_histograms(
        self, run: str, tag: str, axis: str
    ) -> tuple[HistogramSeries, np.ndarray]:
        series = self._histogram_series(run, tag)
        positions = self._histogram_positions(run, tag, series, axis)
        if isinstance(positions, Excluded):
            raise ValueError(
                f"run {run!r} has no place on axis {axis}: {positions.reason}"
            )
        return series, positions

    # Layouts.


def _histogram_side(
    run: str,
    tag: str,
    series: HistogramSeries,
    positions: np.ndarray,
    index: int,
) -> dict[str, Any]:
    return {
        "run": run,
        "tag": tag,
        "step": int(series.steps[index]),
        "wallTime": float(series.wall_times[index]),
        "x": float(positions[index]),
    }


def _tag_info_json(info: pairing.HistTagInfo) -> dict[str, Any]:
    return {
        "tag": info.tag,
        "elementCount": info.element_count,
        "order": info.order,
    }
