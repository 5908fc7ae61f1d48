"""The rules on logging patterns, not on trainers: so they hold for trainers
nobody has tried.

Each case writes a synthetic tfevents file (TensorBoard's own record writer,
tests/eventfiles.py) in one of the patterns trainers produce, reads it with
the plugin, and checks the claims against positions worked out by hand
from the convention (an epoch-level value of epoch k at k + 1; a point
after b of n batches of epoch k at k + b/n):

* interleaved step scales: one tag from a training loop (step = iteration)
  and a validation loop (step = epochs completed), in one file;
* one epoch-level point at step 0 (an iteration-based run validating once);
* 1-based and 0-based epoch counters logged with the batches;
* once-per-epoch tags at 0, 1, ... (the index) and at 1, 2, ... (the epochs
  completed), told apart by when they were written;
* a real restart in one file (a range of steps logged again), a restart
  seen only across two reloads, and a low point that turns out to be
  another loop's once the next point arrives.
"""

from __future__ import annotations

import json
import urllib.parse

import numpy as np
import pytest

from tests.conftest import make_client
from tests.eventfiles import (
    TORCH_NAME,
    file_version_event,
    record_bytes,
    scalar_event,
    write,
)

BASE = "/data/plugin/tb_multiframework"
N = 8  # batches an epoch
EPOCHS = 4


