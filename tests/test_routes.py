"""Every route through TensorBoard's WSGI app, including its 400/404 paths.

Expected numbers come from the demo ground truth or from numpy written here,
never from the code under test.
"""

import csv
import io
import json
import os

import numpy as np
import pytest

from tests.conftest import DEMO_LOGS, ROOT

BASE = "/data/plugin/tb_multiframework"
TRUTH = os.path.join(ROOT, "tests", "data", "demo_truth")
JSON_HEADERS = {"Content-Type": "application/json", "X-XSRF-Protected": "1"}


def get_json(client, path, status=200):
    response = client.get(BASE + path)
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return json.loads(response.get_data(as_text=True))


def truth(run_file, run_dir):
    with open(os.path.join(TRUTH, run_file + ".json")) as handle:
        return json.load(handle)["dirs"][run_dir]


def truth_dirs(run_file):
    with open(os.path.join(TRUTH, run_file + ".json")) as handle:
        return sorted(json.load(handle)["dirs"])


def test_runs_catalog(demo_client):
    body = get_json(demo_client, "/runs")
    runs = {r["run"]: r for r in body["runs"]}
    assert body["loading"] is False and body["errors"] == []
    expected = {
        "pytorch_sgd": ("pytorch", "torch.utils.tensorboard", "pytorch_sgd"),
        "keras_fit/train": ("tensorflow", "keras", "keras_fit"),
        "keras_fit/validation": ("tensorflow", "keras", "keras_fit"),
        "tf2_loop": ("tensorflow", "tf.summary", "tf2_loop"),
        "paddle_vdl": ("paddle", "visualdl", "paddle_vdl"),
        "paddle_hapi": ("paddle", "visualdl", "paddle_hapi"),
        "paddle_tbx": ("paddle", "tensorboardX", "paddle_tbx"),  # by config
    }
    torch_writer = ("pytorch", "torch.utils.tensorboard")
    expected["lightning_mlp/version_0"] = (
        *torch_writer,
        "lightning_mlp/version_0",
    )
    expected["hf_trainer"] = (*torch_writer, "hf_trainer")
    # The resumed run's add_scalars and add_hparams sub-runs join its group.
    for run_dir in truth_dirs("pytorch_resumed"):
        expected[run_dir] = (*torch_writer, "pytorch_resumed")
    assert set(expected) <= set(runs)
    assert {
        r: (runs[r]["framework"], runs[r]["writer"], runs[r]["group"])
        for r in expected
    } == expected
    torch_truth = truth("pytorch_sgd", "pytorch_sgd")
    assert runs["pytorch_sgd"]["numPoints"] == sum(
        len(t["steps"]) for t in torch_truth["scalars"].values()
    )
    assert runs["pytorch_sgd"]["numHistograms"] == sum(
        len(t["steps"]) for t in torch_truth["histograms"].values()
    )
    assert runs["pytorch_sgd"]["epochSource"] == "tag 'epoch'"
    assert runs["tf2_loop"]["hasEpochAxis"] is False
    assert "stepsPerEpoch" in runs["tf2_loop"]["epochSource"]
    assert runs["keras_fit/train"]["firstStep"] == 0
    assert runs["keras_fit/train"]["lastStep"] == 400
    # Only the resumed run's files log steps again (a second file after
    # purge_step); every other demo run reads clean.
    warned = {run for run, r in runs.items() if r["warnings"]}
    assert warned and all(run.startswith("pytorch_resumed") for run in warned)
    assert all(
        "logged twice (2 files" in w
        for run in warned
        for w in runs[run]["warnings"]
    )


def test_metrics_match_across_frameworks(demo_client):
    body = get_json(demo_client, "/metrics")
    by_key = {m["key"]: m for m in body["metrics"]}
    val_loss = {
        (m["run"], m["tag"]) for m in by_key["loss/val@epoch"]["members"]
    }
    assert {
        ("keras_fit/validation", "epoch_loss"),
        ("pytorch_sgd", "Loss/val"),
        ("paddle_hapi", "eval/loss"),
        ("paddle_vdl", "Eval/Loss"),
        ("tf2_loop", "val/loss"),
    } <= val_loss
    train_batch = {
        (m["run"], m["tag"]) for m in by_key["loss/train@batch"]["members"]
    }
    assert ("keras_fit/train", "batch_loss") in train_batch
    assert ("pytorch_sgd", "Loss/train") in train_batch


