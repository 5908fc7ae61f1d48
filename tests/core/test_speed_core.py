"""core/speed.py, step_semantics.py, writers.py, speed_tags.py on arrays
whose right answers are written out by hand."""

import numpy as np
import pytest

from tb_multiframework.core.speed import (
    AttemptSpan,
    choose_stream,
    derive_speed,
    derived_name,
    derived_tag,
)
from tb_multiframework.core.speed_tags import (
    check_step_time_unit,
    samples_per_step,
    speed_tag,
)
from tb_multiframework.core.step_semantics import (
    classify_steps,
    mixed_semantics_warning,
)
from tb_multiframework.core.types import RunInfo
from tb_multiframework.core.writers import (
    FileSpan,
    shared_writers,
    writer_process,
)


def steady_run(n, every, step_time, start=1000.0, pauses=None):
    """Steps 0, every, 2*every, ... with constant step time; `pauses`
    maps a step to seconds spent just before it."""
    pauses = pauses or {}
    steps = np.arange(0, n, every)
    walls = []
    t = start
    prev = 0
    for s in steps:
        t += (s - prev) * step_time + sum(
            v for k, v in pauses.items() if prev < k <= s
        )
        walls.append(t)
        prev = s
    return steps, np.array(walls)


def test_every_n_steps_with_a_stall():
    steps, walls = steady_run(1000, 10, 0.05, pauses={505: 7.0})
    speed = derive_speed("loss", steps, walls)
    assert speed.logged_every == 10
    assert speed.median_step_time == pytest.approx(0.05)
    assert speed.steady_step_time == pytest.approx(0.05)
    # 99 intervals of 10 steps: 990 steps in 49.5 s plus the 7 s stall
    assert speed.mean_step_time == pytest.approx((990 * 0.05 + 7) / 990)
    assert [(s.step, s.end_step, s.kind) for s in speed.stalls] == [
        (500, 510, "pause")
    ]
    assert speed.stalls[0].excess == pytest.approx(7.0)
    assert speed.total_seconds == pytest.approx(990 * 0.05 + 7)
    assert speed.steps_per_second == pytest.approx(20.0)
    assert speed.warmups == ()
    ts = speed.series["time/step"]
    assert ts.steps.tolist() == list(range(10, 1000, 10))
    assert ts.values[ts.steps.tolist().index(510)] == pytest.approx(0.75)
    rate = speed.series["throughput/steps_per_s"].values
    assert rate == pytest.approx(1 / ts.values)


def test_small_noise_is_not_a_stall_but_a_pause_of_two_steps_is():
    rng = np.random.default_rng(0)
    dt = 0.1 * (1 + rng.uniform(-0.05, 0.05, 300))
    dt[150] += 0.25  # 2.5 typical steps
    dt[200] += 0.12  # 1.2: not "well above"
    walls = 50.0 + np.cumsum(dt)
    speed = derive_speed("loss", np.arange(300), walls)
    assert [s.end_step for s in speed.stalls] == [150]


def test_warmup_of_each_attempt_and_a_resume():
    a_steps, a_walls = steady_run(200, 1, 0.1)
    a_walls[1:4] += np.cumsum([1.0, 0.5, 0.2])  # steps 1..3 slow
    a_walls[4:] += 1.7
    b_steps = np.arange(150, 300)
    b_walls = a_walls[-1] + 60 + (b_steps - 150) * 0.1
    b_walls[1:3] += np.cumsum([0.8, 0.4])
    b_walls[3:] += 1.2
    # current points: attempt 0 up to 149, attempt 1 from 150
    keep = a_steps < 150
    steps = np.concatenate([a_steps[keep], b_steps])
    walls = np.concatenate([a_walls[keep], b_walls])
    attempts = np.concatenate([np.zeros(keep.sum()), np.ones(150)]).astype(int)
    spans = [
        AttemptSpan(0, a_walls[0], a_walls[-1], 0, 199),
        AttemptSpan(1, b_walls[0], b_walls[-1], 150, 299),
    ]
    speed = derive_speed(
        "loss", steps, walls, attempts=attempts, attempt_spans=spans
    )
    assert [(w.attempt, w.step, w.end_step) for w in speed.warmups] == [
        (0, 0, 3),
        (1, 150, 152),
    ]
    assert speed.warmups[0].seconds == pytest.approx(0.3 + 1.7)
    assert speed.warmups[0].excess == pytest.approx(1.7)
    assert speed.warmups[1].excess == pytest.approx(1.2)
    resume = [s for s in speed.stalls if s.kind == "resume"]
    assert [(s.step, s.end_step) for s in resume] == [(199, 150)]
    assert resume[0].seconds == pytest.approx(60.0)
    assert speed.steady_step_time == pytest.approx(0.1)
    # the interval 149 -> 150 crosses the attempts: no step time there
    assert 150 not in speed.series["time/step"].steps.tolist()
    assert speed.training_seconds == pytest.approx(
        (a_walls[-1] - a_walls[0]) + (b_walls[-1] - b_walls[0])
    )
    assert speed.total_seconds == pytest.approx(b_walls[-1] - a_walls[0])


