"""Runs with known timings, written by torch's real `SummaryWriter`.

Every point is written with `add_scalar(..., walltime=t)`, `t` taken from a
schedule this script draws (seeded), so the true step times, pauses,
epoch durations and totals are known exactly and saved beside the logs in
`truth.json`; `tests/core/test_speed_truth.py` requires the derived speed
metrics to equal them within 1 %.

Runs (each its own directory under --out):

* `every_step`: 600 steps (0-based global step), 100 steps an epoch; tags
  `Loss/train` and `epoch` (a staircase) every step, `lr` every 10 steps
  (several tags a step), `Loss/val` after each epoch's evaluation. Step
  times: a warm-up (2.0, 1.2, 0.6, 0.3 s for steps 0-3), then 0.1 s ± 5 %
  (uniform); a 3 s evaluation pause after each epoch's last step; a 4 s
  data-loader stall before step 250 and a 2.5 s checkpoint before step 430.
  `config.json` holds `batch_size: 64` (samples per step).
* `every_10`: the same schedule (same draws), every tag logged at steps
  0, 10, ..., 590 and 599 only (logging every N steps, epoch ends not
  logged).
* `resumed`: the same schedule, logged every 5 steps; the first process
  stops after step 349, the second starts 45 s later with
  `SummaryWriter(purge_step=300)`, warms up again (steps 300-303) and
  trains 300..599 (steps 300..349 of the first attempt are superseded).
* `steady_1000`: a logical step counter at a nearly constant 1000 steps a
  second (1 ms ± 0.5 %): steps that *look* like milliseconds; the
  timestamp-step detector must not call them timestamps.

Usage (in a venv with torch==2.13.0, e.g. the trainers venv):
    python scripts/speed/gen_timed.py --out tests/data/speed/timed
"""

from __future__ import annotations

import argparse
import json
import os
import shutil

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter

SEED = 23
STEPS = 600
STEPS_PER_EPOCH = 100
BASE = 0.1  # s a step, steady
JITTER = 0.05  # relative, uniform
WARMUP = [2.0, 1.2, 0.6, 0.3]  # s, steps 0..3
EVAL_PAUSE = 3.0  # s after each epoch's last step (but the last)
STALLS = {250: 4.0, 430: 2.5}  # step -> s of pause before it
BATCH = 64  # samples a step
T0 = 1_780_000_000.0  # s, the schedule's start (wall clock)
RESUME_STOP = 349  # last step of the first attempt
RESUME_FROM = 300  # purge_step of the second
RESUME_DOWNTIME = 45.0  # s between the attempts


