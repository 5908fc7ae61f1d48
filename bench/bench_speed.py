"""What the speed derived from wall time costs: cold ingest vs derived.

Generates (or reuses) bench_restart.py's synthetic logdir: 200 runs x
100,000 scalar points = 20,000,000, four tags a run, one point per event,
wall times 20-80 ms apart. Then, in one process, side by side:

* cold ingest: `Loader.reload()` of the whole logdir into a fresh store
  (no cache), as the tab's first load;
* the first run context (epoch maps, metric index, experiments, speed),
  with the time spent in the speed part (`SpeedBuilder`: step semantics of
  every tag, each run's stream and `derive_speed`) measured inside it;
* warm: `GET speed` for every run answered again (cached), the answer
  recomputed from the warm context, and the `runs` answer with its speed
  columns.

Targets (issue 23): speed / cold ingest <= 10 %; warm answers <= 50 ms.
Prints one table; `--rounds N` repeats the cold part in fresh stores and
prints medians.

Usage: python bench/bench_speed.py [--runs 200] [--points 100000]
       [--logdir DIR (reused if it exists)] [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))


def _timed_speed_builder() -> dict[str, float]:
    """Wraps SpeedBuilder's entry points to add up their seconds."""
    from tb_multiframework.api import speed as speed_module

    spent = {"seconds": 0.0}
    cls = speed_module.SpeedBuilder
    for name in ("semantics", "build"):
        original = getattr(cls, name)

        def wrapper(self, *args, __original=original, **kwargs):
            depth = getattr(self, "_bench_depth", 0)
            self._bench_depth = depth + 1
            start = time.perf_counter()
            try:
                return __original(self, *args, **kwargs)
            finally:
                self._bench_depth = depth
                if depth == 0:  # build() calls semantics(): count once
                    spent["seconds"] += time.perf_counter() - start

        setattr(cls, name, wrapper)
    return spent


def measure(logdir: str) -> dict[str, float]:
    from tb_multiframework import wiring

    spent = _timed_speed_builder()
    stack = wiring.build_stack(logdir, layouts=False)
    start = time.perf_counter()
    stack.loader.reload()
    ingest = time.perf_counter() - start
    stack.loader.loaded_once.set()
    start = time.perf_counter()
    stack.api.runs()
    context = time.perf_counter() - start
    speed = spent["seconds"]
    stack.api.speed(())  # fills the answer cache
    warm = _best(lambda: stack.api.speed(()))
    recomputed = _best(lambda: stack.api.speed_payload(()))
    runs = _best(lambda: stack.api.runs())
    return {
        "ingest": ingest,
        "context": context,
        "speed": speed,
        "warm": warm,
        "recomputed": recomputed,
        "runs": runs,
    }


def _best(call, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--logdir", default="")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    logdir = args.logdir or os.path.join(
        tempfile.gettempdir(), f"tbmf_bench_speed_{args.runs}x{args.points}"
    )
    if not os.path.isdir(logdir):
        import bench_restart

        print(f"generating {logdir} ...", flush=True)
        bench_restart.generate(logdir, args.runs, args.points)
    rows = [measure(logdir) for _ in range(args.rounds)]
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    points = args.runs * args.points
    print(
        f"{args.runs} runs x {args.points:,} points = {points:,}; "
        f"medians of {args.rounds} round(s); load {os.getloadavg()[0]:.1f}"
    )
    print("| measure | value |")
    print("|---|---|")
    print(f"| cold ingest (Loader.reload, no cache) | {med['ingest']:.2f} s |")
    print(f"| first run context, all of it | {med['context']:.2f} s |")
    print(
        f"| of which speed (semantics of every tag, streams, derive) | {med['speed']:.3f} s |"
    )
    print(
        f"| speed / cold ingest | {med['speed'] / med['ingest']:.1%} (target <= 10 %) |"
    )
    print(
        f"| GET speed, every run, warm (answer cached) | {med['warm'] * 1000:.2f} ms |"
    )
    print(
        f"| GET speed recomputed from the warm context | {med['recomputed'] * 1000:.1f} ms (target <= 50 ms) |"
    )
    print(
        f"| GET runs (with the speed columns), warm context | {med['runs'] * 1000:.1f} ms |"
    )


if __name__ == "__main__":
    main()