def test_overlapping_attempts_count_their_union_once():
    steps, walls = steady_run(100, 1, 0.1)
    spans = [
        AttemptSpan(0, 0.0, 10.0, 0, 99),
        AttemptSpan(1, 5.0, 12.0, 0, 99),
    ]
    speed = derive_speed("loss", steps, walls, attempt_spans=spans)
    assert speed.training_seconds == pytest.approx(12.0)
    assert not [s for s in speed.stalls if s.kind == "resume"]


def test_epochs_from_the_stream_put_the_pause_in_the_epoch_it_ends():
    # 50 steps an epoch, logged every step (0-based, x = (s + 1) / 50),
    # 0.2 s a step, a 5 s evaluation after each epoch's last step
    pauses = {k * 50: 5.0 for k in range(1, 4)}
    steps, walls = steady_run(200, 1, 0.2, pauses=pauses)
    speed = derive_speed("loss", steps, walls, epoch_x=(steps + 1) / 50)
    kinds = {s.end_step: s.kind for s in speed.stalls}
    assert kinds == {50: "epoch_end", 100: "epoch_end", 150: "epoch_end"}
    # epoch k (k = 1, 2) starts with its first step, after epoch k-1's
    # evaluation, and ends after its own: 50 steps + 5 s
    got = {e.epoch: e.seconds for e in speed.epochs}
    assert got[1] == pytest.approx(50 * 0.2 + 5)
    assert got[2] == pytest.approx(50 * 0.2 + 5)
    # the last epoch ends with its last logged step: no evaluation after
    assert got[3] == pytest.approx(49 * 0.2 + 0.2)
    assert speed.series["time/epoch"].values == pytest.approx(
        [15.0, 15.0, 10.0]
    )


def test_epochs_from_epoch_end_points_win():
    steps, walls = steady_run(200, 1, 0.2)
    ends = (np.array([0, 1, 2, 3]), np.array([1010.0, 1021.0, 1033.0, 1043.5]))
    speed = derive_speed(
        "loss", steps, walls, epoch_x=(steps + 1) / 50, epoch_ends=ends
    )
    assert [(e.epoch, e.seconds) for e in speed.epochs] == [
        (1, 11.0),
        (2, 12.0),
        (3, 10.5),
    ]
    # the series sits at the stream's step of each epoch's end
    assert speed.series["time/epoch"].steps.tolist() == [99, 149, 199]


def test_only_epoch_level_points():
    ends = (np.array([0, 1, 2]), np.array([5.0, 9.0, 14.0]))
    speed = derive_speed("", np.empty(0, int), np.empty(0), epoch_ends=ends)
    assert speed.median_step_time is None
    assert [(e.epoch, e.seconds) for e in speed.epochs] == [(1, 4.0), (2, 5.0)]
    series = speed.series["time/epoch"]
    assert series.epoch_indexed and series.steps.tolist() == [1, 2]


def test_too_few_intervals_abstain():
    speed = derive_speed("loss", np.array([0, 1, 2]), np.array([0.0, 1.0, 2.0]))
    assert speed.median_step_time is None
    assert "fewer than 3 intervals" in speed.stream_evidence
    # wall time going back or standing still is no interval
    speed = derive_speed(
        "loss", np.arange(6), np.array([0.0, 1.0, 1.0, 0.5, 2.0, 3.0])
    )
    assert speed.intervals == 3


