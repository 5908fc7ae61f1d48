"""The Python API: every run of a logdir as DataFrames, for notebooks and
scripts.

    import tb_multiframework as tbmf
    exp = tbmf.read("logs/")
    exp.runs, exp.scalars, exp.hparams, exp.histograms
    exp.compare("loss/val", x="epoch", baseline="pytorch_sgd", smoothing=0.6)
    exp.aggregate("loss/val", by="group", band="std")
    exp.anomalies(), exp.config_diff(["a", "b"]), exp.refresh()

It reads through the same stack as the tab and `tbmf` (`wiring.py`) and
answers with the same api and core code; docs/python_api.md describes it.
pandas is optional (`pip install 'tb-multiframework[pandas]'`): without it
every frame is a `Table` of numpy arrays.
"""

from tb_multiframework.frames.experiment import Experiment
from tb_multiframework.frames.names import (
    NoRunsError,
    TbmfWarning,
    UnknownNameError,
)
from tb_multiframework.frames.reading import read
from tb_multiframework.frames.scalars import FIXED_COLUMNS, SCALAR_COLUMNS
from tb_multiframework.frames.tables import Table

__all__ = [
    "FIXED_COLUMNS",
    "SCALAR_COLUMNS",
    "Experiment",
    "NoRunsError",
    "Table",
    "TbmfWarning",
    "UnknownNameError",
    "read",
]
