"""JSON from outside (request bodies, config and layout files), strictly.

Python's `json.loads` accepts what is not JSON (`NaN`, `Infinity`), keeps
the last of duplicate keys silently, turns `1e999` into infinity, and
recurses once per nesting level, so a body of `[[[[...` a thousand levels
deep raises `RecursionError` (a 500) instead of a parse error. `loads`
refuses all of these with a `JsonError` (a `ValueError`) naming the problem,
and checks the nesting depth with one linear pass before parsing.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

MAX_DEPTH = 64  # nesting levels of arrays and objects; a layout needs 6
MAX_INT_DIGITS = 30  # digits of one JSON integer

_QUOTE, _BACKSLASH = 0x22, 0x5C
_OPEN = (0x5B, 0x7B)  # [ {
_CLOSE = (0x5D, 0x7D)  # ] }


class JsonError(ValueError):
    """Text that is not acceptable JSON."""


def loads(raw: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parses JSON text, refusing what `json.loads` would let through.

    Args:
      raw: UTF-8 bytes or text.
      max_depth: Deepest nesting of arrays and objects accepted.

    Returns:
      The parsed value.

    Raises:
      JsonError: Not UTF-8, not JSON, nested deeper than `max_depth`, a
        duplicate key, `NaN`/`Infinity`, a number out of range.
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JsonError(f"not UTF-8: {error}") from None
    depth = nesting_depth(data)
    if depth > max_depth:
        raise JsonError(
            f"nested {depth} levels deep; at most {max_depth} are accepted"
        )
    try:
        return json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
            object_pairs_hook=_unique_keys,
        )
    except json.JSONDecodeError as error:
        raise JsonError(f"not JSON: {error}") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise JsonError("nested too deeply") from None


def nesting_depth(data: bytes) -> int:
    """Deepest nesting of `[` and `{` outside strings, in one linear pass.

    Exact for valid JSON and for the valid prefix of invalid JSON (all the
    parser reads before it fails), so it bounds the parser's recursion.
    """
    b = np.frombuffer(data, dtype=np.uint8)
    if len(b) == 0:
        return 0
    # A quote is escaped when an odd number of backslashes precede it.
    index = np.arange(len(b), dtype=np.int64)
    last_other = np.maximum.accumulate(np.where(b != _BACKSLASH, index, -1))
    backslashes_before = np.empty(len(b), dtype=np.int64)
    backslashes_before[0] = 0
    backslashes_before[1:] = index[:-1] - last_other[:-1]
    toggles = (b == _QUOTE) & (backslashes_before % 2 == 0)
    outside = np.cumsum(toggles) % 2 == 0
    step = np.isin(b, _OPEN).astype(np.int32) - np.isin(b, _CLOSE)
    return int(np.cumsum(np.where(outside, step, 0)).max(initial=0))


def _refuse_constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonError(f"number {text[:40]} is out of range")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonError(
            f"integer of {len(text)} digits; at most {MAX_INT_DIGITS}"
        )
    return int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonError(f"duplicate key {key[:80]!r}")
        out[key] = value
    return out
