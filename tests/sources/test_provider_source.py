"""The `provider` source over TensorBoard's own Python multiplexer.

The data provider here is TensorBoard's `MultiplexerDataProvider` over an
`EventMultiplexer` (what `tensorboard --load_fast=false` serves), in this
process; its reader and its `data_compat` conversions are TensorBoard's, so
the values it hands over come from an implementation independent of ours.
The reference is the `files` source on the same logdir.
"""

from __future__ import annotations

import argparse
import os
import shutil
import urllib.parse

import numpy as np
import pytest
from tensorboard.backend import application
from tensorboard.backend.event_processing import (
    data_ingester,
    plugin_event_multiplexer,
)
from tensorboard.backend.event_processing import (
    data_provider as tb_data_provider,
)
from tensorboard.plugins import base_plugin
from werkzeug import test as werkzeug_test

from tb_multiframework.plugin import MultiframeworkLoader
from tests.conftest import make_client
from tests.eventfiles import (
    TORCH_NAME,
    file_version_event,
    record_bytes,
    scalar_event,
    write,
)
from tests.provider_expect import framework_agrees

_KEEP_ALL = {"scalars": 0, "histograms": 0, "custom_scalars": 0}


class _Provided:
    """The plugin behind TensorBoard's WSGI app, reading via a multiplexer."""

    def __init__(self, logdir: str, samples: dict[str, int]) -> None:
        # As TensorBoard's LocalDataIngester builds it from the flags.
        guidance = dict(data_ingester.DEFAULT_TENSOR_SIZE_GUIDANCE)
        guidance.update(samples)
        self.multiplexer = plugin_event_multiplexer.EventMultiplexer(
            size_guidance=data_ingester.DEFAULT_SIZE_GUIDANCE,
            tensor_size_guidance=guidance,
        )
        self.multiplexer.AddRunsFromDirectory(logdir)
        self.multiplexer.Reload()
        provider = tb_data_provider.MultiplexerDataProvider(
            self.multiplexer, logdir
        )
        parser = argparse.ArgumentParser()
        loader = MultiframeworkLoader()
        loader.define_flags(parser)
        flags = parser.parse_args(["--tbmf_source", "provider"])
        flags.logdir = logdir
        flags.reload_interval = 0
        flags.reload_task = "blocking"
        flags.samples_per_plugin = samples
        context = base_plugin.TBContext(
            logdir=logdir, flags=flags, data_provider=provider
        )
        self.plugin = loader.load(context)
        self.client = werkzeug_test.Client(
            application.TensorBoardWSGI([self.plugin])
        )