def schedule(rng: np.random.Generator, warm_at: tuple[int, ...] = (0,)):
    """(duration of each step, pause before each step), both (STEPS,)."""
    d = BASE * (1 + rng.uniform(-JITTER, JITTER, STEPS))
    for start in warm_at:
        d[start : start + len(WARMUP)] = WARMUP
    pause = np.zeros(STEPS)
    for k in range(1, STEPS // STEPS_PER_EPOCH):
        pause[k * STEPS_PER_EPOCH] = EVAL_PAUSE
    for step, seconds in STALLS.items():
        pause[step] = seconds
    return d, pause


def ends(d: np.ndarray, pause: np.ndarray, start: float) -> np.ndarray:
    """Wall time at which each step ends (when it is logged)."""
    return start + np.cumsum(pause + d)


def write_run(path, steps, walls, *, purge_step=None, loss_seed=0):
    rng = np.random.default_rng(loss_seed)
    writer = SummaryWriter(log_dir=path, purge_step=purge_step)
    for step, wall in zip(steps.tolist(), walls.tolist()):
        loss = float(2.0 * np.exp(-step / 300) + 0.05 * rng.standard_normal())
        writer.add_scalar("Loss/train", loss, step, walltime=wall)
        writer.add_scalar("epoch", step // STEPS_PER_EPOCH, step, walltime=wall)
        if step % 10 == 0:
            writer.add_scalar("lr", 0.1, step, walltime=wall)
        if step % STEPS_PER_EPOCH == STEPS_PER_EPOCH - 1:
            writer.add_scalar(
                "Loss/val", loss + 0.1, step, walltime=wall + EVAL_PAUSE * 0.9
            )
    writer.close()
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump({"batch_size": BATCH, "lr": 0.1}, f)


def epoch_truth(end_wall: np.ndarray, d: np.ndarray) -> list[float]:
    """Epoch k (k >= 1) lasts from the start of its first step (after the
    previous epoch's evaluation) to the start of the next epoch's (its own
    evaluation included); the last epoch ends with its last step."""
    starts = [
        end_wall[k * STEPS_PER_EPOCH] - d[k * STEPS_PER_EPOCH]
        for k in range(1, STEPS // STEPS_PER_EPOCH)
    ]
    starts.append(end_wall[-1])
    return [float(b - a) for a, b in zip(starts, starts[1:])]


def pauses_truth(pause: np.ndarray) -> list[dict[str, float]]:
    return [
        {"step": int(s), "seconds": float(pause[s])}
        for s in np.flatnonzero(pause)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    truth: dict[str, object] = {
        "torch": torch.__version__,
        "seed": SEED,
        "batch": BATCH,
        "runs": {},
    }
    runs: dict[str, dict[str, object]] = truth["runs"]  # type: ignore

    d, pause = schedule(np.random.default_rng(SEED))
    end = ends(d, pause, T0)
    steady = np.ones(STEPS, bool)
    steady[: len(WARMUP)] = False
    common = {
        "steadyStepTime": float(d[steady].mean()),
        "medianStepTime": float(np.median(d[steady])),
        "warmupSteps": [0, len(WARMUP) - 1],
        # Observable warm-up: the intervals ending at steps 1..3 (step 0's
        # own duration comes before the first point).
        "warmupSeconds": float(end[len(WARMUP) - 1] - end[0]),
        "pauses": pauses_truth(pause),
        "epochSeconds": epoch_truth(end, d),
        "totalSeconds": float(end[-1] - end[0]),
        "samplesPerStep": BATCH,
    }

    steps = np.arange(STEPS)
    write_run(os.path.join(out, "every_step"), steps, end)
    runs["every_step"] = dict(common, loggedEvery=1)

    logged = np.array(sorted(set(range(0, STEPS, 10)) | {STEPS - 1}))
    write_run(os.path.join(out, "every_10"), logged, end[logged])
    runs["every_10"] = dict(common, loggedEvery=10)

    # Resumed: one draw of step times for both attempts; the second attempt
    # re-runs 300..349 with a new warm-up.
    d_a, pause2 = schedule(np.random.default_rng(SEED + 1))
    d_b, _ = schedule(np.random.default_rng(SEED + 2), warm_at=(RESUME_FROM,))
    first = np.arange(0, RESUME_STOP + 1)
    end_a = ends(d_a[first], pause2[first], T0)
    second = np.arange(RESUME_FROM, STEPS)
    start_b = end_a[-1] + RESUME_DOWNTIME
    end_b = ends(d_b[second], pause2[second], start_b)
    path = os.path.join(out, "resumed")
    every5 = lambda s: s % 5 == 0 or s == STEPS - 1  # noqa: E731
    keep_a = np.array([every5(s) for s in first])
    keep_b = np.array([every5(s) for s in second])
    write_run(path, first[keep_a], end_a[keep_a], loss_seed=1)
    write_run(
        path, second[keep_b], end_b[keep_b], purge_step=RESUME_FROM, loss_seed=2
    )
    # The current (shown) steps: attempt 0 up to its last point before the
    # resume (295), attempt 1 from 300; warm-up steps left out.
    shown_a = np.arange(len(WARMUP), RESUME_FROM - 4)
    shown_b = np.arange(RESUME_FROM + len(WARMUP), STEPS)
    runs["resumed"] = {
        "loggedEvery": 5,
        "steadyStepTime": float(
            np.concatenate([d_a[shown_a], d_b[shown_b]]).mean()
        ),
        "attemptSeconds": [
            float(end_a[keep_a][-1] - end_a[keep_a][0]),
            float(end_b[keep_b][-1] - end_b[keep_b][0]),
        ],
        "resumeGapSeconds": float(end_b[keep_b][0] - end_a[keep_a][-1]),
        "resumeStep": RESUME_FROM,
        "warmups": [[0, 3], [300, 303]],
        # Pauses between shown points: attempt 0 up to its last point
        # before the resume (295), attempt 1 after its first (300).
        "pauses": [
            p for p in pauses_truth(pause2) if p["step"] <= RESUME_FROM - 5
        ]
        + [p for p in pauses_truth(pause2) if p["step"] > RESUME_FROM],
        "totalSeconds": float(end_b[-1] - end_a[0]),
        "samplesPerStep": BATCH,
    }

    rng = np.random.default_rng(SEED + 3)
    n = 1500
    dt = 0.001 * (1 + rng.uniform(-0.005, 0.005, n))
    walls = T0 + np.cumsum(dt)
    path = os.path.join(out, "steady_1000")
    writer = SummaryWriter(log_dir=path)
    for step, wall in enumerate(walls.tolist()):
        writer.add_scalar("loss", 1.0 / (1 + step), step, walltime=wall)
    writer.close()
    runs["steady_1000"] = {
        "loggedEvery": 1,
        "steadyStepTime": float(dt[1:].mean()),
        "timestampSteps": False,
    }

    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
