"""Benchmark of anomaly detection: every detector over 1,000,000 points.

Run from the repository root: ``python bench/bench_anomalies.py``. Builds 20
runs of 50,000 points (noisy training losses and accuracies of the shapes
in bench/anomaly_cases.py, half of them logging a learning rate, a spike
injected into a few), plus for each run a 100-point validation series
(overfitting and drift) and the 20 runs as 5 groups of 4 ranks
(rank_desync). Prints, side by side in one run, the median wall time of:

- every detector over all of it (target: <= 1 s), and per million points;
- a bare pass a detector cannot avoid (a sort and one 11-point rolling
  median of every series): the floor, for a ratio;
- the plugin's `GET anomalies` for every run and tag through TensorBoard's
  WSGI app on a logdir of real event files: cold (first answer), warm (the
  same answer again), and after one run grew (only its series computed).

The machine is shared: compare the ratios.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import anomaly_cases  # noqa: E402

from tb_multiframework.core import anomalies  # noqa: E402
from tb_multiframework.core.anomalies.robust import rolling_median  # noqa: E402

RUNS = 20  # runs of one benchmark logdir
POINTS = 50_000  # points of each run's training series
VAL_POINTS = 100  # points of each run's validation series
RANKS = 4  # ranks per group
REPEATS = 5  # timed repeats (median reported)
TARGET_SECONDS = 1.0  # every detector over 1,000,000 points


def make_runs(seed: int = 7) -> list[dict]:
    """20 runs: a training series, maybe a learning rate, a validation one."""
    rng = np.random.default_rng(seed)
    shapes = ("exp", "power", "accuracy", "cosine", "step", "warmup")
    runs = []
    for i in range(RUNS):
        shape = shapes[i % len(shapes)]
        trace = anomaly_cases.clean_trace(rng, shape, POINTS)
        if trace.noise == "none":
            trace.noise, trace.sigma = "gauss", 0.05 * np.abs(trace.trend)
        values = trace.sample(rng)
        if i % 5 == 0:  # a few runs carry a spike
            values[POINTS // 2] += 20 * float(np.abs(values).max())
        steps = np.arange(POINTS, dtype=np.int64)
        ends = (
            np.linspace(POINTS / VAL_POINTS, POINTS, VAL_POINTS).astype(
                np.int64
            )
            - 1
        )
        val = trace.trend[ends] * (
            1.05 if trace.direction != "higher" else 0.98
        )
        runs.append(
            {
                "name": f"run_{i:02d}",
                "direction": trace.direction,
                "steps": steps,
                "values": values,
                "lr": None if trace.lr is None else (steps, trace.lr),
                "val": (ends, val + 1e-3 * rng.standard_normal(VAL_POINTS)),
            }
        )
    return runs


def detect_all(runs: list[dict]) -> int:
    """Every detector over every series, pair and group; the findings."""
    found = 0
    for run in runs:
        found += len(
            anomalies.detect_series(
                run["steps"],
                run["values"],
                direction=run["direction"],
                lr=run["lr"],
            )
        )
        found += len(
            anomalies.detect_series(
                *run["val"], direction=run["direction"], validation=True
            )
        )
        on_train, on_val = anomalies.detect_pair(
            (run["steps"], run["values"]),
            run["val"],
            direction=run["direction"],
        )
        found += len(on_train) + len(on_val)
    for start in range(0, RUNS, RANKS):
        group = runs[start : start + RANKS]
        for items in anomalies.detect_group(
            [(r["steps"], r["values"]) for r in group],
            names=[r["name"] for r in group],
            direction=group[0]["direction"],
        ):
            found += len(items)
    return found


def floor_pass(runs: list[dict]) -> None:
    """What any robust detector must do at least: sort and one median."""
    for run in runs:
        order = np.argsort(run["steps"], kind="stable")
        rolling_median(run["values"][order], 11)


def median_seconds(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _event_file(path: str, events: list[bytes]) -> None:
    from eventfiles import (
        file_version_event,
        record_bytes,
        write,
    )  # noqa: PLC0415

    write(path, record_bytes([file_version_event(), *events]))


def write_logdir(runs: list[dict], root: str) -> None:
    """The runs as real event files (TensorBoard's record writer)."""
    from eventfiles import TORCH_NAME, scalar_event  # noqa: PLC0415

    for run in runs:
        events = [
            scalar_event("Loss/train", int(s), 1.0 + int(s), float(v))
            for s, v in zip(run["steps"], run["values"])
        ]
        events += [
            scalar_event("Loss/val", int(s), 1.5 + int(s), float(v))
            for s, v in zip(*run["val"])
        ]
        _event_file(os.path.join(root, run["name"], TORCH_NAME), events)


def api_timings(runs: list[dict]) -> tuple[float, float, float, int]:
    """(cold, warm, after one run grew) seconds of GET anomalies."""
    from conftest import make_client  # noqa: PLC0415
    from eventfiles import scalar_event  # noqa: PLC0415

    root = tempfile.mkdtemp(prefix="bench_anomalies_")
    try:
        write_logdir(runs, root)
        client, plugin = make_client(root)
        url = "/data/plugin/tb_multiframework/anomalies"
        start = time.perf_counter()
        answer = client.get(url)
        cold = time.perf_counter() - start
        total = json.loads(answer.data)["total"]
        warm = median_seconds(lambda: client.get(url))
        extra = [scalar_event("Loss/train", POINTS + 1, 1e6, 0.5)]
        _event_file(
            os.path.join(
                root, runs[0]["name"], "events.out.tfevents.2.host.1.0"
            ),
            extra,
        )
        plugin._loader.reload()
        start = time.perf_counter()
        client.get(url)
        grew = time.perf_counter() - start
        return cold, warm, grew, total
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    runs = make_runs()
    points = sum(
        len(r["values"])
        + len(r["val"][0])
        + (len(r["lr"][0]) if r["lr"] else 0)
        for r in runs
    )
    core_s = median_seconds(lambda: detect_all(runs))
    floor_s = median_seconds(lambda: floor_pass(runs))
    print(f"{RUNS} runs, {points:,} points (series + validation + rates)")
    print(f"{'measure':58} {'value':>10}")
    print(f"{'every detector, all series, pairs and groups':58} {core_s:9.3f}s")
    print(f"{'  per million points':58} {core_s / points * 1e6:9.3f}s")
    print(f"{'  target':58} {TARGET_SECONDS:9.3f}s")
    print(
        f"{'floor: sort + one 11-point rolling median per series':58} {floor_s:9.3f}s"
    )
    print(f"{'detectors / floor':58} {core_s / floor_s:9.1f}x")
    cold, warm, grew, total = api_timings(runs)
    print(f"{'GET anomalies, every run and tag, cold':58} {cold:9.3f}s")
    print(
        f"{'GET anomalies, warm (answer cached per data version)':58} {warm * 1000:8.1f}ms"
    )
    print(
        f"{'GET anomalies after one run grew (its series only)':58} {grew:9.3f}s"
    )
    print(f"{'findings in the answer':58} {total:10d}")
    print(f"ratio detectors / target: {core_s / TARGET_SECONDS:.2f}")
    return 0 if core_s <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
