"""Normalising every writer's histogram to bucket edges + counts.

The result has N + 1 non-decreasing edges and N counts, with empty buckets at
both ends trimmed and runs of empty inner buckets merged into one (which
changes no density: PyTorch's ~500 exponential buckets are mostly empty).
A histogram with no counts becomes zero buckets (`edges` holds one value or
none).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def from_bucket_limits(
    minimum: float,
    maximum: float,
    bucket_limit: Sequence[float],
    bucket: Sequence[float],
) -> tuple[np.ndarray, np.ndarray]:
    """Normalises a legacy `HistogramProto` (PyTorch, tensorboardX, TF1).

    Bucket i holds values in (bucket_limit[i-1], bucket_limit[i]]; the outer
    limits are often ±DBL_MAX, so like TensorBoard's `data_compat` the first
    and last non-empty buckets are clamped to the recorded min and max.
    """
    counts = np.asarray(bucket, dtype=np.float64)
    limits = np.asarray(bucket_limit, dtype=np.float64)
    if len(limits) != len(counts):
        raise ValueError(
            f"histogram has {len(limits)} bucket limits for {len(counts)} buckets"
        )
    filled = np.flatnonzero(counts > 0)
    if len(filled) == 0:
        return np.zeros(0), np.zeros(0)
    first, last = int(filled[0]), int(filled[-1])
    edges = np.concatenate(([minimum], limits[first:last], [maximum]))
    edges = np.maximum.accumulate(np.clip(edges, minimum, maximum))
    return merge_empty_runs(edges, counts[first : last + 1])


def from_bucket_triples(triples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Normalises a TF2 `(k, 3)` tensor of `[left, right, count]` rows.

    Gaps between consecutive buckets become empty buckets; a bucket starting
    before the previous one ended is clamped to start where it ended.
    """
    triples = np.asarray(triples, dtype=np.float64)
    if triples.size == 0:
        return np.zeros(0), np.zeros(0)
    if triples.ndim != 2 or triples.shape[1] != 3:
        raise ValueError(
            f"histogram tensor has shape {triples.shape}, not (k, 3)"
        )
    lefts, rights, counts = triples[:, 0], triples[:, 1], triples[:, 2]
    rights = np.maximum(rights, lefts)
    gap = np.concatenate(([False], lefts[1:] > rights[:-1]))
    # Interleave an empty bucket before every bucket that follows a gap.
    size = len(counts) + int(gap.sum())
    new_counts = np.zeros(size)
    new_lefts = np.empty(size)
    new_rights = np.empty(size)
    slot = np.arange(len(counts)) + np.cumsum(gap)
    new_counts[slot] = counts
    new_lefts[slot] = lefts
    new_rights[slot] = rights
    gap_slot = slot[gap] - 1
    new_lefts[gap_slot] = rights[np.flatnonzero(gap) - 1]
    new_rights[gap_slot] = lefts[gap]
    edges = np.concatenate((new_lefts[:1], new_rights))
    edges = np.maximum.accumulate(edges)
    return trim(edges, new_counts)


def from_edges(
    bin_edges: Sequence[float], hist: Sequence[float]
) -> tuple[np.ndarray, np.ndarray]:
    """Normalises `np.histogram`-style counts and N + 1 edges (VisualDL)."""
    edges = np.asarray(bin_edges, dtype=np.float64)
    counts = np.asarray(hist, dtype=np.float64)
    if len(counts) == 0:
        return np.zeros(0), np.zeros(0)
    if len(edges) != len(counts) + 1:
        raise ValueError(
            f"histogram has {len(edges)} edges for {len(counts)} buckets"
        )
    return trim(np.maximum.accumulate(edges), counts)


def trim(
    edges: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Drops empty buckets at both ends, then merges empty inner runs."""
    filled = np.flatnonzero(counts > 0)
    if len(filled) == 0:
        return np.zeros(0), np.zeros(0)
    first, last = int(filled[0]), int(filled[-1])
    return merge_empty_runs(edges[first : last + 2], counts[first : last + 1])


def merge_empty_runs(
    edges: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Merges each run of consecutive empty buckets into one empty bucket.

    Empty zero-width buckets disappear entirely.
    """
    empty = counts <= 0
    starts_run = empty & np.concatenate(([True], ~empty[:-1]))
    keep = ~empty | starts_run
    kept = np.flatnonzero(keep)
    new_edges = np.append(edges[kept], edges[-1])
    new_counts = np.where(empty[kept], 0.0, counts[kept])
    width_zero_empty = (new_counts == 0) & (new_edges[1:] == new_edges[:-1])
    if width_zero_empty.any():
        drop = np.flatnonzero(width_zero_empty)
        new_counts = np.delete(new_counts, drop)
        new_edges = np.delete(new_edges, drop + 1)
    return new_edges, new_counts
