"""What a user sees is what each real writer logged (issue 8, parts 2-4, 6).

All runs are the committed demo logs, written by the real frameworks
(Lightning, HF Trainer, torch, Keras, tf.summary, Paddle hapi, VisualDL,
tensorboardX); expected values come from the ground truth each generator
recorded while logging, or from hand rules stated in the test.
"""

import csv
import io
import json
import os

import numpy as np
import pytest

from tests.conftest import ROOT, make_client

TRUTH = os.path.join(ROOT, "tests", "data", "demo_truth")
BASE = "/data/plugin/tb_multiframework"


def load_truth():
    dirs = {}
    for name in sorted(os.listdir(TRUTH)):
        with open(os.path.join(TRUTH, name)) as handle:
            dirs.update(json.load(handle)["dirs"])
    return dirs


TRUTH_DIRS = load_truth()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    import shutil

    target = tmp_path_factory.mktemp("demo") / "demo_logs"
    shutil.copytree(os.path.join(ROOT, "demo_logs"), target)
    found, _ = make_client(str(target))
    return found


def get(client, url):
    response = client.get(BASE + url)
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def runs_by_name(client):
    return {r["run"]: r for r in get(client, "/runs")["runs"]}


def qs(**params):
    from urllib.parse import urlencode

    return urlencode(params, doseq=True)


@pytest.mark.parametrize(
    ("run", "tag"),
    sorted((run, tag) for run, t in TRUTH_DIRS.items() for tag in t["scalars"]),
)
def test_every_point_served_exactly_once_under_its_own_tag(client, run, tag):
    """Current series plus superseded series = every logged point, once."""
    body = get(
        client,
        "/scalars?" + qs(run=run, tag=tag, points=20000, attempts="all"),
    )
    want = TRUTH_DIRS[run]["scalars"][tag]
    served = []
    for series in body["series"]:
        assert (series["run"], series["tag"]) == (run, tag)
        assert series["returned"] == series["total"]
        served += zip(series["steps"], series["y"])
    expected = [
        (step, float(np.float32(v)))
        for step, v in zip(want["steps"], want["values"])
    ]
    assert sorted(served) == sorted(expected)


def test_trainers_are_detected_with_evidence(client):
    runs = runs_by_name(client)
    want = {
        "lightning_mlp/version_0": "lightning",
        "hf_trainer": "transformers",
        "keras_fit/train": "keras_fit",
        "keras_fit/validation": "keras_fit",
        "paddle_hapi": "paddle_hapi",
        "pytorch_sgd": "",
        "pytorch_resumed": "",
        "paddle_vdl": "",
        "tf2_loop": "",
    }
    for run, trainer in want.items():
        assert runs[run]["trainer"] == trainer, run
        assert bool(runs[run]["trainerEvidence"]) == bool(trainer), run
    lightning = " ".join(runs["lightning_mlp/version_0"]["trainerEvidence"])
    assert "hparams.yaml" in lightning and "version_0" in lightning
    assert "args/text_summary" in " ".join(
        runs["hf_trainer"]["trainerEvidence"]
    )


def test_resumed_run_note_and_attempts(client):
    runs = runs_by_name(client)
    resumed = runs["pytorch_resumed"]
    assert (
        resumed["resumeNote"] == "resumed at step 200 · 162 points superseded"
    )
    assert [
        (a["attempt"], a["startStep"], a["cause"], a["superseded"])
        for a in resumed["attempts"]
    ] == [(0, 0, "", 162), (1, 200, "session_log", 0)]
    # Runs that were not resumed say nothing, even with repeated steps.
    assert runs["lightning_mlp/version_0"]["resumeNote"] == ""
    assert runs["hf_trainer"]["resumeNote"] == ""


@pytest.mark.parametrize(
    "axis", ["step", "epoch", "relative", "wall", "progress"]
)
def test_resumed_run_has_one_point_per_step_on_every_axis(client, axis):
    body = get(
        client,
        "/scalars?"
        + qs(run="pytorch_resumed", tag="Loss/train", x=axis, points=20000),
    )
    (series,) = body["series"]
    steps = series["steps"]
    assert steps == list(range(400))
    assert series["hidden"] == {"superseded": 80, "repeated": 0}
    # No zig-zag: x grows with the step.
    assert np.all(np.diff(series["x"]) >= 0)
    truth = TRUTH_DIRS["pytorch_resumed"]["scalars"]["Loss/train"]
    last = dict(zip(truth["steps"], truth["values"]))  # later attempt wins
    np.testing.assert_array_equal(
        series["y"], np.float32([last[s] for s in steps])
    )


def test_attempts_all_adds_the_superseded_series(client):
    body = get(
        client,
        "/scalars?"
        + qs(
            run="pytorch_resumed", tag="Loss/train", attempts="all", x="epoch"
        ),
    )
    current, old = body["series"]
    assert "superseded" not in current
    assert old["superseded"] is True and old["attempt"] == 0
    assert old["steps"] == list(range(200, 280))
    truth = TRUTH_DIRS["pytorch_resumed"]["scalars"]["Loss/train"]
    first_attempt = dict(zip(truth["steps"][:280], truth["values"][:280]))
    np.testing.assert_array_equal(
        old["y"], np.float32([first_attempt[s] for s in old["steps"]])
    )
    # On the epoch axis both attempts of step s sit at the same x.
    at = dict(zip(current["steps"], current["x"]))
    assert old["x"] == [at[s] for s in old["steps"]]


