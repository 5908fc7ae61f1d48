"""Our `scalars` route vs TensorBoard's own `scalars_multirun`, one process.

Starts one real TensorBoard (default `--load_fast`, i.e. the Rust data
server, which keeps 1000 sampled points a series) with this plugin on a
synthetic logdir (default 50 runs x 100,000 points of one tag), waits until
both have loaded everything, then times each of our requests to the last
byte right after one of TensorBoard's (POST
/data/plugin/scalars/scalars_multirun, all runs, one tag), so both meet the
same machine load. Ours is what the tab asks for (`encoding=b64`,
points=2000, every logged point accounted for); each kind of request is new
to every cache except where a user would already have asked the step before:

* cold: the first request after loading (no smoothing, no baseline);
* new smoothing: a weight not asked before (smoothing over all 5M points,
  min/max downsampling, encoding);
* new baseline: a baseline run not asked before, at the weight of the chart
  (49 difference curves on the union of x at full resolution);
* new baseline + new smoothing: both at once (nothing cached);
* zoom: a window (xMin/xMax, 2-20% of the steps) not asked before;
* group aggregate: mean or median with a band over groups of 5 runs (set
  in the logdir's config, which this bench writes), a new center/band
  each time;
* warm: a repeated request (answered from the answer cache).

Prints a table of medians with the ratio ours / TensorBoard for each row
(TensorBoard's time is the median of the requests interleaved with that
row's), the payload sizes and the machine's load. Usage:
  python bench/bench_scalars.py [--runs 50] [--points 100000] [--repeat 9]
      [--rounds 1] [--logdir DIR] [--gzip] [--encoding b64|json]
"""

from __future__ import annotations

import argparse
import gzip
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
POINTS = 2000  # points per series the tab asks for


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


class _Client:
    """GET/POST to the last byte; gunzips when asked for gzip."""

    def __init__(self, use_gzip: bool) -> None:
        self.headers = {"Accept-Encoding": "gzip"} if use_gzip else {}

    def get(self, url: str) -> bytes:
        return self._read(urllib.request.Request(url, headers=self.headers))

    def post(self, url: str, form: list[tuple[str, str]]) -> bytes:
        data = urllib.parse.urlencode(form).encode()
        request = urllib.request.Request(url, data=data, headers=self.headers)
        return self._read(request)

    def _read(self, request: urllib.request.Request) -> bytes:
        with urllib.request.urlopen(request, timeout=600) as response:
            body = response.read()
            if response.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if response.status != 200:
                raise RuntimeError(f"HTTP {response.status}: {body[:200]!r}")
            return body


def _get(url: str) -> bytes:
    """GET without gzip (bench_aggregate uses these two as well)."""
    return _Client(use_gzip=False).get(url)


def _post(url: str, form: list[tuple[str, str]]) -> bytes:
    return _Client(use_gzip=False).post(url, form)


def _timed(fn) -> tuple[float, bytes]:
    started = time.perf_counter()
    body = fn()
    return time.perf_counter() - started, body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--logdir", default="")
    parser.add_argument(
        "--gzip",
        action="store_true",
        help="send Accept-Encoding: gzip, as a browser does",
    )
    parser.add_argument("--encoding", default="b64", choices=("b64", "json"))
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="fresh TensorBoard processes to pool (cold is one per round)",
    )
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
        from bench_aggregate import write_config  # imports this module

        write_config(logdir, args.runs, GROUP_SIZE)
        pooled: dict[str, tuple[list[float], list[float]]] = {}
        for _ in range(args.rounds):
            process, base = _start_tensorboard(logdir)
            try:
                for label, mine, theirs in _run(base, args):
                    got = pooled.setdefault(label, ([], []))
                    got[0].extend(mine)
                    got[1].extend(theirs)
            finally:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
        _print_table(pooled, args.rounds)


GROUP_SIZE = 5  # runs a group in the logdir's config (group aggregate row)


def _aggregate_urls(url, weight: str, count: int) -> list[str]:
    """Group aggregates (issue 9): mean or median with a band over the
    groups of `GROUP_SIZE` runs that `main` writes into the logdir's config,
    at the chart's weight, each request a center/band pair not asked
    before; the members' own series are not sent (includeSeries=0)."""
    pairs = [
        (center, band)
        for band in ("std", "minmax", "ci95", "none")
        for center in ("mean", "median")
    ]
    return [
        url(
            ("smoothing", weight),
            ("groupBy", "group"),
            ("aggregate", center),
            ("band", band),
            ("includeSeries", "0"),
        )
        for center, band in pairs[:count]
    ]


