"""Grouped mean ± std vs TensorBoard's `scalars_multirun`, one process.

Starts one real TensorBoard (default `--load_fast`: the Rust data server,
which keeps 1000 sampled points a series) with this plugin on a synthetic
logdir of 20 groups x 5 runs x 100,000 points of one tag (groups and 1000
steps an epoch set in the logdir's `.tb_multiframework/config.json`), waits
until both have loaded everything, then times, interleaved:

* TensorBoard: POST /data/plugin/scalars/scalars_multirun (the 100 runs,
  one tag) - cold (first request) and warm (repeats);
* ours: GET scalars?groupBy=group&aggregate=mean&band=std&x=epoch
  &smoothing=0.6&includeSeries=0&points=1000 (the view's default) over
  the same 100 runs (every
  point of every run smoothed, read on the union of its group's x, mean and
  sample std, min/max downsampled):
  - cold (the first request after loading: also builds epoch maps, the
    metric index, hyper-parameters and groups),
  - warm (repeats: answered from the cache),
  - warm recompute (a new smoothing weight each time: nothing cached),
  - with members (includeSeries=1: also every run's downsampled series).

Prints medians and ratios. Usage:
  python bench/bench_aggregate.py [--groups 20] [--per-group 5]
      [--points 100000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_ingest import generate  # noqa: E402
from bench_scalars import _get, _post, _start_tensorboard, _timed  # noqa: E402

TAG = "loss/train"
STEPS_PER_EPOCH = 1000


def write_config(logdir: str, runs: int, per_group: int) -> None:
    config = {
        "runs": {
            "*": {"stepsPerEpoch": STEPS_PER_EPOCH},
            **{
                f"run_{r:02d}": {"group": f"group_{r // per_group:02d}"}
                for r in range(runs)
            },
        }
    }
    os.makedirs(os.path.join(logdir, ".tb_multiframework"), exist_ok=True)
    with open(
        os.path.join(logdir, ".tb_multiframework", "config.json"), "w"
    ) as handle:
        json.dump(config, handle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--per-group", type=int, default=5)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--logdir", default="")
    parser.add_argument(
        "--cold-trials",
        type=int,
        default=3,
        help="fresh TensorBoard processes to time cold requests in",
    )
    args = parser.parse_args()
    runs = args.groups * args.per_group
    with tempfile.TemporaryDirectory() as scratch:
        logdir = args.logdir or os.path.join(scratch, "logs")
        if not os.path.isdir(logdir) or not os.listdir(logdir):
            started = time.perf_counter()
            generate(logdir, runs, args.points, 0, tags=(TAG,))
            print(
                f"generated {runs} runs x {args.points:,} points "
                f"({time.perf_counter() - started:.0f} s)"
            )
        write_config(logdir, runs, args.per_group)
        colds: list[tuple[float, float]] = []
        for trial in range(args.cold_trials):
            process, base = _start_tensorboard(logdir)
            try:
                last = trial == args.cold_trials - 1
                colds.append(_run(base, runs, args, trial, warm=last))
            finally:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
        ours = statistics.median(c[0] for c in colds)
        tb = statistics.median(c[1] for c in colds)
        print()
        print(
            f"cold, median of {len(colds)} fresh TensorBoard processes: "
            f"ours {ours * 1000:.0f} ms, TensorBoard {tb * 1000:.0f} ms, "
            f"ours / TensorBoard: {ours / tb:.2f}x"
        )


def _run(
    base: str, runs: int, args: argparse.Namespace, trial: int, *, warm: bool
) -> tuple[float, float]:
    """Times one fresh server; returns (ours cold, TensorBoard cold)."""
    names = [f"run_{r:02d}" for r in range(runs)]
    common = [("run", r) for r in names] + [
        ("tag", TAG),
        ("x", "epoch"),
        ("groupBy", "group"),
        ("aggregate", "mean"),
        ("band", "std"),
        ("points", "1000"),  # the Compare view's default
    ]
    ours_url = (
        f"{base}/data/plugin/tb_multiframework/scalars?"
        + urllib.parse.urlencode(
            common + [("smoothing", "0.6"), ("includeSeries", "0")]
        )
    )
    tb_url = f"{base}/data/plugin/scalars/scalars_multirun"
    tb_form = [("tag", TAG)] + [("runs", r) for r in names]
    last_step = args.points - 1
    started = time.time()
    while True:
        catalog = json.loads(_get(f"{base}/data/plugin/tb_multiframework/runs"))
        ours_ready = not catalog["loading"] and len(catalog["runs"]) == runs
        theirs = json.loads(_post(tb_url, tb_form))
        tb_ready = len(theirs) == runs and all(
            points and points[-1][1] == last_step for points in theirs.values()
        )
        if ours_ready and tb_ready:
            break
        if time.time() - started > 1800:
            raise RuntimeError("loading did not finish in 30 min")
        time.sleep(2)
    print(f"both loaded after {time.time() - started:.0f} s of polling")

    # Alternate who goes first, so neither always meets a warmer machine.
    if trial % 2 == 0:
        ours_cold, body = _timed(lambda: _get(ours_url))
        tb_cold, tb_body = _timed(lambda: _post(tb_url, tb_form))
    else:
        tb_cold, tb_body = _timed(lambda: _post(tb_url, tb_form))
        ours_cold, body = _timed(lambda: _get(ours_url))
    print(
        f"trial {trial}: cold ours {ours_cold * 1000:.0f} ms, "
        f"TensorBoard {tb_cold * 1000:.0f} ms"
    )
    if not warm:
        return ours_cold, tb_cold
    answer = json.loads(body)
    groups = answer["aggregates"]
    assert len(groups) == args.groups, len(groups)
    assert all(len(g["members"]) == args.per_group for g in groups)
    tb_points = sum(len(v) for v in json.loads(tb_body).values())
    print(
        f"ours: {len(body) / 1e6:.2f} MB, {len(groups)} groups, "
        f"{sum(g['returned'] for g in groups):,} points sent for "
        f"{runs * args.points:,} logged | TensorBoard: "
        f"{len(tb_body) / 1e6:.1f} MB, {tb_points:,} sampled points"
    )
    tb_warm, ours_warm, ours_recompute, ours_members = [], [], [], []
    for i in range(args.repeat):
        tb_warm.append(_timed(lambda: _post(tb_url, tb_form))[0])
        ours_warm.append(_timed(lambda: _get(ours_url))[0])
        weight = 0.5 + i / (4 * args.repeat)  # a new weight: no cache hit
        fresh = f"{ours_url}&smoothing={weight:.6f}".replace(
            "smoothing=0.6&", ""
        )
        ours_recompute.append(_timed(lambda url=fresh: _get(url))[0])
        members = fresh.replace("includeSeries=0", "includeSeries=1")
        ours_members.append(_timed(lambda url=members: _get(url))[0])
    rows = [
        (
            "TensorBoard scalars_multirun (100 runs, sampled), cold, this trial",
            tb_cold,
        ),
        ("TensorBoard scalars_multirun, warm", statistics.median(tb_warm)),
        ("ours, 20 group means ± std, cold, this trial", ours_cold),
        ("ours, warm (cached answer)", statistics.median(ours_warm)),
        (
            "ours, warm recompute (new smoothing)",
            statistics.median(ours_recompute),
        ),
        (
            "ours, recompute with every member's series too",
            statistics.median(ours_members),
        ),
    ]
    print()
    print("| request | ms |")
    print("|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds * 1000:.0f} |")
    print()
    tb = statistics.median(tb_warm)
    print(
        f"ours warm / TensorBoard warm: {statistics.median(ours_warm) / tb:.2f}x"
    )
    print(
        "ours recompute / TensorBoard warm: "
        f"{statistics.median(ours_recompute) / tb:.2f}x"
    )
    return ours_cold, tb_cold


if __name__ == "__main__":
    main()