def test_export_all_attempts_has_an_attempt_column(client):
    response = client.get(
        BASE
        + "/export?"
        + qs(
            run="pytorch_resumed",
            tag="Loss/val",
            attempts="all",
            format="csv",
        )
    )
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert list(rows[0]) == [
        "x",
        "run",
        "tag",
        "step",
        "wall_time",
        "value",
        "smoothed",
        "attempt",
        "current",
    ]
    got = [(int(r["step"]), int(r["attempt"]), r["current"]) for r in rows]
    # Loss/val at every epoch end; step 249 twice: attempt 0 superseded.
    assert got == [
        (49, 0, "True"),
        (99, 0, "True"),
        (149, 0, "True"),
        (199, 0, "True"),
        (249, 1, "True"),
        (249, 0, "False"),
        (299, 1, "True"),
        (349, 1, "True"),
        (399, 1, "True"),
    ]
    default = client.get(
        BASE
        + "/export?"
        + qs(run="pytorch_resumed", tag="Loss/val", format="csv")
    ).get_data(as_text=True)
    assert default.splitlines()[0] == "x,run,tag,step,wall_time,value,smoothed"
    assert len(default.splitlines()) == 1 + 8


def test_sub_runs_join_the_parent_group_and_its_epoch_axis(client):
    runs = runs_by_name(client)
    subs = [r for r in runs if r.startswith("pytorch_resumed/")]
    assert len(subs) == 3
    for run in subs:
        assert runs[run]["group"] == "pytorch_resumed"
        assert runs[run]["parent"] == "pytorch_resumed"
        assert runs[run]["hasEpochAxis"], run
    assert runs["pytorch_resumed/Loss_train"]["subRun"] == "add_scalars"
    (hparams,) = [r for r in subs if not r.endswith(("Loss_train", "Loss_val"))]
    assert runs[hparams]["subRun"] == "add_hparams"
    body = get(
        client,
        "/scalars?" + qs(run="pytorch_resumed/Loss_val", tag="Loss", x="epoch"),
    )
    (series,) = body["series"]
    # Logged at each epoch's last 0-based step 50k + 49: epoch k ends, x = k+1.
    assert series["x"] == pytest.approx([float(k + 1) for k in range(8)])
    # add_scalars("Loss", {"val": ...}) is matched as loss/val by Main + key.
    metrics = {m["key"]: m for m in get(client, "/metrics")["metrics"]}
    members = {
        (m["run"], m["tag"]) for m in metrics["loss/val@epoch"]["members"]
    }
    assert ("pytorch_resumed/Loss_val", "Loss") in members
    assert ("pytorch_resumed/Loss_train", "Loss") in {
        (m["run"], m["tag"]) for m in metrics["loss/train@epoch"]["members"]
    }


def test_metric_semantics(client):
    metrics = {m["key"]: m for m in get(client, "/metrics")["metrics"]}
    # One entry for every epoch counter; never a split metric.
    assert not [k for k in metrics if k.startswith("epoch/")]
    counters = {(m["run"], m["tag"]) for m in metrics["epoch"]["members"]}
    assert {
        ("lightning_mlp/version_0", "epoch"),
        ("hf_trainer", "train/epoch"),
        ("pytorch_sgd", "epoch"),
        ("paddle_tbx", "epoch"),
    } <= counters
    # Lightning's hp_metric placeholder (-1) is not a metric.
    assert not [
        k
        for k, m in metrics.items()
        if any(x["tag"] == "hp_metric" for x in m["members"])
    ]
    # Keras validation: one series, evaluation_* is its alias.
    keras = [
        m
        for m in metrics["loss/val@epoch"]["members"]
        if m["run"] == "keras_fit/validation"
    ]
    assert [(m["tag"], m["aliases"]) for m in keras] == [
        ("epoch_loss", ["evaluation_loss_vs_iterations"])
    ]
    # A VisualDL LogWriter loop is not called Paddle hapi.
    for entry in metrics.values():
        for m in entry["members"]:
            if m["run"] == "paddle_vdl":
                assert "hapi" not in m["derivation"], m
            if m["run"] == "paddle_hapi" and m["tag"] == "train/loss":
                assert "paddle.callbacks.VisualDL" in m["derivation"]


def member(metrics, key, run, tag):
    (found,) = [
        m for m in metrics[key]["members"] if (m["run"], m["tag"]) == (run, tag)
    ]
    return found


