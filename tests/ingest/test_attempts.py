"""Resumed runs: attempts kept, current points one per step.

References, independent of the code under test:
* TensorBoard's Python `EventAccumulator` (its `SessionLog.START` purge) on
  the real resumed torch run of the demo;
* a sequential re-implementation of TensorBoard's two rules (the Rust data
  server's reservoir preemption: a new point at step s drops the kept points
  of its series at steps >= s; the Python loader's START purge: a START at
  step s drops every series' kept points at steps >= s), run on random event
  streams that are fed to the loader in random byte chunks over several
  files.
"""

import json
import os
import random

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.compat.proto import event_pb2

from tb_multiframework.ingest.loader import Loader
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import Store
from tests.eventfiles import file_version_event, record_bytes, scalar_event

ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)
DEMO = os.path.join(ROOT, "demo_logs")
TRUTH = os.path.join(ROOT, "tests", "data", "demo_truth")


def load(logdir):
    store = Store()
    Loader(str(logdir), store, config=lambda: Config()).reload()
    return store


@pytest.fixture(scope="module")
def demo():
    return load(DEMO)


def resumed_truth():
    with open(os.path.join(TRUTH, "pytorch_resumed.json")) as handle:
        return json.load(handle)["dirs"]


def test_resumed_torch_run_matches_tensorboards_purge(demo):
    accumulator = event_accumulator.EventAccumulator(
        os.path.join(DEMO, "pytorch_resumed"),
        size_guidance={event_accumulator.SCALARS: 0},
    )
    accumulator.Reload()
    tags = accumulator.Tags()["scalars"]
    assert sorted(tags) == sorted(demo.summary("pytorch_resumed").scalar_tags)
    kept = 0
    for tag in tags:
        want = accumulator.Scalars(tag)
        got = demo.current_scalars("pytorch_resumed", tag)
        assert got.steps.tolist() == [e.step for e in want], tag
        np.testing.assert_array_equal(got.values, [e.value for e in want])
        kept += len(want)
        # One point per step.
        assert len(set(got.steps.tolist())) == len(got)
    # Nothing is deleted: every logged point is still in the store.
    truth = resumed_truth()["pytorch_resumed"]["scalars"]
    logged = sum(len(t["steps"]) for t in truth.values())
    assert sum(len(demo.scalars("pytorch_resumed", t)) for t in tags) == logged
    counts = demo.attempt_counts("pytorch_resumed")
    superseded = sum(c.superseded for c in counts)
    assert superseded == logged - kept
    starts = demo.meta("pytorch_resumed").attempt_starts
    assert [(s.attempt, s.step, s.cause) for s in starts] == [
        (1, 200, "session_log")
    ]


def test_resumed_run_attempt_counts_by_hand(demo):
    # gen_pytorch_resumed.py: attempt 0 logs Loss/train and epoch at every
    # step 0..279 and Loss/val, Accuracy/val at 49, 99, ..., 249; attempt 1
    # starts with purge_step=200. Superseded: steps 200..279 of the two
    # per-batch tags and step 249 of the two epoch-end tags.
    crash, resume = 279, 200
    counts = demo.attempt_counts("pytorch_resumed")
    assert [c.attempt for c in counts] == [0, 1]
    assert counts[0].points == 2 * (crash + 1) + 2 * 5
    assert counts[1].points == 2 * (400 - resume) + 2 * 4
    assert counts[0].superseded == 2 * (crash - resume + 1) + 2
    assert counts[1].superseded == 0
    assert counts[0].repeated == counts[1].repeated == 0


def test_add_scalars_sub_run_relogged_in_a_new_file(demo):
    truth = resumed_truth()["pytorch_resumed/Loss_train"]["scalars"]["Loss"]
    # Hand rule: the last value logged at each step is current.
    last = {}
    for step, value in zip(truth["steps"], truth["values"]):
        last[step] = value
    got = demo.current_scalars("pytorch_resumed/Loss_train", "Loss")
    assert got.steps.tolist() == sorted(last)
    np.testing.assert_array_equal(
        got.values, np.float32([last[s] for s in sorted(last)])
    )
    starts = demo.meta("pytorch_resumed/Loss_train").attempt_starts
    assert [(s.step, s.cause) for s in starts] == [(249, "step_relogged")]
    assert [
        c.superseded for c in demo.attempt_counts("pytorch_resumed/Loss_train")
    ] == [1, 0]


def test_repeated_steps_in_one_file_are_not_attempts(demo):
    # Lightning logs `epoch` three times at each epoch's last step.
    run = "lightning_mlp/version_0"
    assert demo.meta(run).attempt_starts == ()
    (counts,) = demo.attempt_counts(run)
    epoch = demo.scalars(run, "epoch")
    assert counts.superseded == 0
    assert counts.repeated == len(epoch) - len(np.unique(epoch.steps))
    current = demo.current_scalars(run, "epoch")
    assert current.steps.tolist() == sorted(set(epoch.steps.tolist()))


# Differential: random streams against TensorBoard's rules, sequentially.


