"""The Python API's promises besides its numbers: a light import, the fixed
scalar columns and their types, clear errors, incremental refresh."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tb_multiframework as tbmf
from tests import eventfiles
from tests.conftest import DEMO_LOGS, ROOT, make_client

WRITERS = os.path.join(ROOT, "tests", "data", "writers")


def _fresh(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return done.stdout


def test_importing_the_package_imports_neither_numpy_nor_pandas():
    """TensorBoard imports the package to load the plugin's entry point."""
    out = _fresh(
        "import sys, json, tb_multiframework as t\n"
        "heavy = [m for m in ('numpy', 'pandas', 'google.protobuf', "
        "'tb_multiframework.frames') if m in sys.modules]\n"
        "print(json.dumps([heavy, callable(t.read), t.__version__]))\n"
    )
    heavy, has_read, version = json.loads(out)
    assert heavy == []
    assert has_read and version


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'reed'"):
        tbmf.reed  # noqa: B018


def test_fixed_columns_come_first_in_every_frame_with_their_types():
    exp = tbmf.read(WRITERS)
    full = exp.scalars
    assert list(full.columns) == list(tbmf.SCALAR_COLUMNS)
    slim = exp.scalar_frame(tbmf.FIXED_COLUMNS)
    assert list(slim.columns) == ["run", "tag", "step", "wall_time", "value"]
    assert str(slim.run.dtype) == "category" == str(slim.tag.dtype)
    assert slim.step.dtype == np.int64 and slim.wall_time.dtype == np.float64
    # torch's double_precision=True tag is not float32: the column is
    # float64 then, exact for every value.
    assert slim.value.dtype == np.float64
    one = exp.scalar_frame(["epoch"], tags="new/loss64")
    assert list(one.columns) == [
        "run",
        "tag",
        "step",
        "epoch",
        "wall_time",
        "value",
    ]
    assert one.value.dtype == np.float64
    assert not np.array_equal(
        one.value.to_numpy(), one.value.to_numpy().astype(np.float32)
    )
    floats = exp.scalar_frame(tags="Loss/train")
    assert floats.value.dtype == np.float32
    # 22 bytes a point: 1 + 1 (codes) + 8 + 8 + 4.
    fixed = exp.scalar_frame(tbmf.FIXED_COLUMNS, tags="Loss/train")
    assert fixed.memory_usage(index=False, deep=False).sum() == pytest.approx(
        22 * len(fixed), abs=2 * 8 * 64  # categories' own bytes
    )


def test_a_resumed_run_keeps_every_point_with_its_attempt():
    exp = tbmf.read(WRITERS)
    frame = exp.scalar_frame(runs="torch/resumed")
    assert len(frame) == 10 + 6  # first writer 0..9, second 6..11
    superseded = frame[~frame.current]
    assert superseded.step.tolist() == [6, 7, 8, 9]
    assert set(superseded.attempt) == {0}
    assert set(frame[frame.step >= 10].attempt) == {1}


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (
            lambda e: e.compare("loss/vall"),
            tbmf.UnknownNameError,
            "unknown metric 'loss/vall'; did you mean 'loss/val'",
        ),
        (
            lambda e: e.compare("loss/train"),
            ValueError,
            "'loss/train' has 2 levels: loss/train@batch, loss/train@epoch",
        ),
        (
            lambda e: e.compare(tag="Loss/trian"),
            tbmf.UnknownNameError,
            "did you mean 'Loss/train'",
        ),
        (
            lambda e: e.compare("loss/val", baseline="pytorch_sdg"),
            tbmf.UnknownNameError,
            "did you mean 'pytorch_sgd'",
        ),
        (
            lambda e: e.compare("loss/val", x="epochs"),
            ValueError,
            "unknown axis 'epochs'",
        ),
        (
            lambda e: e.compare("loss/val", smoothing=1.5),
            ValueError,
            "smoothing must be in [0, 1)",
        ),
        (
            lambda e: e.scalar_frame(["valeu"]),
            ValueError,
            "unknown scalar columns ['valeu']",
        ),
        (
            lambda e: e.scalar_frame(runs="nope"),
            tbmf.UnknownNameError,
            "unknown run 'nope'",
        ),
        (lambda e: e.aggregate("loss/val", by="colour"), ValueError, "colour"),
        (lambda e: e.compare(), ValueError, "name a metric"),
    ],
)
def test_wrong_names_say_what_exists(call, error, text):
    exp = tbmf.read(DEMO_LOGS)
    with pytest.raises(error) as found:
        call(exp)
    assert text in str(found.value)


def test_missing_and_empty_logdirs_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        tbmf.read(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match="is a file"):
        tbmf.read(tmp_path / "file")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(tbmf.NoRunsError, match="the directory is empty"):
        tbmf.read(empty)
    (empty / "notes.txt").write_text("x")
    (empty / "events.json").write_text("{}")
    with pytest.raises(tbmf.NoRunsError, match="none of its 2 files is named"):
        tbmf.read(empty)
    with pytest.raises(FileNotFoundError, match="config file"):
        tbmf.read(DEMO_LOGS, config=tmp_path / "none.json")
    with pytest.raises(ValueError, match="frames must be one of"):
        tbmf.read(DEMO_LOGS, frames="polars")


