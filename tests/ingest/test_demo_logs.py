"""Every point of the bundled demo runs, against what their generators logged.

`tests/data/demo_truth/<run>.json` is saved by each generator script from the
values it passed to its framework's writer (not read back from the files), so
this checks ingest value by value against an independent record.
"""

import json
import os

import numpy as np
import pytest

from tb_multiframework.ingest.loader import Loader
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import Store

ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)
DEMO = os.path.join(ROOT, "demo_logs")
TRUTH = os.path.join(ROOT, "tests", "data", "demo_truth")


@pytest.fixture(scope="module")
def store():
    store = Store()
    Loader(DEMO, store, config=lambda: Config()).reload()
    return store


def _truth_dirs():
    for name in sorted(os.listdir(TRUTH)):
        with open(os.path.join(TRUTH, name)) as handle:
            truth = json.load(handle)
        yield from truth["dirs"].items()


TRUTH_DIRS = dict(_truth_dirs())


def test_every_truth_run_is_found_and_clean(store):
    assert sorted(TRUTH_DIRS) == [r for r in store.runs() if r in TRUTH_DIRS]
    assert len(TRUTH_DIRS) >= 7
    for run, truth in TRUTH_DIRS.items():
        warnings = store.meta(run).warnings
        # The resumed run (and its add_scalars sub-runs) logged steps again
        # in a second file: exactly those steps are named, nothing else.
        again = sorted(
            {
                step
                for series in truth["scalars"].values()
                for step, count in zip(
                    *np.unique(series["steps"], return_counts=True)
                )
                if count > 1
            }
        )
        if run.startswith("pytorch_resumed") and again:
            (warning,) = warnings
            span = (
                f"step {again[0]}"
                if len(again) == 1
                else f"steps {again[0]}–{again[-1]}"
            )
            assert warning.startswith(f"{span} logged twice (2 files"), run
        else:
            assert warnings == (), run


@pytest.mark.parametrize("run", sorted(TRUTH_DIRS))
def test_scalars_value_by_value(store, run):
    truth = TRUTH_DIRS[run]["scalars"]
    assert truth, run
    for tag, expected in truth.items():
        series = store.scalars(run, tag)
        order = np.lexsort((np.arange(len(series)), series.steps))
        np.testing.assert_array_equal(
            series.steps[order], np.sort(expected["steps"]), err_msg=tag
        )
        # Writers store float32; the truth holds the float they were given.
        want = np.asarray(expected["values"], dtype=np.float32).astype(
            np.float64
        )
        got = series.values[np.argsort(series.steps, kind="stable")]
        want = want[np.argsort(expected["steps"], kind="stable")]
        np.testing.assert_array_equal(got, want, err_msg=f"{run} {tag}")


@pytest.mark.parametrize(
    "run", sorted(r for r, t in TRUTH_DIRS.items() if t["histograms"])
)
def test_histograms_count_and_range(store, run):
    for tag, expected in TRUTH_DIRS[run]["histograms"].items():
        series = store.histograms(run, tag)
        assert series.steps.tolist() == expected["steps"], tag
        totals = [float(c.sum()) for c in series.counts]
        np.testing.assert_array_equal(
            totals, expected["counts_total"], err_msg=tag
        )
        np.testing.assert_allclose(
            [e[0] for e in series.edges], expected["min"], rtol=1e-6, atol=1e-7
        )
        np.testing.assert_allclose(
            [e[-1] for e in series.edges], expected["max"], rtol=1e-6, atol=1e-7
        )
