"""The soak's stall watch (`api/stalltrace.py`) sees a thread that holds
the GIL in one long call, and names where that thread was."""

from __future__ import annotations

import gc
import json
import threading
import time

from tb_multiframework.api import stalltrace


def _hold_the_gil(seconds: float) -> None:
    # One C call that never releases the GIL: the stall a light request
    # would meet.
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        sum(range(2_000_000))


def test_a_long_call_holding_the_gil_is_recorded_with_its_function(tmp_path):
    path = tmp_path / "stalls.jsonl"
    assert stalltrace.start_from_environment({}) is None
    stop = threading.Event()
    watcher = stalltrace.start_from_environment(
        {stalltrace.ENV_FILE: str(path), stalltrace.ENV_MS: "15"}, stop
    )
    assert watcher is not None
    try:
        worker = threading.Thread(target=_hold_the_gil, args=(0.6,))
        worker.start()
        worker.join()
    finally:
        stop.set()
        watcher.join(5)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records, "no stall recorded"
    assert max(r["lateMs"] for r in records) > 15
    tops = [stack[0] for r in records for stack in r["threads"]]
    assert any(top.endswith(" _hold_the_gil") for top in tops), tops


def test_waiting_threads_are_left_out():
    event = threading.Event()
    waiter = threading.Thread(target=event.wait)
    waiter.start()
    try:
        import sys

        # Until the kernel has it asleep in the wait (it starts running).
        deadline = time.monotonic() + 10
        while stalltrace._kernel_state(waiter.native_id) != "S":
            assert time.monotonic() < deadline, "the waiter never slept"
            time.sleep(0.01)
        busy = stalltrace.busy_threads(sys._current_frames(), skip=-1)
        flat = [frame for stack in busy for frame in stack]
        assert not any(frame.endswith(" wait") for frame in flat), busy
        # This thread is busy (it is running this test): it is listed.
        assert any("test_waiting_threads_are_left_out" in f for f in flat)
    finally:
        event.set()
        waiter.join()


def test_a_long_garbage_collection_is_recorded_with_its_generation(tmp_path):
    # A collection holds the GIL without showing in any thread's frames:
    # it is recorded apart, by a gc callback, while the watch runs.
    path = tmp_path / "stalls.jsonl"
    stop = threading.Event()
    before = list(gc.callbacks)
    watcher = stalltrace.start_from_environment(
        {stalltrace.ENV_FILE: str(path), stalltrace.ENV_MS: "0"}, stop
    )
    assert watcher is not None
    gc.disable()  # only the collection below runs
    try:
        deadline = time.monotonic() + 10
        while len(gc.callbacks) == len(before):  # the timer is installed
            assert time.monotonic() < deadline, "no gc callback installed"
            time.sleep(0.01)
        kept = [[i] for i in range(200_000)]  # something to walk
        started = time.perf_counter()
        gc.collect()
        took_ms = (time.perf_counter() - started) * 1e3
        del kept
    finally:
        gc.enable()
        stop.set()
        watcher.join(5)
    assert gc.callbacks == before  # removed when the watch ends
    records = [json.loads(line) for line in path.read_text().splitlines()]
    collections = [r for r in records if "gcMs" in r]
    assert [r["generation"] for r in collections] == [2], records
    # The recorded duration is the collection's, within what the caller saw.
    assert 0 < collections[0]["gcMs"] <= took_ms + 0.1, (records, took_ms)
