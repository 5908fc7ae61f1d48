"""`tbmf check` exit codes on runs built to pass and to fail.

Runs with known curves are written as real event files; where the first and
the worst violation must be follows from the curves by hand (and numpy).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.cli.conftest import Routes, assert_usage_error, tbmf, write_run

STEPS = np.arange(300)
BASE = 2.0 * np.exp(-STEPS / 100.0) + 0.1  # the baseline's loss


def _f32(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float32).astype(np.float64)  # simple_value


def _drift(steps: np.ndarray) -> np.ndarray:
    """0 until step 200, then growing by 3% of the loss per 100 steps."""
    return 0.03 * np.clip(steps - 200, 0, None) / 100.0


def _normal_counts(shift: float) -> tuple[list[float], list[float]]:
    """40 buckets over [-4, 4] of N(shift, 1), 100,000 samples' worth."""
    limits = np.linspace(-3.8, 4.0, 40)
    edges = np.r_[-4.0, limits]
    from math import erf, sqrt

    cdf = np.array([0.5 * (1 + erf((e - shift) / sqrt(2))) for e in edges])
    return limits.tolist(), np.round(np.diff(cdf) * 100_000).tolist()


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("check")
    hist_same = _normal_counts(0.0)
    hist_shifted = _normal_counts(0.5)
    hist_steps = range(0, 300, 50)
    write_run(
        root,
        "base",
        {"loss": list(zip(STEPS.tolist(), BASE.tolist()))},
        histograms={
            "fc/weight": [(s, *hist_same) for s in hist_steps],
        },
    )
    write_run(
        root,
        "drifting",
        {
            "loss": list(
                zip(STEPS.tolist(), (BASE * (1 + _drift(STEPS))).tolist())
            )
        },
        histograms={
            "layer0.weight": [
                (s, *(hist_shifted if s >= 150 else hist_same))
                for s in hist_steps
            ],
        },
    )
    diverged = BASE.copy()
    diverged[150:] = np.nan
    write_run(root, "diverged", {"loss": list(zip(STEPS.tolist(), diverged))})
    odd = STEPS[1::2]
    write_run(
        root,
        "odd_steps",  # logs every other step: read between its points
        {"loss": list(zip(odd.tolist(), (2.0 * np.exp(-odd / 100.0) + 0.1)))},
    )
    write_run(root, "short", {"loss": list(zip(range(100), BASE[:100]))})
    return str(root)


def _check(logdir: str, candidate: str, *args: str):
    return tbmf(
        "check",
        logdir,
        "--baseline",
        "base",
        "--candidate",
        candidate,
        "--metric",
        "loss",
        *args,
    )


def test_same_curve_within_tolerance_passes(logdir) -> None:
    result = _check(logdir, "drifting", "--window", ":200", "--rtol", "0")
    assert result.code == 0, result.err
    assert result.out.startswith("PASS  loss: drifting (loss) vs base")
    assert "all 201 points within rtol 0, atol 0 on step 0–200" in result.out


def test_drift_fails_at_the_step_the_tolerance_allows(logdir) -> None:
    base, cand = _f32(BASE), _f32(BASE * (1 + _drift(STEPS)))
    over = np.abs(cand - base) > 0.02 * np.abs(base)
    first = int(STEPS[over][0])
    assert first == 267  # 3% per 100 steps passes 2% after 66.7 steps
    ratio = np.abs(cand - base) / (0.02 * np.abs(base))
    result = _check(logdir, "drifting", "--rtol", "0.02", "--json")
    assert result.code == 1, result.err
    (found,) = result.json()["checks"]
    assert found["passed"] is False
    assert found["violations"] == int(over.sum()) == 33
    assert found["first"]["x"] == first
    assert found["worst"]["x"] == int(STEPS[np.argmax(ratio)]) == 299
    assert found["worst"]["ratio"] == pytest.approx(ratio.max(), rel=1e-9)
    assert found["first"]["baseline"] == base[first]
    assert found["first"]["candidate"] == cand[first]
    human = _check(logdir, "drifting", "--rtol", "0.02")
    assert human.code == 1
    lines = human.out.strip().split("\n")
    assert lines[0].startswith(
        "FAIL  loss: drifting (loss) vs base (loss): 33 of 300 points "
        "out of tolerance (rtol 0.02, atol 0) on step 0–299"
    )
    assert lines[1].startswith("  first at step 267: baseline ")
    assert lines[2].startswith("  worst at step 299: baseline ")
    # the same with a looser tolerance, the last point only, an atol
    assert _check(logdir, "drifting", "--rtol", "0.04").code == 0
    assert (
        _check(logdir, "drifting", "--rtol", "0.02", "--window", "last").code
        == 1
    )
    assert _check(logdir, "drifting", "--rtol", "0", "--atol", "0.01").code == 0


def test_smoothing_is_applied_to_both(logdir) -> None:
    raw = _check(logdir, "drifting", "--rtol", "0.02", "--json").json()
    smooth = _check(
        logdir, "drifting", "--rtol", "0.02", "--smoothing", "0.9", "--json"
    ).json()
    # an EMA lags: the smoothed drift crosses 2% later than the raw one
    assert smooth["checks"][0]["first"]["x"] > raw["checks"][0]["first"]["x"]


