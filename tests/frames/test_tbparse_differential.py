"""`tb_multiframework.read` against tbparse, row for row.

tbparse (`SummaryReader`, TensorBoard's `EventAccumulator` per file, every
event kept) is the reference: on every tfevents corpus of the repository
the Python API must give the same points (run, tag, step), the same values
and the same wall times, the same histograms (every bucket boundary we keep
is one of the writer's, with the same count below it; the same total and
range) and the same `add_hparams`/`hp.hparams` values.

Corpora:
* `tests/data/writers/`: torch `SummaryWriter` (`add_scalar`, also
  `new_style=True` and `double_precision=True`, `add_scalars`,
  `add_histogram` with two binnings, `add_hparams`, NaN/±Inf, a repeated
  step, a `purge_step` resume), tensorboardX (the same) and `tf.summary`
  (scalars, histograms, `hp.hparams`), written by `tests/data/writers/make.py`
  with the real frameworks (not installed for the tests: the logs are
  committed);
* `tests/data/hparams_sources/`: every hyper-parameter source;
* `demo_logs/`: the demo (torch, Lightning, HF Trainer, Keras, tf.summary,
  tensorboardX; its VisualDL runs are not tfevents and tbparse cannot read
  them).

tbparse gives TF2 tensor scalars in `.tensors`, not `.scalars` (its
`EventAccumulator` does not migrate them), and TF2 histograms there too, as
(k, 3) arrays; both are taken from there.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest
from tbparse import SummaryReader

import tb_multiframework as tbmf
from tests.conftest import ROOT

CORPORA = {
    "writers": os.path.join(ROOT, "tests", "data", "writers"),
    "hparams_sources": os.path.join(ROOT, "tests", "data", "hparams_sources"),
    "demo_logs": os.path.join(ROOT, "demo_logs"),
}
KEY = ["run", "tag", "step", "wall_time"]


@pytest.fixture(scope="module", params=sorted(CORPORA))
def corpus(request):
    """(our Experiment, tbparse's reader, tfevents run names) of a corpus."""
    logdir = CORPORA[request.param]
    exp = tbmf.read(logdir)
    runs = exp.runs
    tfevents = runs.run[runs.format == "tfevents"].tolist()
    reader = SummaryReader(
        logdir, extra_columns={"wall_time", "dir_name", "min", "max", "num"}
    )
    return exp, reader, tfevents


def _runs(frame: pd.DataFrame) -> pd.DataFrame:
    """tbparse's `dir_name` is our run ("" is the logdir itself: ".")."""
    frame = frame.rename(columns={"dir_name": "run"})
    return frame.assign(run=frame.run.replace("", "."))


def _reference_scalars(reader: SummaryReader) -> pd.DataFrame:
    legacy = reader.scalars
    tensors = reader.tensors
    if tensors.empty:  # tbparse: no columns at all then
        return _runs(legacy)
    numeric = tensors.value.map(
        lambda v: np.ndim(v) == 0 and np.asarray(v).dtype.kind in "fiu"
    )
    tf2 = tensors[numeric].assign(
        value=lambda t: t.value.map(lambda v: float(np.asarray(v)))
    )
    return _runs(pd.concat([legacy, tf2], ignore_index=True))


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame[[*KEY, "value"]].astype(
        {"run": str, "tag": str, "step": np.int64, "wall_time": np.float64}
    )
    frame = frame.assign(value=frame.value.astype(np.float64))
    # NaN sorts last; -0.0 and 0.0 tie (compared by their bits below).
    return frame.sort_values([*KEY, "value"], kind="stable").reset_index(
        drop=True
    )


def test_scalars_are_tbparse_row_for_row(corpus):
    exp, reader, tfevents = corpus
    ours = _sorted(exp.scalar_frame(runs=tfevents))
    theirs = _sorted(_reference_scalars(reader))
    assert len(ours) == len(theirs) > 0
    pd.testing.assert_frame_equal(ours[KEY], theirs[KEY], check_exact=True)
    a, b = ours.value.to_numpy(), theirs.value.to_numpy()
    same = (a.view(np.int64) == b.view(np.int64)) | (np.isnan(a) & np.isnan(b))
    assert same.all(), ours[~same].head()


def test_every_point_is_there_once_with_its_attempt(corpus):
    """tbparse keeps superseded points too; ours marks them not current."""
    exp, _, tfevents = corpus
    frame = exp.scalar_frame(runs=tfevents)
    current = frame[frame.current]
    # One current point per (run, tag, step): the latest logged.
    assert not current.duplicated(["run", "tag", "step"]).any()
    steps = frame.groupby(["run", "tag"], observed=True).step.nunique()
    assert (
        current.groupby(["run", "tag"], observed=True).size() == steps
    ).all()


def _reference_histograms(reader: SummaryReader) -> list[dict]:
    """Each histogram as its writer's bucket boundaries with the count at or
    below each boundary, the total, and the range (min, max)."""
    out: list[dict] = []
    legacy = reader.histograms
    for row in () if legacy.empty else _runs(legacy).itertuples():
        limits = np.asarray(row.limits, dtype=np.float64)
        counts = np.asarray(row.counts, dtype=np.float64)
        out.append(
            dict(
                run=row.run,
                tag=row.tag,
                step=row.step,
                wall_time=row.wall_time,
                bounds=limits,
                below=np.cumsum(counts),
                total=row.num,
                low=row.min,
                high=row.max,
            )
        )
    tensors = reader.tensors
    for row in () if tensors.empty else _runs(tensors).itertuples():
        value = np.asarray(row.value)
        if value.ndim != 2 or value.shape[1] != 3:
            continue
        counts = value[:, 2].astype(np.float64)
        nonempty = np.flatnonzero(counts)
        out.append(
            dict(
                run=row.run,
                tag=row.tag,
                step=row.step,
                wall_time=row.wall_time,
                bounds=np.concatenate(([value[0, 0]], value[:, 1])),
                below=np.concatenate(([0.0], np.cumsum(counts))),
                total=counts.sum(),
                low=value[nonempty[0], 0] if nonempty.size else math.nan,
                high=value[nonempty[-1], 1] if nonempty.size else math.nan,
            )
        )
    return out


def test_histograms_are_tbparse_bucket_for_bucket(corpus):
    exp, reader, tfevents = corpus
    ours = exp.histogram_frame(runs=tfevents)
    theirs = _reference_histograms(reader)
    assert len(ours) == len(theirs)  # hparams_sources: none in either
    by_key = {(r.run, r.tag, r.step, r.wall_time): r for r in ours.itertuples()}
    assert len(by_key) == len(ours)
    for ref in theirs:
        found = by_key[(ref["run"], ref["tag"], ref["step"], ref["wall_time"])]
        edges, counts = found.edges, found.counts
        assert len(edges) == len(counts) + 1
        assert counts.sum() == ref["total"]
        # Float32 at most: TensorBoard's data_compat stores edges as float32.
        assert edges[0] == pytest.approx(ref["low"], rel=1e-6, abs=0)
        assert edges[-1] == pytest.approx(ref["high"], rel=1e-6, abs=0)
        cumulative = np.cumsum(counts)
        for j in range(1, len(edges) - 1):
            at = np.flatnonzero(
                np.isclose(ref["bounds"], edges[j], rtol=1e-6, atol=0)
            )
            assert at.size, (ref["run"], ref["tag"], edges[j])
            assert cumulative[j - 1] == ref["below"][at[-1]]


def _number(value):
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def test_hparams_are_tbparse_value_for_value(corpus):
    """Every `add_hparams`/`hp.hparams` value tbparse reads is ours, in the
    run that logged it; a file beside the run may set the same key (it
    wins, conventions.md), with the same value in these corpora. A `/` in
    a key is a `.` (Lightning flattens nested keys with `/`)."""
    exp, reader, tfevents = corpus
    theirs = {
        (r.run, r.tag.replace("/", ".")): _number(r.value)
        for r in _runs(reader.hparams).itertuples()
    }
    ours = exp.hparams
    ours = ours[ours.run.isin(tfevents)]
    every = {(r.run, r.key): _number(r.value) for r in ours.itertuples()}
    assert {k: every.get(k) for k in theirs} == theirs
    plugin = {
        (r.run, r.key)
        for r in ours.itertuples()
        if r.source == "hparams_plugin: _hparams_/session_start_info"
    }
    assert plugin <= set(theirs)
