"""A writer appends while a real TensorBoard reloads every second.

Issue 8: while a run was being written, a point whose record ended a read
chunk could be filed under a garbage tag, and stayed there. Here a separate
process logs 150 steps (flushing every 0.1 s, tags of very different lengths,
tfevents and VisualDL) while TensorBoard runs with `--reload_interval 1`;
the catalog is polled all along. No invented tag may ever appear, and at the
end every point is served once, under its own tag, with its value.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.parse

import pytest

from tests.e2e.conftest import REPO, start_tensorboard
from tests.live_writer import TAGS

pytestmark = pytest.mark.e2e

_STEPS = 150
_FLUSH_EVERY_S = 0.1


def _export(server, run: str, tag: str) -> list[list]:
    query = urllib.parse.urlencode({"run": run, "tag": tag, "format": "json"})
    return server.get_json(f"export?{query}")["rows"]


def test_points_written_live_land_under_their_own_tags(tmp_path) -> None:
    logdir = tmp_path / "live"
    logdir.mkdir()
    server = start_tensorboard(logdir, extra_args=("--reload_interval", "1"))
    writer = None
    try:
        writer = subprocess.Popen(
            [
                sys.executable,
                str(REPO / "tests" / "live_writer.py"),
                str(logdir),
                str(_STEPS),
                str(_FLUSH_EVERY_S),
            ],
            cwd=REPO,
        )
        seen_tags: set[str] = set()
        polls = 0
        while writer.poll() is None:
            for run in server.get_json("runs")["runs"]:
                seen_tags.update(run["scalarTags"])
            polls += 1
            time.sleep(0.25)
        assert writer.returncode == 0
        assert polls >= 20, "the writer finished before the catalog was seen"
        assert seen_tags <= set(TAGS), f"invented tags: {seen_tags - set(TAGS)}"
        truth = json.loads((logdir / "truth.json").read_text())
        deadline = time.monotonic() + 20
        while True:
            runs = {r["run"]: r for r in server.get_json("runs")["runs"]}
            done = all(
                runs.get(run, {}).get("numPoints")
                == sum(len(points) for points in truth[run].values())
                for run in truth
            )
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        for run, tags in truth.items():
            assert sorted(runs[run]["scalarTags"]) == sorted(tags)
            assert runs[run]["warnings"] == []
            for tag, points in tags.items():
                rows = _export(server, run, tag)
                # x, run, tag, step, wall_time, value, smoothed
                got = [[row[3], row[5]] for row in rows]
                assert got == points, (run, tag)
    finally:
        if writer is not None and writer.poll() is None:
            writer.kill()
            writer.wait()
        server.stop()