def test_scalars_keep_every_point_and_the_spike(demo_client):
    body = get_json(
        demo_client, "/scalars?run=pytorch_sgd&tag=Loss/train&points=10"
    )
    (series,) = body["series"]
    expected = truth("pytorch_sgd", "pytorch_sgd")["scalars"]["Loss/train"]
    assert series["total"] == len(expected["steps"])
    assert series["returned"] < series["total"]
    # The spike at step 217 survives 10 buckets as a bucket maximum.
    spike = float(np.float32(max(expected["values"])))
    assert max(series["yMax"]) == pytest.approx(spike)
    assert (
        expected["steps"][int(np.argmax(expected["values"]))] in series["steps"]
    )


def test_scalars_epoch_axis_and_baseline_diff(demo_client):
    body = get_json(
        demo_client,
        "/scalars?metric=loss/val@epoch&run=pytorch_sgd&run=keras_fit/validation"
        "&run=tf2_loop&x=epoch&baseline=pytorch_sgd",
    )
    series = {(s["run"], s["tag"]): s for s in body["series"]}
    keras = series[("keras_fit/validation", "epoch_loss")]
    # Keras epoch_loss of epoch k sits at k + 1 (docs/conventions.md).
    assert keras["x"] == [float(k + 1) for k in range(8)]
    torch_val = series[("pytorch_sgd", "Loss/val")]
    # PyTorch logs Loss/val at steps 49, 99, ..., the last batch of each epoch
    # of 50 batches: the epoch staircase puts them at k + 50/50 = k + 1.
    assert torch_val["x"] == pytest.approx([float(k + 1) for k in range(8)])
    assert "excluded" in series[("tf2_loop", "val/loss")]
    (diff,) = [
        d
        for d in body["diffs"]
        if (d["run"], d["tag"]) == ("keras_fit/validation", "epoch_loss")
    ]
    want = np.array(keras["y"]) - np.array(torch_val["y"])
    np.testing.assert_allclose(diff["y"], want, rtol=1e-12)


def test_scalars_missing_tag_is_reported_not_fatal(demo_client):
    body = get_json(
        demo_client, "/scalars?run=pytorch_sgd&run=paddle_vdl&tag=Loss/train"
    )
    assert [s["run"] for s in body["series"]] == ["pytorch_sgd", "paddle_vdl"]
    body = get_json(
        demo_client, "/scalars?run=pytorch_sgd&run=keras_fit/train&tag=epoch"
    )
    assert body["missing"] == [
        {
            "run": "keras_fit/train",
            "reason": "no scalar tag 'epoch'",
            "reasonMessage": {
                "id": "evidence.scalars.noScalarTag",
                "params": {"tag": "'epoch'"},
            },
        }
    ]