def _run(
    base: str, args: argparse.Namespace
) -> list[tuple[str, list[float], list[float]]]:
    """One round: every row's times, ours and TensorBoard's (seconds)."""
    client = _Client(args.gzip)
    runs = [f"run_{r:02d}" for r in range(args.runs)]
    common = [("run", r) for r in runs] + [
        ("tag", TAG),
        ("points", str(POINTS)),
        ("encoding", args.encoding),
    ]
    ours = f"{base}/data/plugin/tb_multiframework/scalars?"
    tb_url = f"{base}/data/plugin/scalars/scalars_multirun"
    tb_form = [("tag", TAG)] + [("runs", r) for r in runs]
    _wait_loaded(client, base, runs, tb_url, tb_form, args.points - 1)

    def url(*extra: tuple[str, str]) -> str:
        return ours + urllib.parse.urlencode(common + list(extra))

    rows: list[tuple[str, list[float], list[float]]] = []

    def row(label: str, urls: list[str]) -> bytes:
        """Times each url right after one TensorBoard request."""
        theirs, mine, body = [], [], b""
        for u in urls:
            theirs.append(_timed(lambda: client.post(tb_url, tb_form))[0])
            seconds, body = _timed(lambda u=u: client.get(u))
            mine.append(seconds)
        rows.append((label, mine, theirs))
        return body

    cold_body = row("cold (first request after loading)", [url()])
    tb_body = client.post(tb_url, tb_form)
    repeat = args.repeat
    weights = [f"{0.5 + i / (4 * repeat):.6f}" for i in range(repeat)]
    row("new smoothing weight", [url(("smoothing", w)) for w in weights])
    # The chart's weight was asked for just before: as in the tab, where a
    # baseline is picked on a chart that is already drawn.
    chart_weight = weights[-1]
    baselines = runs[1 : repeat + 1]
    row(
        f"new baseline ({len(runs) - 1} difference curves)",
        [url(("smoothing", chart_weight), ("baseline", b)) for b in baselines],
    )
    fresh = [f"{0.3 + i / (4 * repeat):.6f}" for i in range(repeat)]
    baseline_body = row(
        "new baseline + new smoothing (nothing cached)",
        [
            url(("smoothing", w), ("baseline", b))
            for w, b in zip(fresh, reversed(runs[-repeat:]), strict=False)
        ],
    )
    windows = _windows(args.points, repeat)
    zoom_body = row(
        "zoom window (xMin/xMax, new)",
        [
            url(("smoothing", chart_weight), ("xMin", lo), ("xMax", hi))
            for lo, hi in windows
        ],
    )
    row(
        f"group aggregate ({len(runs) // GROUP_SIZE} groups of {GROUP_SIZE},"
        " center + band)",
        _aggregate_urls(url, chart_weight, repeat),
    )
    row("warm (cached answer)", [url()] * repeat)

    cold = json.loads(cold_body)
    returned = sum(s["returned"] for s in cold["series"])
    total = sum(s["total"] for s in cold["series"])
    tb_points = sum(len(v) for v in json.loads(tb_body).values())
    print(
        f"ours ({args.encoding}{', gzip' if args.gzip else ''}): "
        f"{len(cold_body) / 1e6:.1f} MB, {returned:,} points sent standing "
        f"for all {total:,} logged; with a baseline "
        f"{len(baseline_body) / 1e6:.1f} MB; zoomed "
        f"{len(zoom_body) / 1e6:.1f} MB | TensorBoard: "
        f"{len(tb_body) / 1e6:.1f} MB, {tb_points:,} sampled points"
    )
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"load average (1, 5, 15 min): {load} on {os.cpu_count()} cores")
    return rows


def _print_table(
    pooled: dict[str, tuple[list[float], list[float]]], rounds: int
) -> None:
    print()
    print(f"medians over {rounds} round(s) of fresh TensorBoard processes")
    print("| request | ours ms | TensorBoard ms | ours / TensorBoard |")
    print("|---|---|---|---|")
    for label, (mine, theirs) in pooled.items():
        if not mine:
            print(f"| {label} | n/a | n/a | n/a |")
            continue
        m, t = statistics.median(mine), statistics.median(theirs)
        print(f"| {label} | {m * 1000:.0f} | {t * 1000:.0f} | {m / t:.2f}x |")


def _windows(points: int, count: int) -> list[tuple[str, str]]:
    """Zoom windows of 2..20% of the steps, each new."""
    out = []
    for i in range(count):
        width = points * (0.02 + 0.18 * i / max(count - 1, 1))
        lo = (points - width) * ((i * 0.37) % 1.0)
        out.append((f"{lo:.3f}", f"{lo + width:.3f}"))
    return out


def _wait_loaded(client, base, runs, tb_url, tb_form, last_step) -> None:
    started = time.time()
    while True:
        catalog = json.loads(
            client.get(f"{base}/data/plugin/tb_multiframework/runs")
        )
        ours_ready = not catalog["loading"] and len(catalog["runs"]) == len(
            runs
        )
        theirs = json.loads(client.post(tb_url, tb_form))
        tb_ready = len(theirs) == len(runs) and all(
            points and points[-1][1] == last_step for points in theirs.values()
        )
        if ours_ready and tb_ready:
            break
        if time.time() - started > 1800:
            raise RuntimeError("loading did not finish in 30 min")
        time.sleep(2)
    print(f"both loaded after {time.time() - started:.0f} s of polling")


if __name__ == "__main__":
    main()
