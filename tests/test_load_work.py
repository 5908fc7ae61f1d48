"""Work the server repeats under load, done once (issue 20, "Load").

Each test counts what is computed (calls, entries, bytes), never time:

- `runs` (the tab polls it) decoded every scalar series of every run to
  count its attempts, on every request: now trivial series are counted
  without decoding, and the entries are made once per context;
- `Context.metric` built a set of the run's tags on each call (a run of
  200,000 tags: quadratic); it is now worked out once per (run, tag);
- the anomaly scan ran every detector on series too short for any of them
  to find something, and tested every tag of every run for a learning
  rate on each request;
- the memory report of the soak (`api/memtrace.py`, `Store.data_bytes`).
"""

from __future__ import annotations

import json
import time
import tracemalloc

import numpy as np
import pytest

from tb_multiframework.api import anomalies as api_anomalies
from tb_multiframework.api import context as api_context
from tb_multiframework.api import memtrace
from tb_multiframework.api import run_entries as api_run_entries
from tb_multiframework.api import service as api_service
from tb_multiframework.api.anomalies import AnomalyQuery
from tb_multiframework.api.service import Api
from tb_multiframework.core import anomalies
from tb_multiframework.core.anomalies.base import Prepared
from tb_multiframework.core.anomalies.levels import (
    detect_cliffs,
    detect_explosion,
    detect_stepwise_rise,
)
from tb_multiframework.core.anomalies.periodic import detect_oscillation
from tb_multiframework.core.anomalies.plateau import detect_plateaus
from tb_multiframework.core.anomalies.pointwise import (
    detect_nonfinite,
    detect_spikes,
)
from tb_multiframework.core.metrics import canonical_metric
from tb_multiframework.settings.config import ConfigFile
from tb_multiframework.store import scalar_reads
from tb_multiframework.store.store import RunMeta, Store


def _api(tmp_path, store: Store, loader=None) -> Api:
    return Api(
        store,
        loader,
        ConfigFile(str(tmp_path / "absent.json"), optional=True),
        None,
        "none",
    )


def _store(runs: int = 3, tags: int = 4, points: int = 50) -> Store:
    store = Store()
    for r in range(runs):
        run = f"run{r}"
        store.set_meta(RunMeta(run, run, "pytorch", "", "tfevents"))
        for t in range(tags):
            store.append_scalars(
                run,
                f"m{t}/loss",
                np.arange(points),
                1e9 + np.arange(points),
                np.linspace(2.0, 1.0, points) + t,
            )
    store.compact()
    return store


def test_runs_counts_attempts_of_plain_series_without_decoding(
    tmp_path, monkeypatch
):
    store = _store()
    resumed = "run0"
    # run0's m0/loss restarts at step 10: its attempts need its steps.
    store.append_scalars(
        resumed,
        "m0/loss",
        np.arange(10, 30),
        2e9 + np.arange(20),
        np.ones(20),
        attempts=np.ones(20, dtype=np.int64),
    )
    decoded = []
    real = scalar_reads.decode_blocks
    monkeypatch.setattr(
        scalar_reads,
        "decode_blocks",
        lambda blocks: decoded.append(1) or real(blocks),
    )
    counts = store.attempt_counts("run1")
    assert decoded == []  # four plain series: counted, not decoded
    assert [(c.attempt, c.points, c.superseded) for c in counts] == [
        (0, 4 * 50, 0)
    ]
    counts = store.attempt_counts(resumed)
    assert len(decoded) == 1  # only the resumed series
    # Attempt 1 resumed at step 10: attempt 0's steps 10..49 are
    # superseded (40 points).
    assert [(c.attempt, c.points, c.superseded) for c in counts] == [
        (0, 4 * 50, 40),
        (1, 20, 0),
    ]


def test_runs_entries_are_made_once_per_context(tmp_path, monkeypatch):
    store = _store()
    api = _api(tmp_path, store)
    made = []
    real = api_run_entries.run_attempts
    monkeypatch.setattr(
        api_run_entries,
        "run_attempts",
        lambda *a: made.append(a[1].run) or real(*a),
    )
    first = api.runs()
    for _ in range(5):
        again = api.runs()
    assert sorted(made) == ["run0", "run1", "run2"]
    assert again["runs"] == first["runs"]
    api.runs(all_tags=True)  # the other shape: its own entries
    assert len(made) == 6
    store.append_scalars(
        "run1", "m0/loss", np.array([50]), np.array([2e9]), np.array([0.5])
    )
    answer = api.runs()  # a new version: made again, with the new point
    assert len(made) == 9
    points = {r["run"]: r["numPoints"] for r in answer["runs"]}
    assert points == {"run0": 200, "run1": 201, "run2": 200}


