"""The persistent cache at the store level: exact round trips, deltas,
untrusted files dropped, and two processes writing one cache at once."""

from __future__ import annotations

import json
import multiprocessing
import os
import time

import numpy as np
import pytest

from tb_multiframework.cache import LogdirCache
from tb_multiframework.cache import segments as segments_module
from tb_multiframework.store.store import RunMeta, Store

SEED = 424242
I64 = np.iinfo(np.int64)


def _meta(run: str) -> RunMeta:
    return RunMeta(run, run, "pytorch", "", "tfevents")


def _fill(store: Store, run: str, rng: np.random.Generator, n: int) -> None:
    """Scalars (adversarial ones too), histograms and a layout."""
    if not store.has_run(run):
        store.set_meta(_meta(run))
    steps = np.cumsum(rng.integers(0, 3, n)).astype(np.int64)
    walls = 1.7e9 + np.cumsum(rng.exponential(0.05, n))
    values = rng.normal(size=n).astype(np.float32).astype(np.float64)
    store.append_scalars(run, "loss", steps, walls, values)
    odd = np.array([I64.min, I64.max, 0, -5, 5][: max(1, n % 5)])
    store.append_scalars(
        run,
        "odd",
        odd,
        np.array([np.nan, -0.0, np.inf, 1.0, 5e-324][: len(odd)]),
        np.array([0.1, np.nan, -np.inf, 1e300, -0.0][: len(odd)]),
    )
    k = int(rng.integers(1, 4))
    sizes = rng.integers(0, 5, k)  # buckets; 0: an empty histogram
    edges = [
        np.sort(rng.normal(size=m + 1)) if m else np.zeros(0) for m in sizes
    ]
    store.append_histograms(
        run,
        "weights",
        list(range(k)),
        [1.7e9 + i for i in range(k)],
        edges,
        [rng.integers(1, 9, m).astype(float) for m in sizes],
    )
    store.add_layout(
        run, int(rng.integers(0, 9)), {"category": [{"title": "x"}]}
    )
    store.compact()


def _hist_fixed(store: Store, run: str, rng) -> None:
    edges = [np.sort(rng.normal(size=m + 1)) for m in (3, 0, 5)]
    counts = [rng.integers(0, 9, len(e) - 1).astype(float) for e in edges]
    store.append_histograms(run, "h", [1, 2, 3], [1.0, 2.0, 3.0], edges, counts)


def _snapshot(store: Store, run: str) -> dict:
    summary = store.summary(run)
    out = {
        "points": summary.num_points,
        "histograms": summary.num_histograms,
        "ranges": (
            summary.first_step,
            summary.last_step,
            summary.start_time,
            summary.end_time,
        ),
        "layouts": store.layouts().get(run, []),
    }
    for tag in summary.scalar_tags:
        series = store.scalars(run, tag)
        out[tag] = tuple(
            np.ascontiguousarray(a).view(np.uint64).tolist()
            for a in (series.steps, series.wall_times, series.values)
        )
    for tag in summary.histogram_tags:
        hist = store.histograms(run, tag)
        out["h:" + tag] = (
            hist.steps.tolist(),
            hist.wall_times.tolist(),
            [e.tolist() for e in hist.edges],
            [c.tolist() for c in hist.counts],
        )
    return out


def _state(consumed: int) -> dict:
    return {"consumed": consumed, "files": {"f": {"offset": consumed}}}


def _restored(root, logdir, run) -> Store:
    store = Store()
    store.set_meta(_meta(run))
    cache = LogdirCache(str(root), str(logdir))
    assert cache.restore(run, store), cache.dropped
    return store


def test_round_trip_then_deltas_are_exact(tmp_path):
    rng = np.random.default_rng(SEED)
    print(f"seed {SEED}")
    root, logdir = tmp_path / "cache", tmp_path / "logs"
    logdir.mkdir()
    store = Store()
    cache = LogdirCache(str(root), str(logdir))
    _fill(store, "a/run", rng, 5000)
    _hist_fixed(store, "a/run", rng)
    cache.persist(store, {"a/run": _state(100)}, set())
    assert _snapshot(_restored(root, logdir, "a/run"), "a/run") == _snapshot(
        store, "a/run"
    )
    for reload in range(3):  # deltas: each reload adds a segment
        _fill(store, "a/run", rng, 777)
        cache.persist(store, {"a/run": _state(200 + reload)}, set())
    index = json.loads((cache_dir(root) / "index.json").read_text())
    assert len(index["runs"]["a/run"]["segments"]) == 4
    assert index["runs"]["a/run"]["state"] == _state(202)
    assert _snapshot(_restored(root, logdir, "a/run"), "a/run") == _snapshot(
        store, "a/run"
    )


def cache_dir(root):
    (only,) = [p for p in root.iterdir() if p.is_dir()]
    return only


