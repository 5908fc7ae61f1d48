"""`GET anomalies` through TensorBoard's WSGI app: the demo logs (which
flag only the spike their generator injects), logdirs written here with
TensorBoard's own record writer, and every 400/404 path. Expected steps
and values come from the demo ground truth and the constructions here."""

import json
import math
import os

import numpy as np
import pytest

from tb_multiframework.api import anomalies as anomaly_api
from tb_multiframework.api.anomalies import AnomalyQuery, rank_groups
from tests import eventfiles
from tests.conftest import ROOT, make_client

BASE = "/data/plugin/tb_multiframework"
TRUTH = os.path.join(ROOT, "tests", "data", "demo_truth")


def get(client, path, status=200):
    response = client.get(BASE + path)
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return json.loads(response.get_data(as_text=True))


def write_run(root, run, series, name=eventfiles.TORCH_NAME, mode="wb"):
    """series: {tag: (steps, values)} as one tfevents file of the run."""
    events = [eventfiles.file_version_event()] if mode == "wb" else []
    for tag, (steps, values) in series.items():
        events += [
            eventfiles.scalar_event(tag, int(s), 1.0 + float(s), float(v))
            for s, v in zip(steps, values)
        ]
    return eventfiles.write(
        os.path.join(root, run, name), eventfiles.record_bytes(events), mode
    )


def loss_curve(n, seed, noise=0.03):
    t = np.arange(n)
    rng = np.random.default_rng(seed)
    return (0.2 + 2 * np.exp(-t / (0.2 * n))) * (
        1 + noise * rng.standard_normal(n)
    )


def test_demo_logs_flag_only_the_injected_spike(demo_client):
    body = get(demo_client, "/anomalies")
    runs = get(demo_client, "/runs")["runs"]
    assert body["series"] == sum(len(r["scalarTags"]) for r in runs)
    assert body["total"] == 1 and body["counts"] == {"pytorch_sgd": 1}
    [found] = body["anomalies"]
    with open(os.path.join(TRUTH, "pytorch_sgd.json")) as handle:
        logged = json.load(handle)["dirs"]["pytorch_sgd"]["scalars"][
            "Loss/train"
        ]
    value = logged["values"][logged["steps"].index(217)]
    assert (found["run"], found["tag"], found["metric"]) == (
        "pytorch_sgd",
        "Loss/train",
        "loss/train",
    )
    assert (found["kind"], found["step"], found["endStep"]) == (
        "spike",
        217,
        217,
    )
    assert found["x"] == [217.0, 217.0]
    assert found["evidence"]["value"] == pytest.approx(value, rel=1e-6)
    assert 0 < found["severity"] <= 1
    assert "217" in found["message"] and found["cause"]
    assert body["dataVersion"] == get(demo_client, "/runs")["dataVersion"]


def test_demo_spike_on_the_epoch_axis_and_filters(demo_client):
    # The staircase ends epoch 4 at step 249 and epoch 3 at 199: 50 steps
    # an epoch, so step 217 is at 4 + 18 / 50.
    body = get(demo_client, "/anomalies?run=pytorch_sgd&tag=Loss/train&x=epoch")
    assert body["x"] == "epoch"
    assert body["anomalies"][0]["x"] == pytest.approx([4.36, 4.36])
    assert get(demo_client, "/anomalies?kinds=spike")["total"] == 1
    assert get(demo_client, "/anomalies?kinds=cliff,plateau")["total"] == 0
    assert get(demo_client, "/anomalies?kinds=spike&kinds=cliff")["total"] == 1
    assert get(demo_client, "/anomalies?kinds=")["total"] == 1
    assert get(demo_client, "/anomalies?run=keras_fit/train")["total"] == 0
    by_metric = get(demo_client, "/anomalies?metric=loss/train@batch")
    assert [a["step"] for a in by_metric["anomalies"]] == [217]
    by_tag = get(demo_client, "/anomalies?tag=Loss/train")
    having = [
        r
        for r in get(demo_client, "/runs")["runs"]
        if "Loss/train" in r["scalarTags"]
    ]
    assert by_tag["series"] == len(having) >= 2 and by_tag["total"] == 1


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("?kinds=sparkle", 400, "sparkle"),
        ("?kinds=spike,%3Cb%3E", 400, "<b>"),
        ("?run=nope", 404, "nope"),
        ("?run=%3Cscript%3Ealert(1)%3C/script%3E", 404, "<script>"),
        ("?run=pytorch_sgd&tag=nope", 404, "nope"),
        ("?tag=Loss/train&run=keras_fit/train", 404, "Loss/train"),
        ("?metric=nope@epoch", 404, "nope@epoch"),
        ("?x=fortnight", 400, "fortnight"),
        ("?tag=Loss/train&metric=loss/train", 400, "at most one"),
        ("?run=", 400, "run"),
        ("?kinds=" + "a" * 17000, 400, "too long"),
    ],
)
def test_bad_arguments_answer_json_errors(demo_client, query, status, words):
    body = get(demo_client, "/anomalies" + query, status)
    assert words in body["error"]