def test_divergence_to_nan_fails_where_it_starts(logdir) -> None:
    result = _check(logdir, "diverged", "--rtol", "0.5", "--json")
    assert result.code == 1
    (found,) = result.json()["checks"]
    assert found["first"]["x"] == 150
    assert found["first"]["candidate"] == "NaN"
    assert found["violations"] == 150


def test_interpolated_candidate(logdir) -> None:
    """Read between its points as the difference chart reads it."""
    odd = STEPS[1::2]
    cand = np.interp(STEPS, odd, _f32(2.0 * np.exp(-odd / 100.0) + 0.1))
    grid = STEPS[1:]  # the overlap starts at the candidate's first step
    base = _f32(BASE)[1:]
    ratio = np.abs(cand[1:] - base) / (1e-6 * np.abs(base))
    result = _check(logdir, "odd_steps", "--rtol", "1e-6", "--json")
    (found,) = result.json()["checks"]
    assert found["checked"] == grid.size
    bad = ratio > 1
    assert found["violations"] == int(bad.sum())
    assert found["worst"]["x"] == int(grid[np.argmax(ratio)])
    assert _check(logdir, "odd_steps", "--rtol", "1e-3").code == 0


def test_a_shorter_candidate_is_checked_on_the_overlap(logdir) -> None:
    result = _check(logdir, "short", "--json")
    assert result.code == 0
    (found,) = result.json()["checks"]
    assert found["checkedRange"] == [0, 99]
    assert found["ranges"] == {"baseline": [0, 299], "candidate": [0, 99]}
    assert_usage_error(
        _check(logdir, "short", "--window", "200:300"),
        "no compared position in the window [200, 300]",
        "0 to 99",
    )


def test_histograms_fail_where_the_distribution_moves(logdir) -> None:
    args = (
        "check",
        logdir,
        "-a",
        "base",
        "-b",
        "drifting",
        "--histograms",
        "fc/weight",
        "layer0.weight",
    )
    result = tbmf(*args, "--hist-tol", "ks=0.1,w1=1", "--json")
    assert result.code == 1, result.err
    (found,) = result.json()["checks"]
    assert found["checked"] == 6  # steps 0, 50, ..., 250
    assert found["violations"] == 3
    assert (found["first"]["x"], found["first"]["distance"]) == (150, "ks")
    # the same distances as the histogram_distances route
    routes = Routes(logdir)
    answer = routes.get(
        "histogram_distances",
        runA="base",
        tagA="fc/weight",
        runB="drifting",
        tagB="layer0.weight",
    )
    at = answer["positions"].index(found["worst"]["x"])
    assert found["worst"]["value"] == answer["ks"][at]
    # KS of N(0, 1) against N(0.5, 1) is 2·Φ(0.25) − 1 ≈ 0.197
    assert found["worst"]["value"] == pytest.approx(0.197, abs=0.02)
    assert tbmf(*args, "--hist-tol", "0.3", "--window", ":100").code == 0
    assert tbmf(*args, "--hist-tol", "ks=0.3,w1=0.4").code == 1  # W1 = 0.5
    text = tbmf(*args, "--hist-tol", "ks=0.1,w1=1").out
    assert text.startswith("FAIL  histograms: drifting (layer0.weight) vs base")
    assert "  first at step 150: KS " in text


def test_usage_errors_name_the_choices(logdir) -> None:
    assert_usage_error(
        tbmf(
            "check", logdir, "-a", "base", "-b", "drifted", "--metric", "loss"
        ),
        "unknown run 'drifted'",
        "did you mean 'drifting'",
        "runs: base, diverged, drifting, odd_steps, short",
    )
    assert_usage_error(
        tbmf("check", logdir, "-a", "base", "-b", "short", "--metric", "los"),
        "unknown metric 'los'",
        "loss",
    )
    assert_usage_error(
        tbmf(
            "check",
            logdir,
            "-a",
            "base",
            "-b",
            "short",
            "--metric",
            "loss",
            "--x",
            "epoch",
        ),
        "has no place on epoch",
    )
    assert_usage_error(
        tbmf(
            "check",
            logdir,
            "-a",
            "base",
            "-b",
            "short",
            "--metric",
            "loss",
            "--x",
            "steps",
        ),
        "unknown axis 'steps'",
        "step, epoch, relative, wall, progress",
    )
    assert_usage_error(
        tbmf(
            "check",
            logdir,
            "-a",
            "base",
            "-b",
            "short",
            "--metric",
            "loss",
            "--window",
            "5:1",
        ),
        "need FROM <= TO",
    )
    assert_usage_error(
        tbmf(
            "check",
            logdir,
            "-a",
            "base",
            "-b",
            "short",
            "--metric",
            "loss",
            "--rtol",
            "-1",
        ),
        "must be a number >= 0",
    )
    assert_usage_error(
        tbmf(
            "check",
            logdir,
            "-a",
            "base",
            "-b",
            "drifting",
            "--histograms",
            "fc/weight",
            "layer0.weights",
        ),
        "'drifting' has no histogram tag 'layer0.weights'",
        "did you mean 'layer0.weight'",
    )
    assert_usage_error(
        tbmf("check", logdir, "-a", "base", "-b", "short"), "--metric"
    )


def test_json_is_plain_json(logdir) -> None:
    text = _check(logdir, "diverged", "--json").out
    json.loads(text)  # NaN travels as the string "NaN", as in the routes
    assert "NaN," not in text.replace('"NaN"', "")
