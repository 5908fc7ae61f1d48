"""The detectors scored on the labelled cases of bench/anomaly_cases.py.

The cases come from `SCORE_SEED`, which was never used while tuning (the
thresholds were tuned on `TUNE_SEEDS`). Per kind: recall >= 0.9 (injected
cases whose range a finding of the right kind overlaps) and precision >=
0.9 (findings of a kind that hit an injected range of that kind, over all
cases, clean ones included); at most 1 false flag per 100 clean series.
Run with `-s` to see the table (also: python bench/anomaly_cases.py --score).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))

import anomaly_cases  # noqa: E402

MIN_RECALL = 0.9
MIN_PRECISION = 0.9
MAX_CLEAN_FLAGS_PER_100 = 1.0


def test_scores_on_the_held_out_seed() -> None:
    assert anomaly_cases.SCORE_SEED not in anomaly_cases.TUNE_SEEDS
    cases = anomaly_cases.make_cases(anomaly_cases.SCORE_SEED)
    scores = anomaly_cases.score(cases)
    print(f"\nseed {anomaly_cases.SCORE_SEED}\n{scores.table()}")
    for kind in anomaly_cases.ALL_KINDS:
        assert scores.cases[kind] == 60
        assert scores.recall[kind] >= MIN_RECALL, (
            kind,
            scores.misses.get(kind),
        )
        assert scores.precision.get(kind, 1.0) >= MIN_PRECISION, (
            kind,
            scores.false.get(kind),
        )
    assert scores.clean_flags_per_100 <= MAX_CLEAN_FLAGS_PER_100
    assert scores.clean_series >= 300


def test_written_cases_hold_the_truth(tmp_path) -> None:
    cases = anomaly_cases.make_cases(5, per_kind=1, clean=3)
    anomaly_cases.write_cases(cases, str(tmp_path))
    index = json.loads((tmp_path / "truth.json").read_text())
    assert [item["id"] for item in index] == [c.id for c in cases]
    for case, item in zip(cases, index):
        arrays = np.load(tmp_path / f"{case.id}.npz")
        for name, curve in case.series.items():
            np.testing.assert_array_equal(arrays[f"{name}/steps"], curve.steps)
            np.testing.assert_array_equal(
                arrays[f"{name}/values"], curve.values
            )
        assert item["kind"] == case.kind
        assert len(item["truth"]) == len(case.truth)
        for truth in item["truth"]:
            steps = case.series[truth["series"]].steps
            assert truth["start_step"] in steps and truth["end_step"] in steps


def test_injections_change_only_their_range() -> None:
    """An injected case differs from its clean twin only inside the truth
    range (and after it, for kinds that last: cliffs, drifts, ...)."""
    for kind in ("spike", "nonfinite"):
        for case in anomaly_cases.make_cases(9, per_kind=3, clean=0):
            if case.kind != kind:
                continue
            truth = case.truth[0]
            curve = case.series[truth.series]
            inside = (curve.steps >= truth.start_step) & (
                curve.steps <= truth.end_step
            )
            assert inside.sum() >= 1
            assert len(case.truth) == 1