def test_refresh_reads_what_was_appended(tmp_path):
    run = tmp_path / "live"
    path = str(run / "events.out.tfevents.1700000000.host.1.0")
    events = [eventfiles.file_version_event()] + [
        eventfiles.scalar_event("loss", step, 100.0 + step, 1.0 / (step + 1))
        for step in range(50)
    ]
    eventfiles.write(path, eventfiles.record_bytes(events))
    exp = tbmf.read(tmp_path)
    assert len(exp.scalars) == 50
    more = [
        eventfiles.scalar_event("loss", step, 100.0 + step, 0.5)
        for step in range(50, 80)
    ]
    eventfiles.write(path, eventfiles.record_bytes(more), mode="ab")
    loader = exp._stack.loader  # noqa: SLF001 - to see what was read
    assert exp.refresh() is exp
    frame = exp.scalars
    assert frame.step.tolist() == list(range(80))
    assert frame.value.tolist()[50:] == [0.5] * 30
    # Only the appended bytes were read.
    assert loader.last_stats.bytes_read == len(eventfiles.record_bytes(more))
    assert loader.last_stats.records == 30


def test_numpy_tables_without_pandas_have_the_same_columns():
    exp = tbmf.read(WRITERS, frames="numpy")
    table = exp.scalar_frame(tbmf.FIXED_COLUMNS, tags="Loss/train")
    frame = tbmf.read(WRITERS).scalar_frame(
        tbmf.FIXED_COLUMNS, tags="Loss/train"
    )
    assert isinstance(table, tbmf.Table)
    assert table.columns == list(frame.columns)
    for name in table.columns:
        assert table[name].tolist() == frame[name].tolist()
    with pytest.raises(AttributeError, match=r"tb-multiframework\[pandas\]"):
        table.groupby("run")  # noqa: B018
    compare = exp.compare(tag="Loss/train")
    assert isinstance(compare, tbmf.Table)
    assert compare.columns[0] == "step"
    assert ("value", "torch/plain") in compare.columns


def test_a_logdir_copy_reads_like_the_original(tmp_path):
    """Run names are relative to the logdir, wherever it is."""
    target = tmp_path / "copy"
    shutil.copytree(WRITERS, target)
    a = tbmf.read(WRITERS).runs.run.tolist()
    assert tbmf.read(target).runs.run.tolist() == a


def test_frames_pickle_and_keep_their_class(tmp_path):
    """Frames go through pickle (multiprocessing, `to_pickle`) unchanged."""
    import pickle

    exp = tbmf.read(WRITERS)
    for frame in (exp.runs, exp.compare(tag="Loss/train", x="step")):
        back = pickle.loads(pickle.dumps(frame))
        assert type(back) is type(frame)
        assert back.equals(frame)
        assert back.attrs == frame.attrs


def test_left_out_series_are_a_warning_at_the_callers_line():
    exp = tbmf.read(DEMO_LOGS)
    with pytest.warns(tbmf.TbmfWarning, match="tf2_loop") as found:
        frame = exp.compare(
            "loss/val", x="epoch", runs=["tf2_loop", "pytorch_sgd"]
        )
    assert found[0].filename == __file__
    assert "no epoch information" in frame.attrs["excluded"]["tf2_loop"]
    with pytest.warns(tbmf.TbmfWarning) as found:
        exp.aggregate("loss/val@epoch", x="epoch", by="framework")
    assert found[0].filename == __file__


def test_a_sweep_of_more_runs_than_a_request_may_name(tmp_path):
    """The routes answer at most 100 series a request; in-process, the
    Python API compares and aggregates any number."""
    runs = 120
    for r in range(runs):
        events = [eventfiles.file_version_event()] + [
            eventfiles.scalar_event("loss", step, 100.0 + step, r + step / 10)
            for step in range(20)
        ]
        eventfiles.write(
            str(tmp_path / f"run_{r:03d}" / "events.out.tfevents.1.h.1.0"),
            eventfiles.record_bytes(events),
        )
    exp = tbmf.read(tmp_path)
    frame = exp.compare(tag="loss", baseline="run_000")
    assert frame.shape == (20, 2 * runs - 1)
    diff = frame[("diff", "run_119")].to_numpy()
    assert np.allclose(diff, 119.0, rtol=0, atol=1e-4)  # float32 values
    groups = exp.aggregate(tag="loss", by="framework", band="minmax")
    (group,) = {g for g, _ in groups.columns}
    assert groups[(group, "count")].tolist() == [float(runs)] * 20
    assert groups[(group, "upper")].iloc[0] == pytest.approx(119.0)
    client, _ = make_client(str(tmp_path))
    query = "&".join(f"run=run_{r:03d}" for r in range(runs))
    answer = client.get(
        f"/data/plugin/tb_multiframework/scalars?tag=loss&{query}"
    )
    assert answer.status_code == 400
    assert "at most 100" in answer.get_data(as_text=True)
