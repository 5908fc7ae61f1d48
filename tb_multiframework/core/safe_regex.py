"""Regexes written by users, matched safely: the one place that picks the engine.

Layout charts, run filters and metric alias rules take regexes from users
(and from logged layouts, i.e. from files). Python's `re` backtracks: a
pattern such as `(a|aa)+$` takes exponential time on a short tag and holds
the GIL while it does, freezing every request. Refusing "dangerous"
patterns by rule cannot be complete (`(a|a)*$`, `a*a*a*a*a*c`, ...), so
matching is made safe by construction:

- With `google-re2` installed (`pip install tb-multiframework[re2]`; wheels
  for CPython on Linux with glibc >= 2.27, macOS >= 13, Windows), patterns
  run on RE2, whose time is linear in the name's length.
- Without it, patterns run on Python's `re` in a separate worker process
  with a time budget (`BUDGET_SECONDS` per batch of names): the server
  thread waits without holding the GIL, and a pattern that exceeds the
  budget is killed with its worker, refused from then on ("took longer
  than ..."), and a new worker is started for the next pattern.

Syntax is Python's, whatever the engine: a pattern is parsed by Python's own
parser (so errors read as Python's, with their position) and translated
into RE2 syntax. Constructs that need backtracking are refused, naming the
construct, on both engines alike: backreferences (`\\1`, `(?P=name)`),
lookahead and lookbehind, conditional groups, possessive repeats and atomic
groups, and repeat counts above 1000. Differences from Python's `re` on
RE2: `$` without MULTILINE matches only at the very end (Python's also
before a final newline), and `\\b`/`\\B` see ASCII word characters only;
`\\w`, `\\d` and `\\s` keep Python's Unicode meaning.

The parts: `core/regex_syntax.py` parses and translates patterns (and
defines `RegexError`), `core/regex_worker.py` is the fallback engine's
worker process; this module picks the engine, compiles, matches and
remembers answers.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tb_multiframework.core.regex_syntax import (
    MAX_PATTERN_CHARS,
    MAX_REPEAT_COUNT,
    RegexError,
    translate,
)
from tb_multiframework.core.regex_worker import Worker

try:
    import re2 as _re2  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - exercised by forcing the fallback
    _re2 = None

__all__ = [
    "BUDGET_SECONDS",
    "MAX_PATTERN_CHARS",
    "MAX_REPEAT_COUNT",
    "How",
    "Match",
    "Regex",
    "RegexError",
    "check",
    "compile",
    "engine",
    "engine_description",
]

How = Literal["match", "search", "fullmatch"]

BUDGET_SECONDS = 0.5  # fallback engine: time one batch of names may take
# Bytes RE2 may use for one compiled pattern (program and DFA cache); past
# it RE2 falls back to its slower (still linear) NFA. With at most
# _CACHED_PATTERNS compiled patterns kept, hostile patterns cannot make the
# process hold more than about _CACHED_PATTERNS * _RE2_MAX_MEM (one RE2
# a pattern; a second, with captures, only for metric alias templates).
_RE2_MAX_MEM = 1 << 20
_CACHED_PATTERNS = 256  # compiled patterns kept (a layout uses a few dozen)


def engine() -> str:
    """ "re2", or "python" (Python's `re` in a worker with a time budget)."""
    if os.environ.get("TBMF_REGEX_ENGINE") == "python" or _re2 is None:
        return "python"
    return "re2"


def engine_description() -> str:
    if engine() == "re2":
        return "RE2 (google-re2): linear time"
    return (
        f"Python re in a worker process, {BUDGET_SECONDS} s per pattern "
        "(install google-re2 for linear-time matching)"
    )


@dataclass(frozen=True)
class Match:
    """Where a pattern matched: the subject and each group's span."""

    subject: str
    spans: tuple[tuple[int, int], ...]  # group 0 first; (-1, -1): unset
    groupindex: tuple[tuple[str, int], ...]

    def group(self, index: int = 0) -> str | None:
        start, end = self.spans[index]
        return None if start < 0 else self.subject[start:end]

    def expand(self, template: str) -> str:
        """`template` with `\\1`, `\\g<name>` etc., exactly as Python's
        `re.Match.expand` reads it (its errors included)."""
        return _python_match(self).expand(template)


class Regex:
    """A compiled user pattern (see `compile`)."""

    def __init__(self, pattern: str, translated: str, parsed: Any) -> None:
        self.pattern = pattern
        self.groups = parsed.state.groups - 1
        self.groupindex = tuple(sorted(parsed.state.groupdict.items()))
        self._translated = translated
        self._compiled: Any = None  # RE2 with captures, made when needed
        self._tester: Any = None  # RE2 without captures, for yes/no tests
        self._engine = engine()
        if self._engine == "re2":
            self._options = _re2.Options()
            self._options.log_errors = False
            self._options.max_mem = _RE2_MAX_MEM
            self._tester = _tester(pattern, translated, self._options)

    def _with_captures(self) -> Any:
        if self._compiled is None:
            try:
                self._compiled = _re2.compile(self._translated, self._options)
            except _re2.error as error:
                raise _too_large(self.pattern, error) from None
        return self._compiled

    def match(self, subject: str) -> Match | None:
        """Anchored at the start, like `re.match`."""
        return self._one(subject, "match")

    def search(self, subject: str) -> Match | None:
        return self._one(subject, "search")

    def fullmatch(self, subject: str) -> Match | None:
        return self._one(subject, "fullmatch")

    def test(self, subjects: Sequence[str], how: How) -> list[bool]:
        """Whether the pattern matches each subject, in one batch.

        Raises:
          RegexError: the fallback engine ran out of time on this pattern.
        """
        if self._tester is not None:
            # RE2 answers in about a microsecond: remembering answers would
            # cost more than asking again (the memo is for the fallback
            # worker, where one answer costs a process round trip).
            return self._tester(subjects, how)
        key: tuple[str, str, str] = (self._engine, self.pattern, how)
        with _ANSWERS_LOCK:
            known = {s: _ANSWERS.get((key, s)) for s in set(subjects)}
        unknown = sorted(s for s, answer in known.items() if answer is None)
        if unknown:
            if self._tester is not None:
                found = self._tester(unknown, how)
            else:
                found = [
                    bool(s)
                    for s in _WORKER.run(
                        self.pattern, how, unknown, spans=False
                    )
                ]
            known.update(zip(unknown, found))
            _remember(key, unknown, found)
        return [bool(known[s]) for s in subjects]

    def _one(self, subject: str, how: How) -> Match | None:
        if self._engine == "re2":
            found = getattr(self._with_captures(), how)(_encodable(subject))
            if found is None:
                return None
            spans = tuple(found.span(i) for i in range(self.groups + 1))
        else:
            (result,) = _WORKER.run(self.pattern, how, [subject], spans=True)
            if result is None:
                return None
            spans = result
        return Match(subject, spans, self.groupindex)


def check(pattern: str) -> RegexError | None:
    """Why `compile(pattern)` would fail, or None; remembered for many more
    patterns than compiled ones are kept."""
    return _verdict(pattern, engine())


@functools.lru_cache(maxsize=8192)
def _verdict(pattern: str, engine_name: str) -> RegexError | None:
    try:
        _compile(pattern, engine_name)
    except RegexError as error:
        return error
    return None


def compile(pattern: str) -> Regex:  # noqa: A001 - mirrors re.compile
    """Compiles a user pattern in Python syntax for the active engine.

    Raises:
      RegexError: Python rejects it, it needs backtracking (the construct
        is named), it is too large for RE2, or the fallback engine timed
        out on it before.
    """
    return _compile(pattern, engine())


@functools.lru_cache(maxsize=_CACHED_PATTERNS)
def _compile(pattern: str, engine_name: str) -> Regex:
    if engine_name == "python" and pattern in _WORKER.too_slow:
        raise RegexError(pattern, _WORKER.too_slow[pattern])
    translation = translate(pattern)
    if isinstance(translation, RegexError):
        raise translation
    translated, parsed = translation
    return Regex(pattern, translated, parsed)


_MEMO_ENTRIES = 1 << 18  # yes/no answers kept (~40 MB), all patterns
# (engine, pattern, how), subject -> matched; oldest first (dicts keep
# order), so an answer is never recomputed while the data stays the same.
_ANSWERS: dict[tuple[tuple[str, str, str], str], bool] = {}
_ANSWERS_LOCK = threading.Lock()


def _remember(
    key: tuple[str, str, str], subjects: list[str], found: list[bool]
) -> None:
    with _ANSWERS_LOCK:
        overflow = len(_ANSWERS) + len(subjects) - _MEMO_ENTRIES
        if overflow > 0:
            for old in list(itertools.islice(_ANSWERS, overflow)):
                del _ANSWERS[old]
        _ANSWERS.update(zip(((key, s) for s in subjects), found))


_SURROGATES = re.compile("[\ud800-\udfff]")


def _encodable(subject: str) -> str:
    """`subject` with lone surrogates (a file name that is not UTF-8, as
    os.walk gives it) as U+FFFD: one character for one, so spans still
    index the original; RE2 takes UTF-8 only."""
    try:
        subject.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", subject)
    return subject


def _tester(pattern: str, translated: str, options: Any) -> Any:
    """Yes/no matching with RE2 compiled without captures (so its DFA
    answers), through RE2's own binding where this google-re2 has it (about
    2.5x faster than `re2`'s match objects).

    Raises:
      RegexError: RE2 refuses the pattern (too large, nested counts).
    """
    fast = _re2.Options()
    for name in _re2.Options.NAMES:
        setattr(fast, name, getattr(options, name))
    fast.never_capture = True
    engine_class = getattr(getattr(_re2, "_re2", None), "RE2", None)
    if engine_class is None:
        try:
            compiled = _re2.compile(translated, fast)
        except _re2.error as error:
            raise _too_large(pattern, error) from None

        def slow(subjects: Sequence[str], how: How) -> list[bool]:
            method = getattr(compiled, how)
            return [method(_encodable(s)) is not None for s in subjects]

        return slow
    low = engine_class(translated.encode("utf-8"), fast)
    if not low.ok():
        raise _too_large(pattern, low.error())
    anchors = {
        "match": engine_class.Anchor.ANCHOR_START,
        "search": engine_class.Anchor.UNANCHORED,
        "fullmatch": engine_class.Anchor.ANCHOR_BOTH,
    }
    match = low.Match

    def test(subjects: Sequence[str], how: How) -> list[bool]:
        anchor = anchors[how]
        out = []
        for subject in subjects:
            try:
                data = subject.encode("utf-8")
            except UnicodeEncodeError:
                data = _encodable(subject).encode("utf-8")
            out.append(match(anchor, data, 0, len(data))[0][0] != -1)
        return out

    return test


def _too_large(pattern: str, error: Any) -> RegexError:
    return RegexError(pattern, f"too large to match safely ({_text(error)})")


def _text(error: Any) -> str:
    message = (
        error.args[0]
        if isinstance(error, BaseException) and error.args
        else error
    )
    if isinstance(message, bytes):
        return message.decode("utf-8", "replace")
    return str(message)


# ---------------------------------------------------------------------------
# Python's own expand, on the spans found


@functools.lru_cache(maxsize=256)
def _span_pattern(
    spans: tuple[tuple[int, int], ...], groupindex: tuple[tuple[str, int], ...]
) -> re.Pattern[str]:
    """A pattern whose groups, at position 0 of the subject, capture the
    given spans (fixed widths only: no backtracking), named as given."""
    names = {number: name for name, number in groupindex}
    parts = []
    for number, (start, end) in enumerate(spans[1:], start=1):
        name = names.get(number)
        opener = f"(?P<{name}>" if name else "("
        if start < 0:
            parts.append(f"(?:(?!){opener}))?")  # a group that never takes part
        else:
            parts.append(f"(?=.{{{start}}}{opener}.{{{end - start}}}))")
    return re.compile("(?s)" + "".join(parts))


def _python_match(found: Match) -> re.Match[str]:
    pattern = _span_pattern(found.spans, found.groupindex)
    python = pattern.match(found.subject)
    assert python is not None  # every group is a fixed-width lookahead
    return python


def _forget_verdicts() -> None:
    """Drops compiled patterns and verdicts once the worker refused a
    pattern, so that `compile` and `check` refuse it from then on."""
    _compile.cache_clear()
    _verdict.cache_clear()


_WORKER = Worker(BUDGET_SECONDS, on_refused=_forget_verdicts)