def test_many_deltas_are_rewritten_as_one_segment(tmp_path):
    rng = np.random.default_rng(SEED)
    root, logdir = tmp_path / "cache", tmp_path / "logs"
    logdir.mkdir()
    store, cache = Store(), LogdirCache(str(root), str(logdir))
    for reload in range(20):
        _fill(store, "r", rng, 50)
        cache.persist(store, {"r": _state(reload)}, set())
    index = json.loads((cache_dir(root) / "index.json").read_text())
    assert len(index["runs"]["r"]["segments"]) <= 16
    assert _snapshot(_restored(root, logdir, "r"), "r") == _snapshot(store, "r")


def _corrupt_byte(path, offset_from_end=10):
    data = bytearray(path.read_bytes())
    data[-offset_from_end] ^= 0x40
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage",
    ["flip_data", "truncate", "flip_header", "missing", "foreign", "version"],
)
def test_untrusted_segments_are_dropped_with_a_reason(tmp_path, damage, caplog):
    rng = np.random.default_rng(SEED)
    root, logdir = tmp_path / "cache", tmp_path / "logs"
    logdir.mkdir()
    store, cache = Store(), LogdirCache(str(root), str(logdir))
    _fill(store, "r", rng, 1000)
    cache.persist(store, {"r": _state(1)}, set())
    (segment,) = cache_dir(root).glob("*.seg")
    if damage == "flip_data":
        _corrupt_byte(segment)
    elif damage == "truncate":
        segment.write_bytes(segment.read_bytes()[:-7])
    elif damage == "flip_header":
        _corrupt_byte(segment, segment.stat().st_size - 30)
    elif damage == "missing":
        segment.unlink()
    elif damage == "foreign":
        segment.write_bytes(b"PK\x03\x04 not a segment at all" * 10)
    else:
        data = bytearray(segment.read_bytes())
        data[8] = segments_module.FORMAT_VERSION + 1
        segment.write_bytes(bytes(data))
    fresh = Store()
    fresh.set_meta(_meta("r"))
    again = LogdirCache(str(root), str(logdir))
    assert not again.restore("r", fresh)
    assert fresh.summary("r").num_points == 0  # nothing half-restored
    (reason,) = again.dropped
    assert "'r' dropped" in reason
    assert "dropped" in caplog.text


@pytest.mark.parametrize(
    "index", [b"{not json", b'{"format": 999, "runs": {}}', b"[]", b"\xff" * 9]
)
def test_a_bad_index_is_ignored(tmp_path, index):
    root, logdir = tmp_path / "cache", tmp_path / "logs"
    logdir.mkdir()
    cache = LogdirCache(str(root), str(logdir))
    (cache_dir(root) / "index.json").write_bytes(index)
    again = LogdirCache(str(root), str(logdir))
    assert again.entry_state("r") is None and again.dropped
    # ... and the next write replaces it with a good one.
    store = Store()
    _fill(store, "r", np.random.default_rng(1), 10)
    again.persist(store, {"r": _state(5)}, set())
    assert LogdirCache(str(root), str(logdir)).entry_state("r") == _state(5)
    del cache


def test_forgotten_runs_leave_and_orphans_are_removed(tmp_path):
    root, logdir = tmp_path / "cache", tmp_path / "logs"
    logdir.mkdir()
    store, cache = Store(), LogdirCache(str(root), str(logdir))
    _fill(store, "r", np.random.default_rng(2), 100)
    cache.persist(store, {"r": _state(1)}, set())
    (segment,) = cache_dir(root).glob("*.seg")
    cache.persist(store, {}, {"r"})
    assert LogdirCache(str(root), str(logdir)).entry_state("r") is None
    assert segment.exists()  # a reader may still be opening it
    old = time.time() - 3600
    os.utime(segment, (old, old))
    cache.persist(store, {}, set())
    assert not segment.exists()


def _writer(root: str, logdir: str, seed: int, rounds: int) -> None:
    """One TensorBoard's reloads: its own runs plus a shared one."""
    rng = np.random.default_rng(seed)
    store, cache = Store(), LogdirCache(root, logdir)
    for _ in range(rounds):
        for run in (f"own{seed}", "shared"):
            _fill(store, run, rng, 200)
            consumed = store.summary(run).num_points
            cache.persist(store, {run: _state(consumed)}, set())


def test_two_processes_writing_at_once_leave_a_valid_cache(tmp_path):
    root, logdir = str(tmp_path / "cache"), str(tmp_path / "logs")
    os.mkdir(logdir)
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_writer, args=(root, logdir, seed, 12))
        for seed in (1, 2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    cache = LogdirCache(root, logdir)
    assert not cache.dropped
    for run in ("own1", "own2", "shared"):
        store = Store()
        store.set_meta(_meta(run))
        assert cache.restore(run, store), cache.dropped
        # Every entry holds one process' run whole: its state says how much.
        consumed = cache.entry_state(run)["consumed"]
        assert store.summary(run).num_points == consumed
    for name in os.listdir(cache_dir(tmp_path / "cache")):
        assert not name.startswith(".tmp-"), name
