"""A run's series in the store <-> the arrays and JSON of a segment.

`export_run` takes what a run gained since a `Progress` (points per scalar
tag, histograms per histogram tag, layouts); `import_segments` puts a run's
segments back into the store in order, scalar blocks as they are in the
file (one copy in memory per segment), histograms as views into it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import numpy as np

from tb_multiframework.store.packing import (
    PackedInts,
    PackedSeries,
    pack_series,
)
from tb_multiframework.store.store import Store

_INT_PARTS = ("deltas", "exception_index", "exception_delta")


@dataclasses.dataclass
class Progress:
    """How much of a run a cache entry holds."""

    scalars: dict[str, int] = dataclasses.field(default_factory=dict)
    histograms: dict[str, int] = dataclasses.field(default_factory=dict)
    layouts: int = 0

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Progress:
        return Progress(
            scalars={str(k): int(v) for k, v in data["scalars"].items()},
            histograms={str(k): int(v) for k, v in data["histograms"].items()},
            layouts=int(data["layouts"]),
        )


def _ints_meta(
    packed: PackedInts, prefix: str, arrays: dict[str, np.ndarray]
) -> dict[str, Any]:
    for part in _INT_PARTS:
        array = getattr(packed, part)
        if array is not None:
            arrays[f"{prefix}.{part}"] = array
    return {"n": packed.n, "first": packed.first, "stride": packed.stride}


def _ints_from(
    meta: Mapping[str, Any], prefix: str, arrays: Mapping[str, np.ndarray]
) -> PackedInts:
    parts = {part: arrays.get(f"{prefix}.{part}") for part in _INT_PARTS}
    n = int(meta["n"])
    deltas = parts["deltas"]
    if deltas is not None and len(deltas) != n - 1:
        raise ValueError(f"{prefix}: {len(deltas)} differences for {n} values")
    index, delta = parts["exception_index"], parts["exception_delta"]
    if (index is None) != (delta is None) or (
        index is not None
        and delta is not None
        and (
            len(index) != len(delta)
            or (len(index) and (index.min() < 0 or index.max() >= n - 1))
        )
    ):
        raise ValueError(f"{prefix}: inconsistent exceptions")
    return PackedInts(
        n=n,
        first=int(meta["first"]),
        stride=int(meta["stride"]),
        deltas=deltas,
        exception_index=index,
        exception_delta=delta,
    )


def export_run(
    store: Store, run: str, since: Progress
) -> tuple[dict[str, Any], dict[str, np.ndarray], Progress]:
    """What `run` gained after `since`, as (meta, arrays, new progress)."""
    scalar_counts, histogram_counts = store.series_counts(run)
    books = store.attempt_state(run)
    arrays: dict[str, np.ndarray] = {}
    scalars = []
    for i, (tag, count) in enumerate(sorted(scalar_counts.items())):
        start = since.scalars.get(tag, 0)
        if count <= start:
            continue
        for j, packed in enumerate(_tail(store.scalar_blocks(run, tag), start)):
            key = f"s{i}.{j}"
            arrays[f"{key}.values"] = packed.values
            scalars.append(
                {
                    "tag": tag,
                    "key": key,
                    "steps": _ints_meta(packed.steps, f"{key}.steps", arrays),
                    "walls": _ints_meta(packed.walls, f"{key}.walls", arrays),
                }
            )
    histograms = []
    for i, (tag, count) in enumerate(sorted(histogram_counts.items())):
        start = since.histograms.get(tag, 0)
        if count <= start:
            continue
        hist = store.histograms(run, tag)
        edges = hist.edges[start:count]
        arrays[f"h{i}.steps"] = hist.steps[start:count]
        arrays[f"h{i}.walls"] = hist.wall_times[start:count]
        arrays[f"h{i}.sizes"] = np.array([len(e) for e in edges], np.int64)
        arrays[f"h{i}.edges"] = _concat(edges)
        arrays[f"h{i}.counts"] = _concat(hist.counts[start:count])
        histograms.append({"tag": tag, "key": f"h{i}"})
    layouts = store.layouts().get(run, [])
    summary = store.summary(run)
    meta = {
        # Every series' bookkeeping, grown or not (a restart may touch it).
        "attempts": books,
        "ranges": [
            summary.first_step,
            summary.last_step,
            summary.start_time,
            summary.end_time,
        ],
        "scalars": scalars,
        "histograms": histograms,
        "layouts": [
            [step, layout] for step, layout in layouts[since.layouts :]
        ],
    }
    progress = Progress(
        scalars=dict(scalar_counts),
        histograms=dict(histogram_counts),
        layouts=len(layouts),
    )
    return meta, arrays, progress


def _tail(blocks: list[PackedSeries], start: int) -> list[PackedSeries]:
    """The points from index `start` on: whole blocks as they are, the
    block `start` falls in decoded, cut and packed again."""
    out = []
    for block in blocks:
        if start >= len(block):
            start -= len(block)
            continue
        if start == 0:
            out.append(block)
        else:
            columns = [column[start:] for column in block.decode()]
            out.append(pack_series(*columns))
            start = 0
    return out


def _concat(parts: Sequence[np.ndarray]) -> np.ndarray:
    if not parts:
        return np.zeros(0)
    return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])


def import_segments(
    store: Store,
    run: str,
    segments: Sequence[tuple[Mapping[str, Any], Mapping[str, np.ndarray]]],
) -> Progress:
    """Puts a run's cached segments, in order, into `store`.

    The run must exist in the store and hold no series yet.

    Raises:
      ValueError: a segment's tables do not fit its arrays (the caller
        drops the entry).
    """
    blocks: dict[str, list[PackedSeries]] = {}
    ranges: Any = None  # the run's, as of the latest segment
    books: dict[str, Any] = {}  # the latest segment's
    histograms: list[tuple[str, tuple[Any, ...]]] = []
    layouts: list[tuple[int, dict[str, Any]]] = []
    try:
        for meta, arrays in segments:
            for entry in meta["scalars"]:
                key, tag = entry["key"], str(entry["tag"])
                packed = PackedSeries(
                    steps=_ints_from(entry["steps"], f"{key}.steps", arrays),
                    walls=_ints_from(entry["walls"], f"{key}.walls", arrays),
                    values=arrays[f"{key}.values"],
                )
                if not (packed.steps.n == packed.walls.n == len(packed.values)):
                    raise ValueError(f"series {tag!r}: columns differ")
                blocks.setdefault(tag, []).append(packed)
            for entry in meta["histograms"]:
                histograms.append(
                    (str(entry["tag"]), _histograms_from(entry["key"], arrays))
                )
            layouts.extend(
                (int(step), dict(layout)) for step, layout in meta["layouts"]
            )
            books = dict(meta["attempts"])
            low, high, first, last = meta["ranges"]
            ranges = (
                None if low is None else int(low),
                None if high is None else int(high),
                None if first is None else float(first),
                None if last is None else float(last),
            )
    except (KeyError, TypeError) as error:
        raise ValueError(f"segment tables: {error!r}") from None
    for tag, tag_blocks in blocks.items():
        store.restore_scalars(run, tag, tag_blocks, attempts=books.get(tag))
    if ranges is not None:
        store.note_ranges(run, ranges)
    for tag, (steps, walls, edges, counts) in histograms:
        store.append_histograms(run, tag, steps, walls, edges, counts)
    for step, layout in layouts:
        store.add_layout(run, step, layout)
    scalar_counts, histogram_counts = store.series_counts(run)
    return Progress(scalar_counts, histogram_counts, len(layouts))


def _histograms_from(
    key: str, arrays: Mapping[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[np.ndarray]]:
    steps, walls = arrays[f"{key}.steps"], arrays[f"{key}.walls"]
    sizes, edges = arrays[f"{key}.sizes"], arrays[f"{key}.edges"]
    counts = arrays[f"{key}.counts"]
    if not len(steps) == len(walls) == len(sizes):
        raise ValueError(f"{key}: columns differ")
    buckets = np.maximum(sizes - 1, 0)
    if (sizes < 0).any() or int(sizes.sum()) != len(edges):
        raise ValueError(f"{key}: edge counts do not add up")
    if int(buckets.sum()) != len(counts):
        raise ValueError(f"{key}: bucket counts do not add up")
    edge_cuts = np.cumsum(sizes)[:-1]
    count_cuts = np.cumsum(buckets)[:-1]
    return (
        steps,
        walls,
        np.split(edges, edge_cuts),
        np.split(counts, count_cuts),
    )
