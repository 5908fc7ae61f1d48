"""Cold ingest: ours vs TensorBoard's EventMultiplexer vs a bare parse loop.

Generates a synthetic logdir (default: 20 runs x 50,000 scalar points, one
point per event as torch's SummaryWriter writes them, plus 2 histogram tags x
50 steps x ~500 buckets per run), then loads it three ways, each in a fresh
process so memory readings are not shared:

* ours: `Loader.reload()` into the store (every point kept, CRCs checked);
* bare: read each record with `struct` and parse it with `Event.FromString`,
  nothing else (the practical limit of Python, no CRC check);
* multiplexer: TensorBoard's Python `EventMultiplexer` with size guidance 0
  (keep everything), `AddRunsFromDirectory` + `Reload`.

Prints seconds, points, resident bytes per scalar point, and the ratios.
Usage: python bench/bench_ingest.py [--runs 20] [--points 50000]
       [--skip-multiplexer] [--logdir DIR] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def generate(
    logdir: str,
    runs: int,
    points: int,
    hist_steps: int,
    tags: tuple[str, ...] = ("loss/train", "accuracy/train"),
) -> int:
    """Writes the synthetic logdir; returns the number of scalar points.

    Points alternate between `tags`, two per step for the default pair.
    """
    from tensorboard.compat.proto import event_pb2, summary_pb2

    from tb_multiframework.ingest.crc32c import masked_crc32c_many

    rng = np.random.default_rng(0)
    total = 0
    for r in range(runs):
        payloads = [
            event_pb2.Event(
                wall_time=1.7e9, file_version="brain.Event:2"
            ).SerializeToString()
        ]
        values = np.cumsum(rng.normal(size=points)).astype(np.float32)
        for i in range(points):
            event = event_pb2.Event(
                wall_time=1.7e9 + i * 0.05, step=i // len(tags)
            )
            event.summary.value.add(
                tag=tags[i % len(tags)], simple_value=float(values[i])
            )
            payloads.append(event.SerializeToString())
        # Torch's default buckets: exponential on both sides of zero.
        positive = 1e-12 * 1.1 ** np.arange(0, 330)
        limits = np.concatenate((-positive[::-1], [0.0], positive, [1.8e308]))
        for step in range(hist_steps):
            for tag in ("weights/fc1", "grads/fc1"):
                weights = rng.normal(0, 0.1 + step / hist_steps, 4096)
                edges = np.concatenate(([-1.8e308], limits))
                counts = np.histogram(weights, bins=edges)[0].astype(float)
                histo = summary_pb2.HistogramProto(
                    min=float(weights.min()),
                    max=float(weights.max()),
                    num=float(len(weights)),
                    bucket_limit=limits.tolist(),
                    bucket=counts.tolist(),
                )
                event = event_pb2.Event(wall_time=1.7e9 + step, step=step * 100)
                event.summary.value.add(tag=tag, histo=histo)
                payloads.append(event.SerializeToString())
        total += points
        _write_records(
            os.path.join(logdir, f"run_{r:02d}"),
            f"events.out.tfevents.1700000000.bench.{1000 + r}.0",
            payloads,
            masked_crc32c_many,
        )
    return total


def _write_records(directory: str, name: str, payloads, crc_many) -> None:
    os.makedirs(directory, exist_ok=True)
    lengths = np.array([len(p) for p in payloads], dtype=np.int64)
    headers = b"".join(struct.pack("<Q", n) for n in lengths)
    header_array = np.frombuffer(headers, dtype=np.uint8)
    header_crcs = crc_many(
        header_array, np.arange(len(lengths)) * 8, np.full(len(lengths), 8)
    )
    body = b"".join(payloads)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    payload_crcs = crc_many(
        np.frombuffer(body, dtype=np.uint8), starts, lengths
    )
    with open(os.path.join(directory, name), "wb") as handle:
        for i, payload in enumerate(payloads):
            handle.write(
                struct.pack("<QI", int(lengths[i]), int(header_crcs[i]))
                + payload
                + struct.pack("<I", int(payload_crcs[i]))
            )


def measure_ours(logdir: str) -> dict:
    from tb_multiframework.ingest.loader import Loader
    from tb_multiframework.settings.config import Config
    from tb_multiframework.store.store import Store

    store = Store()
    loader = Loader(logdir, store, config=Config)
    before = _rss()
    started = time.perf_counter()
    loader.reload()
    seconds = time.perf_counter() - started
    after = _rss()
    points = sum(s.num_points for s in store.summaries())
    histograms = sum(s.num_histograms for s in store.summaries())
    return {
        "seconds": seconds,
        "points": points,
        "histograms": histograms,
        "rss_bytes": after - before,
    }


def measure_bare(logdir: str) -> dict:
    from tensorboard.compat.proto import event_pb2

    parse = event_pb2.Event.FromString
    started = time.perf_counter()
    events = 0
    for directory, _, names in os.walk(logdir):
        for name in names:
            if "tfevents" not in name:
                continue
            with open(os.path.join(directory, name), "rb") as handle:
                while True:
                    header = handle.read(12)
                    if len(header) < 12:
                        break
                    (length,) = struct.unpack("<Q", header[:8])
                    parse(handle.read(length))
                    handle.read(4)
                    events += 1
    return {"seconds": time.perf_counter() - started, "events": events}


def measure_multiplexer(logdir: str) -> dict:
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.backend.event_processing.plugin_event_multiplexer import (
        EventMultiplexer,
    )

    keep_all = {
        event_accumulator.SCALARS: 0,
        event_accumulator.HISTOGRAMS: 0,
        event_accumulator.TENSORS: 0,
        event_accumulator.COMPRESSED_HISTOGRAMS: 0,
    }
    before = _rss()
    started = time.perf_counter()
    multiplexer = EventMultiplexer(size_guidance=keep_all)
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    seconds = time.perf_counter() - started
    after = _rss()
    points = 0
    for run, tags in multiplexer.Runs().items():
        for tag in tags.get("tensors", []):
            points += len(multiplexer.Tensors(run, tag))
    return {
        "seconds": seconds,
        "tensor_points": points,
        "rss_bytes": after - before,
    }


def _in_subprocess(kind: str, logdir: str) -> dict:
    output = subprocess.run(
        [sys.executable, __file__, "--measure", kind, "--logdir", logdir],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--points", type=int, default=50_000)
    parser.add_argument("--hist-steps", type=int, default=50)
    parser.add_argument("--logdir", default="")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-multiplexer", action="store_true")
    parser.add_argument("--measure", choices=("ours", "bare", "multiplexer"))
    args = parser.parse_args()
    if args.measure:
        fn = {
            "ours": measure_ours,
            "bare": measure_bare,
            "multiplexer": measure_multiplexer,
        }[args.measure]
        print(json.dumps(fn(args.logdir)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        logdir = args.logdir or os.path.join(scratch, "logs")
        if not os.path.isdir(logdir) or not os.listdir(logdir):
            started = time.perf_counter()
            total = generate(logdir, args.runs, args.points, args.hist_steps)
            print(
                f"generated {total:,} scalar points in {args.runs} runs "
                f"({time.perf_counter() - started:.1f} s)"
            )
        size = sum(
            os.path.getsize(os.path.join(d, n))
            for d, _, names in os.walk(logdir)
            for n in names
        )
        print(f"logdir: {logdir} ({size / 1e6:.1f} MB)")
        rows = []
        for attempt in range(args.repeat):
            # Interleaved, so machine load hits every contender alike.
            ours = _in_subprocess("ours", logdir)
            bare = _in_subprocess("bare", logdir)
            row = {"ours": ours, "bare": bare}
            if not args.skip_multiplexer:
                row["multiplexer"] = _in_subprocess("multiplexer", logdir)
            rows.append(row)
            _print_row(attempt, row)
        _print_summary(rows)


def _print_row(attempt: int, row: dict) -> None:
    ours, bare = row["ours"], row["bare"]
    line = (
        f"[{attempt}] ours {ours['seconds']:.2f} s "
        f"({ours['points']:,} points, {ours['histograms']:,} histograms, "
        f"{ours['rss_bytes'] / ours['points']:.1f} B/point) | "
        f"bare loop {bare['seconds']:.2f} s ({bare['events']:,} events)"
    )
    if "multiplexer" in row:
        mux = row["multiplexer"]
        line += (
            f" | multiplexer {mux['seconds']:.1f} s "
            f"({mux['tensor_points']:,} tensor points, "
            f"{mux['rss_bytes'] / 1e9:.2f} GB)"
        )
    print(line, flush=True)


def _print_summary(rows: list) -> None:
    def median(values):
        return float(np.median(values))

    ours = median([r["ours"]["seconds"] for r in rows])
    bare = median([r["bare"]["seconds"] for r in rows])
    per_point = median(
        [r["ours"]["rss_bytes"] / r["ours"]["points"] for r in rows]
    )
    print()
    print("| measure | value | target |")
    print("|---|---|---|")
    print(f"| ours, cold ingest | {ours:.2f} s | |")
    print(f"| bare record+parse loop | {bare:.2f} s | |")
    print(f"| ours / bare loop | {ours / bare:.2f}x | <= 2x |")
    if all("multiplexer" in r for r in rows):
        mux = median([r["multiplexer"]["seconds"] for r in rows])
        mux_mem = median([r["multiplexer"]["rss_bytes"] for r in rows])
        print(
            f"| EventMultiplexer (size guidance 0) | {mux:.1f} s, {mux_mem / 1e9:.2f} GB | |"
        )
        print(f"| multiplexer / ours | {mux / ours:.1f}x | > 10x |")
    print(
        f"| our resident memory per scalar point | {per_point:.1f} B | <= 40 B |"
    )


if __name__ == "__main__":
    main()
