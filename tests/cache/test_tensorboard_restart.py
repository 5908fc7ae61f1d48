"""A real TensorBoard restarted on the demo logs answers from the cache.

Two `tensorboard` processes one after the other on one logdir and one
cache directory: the second restores every run (its catalog says so) and
serves the same catalog and the same points as the first, which read the
files. A third runs with `--tbmf_cache_dir=none` and writes nothing.
"""

from __future__ import annotations

import os
import shutil
import urllib.parse
from pathlib import Path

import pytest

from tests.e2e.conftest import DEMO_LOGS, start_tensorboard

pytestmark = pytest.mark.e2e

_VOLATILE = ("reload", "dataVersion", "source")


def _catalog(server) -> dict:
    payload = server.get_json("runs")
    return {k: v for k, v in payload.items() if k not in _VOLATILE}


def _every_series(server, catalog: dict) -> dict:
    out = {}
    for run in catalog["runs"]:
        for tag in run["scalarTags"]:
            query = urllib.parse.urlencode(
                {"run": run["run"], "tag": tag, "points": 20000, "x": "wall"}
            )
            (series,) = server.get_json(f"scalars?{query}")["series"]
            out[run["run"], tag] = (series["steps"], series["x"], series["y"])
    return out


def test_restart_serves_the_same_from_the_cache(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    shutil.copytree(DEMO_LOGS, logdir)
    cache = tmp_path / "cache"
    flags = ("--tbmf_cache_dir", str(cache))
    first = start_tensorboard(logdir, extra_args=flags)
    try:
        before = _catalog(first)
        source = first.get_json("runs")["source"]
        assert (
            source["cache"]["enabled"] and source["cache"]["restoredRuns"] == 0
        )
        points_before = _every_series(first, before)
    finally:
        first.stop()
    assert list(cache.rglob("*.seg"))
    second = start_tensorboard(logdir, extra_args=flags)
    try:
        source = second.get_json("runs")["source"]
        assert source["cache"]["restoredRuns"] == len(before["runs"])
        assert source["cache"]["dropped"] == []
        after = _catalog(second)
        assert after == before
        assert _every_series(second, after) == points_before
    finally:
        second.stop()
    off = tmp_path / "off"
    third = start_tensorboard(
        logdir,
        extra_args=("--tbmf_cache_dir", "none"),
        env={**os.environ, "XDG_CACHE_HOME": str(off)},
    )
    try:
        assert third.get_json("runs")["source"]["cache"]["enabled"] is False
    finally:
        third.stop()
    assert not (off / "tb_multiframework").exists()
    default = start_tensorboard(  # no flag: the default place is used
        logdir, env={**os.environ, "XDG_CACHE_HOME": str(off)}
    )
    try:
        status = default.get_json("runs")["source"]["cache"]
        assert status["directory"].startswith(str(off / "tb_multiframework"))
    finally:
        default.stop()