def test_the_api_answers_without_http(demo_copy):
    client, plugin = make_client(demo_copy)
    payload = plugin._api.anomaly_payload(AnomalyQuery())
    assert payload["anomalies"] == get(client, "/anomalies")["anomalies"]
    with pytest.raises(anomaly_api.NotFoundError.__mro__[0].__base__):
        plugin._api.anomaly_payload(AnomalyQuery(runs=("nope",)))


def test_learning_rate_explains_a_drop_that_a_leak_does_not(tmp_path):
    n = 3000
    steps = np.arange(n)
    loss = loss_curve(n, seed=1)
    loss[1500:] *= 0.3
    write_run(
        tmp_path,
        "scheduled",
        {
            "Loss/train": (steps, loss),
            "learning_rate": (
                steps[99::100],
                np.where(steps[99::100] < 1500, 0.1, 0.01),
            ),
        },
    )
    write_run(tmp_path, "leak", {"Loss/train": (steps, loss)})
    client, _ = make_client(str(tmp_path))
    body = get(client, "/anomalies")
    assert [(a["run"], a["kind"]) for a in body["anomalies"]] == [
        ("leak", "cliff")
    ]
    [cliff] = body["anomalies"]
    assert cliff["step"] <= 1500 <= cliff["endStep"] + 1
    assert cliff["evidence"]["after"] == pytest.approx(
        0.3 * cliff["evidence"]["before"], rel=0.15
    )


