"""Restarts: cold start vs a start from the persistent cache, and memory.

Generates a synthetic logdir (default 200 runs x 100,000 scalar points =
20,000,000, four tags a run, one point per event as torch writes them, wall
times 20-80 ms apart, float32 values), then, each in a fresh process:

* cold: the plugin built as TensorBoard builds it, with an empty cache
  directory, until every run is loaded (and the cache written), then the
  first `scalars` request that returns a whole series;
* restart: the same with the cache the cold start left;
* no cache (`--tbmf_cache_dir=none`), for the cold figure without writing
  the cache.

Each prints seconds to "all runs loaded" and to the first answered
`scalars`, the time of a reload that finds nothing new (the files' identity
checks: a few small reads per file each reload), and resident memory per
scalar point (the process' RSS growth
over the load divided by the points; memory-mapped cache pages that were
touched count). With `--tensorboard`, the same cold/restart pair also runs
as real `tensorboard` processes (default `--load_fast`), timed from spawn.

`--decode` instead measures what decoding packed series costs a `scalars`
request on bench_scalars-sized data (50 runs x 100,000 points).

Usage: python bench/bench_restart.py [--runs 200] [--points 100000]
       [--logdir DIR (reused if it exists)] [--tensorboard] [--decode]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

TAGS = ("loss/train", "accuracy/train", "learning_rate", "grad_norm")
_POLL_S = 0.05  # between requests while waiting (a UI polls far less)


def _varint_columns(values: np.ndarray, width: int) -> np.ndarray:
    """(n, width) varint bytes of non-negative ints that take `width`."""
    out = np.empty((len(values), width), dtype=np.uint8)
    rest = values.astype(np.uint64)
    for i in range(width):
        byte = (rest & np.uint64(0x7F)).astype(np.uint8)
        rest >>= np.uint64(7)
        out[:, i] = byte | (0x80 if i < width - 1 else 0)
    return out


def _varint_width(values: np.ndarray) -> np.ndarray:
    width = np.ones(len(values), dtype=np.int64)
    for bits in (7, 14, 21, 28, 35, 42, 49, 56, 63):
        width += values >= (1 << bits)
    return width


def event_records(
    tags: tuple[str, ...],
    tag_ids: np.ndarray,
    steps: np.ndarray,
    walls: np.ndarray,
    values: np.ndarray,
) -> bytes:
    """TFRecord-framed legacy scalar Events (one `simple_value` each).

    Built column-wise with numpy; the CRCs come from the reader's own
    vectorised CRC-32C, which the tests check against TensorBoard's.
    """
    from tb_multiframework.ingest.crc32c import masked_crc32c_many

    step_width = _varint_width(steps)
    tag_len = np.array([len(t.encode()) for t in tags])[tag_ids]
    value_len = 2 + tag_len + 5
    summary_len = 2 + value_len
    payload_len = 9 + 1 + step_width + 2 + summary_len
    record_len = 16 + payload_len
    offsets = np.concatenate(([0], np.cumsum(record_len)[:-1]))
    out = np.zeros(int(record_len.sum()), dtype=np.uint8)
    for tag_id, tag in enumerate(tags):
        for width in np.unique(step_width):
            rows = np.flatnonzero((tag_ids == tag_id) & (step_width == width))
            if len(rows) == 0:
                continue
            encoded = tag.encode()
            plen = int(payload_len[rows[0]])
            matrix = np.zeros((len(rows), 16 + plen), dtype=np.uint8)
            matrix[:, 0:8] = np.frombuffer(
                np.int64(plen).tobytes(), dtype=np.uint8
            )
            col = 12
            matrix[:, col] = 0x09
            matrix[:, col + 1 : col + 9] = (
                walls[rows].astype("<f8").view(np.uint8).reshape(-1, 8)
            )
            col += 9
            matrix[:, col] = 0x10
            matrix[:, col + 1 : col + 1 + width] = _varint_columns(
                steps[rows], int(width)
            )
            col += 1 + int(width)
            vlen = 2 + len(encoded) + 5
            head = [0x2A, vlen + 2, 0x0A, vlen, 0x0A, len(encoded)]
            matrix[:, col : col + 6] = head
            col += 6
            matrix[:, col : col + len(encoded)] = np.frombuffer(
                encoded, dtype=np.uint8
            )
            col += len(encoded)
            matrix[:, col] = 0x15
            matrix[:, col + 1 : col + 5] = (
                values[rows].astype("<f4").view(np.uint8).reshape(-1, 4)
            )
            flat = matrix.reshape(-1)
            width_all = 16 + plen
            starts = np.arange(len(rows)) * width_all
            length_crc = masked_crc32c_many(
                flat[:8], np.array([0]), np.array([8])
            )[0]
            matrix[:, 8:12] = np.frombuffer(
                np.uint32(length_crc).tobytes(), dtype=np.uint8
            )
            crcs = masked_crc32c_many(
                flat, starts + 12, np.full(len(rows), plen)
            )
            matrix[:, 12 + plen :] = (
                crcs.astype("<u4").view(np.uint8).reshape(-1, 4)
            )
            target = offsets[rows][:, None] + np.arange(width_all)
            out[target] = matrix
    return out.tobytes()


def generate(logdir: str, runs: int, points: int) -> int:
    """Writes the synthetic logdir; returns the number of scalar points."""
    from tensorboard.compat.proto import event_pb2

    from tests.eventfiles import record_bytes

    rng = np.random.default_rng(0)
    for r in range(runs):
        n = points
        tag_ids = np.arange(n) % len(TAGS)
        steps = (np.arange(n) // len(TAGS)).astype(np.int64)
        gaps = rng.uniform(0.02, 0.08, n)
        walls = 1.7e9 + r * 1e4 + np.cumsum(gaps)
        values = np.cumsum(rng.normal(size=n)).astype(np.float32)
        header = record_bytes(
            [
                event_pb2.Event(
                    wall_time=1.7e9, file_version="brain.Event:2"
                ).SerializeToString()
            ]
        )
        body = event_records(TAGS, tag_ids, steps, walls, values)
        directory = os.path.join(logdir, f"run_{r:03d}")
        os.makedirs(directory, exist_ok=True)
        name = f"events.out.tfevents.1700000000.bench.{1000 + r}.0"
        with open(os.path.join(directory, name), "wb") as handle:
            handle.write(header + body)
    return runs * points


def check_generated(logdir: str, per_run: int) -> None:
    """The generator against TensorBoard's own reader: a random sample
    (steps of every varint width) field for field, and run_000's count."""
    from tensorboard.backend.event_processing import event_file_loader

    rng = np.random.default_rng(1)
    n = 3000
    tag_ids = rng.integers(0, len(TAGS), n)
    steps = rng.integers(0, 2**40, n) >> rng.integers(0, 40, n)
    walls = 1.7e9 + rng.uniform(0, 1e6, n)
    values = rng.normal(size=n).astype(np.float32)
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "events.out.tfevents.1.check")
        with open(path, "wb") as handle:
            handle.write(event_records(TAGS, tag_ids, steps, walls, values))
        events = list(event_file_loader.LegacyEventFileLoader(path).Load())
    assert len(events) == n
    for i, event in enumerate(events):
        (value,) = event.summary.value
        assert (event.step, event.wall_time) == (steps[i], walls[i])
        assert value.tag == TAGS[tag_ids[i]]
        assert np.float32(value.simple_value) == values[i]
    directory = os.path.join(logdir, "run_000")
    (name,) = os.listdir(directory)
    loader = event_file_loader.LegacyEventFileLoader(
        os.path.join(directory, name)
    )
    count = sum(1 for e in loader.Load() if e.HasField("summary"))
    assert count == per_run, (count, per_run)


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure_plugin(logdir: str, cache_dir: str) -> dict:
    """In this process: the plugin as TensorBoard builds it; load; query."""
    import argparse as _argparse

    from tensorboard.backend import application
    from tensorboard.plugins import base_plugin
    from werkzeug import test as werkzeug_test

    from tb_multiframework import cache  # noqa: F401 - imported first
    from tb_multiframework.api import service as api  # noqa: F401 - imported first
    from tb_multiframework.cache import loader_cache  # noqa: F401
    from tb_multiframework.plugin import MultiframeworkLoader

    baseline = _rss()
    started = time.perf_counter()
    parser = _argparse.ArgumentParser()
    loader = MultiframeworkLoader()
    loader.define_flags(parser)
    flags = parser.parse_args(["--tbmf_cache_dir", cache_dir])
    flags.logdir = logdir
    flags.reload_interval = 0
    flags.reload_task = "auto"
    plugin = loader.load(base_plugin.TBContext(logdir=logdir, flags=flags))
    client = werkzeug_test.Client(application.TensorBoardWSGI([plugin]))
    base = "/data/plugin/tb_multiframework/"
    with open(os.path.join(logdir, "points.json")) as handle:
        info = json.load(handle)
    per_tag = info["points"] // info["runs"] // len(TAGS)
    query = urllib.parse.urlencode(
        {"run": f"run_{info['runs'] - 1:03d}", "tag": TAGS[0], "points": 1000}
    )
    first_scalars = None
    while True:
        response = client.get(f"{base}scalars?{query}")
        if response.status_code == 200:
            (series,) = response.json["series"]
            if series["total"] == per_tag:
                first_scalars = time.perf_counter() - started
                break
        time.sleep(_POLL_S)
    while client.get(f"{base}runs").json["loading"]:
        time.sleep(_POLL_S)
    loaded = time.perf_counter() - started
    runs = client.get(f"{base}runs").json["runs"]
    points = sum(r["numPoints"] for r in runs)
    rss = _rss() - baseline
    # A reload that finds nothing new: what the loader's per-file identity
    # checks (and the rest of a reload's bookkeeping) cost every interval.
    reloads = []
    for _ in range(3):
        begun = time.perf_counter()
        plugin._loader.reload()
        reloads.append(time.perf_counter() - begun)
    return {
        "unchangedReload": sorted(reloads)[1],
        "firstScalars": first_scalars,
        "loaded": loaded,
        "points": points,
        "runs": len(runs),
        "bytesPerPoint": rss / max(points, 1),
    }


