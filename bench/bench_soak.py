"""Soak: a real TensorBoard under eight clients while a writer appends.

Not run in CI (it takes `--minutes`, 10 by default). Generates a logdir of
`--runs` runs (four scalar tags, a histogram tag, hyper-parameters), starts
`tensorboard --logdir ... --reload_interval 2` on 127.0.0.1, starts a writer
appending to one run (`--rate` steps a second), and runs eight client
threads for the duration, each looping over a mix of what the tab asks:

- `scalars` of `loss/train` over every run, with random smoothing, axis and
  baseline (b64, as the tab asks), or one run's tag;
- `histograms` of a run;
- `runs`, `metrics?limit=500`, `anomalies`, `config_diff` of two runs.

A ninth thread asks `runs` every 200 ms: the light request whose latency
shows whether heavy work stalls others. The server's RSS is sampled every
5 s. Printed at the end: per route, count, p50, p99 and max latency;
answers >= 500 (and 429s); RSS after the warm-up (`--warmup` seconds),
at the end and its peak; the load average. Each server also reports,
every `--warmup` seconds (`TBMF_TRACE_MEMORY`, api/memtrace.py), the bytes
its store holds: RSS minus those bytes separates growth of the data (the
writer's run grows) from growth of everything else (caches, leaks), and
its slope after the warm-up is printed. `--trace-memory` also traces
allocations (tracemalloc: slower) and prints the source lines that grew
most after the warm-up. `--trace-stalls` makes each server record when a
watching thread woke more than 50 ms late and where its busy threads were
(api/stalltrace.py), and prints how many such stalls there were after the
warm-up, the functions most often busy in them, and the garbage
collections that held the GIL > 50 ms.

Usage: python bench/bench_soak.py [--minutes 10] [--runs 20]
       [--points 20000] [--rate 50] [--warmup 60] [--compare DIR]
       [--trace-memory] [--trace-stalls] [--env KEY=VALUE]
(`--compare DIR` soaks a second TensorBoard running another checkout, e.g.
a worktree of main, at the same time: the machine is shared and noisy, so
the two are compared under the same load.)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests import eventfiles  # noqa: E402 - after the path is set

_URL = re.compile(r"(http://[^\s]+)")
AXES = ("step", "relative", "wall", "progress")


def _events(run: int, steps: range, wall0: float) -> list[bytes]:
    rng = random.Random(run)
    out = []
    for step in steps:
        wall = wall0 + step * 0.05
        loss = 2.0 * 0.999**step + rng.random() * 0.05 + run * 0.01
        out.append(eventfiles.scalar_event("Loss/train", step, wall, loss))
        out.append(eventfiles.scalar_event("Accuracy/train", step, wall, 1 - loss / 3))
        out.append(eventfiles.scalar_event("lr", step, wall, 0.1 * 0.99 ** (step // 100)))
        if step % 10 == 0:
            out.append(eventfiles.scalar_event("Loss/val", step, wall, loss * 1.1))
        if step % 500 == 0:
            out.append(
                eventfiles.histogram_event(
                    "weights", step, wall, minimum=-1.0, maximum=1.0,
                    limits=[-0.5, 0.0, 0.5, 1.0], counts=[1.0, 5.0, 5.0, 1.0],
                )
            )
    return out


def make_logdir(path: str, runs: int, points: int) -> None:
    for run in range(runs):
        directory = os.path.join(path, f"run{run:02d}")
        events = [eventfiles.file_version_event(1.7e9)] + _events(
            run, range(points), 1.7e9
        )
        eventfiles.write(
            os.path.join(directory, eventfiles.TORCH_NAME),
            eventfiles.record_bytes(events),
        )
        with open(os.path.join(directory, "config.json"), "w") as out:
            json.dump({"lr": 0.1 + run / 100, "seed": run, "opt": "sgd"}, out)


def start_tensorboard(
    logdir: str, pythonpath: str, extra_env: dict[str, str] | None = None
) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, **(extra_env or {}))
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    script = os.path.join(os.path.dirname(sys.executable), "tensorboard")
    process = subprocess.Popen(
        [script, "--logdir", logdir, "--host", "127.0.0.1", "--port", "0",
         "--reload_interval", "2", "--load_fast=false",
         "--tbmf_cache_dir", "none"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
    )
    found: list[str] = []

    def drain() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            match = _URL.search(line)
            if match and not found:
                found.append(match.group(1).rstrip("/") + "/")

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + 300
    while not found:
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("tensorboard did not start")
        time.sleep(0.2)
    base = found[0] + "data/plugin/tb_multiframework/"
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "runs", timeout=60) as answer:
                if not json.loads(answer.read())["loading"]:
                    return process, base
        except OSError:
            pass
        time.sleep(1)
    raise SystemExit("the plugin did not finish loading")


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = collections.defaultdict(list)
        self.status: collections.Counter[int] = collections.Counter()
        self.slowest: list[tuple[float, float, str, str]] = []  # took, at, label, url
        self.measuring = False

    def get(self, base: str, route: str, label: str, params: list) -> None:
        url = base + route + ("?" + urllib.parse.urlencode(params) if params else "")
        begun, wall = time.monotonic(), time.time()
        try:
            with urllib.request.urlopen(url, timeout=120) as answer:
                answer.read()
                code = answer.status
        except urllib.error.HTTPError as error:
            code = error.code
        except OSError:
            code = 599  # no answer (connection refused or reset, time-out)
        took = time.monotonic() - begun
        with self.lock:
            if self.measuring:
                self.latency[label].append(took)
                self.status[code] += 1
                self.slowest.append((took, wall, label, url[len(base):]))
                self.slowest = sorted(self.slowest, reverse=True)[:5]


def client(rec: Recorder, base: str, runs: list[str], stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    while not stop.is_set():
        pick = rng.random()
        if pick < 0.45:
            params = [("run", r) for r in runs] + [
                ("metric", "loss/train"),
                ("x", rng.choice(AXES)),
                ("smoothing", rng.choice(["0", "0.6", "0.9"])),
                ("encoding", "b64"),
            ]
            if rng.random() < 0.5:
                params.append(("baseline", rng.choice(runs)))
            rec.get(base, "scalars", "scalars", params)
        elif pick < 0.55:
            rec.get(base, "scalars", "scalars", [
                ("run", rng.choice(runs)), ("tag", "Accuracy/train"),
                ("x", "step"), ("encoding", "b64"),
            ])
        elif pick < 0.65:
            rec.get(base, "histograms", "histograms", [
                ("run", rng.choice(runs)), ("tag", "weights"),
            ])
        elif pick < 0.75:
            rec.get(base, "runs", "runs", [])
        elif pick < 0.82:
            rec.get(base, "metrics", "metrics", [("limit", "500")])
        elif pick < 0.92:
            rec.get(base, "anomalies", "anomalies", [("x", "step")])
        else:
            a, b = rng.sample(runs, 2)
            rec.get(base, "config_diff", "config_diff", [("run", a), ("run", b)])


def probe(rec: Recorder, base: str, stop: threading.Event) -> None:
    while not stop.is_set():
        rec.get(base, "runs", "probe: runs every 200 ms", [])
        stop.wait(0.2)


def writer(path: str, start: int, rate: float, stop: threading.Event) -> None:
    """Appends `rate` steps a second to run00, first going back 1,000 steps
    (a resumed run: its attempts change as it grows, the case that raced)."""
    step = max(0, start - 1000)
    while not stop.is_set():
        batch = max(1, int(rate))
        eventfiles.write(
            path,
            eventfiles.record_bytes(_events(0, range(step, step + batch), 1.7e9)),
            mode="ab",
        )
        step += batch
        stop.wait(1.0)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Target:
    """One TensorBoard under soak: its logdir, process, clients, figures."""

    def __init__(
        self,
        name: str,
        folder: str,
        pythonpath: str,
        args,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.logdir = os.path.join(folder, name)
        make_logdir(self.logdir, args.runs, args.points)
        self.memory_log = self.logdir + ".memory.jsonl"
        self.stall_log = self.logdir + ".stalls.jsonl"
        self.process, self.base = start_tensorboard(
            self.logdir,
            pythonpath,
            {
                "TBMF_TRACE_MEMORY": self.memory_log,
                "TBMF_TRACE_MEMORY_SECONDS": str(args.warmup),
                "TBMF_TRACE_MEMORY_LINES": "15" if args.trace_memory else "0",
                **({"TBMF_TRACE_STALLS": self.stall_log} if args.trace_stalls else {}),
                **(env or {}),
            },
        )
        self.rec = Recorder()
        self.rss: list[tuple[float, float]] = []
        self.warm_rss: float | None = None
        self.started_at = time.time()  # set again when the clients start
        self.warmup = args.warmup

    def threads(self, args, stop: threading.Event) -> list[threading.Thread]:
        runs = [f"run{r:02d}" for r in range(args.runs)]
        made = [
            threading.Thread(
                target=client, args=(self.rec, self.base, runs, stop, i), daemon=True
            )
            for i in range(args.clients)
        ]
        made.append(
            threading.Thread(target=probe, args=(self.rec, self.base, stop), daemon=True)
        )
        made.append(
            threading.Thread(
                target=writer,
                args=(
                    os.path.join(self.logdir, "run00", eventfiles.TORCH_NAME),
                    args.points,
                    args.rate,
                    stop,
                ),
                daemon=True,
            )
        )
        return made

    def report(self) -> None:
        rec = self.rec
        print(f"\n== {self.name} ==")
        print(f"{'route':<28}{'count':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}")
        every: list[float] = []
        for label, values in sorted(rec.latency.items()):
            if not values:
                continue
            if not label.startswith("probe"):
                every += values
            print(f"{label:<28}{len(values):>7}{percentile(values, 0.5) * 1e3:>9.0f}"
                  f"{percentile(values, 0.99) * 1e3:>9.0f}{max(values) * 1e3:>9.0f}")
        if every:
            print(f"{'all client requests':<28}{len(every):>7}"
                  f"{percentile(every, 0.5) * 1e3:>9.0f}"
                  f"{percentile(every, 0.99) * 1e3:>9.0f}{max(every) * 1e3:>9.0f}")
        errors = sum(n for code, n in rec.status.items() if code >= 500)
        print(f"status codes: {dict(sorted(rec.status.items()))}; "
              f"answers >= 500: {errors}")
        for took, at, label, url in rec.slowest:
            print(f"  slow: {took * 1e3:.0f} ms at {at - self.started_at:.0f} s "
                  f"({label}) {url[:160]}")
        peak = max(r for _, r in self.rss)
        timeline = ", ".join(
            f"{t / 60:.0f} min {r:.0f}" for t, r in self.rss if int(t) % 60 < 5
        )
        print(f"RSS MiB: after warm-up {self.warm_rss:.0f}, end "
              f"{self.rss[-1][1]:.0f}, peak {peak:.0f}; by minute: {timeline}")
        self.report_memory()
        self.report_stalls()

    def report_stalls(self) -> None:
        """The server's own stall records (`TBMF_TRACE_STALLS`,
        api/stalltrace.py): how often its watching thread woke > 50 ms late
        after the warm-up, and in which functions the busy threads were."""
        try:
            with open(self.stall_log) as lines:
                records = [json.loads(line) for line in lines]
        except OSError:
            return
        start = self.started_at + self.warmup
        collections_ms = sorted(
            r["gcMs"] for r in records if "gcMs" in r and r["at"] >= start
        )
        records = [r for r in records if r["at"] >= start and "lateMs" in r]
        late = sorted(r["lateMs"] for r in records)
        over = sum(1 for ms in late if ms > 100)
        print(f"stalls after the warm-up (watcher woke > 50 ms late): "
              f"{len(late)}, of which > 100 ms: {over}"
              + (f"; worst {late[-1]:.0f} ms" if late else ""))
        where: collections.Counter[str] = collections.Counter()
        for record in records:
            if record["lateMs"] <= 100:
                continue
            for stack in record["threads"]:
                ours = [f for f in stack if "tb_multiframework" in f]
                where[(ours or stack)[0]] += 1
        for frame, count in where.most_common(12):
            print(f"  busy in {count:>4} stalls > 100 ms: {frame}")
        print(f"garbage collections longer than 50 ms after the warm-up: "
              f"{len(collections_ms)}"
              + (f"; longest {collections_ms[-1]:.0f} ms" if collections_ms else ""))

    def report_memory(self) -> None:
        """The server's own memory reports (RSS minus the store's data)."""
        try:
            with open(self.memory_log) as lines:
                reports = [json.loads(line) for line in lines]
        except OSError:
            reports = []
        if len(reports) < 2:
            print("memory reports: fewer than two (a checkout without "
                  "TBMF_TRACE_MEMORY, or too short a soak)")
            return
        first, last = reports[0], reports[-1]
        minutes = (last["seconds"] - first["seconds"]) / 60
        slope = (last["rssMinusDataMiB"] - first["rssMinusDataMiB"]) / minutes
        data = (last["storeDataMiB"] - first["storeDataMiB"]) / minutes
        print(f"store data MiB {first['storeDataMiB']} -> {last['storeDataMiB']} "
              f"({data:+.2f}/min); RSS minus data MiB "
              f"{first['rssMinusDataMiB']} -> {last['rssMinusDataMiB']} "
              f"({slope:+.1f}/min after the warm-up)")
        print("by report (s: RSS minus data): " + ", ".join(
            f"{r['seconds']}: {r['rssMinusDataMiB']:.0f}" for r in reports))
        mib = {
            key: f"{first['figures'].get(key, 0) / 2**20:.0f} -> "
            f"{last['figures'].get(key, 0) / 2**20:.0f}"
            for key in ("mallocInUseBytes", "mallocFreeBytes", "mallocMmapBytes")
        }
        print(f"malloc MiB (in use, free kept, mmapped): {mib}")
        where = last.get("rssBreakdownMiB") or {}
        print("resident MiB by kind of map (first -> last report): " + ", ".join(
            f"{kind} {first.get('rssBreakdownMiB', {}).get(kind, 0):.0f} -> {mib_:.0f}"
            for kind, mib_ in where.items()))
        print("objects a full garbage collection walks / frozen out of it "
              "(store/collector.py), by report: " + ", ".join(
                  f"{r['figures'].get('gcOldObjects', '?')}"
                  f"/{r['figures'].get('gcFrozenObjects', '?')}"
                  for r in reports))
        print(f"caches at the end: {json.dumps(last['figures'])}")
        for line in last.get("grew", []):
            print(f"  grew since the warm-up: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--points", type=int, default=20000)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--warmup", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable for this checkout's server only "
        "(e.g. MALLOC_ARENA_MAX=2, against --compare of the same checkout)",
    )
    parser.add_argument(
        "--trace-memory",
        action="store_true",
        help="trace allocations in the servers (tracemalloc; slower) and "
        "print the source lines that grew most after the warm-up",
    )
    parser.add_argument(
        "--trace-stalls",
        action="store_true",
        help="the servers record when a watching thread woke > 50 ms late "
        "and where their busy threads were (api/stalltrace.py)",
    )
    parser.add_argument(
        "--compare",
        default="",
        help="another checkout, soaked at the same time (its own server, "
        "clients and writer) for a side-by-side figure",
    )
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="tbmf_soak_")
    targets: list[Target] = []
    stop = threading.Event()
    try:
        env = dict(item.split("=", 1) for item in args.env)
        name = "this checkout" + "".join(f" {item}" for item in args.env)
        targets.append(Target(name, folder, "", args, env))
        if args.compare:
            targets.append(Target(f"compared: {args.compare}", folder, args.compare, args))
        threads = [t for target in targets for t in target.threads(args, stop)]
        for thread in threads:
            thread.start()
        begun = time.monotonic()
        for target in targets:
            target.started_at = time.time()  # the warm-up starts now
        end = begun + args.minutes * 60
        while time.monotonic() < end:
            now = time.monotonic() - begun
            for target in targets:
                target.rss.append((now, rss_mib(target.process.pid)))
                if target.warm_rss is None and now >= args.warmup:
                    target.warm_rss = target.rss[-1][1]
                    with target.rec.lock:
                        target.rec.measuring = True
            time.sleep(5)
        stop.set()
        for thread in threads:
            thread.join(130)
        load = os.getloadavg()
        print(f"soak: {args.minutes:g} min, {args.runs} runs x {args.points} steps "
              f"each server, {args.clients} clients + a runs probe each, writer "
              f"{args.rate:g} steps/s, measured after a {args.warmup:g} s warm-up")
        for target in targets:
            target.report()
        print(f"\nload average (1, 5, 15 min) at the end: "
              f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    finally:
        stop.set()
        for target in targets:
            os.killpg(target.process.pid, 15)
            target.process.wait(30)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
