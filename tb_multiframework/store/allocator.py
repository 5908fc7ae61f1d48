"""glibc malloc settings that suit a store decoding series per request.

Scalar series are kept packed (`packing`) and decoded into fresh arrays for
each request. With glibc's defaults an array above 128 KiB is a new `mmap`
that is unmapped when freed (and freed heap tops are returned at once), so
every request pays a page fault per 4 KiB of output: decoding 5M points
took ~105 ms that way and ~17 ms with the heap reused (measured on the
development machine, bench note in README). `keep_freed_memory` raises the
mmap threshold to 32 MiB (glibc's maximum) and keeps up to 128 MiB of freed
memory for reuse; the loader still hands freed memory back with
`malloc_trim` after each reload, so resident memory after a load is
unchanged.

It also keeps every thread on glibc's main arena (`M_ARENA_MAX` 1). The
server answers each request on a new thread, and by default glibc gives
threads up to 8 per core arenas of their own; `malloc_trim` returns the
free pages inside each, but not the free top of any arena but the main one,
and with the trim threshold above (larger than such an arena's 64 MiB heap)
those tops are never returned at all. Under the soak (`bench/bench_soak.py`)
resident memory so grew by tens of MiB a minute with glibc's in-use figure
flat; with one arena a trim leaves in-use memory plus a little (a threaded
allocation test: 118 MiB resident after a trim against 336–407 MiB with
per-thread arenas, the threads no slower; the requests hold the GIL while
they allocate anyway). A no-op without glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)

_M_TRIM_THRESHOLD = -1  # mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
_MMAP_THRESHOLD = 32 << 20  # bytes; glibc's largest allowed on 64-bit
_TRIM_THRESHOLD = 128 << 20  # bytes of freed memory kept for reuse
_done = False


def keep_freed_memory() -> bool:
    """Applies the settings once per process; False where not possible."""
    global _done
    if _done:
        return True
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        mallopt = getattr(ctypes.CDLL(name), "mallopt", None)
    except OSError:
        return False
    if mallopt is None:
        return False
    ok = (
        bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD))
        and bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
        and bool(mallopt(_M_ARENA_MAX, 1))
    )
    if not ok:
        logger.info("tb_multiframework: mallopt refused the settings")
    _done = ok
    return ok


def _load_libc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None)
    except OSError:
        return None


_MALLOC_TRIM = _load_libc_trim()


def release_freed_memory() -> None:
    """Returns memory freed by large temporary arrays to the OS.

    glibc raises its mmap threshold after large frees, so later temporaries
    come from the heap and stay resident after being freed (~10 bytes per
    point loaded or framed); `malloc_trim` hands them back. Called after a
    reload (the loader) and after a large frame (the Python API). A no-op
    without glibc.
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def malloc_figures() -> dict[str, int]:
    """glibc's own counts over every arena (`mallinfo2`), in bytes: heap
    obtained from the OS, in use, free but kept, and mmapped blocks; {}
    without glibc 2.33+. For the soak's memory report."""
    name = ctypes.util.find_library("c")
    if not name:
        return {}
    try:
        call = getattr(ctypes.CDLL(name), "mallinfo2", None)
    except OSError:
        return {}
    if call is None:
        return {}
    call.restype = _MallInfo2
    info = call()
    return {
        "mallocHeapBytes": int(info.arena),
        "mallocInUseBytes": int(info.uordblks),
        "mallocFreeBytes": int(info.fordblks),
        "mallocMmapBytes": int(info.hblkhd),
    }
