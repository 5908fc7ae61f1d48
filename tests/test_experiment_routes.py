"""config_diff, metric_summary and the aggregates of scalars, on the demo.

Expected numbers come from the generators' ground truth
(tests/data/demo_truth/) and numpy written here.
"""

from __future__ import annotations

import json
import os
import urllib.parse

import numpy as np
import pytest

from tests.conftest import DEMO_LOGS, ROOT, make_client

BASE = "/data/plugin/tb_multiframework"
TRUTH = os.path.join(ROOT, "tests", "data", "demo_truth")
SEEDS = [f"seeds/pytorch_seed{s}" for s in range(3)]


@pytest.fixture(scope="module")
def client():
    return make_client(DEMO_LOGS)[0]


def get(client, route, params, status=200):
    response = client.get(f"{BASE}/{route}?{urllib.parse.urlencode(params)}")
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return json.loads(response.get_data(as_text=True))


def truth_series(name, run_dir, tag):
    with open(os.path.join(TRUTH, f"{name}.json")) as handle:
        series = json.load(handle)["dirs"][run_dir]["scalars"][tag]
    values = np.asarray(series["values"], np.float32).astype(np.float64)
    return np.asarray(series["steps"]), values


def ema(values, weight):
    """TensorBoard's debiased EMA, a plain loop."""
    out, last, n = [], 0.0, 0
    for v in values:
        last = last * weight + (1 - weight) * v
        n += 1
        out.append(last / (1 - weight**n))
    return np.array(out)


def test_config_diff_of_two_seeds(client):
    body = get(client, "config_diff", [("run", SEEDS[0]), ("run", SEEDS[1])])
    assert body["runs"] == SEEDS[:2]
    first = body["keys"][0]
    assert first == {
        "key": "seed",
        "values": {SEEDS[0]: 0, SEEDS[1]: 1},
        "missing": [],
        "differs": True,
    }
    assert all(not k["differs"] for k in body["keys"][1:])
    assert {k["key"] for k in body["keys"]} == {
        "batch_size",
        "epochs",
        "framework",
        "hidden",
        "lr",
        "lr_decay",
        "optimizer",
        "seed",
    }


def test_config_diff_missing_keys(client):
    body = get(
        client,
        "config_diff",
        [("run", "ddp/rank_0"), ("run", SEEDS[0]), ("run", "pytorch_sgd")],
    )
    keys = {k["key"]: k for k in body["keys"]}
    assert keys["world_size"]["values"] == {
        "ddp/rank_0": 2,
        SEEDS[0]: None,
        "pytorch_sgd": None,
    }
    assert keys["world_size"]["missing"] == [SEEDS[0], "pytorch_sgd"]
    assert all(k["differs"] for k in body["keys"])


@pytest.mark.parametrize(
    "params,status",
    [
        ([("run", SEEDS[0])], 400),
        ([("run", SEEDS[0]), ("run", SEEDS[0])], 400),
        ([("run", SEEDS[0]), ("run", "<script>nope")], 404),
        ([("run", "")], 400),
        ([("run", f"r{i}") for i in range(300)], 400),
    ],
)
def test_config_diff_errors(client, params, status):
    assert "error" in get(client, "config_diff", params, status)


def test_mean_and_std_of_seed_repeats_by_hand(client):
    """3 PyTorch seeds, step axis, smoothing 0.6: mean ± std of smoothed."""
    body = get(
        client,
        "scalars",
        [("run", r) for r in SEEDS]
        + [
            ("tag", "Loss/train"),
            ("x", "step"),
            ("smoothing", "0.6"),
            ("aggregate", "mean"),
            ("band", "std"),
            ("points", "20000"),
        ],
    )
    (found,) = body["aggregates"]
    assert found["group"] == "seeds/pytorch_seed*"
    assert [m["run"] for m in found["members"]] == SEEDS
    curves = []
    for run in SEEDS:
        steps, values = truth_series("seeds_pytorch", run, "Loss/train")
        curves.append(ema(values, 0.6))
    matrix = np.array(curves)
    np.testing.assert_array_equal(found["x"], steps)
    np.testing.assert_allclose(found["y"], matrix.mean(axis=0), rtol=1e-12)
    std = matrix.std(axis=0, ddof=1)
    np.testing.assert_allclose(found["lower"], matrix.mean(0) - std, rtol=1e-9)
    np.testing.assert_allclose(found["upper"], matrix.mean(0) + std, rtol=1e-9)
    assert found["count"] == [3] * 400
    assert len(body["series"]) == 3


def test_downsampled_aggregate_keeps_band_extremes(client):
    params = [("run", r) for r in SEEDS] + [
        ("tag", "Loss/train"),
        ("x", "step"),
        ("aggregate", "median"),
        ("band", "minmax"),
        ("points", "40"),
        ("includeSeries", "0"),
    ]
    (found,) = get(client, "scalars", params)["aggregates"]
    matrix = np.array(
        [truth_series("seeds_pytorch", r, "Loss/train")[1] for r in SEEDS]
    )
    assert found["returned"] < 400 and found["total"] == 400
    assert min(found["lower"]) == matrix.min()
    assert max(found["upper"]) == matrix.max()
    assert max(found["yMax"]) == np.median(matrix, axis=0).max()
    assert get(client, "scalars", params)["series"] == []


