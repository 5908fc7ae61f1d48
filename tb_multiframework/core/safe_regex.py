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
"""

from __future__ import annotations

import functools
import itertools
import os
import pickle
import queue
import re
import struct
import subprocess
import sys
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

try:  # Python >= 3.11
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre_parser  # type: ignore[no-redef]

try:
    import re2 as _re2  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - exercised by forcing the fallback
    _re2 = None

How = Literal["match", "search", "fullmatch"]

MAX_PATTERN_CHARS = 1000  # characters of one pattern (parsing is per char)
MAX_REPEAT_COUNT = 1000  # largest {m,n} count RE2 accepts
BUDGET_SECONDS = 0.5  # fallback engine: time one batch of names may take
# Bytes RE2 may use for one compiled pattern (program and DFA cache); past
# it RE2 falls back to its slower (still linear) NFA. With at most
# _CACHED_PATTERNS compiled patterns kept, hostile patterns cannot make the
# process hold more than about _CACHED_PATTERNS * _RE2_MAX_MEM (one RE2
# a pattern; a second, with captures, only for metric alias templates).
_RE2_MAX_MEM = 1 << 20
_CACHED_PATTERNS = 256  # compiled patterns kept (a layout uses a few dozen)
_LINEAR = "names are matched in linear time, which rules out backtracking"


class RegexError(ValueError):
    """A pattern that cannot be used, and why.

    Attributes:
      pattern: The pattern as given.
      message: Why, e.g. "missing ), unterminated subpattern at position 0".
      position: Offset in the pattern, where known.
    """

    def __init__(
        self, pattern: str, message: str, position: int | None = None
    ) -> None:
        super().__init__(message)
        self.pattern = pattern
        self.message = message
        self.position = position


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
    translation = _translate(pattern)
    if isinstance(translation, RegexError):
        raise translation
    translated, parsed = translation
    return Regex(pattern, translated, parsed)


@functools.lru_cache(maxsize=8192)
def _translate(pattern: str) -> tuple[str, Any] | RegexError:
    """(RE2 pattern, Python's parse) or why there is none; kept for many
    more patterns than compiled RE2 objects, which hold DFA memory."""
    if len(pattern) > MAX_PATTERN_CHARS:
        # A logged layout can hold any length; Python's parser is not free.
        return RegexError(
            pattern,
            f"regex of {len(pattern)} characters, more than "
            f"{MAX_PATTERN_CHARS}",
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. "possible nested set"
            parsed = _sre_parser.parse(pattern)
        flags = parsed.state.flags
        translated = _Translator(pattern).items(parsed, flags)
    except RegexError as error:
        return error
    except re.error as error:
        position = error.pos if isinstance(error.pos, int) else None
        return RegexError(pattern, str(error), position)
    except (OverflowError, ValueError) as error:
        return RegexError(pattern, f"cannot be parsed: {error}")
    except RecursionError:
        return RegexError(pattern, "groups nested too deeply")
    if flags & _c.SRE_FLAG_LOCALE:
        return RegexError(pattern, "the LOCALE flag (?L) applies to bytes only")
    return translated, parsed


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
# Python's parse tree -> RE2 syntax


# Python's \s for str patterns: what str.isspace() accepts.
_SPACE = (
    "\\t\\n\\x0b\\f\\r\\x1c-\\x1f \\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
    + ("\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}")
)
_ASCII_SPACE = "\\t\\n\\x0b\\f\\r "
# Python's \w for str patterns: str.isalnum() or "_" (letters and numbers
# of every script); \d: decimal digits, Unicode category Nd.
_CLASSES = {
    _c.CATEGORY_DIGIT: ("\\p{Nd}", "0-9"),
    _c.CATEGORY_WORD: ("\\p{L}\\p{N}_", "0-9A-Za-z_"),
    _c.CATEGORY_SPACE: (_SPACE, _ASCII_SPACE),
}
_NEGATED = {
    _c.CATEGORY_NOT_DIGIT: _c.CATEGORY_DIGIT,
    _c.CATEGORY_NOT_WORD: _c.CATEGORY_WORD,
    _c.CATEGORY_NOT_SPACE: _c.CATEGORY_SPACE,
}
_REPEATS = {_c.MAX_REPEAT: "", _c.MIN_REPEAT: "?"}
_UNSUPPORTED = {
    _c.GROUPREF: "a backreference (\\N or (?P=name))",
    _c.GROUPREF_EXISTS: "a conditional group (?(N)yes|no)",
}
_ASSERTS = {  # (ahead, behind)
    _c.ASSERT: ("a lookahead (?=...)", "a lookbehind (?<=...)"),
    _c.ASSERT_NOT: (
        "a negative lookahead (?!...)",
        "a negative lookbehind (?<!...)",
    ),
}
_POSSESSIVE = getattr(_c, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)


class _Translator:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def refuse(self, construct: str, why: str = "") -> RegexError:
        return RegexError(
            self.pattern,
            f"{construct} is not supported " + (why or f"({_LINEAR})"),
        )

    def items(self, items: Any, flags: int) -> str:
        return "".join(self.item(op, av, flags) for op, av in items)

    def item(self, op: Any, av: Any, flags: int) -> str:
        ascii_only = bool(flags & _c.SRE_FLAG_ASCII)
        fold = bool(flags & _c.SRE_FLAG_IGNORECASE) and not ascii_only
        if ascii_only and flags & _c.SRE_FLAG_IGNORECASE:
            # Python folds ASCII letters only then; RE2's (?i) folds all.
            if op in (_c.LITERAL, _c.NOT_LITERAL):
                negate = [(_c.NEGATE, None)] if op is _c.NOT_LITERAL else []
                op, av = _c.IN, [*negate, (_c.LITERAL, av)]
            if op is _c.IN:
                av = _ascii_case_variants(av)
        if op is _c.LITERAL:
            return _folded(_char(av), fold)
        if op is _c.NOT_LITERAL:
            return _folded(f"[^{_char(av)}]", fold)
        if op is _c.ANY:
            return "(?s:.)" if flags & _c.SRE_FLAG_DOTALL else "[^\\n]"
        if op is _c.IN:
            return _folded(self.char_class(av, ascii_only), fold)
        if op is _c.CATEGORY:
            return self.char_class([(op, av)], ascii_only)
        if op is _c.AT:
            return self.anchor(av, flags)
        if op is _c.BRANCH:
            return "(?:" + "|".join(self.items(b, flags) for b in av[1]) + ")"
        if op is _c.SUBPATTERN:
            group, add, remove, body = av
            inner = self.items(body, (flags | add) & ~remove)
            return f"({inner})" if group is not None else f"(?:{inner})"
        if op in _REPEATS:
            low, high, body = av
            return self.repeat(low, high, body, flags) + _REPEATS[op]
        if op in _UNSUPPORTED:
            raise self.refuse(_UNSUPPORTED[op])
        if op in _ASSERTS:
            raise self.refuse(_ASSERTS[op][av[0] < 0])
        if _POSSESSIVE is not None and op is _POSSESSIVE:
            raise self.refuse("a possessive repeat (*+, ++, ?+, {m,n}+)")
        if _ATOMIC is not None and op is _ATOMIC:
            raise self.refuse("an atomic group (?>...)")
        raise self.refuse(f"the construct {op}")

    def repeat(self, low: int, high: int, body: Any, flags: int) -> str:
        unbounded = high == _c.MAXREPEAT
        for count in (low,) if unbounded else (low, high):
            if count > MAX_REPEAT_COUNT:
                raise self.refuse(
                    f"a repeat count above {MAX_REPEAT_COUNT} ({count})",
                    "by the linear-time engine",
                )
        inner = "(?:" + self.items(body, flags) + ")"
        if unbounded:
            return inner + {0: "*", 1: "+"}.get(low, f"{{{low},}}")
        if (low, high) == (0, 1):
            return inner + "?"
        return inner + (f"{{{low}}}" if low == high else f"{{{low},{high}}}")

    def anchor(self, at: Any, flags: int) -> str:
        multiline = bool(flags & _c.SRE_FLAG_MULTILINE)
        if at is _c.AT_BEGINNING:
            return "(?m:^)" if multiline else "\\A"
        if at is _c.AT_END:
            return "(?m:$)" if multiline else "\\z"
        return {
            _c.AT_BEGINNING_STRING: "\\A",
            _c.AT_END_STRING: "\\z",
            _c.AT_BOUNDARY: "\\b",
            _c.AT_NON_BOUNDARY: "\\B",
        }[at]

    def char_class(self, items: Any, ascii_only: bool) -> str:
        negate = False
        parts: list[str] = []
        excluded: list[str] = []  # classes of \D, \W, \S in the set
        for op, av in items:
            if op is _c.NEGATE:
                negate = True
            elif op is _c.LITERAL:
                parts.append(_char(av))
            elif op is _c.RANGE:
                parts.append(f"{_char(av[0])}-{_char(av[1])}")
            elif op is _c.CATEGORY and av in _CLASSES:
                parts.append(_CLASSES[av][ascii_only])
            elif op is _c.CATEGORY and av in _NEGATED:
                excluded.append(_CLASSES[_NEGATED[av]][ascii_only])
            else:
                raise self.refuse(f"the set item {op} {av}")
        if not excluded:
            body = "".join(parts)
            if not body:
                return "[^\\x00-\\x{10ffff}]" if not negate else "(?s:.)"
            return f"[{'^' if negate else ''}{body}]"
        if negate:
            raise self.refuse(
                "a negated set holding \\D, \\W or \\S ([^\\W...])",
                "by the linear-time engine; write it as a set of what it "
                "allows",
            )
        pieces = [f"[^{cls}]" for cls in excluded]
        if parts:
            pieces.insert(0, f"[{''.join(parts)}]")
        return "(?:" + "|".join(pieces) + ")"


def _ascii_case_variants(items: Any) -> list[Any]:
    """A set's items plus the other case of every ASCII letter in it."""
    out = list(items)
    for op, av in items:
        lo, hi = (
            (av, av) if op is _c.LITERAL else av if op is _c.RANGE else (0, -1)
        )
        for first, last, shift in ((65, 90, 32), (97, 122, -32)):
            a, b = max(lo, first), min(hi, last)
            if a <= b:
                out.append((_c.RANGE, (a + shift, b + shift)))
    return out


def _char(code: int) -> str:
    char = chr(code)
    if char.isascii() and char.isalnum():
        return char
    return f"\\x{{{code:x}}}"


def _folded(text: str, fold: bool) -> str:
    return f"(?i:{text})" if fold else text


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


# ---------------------------------------------------------------------------
# The fallback engine: Python's re in a worker process, with a time budget


class _Worker:
    """One worker process running Python's `re`; killed when too slow."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._answers: queue.Queue[Any] = queue.Queue()
        self.too_slow: dict[str, str] = {}  # pattern -> why it is refused

    def run(
        self, pattern: str, how: How, subjects: list[str], *, spans: bool
    ) -> list[Any]:
        if pattern in self.too_slow:
            raise RegexError(pattern, self.too_slow[pattern])
        with self._lock:
            process = self._started()
            assert process.stdin is not None
            _send(process.stdin, (pattern, how, subjects, spans))
            try:
                ok, answer = self._answers.get(timeout=BUDGET_SECONDS)
            except queue.Empty:
                self._stop()
                longest = max(map(len, subjects), default=0)
                why = (
                    f"took longer than {BUDGET_SECONDS} s on {len(subjects)} "
                    f"names of up to {longest} characters with Python's "
                    "backtracking engine (google-re2, which matches in "
                    "linear time, is not installed); not used"
                )
                self.too_slow[pattern] = why
                _compile.cache_clear()
                _verdict.cache_clear()
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


def _serve() -> None:
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


_WORKER = _Worker()

if __name__ == "__main__":
    _serve()
