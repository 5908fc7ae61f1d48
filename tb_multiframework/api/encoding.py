"""How answers travel: JSON text, cached encoded answers, packed arrays, CSV.

`service.py` builds every answer as a plain dict of Python and numpy values;
this module writes it out:

- `encode_json` (with `to_json` for numpy values): compact JSON whose
  non-finite floats are the strings "NaN", "Infinity" and "-Infinity", as
  TensorBoard's own JSON has them;
- `Encoded`: an answer serialised once and kept in the answer cache, with
  its gzip form made on first use;
- `pack_arrays`: the scalars answer's numeric arrays as base64 of their
  little-endian values (`encoding=b64`, docs/api.md);
- `csv_safe_cell`: export cells a spreadsheet never runs as formulas;
- `csv_chunks`, `json_chunks`: an export's rows as text pieces of about
  64 KiB, made as they are sent (an export is never held whole).
"""

from __future__ import annotations

import base64
import csv
import gzip
import io
import itertools
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np


def to_json(value: Any) -> Any:
    """`json.dumps` default for numpy values.

    Non-finite floats become the strings "NaN", "Infinity" and "-Infinity",
    as TensorBoard's own JSON does, so the UI can mark them.
    """
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            return [finite_or_name(v) for v in value.tolist()]
        return value.tolist()
    if isinstance(value, np.generic):
        return finite_or_name(value.item())
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot serialise {type(value).__name__}")


def encode_json(payload: Any) -> str:
    """The JSON text of a payload (numpy arrays allowed, see `to_json`)."""
    return json.dumps(
        payload, allow_nan=False, separators=(",", ":"), default=to_json
    )


class Encoded:
    """An answer already serialised, kept in the cache as text and gzip.

    A repeated request then costs no JSON encoding and no compression.
    `compress=False` marks an answer gzip barely shrinks (base64 of
    floats: it mostly wins back base64's own third), sent as is.
    """

    def __init__(self, text: str, *, compress: bool = True) -> None:
        self.data = text.encode("utf-8")
        self.compress = compress
        self._gzipped: bytes | None = None

    def gzipped(self) -> bytes:
        if self._gzipped is None:
            self._gzipped = gzip.compress(self.data, compresslevel=3, mtime=0)
        return self._gzipped


def finite_or_name(value: Any) -> Any:
    """A non-finite float as its JSON name (see `to_json`), else the value."""
    if isinstance(value, float) and not math.isfinite(value):
        return (
            "NaN"
            if value != value
            else ("Infinity" if value > 0 else "-Infinity")
        )
    return value


# Compact arrays of the scalars answer (`encoding=b64`, docs/api.md).

# Numeric arrays of a Series, Diff, Aggregate or GroupDiff, in packing order.
_PACKED_FIELDS = (
    "x",
    "y",
    "yMin",
    "yMax",
    "smoothed",
    "steps",
    "lower",
    "upper",
    "count",
    "countBaseline",
)


def pack_arrays(entry: dict[str, Any]) -> None:
    """Replaces an entry's numeric arrays (`_PACKED_FIELDS`) by packed ones.

    Each becomes `{"dtype", "b64"}`: base64 of the little-endian values,
    `f4` when every value survives a float32 round trip exactly (values
    logged as float32, steps below 2**24; NaN and +-Inf survive), else `f8`;
    `i4` for integers in int32 range, else `f8` when every one is exact
    as a double (|v| <= 2**53), else `i8` (int64). An array equal value for
    value (and bit for bit once widened to float64) to a field packed
    before it becomes `{"sameAs": field}`. Nothing is rounded.
    """
    packed: dict[str, np.ndarray] = {}
    for field in _PACKED_FIELDS:
        value = entry.get(field)
        if not isinstance(value, np.ndarray):
            continue
        wide = value.astype(np.float64, copy=False)
        same = next(
            (
                name
                for name, other in packed.items()
                if other.size == wide.size
                and other.tobytes() == wide.tobytes()
                and (value.dtype.kind == "f" or _exact_in_f8(value))
            ),
            None,
        )
        if same is not None:
            entry[field] = {"sameAs": same}
            continue
        packed[field] = wide
        entry[field] = _packed(value)


def _exact_in_f8(ints: np.ndarray) -> bool:
    return bool(ints.size == 0 or np.abs(ints).max() <= 2**53)


def _packed(value: np.ndarray) -> dict[str, str]:
    if value.dtype.kind in "iu":
        info = np.iinfo(np.int32)
        if value.size == 0 or (
            value.min() >= info.min and value.max() <= info.max
        ):
            return _b64("i4", value.astype("<i4"))
        if _exact_in_f8(value):
            return _b64("f8", value.astype("<f8"))
        # Steps beyond 2**53 (up to 2**63 - 1) would be rounded as doubles.
        return _b64("i8", value.astype("<i8"))
    narrow = value.astype("<f4")
    with np.errstate(over="ignore"):
        exact = np.array_equal(narrow.astype(np.float64), value, equal_nan=True)
    if exact:
        return _b64("f4", narrow)
    return _b64("f8", value.astype("<f8", copy=False))


def _b64(dtype: str, array: np.ndarray) -> dict[str, str]:
    data = base64.b64encode(np.ascontiguousarray(array).tobytes())
    return {"dtype": dtype, "b64": data.decode("ascii")}


# Characters that make a spreadsheet read a cell as a formula (OWASP "CSV
# injection"): a run or tag name is written by whoever wrote the logs.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text, never runs as a formula.

    Text beginning with `= + - @`, TAB or CR gets a leading `'` (OWASP's
    advice); numbers are returned unchanged, so `-1.5` stays a number.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


_CHUNK_ROWS = 2048  # export rows written per piece of text


def csv_chunks(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], *, safe: bool
) -> Iterator[str]:
    """CSV text with RFC 4180 line ends, a piece at a time.

    Args:
      safe: pass text cells through `csv_safe_cell` (names that could be
        read as formulas).
    """
    out = io.StringIO()
    # RFC 4180 line ends: a CR inside a name is then quoted too.
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    iterator = iter(rows)
    while True:
        batch = list(itertools.islice(iterator, _CHUNK_ROWS))
        if safe:
            batch = [[csv_safe_cell(v) for v in row] for row in batch]
        writer.writerows(batch)
        text = out.getvalue()
        if text:
            yield text
        if len(batch) < _CHUNK_ROWS:
            return
        out.seek(0)
        out.truncate()


def json_chunks(
    x: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> Iterator[str]:
    """`{"x", "columns", "rows": [[...], ...]}`, a piece at a time;
    non-finite numbers as their names (`finite_or_name`)."""
    yield json.dumps(
        {"x": x, "columns": list(columns)}, separators=(",", ":")
    )[:-1] + ',"rows":['
    iterator = iter(rows)
    first = True
    while True:
        batch = [
            [finite_or_name(v) for v in row]
            for row in itertools.islice(iterator, _CHUNK_ROWS)
        ]
        if batch:
            text = json.dumps(batch, allow_nan=False, separators=(",", ":"))
            yield ("" if first else ",") + text[1:-1]
            first = False
        if len(batch) < _CHUNK_ROWS:
            break
    yield "]}"
