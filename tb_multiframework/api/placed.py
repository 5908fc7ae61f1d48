"""Placed series kept between requests: each series sorted and smoothed once.

`api.Api` caches whole `scalars` answers by their arguments, but every new
question (another smoothing weight, a baseline, a zoom window) needs every
point of every selected series again, placed on the axis, sorted and
smoothed. This cache keeps those per (run, tag, axis) and per (run, tag,
axis, weight, mode) for as long as the inputs they came from are the same
arrays, so a new baseline or a zoom costs only its own work. When points
were appended to a series (a run still training) an entry is extended with
the new points instead of recomputed, when the new points sort after the
old ones and the EMA can carry on from where it stopped (`continue_ema`).

Entries are dropped least recently used first past `MAX_BYTES`.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from collections.abc import Hashable
from typing import Any

import numpy as np

from tb_multiframework.core.axes import axis_values
from tb_multiframework.core.placement import (
    PlacedSeries,
    Selection,
    sort_on_axis,
    with_smoothing,
)
from tb_multiframework.core.smoothing import (
    EmaState,
    continue_ema,
    smooth_ema_state,
)
from tb_multiframework.core.types import Excluded

MAX_BYTES = 512 * 2**20  # bytes of arrays the entries keep alive


@dataclasses.dataclass(frozen=True)
class _Tail:
    """The appended points of a series, shaped like one for `axis_values`."""

    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


@dataclasses.dataclass
class _Sorted:
    """A series sorted on an axis, and the inputs it was computed from."""

    inputs: tuple[Any, ...]  # what the axis reads besides the columns
    steps: np.ndarray  # the columns, as the store handed them out
    wall_times: np.ndarray
    values: np.ndarray
    placed: PlacedSeries | Excluded
    nbytes: int


@dataclasses.dataclass
class _Smoothed:
    """A placed series' smoothed values for one weight and mode."""

    source: PlacedSeries  # the `_Sorted.placed` it was computed from
    placed: PlacedSeries
    state: EmaState | None  # to continue an EMA on append
    nbytes: int