def test_aggregation_says_what_each_number_is(client):
    metrics = {m["key"]: m for m in get(client, "/metrics")["metrics"]}
    cases = [
        ("loss/train@batch", "keras_fit/train", "batch_loss", "running_mean"),
        ("loss/train@epoch", "keras_fit/train", "epoch_loss", "epoch_mean"),
        ("loss/train@batch", "pytorch_sgd", "Loss/train", "per_batch"),
        ("loss/train@batch", "paddle_hapi", "train/loss", "per_batch"),
        ("accuracy/train@batch", "paddle_hapi", "train/acc", "running_mean"),
        (
            "loss/train@batch",
            "lightning_mlp/version_0",
            "train_loss_step",
            "per_batch",
        ),
        (
            "loss/train@epoch",
            "lightning_mlp/version_0",
            "train_loss_epoch",
            "epoch_mean",
        ),
        ("loss/train@batch", "hf_trainer", "train/loss", "window_mean"),
        ("loss/val@epoch", "hf_trainer", "eval/loss", "epoch_mean"),
        ("epoch", "lightning_mlp/version_0", "epoch", "counter"),
    ]
    for key, run, tag, kind in cases:
        found = member(metrics, key, run, tag)
        assert found["aggregation"] == kind, (run, tag)
        assert found["aggregationEvidence"]


def test_hf_train_loss_is_the_window_mean_of_the_same_batches():
    """The HF Trainer's train/loss averages the logging window (same data)."""
    hf = TRUTH_DIRS["hf_trainer"]["scalars"]["train/loss"]
    torch_losses = np.array(
        TRUTH_DIRS["pytorch_sgd"]["scalars"]["Loss/train"]["values"]
    )
    start = 0
    for step, value in zip(hf["steps"], hf["values"]):
        if step > 210:  # pytorch_sgd's deliberate spike at step 217
            break
        assert value == pytest.approx(torch_losses[start:step].mean(), abs=1e-6)
        start = step


def keras_batches_as(client, view):
    body = get(
        client,
        "/scalars?"
        + qs(
            run="keras_fit/train",
            tag="batch_loss",
            x="epoch",
            points=20000,
            batchValues=view,
        ),
    )
    (series,) = body["series"]
    return series


def test_keras_running_means_shown_as_per_batch_values(client):
    """Keras batch_loss unrolled equals the per-batch loss of the same batches.

    paddle_tbx trains the same model on the same batches and logs each
    batch's loss (tensorboardX); the README says the runs agree to ~2e-7.
    """
    series = keras_batches_as(client, "per_batch")
    assert series["batchValues"] == "running mean → per-batch values"
    assert series["aggregation"] == "running_mean"
    per_batch = np.array(
        TRUTH_DIRS["paddle_tbx"]["scalars"]["train/loss"]["values"]
    )
    # Keras steps 1..400 are batches 1..50 of each epoch.
    assert series["steps"] == list(range(1, 401))
    # float32 running means amplify rounding by b (<= 50): ~6e-8 * 50.
    np.testing.assert_allclose(series["y"], per_batch, atol=2e-5)
    # And by hand for the first two batches: v2 = 2*m2 - m1.
    logged = TRUTH_DIRS["keras_fit/train"]["scalars"]["batch_loss"]["values"]
    m1, m2 = np.float32(logged[0]), np.float32(logged[1])
    assert series["y"][1] == pytest.approx(2 * float(m2) - float(m1), abs=1e-12)


def test_per_batch_values_shown_as_running_means(client):
    body = get(
        client,
        "/scalars?"
        + qs(
            run="paddle_tbx",
            tag="train/loss",
            x="epoch",
            points=20000,
            batchValues="running_mean",
        ),
    )
    (series,) = body["series"]
    assert series["batchValues"] == "per-batch values → running mean"
    keras = np.float32(
        TRUTH_DIRS["keras_fit/train"]["scalars"]["batch_loss"]["values"]
    )
    np.testing.assert_allclose(series["y"], keras, atol=1e-6)
    # By hand: the mean of the epoch's values so far, reset each epoch.
    raw = np.float32(
        TRUTH_DIRS["paddle_tbx"]["scalars"]["train/loss"]["values"]
    )
    by_hand = np.concatenate(
        [
            np.cumsum(e, dtype=np.float64) / np.arange(1, 51)
            for e in raw.reshape(8, 50)
        ]
    )
    np.testing.assert_allclose(series["y"], by_hand, rtol=1e-12)


def test_batch_view_leaves_other_series_alone(client):
    body = get(
        client,
        "/scalars?"
        + qs(
            run=["pytorch_sgd", "tf2_loop"],
            metric="loss/val@epoch",
            batchValues="per_batch",
        ),
    )
    notes = {s["run"]: s["batchValues"] for s in body["series"]}
    assert all("shown as logged" in n or n == "" for n in notes.values()), notes


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("attempts=some", "attempts"),
        ("batchValues=mean", "batchValues"),
    ],
)
def test_bad_new_arguments_are_400(client, query, words):
    response = client.get(
        BASE + "/scalars?run=pytorch_sgd&tag=Loss/train&" + query
    )
    assert response.status_code == 400
    assert words in json.loads(response.get_data(as_text=True))["error"]
