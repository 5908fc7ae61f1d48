"""Exact, compact columns for scalar series: how the store keeps points.

A scalar point arrives as (int64 step, float64 wall time, float64 value)
= 24 bytes. Kept packed, it costs about 6 to 10:

* values: float32 when every value of the block is a float32 (what
  `simple_value`, TF2 float tensors and VisualDL store), else float64;
* steps and wall times (the float64's bits, as int64): the first value plus
  the differences between consecutive ones, computed modulo 2**64 so any
  int64 (extremes included) and any float64 bit pattern (NaN payloads,
  infinities, -0.0) round-trip exactly. Equal differences (a series logged
  every k steps) cost nothing per point; otherwise the differences take the
  narrowest of int8/int16/int32/int64 that holds most of them, and the few
  that do not fit are kept aside as (index, difference) exceptions.

Wall times of one run sit in one float64 binade ([2**30, 2**31) seconds for
dates 2004-2038), where the bits grow by 2**22 per second: events 0.01 s to
500 s apart differ by an int32.

`PackedSeries.decode()` gives the int64 / float64 / float64 arrays back,
bit for bit.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

_WIDTHS = (np.int8, np.int16, np.int32)  # narrower than int64, narrow first
_EXCEPTION_BYTES = 16  # an exception costs its int64 index and difference
_U64 = np.uint64


@dataclasses.dataclass(frozen=True)
class PackedInts:
    """An int64 column as a start value and consecutive differences.

    Attributes:
      n: number of values.
      first: the first value (0 when n == 0).
      stride: the common difference when `deltas` is None (affine column).
      deltas: the n - 1 differences in a narrow dtype, or None (affine).
      exception_index: positions in `deltas` whose difference did not fit.
      exception_delta: those differences, int64.
    """

    n: int
    first: int
    stride: int = 0
    deltas: np.ndarray | None = None
    exception_index: np.ndarray | None = None
    exception_delta: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        arrays = (self.deltas, self.exception_index, self.exception_delta)
        return sum(a.nbytes for a in arrays if a is not None)

    def decode(self) -> np.ndarray:
        """The int64 values, exactly.

        numpy's int64 arithmetic on arrays wraps modulo 2**64, which is
        what makes the differences exact (and it is much faster than the
        same on uint64).
        """
        if self.deltas is None:
            out = np.arange(self.n, dtype=np.int64)
            out *= np.int64(self.stride)
            out += np.int64(self.first)
            return out
        out = np.empty(self.n, dtype=np.int64)
        out[0] = self.first
        diffs = out[1:]
        diffs[:] = self.deltas  # int8..int64 -> int64 sign-extends
        if self.exception_index is not None and len(self.exception_index):
            assert self.exception_delta is not None
            diffs[self.exception_index] = self.exception_delta
        np.cumsum(out, out=out)
        return out


def pack_ints(values: np.ndarray) -> PackedInts:
    """Packs an int64 array (see the module docstring)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    n = len(values)
    if n == 0:
        return PackedInts(0, 0)
    first = int(values[0])
    if n == 1:
        return PackedInts(1, first)
    bits = values.view(_U64)
    diffs = (bits[1:] - bits[:-1]).view(np.int64)  # modulo 2**64
    if (diffs == diffs[0]).all():
        return PackedInts(n, first, stride=int(diffs[0]))
    best_width: type[np.signedinteger] = np.int64
    best_cost = diffs.nbytes
    best_outside: np.ndarray | None = None
    for width in _WIDTHS:
        info = np.iinfo(width)
        outside = np.flatnonzero((diffs < info.min) | (diffs > info.max))
        cost = len(diffs) * info.bits // 8 + len(outside) * _EXCEPTION_BYTES
        if cost < best_cost:
            best_width, best_cost, best_outside = width, cost, outside
            if len(outside) == 0:
                break  # a wider type cannot be cheaper
    if best_outside is None:
        return PackedInts(n, first, deltas=diffs.copy())
    narrow = diffs.astype(best_width)  # exceptions wrap; patched on decode
    if len(best_outside) == 0:
        return PackedInts(n, first, deltas=narrow)
    return PackedInts(
        n,
        first,
        deltas=narrow,
        exception_index=best_outside.astype(np.int64),
        exception_delta=diffs[best_outside].copy(),
    )


def pack_values(values: np.ndarray) -> np.ndarray:
    """float32 if that holds every value bit for bit, else float64."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):  # too large for float32: kept float64
        narrow = values.astype(np.float32)
    if np.array_equal(narrow.astype(np.float64).view(_U64), values.view(_U64)):
        return narrow
    return values.copy()


@dataclasses.dataclass(frozen=True)
class PackedSeries:
    """Points of one scalar series (a block of them), packed.

    Attributes:
      steps: the steps.
      walls: the wall times' float64 bits.
      values: float32 or float64 values.
    """

    steps: PackedInts
    walls: PackedInts
    values: np.ndarray

    def __len__(self) -> int:
        return self.steps.n

    @property
    def nbytes(self) -> int:
        return self.steps.nbytes + self.walls.nbytes + self.values.nbytes

    def decode(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(int64 steps, float64 wall times, float64 values), exactly."""
        return (
            self.steps.decode(),
            self.walls.decode().view(np.float64),
            self.values.astype(np.float64),
        )


def pack_series(
    steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray
) -> PackedSeries:
    """Packs one block of a series' points (equal lengths)."""
    if not len(steps) == len(wall_times) == len(values):
        raise ValueError(
            f"columns of {len(steps)}, {len(wall_times)} and {len(values)} "
            "points"
        )
    walls = np.ascontiguousarray(wall_times, dtype=np.float64)
    return PackedSeries(
        steps=pack_ints(steps),
        walls=pack_ints(walls.view(np.int64)),
        values=pack_values(values),
    )


def ints_arrays(packed: PackedInts) -> Mapping[str, np.ndarray]:
    """The arrays of a column, by role (for writing it somewhere)."""
    out = {}
    for name in ("deltas", "exception_index", "exception_delta"):
        array = getattr(packed, name)
        if array is not None:
            out[name] = array
    return out