@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("/scalars?run=pytorch_sgd", 400, "exactly one of"),
        ("/scalars?run=pytorch_sgd&tag=a&metric=b", 400, "exactly one of"),
        ("/scalars?run=pytorch_sgd&tag=Loss/train&x=time", 400, "'time'"),
        ("/scalars?run=pytorch_sgd&tag=Loss/train&points=-1", 400, "points"),
        ("/scalars?run=pytorch_sgd&tag=Loss/train&points=abc", 400, "integer"),
        ("/scalars?run=pytorch_sgd&tag=Loss/train&smoothing=1", 400, "[0, 1)"),
        (
            "/scalars?run=pytorch_sgd&tag=Loss/train&smoothing=nan",
            400,
            "finite",
        ),
        ("/scalars?run=pytorch_sgd&tag=Loss/train&xMin=1", 400, "xMax"),
        (
            "/scalars?run=pytorch_sgd&tag=Loss/train&baseline=tf2_loop",
            400,
            "baseline",
        ),
        ("/scalars?run=nope&tag=Loss/train", 404, "unknown run"),
        ("/scalars?run=pytorch_sgd&tag=nope", 404, "nope"),
        ("/scalars?metric=nope", 404, "unknown metric"),
        ("/export?run=pytorch_sgd&tag=Loss/train&format=xml", 400, "format"),
        ("/histograms?run=pytorch_sgd", 400, "'tag'"),
        ("/histograms?run=pytorch_sgd&tag=nope", 404, "nope"),
        ("/histograms?run=nope&tag=x", 404, "unknown run"),
        (
            "/histogram_diff?runA=pytorch_sgd&tagA=weights/fc1.weight",
            400,
            "runB",
        ),
        (
            "/histogram_diff?runA=pytorch_sgd&tagA=weights/fc1.weight"
            "&runB=paddle_vdl&tagB=Params/fc1.weight&bins=0",
            400,
            "bins",
        ),
        (
            "/histogram_diff?runA=pytorch_sgd&tagA=weights/fc1.weight"
            "&runB=paddle_vdl&tagB=Params/fc1.weight&at=inf",
            400,
            "finite",
        ),
        (
            "/histogram_distances?runA=tf2_loop&tagA=mlp/fc1/kernel"
            "&runB=paddle_vdl&tagB=Params/fc1.weight&x=epoch",
            400,
            "no place on axis epoch",
        ),
        ("/histogram_pairs?runA=pytorch_sgd&runB=nope", 404, "unknown run"),
        ("/static/../setup.py", 400, "invalid static path"),
        ("/static/nope.js", 404, "no static file"),
    ],
)
def test_bad_arguments_answer_json_errors(demo_client, query, status, words):
    body = get_json(demo_client, query, status)
    if words is not None:
        assert words in body["error"]


def test_export_csv_has_every_point(demo_client):
    response = demo_client.get(
        BASE
        + "/export?run=paddle_vdl&run=keras_fit/train&metric=loss/train@batch&format=csv"
    )
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    by_run = {}
    for row in rows:
        by_run.setdefault((row["run"], row["tag"]), []).append(
            float(row["value"])
        )
    keras = truth("keras_fit", "keras_fit/train")["scalars"]["batch_loss"]
    np.testing.assert_array_equal(
        by_run[("keras_fit/train", "batch_loss")],
        np.float32(keras["values"]).astype(float),
    )
    xs = [float(r["x"]) for r in rows]
    assert xs == sorted(xs)


def test_histograms_and_diff_match_numpy(demo_client):
    body = get_json(
        demo_client,
        "/histograms?run=pytorch_sgd&tag=weights/fc1.weight&x=epoch",
    )
    expected = truth("pytorch_sgd", "pytorch_sgd")["histograms"][
        "weights/fc1.weight"
    ]
    assert [s["step"] for s in body["steps"]] == expected["steps"]
    assert [sum(s["counts"]) for s in body["steps"]] == expected["counts_total"]
    assert [s["x"] for s in body["steps"]] == pytest.approx(
        [k + 1.0 for k in range(len(expected["steps"]))]
    )
    diff = get_json(
        demo_client,
        "/histogram_diff?runA=pytorch_sgd&tagA=weights/fc1.weight"
        "&runB=keras_fit/train&tagB=mlp/fc1/kernel/histogram&x=epoch&at=3&bins=40",
    )
    assert diff["a"]["x"] == pytest.approx(3.0) and diff["b"][
        "x"
    ] == pytest.approx(3.0)
    assert len(diff["edges"]) == 41
    # Both tensors hold 640 elements; the rebinned counts keep the totals.
    assert sum(diff["countsA"]) == pytest.approx(640) and sum(
        diff["countsB"]
    ) == pytest.approx(640)
    np.testing.assert_allclose(
        diff["diff"], np.array(diff["countsA"]) - np.array(diff["countsB"])
    )
    d = diff["distances"]
    assert (
        0 <= d["jensenShannon"] <= 1
        and 0 <= d["ks"] <= 1
        and d["wasserstein"] >= 0
    )
    series = get_json(
        demo_client,
        "/histogram_distances?runA=pytorch_sgd&tagA=weights/fc1.weight"
        "&runB=keras_fit/train&tagB=mlp/fc1/kernel/histogram&x=epoch",
    )
    assert series["positions"] == pytest.approx([k + 1.0 for k in range(8)])
    pairs = get_json(
        demo_client, "/histogram_pairs?runA=pytorch_sgd&runB=keras_fit/train"
    )
    paired = {p["tagA"]: p["tagB"] for p in pairs["pairs"]}
    assert paired["weights/fc1.weight"] == "mlp/fc1/kernel/histogram"
    assert paired["weights/fc2.bias"] == "mlp/fc2/bias/histogram"


