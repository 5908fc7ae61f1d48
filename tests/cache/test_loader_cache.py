"""Restarts from the persistent cache through the files source.

Every check compares a start from the cache with a cold read of the same
files (no cache), series bit for bit: what a restart serves must be what a
fresh read serves. Real demo logs (PyTorch, Keras, TF, Paddle, resumed and
sub-runs) plus files grown, torn, shrunk and corrupted on purpose.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil

import numpy as np
import pytest

from tb_multiframework.settings.config import Config
from tb_multiframework.sources.files import FilesSource
from tb_multiframework.store.store import Store
from tests.conftest import DEMO_LOGS
from tests.eventfiles import (
    TORCH_NAME,
    file_version_event,
    record_bytes,
    scalar_event,
    write,
)


def _source(logdir: str, cache: str) -> tuple[FilesSource, Store]:
    store = Store()
    return FilesSource(logdir, store, config=Config, cache_dir=cache), store


def _view(store: Store) -> dict:
    """Everything a route can read from the store, as comparable data."""
    out = {}
    for summary in store.summaries():
        run = summary.meta.run
        entry: dict = {
            "meta": summary.meta,
            "counts": (summary.num_points, summary.num_histograms),
            "ranges": (
                summary.first_step,
                summary.last_step,
                summary.start_time,
                summary.end_time,
            ),
            "attempts": store.attempt_counts(run),
        }
        for tag in summary.scalar_tags:
            series = store.scalars(run, tag)
            current = store.current_scalars(run, tag)
            entry[tag] = [
                np.ascontiguousarray(a).view(np.uint64).tolist()
                for a in (
                    series.steps,
                    series.wall_times,
                    series.values,
                    current.steps,
                )
            ]
        for tag in summary.histogram_tags:
            hist = store.histograms(run, tag)
            entry["h:" + tag] = (
                hist.steps.tolist(),
                hist.wall_times.tolist(),
                [e.tolist() for e in hist.edges],
                [c.tolist() for c in hist.counts],
            )
        out[run] = entry
    out["layouts"] = store.layouts()
    return out


def _cold(logdir: str) -> dict:
    source, store = _source(logdir, "none")
    source.reload()
    return _view(store)


@pytest.fixture
def logdir(tmp_path) -> str:
    target = tmp_path / "logs"
    shutil.copytree(DEMO_LOGS, target)
    return str(target)


def test_a_restart_restores_every_run_and_reads_no_byte(logdir, tmp_path):
    cache = str(tmp_path / "cache")
    first, store = _source(logdir, cache)
    stats = first.reload()
    assert stats.bytes_read > 0
    second, restored = _source(logdir, cache)
    stats = second.reload()
    assert stats.bytes_read == 0
    assert second.status().cache["restoredRuns"] == len(store.runs())
    assert _view(restored) == _view(store) == _cold(logdir)


def _append(path: str, steps: range) -> int:
    data = record_bytes(
        [scalar_event("Loss/train", s, 1.8e9 + s, s / 7) for s in steps]
    )
    with open(path, "ab") as handle:
        handle.write(data)
    return len(data)


def _torch_file(logdir: str) -> str:
    directory = os.path.join(logdir, "pytorch_sgd")
    (name,) = [n for n in os.listdir(directory) if "tfevents" in n]
    return os.path.join(directory, name)


def test_a_grown_file_is_read_from_where_the_cache_stopped(logdir, tmp_path):
    cache = str(tmp_path / "cache")
    first, _ = _source(logdir, cache)
    first.reload()
    added = _append(_torch_file(logdir), range(1000, 1040))
    second, restored = _source(logdir, cache)
    stats = second.reload()
    assert stats.bytes_read == added  # only the new bytes
    assert _view(restored) == _cold(logdir)
    # ... and the next restart has those too, from a delta segment.
    third, again = _source(logdir, cache)
    assert third.reload().bytes_read == 0
    assert _view(again) == _cold(logdir)


def test_a_torn_record_completed_after_the_restart(logdir, tmp_path):
    cache = str(tmp_path / "cache")
    path = os.path.join(logdir, "torn", TORCH_NAME)
    whole = record_bytes(
        [file_version_event()]
        + [scalar_event("loss", s, 1.7e9 + s, 1.0 / (s + 1)) for s in range(50)]
    )
    write(path, whole[:-9])  # the last record torn
    first, store = _source(logdir, cache)
    first.reload()
    assert store.summary("torn").num_points == 49
    write(path, whole[-9:], mode="ab")
    second, restored = _source(logdir, cache)
    assert second.reload().bytes_read == 9
    assert restored.summary("torn").num_points == 50
    assert _view(restored) == _cold(logdir)


def test_a_shrunk_file_is_read_again(logdir, tmp_path):
    cache = str(tmp_path / "cache")
    first, _ = _source(logdir, cache)
    first.reload()
    path = _torch_file(logdir)
    with open(path, "rb") as handle:
        data = handle.read()
    with open(path, "wb") as handle:
        handle.write(data[: len(data) // 2])
    second, restored = _source(logdir, cache)
    second.reload()
    warnings = restored.meta("pytorch_sgd").warnings
    assert any("read again" in w for w in warnings)
    cold = _cold(logdir)
    view = _view(restored)
    for run in cold:
        if run != "pytorch_sgd" and run != "layouts":
            assert view[run] == cold[run], run
    a, b = dict(view["pytorch_sgd"]), dict(cold["pytorch_sgd"])
    a.pop("meta"), b.pop("meta")  # the re-read note differs
    assert a == b


def test_a_corrupt_cache_is_dropped_and_the_files_read(
    logdir, tmp_path, caplog
):
    cache = str(tmp_path / "cache")
    first, _ = _source(logdir, cache)
    first.reload()
    segments = [
        os.path.join(d, f)
        for d, _, files in os.walk(cache)
        for f in files
        if f.endswith(".seg")
    ]
    for path in segments[::2]:  # every other run's segment damaged
        with open(path, "r+b") as handle:
            handle.seek(-20, os.SEEK_END)
            byte = handle.read(1)
            handle.seek(-20, os.SEEK_END)
            handle.write(bytes([byte[0] ^ 0xFF]))
    caplog.set_level(logging.WARNING)
    second, restored = _source(logdir, cache)
    second.reload()
    status = second.status().cache
    assert len(status["dropped"]) >= 1
    assert "checksum" in caplog.text
    assert _view(restored) == _cold(logdir)
    # The damaged entries were rewritten: the next start restores all.
    third, again = _source(logdir, cache)
    assert third.reload().bytes_read == 0
    assert _view(again) == _cold(logdir)


def test_the_cache_can_be_turned_off(logdir, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    source, _ = _source(logdir, "none")
    source.reload()
    assert not (tmp_path / "xdg").exists()
    assert source.status().cache == {
        "enabled": False,
        "note": "disabled by --tbmf_cache_dir",
    }
    default, _ = _source(logdir, "")  # the default: $XDG_CACHE_HOME
    default.reload()
    assert (tmp_path / "xdg" / "tb_multiframework").is_dir()


def _tensorboard_like(logdir: str, cache: str, rounds: int, path: str) -> None:
    """A process that reloads while a writer appends (the other process
    appends too: both see the same growing file)."""
    source, _ = _source(logdir, cache)
    for i in range(rounds):
        source.reload()
        _append(
            path, range(5000 + 100 * i + os.getpid() % 50, 5000 + 100 * i + 50)
        )


def test_two_processes_on_one_logdir(logdir, tmp_path):
    cache = str(tmp_path / "cache")
    path = _torch_file(logdir)
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_tensorboard_like, args=(logdir, cache, 6, path))
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(300)
        assert worker.exitcode == 0
    third, restored = _source(logdir, cache)
    third.reload()
    assert not third.status().cache["dropped"]
    assert _view(restored) == _cold(logdir)


def test_a_reload_that_dies_leaves_what_it_read_in_the_cache(
    logdir, tmp_path, monkeypatch
):
    """Checkpoints between runs: a first read killed before its end (here
    it fails after reading every run, before the final write) still
    leaves every checkpointed run in the cache."""
    from tb_multiframework.cache import loader_cache

    cache = str(tmp_path / "cache")
    monkeypatch.setattr(loader_cache, "_CHECKPOINT_SECONDS", 0.0)
    first, store = _source(logdir, cache)

    def die() -> None:
        raise RuntimeError("killed")

    monkeypatch.setattr(store, "compact", die)
    with pytest.raises(RuntimeError, match="killed"):
        first.reload()
    monkeypatch.undo()
    second, restored = _source(logdir, cache)
    assert second.reload().bytes_read == 0
    assert second.status().cache["restoredRuns"] == len(restored.runs())
    assert _view(restored) == _cold(logdir)
