"""Columns to frames: pandas DataFrames when pandas is installed, else
`Table`s of numpy arrays.

Every frame of the Python API is first a dict of columns (numpy arrays, or
`Codes` for a categorical column); `to_frame` turns it into a DataFrame
(categorical columns as `pandas.Categorical`, nothing copied that need not
be) or, without pandas, into a `Table`: a read-only mapping of column name
to numpy array with the same column names, so the same code runs on both.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

PANDAS_EXTRA = "pip install 'tb-multiframework[pandas]'"
FRAME_KINDS = ("auto", "pandas", "numpy")  # `read(frames=...)`
_INT8_CATEGORIES = 127  # categories whose codes fit in int8 (-1: missing)
_INT16_CATEGORIES = 32767


@dataclasses.dataclass(frozen=True)
class Codes:
    """A categorical column: `categories[codes[i]]`, -1 for missing."""

    codes: np.ndarray
    categories: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.codes)

    def values(self) -> np.ndarray:
        """The column as an object array of str (None where missing)."""
        lookup = np.array([*self.categories, None], dtype=object)
        return lookup[self.codes]  # -1 picks the trailing None


def code_dtype(categories: int) -> type[np.signedinteger[Any]]:
    """The narrowest signed integer type for codes of so many categories."""
    if categories <= _INT8_CATEGORIES:
        return np.int8
    if categories <= _INT16_CATEGORIES:
        return np.int16
    return np.int32


def pandas_module(kind: str) -> Any:
    """pandas for frames of `kind` (`FRAME_KINDS`), or None for `Table`s.

    Raises:
      ImportError: `kind` is "pandas" and pandas is not installed.
      ValueError: an unknown kind.
    """
    if kind not in FRAME_KINDS:
        raise ValueError(f"frames must be one of {FRAME_KINDS}, got {kind!r}")
    if kind == "numpy":
        return None
    try:
        return importlib.import_module("pandas")
    except ImportError:
        if kind == "pandas":
            raise ImportError(
                "frames='pandas' needs pandas, which is not installed: "
                f"{PANDAS_EXTRA}"
            ) from None
        return None


class Table(Mapping[Hashable, np.ndarray]):
    """A frame without pandas: column name -> numpy array, all one length.

    `table["value"]` is a numpy array; `len(table)` the number of rows;
    `table.columns` the names in order. Categorical columns are object
    arrays of str (None where missing). `to_pandas()` converts once pandas
    is installed. Anything a DataFrame has and a Table has not raises an
    AttributeError that names the `[pandas]` extra.
    """

    def __init__(
        self,
        columns: Mapping[Hashable, Any],
        *,
        attrs: Mapping[str, Any] | None = None,
        index: tuple[str, np.ndarray] | None = None,
    ) -> None:
        data: dict[Hashable, np.ndarray] = {}
        if index is not None:
            data[index[0]] = np.asarray(index[1])
        for name, column in columns.items():
            data[name] = (
                column.values() if isinstance(column, Codes) else column
            )
        lengths = {len(c) for c in data.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns of different lengths: {sorted(lengths)}")
        self._data = data
        self._rows = lengths.pop() if lengths else 0
        self.attrs: dict[str, Any] = dict(attrs or {})

    @property
    def columns(self) -> list[Hashable]:
        return list(self._data)

    @property
    def shape(self) -> tuple[int, int]:
        return (self._rows, len(self._data))

    def __getitem__(self, name: Hashable) -> np.ndarray:
        return self._data[name]

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._data)

    def __len__(self) -> int:
        return self._rows

    def nbytes(self) -> int:
        """Bytes held by the columns' arrays."""
        return sum(int(c.nbytes) for c in self._data.values())

    def to_pandas(self) -> Any:
        """The same columns as a pandas DataFrame.

        Raises:
          ImportError: pandas is not installed (names the extra).
        """
        pandas = pandas_module("pandas")
        frame = pandas.DataFrame(dict(self._data))
        frame.attrs.update(self.attrs)
        return frame

    def plot(self, *, ax: Any = None) -> Any:
        """Draws a comparison or an aggregate with matplotlib."""
        from tb_multiframework.frames.plot import plot_frame  # noqa: PLC0415

        return plot_frame(self, ax=ax)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(
            f"a Table (numpy columns) has no {name!r}; DataFrames need "
            f"pandas: {PANDAS_EXTRA}"
        )

    def __repr__(self) -> str:
        names = ", ".join(repr(n) for n in list(self._data)[:12])
        more = ", ..." if len(self._data) > 12 else ""
        return (
            f"Table({self._rows} rows; columns {names}{more}; numpy arrays — "
            f"{PANDAS_EXTRA} for DataFrames)"
        )

    def _repr_html_(self) -> str:
        from tb_multiframework.frames import display  # noqa: PLC0415

        return display.table_html(
            [str(n) for n in self._data],
            [self._data[n] for n in self._data],
            rows=self._rows,
            note=" · ".join(
                n
                for n in (
                    display.attrs_note(self.attrs),
                    f"numpy columns ({PANDAS_EXTRA} for DataFrames)",
                )
                if n
            ),
        )


def to_frame(
    columns: Mapping[Hashable, Any],
    pandas: Any,
    *,
    attrs: Mapping[str, Any] | None = None,
    index: tuple[str, np.ndarray] | None = None,
    column_names: Sequence[str] | None = None,
    frame_class: Any = None,
) -> Any:
    """A DataFrame (pandas given) or a `Table` of these columns.

    Args:
      columns: name -> numpy array or `Codes`.
      pandas: the pandas module, or None for a `Table`.
      attrs: the frame's `attrs` (what it is, what was left out and why).
      index: (name, values) of the index; a Table gets it as a first column.
      column_names: level names of a MultiIndex (tuple column names).
      frame_class: a DataFrame subclass to build (pandas only).
    """
    if pandas is None:
        return Table(columns, attrs=attrs, index=index)
    data = {
        name: (
            pandas.Categorical.from_codes(column.codes, column.categories)
            if isinstance(column, Codes)
            else column
        )
        for name, column in columns.items()
    }
    cls = frame_class or pandas.DataFrame
    pandas_index = None
    if index is not None:
        pandas_index = pandas.Index(index[1], name=index[0])
    if not data:
        frame = cls(index=pandas_index)
    else:
        # copy=False: the columns were built for this frame.
        frame = cls(data, index=pandas_index, copy=False)
    if (
        column_names is not None
        and len(frame.columns)
        and all(isinstance(c, tuple) for c in frame.columns)
    ):
        frame.columns = pandas.MultiIndex.from_tuples(
            list(frame.columns), names=list(column_names)
        )
    frame.attrs.update(attrs or {})
    return frame


def snake_case(name: str) -> str:
    """`endStep` -> `end_step`."""
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def objects(values: list[Any]) -> np.ndarray:
    """An object array holding each value as it is (lists, arrays too)."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


def column(values: list[Any]) -> np.ndarray:
    """A numpy column: int64/float64/bool when every value is one, else objects."""
    if values and all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    if values and all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        return np.array(values, dtype=np.int64)
    if values and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
    ):
        return np.array(values, dtype=np.float64)
    return objects(values)


def codes(values: list[str]) -> Codes:
    """A categorical column of strings (categories sorted)."""
    categories = tuple(sorted(set(values)))
    lookup = {name: i for i, name in enumerate(categories)}
    codes = np.array(
        [lookup[v] for v in values], dtype=code_dtype(len(categories))
    )
    return Codes(codes, categories)