class PlacedCache:
    """`place_series` with memory: see the module docstring.

    Thread-safe; two threads asking for the same missing entry may both
    compute it (the results are equal).
    """

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._entries: collections.OrderedDict[Hashable, Any] = (
            collections.OrderedDict()
        )
        self._bytes = 0

    def place(
        self,
        sel: Selection,
        axis: str,
        smoothing: float,
        smoothing_mode: str,
        *,
        variant: str = "",
    ) -> PlacedSeries | Excluded:
        """The selection placed on `axis` and smoothed (`place_series`).

        Arguments are those of `place_series`, already validated;
        `variant` names a view of the series' values other than as logged
        (a batch-values view), kept apart so that views do not evict each
        other.
        """
        base = self._sorted(sel, axis, variant)
        if isinstance(base, Excluded) or smoothing == 0.0:
            return base
        key = (
            "smoothed",
            sel.run.run,
            sel.tag,
            variant,
            axis,
            smoothing,
            smoothing_mode,
        )
        entry = self._get(key)
        if isinstance(entry, _Smoothed) and entry.source is base:
            return entry.placed
        fresh = None
        if isinstance(entry, _Smoothed) and smoothing_mode == "ema":
            fresh = _extend_smoothed(entry, base, smoothing)
        if fresh is None:
            fresh = _smoothed(base, smoothing, smoothing_mode)
        self._put(key, fresh)
        return fresh.placed

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    @property
    def entries(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        """Bytes of arrays the entries keep alive (counted per entry)."""
        return self._bytes

    def _sorted(
        self, sel: Selection, axis: str, variant: str
    ) -> PlacedSeries | Excluded:
        key = ("sorted", sel.run.run, sel.tag, variant, axis)
        inputs = _axis_inputs(sel, axis)
        series = sel.series
        entry = self._get(key)
        if isinstance(entry, _Sorted) and entry.inputs == inputs:
            if (
                entry.steps is series.steps
                and entry.wall_times is series.wall_times
                and entry.values is series.values
            ):
                return entry.placed
            extended = _extend_sorted(entry, sel, axis)
            if extended is not None:
                self._put(key, extended)
                return extended.placed
        placed = sort_on_axis(sel, axis)
        fresh = _Sorted(
            inputs=inputs,
            steps=series.steps,
            wall_times=series.wall_times,
            values=series.values,
            placed=placed,
            nbytes=_held_bytes(placed, series),
        )
        self._put(key, fresh)
        return placed

    def _get(self, key: Hashable) -> Any:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def _put(self, key: Hashable, entry: Any) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old.nbytes
            self._entries[key] = entry
            self._bytes += entry.nbytes
            while self._bytes > self._max_bytes and len(self._entries) > 1:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= dropped.nbytes


def _axis_inputs(sel: Selection, axis: str) -> tuple[Any, ...]:
    """What besides the columns decides the series' x on this axis.

    An epoch map is compared by identity: the api builds a new one only
    when the run's group changed.
    """
    if any(excluded == axis for excluded, _ in sel.excluded_axes):
        return ("excluded", sel.excluded_axes)
    if axis == "relative":
        return (sel.run_start_time,)
    if axis == "epoch":
        return (_Same(sel.epoch_map),)
    if axis == "progress":
        return (_Same(sel.epoch_map), sel.run_last_step)
    return ()


class _Same:
    """Equal to another `_Same` holding the very same object."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def _held_bytes(placed: PlacedSeries | Excluded, series: Any) -> int:
    """Bytes of every array an entry keeps alive (the store's columns too:
    once the store appends, only the cache may still hold the old ones)."""
    arrays = [series.steps, series.wall_times, series.values]
    if not isinstance(placed, Excluded):
        arrays += _arrays(placed)
    return _unique_bytes(arrays)


def _placed_bytes(placed: PlacedSeries) -> int:
    return _unique_bytes(_arrays(placed))


def _arrays(placed: PlacedSeries) -> list[Any]:
    return [
        placed.x,
        placed.y,
        placed.smoothed,
        placed.steps,
        placed.wall_times,
    ]


def _unique_bytes(arrays: list[Any]) -> int:
    unique = {id(a): a for a in arrays if isinstance(a, np.ndarray)}
    return sum(a.nbytes for a in unique.values())


def _extend_sorted(entry: _Sorted, sel: Selection, axis: str) -> _Sorted | None:
    """The entry with the points appended since, or None to recompute.

    Extends only when the old columns are a prefix of the new ones and the
    new points are sorted and at or after the last old x: then a stable
    sort of the whole series is the old sorted points followed by them.
    """
    old = entry.placed
    series = sel.series
    n = entry.values.size
    steps = np.asarray(series.steps)
    walls = np.asarray(series.wall_times)
    values = np.asarray(series.values)
    if isinstance(old, Excluded) or values.size <= n or old.x.size != n:
        return None
    if not (
        np.array_equal(steps[:n], entry.steps)
        and np.array_equal(walls[:n], entry.wall_times)
        and _same_bits(values[:n], entry.values)
    ):
        return None
    tail = _Tail(steps[n:], walls[n:], values[n:])
    x = axis_values(
        axis,
        tail,
        tag=sel.tag,
        epoch_map=sel.epoch_map,
        run_start_time=sel.run_start_time,
        run_last_step=sel.run_last_step,
    )
    if isinstance(x, Excluded) or not bool(np.all(np.isfinite(x))):
        return None
    if (n and x[0] < old.x[-1]) or bool(np.any(x[1:] < x[:-1])):
        return None
    in_order = old.y is entry.values  # the old points needed no sorting
    placed = PlacedSeries(
        x=np.concatenate([old.x, x]),
        y=values if in_order else np.concatenate([old.y, tail.values]),
        smoothed=values if in_order else np.empty(0),
        steps=steps if in_order else np.concatenate([old.steps, tail.steps]),
        wall_times=(
            walls
            if in_order
            else np.concatenate([old.wall_times, tail.wall_times])
        ),
    )
    placed = dataclasses.replace(placed, smoothed=placed.y)
    return _Sorted(
        inputs=entry.inputs,
        steps=series.steps,
        wall_times=series.wall_times,
        values=series.values,
        placed=placed,
        nbytes=_held_bytes(placed, series),
    )


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bit for bit (NaN equal to NaN, -0.0 not equal to 0.0)."""
    a64 = np.ascontiguousarray(a, dtype=np.float64)
    b64 = np.ascontiguousarray(b, dtype=np.float64)
    return a64.shape == b64.shape and bool(
        np.array_equal(a64.view(np.int64), b64.view(np.int64))
    )


def _smoothed(base: PlacedSeries, smoothing: float, mode: str) -> _Smoothed:
    if mode == "ema":
        smoothed, state = smooth_ema_state(base.y, smoothing)
        placed = dataclasses.replace(base, smoothed=smoothed)
        return _Smoothed(base, placed, state, _placed_bytes(placed))
    placed = with_smoothing(base, smoothing, mode)
    return _Smoothed(base, placed, None, _placed_bytes(placed))


def _extend_smoothed(
    entry: _Smoothed, base: PlacedSeries, smoothing: float
) -> _Smoothed | None:
    """The EMA carried on over points appended at the end, or None."""
    old = entry.source
    n = old.x.size
    if entry.state is None or base.x.size <= n:
        return None
    # The new base must start with exactly the old one (see _extend_sorted).
    if not (
        np.array_equal(base.x[:n], old.x) and _same_bits(base.y[:n], old.y)
    ):
        return None
    continued = continue_ema(entry.state, base.y[n:], smoothing)
    if continued is None:
        return None
    tail, state = continued
    smoothed = np.concatenate([entry.placed.smoothed, tail])
    placed = dataclasses.replace(base, smoothed=smoothed)
    return _Smoothed(base, placed, state, _placed_bytes(placed))