def test_context_metric_is_worked_out_once_per_series(tmp_path, monkeypatch):
    store = _store(runs=2, tags=30, points=3)
    api = _api(tmp_path, store)
    ctx = api.context()
    calls = []
    monkeypatch.setattr(
        api_context,
        "canonical_metric",
        lambda *a, **k: calls.append(a[1]) or canonical_metric(*a, **k),
    )
    for _ in range(3):
        for run, summary in ctx.summaries.items():
            for tag in summary.scalar_tags:
                found = ctx.metric(run, tag)
                expected = canonical_metric(
                    ctx.infos[run],
                    tag,
                    aliases=ctx.aliases,
                    run_tags=frozenset(summary.scalar_tags),
                    split_hint=ctx.split_hints.get((run, tag)),
                )
                assert found == expected
    assert len(calls) == 2 * 30  # once per (run, tag), not per call
    assert len(ctx._metrics_of) == 60 and len(ctx._tag_sets) == 2


_DETECTORS = {
    "nonfinite": lambda p, lr: detect_nonfinite(p),
    "spike": lambda p, lr: detect_spikes(p),
    "cliff": detect_cliffs,
    "plateau": detect_plateaus,
    "oscillation": lambda p, lr: detect_oscillation(p),
    "stepwise_rise": detect_stepwise_rise,
    "explosion": lambda p, lr: detect_explosion(p),
}


@pytest.mark.parametrize("n", range(1, anomalies.MIN_DETECTED_POINTS + 2))
def test_short_series_find_what_every_detector_finds(n):
    """Below MIN_DETECTED_POINTS only NaN checks run: each detector, run on
    its own, must indeed find nothing else there (and above it, all run)."""
    rng = np.random.default_rng(n)
    for trial in range(12):
        values = rng.choice([1.0, 5.0, 1e6, -3.0, 0.0], size=n) * rng.random(n)
        values[rng.random(n) < 0.2] = np.nan
        if trial % 3 == 0:
            values[rng.random(n) < 0.2] = np.inf
        steps = np.arange(n) * 10
        for direction in ("lower", "higher", None):
            p = Prepared(steps, values, direction)
            expected = []
            for kind, detect in _DETECTORS.items():
                found = detect(p, None)
                if kind != "nonfinite" and len(p) < anomalies.MIN_DETECTED_POINTS:
                    assert found == [], (kind, n, values)
                expected += found
            got = anomalies.detect_series(
                steps, values, direction=direction, validation=True
            )
            assert got == anomalies.resolve(expected)


def test_anomaly_scan_tests_tag_names_once_per_context(tmp_path, monkeypatch):
    store = _store(runs=2, tags=20, points=5)
    for run in ("run0", "run1"):
        store.append_scalars(run, "lr", np.arange(5), 1e9 + np.arange(5), np.ones(5))
    api = _api(tmp_path, store)
    first = api.anomaly_payload(AnomalyQuery())
    tested = []
    real = api_anomalies.is_learning_rate
    monkeypatch.setattr(
        api_anomalies,
        "is_learning_rate",
        lambda name: tested.append(name) or real(name),
    )
    again = api.anomaly_payload(AnomalyQuery())
    # Every result is kept and the view is the same: each series' name is
    # tested once (for the kinds its result was kept under), not three
    # times (the runs' learning-rate tags are kept per view).
    assert len(tested) == 2 * 21
    assert again == first and first["series"] == 2 * 21


def test_store_data_bytes_counts_the_series_held():
    store = Store()
    store.set_meta(RunMeta("run", "run", "pytorch", "", "tfevents"))
    assert store.data_bytes() == 0
    store.append_scalars("run", "a", np.arange(100), np.zeros(100), np.ones(100))
    assert store.data_bytes() == 100 * (8 + 8 + 8)  # pending: int64, 2 float64
    edges = [np.linspace(0, 1, 11) for _ in range(3)]
    counts = [np.ones(10) for _ in range(3)]
    store.append_histograms("run", "h", [0, 1, 2], [1.0, 2.0, 3.0], edges, counts)
    histogram = 3 * 8 + 3 * 8 + 3 * 11 * 8 + 3 * 10 * 8
    assert store.data_bytes() == 100 * 24 + histogram
    store.compact()  # packed: smaller, never more than the raw points
    assert histogram < store.data_bytes() < 100 * 24 + histogram


