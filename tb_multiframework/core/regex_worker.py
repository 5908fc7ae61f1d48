"""The fallback engine: Python's `re` in a worker process, with a time budget.

Without google-re2, `core.safe_regex` matches with Python's backtracking
`re`, where a pattern such as `(a|aa)+$` takes exponential time and holds
the GIL. It runs there in a separate process instead: the server thread
waits for the answer without holding the GIL, and a batch of names that
takes longer than the budget kills the worker, the pattern is refused from
then on, and a new worker is started for the next pattern. The worker is
this module run as `python -m` (`serve`); requests and answers travel as
length-prefixed pickles over its stdin and stdout.
"""

from __future__ import annotations

import os
import pickle
import queue
import re
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from tb_multiframework.core.regex_syntax import RegexError


class Worker:
    """One worker process running Python's `re`; killed when too slow.

    Args:
      budget_seconds: the time one batch of names may take.
      on_refused: called when a pattern ran out of time (and is refused
        from then on), after it was added to `too_slow`.
    """

    def __init__(
        self, budget_seconds: float, on_refused: Callable[[], None]
    ) -> None:
        self._budget_seconds = budget_seconds
        self._on_refused = on_refused
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._answers: queue.Queue[Any] = queue.Queue()
        self.too_slow: dict[str, str] = {}  # pattern -> why it is refused

    def run(
        self, pattern: str, how: str, subjects: list[str], *, spans: bool
    ) -> list[Any]:
        """Matches `subjects` with `re.compile(pattern).<how>`.

        Returns:
          Per subject: whether it matched, or with `spans` the span of
          each group (group 0 first) or None.

        Raises:
          RegexError: Python rejects the pattern, or it took longer than
            the budget (now or before).
        """
        if pattern in self.too_slow:
            raise RegexError(pattern, self.too_slow[pattern])
        with self._lock:
            process = self._started()
            assert process.stdin is not None
            _send(process.stdin, (pattern, how, subjects, spans))
            try:
                ok, answer = self._answers.get(timeout=self._budget_seconds)
            except queue.Empty:
                self._stop()
                longest = max(map(len, subjects), default=0)
                why = (
                    f"took longer than {self._budget_seconds} s on {len(subjects)} "
                    f"names of up to {longest} characters with Python's "
                    "backtracking engine (google-re2, which matches in "
                    "linear time, is not installed); not used"
                )
                self.too_slow[pattern] = why
                self._on_refused()
                raise RegexError(pattern, why) from None
        if not ok:
            raise RegexError(pattern, answer)
        return answer

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        package_root = os.path.dirname(
            os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        )
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (package_root, env.get("PYTHONPATH", "")) if p
        )
        process = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        answers: queue.Queue[Any] = queue.Queue()
        threading.Thread(
            target=_read_answers,
            args=(process, answers),
            name="tb_multiframework-regex-answers",
            daemon=True,
        ).start()
        ok, ready = answers.get(timeout=30)  # interpreter start-up
        if not ok or ready != "ready":
            raise RegexError("", f"the regex worker did not start: {ready}")
        self._process, self._answers = process, answers
        return process

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


def _send(stream: Any, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _receive(stream: Any) -> Any:
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError
    (length,) = struct.unpack("<Q", header)
    return pickle.loads(stream.read(length))


def _read_answers(process: subprocess.Popen[bytes], answers: Any) -> None:
    try:
        while True:
            answers.put(_receive(process.stdout))
    except (EOFError, OSError, pickle.UnpicklingError):
        return


def serve() -> None:
    """The worker's loop: match batches with Python's re, answer spans."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _send(stdout, (True, "ready"))
    while True:
        try:
            pattern, how, subjects, spans = _receive(stdin)
        except EOFError:
            return
        try:
            method = getattr(re.compile(pattern), how)
            found = [method(s) for s in subjects]
            if spans:
                answer: list[Any] = [
                    (
                        None
                        if m is None
                        else tuple(m.span(i) for i in range(m.re.groups + 1))
                    )
                    for m in found
                ]
            else:
                answer = [m is not None for m in found]
            _send(stdout, (True, answer))
        except re.error as error:
            _send(stdout, (False, str(error)))


if __name__ == "__main__":
    serve()
