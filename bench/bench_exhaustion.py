"""Exhaustion cases of issue 20: one checkout against another, side by side.

Each case runs in a fresh child process per checkout (`--before DIR`, e.g.
a worktree of main, and this checkout), on the same generated data, and
prints seconds, answer bytes and the child's peak RSS:

- `export`: one JSON export of `--export-runs` x `--export-points` points
  (in process, through `Api.export`), with a thread asking `runs` every
  50 ms meanwhile (its longest wait: how much the export stalls others);
- `exports16`: 16 concurrent CSV exports of `--export-runs` x
  `--export-points // 5` points through the plugin behind a werkzeug
  server (plain GETs); answers by status;
- `tags`: a run of `--tags` tags (2 points each): the first load, the
  `metrics` answer (whole; and a page of 500 where the checkout has
  paging), and `anomalies?run=` (the tab asks again while `pending`);
- `preview`: a layout of 12,000 regexes (600 charts x 20) over 10,000
  tags, previewed (stopped after `--preview-limit` s), then saved and
  listed as `GET layouts` does (once, then 3 times timed).

Usage: python bench/bench_exhaustion.py --before /work/wt/i20-base
       [--cases export,exports16,tags,preview] [--export-runs 20]
       [--export-points 250000] [--tags 200000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

_CHILD = r'''
import json, os, resource, sys, threading, time, urllib.request
sys.path.insert(0, sys.argv[1])
case, data, extra = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
out = {}

def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def body_size(body):
    if isinstance(body, (str, bytes)):
        return len(body)
    return sum(len(piece) for piece in body)

if case == "export":
    from tb_multiframework.wiring import build_stack
    from tb_multiframework.api.service import ScalarQuery
    stack = build_stack(data, layouts=False)
    stack.loader.reload()
    runs = tuple(sorted(r["run"] for r in stack.api.runs()["runs"]))
    out["rss_loaded_mib"] = peak_mib()
    waits, stop = [], threading.Event()
    def light():
        while not stop.is_set():
            t = time.monotonic(); stack.api.runs(); waits.append(time.monotonic() - t)
            stop.wait(0.05)
    thread = threading.Thread(target=light); thread.start()
    t = time.monotonic()
    body, _ = stack.api.export(ScalarQuery(runs=runs, tag="loss", metric=None), "json")
    out["bytes"] = body_size(body)
    out["seconds"] = time.monotonic() - t
    stop.set(); thread.join()
    out["runs_max_wait_s"] = max(waits)
elif case == "exports16":
    from tensorboard.backend import application
    from werkzeug import serving
    sys.path.insert(0, os.path.join(sys.argv[1]))
    from tests.conftest import make_client
    _, plugin = make_client(data)
    out["rss_loaded_mib"] = peak_mib()
    app = application.TensorBoardWSGI([plugin])
    server = serving.make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    runs = "&".join(f"run=r{r:02d}" for r in range(extra["runs"]))
    url = f"http://127.0.0.1:{server.server_port}/data/plugin/tb_multiframework/export?{runs}&tag=loss&format=csv"
    codes, sizes = [], []
    def fetch():
        try:
            with urllib.request.urlopen(url, timeout=600) as answer:
                n = 0
                while True:
                    chunk = answer.read(1 << 20)
                    if not chunk: break
                    n += len(chunk)
                codes.append(answer.status); sizes.append(n)
        except urllib.error.HTTPError as error:
            codes.append(error.code)
    t = time.monotonic()
    threads = [threading.Thread(target=fetch) for _ in range(16)]
    for th in threads: th.start()
    for th in threads: th.join()
    out["seconds"] = time.monotonic() - t
    out["statuses"] = {str(c): codes.count(c) for c in sorted(set(codes))}
    out["bytes_each"] = max(sizes) if sizes else 0
    server.shutdown()
elif case == "tags":
    from tb_multiframework.wiring import build_stack
    from tb_multiframework.api.anomalies import AnomalyQuery
    stack = build_stack(data, layouts=False)
    t = time.monotonic(); stack.loader.reload(); out["load_seconds"] = time.monotonic() - t
    out["rss_loaded_mib"] = peak_mib()
    t = time.monotonic()
    out["metrics_bytes"] = len(json.dumps(stack.api.metrics()))
    out["metrics_seconds"] = time.monotonic() - t
    try:
        t = time.monotonic()
        out["metrics_page_bytes"] = len(json.dumps(stack.api.metrics(limit=500)))
        out["metrics_page_seconds"] = time.monotonic() - t
    except TypeError:
        out["metrics_page_bytes"] = "no paging"
    t = time.monotonic()
    answer = json.loads(stack.api.anomalies(AnomalyQuery(runs=("wide",))).data)
    out["anomalies_first_answer_s"] = time.monotonic() - t
    out["anomalies_first_pending"] = answer.get("pending", "n/a")
    rounds = 1
    while answer.get("pending"):
        answer = json.loads(stack.api.anomalies(AnomalyQuery(runs=("wide",))).data)
        rounds += 1
    out["anomalies_all_s"] = time.monotonic() - t
    out["anomalies_requests"] = rounds
elif case == "preview":
    import numpy as np
    from tb_multiframework.api.service import Api
    from tb_multiframework.settings.config import ConfigFile
    from tb_multiframework.settings.layouts import LayoutStore
    from tb_multiframework.store.store import RunMeta, Store
    store = Store(); store.set_meta(RunMeta("run", "run", "pytorch", "", "tfevents"))
    for i in range(10000):
        store.append_scalars("run", f"t{i}.x", np.array([0]), np.array([1e9]), np.array([1.0]))
    rng = np.random.default_rng(6)
    layout = {"name": "big", "categories": [{"title": f"c{c}", "charts": [
        {"title": f"{c}.{k}", "kind": "multiline",
         "tags": [f"t{rng.integers(10000)}\\." for _ in range(20)]}
        for k in range(20)]} for c in range(30)]}
    layouts = LayoutStore(os.path.join(extra["tmp"], "layouts.json"))
    api = Api(store, None, ConfigFile("/nonexistent.json", optional=True), layouts, "bench")
    done = []
    def preview():
        t = time.monotonic(); done.append(api.preview_layout({"layout": layout})); done.append(time.monotonic() - t)
    thread = threading.Thread(target=preview, daemon=True); thread.start(); thread.join(extra["limit"])
    if done:
        out["preview_seconds"] = done[1]
        out["charts_matched"] = sum(1 for c in done[0]["charts"] if not c.get("skipped"))
    else:
        out["preview_seconds"] = f"> {extra['limit']} (stopped)"
    layouts.save(layout)
    api.layouts()  # the first validates the new file
    t = time.monotonic()
    for _ in range(3):
        api.layouts()
    out["get_layouts_s_each"] = (time.monotonic() - t) / 3
out["peak_rss_mib"] = peak_mib()
print(json.dumps(out))
sys.stdout.flush()
os._exit(0)
'''


def _write_logdir(path: str, runs: int, points: int, tags: int = 0) -> None:
    import numpy as np

    from tests import eventfiles

    if tags:
        payloads = [eventfiles.file_version_event()]
        for step in range(2):
            payloads += [
                eventfiles.scalar_event(f"m{i:06d}/loss", step, 10.0 + step, i + step)
                for i in range(tags)
            ]
        eventfiles.write(
            os.path.join(path, "wide", eventfiles.TORCH_NAME),
            eventfiles.record_bytes(payloads),
        )
        return
    rng = np.random.default_rng(0)
    for r in range(runs):
        values = rng.normal(size=points).astype(np.float32)
        payloads = [eventfiles.file_version_event()] + [
            eventfiles.scalar_event("loss", i, 1.7e9 + i * 0.05, float(values[i]))
            for i in range(points)
        ]
        eventfiles.write(
            os.path.join(path, f"r{r:02d}", eventfiles.TORCH_NAME),
            eventfiles.record_bytes(payloads),
        )


def _run(checkout: str, case: str, data: str, extra: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=checkout)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, checkout, case, data, json.dumps(extra)],
        capture_output=True, text=True, env=env, cwd=checkout, timeout=3600,
    )
    if done.returncode != 0 or not done.stdout.strip():
        return {"error": done.stderr.strip().splitlines()[-1:] or done.returncode}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="the other checkout")
    parser.add_argument("--cases", default="export,exports16,tags,preview")
    parser.add_argument("--export-runs", type=int, default=20)
    parser.add_argument("--export-points", type=int, default=250_000)
    parser.add_argument("--tags", type=int, default=200_000)
    parser.add_argument("--preview-limit", type=float, default=150.0)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="tbmf_exhaust_")
    try:
        for case in args.cases.split(","):
            data = os.path.join(folder, case)
            extra: dict = {"limit": args.preview_limit}
            if case == "export":
                _write_logdir(data, args.export_runs, args.export_points)
            elif case == "exports16":
                _write_logdir(data, args.export_runs, args.export_points // 5)
                extra["runs"] = args.export_runs
            elif case == "tags":
                _write_logdir(data, 0, 0, tags=args.tags)
            for label, checkout in (("before", args.before), ("after", ROOT)):
                extra["tmp"] = tempfile.mkdtemp(dir=folder)
                print(f"{case:<10} {label:<7} {json.dumps(_run(checkout, case, data, extra))}")
                sys.stdout.flush()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
