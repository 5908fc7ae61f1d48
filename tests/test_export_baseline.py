"""`GET export` with a baseline: difference columns (issue 22).

On the demo logs. Expected values come from the generators' ground truth
(tests/data/demo_truth/) and numpy's `interp`, never from the code under
test: the export used to drop `baseline` and carry no difference at all.
"""

from __future__ import annotations

import csv
import io
import json
import os
import urllib.parse

import numpy as np
import pytest

from tests.conftest import DEMO_LOGS, ROOT, make_client

BASE = "/data/plugin/tb_multiframework"
TRUTH = os.path.join(ROOT, "tests", "data", "demo_truth")
SEEDS = [f"seeds/pytorch_seed{s}" for s in range(2)]
COLUMNS = [
    "x",
    "run",
    "tag",
    "step",
    "wall_time",
    "value",
    "smoothed",
    "baseline_value",
    "baseline_smoothed",
    "diff",
    "diff_smoothed",
]


@pytest.fixture(scope="module")
def client():
    return make_client(DEMO_LOGS)[0]


def export(client, params, status=200):
    response = client.get(f"{BASE}/export?{urllib.parse.urlencode(params)}")
    assert response.status_code == status, response.get_data(as_text=True)
    return response.get_data(as_text=True)


def truth(run, tag):
    with open(os.path.join(TRUTH, "seeds_pytorch.json")) as handle:
        series = json.load(handle)["dirs"][run]["scalars"][tag]
    values = np.asarray(series["values"], np.float32).astype(np.float64)
    return np.asarray(series["steps"]), values


def ema(values, weight):
    out, last = [], 0.0
    for n, v in enumerate(values, start=1):
        last = last * weight + (1 - weight) * v
        out.append(last / (1 - weight**n))
    return np.array(out)


def test_difference_columns_against_the_baseline_run(client):
    text = export(
        client,
        [("run", r) for r in SEEDS]
        + [
            ("tag", "Loss/train"),
            ("baseline", SEEDS[0]),
            ("smoothing", "0.6"),
            ("format", "csv"),
        ],
    )
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == COLUMNS
    by_run = {r: [row for row in rows[1:] if row[1] == r] for r in SEEDS}
    steps, base = truth(SEEDS[0], "Loss/train")
    _, other = truth(SEEDS[1], "Loss/train")
    got = np.array([[float(c) for c in row[7:]] for row in by_run[SEEDS[1]]])
    assert [int(row[3]) for row in by_run[SEEDS[1]]] == steps.tolist()
    np.testing.assert_array_equal(got[:, 0], base)
    np.testing.assert_array_equal(got[:, 2], other - base)
    np.testing.assert_allclose(
        got[:, 3], ema(other, 0.6) - ema(base, 0.6), rtol=1e-12, atol=1e-15
    )
    # The baseline against itself: zero.
    own = np.array([[float(c) for c in row[9:]] for row in by_run[SEEDS[0]]])
    assert (own == 0).all()


def test_ratio_and_interpolation_on_another_axis(client):
    """Epoch axis: the PyTorch seed's batch losses (x = (s + 1) / n)
    against the Keras seed's epoch_loss (x = 1..8), read on the baseline's
    line as numpy.interp reads it; before x = 1 there is no baseline."""
    params = [
        ("run", SEEDS[0]),
        ("run", "seeds/keras_seed0/train"),
        ("metric", "loss/train@epoch"),
        ("x", "epoch"),
        ("baseline", "seeds/keras_seed0/train"),
        ("diffMode", "ratio"),
        ("format", "json"),
    ]
    body = json.loads(export(client, params))
    assert body["columns"] == COLUMNS
    rows = body["rows"]
    base = [r for r in rows if r[1] == "seeds/keras_seed0/train"]
    bx = np.array([r[0] for r in base])
    by = np.array([r[5] for r in base])
    outside = inside = 0
    for row in rows:
        if row[1] != SEEDS[0]:
            continue
        x, value = row[0], row[5]
        if x < bx[0] or x > bx[-1]:
            assert row[7] == "NaN" and row[9] == "NaN"  # never extrapolated
            outside += 1
            continue
        inside += 1
        expected = float(np.interp(x, bx, by))
        assert row[7] == pytest.approx(expected, rel=1e-12)
        assert row[9] == pytest.approx(value / expected, rel=1e-12)
    assert outside > 0 and inside > 100


def test_a_baseline_that_is_not_selected_is_a_400(client):
    text = export(
        client,
        [("run", SEEDS[0]), ("tag", "Loss/train"), ("baseline", SEEDS[1])],
        status=400,
    )
    assert "baseline" in json.loads(text)["error"]


def test_without_a_baseline_the_columns_stay(client):
    text = export(client, [("run", SEEDS[0]), ("tag", "Loss/train")])
    assert next(csv.reader(io.StringIO(text))) == COLUMNS[:7]