def test_samples_per_second_needs_a_batch_size():
    steps, walls = steady_run(100, 1, 0.25)
    speed = derive_speed("loss", steps, walls, samples_per_step=32)
    assert speed.samples_per_second == pytest.approx(128.0)
    assert speed.series["throughput/samples_per_s"].values == pytest.approx(
        np.full(99, 128.0)
    )
    assert derive_speed("loss", steps, walls).samples_per_second is None


def test_stream_choice():
    tag, why = choose_stream(
        {"loss": 100, "epoch": 100, "val": 10, "lr": 100}, {"lr": "no"}
    )
    assert tag == "loss" and "100 distinct steps" in why
    assert choose_stream({"a": 3}, {"a": "steps are milliseconds"})[0] == ""


def test_derived_tags():
    assert derived_tag("time/step") == "[derived] time/step"
    assert derived_name("[derived] time/step") == "time/step"
    assert derived_name("[derived] nonsense") is None
    assert derived_name("time/step") is None


# Step semantics.


def test_milliseconds_as_steps():
    rng = np.random.default_rng(1)
    walls = 1.7e9 + np.cumsum(rng.uniform(0.005, 0.2, 200))
    steps = ((walls - 1.7e9 + 0.0003) * 1000).astype(np.int64)
    found = classify_steps(steps, walls)
    assert found.is_timestamp and found.unit == "milliseconds"
    assert found.origin == "elapsed"
    absolute = classify_steps((walls * 1000).astype(np.int64), walls)
    assert absolute.is_timestamp and absolute.origin == "unix"
    seconds = classify_steps(
        (walls - 1.7e9).astype(np.int64) * 0 + np.arange(200) * 3,
        1.7e9 + np.arange(200) * 3 + rng.uniform(-0.5, 0.5, 200),
    )
    assert not seconds.is_timestamp  # constant increments: a counter


def test_a_steady_loop_is_not_called_a_clock():
    walls = 100.0 + np.arange(500) * 0.001
    found = classify_steps(np.arange(500), walls)
    assert not found.is_timestamp
    assert "too regular" in found.evidence


def test_logical_steps_with_irregular_time():
    rng = np.random.default_rng(2)
    walls = np.cumsum(rng.uniform(0.01, 0.2, 100))
    assert classify_steps(np.arange(100), walls).evidence == ""
    assert not classify_steps(np.arange(5), walls[:5]).is_timestamp


def test_mixed_warning():
    rng = np.random.default_rng(3)
    walls = 50 + np.cumsum(rng.uniform(0.01, 0.1, 50))
    stamp = classify_steps(((walls - 50) * 1000).astype(int), walls)
    text = mixed_semantics_warning({"lat": stamp}, ["loss"])
    assert "lat log milliseconds as steps beside loss" in text
    assert mixed_semantics_warning({"lat": stamp}, []) == ""


# Shared directories.

TORCH_A = "events.out.tfevents.1700000000.node-1.example.com.4242.0"
TORCH_B = "events.out.tfevents.1700000000.node-1.example.com.4243.0"


def test_writer_process_from_names():
    assert writer_process(TORCH_A) == ("node-1.example.com", 4242)
    assert writer_process("events.out.tfevents.1700000000.h.12.3.v2") == (
        "h",
        12,
    )
    assert writer_process("events.out.tfevents.1700000000.host") is None
    assert writer_process("vdlrecords.1700000000.log") is None


def test_two_ranks_in_one_directory():
    spans = [
        FileSpan(TORCH_A, 100, 10.0, 20.0, 0, 99),
        FileSpan(TORCH_B, 100, 10.1, 20.2, 0, 99),
    ]
    found = shared_writers(spans, [TORCH_A, TORCH_B], run="job")
    assert found is not None and found.files == (TORCH_A, TORCH_B)
    assert "pid 4242" in found.evidence[0] and "pid 4243" in found.evidence[0]
    assert "both logged steps in 0–99" in found.evidence[0]
    assert (
        TORCH_A in found.warning
        and '"job": {"filesAsRanks": true}' in found.warning
    )


