"""The DataFrame subclass the Python API returns when pandas is installed.

A `tb_multiframework` frame is a plain pandas DataFrame plus two things:
in Jupyter it renders through `display.frame_html` (framework badges,
warnings in full, every string escaped), and a comparison's or an
aggregate's `plot()` draws the curves and differences (`plot.py`); for any
other frame, and for `frame.plot.<kind>(...)`, pandas' own plotting is used.
Rows or columns taken from it stay this class, with its `attrs`; it pickles
like any DataFrame.

This module imports pandas: it is imported only when pandas is installed.
"""

from __future__ import annotations

from typing import Any

import pandas
from pandas.plotting import PlotAccessor

from tb_multiframework.frames import display
from tb_multiframework.frames.plot import plot_frame


class _Plot:
    """`frame.plot()` draws ours; `frame.plot.line()` etc. are pandas'."""

    def __init__(self, frame: Any) -> None:
        self._frame = frame

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args or set(kwargs) - {"ax"}:
            return PlotAccessor(self._frame)(*args, **kwargs)
        return plot_frame(self._frame, ax=kwargs.get("ax"))

    def __getattr__(self, name: str) -> Any:
        return getattr(PlotAccessor(self._frame), name)


class TbmfFrame(pandas.DataFrame):  # type: ignore[misc]
    """A DataFrame with the Python API's notebook display and plots."""

    @property
    def _constructor(self) -> Any:
        return TbmfFrame

    @property
    def plot(self) -> Any:  # type: ignore[override]
        if self.attrs.get("tbmf") in ("compare", "aggregate"):
            return _Plot(self)
        return PlotAccessor(self)

    def _repr_html_(self) -> str:
        return display.frame_html(self, note=display.attrs_note(self.attrs))


def frame_class(module: Any) -> Any:
    """The subclass (for the pandas module `to_frame` was given)."""
    if module is not pandas:
        raise RuntimeError("pandas was imported twice under different names")
    return TbmfFrame