def get(client, path, **args):
    query = urllib.parse.urlencode(args, doseq=True)
    response = client.get(f"{BASE}/{path}?{query}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def one(client, run, tag, x="step", **args):
    (series,) = [
        s
        for s in get(
            client, "scalars", run=run, tag=tag, x=x, points=20000, **args
        )["series"]
        if not s.get("superseded")
    ]
    return series


def write_run(tmp_path, events, name=TORCH_NAME, run="run", mode="wb"):
    """events: (tag, step, wall, value) in logged order."""
    payloads = [] if mode == "ab" else [file_version_event(0.5)]
    payloads += [scalar_event(t, s, w, v) for t, s, w, v in events]
    write(str(tmp_path / run / name), record_bytes(payloads), mode=mode)


def mmengine_like(counter_base=1, val_steps="completed"):
    """A training loop logging `loss`, `time`, `epoch` at the 1-based
    iteration every 2 iterations, and a validation loop logging `accuracy`
    and `time` after each epoch at step = epochs completed (or the index)."""
    events, wall = [], 0.0
    for k in range(EPOCHS):
        for b in range(2, N + 1, 2):
            wall += 1.0
            step = k * N + b
            events += [
                ("loss", step, wall, 1.0 / step),
                ("time", step, wall, 0.5 + 0.01 * b),
                ("epoch", step, wall, float(k + counter_base)),
            ]
        wall += 1.0
        vstep = k + 1 if val_steps == "completed" else k
        events += [
            ("accuracy", vstep, wall, 0.5 + 0.1 * k),
            ("time", vstep, wall, 0.02 + 0.001 * k),
        ]
    return events


def test_interleaved_step_scales_are_two_loops_not_a_resume(tmp_path):
    write_run(tmp_path, mmengine_like())
    client, _ = make_client(str(tmp_path))
    (run,) = get(client, "runs")["runs"]
    assert run["resumeNote"] == "" and len(run["attempts"]) == 1
    assert run["inferences"]["resume"]["value"] is False
    loop2 = "time \u27e8loop 2\u27e9"
    assert loop2 in run["scalarTags"]
    assert run["inferences"]["loops"]["value"] == {"time": ["time", loop2]}
    train = one(client, "run", "time")
    val = one(client, "run", loop2)
    # every point current, nothing hidden
    assert train["steps"] == [k * N + b for k in range(4) for b in (2, 4, 6, 8)]
    assert val["steps"] == [1, 2, 3, 4]
    assert train["hidden"] == val["hidden"] == {"superseded": 0, "repeated": 0}
    # on the epoch axis: the counter reads 1 in the first epoch (1-based);
    # the val loop's steps are epochs completed (written after epoch k's
    # last batch, step k + 1): both at k + 1 at each epoch's end
    assert one(client, "run", "time", x="epoch")["x"] == [
        k + b / N for k in range(4) for b in (2, 4, 6, 8)
    ]
    assert one(client, "run", loop2, x="epoch")["x"] == [1.0, 2.0, 3.0, 4.0]
    assert one(client, "run", "accuracy", x="epoch")["x"] == [1, 2, 3, 4]
    axis = run["inferences"]["epochAxis"]
    assert axis["status"] == "evidence"
    assert any("counts from 1" in e for e in axis["evidence"]), axis
    assert axis["value"]["epochLevelTags"]["accuracy"] == "epochs completed"


@pytest.mark.parametrize("base", [0, 1])
def test_epoch_counter_base_from_its_first_epoch(tmp_path, base):
    write_run(tmp_path, mmengine_like(counter_base=base))
    client, _ = make_client(str(tmp_path))
    loss = one(client, "run", "loss", x="epoch")
    # the same batches land at the same places whatever the counter's base
    assert loss["x"] == [k + b / N for k in range(4) for b in (2, 4, 6, 8)]


def test_once_per_epoch_index_from_zero_sits_at_the_epoch_end(tmp_path):
    write_run(tmp_path, mmengine_like(val_steps="index"))
    client, _ = make_client(str(tmp_path))
    got = one(client, "run", "accuracy", x="epoch")
    assert got["steps"] == [0, 1, 2, 3]
    assert got["x"] == [1.0, 2.0, 3.0, 4.0]  # index k + 1
    (run,) = get(client, "runs")["runs"]
    tags = run["inferences"]["epochAxis"]["value"]["epochLevelTags"]
    assert tags["accuracy"] == "0-based index"


def test_one_point_at_step_zero_gives_no_epoch_axis(tmp_path):
    """An iteration-based run that validates once, at step 0 (no epochs)."""
    events = []
    for s in range(1, 41):
        events.append(("loss", s, float(s), 1.0 / s))
        if s % 2 == 0:
            events.append(("time", s, float(s), 0.3))
    events += [("accuracy", 0, 41.0, 0.7), ("time", 0, 41.0, 0.1)]
    write_run(tmp_path, events)
    client, _ = make_client(str(tmp_path))
    (run,) = get(client, "runs")["runs"]
    assert run["hasEpochAxis"] is False
    axis = run["inferences"]["epochAxis"]
    assert axis["status"] == "unknown" and "stepsPerEpoch" in axis["howToSet"]
    for tag in ("loss", "accuracy"):
        assert one(client, "run", tag, x="epoch")["excluded"]
    # the low point is another loop's, not a restart hiding the loop
    assert run["resumeNote"] == ""
    assert one(client, "run", "time")["total"] == 20


def test_once_per_epoch_with_two_points_needs_the_clock_to_agree(tmp_path):
    # accuracy at 1 and 2, but written long before the batches that would
    # make those epochs: no consistent epoch length, so no axis
    events = [("accuracy", 1, 0.1, 0.5), ("accuracy", 2, 0.2, 0.6)]
    events += [("loss", s, 1.0 + s, 1.0) for s in range(1, 101)]
    write_run(tmp_path, events)
    client, _ = make_client(str(tmp_path))
    (run,) = get(client, "runs")["runs"]
    assert run["hasEpochAxis"] is False
    assert "accuracy" in run["inferences"]["epochAxis"]["reason"]


def test_a_range_logged_again_in_one_file_is_a_restart(tmp_path):
    events = [("loss", s, float(s), 1.0) for s in range(30)]
    # the script rolls back to step 20 and goes on in the same file
    events += [("loss", s, 100.0 + s, 2.0) for s in range(20, 40)]
    write_run(tmp_path, events)
    client, _ = make_client(str(tmp_path))
    (run,) = get(client, "runs")["runs"]
    assert run["resumeNote"] == "resumed at step 20 · 10 points superseded"
    assert run["inferences"]["resume"]["value"] is True
    got = one(client, "run", "loss")
    assert got["steps"] == list(range(40))
    assert got["y"] == [1.0] * 20 + [2.0] * 20


def test_a_restart_seen_across_two_reads(tmp_path):
    """The low point is the last one read; the next read confirms it."""
    events = [("loss", s, float(s), 1.0) for s in range(30)]
    events += [("loss", 20, 100.0, 2.0)]
    write_run(tmp_path, events)
    client, plugin = make_client(str(tmp_path))
    (run,) = get(client, "runs")["runs"]
    assert run["resumeNote"] == ""  # undecided: counted as another loop's
    write_run(
        tmp_path,
        [("loss", s, 100.0 + s, 2.0) for s in range(21, 40)],
        mode="ab",
    )
    plugin._loader.reload()
    (run,) = get(client, "runs")["runs"]
    assert run["resumeNote"] == "resumed at step 20 · 10 points superseded"
    got = one(client, "run", "loss")
    assert got["steps"] == list(range(40))
    assert got["y"] == [1.0] * 20 + [2.0] * 20
    assert "loss \u27e8loop 2\u27e9" not in run["scalarTags"]


def test_a_low_point_followed_by_higher_steps_is_another_loop(tmp_path):
    events = [("loss", s, float(s), 1.0) for s in range(1, 17)]
    events += [("loss", 2, 17.0, 5.0)]  # once, at the epoch's count
    events += [("loss", s, float(s) + 1, 1.0) for s in range(17, 33)]
    events += [("loss", 4, 40.0, 6.0)]
    write_run(tmp_path, events)
    client, _ = make_client(str(tmp_path))
    (run,) = get(client, "runs")["runs"]
    assert run["resumeNote"] == ""
    assert one(client, "run", "loss")["steps"] == list(range(1, 33))
    second = one(client, "run", "loss \u27e8loop 2\u27e9")
    assert (second["steps"], second["y"]) == ([2, 4], [5.0, 6.0])


def test_a_restart_in_a_new_file_without_purge_step(tmp_path):
    write_run(tmp_path, [("loss", s, float(s), 1.0) for s in range(30)])
    write_run(
        tmp_path,
        [("loss", s, 100.0 + s, 2.0) for s in range(24, 40)],
        name="events.out.tfevents.1700000100.host.124.0",
    )
    client, _ = make_client(str(tmp_path))
    (run,) = get(client, "runs")["runs"]
    assert run["resumeNote"] == "resumed at step 24 · 6 points superseded"
    got = one(client, "run", "loss", attempts="all")
    assert got["steps"] == list(range(40))
    every = get(
        client, "scalars", run="run", tag="loss", attempts="all", points=20000
    )["series"]
    (old,) = [s for s in every if s.get("superseded")]
    assert old["steps"] == list(range(24, 30))
    assert np.all(np.asarray(old["y"]) == 1.0)
