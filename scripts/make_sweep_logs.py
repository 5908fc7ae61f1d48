"""Writes a 50-run hyper-parameter sweep logdir, as PyTorch would log it.

The tab must stay usable at 50+ runs (issue 14); this logdir is what the
browser tests, the screenshots and the interaction timings use. Every file is
a real tfevents file written by TensorBoard's own ``EventFileWriter`` (the
writer behind ``torch.utils.tensorboard.SummaryWriter``: same file names,
same ``source_metadata``, ``simple_value`` scalars, ``HistogramProto``
histograms), so no framework install is needed and the plugin detects every
run as PyTorch. Seeded: the same arguments give the same values.

Layout::

    <out>/
      run_00_lr1e-04_bs32/events.out.tfevents.<ts>.<host>.<pid>.<n>
      ...
      run_49_lr3e-02_bs256/...
      sweep_truth.json    the spikes and every run's name (for the tests)

Each run logs ``loss/train`` at steps 0..steps-1 with 2-3 spikes (one step
each, 3.5-6x the curve), ``loss/val`` and ``acc/val`` every ``steps / 20``
steps, and the histograms ``weights/fc1`` and ``grads/fc1`` every
``steps / 10`` steps. No run logs an ``epoch`` tag (so the epoch axis has to
warn about every run).

Usage::

    python scripts/make_sweep_logs.py OUT [--runs 50] [--steps 20000]
        [--seed 14]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter
from tensorboard.summary.writer.record_writer import RecordWriter

DEFAULT_RUNS = 50
DEFAULT_STEPS = 20000  # loss/train points a run
DEFAULT_SEED = 14
_LEARNING_RATES = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)
_BATCH_SIZES = (32, 64, 128, 256)
_START = 1_700_000_000.0  # wall time of the first run's first event, s
_STEP_SECONDS = 0.05  # wall time between two steps
_HIST_BINS = 30  # buckets a histogram
# A spike the issue names: run_37's loss/train jumps at step 4,780.
_PINNED_SPIKE = (37, 4780)


@dataclass
class RunTruth:
    """What one run logged, for tests to check the plugin against."""

    name: str
    lr: float
    batch_size: int
    spikes: list[tuple[int, float]] = field(default_factory=list)
    loss_min: float = 0.0
    loss_max: float = 0.0


def run_name(index: int, lr: float, batch_size: int) -> str:
    """``run_07_lr3e-04_bs64``: PyTorch sweep scripts name runs like this."""
    return f"run_{index:02d}_lr{lr:.0e}_bs{batch_size}"


def _loss_curve(
    rng: np.random.Generator, steps: int, lr: float, batch_size: int
) -> np.ndarray:
    """A decaying training loss in about 0.2..2.2 with batch noise."""
    x = np.arange(steps, dtype=np.float64)
    floor = 0.2 + 0.25 * rng.random()
    height = 1.6 + 0.4 * rng.random()
    tau = steps * (0.05 + 0.3 * rng.random()) * (1e-3 / lr) ** 0.25
    noise = rng.normal(0.0, 0.06 * (64 / batch_size) ** 0.5, steps)
    curve = floor + height * np.exp(-x / tau) + noise * (0.3 + np.exp(-x / tau))
    return np.maximum(curve, 0.05)


def _histogram(values: np.ndarray) -> summary_pb2.HistogramProto:
    counts, edges = np.histogram(values, bins=_HIST_BINS)
    return summary_pb2.HistogramProto(
        min=float(values.min()),
        max=float(values.max()),
        num=float(values.size),
        sum=float(values.sum()),
        sum_squares=float(np.dot(values, values)),
        bucket_limit=[float(e) for e in edges[1:]],
        bucket=[float(c) for c in counts],
    )


def _event(step: int, wall: float, **values: float) -> event_pb2.Event:
    event = event_pb2.Event(wall_time=wall, step=step)
    for tag, value in values.items():
        event.summary.value.add(tag=tag, simple_value=value)
    return event


def write_run(
    out: str,
    index: int,
    *,
    steps: int,
    rng: np.random.Generator,
) -> RunTruth:
    """Writes one run's event file and returns what it logged."""
    lr = _LEARNING_RATES[int(rng.integers(len(_LEARNING_RATES)))]
    batch_size = _BATCH_SIZES[int(rng.integers(len(_BATCH_SIZES)))]
    truth = RunTruth(run_name(index, lr, batch_size), lr, batch_size)
    loss = _loss_curve(rng, steps, lr, batch_size)
    # float32 first: simple_value is a float, and the truth must be what
    # the file holds.
    spike_steps = sorted(
        int(s)
        for s in rng.choice(
            np.arange(steps // 20, steps - steps // 20),
            size=int(rng.integers(2, 4)),
            replace=False,
        )
    )
    if index == _PINNED_SPIKE[0] and steps > _PINNED_SPIKE[1]:
        spike_steps = sorted(set(spike_steps[:-1] + [_PINNED_SPIKE[1]]))
    for step in spike_steps:
        loss[step] = loss[step] * (3.5 + 2.5 * rng.random()) + 2.0
    loss = loss.astype(np.float32)
    truth.spikes = [(s, float(loss[s])) for s in spike_steps]
    truth.loss_min = float(loss.min())
    truth.loss_max = float(loss.max())

    run_dir = os.path.join(out, truth.name)
    # TensorBoard's EventFileWriter names the file and writes the header
    # event as SummaryWriter does; the events then go through the same
    # RecordWriter it uses, synchronously (its queue thread triples the time).
    header = EventFileWriter(run_dir)
    header.close()
    (name,) = os.listdir(run_dir)
    start = _START + index * 3600.0
    eval_every = max(1, steps // 20)
    hist_every = max(1, steps // 10)
    weights = rng.normal(0.0, 0.1, 2000)
    with open(os.path.join(run_dir, name), "ab") as handle:
        writer = RecordWriter(handle)
        for step in range(steps):
            wall = start + step * _STEP_SECONDS
            events = [_event(step, wall, **{"loss/train": float(loss[step])})]
            if (step + 1) % eval_every == 0:
                progress = (step + 1) / steps
                val = float(loss[max(0, step - 50) : step + 1].mean()) + 0.05
                acc = 0.5 + 0.45 * progress**0.5 - 0.05 * rng.random()
                events.append(_event(step, wall, **{"loss/val": val}))
                events.append(_event(step, wall, **{"acc/val": acc}))
            if step % hist_every == 0:
                weights = weights * 1.02 + rng.normal(0.0, 0.01, weights.size)
                grads = rng.normal(0.0, 0.05 / (1 + step / hist_every), 2000)
                for tag, values in (
                    ("weights/fc1", weights),
                    ("grads/fc1", grads),
                ):
                    event = event_pb2.Event(wall_time=wall, step=step)
                    event.summary.value.add(tag=tag, histo=_histogram(values))
                    events.append(event)
            for event in events:
                writer.write(event.SerializeToString())
    return truth


def write_sweep(
    out: str,
    *,
    runs: int = DEFAULT_RUNS,
    steps: int = DEFAULT_STEPS,
    seed: int = DEFAULT_SEED,
) -> list[RunTruth]:
    """Writes the sweep into ``out`` (created) and ``sweep_truth.json``."""
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(seed)
    truths = [write_run(out, i, steps=steps, rng=rng) for i in range(runs)]
    with open(os.path.join(out, "sweep_truth.json"), "w") as handle:
        json.dump(
            {
                "seed": seed,
                "steps": steps,
                "runs": [vars(t) for t in truths],
            },
            handle,
            indent=1,
        )
    return truths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="directory to write (created)")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS)
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    began = time.perf_counter()
    truths = write_sweep(
        args.out, runs=args.runs, steps=args.steps, seed=args.seed
    )
    print(
        f"wrote {len(truths)} runs x {args.steps} steps (seed {args.seed}) "
        f"to {args.out} in {time.perf_counter() - began:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
