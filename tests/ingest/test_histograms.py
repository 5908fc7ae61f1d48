"""Normalisation of each writer's histogram to edges + counts (by hand)."""

import numpy as np
import pytest

from tb_multiframework.ingest import histograms


def test_legacy_trims_ends_clamps_and_merges_empty_runs():
    # Buckets (-inf,0] (0,1] (1,2] (2,3] (3,4] (4,inf): counts 0 2 0 0 3 0.
    edges, counts = histograms.from_bucket_limits(
        0.5, 3.5, [0, 1, 2, 3, 4, 1e308], [0, 2, 0, 0, 3, 0]
    )
    # Kept: (0.5,1] 2 | (1,3] 0 (two empty merged) | (3,3.5] 3.
    np.testing.assert_array_equal(edges, [0.5, 1, 3, 3.5])
    np.testing.assert_array_equal(counts, [2, 0, 3])


def test_legacy_single_bucket_and_empty():
    edges, counts = histograms.from_bucket_limits(2.0, 2.0, [1, 3], [0, 4])
    np.testing.assert_array_equal(edges, [2.0, 2.0])
    np.testing.assert_array_equal(counts, [4])
    edges, counts = histograms.from_bucket_limits(0, 0, [1, 2], [0, 0])
    assert edges.size == 0 and counts.size == 0


def test_tf2_triples_contiguous_and_with_gap():
    triples = np.array([[0, 1, 1], [1, 2, 0], [2, 3, 5]], dtype=float)
    edges, counts = histograms.from_bucket_triples(triples)
    np.testing.assert_array_equal(edges, [0, 1, 2, 3])
    np.testing.assert_array_equal(counts, [1, 0, 5])
    gap = np.array([[0, 1, 1], [2, 3, 5]], dtype=float)
    edges, counts = histograms.from_bucket_triples(gap)
    np.testing.assert_array_equal(edges, [0, 1, 2, 3])
    np.testing.assert_array_equal(counts, [1, 0, 5])


def test_tf2_zero_width_buckets():
    # All values equal: TF2 may emit zero-width buckets.
    triples = np.array([[4, 4, 0], [4, 4, 0], [4, 4, 7]], dtype=float)
    edges, counts = histograms.from_bucket_triples(triples)
    np.testing.assert_array_equal(edges, [4, 4])
    np.testing.assert_array_equal(counts, [7])


def test_visualdl_edges():
    edges, counts = histograms.from_edges([0, 1, 2, 3, 4], [0, 3, 0, 1])
    np.testing.assert_array_equal(edges, [1, 2, 3, 4])
    np.testing.assert_array_equal(counts, [3, 0, 1])
    with pytest.raises(ValueError, match="3 edges for 3 buckets"):
        histograms.from_edges([0, 1, 2], [1, 2, 3])
