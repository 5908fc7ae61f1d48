"""`tbmf list` and `tbmf diff` on the 1,000,000-point benchmark logdir.

Generates bench_ingest's synthetic logdir (20 runs x 50,000 scalar points,
one point per event as torch writes them, plus 2 histogram tags x 50 steps
x ~500 buckets per run; 73 MB), then times, each in a fresh process and
interleaved round by round:

* `tbmf list LOGDIR` (output piped, so no progress bar);
* `tbmf diff LOGDIR run_00 run_01` (every shared metric: 25,000 points a
  run and metric, aligned on the union grid);
* the ingest alone: a process that builds the same stack and reads the
  logdir (`Loader.reload()`), nothing else;
* the interpreter floor: `python -c "import numpy"`.

Prints each round, the medians and the ratios command / ingest (what the
command adds on top of reading). Target: <= 3 s to output.
Usage: python bench/bench_cli.py [--rounds 5] [--logdir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

TARGET_S = 3.0  # seconds from start to output
_INGEST = (
    "import sys\n"
    "from tb_multiframework import wiring\n"
    "stack = wiring.build_stack(sys.argv[1], layouts=False)\n"
    "stack.loader.reload()\n"
)


def _contenders(logdir: str) -> dict[str, list[str]]:
    tbmf = [sys.executable, "-m", "tb_multiframework.cli.main"]
    return {
        "tbmf list": [*tbmf, "list", logdir],
        "tbmf diff": [*tbmf, "diff", logdir, "run_00", "run_01"],
        "ingest only": [sys.executable, "-c", _INGEST, logdir],
        "python + numpy": [sys.executable, "-c", "import numpy"],
    }


def _time(command: list[str]) -> tuple[float, int]:
    """Seconds until the process exits, and the bytes it printed."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, env=env, cwd=ROOT, check=True
    )
    return time.perf_counter() - started, len(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--logdir", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        logdir = args.logdir or os.path.join(scratch, "logs")
        if not os.path.isdir(logdir) or not os.listdir(logdir):
            from bench_ingest import generate  # noqa: PLC0415

            started = time.perf_counter()
            points = generate(logdir, runs=20, points=50_000, hist_steps=50)
            size = sum(
                os.path.getsize(os.path.join(d, f))
                for d, _, files in os.walk(logdir)
                for f in files
            )
            print(
                f"generated {points:,} scalar points, {size / 1e6:.0f} MB in "
                f"{time.perf_counter() - started:.1f} s: {logdir}"
            )
        contenders = _contenders(logdir)
        seconds: dict[str, list[float]] = {name: [] for name in contenders}
        for round_ in range(1, args.rounds + 1):
            # Rotate who goes first: a warm page cache helps the first less.
            names = list(contenders)
            shift = round_ % len(names)
            for name in names[shift:] + names[:shift]:
                elapsed, printed = _time(contenders[name])
                seconds[name].append(elapsed)
                print(
                    f"round {round_}  {name:<15} {elapsed:6.2f} s"
                    + (f"  ({printed:,} bytes out)" if printed else "")
                )
        median = {name: statistics.median(v) for name, v in seconds.items()}
        print()
        print(f"{'contender':<16}{'median':>9}{'min':>9}  target")
        for name, values in seconds.items():
            target = (
                f"≤ {TARGET_S:g} s {'met' if median[name] <= TARGET_S else 'MISSED'}"
                if name.startswith("tbmf")
                else ""
            )
            print(
                f"{name:<16}{median[name]:8.2f}s{min(values):8.2f}s  {target}"
            )
        ingest = median["ingest only"]
        print()
        for name in ("tbmf list", "tbmf diff"):
            print(
                f"{name} / ingest only: {median[name] / ingest:.2f}x "
                f"({median[name] - ingest:+.2f} s: what the command adds to "
                "reading the logdir)"
            )
        load = os.getloadavg()
        print(f"load average during the run: {load[0]:.1f} (2 cores)")


if __name__ == "__main__":
    main()