def test_layouts_imported_and_saved_with_xsrf_rules(demo_client, demo_copy):
    body = get_json(demo_client, "/layouts")
    assert body["layouts"] == [] and body["writable"] is True
    assert body["path"] == os.path.join(
        demo_copy, ".tb_multiframework", "layouts.json"
    )
    titles = [c["title"] for c in body["imported"]["categories"]]
    assert "Loss" in titles
    layout = {
        "name": "mine",
        "categories": [
            {
                "title": "losses",
                "charts": [
                    {
                        "title": "val",
                        "kind": "multiline",
                        "tags": ["Loss/val", "epoch_loss"],
                    }
                ],
            }
        ],
    }
    payload = json.dumps({"layout": layout})
    refused = [
        demo_client.post(
            BASE + "/layouts",
            data=payload,
            headers={"Content-Type": "application/json"},
        ),
        demo_client.post(
            BASE + "/layouts",
            data={"layout": payload},
            headers={"X-XSRF-Protected": "1"},
        ),
        demo_client.post(BASE + "/layouts", data="{", headers=JSON_HEADERS),
        demo_client.post(
            BASE + "/layouts",
            data=json.dumps({"layout": dict(layout, name="")}),
            headers=JSON_HEADERS,
        ),
        demo_client.post(
            BASE + "/layouts",
            data=json.dumps(
                {
                    "layout": {
                        **layout,
                        "categories": [
                            {
                                "title": "t",
                                "charts": [
                                    {
                                        "title": "c",
                                        "kind": "multiline",
                                        "tags": ["[bad"],
                                    }
                                ],
                            }
                        ],
                    }
                }
            ),
            headers=JSON_HEADERS,
        ),
    ]
    assert [r.status_code for r in refused] == [403, 403, 400, 400, 400]
    assert "position" in json.loads(refused[-1].get_data())["error"]
    assert not os.path.exists(body["path"])
    saved = demo_client.post(
        BASE + "/layouts", data=payload, headers=JSON_HEADERS
    )
    assert saved.status_code == 200
    assert [
        x["name"] for x in get_json(demo_client, "/layouts")["layouts"]
    ] == ["mine"]
    assert demo_client.delete(BASE + "/layouts?name=mine").status_code == 403
    assert (
        demo_client.delete(
            BASE + "/layouts?name=mine", headers=JSON_HEADERS
        ).status_code
        == 200
    )
    assert (
        demo_client.delete(
            BASE + "/layouts?name=mine", headers=JSON_HEADERS
        ).status_code
        == 404
    )
    assert demo_client.put(BASE + "/layouts").status_code == 405


def test_layout_preview_matches_tags_and_explains_bad_regexes(demo_client):
    layout = {
        "name": "p",
        "categories": [
            {
                "title": "c",
                "charts": [
                    {
                        "title": "ok",
                        "kind": "multiline",
                        "tags": ["Loss/v.*", "epoch_loss"],
                    },
                    {
                        "title": "bad",
                        "kind": "multiline",
                        "tags": ["(unclosed"],
                    },
                ],
            }
        ],
    }
    response = demo_client.post(
        BASE + "/layout_preview",
        data=json.dumps({"layout": layout}),
        headers=JSON_HEADERS,
    )
    assert response.status_code == 200
    charts = json.loads(response.get_data())["charts"]
    matched = {(m["run"], m["tag"]) for m in charts[0]["matches"]}
    assert ("pytorch_sgd", "Loss/val") in matched
    assert ("keras_fit/validation", "epoch_loss") in matched
    assert charts[1]["regexErrors"][0]["pattern"] == "(unclosed"


