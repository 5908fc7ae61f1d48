"""The Python API against tbparse, side by side, and its memory at 20 M points.

Speed (one run, interleaved rounds, each reader in a fresh process): the
1,000,000-point logdir of bench_ingest (20 runs x 50,000 scalar points, one
point per event as torch's SummaryWriter writes them, no histograms), read
into a long frame of every point by

* ours: `tb_multiframework.read(logdir).scalars` (every column) and
  `.scalar_frame(FIXED_COLUMNS)` (run, tag, step, value, wall_time);
* tbparse: `SummaryReader(logdir, extra_columns={"wall_time", "dir_name"},
  event_types={"scalars"}).scalars` (the same five columns).

Each child reports the seconds from before `read`/`SummaryReader` to the
finished frame (imports excluded, reported apart), the CPU time it used
meanwhile (steadier than wall time on a shared machine) and the rows it
got. Target: ours <= 1/20 of tbparse's time.

Memory (`--memory`): bench_restart's 20,000,000-point logdir (200 runs x
100,000 points, four tags a run), read in a fresh process per frame kind;
reports the frame's own bytes per point (`memory_usage(deep=True)`), the
process' resident growth over the frame and its peak (ru_maxrss) per point.
Target: <= 24 B/point in the frame.

Usage: python bench/bench_frames.py [--rounds 3] [--logdir DIR]
       python bench/bench_frames.py --memory [--memory-logdir DIR]
       [--runs 200] [--points 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

TARGET_RATIO = 1 / 20  # ours / tbparse
TARGET_BYTES = 24.0  # per point in the frame

_CHILD = r"""
import json, os, resource, sys, time
kind, logdir = sys.argv[1], sys.argv[2]
started = time.perf_counter()
if kind == "tbparse":
    from tbparse import SummaryReader
else:
    import pandas
    import tb_multiframework as tbmf
    tbmf.read  # the API module itself
imported = time.perf_counter()

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

cpu_started = cpu()


def rss():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

if kind == "tbparse":
    reader = SummaryReader(
        logdir, extra_columns={"wall_time", "dir_name"},
        event_types={"scalars"},
    )
    frame = reader.scalars
    before = None
else:
    exp = tbmf.read(logdir, progress_bar=False)
    before = rss()
    if kind == "ours-fixed":
        frame = exp.scalar_frame(tbmf.FIXED_COLUMNS)
    else:
        frame = exp.scalars
done = time.perf_counter()
out = {
    "seconds": done - imported,
    "cpu_seconds": cpu() - cpu_started,
    "import_seconds": imported - started,
    "rows": len(frame),
    "columns": [str(c) for c in frame.columns],
    "frame_bytes": int(frame.memory_usage(index=False, deep=True).sum()),
    "dtypes": {str(c): str(t) for c, t in frame.dtypes.items()},
}
if before is not None:
    out["growth_bytes"] = rss() - before
    out["peak_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(out))
"""


def _child(kind: str, logdir: str) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, logdir],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def speed(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        logdir = args.logdir or os.path.join(scratch, "logs")
        if not os.path.isdir(logdir) or not os.listdir(logdir):
            from bench_ingest import generate  # noqa: PLC0415

            started = time.perf_counter()
            points = generate(logdir, runs=20, points=50_000, hist_steps=0)
            print(
                f"generated {points:,} points in "
                f"{time.perf_counter() - started:.1f} s: {logdir}"
            )
        kinds = ("ours", "ours-fixed", "tbparse")
        results: dict[str, list[dict]] = {k: [] for k in kinds}
        for round_ in range(args.rounds):
            for kind in kinds:
                found = _child(kind, logdir)
                results[kind].append(found)
                print(
                    f"round {round_ + 1} {kind:10s} {found['seconds']:7.2f} s "
                    f"(CPU {found['cpu_seconds']:6.2f} s; {found['rows']:,} "
                    f"rows; imports {found['import_seconds']:.2f} s)",
                    flush=True,
                )
        for measure, label in (
            ("seconds", "wall time"),
            ("cpu_seconds", "CPU time (user + system)"),
        ):
            _summary(results, kinds, measure, label)
        print(f"  loadavg {os.getloadavg()[0]:.1f}")


def _summary(
    results: dict[str, list[dict]],
    kinds: tuple[str, ...],
    measure: str,
    label: str,
) -> None:
    """Medians of one measure and the ratios to tbparse."""
    median = {
        k: statistics.median(r[measure] for r in v) for k, v in results.items()
    }
    print(f"\nmedians of {label} (read + frame, imports excluded):")
    for kind in kinds:
        rows = results[kind][0]["rows"]
        print(f"  {kind:10s} {median[kind]:7.2f} s  {rows:,} rows")
    for kind in ("ours", "ours-fixed"):
        ratio = median[kind] / median["tbparse"]
        # Each round's own ratio: the machine's load moves between rounds
        # more than within one.
        rounds = [
            a[measure] / b[measure]
            for a, b in zip(results[kind], results["tbparse"], strict=True)
        ]
        paired = statistics.median(rounds)
        verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(
            f"  {kind} / tbparse = {ratio:.4f} (1/{1 / ratio:.0f}) of the "
            f"medians, {paired:.4f} (1/{1 / paired:.0f}) median of the rounds' "
            f"ratios ({', '.join(f'1/{1 / r:.0f}' for r in rounds)}); "
            f"target <= 1/20: {verdict}"
        )


def memory(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        logdir = args.memory_logdir or os.path.join(scratch, "logs20m")
        if not os.path.isdir(logdir) or not os.listdir(logdir):
            from bench_restart import generate  # noqa: PLC0415

            started = time.perf_counter()
            points = generate(logdir, runs=args.runs, points=args.points)
            print(
                f"generated {points:,} points in "
                f"{time.perf_counter() - started:.1f} s: {logdir}"
            )
        for kind in ("ours-fixed", "ours"):
            found = _child(kind, logdir)
            n = found["rows"]
            print(
                f"{kind:10s} {n:,} rows, {len(found['columns'])} columns: "
                f"frame {found['frame_bytes'] / n:.2f} B/point, resident "
                f"growth {found['growth_bytes'] / n:.2f} B/point, process "
                f"peak {found['peak_bytes'] / n:.2f} B/point "
                f"({found['peak_bytes'] / 2**30:.2f} GiB); read + frame "
                f"{found['seconds']:.1f} s",
                flush=True,
            )
            print(f"           dtypes {found['dtypes']}")
            if kind == "ours-fixed":
                per_point = found["frame_bytes"] / n
                verdict = "meets" if per_point <= TARGET_BYTES else "MISSES"
                print(f"           target <= 24 B/point: {verdict}")
        print(f"loadavg {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--logdir", default="")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--memory-logdir", default="")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--points", type=int, default=100_000)
    args = parser.parse_args()
    if args.memory:
        memory(args)
    else:
        speed(args)


if __name__ == "__main__":
    main()