def test_group_by_framework_on_the_epoch_axis(client):
    body = get(
        client,
        "scalars",
        [
            ("metric", "loss/train@epoch"),
            ("x", "epoch"),
            ("groupBy", "framework"),
            ("aggregate", "mean"),
            ("band", "std"),
        ],
    )
    groups = {a["group"]: a for a in body["aggregates"]}
    assert {"pytorch", "tensorflow", "paddle"} <= set(groups)
    torch_runs = {m["run"] for m in groups["pytorch"]["members"]}
    assert (
        set(SEEDS) | {"ddp/rank_0", "ddp/rank_1", "pytorch_sgd"} <= torch_runs
    )
    keras = {m["run"] for m in groups["tensorflow"]["members"]}
    assert {f"seeds/keras_seed{s}/train" for s in range(3)} <= keras
    for entry in groups.values():
        assert max(entry["count"]) <= len(entry["members"])
        assert entry["x"] == sorted(entry["x"])


def test_group_baseline_difference(client):
    runs = SEEDS + [f"seeds/keras_seed{s}/train" for s in range(3)]
    body = get(
        client,
        "scalars",
        [("run", r) for r in runs]
        + [
            ("metric", "loss/train@epoch"),
            ("x", "epoch"),
            ("aggregate", "mean"),
            ("band", "std"),
            ("baselineGroup", "seeds/keras_seed*"),
            ("points", "20000"),
            ("includeSeries", "0"),
        ],
    )
    (diff,) = body["groupDiffs"]
    assert diff["group"] == "seeds/pytorch_seed*"
    assert diff["baselineGroup"] == "seeds/keras_seed*"
    # The members and exclusions the docs promise (the group's, as its
    # Aggregate lists them).
    assert sorted(m["run"] for m in diff["members"]) == sorted(SEEDS)
    assert {m["tag"] for m in diff["members"]} == {"Loss/train"}
    assert diff["excluded"] == []
    (own,) = [a for a in body["aggregates"] if a["group"] == diff["group"]]
    assert (diff["members"], diff["excluded"]) == (
        own["members"],
        own["excluded"],
    )
    # Keras epoch_loss sits at x = k + 1: compare there by hand.
    torch_mean = {}
    for run in SEEDS:
        steps, values = truth_series("seeds_pytorch", run, "Loss/train")
        for k in range(8):
            torch_mean.setdefault(k + 1, []).append(values[(k + 1) * 50 - 1])
    keras = {}
    for s in range(3):
        steps, values = truth_series(
            "seeds_keras", f"seeds/keras_seed{s}/train", "epoch_loss"
        )
        for k, v in zip(steps, values):
            keras.setdefault(k + 1, []).append(v)
    x = np.asarray(diff["x"])
    for epoch in range(1, 9):
        i = int(np.flatnonzero(np.isclose(x, epoch))[0])
        a, b = np.array(torch_mean[epoch]), np.array(keras[epoch])
        assert diff["y"][i] == pytest.approx(a.mean() - b.mean(), rel=1e-9)
        se = np.sqrt(a.var(ddof=1) / 3 + b.var(ddof=1) / 3)
        assert diff["upper"][i] - diff["y"][i] == pytest.approx(se, rel=1e-6)
        assert diff["count"][i] == 3 and diff["countBaseline"][i] == 3
    assert len(diff["separated"]) == len(diff["x"])


@pytest.mark.parametrize(
    "extra",
    [
        [("aggregate", "max")],
        [("band", "std")],
        [("aggregate", "mean"), ("band", "iqr")],
        [("aggregate", "mean"), ("groupBy", "colour")],
        [("aggregate", "mean"), ("groupBy", "hparam:")],
        [("aggregate", "mean"), ("baselineGroup", "nope")],
        [
            ("aggregate", "mean"),
            ("baselineGroup", "pytorch_sgd"),
            ("diffMode", "ratio"),
        ],
        [("aggregate", "mean"), ("includeSeries", "2")],
    ],
)
def test_aggregate_argument_errors(client, extra):
    params = [("metric", "loss/train@epoch"), ("x", "epoch")] + extra
    assert "error" in get(client, "scalars", params, 400)


def test_group_by_a_hyper_parameter(client):
    body = get(
        client,
        "scalars",
        [
            ("metric", "loss/train@epoch"),
            ("x", "epoch"),
            ("groupBy", "hparam:seed"),
            ("aggregate", "mean"),
            ("includeSeries", "0"),
        ],
    )
    names = {a["group"] for a in body["aggregates"]}
    assert {"seed=0", "seed=1", "seed=2", "seed not set"} <= names


