"""Python regex syntax, checked and translated into RE2's.

`core.safe_regex` matches user patterns in Python's syntax on RE2 (or, without
google-re2, on Python's `re` in a worker process). `translate` parses a
pattern with Python's own parser, so errors read as Python's with their
position, and writes the parse tree in RE2 syntax with Python's meaning
(Unicode `\\w`, `\\d`, `\\s`; ASCII-only case folding under `(?a)`).
Constructs that need backtracking are refused by name: backreferences,
lookarounds, conditional groups, possessive repeats, atomic groups, and
repeat counts above `MAX_REPEAT_COUNT`. `RegexError` says why a pattern
cannot be used, here and wherever `core.safe_regex` refuses one.
"""

from __future__ import annotations

import functools
import re
import warnings
from typing import Any

try:  # Python >= 3.11
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre_parser  # type: ignore[no-redef]

MAX_PATTERN_CHARS = 1000  # characters of one pattern (parsing is per char)
MAX_REPEAT_COUNT = 1000  # largest {m,n} count RE2 accepts
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


@functools.lru_cache(maxsize=8192)
def translate(pattern: str) -> tuple[str, Any] | RegexError:
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
