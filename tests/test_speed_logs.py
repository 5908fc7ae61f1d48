"""Speed derived from wall time, end to end: real logs, the routes.

tests/data/speed/ (scripts/speed/):

    timed/        torch SummaryWriter with walltime= from a drawn schedule;
      every_step/ every_10/ resumed/ steady_1000/   truth.json: the schedule
    realtime/     the real clock: ms_steps/ ms_only/ (int(elapsed * 1000)
                  steps), ddp_shared/ (2 gloo ranks, one directory)
    frameworks/   keras_sps/{train,validation} (write_steps_per_second),
                  hf_sps/ (Trainer), mmengine_sps/<ts>/vis_data/, sb3_sps/A2C_1/

The timed runs must give the schedule's numbers within 1 %. The framework
runs are compared with what each framework logged about its own speed,
read here with TensorBoard's EventAccumulator (not our reader), within
the tolerance their definitions allow (README, "Training speed").
"""

import json
import os
import shutil

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.util import tensor_util

from tb_multiframework import wiring
from tb_multiframework.route_args import MAX_ARG_CHARS
from tests.conftest import ROOT, make_client

DATA = os.path.join(ROOT, "tests", "data", "speed")
TIMED = os.path.join(DATA, "timed")
REALTIME = os.path.join(DATA, "realtime")
FRAMEWORKS = os.path.join(DATA, "frameworks")


def stack_of(logdir):
    stack = wiring.build_stack(logdir, layouts=False)
    stack.loader.reload()
    return stack


def speeds(logdir):
    payload = stack_of(logdir).api.speed_payload(())
    return {r["run"]: r for r in payload["runs"]}


def logged(path, tag):
    """(steps, values) of a tag as TensorBoard itself reads it."""
    acc = event_accumulator.EventAccumulator(
        path, size_guidance={"scalars": 0, "tensors": 0}
    )
    acc.Reload()
    if tag in acc.Tags()["scalars"]:
        events = acc.Scalars(tag)
        values = [e.value for e in events]
    else:
        events = acc.Tensors(tag)
        values = [
            float(tensor_util.make_ndarray(e.tensor_proto)) for e in events
        ]
    return np.array([e.step for e in events]), np.array(values, np.float64)


@pytest.fixture(scope="module")
def timed():
    with open(os.path.join(TIMED, "truth.json")) as f:
        truth = json.load(f)["runs"]
    return speeds(TIMED), truth


@pytest.mark.parametrize("run", ["every_step", "every_10"])
def test_known_timings_within_one_percent(timed, run):
    got, truth = timed
    speed, want = got[run], truth[run]
    assert speed["loggedEvery"] == want["loggedEvery"]
    assert speed["steadyStepTime"] == pytest.approx(
        want["steadyStepTime"], rel=0.01
    )
    assert speed["medianStepTime"] == pytest.approx(
        want["medianStepTime"], rel=0.01
    )
    assert speed["totalSeconds"] == pytest.approx(
        want["totalSeconds"], rel=0.01
    )
    assert speed["samplesPerStep"] == want["samplesPerStep"] == 64
    assert speed["samplesPerSecond"] == pytest.approx(
        64 / want["steadyStepTime"], rel=0.01
    )
    pauses = [s for s in speed["stalls"] if s["kind"] != "resume"]
    # each pause is found in the logged interval holding it, its length
    # within 1 % (what a pause adds beyond typical steps)
    assert len(pauses) == len(want["pauses"])
    for found, pause in zip(pauses, want["pauses"]):
        assert found["step"] < pause["step"] <= found["endStep"]
        assert found["excess"] == pytest.approx(pause["seconds"], rel=0.01)
        epoch_end = pause["step"] % 100 == 0
        assert found["kind"] == ("epoch_end" if epoch_end else "pause")
    # warm-up: steps 1..3 at 1.2, 0.6, 0.3 s instead of a typical step
    (warm,) = speed["warmups"]
    assert warm["step"] == 0 and warm["endStep"] >= 3
    excess = 1.2 + 0.6 + 0.3 - 3 * want["steadyStepTime"]
    assert warm["excess"] == pytest.approx(excess, rel=0.01)
    epochs = {e["epoch"]: e["seconds"] for e in speed["epochs"]}
    assert sorted(epochs) == [1, 2, 3, 4, 5]
    for k, seconds in zip(range(1, 6), want["epochSeconds"]):
        assert epochs[k] == pytest.approx(seconds, rel=0.01)


