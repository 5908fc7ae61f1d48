"""How many heavy requests run at once, and what a request may compute.

Heavy routes (an export, a layout preview, anomalies over every series)
take time and memory that grow with the logdir. `HeavySlots` lets a few
run at once; the rest wait their turn for a while, then are refused with a
429 ("too many at once, retry"), so sixteen concurrent exports cannot take
the server's memory, and light requests (runs, scalars) keep their threads
and the CPU. A waiting request whose client has gone gives up at once.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

HEAVY_SLOTS = 2  # heavy requests computing at once (the machine: 2 cores)
HEAVY_WAIT_SECONDS = 30.0  # longest wait for a slot before a 429
_POLL_SECONDS = 0.1  # between two looks at the client while waiting


class Busy(Exception):
    """Too many heavy requests at once (HTTP 429); retry later."""


class HeavySlots:
    """A bounded number of heavy requests at once.

    Args:
      slots: how many may run at once.
      wait: seconds a request waits for a slot before `Busy`.
    """

    def __init__(
        self, slots: int = HEAVY_SLOTS, wait: float = HEAVY_WAIT_SECONDS
    ) -> None:
        self.slots = slots
        self._wait = wait
        self._free = threading.Semaphore(slots)
        self._lock = threading.Lock()
        self.in_use = 0  # slots taken now (for status and tests)
        self.refused = 0  # requests refused with Busy so far

    def acquire(self, gone: Callable[[], bool] = lambda: False) -> None:
        """Takes a slot, waiting up to the wait time.

        Raises:
          Busy: no slot freed in time, or the client went away.
        """
        deadline = time.monotonic() + self._wait
        while not self._free.acquire(timeout=_POLL_SECONDS):
            if gone() or time.monotonic() >= deadline:
                with self._lock:
                    self.refused += 1
                raise Busy(
                    f"{self.slots} heavy requests (exports, layout previews, "
                    "anomalies over every series) are running; retry in a "
                    "few seconds"
                )
        with self._lock:
            self.in_use += 1

    def release(self) -> None:
        with self._lock:
            self.in_use -= 1
        self._free.release()

    @contextlib.contextmanager
    def held(self, gone: Callable[[], bool] = lambda: False) -> Iterator[None]:
        self.acquire(gone)
        try:
            yield
        finally:
            self.release()


def peer_gone(sock: Any) -> Callable[[], bool]:
    """A test of whether the client at the other end of `sock` has closed
    its side (it went away: its answer is no longer wanted).

    `sock` is the request's connection (werkzeug's `werkzeug.socket`); None
    gives a test that always says no. A readable socket holding no byte is
    closed; bytes waiting (a pipelined request) mean the client is there.
    """
    if sock is None:
        return lambda: False

    def gone() -> bool:
        try:
            ready, _, _ = select.select([sock], [], [], 0)
            if not ready:
                return False
            return sock.recv(1, socket.MSG_PEEK) == b""
        except (ValueError, NotImplementedError, TypeError):
            return False  # not a plain socket (TLS, a test double)
        except OSError:
            return True  # reset by the peer

    return gone
