"""Work budgets: how much one request may compute, and when to stop early.

A request whose work grows with what the logs or the user hold (a layout
preview of thousands of regexes over thousands of tags, anomalies over a
run of 200,000 tags) takes a `Budget`: it spends units as it goes and stops
when they run out, or when `should_stop` says the client has gone, and the
answer says exactly what was left undone. Pure: the caller supplies the
stop test (e.g. a closed socket).
"""

from __future__ import annotations

import time
from collections.abc import Callable

_CHECK_SECONDS = 0.05  # between two calls of `should_stop`


class Budget:
    """Units of work one request may spend, and a stop test.

    Args:
      units: the work allowed (e.g. regex tests, or series looked at).
      seconds: wall-clock time allowed, or None for no limit.
      should_stop: returns True once the work is no longer wanted (the
        client disconnected); called at most every 50 ms.
    """

    def __init__(
        self,
        units: float,
        *,
        seconds: float | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> None:
        self.units = units
        self.spent = 0.0
        self._deadline = None if seconds is None else time.monotonic() + seconds
        self._should_stop = should_stop
        self._next_check = 0.0
        self.stopped = False  # the client went away
        self.exhausted = False  # units or time ran out

    def take(self, units: float) -> bool:
        """Spends `units` if the budget allows it; False (nothing spent)
        once it is exhausted or the work is no longer wanted."""
        if not self.alive():
            return False
        if self.spent + units > self.units:
            self.exhausted = True
            return False
        self.spent += units
        return True

    def alive(self) -> bool:
        """Whether work may go on (not stopped, not out of time)."""
        if self.stopped or self.exhausted:
            return False
        now = time.monotonic()
        if self._deadline is not None and now > self._deadline:
            self.exhausted = True
            return False
        if self._should_stop is not None and now >= self._next_check:
            self._next_check = now + _CHECK_SECONDS
            if self._should_stop():
                self.stopped = True
                return False
        return True


def unlimited() -> Budget:
    """A budget that never runs out (in-process callers such as `tbmf`)."""
    return Budget(float("inf"))