def test_resumed_known_timings(timed):
    got, truth = timed
    speed, want = got["resumed"], truth["resumed"]
    assert speed["steadyStepTime"] == pytest.approx(
        want["steadyStepTime"], rel=0.01
    )
    assert speed["trainingSeconds"] == pytest.approx(
        sum(want["attemptSeconds"]), rel=0.01
    )
    assert speed["totalSeconds"] == pytest.approx(
        want["totalSeconds"], rel=0.01
    )
    (resume,) = [s for s in speed["stalls"] if s["kind"] == "resume"]
    assert resume["endStep"] == want["resumeStep"]
    assert resume["seconds"] == pytest.approx(
        want["resumeGapSeconds"], rel=0.01
    )
    assert [(w["attempt"], w["step"]) for w in speed["warmups"]] == [
        (0, 0),
        (1, 300),
    ]
    pauses = [s for s in speed["stalls"] if s["kind"] != "resume"]
    assert [p["endStep"] for p in pauses] == [p["step"] for p in want["pauses"]]
    for found, pause in zip(pauses, want["pauses"]):
        assert found["excess"] == pytest.approx(pause["seconds"], rel=0.01)


def test_a_steady_1000_steps_a_second_loop_is_steps(timed):
    got, truth = timed
    speed = got["steady_1000"]
    assert speed["steadyStepTime"] == pytest.approx(
        truth["steady_1000"]["steadyStepTime"], rel=0.01
    )
    (judged,) = speed["stepSemantics"]
    assert judged["kind"] == "steps" and "too regular" in judged["evidence"]
    assert speed["samplesPerStep"] is None
    assert "set samplesPerStep" in speed["samplesSource"]


def test_timestamp_steps_with_evidence_and_mixed_warning():
    got = speeds(REALTIME)
    mixed = got["ms_steps"]
    kinds = {s["tag"]: s for s in mixed["stepSemantics"]}
    assert kinds["perf/latency"]["kind"] == "timestamp"
    assert kinds["perf/latency"]["unit"] == "milliseconds"
    assert (
        "intervals advance 1000 steps a second"
        in kinds["perf/latency"]["evidence"]
    )
    assert "loss" not in kinds
    assert mixed["stream"] == "loss"  # never the timestamp tag
    assert any("mixed step semantics" in w for w in mixed["warnings"])
    only = got["ms_only"]
    assert {s["tag"] for s in only["stepSemantics"]} == {
        "perf/latency",
        "perf/queue",
    }
    assert only["stream"] == "" and only["medianStepTime"] is None
    assert not only["warnings"]


def test_timestamp_tags_only_on_time_axes():
    client, _ = make_client(REALTIME)
    for axis, excluded in [
        ("step", True),
        ("epoch", True),
        ("relative", False),
    ]:
        answer = client.get(
            "/data/plugin/tb_multiframework/scalars",
            query_string={"run": "ms_steps", "tag": "perf/latency", "x": axis},
        ).get_json()
        (series,) = answer["series"]
        if excluded:
            assert "steps are timestamps" in series["excluded"]
        else:
            assert not series.get("excluded")
            walls = series["x"]
            assert len(walls) == 150 and walls[0] >= 0
    runs = client.get("/data/plugin/tb_multiframework/runs").get_json()["runs"]
    entry = next(r for r in runs if r["run"] == "ms_steps")
    assert entry["speed"]["timestampTags"] == ["perf/latency"]
    assert any("mixed step semantics" in w for w in entry["warnings"])


def test_ranks_sharing_a_directory(tmp_path):
    logdir = tmp_path / "logs"
    shutil.copytree(os.path.join(REALTIME, "ddp_shared"), logdir / "ddp_shared")
    with open(os.path.join(REALTIME, "truth.json")) as f:
        files = json.load(f)["runs"]["ddp_shared"]["files"]
    got = speeds(str(logdir))["ddp_shared"]
    shared = got["sharedWriters"]
    assert shared["files"] == files
    assert "both logged steps in 0–199" in shared["evidence"][0]
    (warning,) = got["warnings"]
    assert files[0] in warning and files[1] in warning
    assert '"ddp_shared": {"filesAsRanks": true}' in warning
    # the offer taken: each file a rank, grouped, no warning left
    config = logdir / ".tb_multiframework" / "config.json"
    config.parent.mkdir()
    config.write_text(
        json.dumps({"runs": {"ddp_shared": {"filesAsRanks": True}}})
    )
    client, _ = make_client(str(logdir))
    runs = client.get("/data/plugin/tb_multiframework/runs").get_json()["runs"]
    assert [r["run"] for r in runs] == [
        "ddp_shared/rank_0",
        "ddp_shared/rank_1",
    ]
    for rank, entry in enumerate(runs):
        assert entry["files"] == [files[rank]]
        assert entry["group"] == "ddp_shared"
        assert entry["groupSource"] == "ddp ranks"
        assert entry["attempts"][0]["superseded"] == 0
        assert entry["numPoints"] == 400  # 200 steps x 2 tags
        assert not any("same time" in w for w in entry["warnings"])


