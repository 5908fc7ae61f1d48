"""Where the server's memory goes: a debugging aid for soaks (issue 20).

With `TBMF_TRACE_MEMORY=<file>` in the environment, the plugin starts
`tracemalloc` and a thread that every `TBMF_TRACE_MEMORY_SECONDS` (60 by
default) appends one report (a JSON line) to the file:

- the process' RSS, the bytes of data the store holds (`Store.data_bytes`:
  what grows because a run grows) and RSS minus those bytes;
- the sizes of the api's caches (`Api.memory_figures`);
- the source lines whose live allocations grew most since the first
  report (the first report is the baseline: take it after a warm-up by
  choosing the interval), then the largest ones overall; only with
  `TBMF_TRACE_MEMORY_LINES` > 0 (15 by default; 0 reports the sizes
  alone, at no cost to other requests).

`bench/bench_soak.py --trace-memory` sets the variable for the servers it
soaks. Tracing slows every allocation: never on outside such a run.
"""

from __future__ import annotations

import json
import os
import threading
import time
import tracemalloc
from collections.abc import Callable, Mapping
from typing import Any

ENV_FILE = "TBMF_TRACE_MEMORY"
ENV_SECONDS = "TBMF_TRACE_MEMORY_SECONDS"
ENV_LINES = "TBMF_TRACE_MEMORY_LINES"


def rss_bytes() -> int:
    """The process' resident set size (0 where /proc is missing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


_ARENA_ALIGN = 64 << 20  # glibc's non-main arena heaps (HEAP_MAX_SIZE)


def rss_breakdown(smaps: str = "/proc/self/smaps") -> dict[str, float]:
    """Where the resident pages are, in MiB, from the kernel's map of the
    process: glibc's main heap (`[heap]`), its other arenas' heaps
    (anonymous maps aligned to 64 MiB), other anonymous maps (Python's
    object arenas, large arrays, thread stacks) and file maps (libraries,
    cache segments). {} where /proc is missing."""
    sums = {"heap": 0, "arenas": 0, "otherAnon": 0, "files": 0}
    kind = "otherAnon"
    try:
        with open(smaps, encoding="ascii", errors="replace") as lines:
            for line in lines:
                head = line.split(None, 6)
                if "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                    start = int(head[0].split("-")[0], 16)
                    path = head[5].strip() if len(head) > 5 else ""
                    if path == "[heap]":
                        kind = "heap"
                    elif path.startswith("/"):
                        kind = "files"
                    elif not path and start % _ARENA_ALIGN == 0:
                        kind = "arenas"
                    else:
                        kind = "otherAnon"
                elif head[0] == "Rss:":
                    sums[kind] += int(head[1])
    except (OSError, ValueError, IndexError):
        return {}
    return {name: round(kib / 1024, 1) for name, kib in sums.items()}


def start_from_environment(
    figures: Callable[[], Mapping[str, Any]],
    environ: Mapping[str, str] = os.environ,
) -> threading.Thread | None:
    """Starts the tracing thread when `TBMF_TRACE_MEMORY` names a file.

    Args:
      figures: what to report beside RSS (store and cache sizes).
    """
    path = environ.get(ENV_FILE, "")
    if not path:
        return None
    seconds = float(environ.get(ENV_SECONDS, "") or 60.0)
    lines = int(environ.get(ENV_LINES, "") or 15)
    if lines > 0:
        tracemalloc.start(1)
    thread = threading.Thread(
        target=_trace,
        args=(path, seconds, lines, figures),
        name="tbmf-memory-trace",
        daemon=True,
    )
    thread.start()
    return thread


def _trace(
    path: str,
    seconds: float,
    lines: int,
    figures: Callable[[], Mapping[str, Any]],
) -> None:
    baseline: tracemalloc.Snapshot | None = None
    begun = time.monotonic()
    while True:
        time.sleep(seconds)
        snapshot = None
        if lines > 0:
            snapshot = tracemalloc.take_snapshot().filter_traces(
                (tracemalloc.Filter(False, tracemalloc.__file__),)
            )
        report = memory_report(snapshot, baseline, figures(), lines)
        report["seconds"] = round(time.monotonic() - begun)
        if baseline is None:
            baseline = snapshot
        append_json_line(path, report)


def append_json_line(path: str, record: Mapping[str, Any]) -> None:
    """Appends `record` as one JSON line (the soak reports' format)."""
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def memory_report(
    snapshot: tracemalloc.Snapshot | None,
    baseline: tracemalloc.Snapshot | None,
    figures: Mapping[str, Any],
    lines: int = 15,
) -> dict[str, Any]:
    """One report: RSS, data bytes, cache figures, top allocation sites."""
    rss = rss_bytes()
    data = int(figures.get("storeDataBytes", 0))
    report: dict[str, Any] = {
        "rssMiB": round(rss / 2**20, 1),
        "storeDataMiB": round(data / 2**20, 1),
        "rssMinusDataMiB": round((rss - data) / 2**20, 1),
        "figures": dict(figures),
        "rssBreakdownMiB": rss_breakdown(),
    }
    if snapshot is None:
        return report
    report["tracedMiB"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 1)
    if baseline is not None:
        report["grew"] = [
            _site(stat.traceback, stat.size_diff, stat.count_diff)
            for stat in snapshot.compare_to(baseline, "lineno")[:lines]
        ]
    report["largest"] = [
        _site(stat.traceback, stat.size, stat.count)
        for stat in snapshot.statistics("lineno")[:lines]
    ]
    return report


def _site(trace: tracemalloc.Traceback, size: int, count: int) -> str:
    frame = trace[0]
    where = frame.filename.rpartition("site-packages/")[2]
    return f"{size / 2**20:+.2f} MiB ({count:+d}) {where}:{frame.lineno}"
