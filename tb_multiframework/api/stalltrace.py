"""Which work stalls the server's other threads: a debugging aid for soaks.

With `TBMF_TRACE_STALLS=<file>` in the environment, the plugin starts a
thread that sleeps `TICK` seconds at a time. When it wakes more than
`TBMF_TRACE_STALLS_MS` (50 by default) late, something kept it from
running: another thread holding the GIL in one long call (a light request
would have waited as long), or no free core. It then appends one JSON line
to the file: how late it woke, and where every other busy thread is (the
innermost frames of each thread the kernel has running or ready to run;
threads asleep in a lock, the GIL, a socket or a sleep are left out).
Right after a long call the thread that made it is still in the function
that called it, so counting those functions over a soak says which work
stalls light requests. It also appends one line for each garbage
collection that held the GIL longer than the threshold (`gcMs`, its
generation): those stall every thread without showing in any frame.
`bench/bench_soak.py --trace-stalls` sets the variable and prints the
summary.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
import traceback
from collections.abc import Mapping

from tb_multiframework.api.memtrace import append_json_line

ENV_FILE = "TBMF_TRACE_STALLS"
ENV_MS = "TBMF_TRACE_STALLS_MS"
TICK = 0.005  # seconds between wake-ups
FRAMES = 8  # innermost frames kept per thread

# Innermost functions of a thread that is waiting, not working.
_IDLE = frozenset(
    {
        "wait",
        "_wait_for_tstate_lock",
        "select",
        "poll",
        "accept",
        "sleep",
        "readinto",
        "recv_into",
        "get",
        "acquire",
        "_acquire_restore",
        "serve_forever",
    }
)


def start_from_environment(
    environ: Mapping[str, str] = os.environ,
    stop: threading.Event | None = None,
) -> threading.Thread | None:
    """Starts the watching thread when `TBMF_TRACE_STALLS` names a file
    (it watches until `stop` is set: for the server, for good)."""
    path = environ.get(ENV_FILE, "")
    if not path:
        return None
    threshold = float(environ.get(ENV_MS, "") or 50.0) / 1000
    thread = threading.Thread(
        target=_watch,
        args=(path, threshold, stop or threading.Event()),
        name="tbmf-stall-trace",
        daemon=True,
    )
    thread.start()
    return thread


class _CollectionTimer:
    """A `gc.callbacks` entry appending collections longer than
    `threshold` seconds to the file."""

    def __init__(self, path: str, threshold: float) -> None:
        self._path = path
        self._threshold = threshold
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        if took > self._threshold:
            record = {
                "gcMs": round(took * 1e3, 1),
                "generation": info.get("generation"),
                "at": time.time(),
            }
            append_json_line(self._path, record)


def _watch(path: str, threshold: float, stop: threading.Event) -> None:
    timer = _CollectionTimer(path, threshold)
    gc.callbacks.append(timer)
    try:
        _watch_wake_ups(path, threshold, stop)
    finally:
        gc.callbacks.remove(timer)


def _watch_wake_ups(path: str, threshold: float, stop: threading.Event) -> None:
    me = threading.get_ident()
    while not stop.is_set():
        started = time.perf_counter()
        time.sleep(TICK)
        late = time.perf_counter() - started - TICK
        if late <= threshold:
            continue
        busy = busy_threads(sys._current_frames(), skip=me)
        record = {
            "lateMs": round(late * 1e3, 1),
            "at": time.time(),
            "threads": busy,
        }
        append_json_line(path, record)


def _kernel_state(native_id: int | None) -> str:
    """The thread's state letter in /proc ("R" running or runnable, "S"
    asleep...), "" where unknown."""
    if native_id is None:
        return ""
    try:
        with open(
            f"/proc/self/task/{native_id}/stat", encoding="ascii"
        ) as stat:
            return stat.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return ""


def busy_threads(frames: Mapping[int, object], skip: int) -> list[list[str]]:
    """The innermost frames ("file:line function") of each thread in
    `frames` (`sys._current_frames()`) that is not waiting: running or
    ready to run in the kernel's view (state R), or, where /proc does not
    say, whose innermost function is not a known wait."""
    native = {t.ident: t.native_id for t in threading.enumerate()}
    found = []
    for ident, frame in frames.items():
        if ident == skip:
            continue
        stack = traceback.extract_stack(frame)[-FRAMES:]  # type: ignore[arg-type]
        state = _kernel_state(native.get(ident))
        if (
            not stack
            or (state or "R") != "R"
            or (not state and stack[-1].name in _IDLE)
        ):
            continue
        found.append(
            [
                f"{entry.filename.rpartition('site-packages/')[2]}:"
                f"{entry.lineno} {entry.name}"
                for entry in reversed(stack)
            ]
        )
    return found