def test_timed_runs_have_no_shared_directory_warning(timed):
    got, _ = timed
    # resumed/ holds two files of one process one after the other
    assert got["resumed"]["sharedWriters"] is None


# Real frameworks against their own figures.


@pytest.fixture(scope="module")
def frameworks():
    return speeds(FRAMEWORKS)


def test_keras_epoch_steps_per_second(frameworks):
    speed = frameworks["keras_sps/train"]
    steps_per_epoch = 40
    _, own = logged(
        os.path.join(FRAMEWORKS, "keras_sps", "train"), "epoch_steps_per_second"
    )
    assert [e["epoch"] for e in speed["epochs"]] == [1, 2, 3]
    for epoch in speed["epochs"]:
        derived = steps_per_epoch / epoch["seconds"]
        # ours: epoch end to epoch end; Keras: on_epoch_begin to on_epoch_end
        # (its own summary writes left out): measured 2-3 % apart
        assert derived == pytest.approx(own[epoch["epoch"]], rel=0.05)
        assert derived <= own[epoch["epoch"]] * 1.001


def test_keras_batch_figure_times_only_the_batch(frameworks):
    speed = frameworks["keras_sps/train"]
    _, own = logged(
        os.path.join(FRAMEWORKS, "keras_sps", "train"), "batch_steps_per_second"
    )
    # Keras times on_train_batch_begin -> end; the interval between two
    # batches adds the callbacks and input: never faster than Keras says.
    assert speed["stepsPerSecond"] < np.median(own[1:])
    assert speed["medianStepTime"] > 1 / np.median(own[1:])


def test_hf_trainer_steps_and_samples_per_second(frameworks):
    speed = frameworks["hf_sps"]
    path = os.path.join(FRAMEWORKS, "hf_sps")
    _, runtime = logged(path, "train/train_runtime")
    _, steps_ps = logged(path, "train/train_steps_per_second")
    _, samples_ps = logged(path, "train/train_samples_per_second")
    assert speed["samplesPerStep"] == 64
    assert "per_device_train_batch_size" in speed["samplesSource"]
    # HF: 200 steps / train() seconds, its setup and first logging window
    # included; ours: the logged span plus the 5 steps before the first log
    ours = speed["trainingSeconds"] + 5 * speed["meanStepTime"]
    assert ours == pytest.approx(runtime[0], rel=0.15)
    assert ours < runtime[0]
    assert 200 / ours == pytest.approx(steps_ps[0], rel=0.15)
    assert 64 * 200 / ours == pytest.approx(samples_ps[0], rel=0.15)


def test_mmengine_time(frameworks):
    (run,) = [r for r in frameworks if r.startswith("mmengine_sps")]
    speed = frameworks[run]
    _, own = logged(os.path.join(FRAMEWORKS, run), "time")
    # both: seconds an iteration over each 5-iteration logging window
    assert speed["loggedEvery"] == 5
    assert speed["medianStepTime"] == pytest.approx(np.median(own), rel=0.08)
    assert speed["meanStepTime"] == pytest.approx(np.mean(own), rel=0.08)
    units = {t["tag"]: t for t in speed["loggedSpeedTags"]}
    assert units["time"]["factor"] == 1.0


def test_sb3_fps(frameworks):
    (run,) = [r for r in frameworks if r.startswith("sb3_sps")]
    speed = frameworks[run]
    steps, fps = logged(os.path.join(FRAMEWORKS, run), "time/fps")
    # fps = steps since learn() / seconds since: the rate between two dumps
    elapsed = steps / fps
    rate = (steps[-1] - steps[0]) / (elapsed[-1] - elapsed[0])
    assert 1 / speed["meanStepTime"] == pytest.approx(rate, rel=0.02)


