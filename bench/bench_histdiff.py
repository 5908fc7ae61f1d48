"""Benchmark of core/histdiff: one histogram diff and one distance series.

Run from the repository root: ``python bench/bench_histdiff.py``. Prints the
median wall time of warm repeats next to the targets (single diff < 50 ms,
series of 2 runs x 100 steps x 500 buckets < 500 ms).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tb_multiframework.core.histdiff import (
    DEFAULT_BINS,
    HistSeries,
    clean_histogram,
    compare_histograms,
    distance_series,
)

BUCKETS = 500  # buckets per logged histogram
STEPS = 100  # histograms per run in the series
SINGLE_REPEATS = 200  # timed runs of the single diff
SERIES_REPEATS = 10  # timed runs of the series


def exponential_histogram(
    rng: np.random.Generator, scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch-like: 500 buckets, widths growing by 1.1 away from zero."""
    half = 1.1 ** np.arange(BUCKETS // 2)
    half *= scale * 4 / half[-1]
    edges = np.concatenate([-half[::-1], [0.0], half])
    values = rng.normal(0.0, scale, size=4096)
    counts, _ = np.histogram(np.clip(values, edges[0], edges[-1]), bins=edges)
    return edges, counts.astype(float)


def equal_histogram(
    rng: np.random.Generator, scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """VisualDL-like: np.histogram with 500 equal buckets."""
    counts, edges = np.histogram(rng.normal(0.1, scale, 4096), bins=BUCKETS)
    return edges, counts.astype(float)


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm: first-call imports and caches are not what we measure
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    rng = np.random.default_rng(0)
    a_edges, a_counts = exponential_histogram(rng, 0.05)
    b_edges, b_counts = equal_histogram(rng, 0.06)

    def single() -> object:
        a = clean_histogram(a_edges, a_counts)
        b = clean_histogram(b_edges, b_counts)
        return compare_histograms(a, b, bins=DEFAULT_BINS)

    runs = []
    for make in (exponential_histogram, equal_histogram):
        hists = [make(rng, 0.05 * (1 + k / STEPS)) for k in range(STEPS)]
        runs.append(
            HistSeries(
                steps=np.arange(STEPS, dtype=np.int64) * 10,
                edges=tuple(e for e, _ in hists),
                counts=tuple(c for _, c in hists),
            )
        )
    positions = np.arange(STEPS, dtype=float)

    def series() -> object:
        return distance_series(
            runs[0],
            runs[1],
            positions_a=positions,
            positions_b=positions + 0.3,
            bins=DEFAULT_BINS,
        )

    rows = [
        (
            f"single diff, 2 x {BUCKETS} buckets",
            median_ms(single, SINGLE_REPEATS),
            50.0,
        ),
        (
            f"series, 2 runs x {STEPS} steps x {BUCKETS} buckets",
            median_ms(series, SERIES_REPEATS),
            500.0,
        ),
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"{'case':<{width}}  {'median ms':>9}  {'target':>7}  ok")
    for name, ms, target in rows:
        ok = "yes" if ms < target else "NO"
        print(f"{name:<{width}}  {ms:9.2f}  {target:7.0f}  {ok}")


if __name__ == "__main__":
    main()