def test_overfitting_pairs_the_validation_loss_with_the_training_loss(tmp_path):
    n, epochs = 5000, 50
    steps = np.arange(n)
    ends = (np.arange(epochs) + 1) * (n // epochs) - 1
    val = 0.3 + 2 * np.exp(-ends / 1000.0)
    val[30:] += 0.4 * (np.arange(20) / 19) ** 1.5
    write_run(
        tmp_path,
        "run",
        {"Loss/train": (steps, loss_curve(n, seed=2)), "Loss/val": (ends, val)},
    )
    client, _ = make_client(str(tmp_path))
    body = get(client, "/anomalies")
    [found] = body["anomalies"]
    assert (found["tag"], found["metric"], found["kind"]) == (
        "Loss/val",
        "loss/val",
        "overfitting",
    )
    best = int(ends[int(np.argmin(val))])
    assert found["evidence"]["bestStep"] == pytest.approx(best, abs=300)
    assert found["evidence"]["trainChange"] < 0


def test_ranks_of_a_distributed_run(tmp_path):
    n = 2000
    steps = np.arange(n)
    for rank in range(4):
        loss = loss_curve(n, seed=10 + rank, noise=0.05)
        if rank == 2:
            loss[1200:] += 0.5 * np.median(loss[1200:])
        write_run(tmp_path / "ddp", f"rank_{rank}", {"loss": (steps, loss)})
        count = 700 if rank == 1 else n  # rank 1 hangs at step 699
        write_run(
            tmp_path / "hung",
            f"worker-{rank}",
            {"loss": (steps[:count], loss_curve(n, seed=20 + rank)[:count])},
        )
    client, _ = make_client(str(tmp_path))
    body = get(client, "/anomalies?kinds=rank_desync")
    found = sorted((a["run"], a["step"]) for a in body["anomalies"])
    assert [run for run, _ in found] == ["ddp/rank_2", "hung/worker-1"]
    assert found[0][1] == pytest.approx(1200, abs=60)
    assert found[1][1] == 699


def test_rank_groups_from_directory_names():
    groups = rank_groups(
        [
            "a/rank_1",
            "a/rank_0",
            "a/rank_10",
            "b/rank-0",
            "b/local_rank_1",
            "c/worker_3",
            "d/rank_0",
            "e/ranking",
            "rank_0",
            "rank_1",
        ]
    )
    assert groups == {
        "a": ["a/rank_0", "a/rank_1", "a/rank_10"],
        "b": ["b/rank-0", "b/local_rank_1"],
        ".": ["rank_0", "rank_1"],
    }


def test_non_finite_values_from_an_event_file(tmp_path):
    steps = np.arange(400)
    loss = loss_curve(400, seed=3)
    loss[250:] = math.nan
    loss[100] = math.inf
    write_run(tmp_path, "diverged", {"Loss/train": (steps, loss)})
    client, _ = make_client(str(tmp_path))
    found = get(client, "/anomalies")["anomalies"]
    assert [(a["kind"], a["step"], a["endStep"]) for a in found] == [
        ("nonfinite", 100, 100),
        ("nonfinite", 250, 399),
    ]
    assert found[1]["evidence"]["nan"] == 150


def test_cached_per_series_and_recomputed_for_what_changed(
    tmp_path, monkeypatch
):
    n = 1000
    steps = np.arange(n)
    for run in ("a", "b"):
        write_run(
            tmp_path, run, {"loss": (steps, loss_curve(n, seed=ord(run)))}
        )
    client, plugin = make_client(str(tmp_path))
    calls = []
    real = anomaly_api.core.detect_series

    def counting(*args, **kwargs):
        calls.append(len(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(anomaly_api.core, "detect_series", counting)
    first = client.get(BASE + "/anomalies").get_data()
    assert len(calls) == 2
    assert client.get(BASE + "/anomalies").get_data() == first
    assert len(calls) == 2  # the answer was cached
    spiked = loss_curve(n, seed=ord("b"))[-10:] * np.r_[np.ones(9), 8.0]
    write_run(
        tmp_path,
        "b",
        {"loss": (np.arange(n, n + 10), spiked)},
        name="events.out.tfevents.1700000001.host.123.1",
    )
    plugin._loader.reload()
    body = json.loads(client.get(BASE + "/anomalies").get_data())
    assert calls == [n, n, n + 10]  # only run b was looked at again
    assert [(a["run"], a["step"]) for a in body["anomalies"]] == [("b", n + 9)]


def test_running_mean_resets_are_no_cliff_and_real_jumps_still_are(tmp_path):
    """Keras' `batch_accuracy`, a running mean since each epoch began, lags
    the per-batch accuracy while it learns fast in the first epoch, then
    jumps at the reset: the writer's arithmetic, not a cliff. The per-batch
    values (unrolled through the epoch map) are read instead; a real jump
    of the per-batch values is still found, at the step worked out here."""
    n, epochs = 200, 3
    rng = np.random.default_rng(11)
    step = np.arange(1, n * epochs + 1)
    per_batch = np.clip(0.3 + 0.6 * (1 - np.exp(-step / 60)), 0, 1)
    per_batch += 0.02 * rng.standard_normal(step.size)

    def running(values):
        return np.concatenate(
            [
                np.cumsum(values[k * n : (k + 1) * n]) / np.arange(1, n + 1)
                for k in range(epochs)
            ]
        )

    def write(root, values):
        train, val = [eventfiles.file_version_event()], [
            eventfiles.file_version_event()
        ]
        means = running(values)
        for s, m in zip(step, means):
            train.append(
                eventfiles.tf2_scalar_event("batch_accuracy", int(s), 1.0 + s, m)
            )
        for k in range(epochs):
            wall = 1.5 + n * (k + 1)
            train.append(
                eventfiles.tf2_scalar_event(
                    "epoch_accuracy", k, wall, means[(k + 1) * n - 1]
                )
            )
            val.append(eventfiles.tf2_scalar_event("epoch_accuracy", k, wall, 0.8))
            val.append(
                eventfiles.tf2_scalar_event(
                    "evaluation_accuracy_vs_iterations", n * (k + 1), wall, 0.8
                )
            )
        name = "events.out.tfevents.1700000000.host.1.0.v2"
        eventfiles.write(
            os.path.join(root, "fit", "train", name),
            eventfiles.record_bytes(train),
        )
        eventfiles.write(
            os.path.join(root, "fit", "validation", name),
            eventfiles.record_bytes(val),
        )

    write(tmp_path / "smooth", per_batch)
    client, _ = make_client(str(tmp_path / "smooth"))
    body = get(client, "/anomalies?run=fit/train&tag=batch_accuracy")
    assert body["anomalies"] == [], body["anomalies"]
    # A real jump of the per-batch accuracy at step 450 (epoch 2, batch
    # 50), from a flat 0.5 to 0.95 (a label leak, say): a cliff there.
    leak = 0.5 + 0.02 * rng.standard_normal(step.size)
    leak[step >= 450] += 0.45
    write(tmp_path / "leak", leak)
    client, _ = make_client(str(tmp_path / "leak"))
    body = get(client, "/anomalies?run=fit/train&tag=batch_accuracy")
    (cliff,) = [a for a in body["anomalies"] if a["kind"] == "cliff"]
    assert cliff["step"] <= 450 <= cliff["endStep"]
