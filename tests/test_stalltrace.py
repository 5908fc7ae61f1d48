"""The soak's stall watch (`api/stalltrace.py`) sees a thread that holds
the GIL in one long call, and names where that thread was."""

from __future__ import annotations

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