def reference(events):
    """Kept points per tag by TensorBoard's rules, applied in order.

    events: ("point", tag, step, value) and ("start", step) in logged order.
    """
    kept = {}
    for event in events:
        if event[0] == "start":
            for points in kept.values():
                points[:] = [p for p in points if p[0] < event[1]]
            continue
        _, tag, step, value = event
        points = kept.setdefault(tag, [])
        points[:] = [p for p in points if p[0] < step]  # preemption
        points.append((step, value))
    return kept


def random_stream(rng):
    """Random points, STARTs and restarts of one writer session.

    A restart without START goes back and logs every tag again from the
    lower step, two points each, as a restarted script does: that is the
    evidence of a restart (a range logged again). A tag whose single point
    dips below its largest step and is followed by a point above it is
    another loop's (tested apart, below), not generated here.
    """
    tags = [f"t{i}" for i in range(rng.randint(1, 4))]
    events, step = [], rng.randint(0, 5)

    def point(tag, at):
        events.append(("point", tag, at, float(np.float32(rng.random()))))

    for _ in range(rng.randint(1, 120)):
        roll = rng.random()
        if roll < 0.04:
            events.append(("start", max(0, step - rng.randint(0, 30))))
            step = events[-1][1]
            continue
        if roll < 0.09:
            step = max(0, step - rng.randint(0, 30))  # a restart, no START
            for again in (step, step + 1):
                for tag in rng.sample(tags, len(tags)):
                    point(tag, again)
            step += 1
            continue
        if roll < 0.15:
            pass  # the same step again
        else:
            step += rng.randint(1, 3)
        point(rng.choice(tags), step)
    return events


def encode(events, wall0):
    payloads = [file_version_event(wall0)]
    for i, event in enumerate(events):
        wall = wall0 + i * 1e-3
        if event[0] == "start":
            payloads.append(
                event_pb2.Event(
                    wall_time=wall,
                    step=event[1],
                    session_log=event_pb2.SessionLog(
                        status=event_pb2.SessionLog.START
                    ),
                ).SerializeToString()
            )
        else:
            payloads.append(scalar_event(event[1], event[2], wall, event[3]))
    return record_bytes(payloads)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_streams_in_random_chunks_match_tensorboards_rules(
    tmp_path, seed
):
    rng = random.Random(seed)
    for case in range(40):
        run_dir = tmp_path / f"s{seed}_{case}" / "run"
        run_dir.mkdir(parents=True)
        # One to three files (a restart without START often opens one).
        streams = [random_stream(rng) for _ in range(rng.randint(1, 3))]
        blobs = [
            encode(events, 1000.0 + 100 * i) for i, events in enumerate(streams)
        ]
        store = Store()
        loader = Loader(str(run_dir.parent), store, config=lambda: Config())
        for i, blob in enumerate(blobs):
            path = run_dir / f"events.out.tfevents.{1000 + i}.host.1.{i}"
            cut = 0
            while cut < len(blob):  # appended in random pieces
                nxt = min(len(blob), cut + rng.randint(1, 400))
                with open(path, "ab") as handle:
                    handle.write(blob[cut:nxt])
                cut = nxt
                loader.reload()
        events = [e for s in streams for e in s]
        want = reference(events)
        message = f"seed {seed} case {case}"
        if not any(e[0] == "point" for e in events):
            continue
        for tag, points in want.items():
            got = store.current_scalars("run", tag)
            assert got.steps.tolist() == [p[0] for p in points], message
            assert got.values.tolist() == [p[1] for p in points], message
            every = store.scalars("run", tag)
            assert len(every) == sum(
                1 for e in events if e[0] == "point" and e[1] == tag
            ), message


def test_keras_initial_epoch_resume_is_one_attempt_across_units(tmp_path):
    """Keras restarted with initial_epoch=3 after epoch 4 (0-based).

    Its train run logs epoch_loss at the epoch index and batch_loss at the
    iteration: both go back in a new .v2 file, each in its own units, and
    form one attempt. Written with TF2's tensor encoding.
    """
    from tests.eventfiles import tf2_scalar_event, write

    run = tmp_path / "fit" / "train"
    run.mkdir(parents=True)
    n = 10  # batches an epoch

    def attempt(epochs, wall0, value):
        payloads = [file_version_event(wall0)]
        wall = wall0
        for epoch in epochs:
            for b in range(1, n + 1):
                wall += 0.01
                payloads.append(
                    tf2_scalar_event("batch_loss", epoch * n + b, wall, value)
                )
            wall += 0.01
            payloads.append(tf2_scalar_event("epoch_loss", epoch, wall, value))
        return record_bytes(payloads)

    write(
        str(run / "events.out.tfevents.100.host.1.0.v2"),
        attempt(range(5), 100.0, 1.0),
    )
    write(
        str(run / "events.out.tfevents.200.host.2.0.v2"),
        attempt(range(3, 8), 200.0, 2.0),
    )
    store = load(tmp_path)
    starts = store.meta("fit/train").attempt_starts
    assert [(s.attempt, s.step, s.cause, s.tag) for s in starts] == [
        (1, 3 * n + 1, "step_decrease", "batch_loss")
    ]
    epoch_loss = store.current_scalars("fit/train", "epoch_loss")
    assert epoch_loss.steps.tolist() == list(range(8))
    assert epoch_loss.values.tolist() == [1.0] * 3 + [2.0] * 5
    batches = store.current_scalars("fit/train", "batch_loss")
    assert batches.steps.tolist() == list(range(1, 8 * n + 1))
    first, second = store.attempt_counts("fit/train")
    assert (first.points, first.superseded) == (5 * (n + 1), 2 * (n + 1))
    assert (second.points, second.superseded) == (5 * (n + 1), 0)


