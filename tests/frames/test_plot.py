"""`compare(...).plot()` and `aggregate(...).plot()` with matplotlib (Agg):
the lines drawn hold the frame's numbers; pandas' own plots stay reachable."""

from __future__ import annotations

import subprocess
import sys

import matplotlib
import numpy as np
import pytest

import tb_multiframework as tbmf
from tests.conftest import DEMO_LOGS, ROOT

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def exp():
    return tbmf.read(DEMO_LOGS)


def _lines(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_compare_plot_draws_each_run_and_its_difference(exp):
    frame = exp.compare(
        "loss/val",
        x="epoch",
        baseline="pytorch_sgd",
        smoothing=0.6,
        runs=["pytorch_sgd", "keras_fit", "paddle_hapi"],
    )
    top, bottom = frame.plot()
    drawn = _lines(top)
    for run in ("pytorch_sgd", "keras_fit/validation", "paddle_hapi"):
        x, y = drawn[run].get_data()
        want = frame[("smoothed", run)].dropna()
        assert np.array_equal(x, want.index.to_numpy())
        assert np.array_equal(y, want.to_numpy())
    diffs = _lines(bottom)
    assert "pytorch_sgd" not in diffs
    x, y = diffs["paddle_hapi"].get_data()
    want = frame[("diff_smoothed", "paddle_hapi")].dropna()
    assert np.array_equal(y, want.to_numpy())
    assert bottom.get_xlabel() == "epoch"
    # pandas' own plotting is still there under its usual names.
    assert frame.plot.line is not None


def test_aggregate_plot_draws_centers_and_bands(exp):
    frame = exp.aggregate(
        "loss/val@epoch",
        by="framework",
        band="std",
        x="epoch",
        baseline_group="pytorch",
    )
    top, bottom = frame.plot()
    drawn = _lines(top)
    x, y = drawn["paddle"].get_data()
    want = frame[("paddle", "mean")].dropna()
    assert np.array_equal(y, want.to_numpy())
    assert len(top.collections) == 3  # one band a framework
    assert "tensorflow" in _lines(bottom)


def test_plot_without_matplotlib_names_the_package():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import tb_multiframework as t\n"
        f"c = t.read({DEMO_LOGS!r}).compare(tag='Loss/train', runs='pytorch_sgd')\n"
        "try:\n    c.plot()\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert "pip install matplotlib" in out