def test_memory_trace_appends_reports_to_the_named_file(tmp_path):
    path = tmp_path / "memory.jsonl"
    assert memtrace.start_from_environment(lambda: {}, environ={}) is None
    figures = {"storeDataBytes": 3 * 2**20, "answers": 2}
    thread = memtrace.start_from_environment(
        lambda: figures,
        environ={
            memtrace.ENV_FILE: str(path),
            memtrace.ENV_SECONDS: "0.05",
            memtrace.ENV_LINES: "0",  # sizes only: no tracemalloc
        },
    )
    assert thread is not None and not tracemalloc.is_tracing()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= 2:
            break
        time.sleep(0.05)
    report = json.loads(lines[0])
    assert report["storeDataMiB"] == 3.0
    assert report["figures"] == figures
    assert report["rssMiB"] > 0
    assert report["rssMinusDataMiB"] == pytest.approx(report["rssMiB"] - 3.0, abs=0.2)
    # Where the resident pages are: the kinds of maps add up to the RSS.
    where = report["rssBreakdownMiB"]
    assert set(where) == {"heap", "arenas", "otherAnon", "files"}
    assert sum(where.values()) == pytest.approx(report["rssMiB"], abs=8)


def test_kept_answers_are_bounded_by_their_bytes(tmp_path):
    api = _api(tmp_path, _store())
    size = 3 * 2**20
    sent = []
    for n in range(20):
        payload = {"n": n, "blob": "x" * size}
        sent.append(len(json.dumps(payload, separators=(",", ":"))))
        api._cached(("big", n), lambda payload=payload: payload)
    figures = api.memory_figures()
    # The newest answers whose bytes fit the bound, by their JSON lengths.
    fitting, total = 0, 0
    for length in reversed(sent):
        if total + length > api_service._CACHE_BYTES:
            break
        fitting, total = fitting + 1, total + length
    assert figures["answers"] == fitting == 10
    assert figures["answerBytes"] == total
    # An answer larger than the bound is answered, not kept (nor does it
    # push the others out).
    huge = {"blob": "y" * (api_service._CACHE_BYTES + 1)}
    assert len(api._cached(("huge",), lambda: huge).data) > api_service._CACHE_BYTES
    assert api.memory_figures()["answerBytes"] == total


def test_memory_report_names_the_lines_that_grew():
    tracemalloc.start(1)
    try:
        before = tracemalloc.take_snapshot()
        kept = [bytearray(2**20) for _ in range(4)]  # this line grows 4 MiB
        after = tracemalloc.take_snapshot()
        report = memtrace.memory_report(after, before, {}, lines=3)
    finally:
        tracemalloc.stop()
    assert len(kept) == 4
    assert "test_load_work.py" in report["grew"][0]
    assert report["grew"][0].startswith("+4.0")


class _Reloading:
    """A source as the api sees it, mid-way through a background reload."""

    def __init__(self) -> None:
        import threading

        self.loaded_once = threading.Event()
        self.loaded_once.set()
        self.reloading = True
        self.after_reload = None
        self.last_stats = None
        self.last_error = ""
        self.problems = ()

    def status(self):
        from tb_multiframework.sources import SourceStatus

        return SourceStatus(kind="files", location="", reason="")


def test_requests_during_a_background_reload_build_no_context(tmp_path):
    store = _store(runs=2, tags=2, points=10)
    loader = _Reloading()
    api = _api(tmp_path, store, loader)
    builds = []
    real = api._contexts.build
    api._contexts.build = lambda config: builds.append(1) or real(config)
    first = api.runs()
    assert first["runs"][0]["numPoints"] == 20  # the first: built
    for k in range(10):  # a reload appending, requests meanwhile
        store.append_scalars(
            "run0",
            "m0/loss",
            np.array([10 + k]),
            np.array([2e9 + k]),
            np.array([0.5]),
        )
        answer = api.runs()
        assert answer["runs"][0]["numPoints"] == 20  # the last context
        assert answer["dataVersion"] == first["dataVersion"]  # and its version
    assert len(builds) == 1
    loader.reloading = False
    api.settled_context()  # what the reload thread calls when done
    assert len(builds) == 2
    answer = api.runs()
    assert answer["runs"][0]["numPoints"] == 30
    assert answer["dataVersion"] == store.version > first["dataVersion"]
    assert len(builds) == 2


def test_the_reload_thread_builds_the_context_after_each_reload():
    from tb_multiframework.ingest.periodic import PeriodicReload

    seen = []

    class Source(PeriodicReload):
        def reload(self):
            seen.append(("reload", self.reloading))

    source = Source()
    source.after_reload = lambda: seen.append(("after", source.reloading))
    source.start(0)  # once
    source._thread.join(30)
    assert seen == [("reload", True), ("after", False)]