def measure_decode(runs: int, points: int) -> dict:
    """What decoding packed series costs a `scalars` request.

    bench_scalars' shape: `runs` runs of one tag, `points` points each; one
    request for all runs at a new smoothing weight each time (never served
    from the answer cache), and the decoding of the same series alone. (A
    request decodes a series only when nobody holds its last decoding: the
    placed cache keeps them while it has room.)
    """
    import argparse as _argparse

    from tensorboard.backend import application
    from tensorboard.plugins import base_plugin
    from werkzeug import test as werkzeug_test

    from tb_multiframework.plugin import MultiframeworkLoader
    from tb_multiframework.store.series import decode_blocks

    with tempfile.TemporaryDirectory() as logdir:
        rng = np.random.default_rng(2)
        for r in range(runs):
            walls = 1.7e9 + np.cumsum(rng.uniform(0.02, 0.08, points))
            body = event_records(
                ("loss",),
                np.zeros(points, dtype=np.int64),
                np.arange(points, dtype=np.int64),
                walls,
                np.cumsum(rng.normal(size=points)).astype(np.float32),
            )
            directory = os.path.join(logdir, f"run_{r:03d}")
            os.makedirs(directory)
            name = f"events.out.tfevents.1700000000.bench.{r}.0"
            with open(os.path.join(directory, name), "wb") as handle:
                handle.write(body)
        parser = _argparse.ArgumentParser()
        loader = MultiframeworkLoader()
        loader.define_flags(parser)
        flags = parser.parse_args(["--tbmf_cache_dir", "none"])
        flags.logdir = logdir
        flags.reload_interval = 0
        flags.reload_task = "blocking"
        plugin = loader.load(base_plugin.TBContext(logdir=logdir, flags=flags))
        client = werkzeug_test.Client(application.TensorBoardWSGI([plugin]))
        store = plugin._api._store
        names = [f"run_{r:03d}" for r in range(runs)]
        query = [("run", n) for n in names] + [("tag", "loss")]
        client.get("/data/plugin/tb_multiframework/runs")
        decode, request = [], []
        for i in range(7):
            started = time.perf_counter()  # the packed blocks, decoded
            kept = [
                decode_blocks(store.scalar_blocks(n, "loss")) for n in names
            ]
            decode.append(time.perf_counter() - started)
            del kept
            args = query + [("points", 2000), ("smoothing", 0.5 + i / 100)]
            started = time.perf_counter()
            response = client.get(
                "/data/plugin/tb_multiframework/scalars?"
                + urllib.parse.urlencode(args)
            )
            request.append(time.perf_counter() - started)
            assert response.status_code == 200
    return {
        "decode": float(np.median(decode)),
        "request": float(np.median(request)),
        "points": runs * points,
    }