def test_logged_speed_tags_meet_derived_ones(frameworks):
    stack = stack_of(FRAMEWORKS)
    metrics = {m["key"]: m for m in stack.api.metrics()["metrics"]}
    members = {
        (m["run"], m["tag"])
        for m in metrics["throughput/steps_per_s"]["members"]
    }
    sb3 = next(r for r in frameworks if r.startswith("sb3_sps"))
    mm = next(r for r in frameworks if r.startswith("mmengine_sps"))
    assert {
        ("keras_sps/train", "batch_steps_per_second"),
        ("keras_sps/train", "epoch_steps_per_second"),
        ("hf_sps", "train/train_steps_per_second"),
        (sb3, "time/fps"),
        ("hf_sps", "[derived] throughput/steps_per_s"),
    } <= members
    step_time = {(m["run"], m["tag"]) for m in metrics["time/step"]["members"]}
    assert (mm, "time") in step_time and (
        mm,
        "[derived] time/step",
    ) in step_time
    derived = next(
        m
        for m in metrics["time/step"]["members"]
        if m["tag"] == "[derived] time/step"
    )
    assert derived["derivation"].startswith("derived from wall time")


# Routes.

BASE = "/data/plugin/tb_multiframework/"


@pytest.fixture(scope="module")
def timed_client():
    client, _ = make_client(TIMED)
    return client


def test_speed_route(timed_client, timed):
    _, truth = timed
    answer = timed_client.get(
        BASE + "speed", query_string={"run": ["every_10", "every_10"]}
    )
    assert answer.status_code == 200
    (entry,) = answer.get_json()["runs"]
    assert entry["run"] == "every_10"
    assert entry["stepsPerSecond"] == pytest.approx(
        1 / truth["every_10"]["steadyStepTime"], rel=0.01
    )
    assert entry["note"] == "derived from wall time"
    assert {d["metric"] for d in entry["derived"]} == {
        "time/step",
        "throughput/steps_per_s",
        "throughput/samples_per_s",
        "time/epoch",
        "time/elapsed",
    }
    every = timed_client.get(BASE + "speed").get_json()["runs"]
    assert [r["run"] for r in every] == [
        "every_10",
        "every_step",
        "resumed",
        "steady_1000",
    ]
    missing = timed_client.get(BASE + "speed", query_string={"run": "nope"})
    assert missing.status_code == 404 and "nope" in missing.get_json()["error"]
    # A long name that could be a run's is looked up (404); one past the
    # argument cap (route_args.MAX_ARG_CHARS) is refused unread (400).
    unknown = timed_client.get(BASE + "speed", query_string={"run": "x" * 5000})
    assert unknown.status_code == 404
    capped = timed_client.get(
        BASE + "speed", query_string={"run": "x" * (MAX_ARG_CHARS + 1)}
    )
    assert capped.status_code == 400 and "overlong" in capped.get_json()["error"]


def test_derived_metrics_in_compare_on_every_axis(timed_client, timed):
    _, truth = timed
    keys = {
        m["key"]
        for m in timed_client.get(BASE + "metrics").get_json()["metrics"]
    }
    assert {
        "time/step",
        "throughput/steps_per_s",
        "time/epoch",
        "time/elapsed",
    } <= keys
    for axis in ("step", "epoch", "relative", "wall", "progress"):
        answer = timed_client.get(
            BASE + "scalars",
            query_string={
                "metric": "time/epoch",
                "run": ["every_step", "every_10"],
                "x": axis,
                "baseline": "every_step",
            },
        ).get_json()
        by_run = {s["run"]: s for s in answer["series"]}
        assert by_run["every_step"]["tag"] == "[derived] time/epoch"
        assert by_run["every_step"]["y"] == pytest.approx(
            truth["every_step"]["epochSeconds"], rel=0.01
        )
        assert answer["diffs"] and not answer["diffs"][0].get("excluded")
    epoch = timed_client.get(
        BASE + "scalars",
        query_string={
            "metric": "time/epoch",
            "run": "every_step",
            "x": "epoch",
        },
    ).get_json()["series"][0]
    assert epoch["x"] == pytest.approx([2, 3, 4, 5, 6], abs=0.02)


def test_group_mean_of_derived_throughput(timed_client):
    query = {
        "metric": "throughput/steps_per_s",
        "run": ["every_step", "every_10"],
        "x": "step",
        "points": 20000,
    }
    single = timed_client.get(BASE + "scalars", query_string=query).get_json()
    own = {
        s["run"]: dict(zip(s["steps"], s["y"], strict=True))
        for s in single["series"]
    }
    grouped = timed_client.get(
        BASE + "scalars",
        query_string={
            **query,
            "aggregate": "mean",
            "groupBy": "hparam:batch_size",
            "band": "std",
        },
    ).get_json()
    (group,) = grouped["aggregates"]
    assert group["group"] == "batch_size=64"
    at = dict(zip(group["x"], zip(group["y"], group["lower"], group["count"])))
    for step in (100, 250, 430, 590):  # both runs logged these steps
        pair = [own["every_step"][step], own["every_10"][step]]
        mean, lower, count = at[step]
        assert count == 2
        assert mean == pytest.approx(np.mean(pair))
        assert mean - lower == pytest.approx(np.std(pair, ddof=1))