def test_a_resume_and_one_process_are_not_ranks():
    resumed = [
        FileSpan(TORCH_A, 100, 10.0, 20.0, 0, 99),
        FileSpan(TORCH_B, 100, 80.0, 90.0, 50, 149),
    ]
    assert shared_writers(resumed, [TORCH_A, TORCH_B]) is None
    same_pid = [
        FileSpan(TORCH_A, 100, 10.0, 20.0, 0, 99),
        FileSpan(TORCH_A.replace(".0", ".1"), 100, 10.0, 20.0, 0, 99),
    ]
    assert shared_writers(same_pid, [s.name for s in same_pid]) is None


def test_tensorboardx_files_need_repeated_steps():
    a = "events.out.tfevents.1700000000.host"
    b = "events.out.tfevents.1700000001.host"
    spans = [
        FileSpan(a, 50, 0.0, 9.0, 0, 49),
        FileSpan(b, 50, 1.0, 10.0, 0, 49),
    ]
    assert shared_writers(spans, []) is None
    assert shared_writers(spans, [a, b]) is not None


# Logged speed tags.

RUN = RunInfo("r", "r", "pytorch", "torch.utils.tensorboard")
KERAS = RunInfo("k/train", "k", "tensorflow", "keras", "keras_fit")


@pytest.mark.parametrize(
    ("run", "tag", "name", "factor"),
    [
        (KERAS, "batch_steps_per_second", "throughput/steps_per_s", 1.0),
        (KERAS, "epoch_steps_per_second", "throughput/steps_per_s", 1.0),
        (RUN, "train/train_runtime", "time/total", 1.0),
        (
            RUN,
            "train/train_samples_per_second",
            "throughput/samples_per_s",
            1.0,
        ),
        (RUN, "train/train_steps_per_second", "throughput/steps_per_s", 1.0),
        (RUN, "eval/samples_per_second", "throughput/eval_samples_per_s", 1.0),
        (RUN, "time/fps", "throughput/steps_per_s", 1.0),
        (RUN, "perf/step_time", "time/step", 1.0),
        (RUN, "perf/step_time_ms", "time/step", 1e-3),
        (RUN, "train/batch_time", "time/step", 1.0),
        (RUN, "gpu/memory_gb", "gpu/memory_gb", 1.0),
        (RUN, "gpu/memory_mb", "gpu/memory_gb", 1 / 1024),
        (RUN, "gpu/utilization", "gpu/utilization", 1.0),
        (RUN, "perf/samples_per_sec", "throughput/samples_per_s", 1.0),
        (RUN, "[derived] time/step", "time/step", 1.0),
    ],
)
def test_speed_tag_names(run, tag, name, factor):
    found = speed_tag(run, tag)
    assert found is not None and found.name == name
    assert found.factor == pytest.approx(factor)


def test_mmengine_time_only_beside_data_time():
    assert speed_tag(RUN, "time") is None
    both = frozenset({"time", "data_time", "loss"})
    assert speed_tag(RUN, "time", run_tags=both).name == "time/step"
    assert speed_tag(RUN, "data_time", run_tags=both).name == "time/data"
    assert speed_tag(RUN, "loss/train") is None
    assert speed_tag(RUN, "epoch") is None


def test_step_time_unit_from_wall_time():
    assert check_step_time_unit(120.0, 0.118)[0] == 1e-3
    assert check_step_time_unit(0.121, 0.118)[0] == 1.0
    factor, why = check_step_time_unit(0.02, 0.118)
    assert factor == 1.0 and "a part of the step" in why
    assert check_step_time_unit(5.0, None)[0] == 1.0


def test_samples_per_step_sources():
    assert samples_per_step({}, configured=16) == (
        16,
        "config samplesPerStep = 16",
    )
    value, why = samples_per_step(
        {"per_device_train_batch_size": 32, "gradient_accumulation_steps": 4}
    )
    assert value == 128 and "one process" in why
    assert samples_per_step({"data.batch_size": 64, "lr": 0.1})[0] == 64
    value, why = samples_per_step({"a.batch_size": 64, "b.batch_size": 32})
    assert value is None and "disagree" in why
    assert (
        samples_per_step({"global_batch_size": 256, "batch_size": 32})[0] == 256
    )
    assert samples_per_step({}, logged={"perf/batch_size": [8.0, 8.0]})[0] == 8
    assert samples_per_step({}, logged={"batch_size": [8.0, 4.0]})[0] is None
    assert samples_per_step({"batch_size": True})[0] is None
    assert samples_per_step({})[0] is None