def test_runs_says_loading_while_its_context_is_of_the_first_load(tmp_path):
    """`loading: false` promises the whole first load (the browser tests
    wait for it, then compare the run list with the disk). A request that
    built its context mid-way through the first load, while the load
    finished, said `loading: false` with the runs read so far (an S3 run
    list without its last run, under load)."""
    store = _store(runs=2, tags=2, points=10)
    loader = _Reloading()
    loader.loaded_once.clear()  # the first load is running
    api = _api(tmp_path, store, loader)
    real = api._contexts.build

    def build_while_the_load_ends(config):
        context = real(config)  # the runs read so far
        # The load reads its last run...
        late = RunMeta("run_late", "run_late", "pytorch", "", "tfevents")
        store.set_meta(late)
        store.append_scalars(
            "run_late",
            "m0/loss",
            np.array([1]),
            np.array([2e9]),
            np.array([0.5]),
        )
        loader.reloading = False
        loader.loaded_once.set()  # ... and ends
        return context

    api._contexts.build = build_while_the_load_ends
    answer = api.runs()
    assert [r["run"] for r in answer["runs"]] == ["run0", "run1"]
    assert answer["loading"] is True
    api._contexts.build = real
    api.settled_context()  # what the reload thread does next
    answer = api.runs()
    assert [r["run"] for r in answer["runs"]] == ["run0", "run1", "run_late"]
    assert answer["loading"] is False


def test_the_context_after_a_reload_waits_for_a_build_in_progress(tmp_path):
    """A request building a context of part of the first load while the
    load ended: `settled_context` (then `loaded_once`) used to return at
    once, leaving the older context current."""
    import threading

    store = _store(runs=2, tags=2, points=10)
    loader = _Reloading()
    loader.loaded_once.clear()  # the first load is running
    api = _api(tmp_path, store, loader)
    assert len(api.runs()["runs"]) == 2  # a context of part of the load
    waiting = threading.Event()

    class Watched(threading.Condition):
        def wait(self, timeout=None):
            waiting.set()
            return super().wait(timeout)

    api._built = Watched(api._lock)
    gate = threading.Event()
    building = threading.Event()
    real = api._contexts.build

    def held(config):
        if not building.is_set():  # the request's build
            building.set()
            gate.wait(30)
        return real(config)

    api._contexts.build = held
    store.set_meta(RunMeta("run2", "run2", "pytorch", "", "tfevents"))
    store.append_scalars(
        "run2", "m0/loss", np.array([1]), np.array([2e9]), np.array([0.5])
    )
    request = threading.Thread(target=api.runs)
    request.start()
    assert building.wait(30)
    store.set_meta(RunMeta("run3", "run3", "pytorch", "", "tfevents"))
    store.append_scalars(
        "run3", "m0/loss", np.array([1]), np.array([2e9]), np.array([0.5])
    )
    loader.reloading = False  # the load ended: the reload thread settles
    settle = threading.Thread(target=api.settled_context)
    settle.start()
    while settle.is_alive() and not waiting.wait(0.01):
        pass
    gate.set()
    settle.join(30)
    request.join(30)
    assert not settle.is_alive() and not request.is_alive()
    assert api._context_key[0] == store.version
    loader.loaded_once.set()
    assert [r["run"] for r in api.runs()["runs"]] == [
        "run0", "run1", "run2", "run3",
    ]  # fmt: skip


def test_the_first_load_counts_as_done_once_its_context_is_built():
    """`loaded_once` is set after `after_reload` (which builds the context
    of the loaded data), so that no request sees it set and is answered
    from a context of part of the first load."""
    from tb_multiframework.ingest.periodic import PeriodicReload

    seen = []

    class Source(PeriodicReload):
        def reload(self):
            pass

    source = Source()
    source.after_reload = lambda: seen.append(source.loaded_once.is_set())
    source.start(0)  # once
    source._thread.join(30)
    assert seen == [False]
    assert source.loaded_once.is_set()


def test_at_most_compute_slots_answers_are_computed_at_once(tmp_path):
    import threading

    api = _api(tmp_path, _store(runs=2, tags=2, points=10))
    kept = api._cached(("kept",), lambda: {"kept": 1})
    gate = threading.Event()
    inside = []
    most = []
    lock = threading.Lock()

    def compute(k):
        with lock:
            inside.append(k)
            most.append(len(inside))
        # A computation asking for another answer does not wait for a
        # second slot (which could deadlock with every slot taken).
        api._cached(("inner", k), lambda: {"inner": k})
        gate.wait(30)
        with lock:
            inside.remove(k)
        return {"k": k}

    threads = [
        threading.Thread(target=api._cached, args=(("heavy", k), lambda k=k: compute(k)))
        for k in range(6)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while len(inside) < service_slots() and time.monotonic() < deadline:
        time.sleep(0.01)
    # Every slot taken: light requests and kept answers still answer.
    assert api.runs()["runs"][0]["run"] == "run0"
    assert api._cached(("kept",), lambda: {"kept": 2}) is kept
    gate.set()
    for thread in threads:
        thread.join(30)
    assert max(most) == service_slots() == 2
    assert all(("heavy", k) in api._cache for k in range(6))


def service_slots() -> int:
    return api_service.COMPUTE_SLOTS
