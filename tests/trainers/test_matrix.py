"""The trainer matrix: every inference right, or unknown with a reason.

The logs in tests/data/trainers/ were written by the libraries' own code
(scripts/trainers/, one generator per trainer); the truth files beside them
were recorded at the writer, with what the training loop was doing at each
call, independently of any reader (scripts/trainers/truth.py). Here the
plugin reads the whole directory, as a user's logdir, and every claim it
makes is checked against the truth:

* every point logged is served (current points exactly the truth's current
  ones: nothing hidden unless a later attempt logged its step again), and
  no served series mixes two loops;
* the epoch position of every point is the truth's, or the series is
  excluded with a reason (never a made-up axis);
* framework, trainer, parent, resumes: right, or unknown;
* split, level and aggregation of every metric member: right or unknown.

A check of the truth itself against TensorBoard's own reader keeps the
truth honest about what the files hold.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import urllib.parse

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator

from tests.conftest import ROOT, make_client

LOGDIR = os.path.join(ROOT, "tests", "data", "trainers")
TRUTH_DIR = os.path.join(LOGDIR, "truth")
BASE = "/data/plugin/tb_multiframework"


def load_truth() -> dict[str, dict]:
    runs = {}
    for path in sorted(glob.glob(os.path.join(TRUTH_DIR, "*.json"))):
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
        for run, entry in doc["runs"].items():
            runs[run] = {**entry, "matrix": doc["trainer"]}
    return runs


TRUTH = load_truth()


@pytest.fixture(scope="module")
def client():
    client, _ = make_client(LOGDIR)
    return client


def get(client, path, **args):
    query = urllib.parse.urlencode(args, doseq=True)
    response = client.get(f"{BASE}/{path}?{query}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


@pytest.fixture(scope="module")
def runs(client):
    return {r["run"]: r for r in get(client, "runs")["runs"]}


@pytest.fixture(scope="module")
def members(client):
    found = {}
    for entry in get(client, "metrics")["metrics"]:
        for member in entry["members"]:
            found[(member["run"], member["tag"])] = member
    return found


def f32(value: float) -> float:
    return float(np.float32(value))


def truth_points(run: str, tag: str) -> list[dict]:
    series = TRUTH[run]["tags"][tag]
    keys = ("steps", "values", "loop", "epoch", "batch", "x", "current")
    return [dict(zip(keys, row)) for row in zip(*(series[k] for k in keys))]


def served(client, run, tag, x="step", attempts="current"):
    (series,) = [
        s
        for s in get(
            client,
            "scalars",
            run=run,
            tag=tag,
            x=x,
            points=20000,
            attempts=attempts,
        )["series"]
        if not s.get("superseded")
    ]
    return series


def served_names(runs, run, tag):
    """The raw tag and its loops' names (`<tag> ⟨loop k⟩`)."""
    return [
        name
        for name in runs[run]["scalarTags"]
        if name == tag or name.startswith(tag + " \u27e8loop ")
    ]


CASES = [(run, tag) for run in sorted(TRUTH) for tag in sorted(TRUTH[run]["tags"])]


def test_the_matrix_covers_every_trainer():
    matrices = {entry["matrix"] for entry in TRUTH.values()}
    assert matrices >= {
        "mmengine",
        "sb3",
        "ignite",
        "accelerate",
        "vdl_loops",
        "keras_freq",
        "tbx_subruns",
        "restart",
    }


TFEVENTS_RUNS = sorted(
    run
    for run in TRUTH
    if glob.glob(os.path.join(LOGDIR, run, "events.out.tfevents.*"))
)


def test_visualdl_runs_are_the_only_ones_tensorboard_cannot_check():
    assert set(TRUTH) - set(TFEVENTS_RUNS) == {"vdl_det_style", "vdl_ocr_style"}


@pytest.mark.parametrize("run", TFEVENTS_RUNS)
def test_truth_matches_tensorboards_reader(run):
    """What the truth says was logged is what TensorBoard reads back.

    (VisualDL files: their truth is checked by the served points alone.)
    """
    directory = os.path.join(LOGDIR, run)
    acc = event_accumulator.EventAccumulator(
        directory,
        size_guidance={
            event_accumulator.SCALARS: 0,
            event_accumulator.TENSORS: 0,
        },
        purge_orphaned_data=False,
    )
    acc.Reload()
    tags = acc.Tags()
    for tag, series in TRUTH[run]["tags"].items():
        if tag in tags["scalars"]:
            got = [(e.step, e.value) for e in acc.Scalars(tag)]
        else:
            got = [
                (e.step, float(np.asarray(e.tensor_proto.float_val or [0])[0]))
                if e.tensor_proto.float_val
                else (e.step, float(_tensor_value(e.tensor_proto)))
                for e in acc.Tensors(tag)
            ]
        want = [(s, f32(v)) for s, v in zip(series["steps"], series["values"])]
        assert sorted(got) == sorted(want), (run, tag)


