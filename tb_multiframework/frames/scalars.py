"""The long scalar frame: every logged point, one row each.

Columns (`SCALAR_COLUMNS`; `FIXED_COLUMNS` are always there, in this
order, with these types):

| column | type | what |
| --- | --- | --- |
| run | categorical | run name, as the tab and `tbmf` name it |
| tag | categorical | the raw tag |
| metric | categorical | canonical metric (`loss/train`), missing for tags that are not metrics |
| level | categorical | `epoch`, `batch`, or missing when unknown |
| step | int64 | the logged step |
| epoch | float64 | fractional epochs (docs/conventions.md); NaN when the run has no epoch axis |
| wall_time | float64 | Unix seconds, as logged |
| relative | float64 | seconds since the run's first event |
| value | float32 or float64 | as logged: float32 when every value is a float32 (what writers store), else float64; exact either way |
| attempt | int8/int16 | the attempt the point was logged in (0 unless resumed) |
| current | bool | False for a point a later attempt superseded or a repeated step |

Rows: runs in name order, tags in name order, points in logged order (a
resumed run's superseded points first, `current` False). Nothing is
dropped. Each column is computed only when asked for (`columns=`), so a
frame of the fixed columns costs 22 bytes a point (1 + 1 + 8 + 4 + 8).

The numbers come from the same store and core functions as the tab's
routes: `epoch` and `relative` are `core.axes.axis_values`, `metric` and
`level` the metric index of `GET metrics`, `attempt` and `current` the
store's attempt bookkeeping (`GET export?attempts=all`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from tb_multiframework.api.context import Context
from tb_multiframework.core.axes import axis_values
from tb_multiframework.core.types import Excluded
from tb_multiframework.frames.tables import Codes, code_dtype
from tb_multiframework.store.allocator import release_freed_memory
from tb_multiframework.store.store import Store

FIXED_COLUMNS = ("run", "tag", "step", "value", "wall_time")
SCALAR_COLUMNS = (
    "run",
    "tag",
    "metric",
    "level",
    "step",
    "epoch",
    "wall_time",
    "relative",
    "value",
    "attempt",
    "current",
)
VALUE_DTYPES = ("auto", "float64")
_TRIM_AFTER_POINTS = 1_000_000  # frames this large return freed memory
_LEVELS = ("epoch", "batch")


def check_columns(columns: Sequence[str] | None) -> tuple[str, ...]:
    """The columns asked for, in frame order, the fixed ones always.

    Raises:
      ValueError: an unknown column name.
    """
    if columns is None:
        return SCALAR_COLUMNS
    if isinstance(columns, str):
        columns = (columns,)
    unknown = [c for c in columns if c not in SCALAR_COLUMNS]
    if unknown:
        raise ValueError(
            f"unknown scalar columns {unknown}; columns: {list(SCALAR_COLUMNS)}"
        )
    wanted = set(columns) | set(FIXED_COLUMNS)
    return tuple(c for c in SCALAR_COLUMNS if c in wanted)


def metric_of_tags(
    ctx: Context,
) -> dict[tuple[str, str], tuple[str, str | None]]:
    """(run, tag) -> (canonical name, member level), as `GET metrics` says.

    Keras' `evaluation_*_vs_iterations` aliases get their `epoch_*` tag's.
    """
    found: dict[tuple[str, str], tuple[str, str | None]] = {}
    for entry in ctx.metrics.values():
        for member in entry.members:
            for tag in (member.tag, *member.aliases):
                found.setdefault((member.run, tag), (entry.name, member.level))
    return found


def scalar_columns(
    store: Store,
    ctx: Context,
    *,
    columns: Sequence[str],
    runs: Collection[str] | None = None,
    tags: Collection[str] | None = None,
    pairs: Collection[tuple[str, str]] | None = None,
    value_dtype: str = "auto",
) -> dict[str, Any]:
    """The columns of the long scalar frame (numpy arrays and `Codes`).

    Args:
      store: the series (read, not changed).
      ctx: the api's context for the store's current data.
      columns: what `check_columns` returned.
      runs: only these runs (None: all).
      tags: only these raw tags (None: all).
      pairs: only these (run, tag) series (None: all).
      value_dtype: "auto" (float32 when exact for every value) or
        "float64".

    Raises:
      ValueError: a bad `value_dtype`.
    """
    if value_dtype not in VALUE_DTYPES:
        raise ValueError(
            f"value_dtype must be one of {VALUE_DTYPES}, got {value_dtype!r}"
        )
    series = [
        (run, tag)
        for run in sorted(ctx.summaries)
        if runs is None or run in runs
        for tag in ctx.summaries[run].scalar_tags
        if (tags is None or tag in tags)
        and (pairs is None or (run, tag) in pairs)
    ]
    run_names = tuple(sorted({run for run, _ in series}))
    tag_names = tuple(sorted({tag for _, tag in series}))
    metrics = metric_of_tags(ctx)
    metric_names = tuple(
        sorted({metrics[k][0] for k in series if k in metrics})
    )
    counts = {
        run: store.series_counts(run)[0] for run in run_names
    }  # points per tag, without decoding
    total = sum(counts[run][tag] for run, tag in series)
    builder = _Builder(
        columns, total, value_dtype, run_names, tag_names, metric_names
    )
    for run, tag in series:
        builder.add(store, ctx, run, tag, metrics.get((run, tag)))
    columns_out = builder.finish()
    if total >= _TRIM_AFTER_POINTS:
        # The decoded series were temporaries; give their pages back.
        release_freed_memory()
    return columns_out


class _Builder:
    """Fills preallocated columns series by series (no concatenation copy)."""

    def __init__(
        self,
        columns: Sequence[str],
        total: int,
        value_dtype: str,
        run_names: tuple[str, ...],
        tag_names: tuple[str, ...],
        metric_names: tuple[str, ...],
    ) -> None:
        self._columns = columns
        self._total = total
        self._at = 0
        self._names = {
            "run": run_names,
            "tag": tag_names,
            "metric": metric_names,
            "level": _LEVELS,
        }
        self._index = {
            key: {name: i for i, name in enumerate(names)}
            for key, names in self._names.items()
        }
        self._out: dict[str, np.ndarray] = {}
        for name in columns:
            if name in self._names:
                dtype: Any = code_dtype(len(self._names[name]))
            else:
                dtype = {
                    "step": np.int64,
                    "epoch": np.float64,
                    "wall_time": np.float64,
                    "relative": np.float64,
                    "value": (
                        np.float32 if value_dtype == "auto" else np.float64
                    ),
                    "attempt": np.int32,
                    "current": np.bool_,
                }[name]
            self._out[name] = np.empty(total, dtype=dtype)
        self._max_attempt = 0

    def add(
        self,
        store: Store,
        ctx: Context,
        run: str,
        tag: str,
        metric: tuple[str, str | None] | None,
    ) -> None:
        series = store.scalars(run, tag)
        n = len(series)
        lo, hi = self._at, self._at + n
        if hi > self._total:
            raise RuntimeError(
                f"{run!r}/{tag!r} grew while the frame was built; "
                "call refresh() and read again"
            )
        out = self._out
        codes = {
            "run": run,
            "tag": tag,
            "metric": None if metric is None else metric[0],
            "level": None if metric is None else metric[1],
        }
        for key, name in codes.items():
            if key in out:
                out[key][lo:hi] = -1 if name is None else self._index[key][name]
        if "step" in out:
            out["step"][lo:hi] = series.steps
        if "wall_time" in out:
            out["wall_time"][lo:hi] = series.wall_times
        if "value" in out:
            self._put_values(lo, hi, series.values)
        summary = ctx.summaries[run]
        for axis, name in (("epoch", "epoch"), ("relative", "relative")):
            if name not in out:
                continue
            if axis == "relative" and summary.start_time is None:
                out[name][lo:hi] = np.nan
                continue
            x = axis_values(
                axis,
                series,
                tag=tag,
                epoch_map=ctx.epoch_maps[run],
                run_start_time=summary.start_time,
            )
            out[name][lo:hi] = np.nan if isinstance(x, Excluded) else x
        if "attempt" in out or "current" in out:
            found = store.scalar_attempts(run, tag)
            if "attempt" in out:
                out["attempt"][lo:hi] = 0 if found is None else found.attempts
                if found is not None and n:
                    self._max_attempt = max(
                        self._max_attempt, int(found.attempts.max())
                    )
            if "current" in out:
                out["current"][lo:hi] = True if found is None else found.current
        self._at = hi

    def _put_values(self, lo: int, hi: int, values: np.ndarray) -> None:
        column = self._out["value"]
        if column.dtype == np.float32:
            narrow = values.astype(np.float32)
            if np.array_equal(
                narrow.astype(np.float64), values, equal_nan=True
            ) and _same_signs(narrow, values):
                column[lo:hi] = narrow
                return
            # Not a float32: the whole column becomes float64.
            wide = np.empty(len(column), dtype=np.float64)
            wide[:lo] = column[:lo]
            self._out["value"] = column = wide
        column[lo:hi] = values

    def finish(self) -> dict[str, Any]:
        if self._at != self._total:
            raise RuntimeError(
                f"{self._total - self._at} points went missing while the "
                "frame was built; call refresh() and read again"
            )
        out: dict[str, Any] = {}
        for name in self._columns:
            column = self._out[name]
            if name in self._names:
                out[name] = Codes(column, self._names[name])
            elif name == "attempt":
                out[name] = column.astype(code_dtype(self._max_attempt))
            else:
                out[name] = column
        return out


def _same_signs(narrow: np.ndarray, wide: np.ndarray) -> bool:
    """−0.0 stays −0.0 (array_equal says −0.0 == 0.0)."""
    zero = wide == 0
    if not zero.any():
        return True
    return bool(
        np.array_equal(np.signbit(narrow[zero]), np.signbit(wide[zero]))
    )