def test_metric_summary_and_rank_spread(client):
    body = get(client, "metric_summary", [("metric", "loss/val@epoch")])
    assert body["direction"] == "min"
    rows = {r["run"]: r for r in body["runs"]}
    steps, values = truth_series("seeds_pytorch", SEEDS[1], "Loss/val")
    row = rows[SEEDS[1]]
    assert row["last"] == values[-1] and row["lastStep"] == steps[-1]
    assert row["best"] == values.min()
    assert row["bestStep"] == steps[np.argmin(values)]
    (spread,) = body["rankSpread"]
    assert spread["group"] == "ddp" and spread["members"] == [
        "ddp/rank_0",
        "ddp/rank_1",
    ]
    last = [
        truth_series("ddp", f"ddp/rank_{r}", "Loss/val")[1][-1] for r in (0, 1)
    ]
    mean = np.mean(last)
    assert spread["spread"] == pytest.approx(
        max(abs(v - mean) for v in last) / abs(mean)
    )
    assert get(client, "metric_summary", [("metric", "nope")], 404)["error"]
    assert get(client, "metric_summary", [], 400)["error"]


def test_tbmf_config_hparams_and_group_rules(tmp_path):
    import shutil

    logdir = tmp_path / "logs"
    shutil.copytree(os.path.join(DEMO_LOGS, "ddp"), logdir / "ddp")
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "runs": {
                    "ddp/rank_1": {
                        "hparams": {"train": {"lr": 0.5}, "note": "<b>x</b>"}
                    }
                },
                "groups": [{"pattern": r"rank_(\d)", "group": r"rank \1"}],
            }
        )
    )
    client, _ = make_client(str(logdir), tbmf_config=str(config))
    runs = {r["run"]: r for r in get(client, "runs", [])["runs"]}
    assert runs["ddp/rank_1"]["hparams"]["train.lr"] == 0.5
    assert runs["ddp/rank_1"]["hparams"]["note"] == "<b>x</b>"
    assert (
        runs["ddp/rank_1"]["hparamsSources"]["train.lr"]
        == f"tbmf_config: {config}"
    )
    assert runs["ddp/rank_0"]["hparams"]["train.lr"] == 0.05
    assert runs["ddp/rank_1"]["group"] == "rank 1"
    assert runs["ddp/rank_1"]["groupSource"] == "config rule"
    config.write_text(json.dumps({"groups": [{"pattern": "(", "group": "g"}]}))
    body = get(client, "runs", [])
    assert any("invalid group pattern" in e for e in body["errors"])


def test_a_run_without_epochs_is_excluded_from_its_group(client):
    """Issue 22: tf2_loop has no epoch axis; grouping it on `epoch` was a
    400 ("zero-size array to reduction operation minimum ...")."""
    keras = [f"seeds/keras_seed{s}/train" for s in range(3)]
    body = get(
        client,
        "scalars",
        [("run", r) for r in ["tf2_loop", *keras]]
        + [
            ("metric", "loss/train@epoch"),
            ("x", "epoch"),
            ("aggregate", "mean"),
            ("band", "std"),
            ("includeSeries", "0"),
        ],
    )
    groups = {a["group"]: a for a in body["aggregates"]}
    alone = groups["tf2_loop"]
    assert alone["members"] == [] and alone["x"] == []
    assert {e["run"] for e in alone["excluded"]} == {"tf2_loop"}
    assert all("no epoch" in e["reason"] for e in alone["excluded"])
    drawn = groups["seeds/keras_seed*"]
    assert {m["run"] for m in drawn["members"]} == set(keras)
    assert drawn["returned"] > 0


def test_metric_summary_says_what_each_step_counts(client):
    """Issue 22: "step of best" mixed Keras' epoch index 7 with PyTorch's
    global step 399. Each row now says its unit and the epoch-axis place:
    Keras logs epoch_* at the 0-based epoch index k (x = k + 1, conventions
    "Epoch axis"); the PyTorch seeds log Loss/val at each epoch's last batch,
    0-based global step s, n batches an epoch (x = (s + 1) / n)."""
    body = get(client, "metric_summary", [("metric", "loss/val@epoch")])
    rows = {r["run"]: r for r in body["runs"]}
    keras = rows["keras_fit/validation"]
    steps, values = truth_series(
        "keras_fit", "keras_fit/validation", "epoch_loss"
    )
    best = int(steps[np.argmin(values)])
    assert keras["stepUnit"] == "epoch" and keras["bestStep"] == best
    assert keras["bestEpoch"] == best + 1
    assert keras["lastEpoch"] == steps[-1] + 1
    torch = rows[SEEDS[0]]
    steps, values = truth_series("seeds_pytorch", SEEDS[0], "Loss/val")
    batches = len(truth_series("seeds_pytorch", SEEDS[0], "Loss/train")[0])
    per_epoch = batches / len(steps)
    best = int(steps[np.argmin(values)])
    assert torch["stepUnit"] == "step" and torch["bestStep"] == best
    assert torch["bestEpoch"] == pytest.approx((best + 1) / per_epoch)
    # No epoch axis: no epoch position, the step stays a step.
    assert rows["tf2_loop"]["stepUnit"] == "step"
    assert rows["tf2_loop"]["bestEpoch"] is None
