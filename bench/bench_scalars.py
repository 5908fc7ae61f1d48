"""Our `scalars` route vs TensorBoard's own `scalars_multirun`, one process.

Starts one real TensorBoard (default `--load_fast`, i.e. the Rust data
server, which keeps 1000 sampled points a series) with this plugin on a
synthetic logdir (default 50 runs x 100,000 points of one tag), waits until
both have loaded everything, then times, interleaved:

* TensorBoard: POST /data/plugin/scalars/scalars_multirun (all runs, one tag)
  - cold (first request) and warm (repeats);
* ours: GET /data/plugin/tb_multiframework/scalars (the same runs and tag,
  points=2000, every logged point accounted for)
  - cold (first request after loading: builds epoch maps and metric index),
  - warm (repeats; answered from the cache keyed by arguments and data),
  - warm recompute (a new smoothing weight each time, so nothing is cached:
    smoothing over all 5M points, min/max downsampling, JSON).

Prints medians and ratios. Usage:
  python bench/bench_scalars.py [--runs 50] [--points 100000] [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_ingest import generate  # noqa: E402

TAG = "loss/train"


def _start_tensorboard(logdir: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tensorboard.main",
            "--logdir",
            logdir,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--reload_interval",
            "600",
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    deadline = time.time() + 120
    assert process.stderr is not None
    while time.time() < deadline:
        line = process.stderr.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        if found:
            return process, found.group(1)
    process.kill()
    raise RuntimeError("TensorBoard did not start")


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=600) as response:
        return response.read()


def _post(url: str, form: list[tuple[str, str]]) -> bytes:
    data = urllib.parse.urlencode(form).encode()
    with urllib.request.urlopen(url, data=data, timeout=600) as response:
        return response.read()


def _timed(fn) -> tuple[float, bytes]:
    started = time.perf_counter()
    body = fn()
    return time.perf_counter() - started, body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--logdir", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        logdir = args.logdir or os.path.join(scratch, "logs")
        if not os.path.isdir(logdir) or not os.listdir(logdir):
            started = time.perf_counter()
            generate(logdir, args.runs, args.points, 0, tags=(TAG,))
            print(
                f"generated {args.runs} runs x {args.points:,} points "
                f"({time.perf_counter() - started:.0f} s)"
            )
        process, base = _start_tensorboard(logdir)
        try:
            _run(base, args)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def _run(base: str, args: argparse.Namespace) -> None:
    runs = [f"run_{r:02d}" for r in range(args.runs)]
    ours_url = (
        f"{base}/data/plugin/tb_multiframework/scalars?"
        + urllib.parse.urlencode(
            [("run", r) for r in runs] + [("tag", TAG), ("points", "2000")]
        )
    )
    tb_url = f"{base}/data/plugin/scalars/scalars_multirun"
    tb_form = [("tag", TAG)] + [("runs", r) for r in runs]
    last_step = args.points - 1
    started = time.time()
    while True:
        catalog = json.loads(_get(f"{base}/data/plugin/tb_multiframework/runs"))
        ours_ready = not catalog["loading"] and len(catalog["runs"]) == len(
            runs
        )
        theirs = json.loads(_post(tb_url, tb_form))
        tb_ready = len(theirs) == len(runs) and all(
            points and points[-1][1] == last_step for points in theirs.values()
        )
        if ours_ready and tb_ready:
            break
        if time.time() - started > 1800:
            raise RuntimeError("loading did not finish in 30 min")
        time.sleep(2)
    print(f"both loaded after {time.time() - started:.0f} s of polling")

    ours_cold, body = _timed(lambda: _get(ours_url))
    ours = json.loads(body)
    returned = sum(s["returned"] for s in ours["series"])
    total = sum(s["total"] for s in ours["series"])
    tb_cold, tb_body = _timed(lambda: _post(tb_url, tb_form))
    tb_points = sum(len(v) for v in json.loads(tb_body).values())
    print(
        f"ours: {len(body) / 1e6:.1f} MB, {returned:,} points sent standing "
        f"for all {total:,} logged | TensorBoard: {len(tb_body) / 1e6:.1f} MB,"
        f" {tb_points:,} sampled points"
    )
    ours_warm, tb_warm, ours_recompute = [], [], []
    for i in range(args.repeat):
        tb_warm.append(_timed(lambda: _post(tb_url, tb_form))[0])
        ours_warm.append(_timed(lambda: _get(ours_url))[0])
        weight = 0.5 + i / (4 * args.repeat)  # a new weight: no cache hit
        fresh_url = f"{ours_url}&smoothing={weight:.6f}"
        ours_recompute.append(_timed(lambda url=fresh_url: _get(url))[0])
    rows = [
        ("TensorBoard scalars_multirun, cold", tb_cold),
        ("TensorBoard scalars_multirun, warm", statistics.median(tb_warm)),
        ("ours, cold (first request)", ours_cold),
        ("ours, warm (cached answer)", statistics.median(ours_warm)),
        (
            "ours, warm recompute (new smoothing)",
            statistics.median(ours_recompute),
        ),
    ]
    print()
    print("| request | median ms |")
    print("|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds * 1000:.0f} |")
    tb = statistics.median(tb_warm)
    print()
    print(
        f"ours warm / TensorBoard warm: {statistics.median(ours_warm) / tb:.2f}x"
    )
    print(
        "ours warm recompute / TensorBoard warm: "
        f"{statistics.median(ours_recompute) / tb:.2f}x"
    )
    print(f"ours cold / TensorBoard cold: {ours_cold / tb_cold:.2f}x")


if __name__ == "__main__":
    main()