def _get(client, route: str, **args) -> dict:
    response = client.get(
        f"/data/plugin/tb_multiframework/{route}?"
        + urllib.parse.urlencode(args, doseq=True)
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.json


def _by_run(client) -> dict[str, dict]:
    return {r["run"]: r for r in _get(client, "runs")["runs"]}


def test_python_multiplexer_serves_what_the_files_source_does(demo_copy):
    files, _ = make_client(demo_copy)
    provided = _Provided(demo_copy, _KEEP_ALL)
    payload = _get(provided.client, "runs")
    assert payload["source"]["kind"] == "provider"
    assert payload["source"]["notices"] == []
    want, got = _by_run(files), _by_run(provided.client)
    assert sorted(got) == sorted(want)
    same = [r for r in want if framework_agrees(r, got[r], want[r])]
    # The demo's own framework runs are told apart without file names.
    assert {"pytorch_sgd", "keras_fit/train", "tf2_loop", "paddle_tbx"} <= set(
        same
    )
    for run, expected in want.items():
        for key in (
            "group",
            "scalarTags",
            "histogramTags",
            "numPoints",
            "numHistograms",
            "firstStep",
            "lastStep",
        ):
            assert got[run][key] == expected[key], (run, key)
        if expected["format"] != "tfevents":
            continue
        for tag in expected["scalarTags"]:
            a = _get(provided.client, "scalars", run=run, tag=tag, points=20000)
            b = _get(files, "scalars", run=run, tag=tag, points=20000)
            assert a["series"][0]["steps"] == b["series"][0]["steps"]
            assert a["series"][0]["y"] == b["series"][0]["y"], (run, tag)
        for tag in expected["histogramTags"]:
            a = _get(provided.client, "histograms", run=run, tag=tag)["steps"]
            b = _get(files, "histograms", run=run, tag=tag)["steps"]
            assert [(h["step"], h["wallTime"]) for h in a] == [
                (h["step"], h["wallTime"]) for h in b
            ]
            for mine, theirs in zip(a, b):
                assert mine["counts"] == theirs["counts"], (run, tag)
                # TensorBoard's data_compat stores converted HistogramProtos
                # as float32: edges agree to float32, TF2 tensors exactly.
                np.testing.assert_array_equal(
                    np.float32(mine["edges"]), np.float32(theirs["edges"])
                )
                if expected["writer"] in ("keras", "tf.summary"):
                    assert mine["edges"] == theirs["edges"]
    # The multiplexer names converted simple_values by their tag: evidence.
    assert any(
        "named by their tag" in line for line in got["pytorch_sgd"]["evidence"]
    )


def _long_run(logdir: str, points: int) -> None:
    events = [file_version_event()]
    events += [
        scalar_event("loss", step, 1.7e9 + step, float(step))
        for step in range(points)
    ]
    write(os.path.join(logdir, "long", TORCH_NAME), record_bytes(events))


def test_default_sampling_is_flagged_with_the_fix(tmp_path):
    logdir = str(tmp_path / "logs")
    _long_run(logdir, 3000)
    provided = _Provided(logdir, {})  # TensorBoard's defaults: 1,000 scalars
    run = _by_run(provided.client)["long"]
    assert run["numPoints"] == 1000
    (warning,) = run["warnings"]
    assert "sampled by the data provider: scalars loss (1000 points" in warning
    assert "--samples_per_plugin=scalars=0" in warning
    (notice,) = _get(provided.client, "runs")["source"]["notices"]
    assert notice.startswith("1 series in 1 run look sampled")


def test_a_series_as_long_as_the_limit_but_whole_is_not_flagged(tmp_path):
    logdir = str(tmp_path / "logs")
    _long_run(logdir, 1000)  # steps 0..999: every step is there
    provided = _Provided(logdir, {})
    run = _by_run(provided.client)["long"]
    assert run["numPoints"] == 1000 and run["warnings"] == []


def test_growth_and_removal_reach_the_catalog(tmp_path):
    logdir = str(tmp_path / "logs")
    _long_run(logdir, 10)
    shutil.copytree(os.path.join(logdir, "long"), os.path.join(logdir, "gone"))
    provided = _Provided(logdir, _KEEP_ALL)
    before = _get(provided.client, "runs")
    assert sorted(_by_run(provided.client)) == ["gone", "long"]
    path = os.path.join(logdir, "long", TORCH_NAME)
    with open(path, "ab") as handle:
        handle.write(record_bytes([scalar_event("loss", 10, 1.7e9 + 10, 42.0)]))
    provided.multiplexer.Reload()
    provided.plugin._loader.reload()
    after = _get(provided.client, "runs")
    assert after["dataVersion"] != before["dataVersion"]
    series = _get(provided.client, "scalars", run="long", tag="loss")
    assert series["series"][0]["steps"] == list(range(11))
    assert series["series"][0]["y"][-1] == 42.0
    # A run the provider no longer has leaves the catalog. (An
    # EventMultiplexer never forgets a run; a fresh one over the logdir
    # without it stands for a provider whose run went away.)
    shutil.rmtree(os.path.join(logdir, "gone"))
    fresh = _Provided(logdir, _KEEP_ALL)
    provided.plugin._loader._provider = fresh.plugin._loader._provider
    provided.plugin._loader.reload()
    assert sorted(_by_run(provided.client)) == ["long"]


@pytest.mark.parametrize("name", ["<img src=x onerror=alert(1)>", "a,b=c"])
def test_hostile_names_pass_through_as_text(tmp_path, name):
    logdir = str(tmp_path / "logs")
    events = [file_version_event(), scalar_event(name, 1, 1.7e9, 0.5)]
    write(os.path.join(logdir, name, TORCH_NAME), record_bytes(events))
    provided = _Provided(logdir, _KEEP_ALL)
    run = _by_run(provided.client)[name]
    assert run["scalarTags"] == [name]
    series = _get(provided.client, "scalars", run=name, tag=name)
    assert series["series"][0]["y"] == [0.5]
    assert np.isfinite(series["series"][0]["y"]).all()
