"""A real TensorBoard serving the tab keeps every thread on one arena, and
its full garbage collections short.

Requests run on threads of their own; with glibc's defaults each gets an
arena whose freed top is never returned (`store/allocator.py`): resident
memory then grew under the soak with glibc's in-use figure flat. The
settings must be made before TensorBoard starts its own threads, which is
what this checks from outside the process, in the kernel's map of it.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
import urllib.parse
import urllib.request

import pytest

from tb_multiframework.api import memtrace
from tb_multiframework.store import collector
from tests.e2e.conftest import DEMO_LOGS, start_tensorboard

pytestmark = pytest.mark.e2e


def test_request_threads_of_a_real_tensorboard_use_the_main_arena() -> None:
    server = start_tensorboard(DEMO_LOGS)
    try:
        catalog = server.get_json("runs")
        runs = [run["run"] for run in catalog["runs"] if run["scalarTags"]]
        tags = sorted({t for r in catalog["runs"] for t in r["scalarTags"]})
        errors: list[BaseException] = []

        def client(seed: int) -> None:
            rng = random.Random(seed)
            try:
                for i in range(12):
                    query = [("run", run) for run in runs] + [
                        ("tag", rng.choice(tags)),
                        ("smoothing", f"0.{seed}{i:02d}"),  # never kept
                        ("x", rng.choice(["step", "relative", "wall"])),
                    ]
                    url = server.plugin_url(
                        "scalars?" + urllib.parse.urlencode(query)
                    )
                    with urllib.request.urlopen(url, timeout=60) as answer:
                        answer.read()
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=client, args=(s,)) for s in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        resident = memtrace.rss_breakdown(f"/proc/{server.process.pid}/smaps")
        assert resident["heap"] > 0, resident  # the map was read
        assert resident["arenas"] == 0.0, resident
    finally:
        server.stop()


def test_a_real_tensorboard_freezes_what_its_first_load_left(tmp_path) -> None:
    # Full garbage collections walked everything the process held (~250,000
    # objects under the soak, 100-195 ms holding the GIL each): after a
    # reload the server freezes its oldest generation (store/collector.py).
    # Its own memory report says how many objects a full collection walks.
    report = tmp_path / "memory.jsonl"
    env = dict(os.environ)
    env.update(
        {
            memtrace.ENV_FILE: str(report),
            memtrace.ENV_SECONDS: "1",
            memtrace.ENV_LINES: "0",  # sizes only: no tracemalloc
        }
    )
    server = start_tensorboard(DEMO_LOGS, env=env)
    try:
        deadline = time.monotonic() + 120
        while server.get_json("runs").get("loading"):
            assert time.monotonic() < deadline, "the first load never ended"
            time.sleep(0.5)
        loaded_at = time.monotonic()
        figures: dict = {}
        while time.monotonic() < loaded_at + 60:
            lines = report.read_text().splitlines() if report.exists() else []
            if len(lines) >= 2:
                figures = json.loads(lines[-1])["figures"]
                if figures["gcFrozenObjects"] > 0:
                    break
            time.sleep(0.5)
        assert figures, "no memory report"
        # TensorBoard's modules and reservoirs alone are more than the bound:
        # they were frozen; what a full collection walks stays below it.
        assert figures["gcFrozenObjects"] > collector.FREEZE_AFTER, figures
        assert figures["gcOldObjects"] < collector.FREEZE_AFTER, figures
    finally:
        server.stop()