def test_static_files_and_entry(demo_client):
    index = demo_client.get(BASE + "/index.js")
    assert index.status_code == 200 and index.mimetype == "text/javascript"
    uplot = demo_client.get(BASE + "/static/vendor/uplot/uPlot.esm.js")
    assert uplot.status_code == 200


def test_garbage_file_is_a_run_warning_not_an_error(tmp_path):
    from tests import eventfiles
    from tests.conftest import make_client

    eventfiles.write(
        str(tmp_path / "bad" / eventfiles.TORCH_NAME), b"\x00garbage" * 100
    )
    eventfiles.write(
        str(tmp_path / "good" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes([eventfiles.scalar_event("loss", 1, 1.0, 0.5)]),
    )
    client, _ = make_client(str(tmp_path))
    runs = {r["run"]: r for r in get_json(client, "/runs")["runs"]}
    assert runs["bad"]["warnings"] and runs["good"]["warnings"] == []
    body = get_json(client, "/scalars?run=good&tag=loss")
    assert body["series"][0]["y"] == [0.5]


def test_demo_logs_are_not_modified_by_the_suite():
    assert not os.path.exists(
        os.path.join(DEMO_LOGS, ".tb_multiframework", "layouts.json")
    )


def test_cached_answer_is_replaced_after_a_reload_with_new_points(tmp_path):
    from tests import eventfiles
    from tests.conftest import make_client

    path = str(tmp_path / "r" / eventfiles.TORCH_NAME)
    events = [
        eventfiles.scalar_event("loss", i, 1.0, float(i)) for i in range(6)
    ]
    eventfiles.write(path, eventfiles.record_bytes(events[:3]))
    client, plugin = make_client(str(tmp_path))
    first = get_json(client, "/scalars?run=r&tag=loss")
    again = get_json(client, "/scalars?run=r&tag=loss")
    assert first == again and first["series"][0]["y"] == [0.0, 1.0, 2.0]
    eventfiles.write(path, eventfiles.record_bytes(events[3:]), mode="ab")
    plugin._loader.reload()
    after = get_json(client, "/scalars?run=r&tag=loss")
    assert after["series"][0]["y"] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert after["dataVersion"] > first["dataVersion"]


def test_epoch_map_follows_a_run_that_grows(tmp_path):
    """Epoch maps are kept per run version: a grown run gets a new one."""
    from tests import eventfiles
    from tests.conftest import make_client

    def epoch_events(epochs):
        return [
            eventfiles.scalar_event(
                "epoch", step, 1.0 + step, float(step // 10)
            )
            for step in range(10 * epochs)
        ]

    path = str(tmp_path / "r" / eventfiles.TORCH_NAME)
    other = str(tmp_path / "s" / eventfiles.TORCH_NAME)
    eventfiles.write(path, eventfiles.record_bytes(epoch_events(1)))
    eventfiles.write(other, eventfiles.record_bytes(epoch_events(3)))
    client, plugin = make_client(str(tmp_path))
    runs = {r["run"]: r for r in get_json(client, "/runs")["runs"]}
    assert runs["r"]["hasEpochAxis"] is False  # one epoch: no steps/epoch
    assert runs["s"]["hasEpochAxis"] is True
    eventfiles.write(
        path, eventfiles.record_bytes(epoch_events(3)[10:]), mode="ab"
    )
    plugin._loader.reload()
    runs = {r["run"]: r for r in get_json(client, "/runs")["runs"]}
    assert runs["r"]["hasEpochAxis"] is True
    body = get_json(client, "/scalars?run=r&tag=epoch&x=epoch")
    # Step s of a 10-step epoch is after s + 1 batches: x = (s + 1) / 10.
    np.testing.assert_allclose(body["series"][0]["x"], (np.arange(30) + 1) / 10)