def _tensor_value(proto):
    from tensorboard.util import tensor_util

    return tensor_util.make_ndarray(proto).item()


@pytest.mark.parametrize(("run", "tag"), CASES)
def test_every_point_is_served_and_loops_are_not_mixed(client, runs, run, tag):
    want = collections.Counter(
        (p["steps"], f32(p["values"])) for p in truth_points(run, tag) if p["current"]
    )
    loop_of = {
        (p["steps"], f32(p["values"])): p["loop"] for p in truth_points(run, tag)
    }
    got = collections.Counter()
    for name in served_names(runs, run, tag):
        series = served(client, run, name)
        points = list(zip(series["steps"], map(f32, series["y"])))
        got.update(points)
        assert len({loop_of[p] for p in points}) == 1, (name, "mixes loops")
    assert got == want, (run, tag)


@pytest.mark.parametrize(("run", "tag"), CASES)
def test_epoch_positions_are_right_or_abstained(client, runs, run, tag):
    truth = {
        (p["steps"], f32(p["values"])): p["x"]
        for p in truth_points(run, tag)
        if p["current"]
    }
    for name in served_names(runs, run, tag):
        series = served(client, run, name, x="epoch")
        if series.get("excluded"):
            assert series["excluded"], name  # abstained, with its reason
            continue
        for step, y, x in zip(series["steps"], series["y"], series["x"]):
            expected = truth[(step, f32(y))]
            assert expected is not None, (
                f"{run} {name}: placed at epoch {x} but the run has no "
                "epochs"
            )
            assert x == pytest.approx(expected, abs=1e-9), (run, name, step)


@pytest.mark.parametrize("run", sorted(TRUTH))
def test_run_claims_are_right_or_unknown(runs, run):
    truth, got = TRUTH[run], runs[run]
    assert got["writer"] == truth["writer"]
    assert got["framework"] in (truth["framework"], "unknown")
    if got["framework"] == "unknown":
        assert got["inferences"]["framework"]["status"] == "unknown"
        assert got["inferences"]["framework"]["reason"]
    assert got["trainer"] in (truth["trainer"] or "", ""), run
    if not got["trainer"]:
        assert got["inferences"]["trainer"]["reason"]
    assert got["parent"] == (truth["parent"] or "")
    assert got["subRun"] == (truth["subRun"] or "")
    resumed = [a["startStep"] for a in got["attempts"] if a["attempt"] > 0]
    assert resumed == [r["step"] for r in truth["resumes"]]
    assert got["inferences"]["resume"]["value"] is bool(truth["resumes"])
    if not got["hasEpochAxis"]:
        axis = got["inferences"]["epochAxis"]
        assert axis["status"] == "unknown" and axis["reason"]
        assert "stepsPerEpoch" in axis["howToSet"]


def _loop_split(point):
    return "train" if point["loop"] == "train" else "val"


@pytest.mark.parametrize(("run", "tag"), CASES)
def test_split_level_aggregation_are_right_or_unknown(
    runs, members, run, tag
):
    series = TRUTH[run]["tags"][tag]
    points = truth_points(run, tag)
    for name in served_names(runs, run, tag):
        member = members.get((run, name))
        if member is None:
            continue  # not a metric (an epoch counter's alias, ...)
        if member["aggregation"] == "counter":
            # an epoch counter: the axis' source, no split, not a metric
            assert series["aggregation"] == "counter", (run, name)
            continue
        if series["split"] == "per_loop":
            loops = {p["loop"] for p in points}
            # loop 0 is the training loop here (the larger steps)
            loop = "train" if name == tag else "val"
            assert loop in loops
            split = loop
            level = "batch" if loop == "train" else "epoch"
            aggregation = None
        else:
            split = series["split"]
            level = series["level"]
            aggregation = series["aggregation"]
        assert member["split"] in (split, None), (run, name, member)
        if member["split"] is None:
            assert (
                "split unknown" in member["derivation"]
                or "belongs to no split" in member["derivation"]
            )
        assert member["level"] in (level, None), (run, name, member)
        if aggregation is not None:
            assert member["aggregation"] in (aggregation, "unknown"), (
                run,
                name,
                member,
            )
        else:
            assert member["aggregation"] == "unknown", (run, name)