def test_speed_survives_a_restart_from_the_cache(tmp_path):
    found = []
    for _ in range(2):
        stack = wiring.build_stack(
            REALTIME, layouts=False, cache_dir=str(tmp_path)
        )
        stack.loader.reload()
        found.append({r["run"]: r for r in stack.api.speed_payload(())["runs"]})
    assert stack.loader.status().to_json()["cache"]["restoredRuns"] == 3
    assert found[1]["ddp_shared"]["sharedWriters"] == (
        found[0]["ddp_shared"]["sharedWriters"]
    )
    assert found[1]["ddp_shared"]["sharedWriters"] is not None
    assert found[1]["ms_steps"]["medianStepTime"] == (
        found[0]["ms_steps"]["medianStepTime"]
    )


def test_derived_tag_export_and_summary(timed_client):
    csv = timed_client.get(
        BASE + "export",
        query_string={
            "tag": "[derived] time/step",
            "run": "every_10",
            "format": "csv",
        },
    )
    assert csv.status_code == 200
    rows = csv.get_data(as_text=True).strip().split("\r\n")
    assert rows[0].startswith("x,run,tag,step")
    assert len(rows) == 1 + 60  # 61 logged points, 60 intervals
    summary = timed_client.get(
        BASE + "metric_summary", query_string={"metric": "time/step"}
    ).get_json()
    assert summary["direction"] == "min"
    runs = {r["run"] for r in summary["runs"]}
    assert {"every_step", "every_10", "resumed", "steady_1000"} <= runs


def test_runs_table_speed_fields(timed_client, timed):
    _, truth = timed
    runs = {
        r["run"]: r for r in timed_client.get(BASE + "runs").get_json()["runs"]
    }
    speed = runs["every_step"]["speed"]
    assert speed["medianStepTime"] == pytest.approx(
        truth["every_step"]["medianStepTime"], rel=0.01
    )
    assert speed["totalSeconds"] == pytest.approx(
        truth["every_step"]["totalSeconds"], rel=0.01
    )
    assert speed["stalls"] == 7
    assert runs["steady_1000"]["speed"]["samplesPerSecond"] is None


def test_layout_preview_matches_derived_metrics(timed_client):
    layout = {
        "name": "speed",
        "categories": [
            {
                "title": "speed",
                "charts": [{"title": "t", "metrics": ["time/step"]}],
            }
        ],
    }
    answer = timed_client.post(
        BASE + "layout_preview",
        json={"layout": layout},
        headers={"X-XSRF-Protected": "1"},
    ).get_json()
    matches = answer["charts"][0]["matches"]
    assert ("every_10", "[derived] time/step") in {
        (m["run"], m["tag"]) for m in matches
    }


def test_logged_step_time_in_milliseconds_is_converted(tmp_path):
    from tests.eventfiles import file_version_event, record_bytes, scalar_event

    rng = np.random.default_rng(4)
    walls = 1000 + np.cumsum(0.2 * (1 + rng.uniform(-0.02, 0.02, 100)))
    events = [file_version_event(999.0)]
    for step, wall in enumerate(walls):
        events.append(scalar_event("loss", step, wall, 1.0))
        events.append(scalar_event("perf/step_time", step, wall, 200.0))
    run = tmp_path / "run"
    run.mkdir()
    (run / "events.out.tfevents.1000.host.1.0").write_bytes(
        record_bytes(events)
    )
    client, _ = make_client(str(tmp_path))
    entry = client.get(BASE + "speed").get_json()["runs"][0]
    (tag,) = entry["loggedSpeedTags"]
    assert tag["tag"] == "perf/step_time" and tag["factor"] == 0.001
    assert "milliseconds" in tag["evidence"]
    series = client.get(
        BASE + "scalars", query_string={"run": "run", "metric": "time/step"}
    ).get_json()["series"]
    logged_series = next(s for s in series if s["tag"] == "perf/step_time")
    assert logged_series["y"] == pytest.approx(np.full(100, 0.2))
