"""The Runs table's filter syntax, for Python callers (`tbmf list --filter`).

What the user types into the tab's filter box (frontend/views/runs/
experiment.js `parseFilter`, `clauseMatches`, `filterValue`; frontend/
filter.js `runMatcher`) means the same here: column clauses such as
`lr<0.01 optimizer=adam framework!=paddle`, and the rest a case-insensitive
regular expression (plain text when it is not a valid one) searched in the
run's name, display name, group, framework and writer. Numbers compare as
numbers (JavaScript's `Number()` parsing), the rest as lower-case text
(`~`: contains). tests/cli/test_cli_filter.py runs both implementations on
the same random inputs. The regex dialect is Python's here, JavaScript's in
the tab; they agree on everyday patterns.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

# JavaScript's \s (a regex class body) and the same as characters: what
# its `\s` and `trim()` treat as white space.
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_CLAUSE = re.compile(
    rf"([A-Za-z_][A-Za-z0-9_.\-/:]*)[{_JS_SPACE}]*(<=|>=|!=|==|=|<|>|~)"
    rf"[{_JS_SPACE}]*(\"[^\"]*\"|'[^']*'|[^{_JS_SPACE},]+)"
)
_SEPARATORS = re.compile(rf"[{_JS_SPACE},]+")
_QUOTED = re.compile(r"([\"']).*\1")
_JS_DECIMAL = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|Infinity)"
)
_JS_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
_JS_SPACE_CHARS = "".join(
    chr(c)
    for c in list(range(0x2000, 0x200B))
    + [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2028, 0x2029]
    + [0x202F, 0x205F, 0x3000, 0xFEFF]
)
# Fields a clause may name directly (experiment.js filterValue).
PLAIN_FIELDS = {
    "run": "run",
    "group": "group",
    "framework": "framework",
    "writer": "writer",
    "format": "format",
    "confighash": "configHash",
    "points": "numPoints",
    "steps": "lastStep",
}
_MISSING = object()


@dataclass(frozen=True)
class Clause:
    """`key op value`, e.g. `lr<0.01`; op is one of < <= > >= = != ~."""

    key: str
    op: str
    value: str


def parse_filter(text: str) -> tuple[list[Clause], str]:
    """Splits filter text into column clauses and the rest (a name filter).

    `lr<0.01 optimizer=adam keras` gives two clauses and the rest `keras`.
    """
    clauses: list[Clause] = []

    def take(match: re.Match[str]) -> str:
        key, op, raw = match.groups()
        quoted = _QUOTED.fullmatch(raw) is not None
        clauses.append(
            Clause(key, "=" if op == "==" else op, raw[1:-1] if quoted else raw)
        )
        return " "

    rest = _CLAUSE.sub(take, text)
    return clauses, _SEPARATORS.sub(" ", rest).strip(_JS_SPACE_CHARS)


def clause_matches(cell: Any, clause: Clause) -> bool:
    """Whether a cell passes a clause (experiment.js `clauseMatches`).

    A missing cell (`MISSING`) passes only `!=`. A number compares with a
    value that parses as a finite number numerically; everything else as
    lower-case text, `~` meaning "contains".
    """
    if cell is _MISSING:
        return clause.op == "!="
    wanted = js_number(clause.value)
    numeric = (
        isinstance(cell, (int, float))
        and not isinstance(cell, bool)
        and clause.value.strip(_JS_SPACE_CHARS) != ""
        and math.isfinite(wanted)
    )
    if numeric:
        v = float(cell)
        return {
            "<": v < wanted,
            "<=": v <= wanted,
            ">": v > wanted,
            ">=": v >= wanted,
            "=": v == wanted,
            "!=": v != wanted,
        }.get(clause.op, clause.value in js_string(cell))
    a = "null" if cell is None else js_string(cell).lower()
    b = clause.value.lower()
    if clause.op == "=":
        return a == b
    if clause.op == "!=":
        return a != b
    if clause.op == "~":
        return b in a
    ua, ub = _utf16(a), _utf16(b)  # JavaScript orders strings by UTF-16
    return {"<": ua < ub, "<=": ua <= ub, ">": ua > ub}.get(clause.op, ua >= ub)


MISSING = _MISSING  # a cell a run does not have


def filter_value(
    run: Mapping[str, Any],
    clause: Clause,
    columns: Mapping[str, Callable[[Mapping[str, Any]], Any]],
    keys: Sequence[str],
) -> Any:
    """The value a clause compares for a `runs` route record.

    Args:
        run: The record.
        clause: The clause.
        columns: Extra columns by lower-case id (`last`, `best`,
            `beststep`, `hp:<key>`) -> their value for a run (or MISSING).
        keys: Every hyper-parameter key of the runs.
    """
    lower = clause.key.lower()
    if lower in PLAIN_FIELDS:
        value = run.get(PLAIN_FIELDS[lower], _MISSING)
        if lower == "confighash" and value is _MISSING:
            return ""
        return value
    if lower in columns:
        return columns[lower](run)
    key = resolve_key(keys, clause.key)
    if key is None:
        return _MISSING
    return run.get("hparams", {}).get(key, _MISSING)


def resolve_key(keys: Sequence[str], key: str) -> str | None:
    """A hyper-parameter key: exact, else the only one ending `.<key>`."""
    if key in keys:
        return key
    found = [k for k in keys if k.endswith(f".{key}")]
    return found[0] if len(found) == 1 else None


def text_matcher(text: str) -> Callable[[str], bool]:
    """Case-insensitive regex search, or substring when not a valid regex."""
    if not text:
        return lambda value: True
    try:
        pattern = re.compile(text, re.IGNORECASE)
    except (re.error, OverflowError, RecursionError):
        needle = text.lower()
        return lambda value: needle in value.lower()
    return lambda value: pattern.search(value) is not None


def run_matches(run: Mapping[str, Any], text: str) -> bool:
    """filter.js `runMatcher`: name, display name, group, framework, writer."""
    test = text_matcher(text)
    fields = ("run", "displayName", "group", "framework", "writer")
    return any(test(str(run.get(f) or "")) for f in fields)


def js_number(text: str) -> float:
    """JavaScript's `Number(text)`: NaN for anything it does not parse."""
    body = text.strip(_JS_SPACE_CHARS)
    if body == "":
        return 0.0
    if _JS_RADIX.fullmatch(body):
        return float(int(body, 0))
    if _JS_DECIMAL.fullmatch(body):
        return float(body.replace("Infinity", "inf"))
    return math.nan


def js_string(value: Any) -> str:
    """JavaScript's `String(value)` for JSON values (numbers as JS writes)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        value = float(value)
    if isinstance(value, float):
        return _js_number_text(value)
    if isinstance(value, (list, dict)):
        return (
            "[object Object]"
            if isinstance(value, dict)
            else ",".join(js_string(v) if v is not None else "" for v in value)
        )
    return str(value)


def _js_number_text(value: float) -> str:
    """Number::toString: shortest digits, exponent below 1e-6 or from 1e21."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, digits_tuple.digits))
    k = len(digits)
    n = int(digits_tuple.exponent) + k  # value = 0.digits × 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exponent = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")