def test_visualdl_loop_restarted_in_a_new_file(tmp_path):
    """A Paddle LogWriter loop restarted from step 3 writes a new file."""
    from tests.eventfiles import vdl_records, vdl_value, write

    run = tmp_path / "paddle"
    first = [vdl_value("train/loss", s, 1000 + s, scalar=1.0) for s in range(6)]
    second = [
        vdl_value("train/loss", s, 9000 + s, scalar=2.0) for s in range(3, 9)
    ]
    write(str(run / "vdlrecords.1000.log"), vdl_records(first))
    write(str(run / "vdlrecords.1009.log"), vdl_records(second))
    store = load(tmp_path)
    got = store.current_scalars("paddle", "train/loss")
    assert got.steps.tolist() == list(range(9))
    assert got.values.tolist() == [1.0] * 3 + [2.0] * 6
    assert [(s.step, s.cause) for s in store.meta("paddle").attempt_starts] == [
        (3, "step_decrease")
    ]
    assert len(store.scalars("paddle", "train/loss")) == 12


def interleaved_stream(rng):
    """Points of one tag from a training loop (large steps) with a second
    loop's points (small steps) between them, and in-file restarts."""
    events, step, small = [], rng.randint(0, 5), 0
    for _ in range(rng.randint(5, 150)):
        roll = rng.random()
        if roll < 0.15:
            small += 1
            events.append(
                ("point", "t", small, float(np.float32(rng.random())))
            )
        elif roll < 0.19:
            step = max(0, step - rng.randint(2, 30))
            for again in (step, step + 1):
                events.append(("point", "t", again, 0.5))
            step += 1
        else:
            step += rng.randint(1, 3)
            events.append(("point", "t", step, float(np.float32(rng.random()))))
    return events


def _read(tmp_path, name, blob, rng=None):
    run_dir = tmp_path / name / "run"
    run_dir.mkdir(parents=True)
    store = Store()
    loader = Loader(str(run_dir.parent), store, config=lambda: Config())
    path = run_dir / "events.out.tfevents.1000.host.1.0"
    cut = 0
    while cut < len(blob):
        nxt = (
            len(blob)
            if rng is None
            else min(len(blob), cut + rng.randint(1, 300))
        )
        with open(path, "ab") as handle:
            handle.write(blob[cut:nxt])
        cut = nxt
        loader.reload()
    return store


@pytest.mark.parametrize("seed", [4, 5])
def test_a_file_read_in_pieces_reads_as_a_whole(tmp_path, seed):
    """Restarts and loops are decided alike whatever the read chunks: a low
    point at the end of a chunk waits for the next one."""
    rng = random.Random(seed)
    for case in range(30):
        events = interleaved_stream(rng)
        blob = encode(events, 1000.0)
        whole = _read(tmp_path, f"w{case}", blob)
        pieces = _read(tmp_path, f"p{case}", blob, rng)
        message = f"seed {seed} case {case}"
        assert (
            whole.summary("run").scalar_tags
            == pieces.summary("run").scalar_tags
        ), message
        for tag in whole.summary("run").scalar_tags:
            a, b = (
                whole.current_scalars("run", tag),
                pieces.current_scalars("run", tag),
            )
            assert a.steps.tolist() == b.steps.tolist(), message
            assert a.values.tolist() == b.values.tolist(), message
        assert whole.attempt_counts("run") == pieces.attempt_counts("run"), (
            message
        )
        assert (
            whole.meta("run").attempt_starts
            == pieces.meta("run").attempt_starts
        ), message


@pytest.mark.parametrize("seed", [6, 7])
def test_several_tags_read_in_pieces_show_the_same_points(tmp_path, seed):
    """Several tags restarting in one file: whatever the read chunks, every
    series shows the same current points (which attempt a restart is
    numbered under may differ when a chunk ends on a tag's low point and
    another tag goes back before the next chunk)."""
    rng = random.Random(seed)
    for case in range(30):
        events = random_stream(rng)
        if not any(e[0] == "point" for e in events):
            continue
        blob = encode(events, 1000.0)
        whole = _read(tmp_path, f"w{case}", blob)
        pieces = _read(tmp_path, f"p{case}", blob, rng)
        tags = whole.summary("run").scalar_tags
        assert tags == pieces.summary("run").scalar_tags
        for tag in tags:
            a = whole.current_scalars("run", tag)
            b = pieces.current_scalars("run", tag)
            assert a.steps.tolist() == b.steps.tolist(), (seed, case, tag)
            assert a.values.tolist() == b.values.tolist(), (seed, case, tag)