def _child(logdir: str, cache_dir: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", logdir, cache_dir],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _tensorboard(logdir: str, cache_dir: str, info: dict) -> dict:
    """A real `tensorboard` process: spawn to the first whole `scalars`."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [
            os.path.join(os.path.dirname(sys.executable), "tensorboard"),
            "--logdir",
            logdir,
            "--port",
            "0",
            "--host",
            "127.0.0.1",
            "--tbmf_cache_dir",
            cache_dir,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    try:
        url = None
        assert process.stderr is not None
        for line in process.stderr:
            if " at http://" in line:
                url = line.split(" at ")[1].split(" ")[0].rstrip("/")
                break
        up = time.perf_counter() - started
        per_tag = info["points"] // info["runs"] // len(TAGS)
        query = urllib.parse.urlencode(
            {
                "run": f"run_{info['runs'] - 1:03d}",
                "tag": TAGS[0],
                "points": 1000,
            }
        )
        while True:
            try:
                with urllib.request.urlopen(
                    f"{url}/data/plugin/tb_multiframework/scalars?{query}"
                ) as response:
                    (series,) = json.load(response)["series"]
                if series["total"] == per_tag:
                    break
            except OSError:
                pass
            time.sleep(_POLL_S)
        first = time.perf_counter() - started
        while True:  # the cache is written at the end of the load
            with urllib.request.urlopen(
                f"{url}/data/plugin/tb_multiframework/runs"
            ) as response:
                if not json.load(response)["loading"]:
                    break
            time.sleep(_POLL_S)
        loaded = time.perf_counter() - started
        with open(f"/proc/{process.pid}/status") as handle:
            rss = next(
                int(line.split()[1]) * 1024
                for line in handle
                if line.startswith("VmRSS")
            )
        return {"up": up, "firstScalars": first, "loaded": loaded, "rss": rss}
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--logdir", default="")
    parser.add_argument("--tensorboard", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("LOGDIR", "CACHE"))
    parser.add_argument(
        "--decode", action="store_true", help="only the decoding cost"
    )
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_plugin(*args.child)))
        return
    if args.decode:
        found = measure_decode(50, 100_000)
        print(
            f"decoding {found['points']:,} packed points (bench_scalars' "
            f"50 runs x 100,000): {found['decode'] * 1e3:.0f} ms median; a "
            f"whole uncached `scalars` request over them: "
            f"{found['request'] * 1e3:.0f} ms (decoding "
            f"{found['decode'] / found['request']:.0%} of it)"
        )
        return
    work = tempfile.mkdtemp(prefix="bench_restart_")
    logdir = args.logdir or os.path.join(work, "logs")
    marker = os.path.join(logdir, "points.json")
    if not os.path.exists(marker):
        started = time.perf_counter()
        total = generate(logdir, args.runs, args.points)
        with open(marker, "w") as handle:
            json.dump({"points": total, "runs": args.runs}, handle)
        print(
            f"generated {total:,} points in {args.runs} runs "
            f"({time.perf_counter() - started:.1f} s)"
        )
    with open(marker) as handle:
        info = json.load(handle)
    check_generated(logdir, info["points"] // info["runs"])
    size = sum(
        os.path.getsize(os.path.join(d, f))
        for d, _, files in os.walk(logdir)
        for f in files
    )
    print(f"logdir {logdir}: {info['points']:,} points, {size / 1e6:.0f} MB")
    cache = os.path.join(work, "cache")
    try:
        nocache = _child(logdir, "none")
        cold = _child(logdir, cache)
        restart = _child(logdir, cache)
        cache_bytes = sum(
            os.path.getsize(os.path.join(d, f))
            for d, _, files in os.walk(cache)
            for f in files
        )
        rows = [
            ("cold, no cache", nocache),
            ("cold, writing the cache", cold),
            ("restart from the cache", restart),
        ]
        print(
            "\n| start | first whole `scalars` | all runs loaded | "
            "resident B/point | reload, nothing new (median of 3) |"
            "\n|---|---|---|---|---|"
        )
        for label, row in rows:
            print(
                f"| {label} | {row['firstScalars']:.2f} s | "
                f"{row['loaded']:.2f} s | {row['bytesPerPoint']:.1f} | "
                f"{row['unchangedReload'] * 1e3:.0f} ms |"
            )
        print(
            f"\nrestart / cold (first scalars): "
            f"{restart['firstScalars'] / cold['firstScalars']:.3f} "
            f"(target <= 0.1); restart {restart['firstScalars']:.2f} s "
            f"(target <= 3 s); cache {cache_bytes / 1e6:.0f} MB "
            f"({cache_bytes / info['points']:.1f} B/point on disk)"
        )
        if args.tensorboard:
            shutil.rmtree(cache)
            tb_cold = _tensorboard(logdir, cache, info)
            tb_restart = _tensorboard(logdir, cache, info)
            print(
                "\n| real tensorboard | server up | first whole `scalars` "
                "| all runs loaded | process RSS |\n|---|---|---|---|---|"
            )
            for label, row in (("cold", tb_cold), ("restart", tb_restart)):
                print(
                    f"| {label} | {row['up']:.2f} s | "
                    f"{row['firstScalars']:.2f} s | {row['loaded']:.2f} s | "
                    f"{row['rss'] / 1e6:.0f} MB |"
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the cache, the generated logs


if __name__ == "__main__":
    main()
