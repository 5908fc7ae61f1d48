"""The tab served through TensorBoard's data provider, for real.

One side: a real `tensorboard_data_server` (the Rust server) on a copy of
demo_logs, keeping every point (`--samples-per-plugin
scalars=all,histograms=all`). Other side: a real `tensorboard
--grpc_data_provider HOST:PORT` without `--logdir`, so the plugin can only
read through the provider (`--tbmf_source=auto` picks it). The reference is
a second real TensorBoard reading the same files itself (`files` source);
the Rust server decodes the files with its own reader, so agreement value
for value is a differential test of both readers.

Also: the sampled notice (a data server at its default sampling), VisualDL
runs missing when their files are not readable here, and the tab in Chromium.
"""

from __future__ import annotations

import re
import shutil
import time
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest

from tests.e2e.chartdata import READ_CHART
from tests.e2e.conftest import (
    DEMO_LOGS,
    TensorBoardServer,
    start_tensorboard,
)
from tests.e2e.dataserver import DataServer, start_data_server
from tests.eventfiles import (
    TORCH_NAME,
    file_version_event,
    record_bytes,
    scalar_event,
    write,
)
from tests.provider_expect import framework_agrees

pytestmark = pytest.mark.e2e

_SETTLE_TIMEOUT_S = 60.0  # until the provider catalog stops changing
_MAX_POINTS = 20000  # the scalars route's cap; every demo series is shorter
_ROW = "tr.tbmf-run-row"
_MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"
_METRIC = "loss/train@batch"  # a PyTorch and a Keras member


def _wait_for(check: Callable[[], Any], what: str) -> Any:
    """Polls `check` until it returns a truthy value."""
    deadline = time.monotonic() + _SETTLE_TIMEOUT_S
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def _grpc_tensorboard(server: DataServer, *extra: str) -> TensorBoardServer:
    return start_tensorboard(
        None,
        extra_args=(
            "--grpc_data_provider",
            server.address,
            "--reload_interval",
            "1",
            *extra,
        ),
    )


@pytest.fixture(scope="module")
def provider_pair(
    tb_server, e2e_logdir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TensorBoardServer, TensorBoardServer]]:
    """(files TensorBoard, provider TensorBoard) on the same demo logs."""
    files = tb_server()
    data = start_data_server(
        str(e2e_logdir), tmp_path_factory.mktemp("dataserver")
    )
    provider = None
    try:
        provider = _grpc_tensorboard(
            data,
            "--tbmf_config",
            str(e2e_logdir / ".tb_multiframework/config.json"),
        )
        expected = {
            run["run"]: _current_points(run)
            for run in files.get_json("runs")["runs"]
        }

        def settled() -> bool:
            runs = provider.get_json("runs")["runs"]
            return {r["run"]: r["numPoints"] for r in runs} == expected

        _wait_for(settled, "the provider to serve every demo run")
        yield files, provider
    finally:
        if provider is not None:
            provider.stop()
        data.stop()


def _current_points(run: dict[str, Any]) -> int:
    """Points the Rust data server keeps of a run the files source read.

    It keeps one point per step, the latest: a step logged again (in a
    restart or twice in one attempt) drops the points logged before at that
    step and above, as the files source's attempts count them.
    """
    if run["format"] != "tfevents":
        return run["numPoints"]  # VisualDL: read as files on both sides
    hidden = sum(a["superseded"] + a["repeated"] for a in run["attempts"])
    return run["numPoints"] - hidden


def _by_run(server: TensorBoardServer) -> dict[str, dict[str, Any]]:
    return {run["run"]: run for run in server.get_json("runs")["runs"]}


def test_provider_lists_every_run_as_the_files_source_does(
    provider_pair,
) -> None:
    files, provider = provider_pair
    payload = provider.get_json("runs")
    assert payload["source"]["kind"] == "provider"
    assert "without --logdir" in payload["source"]["reason"]
    assert payload["source"]["notices"] == []  # nothing sampled, VisualDL read
    expected, served = _by_run(files), _by_run(provider)
    assert sorted(served) == sorted(expected)
    tfevents = [r for r, v in expected.items() if v["format"] == "tfevents"]
    assert len(tfevents) >= 5
    same = [r for r in expected if framework_agrees(r, served[r], expected[r])]
    assert {"pytorch_sgd", "keras_fit/train", "tf2_loop", "paddle_tbx"} <= set(
        same
    )
    for run, want in expected.items():
        got = served[run]
        for key in (
            "group",
            "format",
            "scalarTags",
            "histogramTags",
            "numHistograms",
            "firstStep",
            "lastStep",
            "startTime",
            "endTime",
            "hasLayout",
            "epochSource",
        ):
            assert got[key] == want[key], (run, key, got[key], want[key])
        assert got["numPoints"] == _current_points(want), run
        assert not any("sampled" in w for w in got["warnings"]), run
    # Through the provider the evidence says what it could not see.
    for run in tfevents:
        assert any("data provider" in e for e in served[run]["evidence"]), run


def _scalars(server: TensorBoardServer, run: str, tag: str, x: str) -> dict:
    query = urllib.parse.urlencode(
        {"run": run, "tag": tag, "x": x, "points": _MAX_POINTS}
    )
    (series,) = server.get_json(f"scalars?{query}")["series"]
    return series


def _floats(values: list[Any]) -> np.ndarray:
    return np.array([float(v) for v in values], dtype=np.float64)


def test_provider_serves_the_files_values_point_for_point(
    provider_pair,
) -> None:
    files, provider = provider_pair
    compared = 0
    for run, info in _by_run(files).items():
        if info["format"] != "tfevents":
            continue
        for tag in info["scalarTags"]:
            for x in ("step", "wall"):
                want = _scalars(files, run, tag, x)
                got = _scalars(provider, run, tag, x)
                assert got["total"] == want["total"] == got["returned"]
                assert got["steps"] == want["steps"], (run, tag)
                # Bit for bit: NaN where NaN, every float the same.
                np.testing.assert_array_equal(
                    _floats(got["y"]),
                    _floats(want["y"]),
                    err_msg=f"{run} {tag}",
                )
                np.testing.assert_array_equal(
                    _floats(got["x"]),
                    _floats(want["x"]),
                    err_msg=f"{run} {tag}",
                )
            compared += want["total"]
        for tag in info["histogramTags"]:
            query = urllib.parse.urlencode({"run": run, "tag": tag})
            want = files.get_json(f"histograms?{query}")["steps"]
            got = provider.get_json(f"histograms?{query}")["steps"]
            assert [h["step"] for h in got] == [h["step"] for h in want]
            for a, b in zip(got, want):
                assert a["wallTime"] == b["wallTime"]
                np.testing.assert_array_equal(a["edges"], b["edges"])
                np.testing.assert_array_equal(a["counts"], b["counts"])
    assert compared > 4000
    # Layouts logged in the runs come through the provider too.
    assert (
        provider.get_json("layouts")["imported"]
        == files.get_json("layouts")["imported"]
    )


def _long_run(logdir: Path, points: int) -> None:
    """A torch-named run with one 5,000-point tag and one 10-point tag."""
    events = [file_version_event()]
    events += [
        scalar_event("loss", step, 1.7e9 + step, 1.0 / (step + 1))
        for step in range(points)
    ]
    events += [
        scalar_event("lr", step * 500, 1.7e9 + step, 0.1) for step in range(10)
    ]
    write(str(logdir / "long_torch" / TORCH_NAME), record_bytes(events))


def test_sampling_and_unreachable_visualdl_are_said(
    tmp_path: Path, tb_page, open_tab, save_screenshot
) -> None:
    """A data server at its default sampling, on a logdir given relative to
    its own working directory: this TensorBoard cannot read that path."""
    server_cwd = tmp_path / "server_side"
    logdir = server_cwd / "tbmf_relative_logs"
    shutil.copytree(DEMO_LOGS, logdir)
    _long_run(logdir, 5000)
    data = start_data_server(
        "tbmf_relative_logs", tmp_path, samples="", cwd=server_cwd
    )
    provider = None
    try:
        provider = _grpc_tensorboard(data)
        run = _wait_for(
            lambda: _by_run(provider).get("long_torch"), "the long run"
        )
        payload = provider.get_json("runs")
        served = _by_run(provider)
        # VisualDL runs: no provider knows them, and the files are not here.
        assert "paddle_vdl" not in served and "paddle_hapi" not in served
        notices = payload["source"]["notices"]
        assert any(
            "VisualDL" in n and "tbmf_relative_logs" in n for n in notices
        ), notices
        # 5,000 points kept as the reservoir's 1,000; the 10-point tag whole.
        assert run["numPoints"] == 1000 + 10
        (warning,) = [w for w in run["warnings"] if "sampled" in w]
        # Reservoir sampling keeps the last point, not necessarily the first.
        assert re.search(
            r"loss \(1000 points over steps \d+\.\.4999\)", warning
        )
        assert "lr" not in warning.replace("loss", "")
        assert "--samples-per-plugin=scalars=all" in warning
        assert any("sampled" in n for n in notices), notices
        # Demo runs are short: none of their series is flagged.
        for name, info in served.items():
            if name != "long_torch":
                assert not any("sampled" in w for w in info["warnings"]), name
        # The tab shows both notices, as the user reads them.
        frame = open_tab(tb_page, provider)
        frame.wait_for_selector(_ROW)
        banners = frame.eval_on_selector_all(
            ".tbmf-banner__text", "els => els.map(e => e.textContent)"
        )
        for notice in notices:
            assert notice in banners
        save_screenshot(tb_page, "provider_notices.png")
    finally:
        tb_page.page.goto("about:blank")  # no request in flight at the stop
        if provider is not None:
            provider.stop()
        data.stop()


def test_tab_renders_with_the_provider_source(
    provider_pair, tb_page, open_tab, save_screenshot
) -> None:
    files, provider = provider_pair
    frame = open_tab(tb_page, provider)
    frame.wait_for_selector(_ROW)
    rows = frame.eval_on_selector_all(
        _ROW,
        """rows => rows.map(row => [row.dataset.run,
            row.querySelector('td[data-col="framework"] .tbmf-badge')
               .dataset.framework])""",
    )
    # What the API says (checked against the files source above).
    expected = {r: v["framework"] for r, v in _by_run(provider).items()}
    assert dict(rows) == expected
    assert sorted(expected) == sorted(_by_run(files))
    save_screenshot(tb_page, "provider_runs.png")

    # Compare draws exactly the provider's points, which are the files'.
    runs = ["keras_fit/train", "pytorch_sgd"]
    suffix = "#tb_multiframework&" + "&".join(
        [
            "tbmf.view=compare",
            "tbmf.sel=" + urllib.parse.quote(",".join(runs), safe=""),
            "tbmf.cm=" + urllib.parse.quote(_METRIC, safe=""),
            f"tbmf.cp={_MAX_POINTS}",
            # The step axis, as the API query below (Compare would open
            # these two frameworks on epochs).
            "tbmf.cx=step",
        ]
    )
    frame = open_tab(tb_page, provider, suffix=suffix)
    frame.wait_for_selector('.tbmf-cmp-panel[data-state="ready"]')
    frame.wait_for_function(
        """sel => { const el = document.querySelector(sel);
                    return el && el.tbmfChart && el.tbmfChart.slots.length === 2; }""",
        arg=_MAIN,
    )
    drawn = {slot["run"]: slot for slot in frame.evaluate(READ_CHART, _MAIN)}
    query = [("run", r) for r in runs]
    query += [("metric", _METRIC), ("points", _MAX_POINTS)]
    api = provider.get_json("scalars?" + urllib.parse.urlencode(query))
    want = files.get_json("scalars?" + urllib.parse.urlencode(query))
    assert [s["y"] for s in api["series"]] == [s["y"] for s in want["series"]]
    for series in api["series"]:
        line = drawn[series["run"]]["line"]
        assert line["x"] == series["x"]
        assert line["y"] == [float(v) for v in series["y"]]
    save_screenshot(tb_page, "provider_compare.png")


def test_a_run_too_large_for_one_answer_is_read_tag_by_tag(
    tmp_path: Path,
) -> None:
    """A real gRPC channel whose message limit one run's answer exceeds
    (TensorBoard's own limit is 256 MiB; here 128 KiB): the source falls
    back to one request a tag and still reads every point."""
    import argparse

    import grpc
    from tensorboard.data import grpc_provider

    from tb_multiframework.settings.config import Config
    from tb_multiframework.sources.provider import ProviderSource
    from tb_multiframework.store.store import Store

    logdir = tmp_path / "logs"
    events = [file_version_event()]
    tags = ("a", "b", "c", "d")
    events += [
        scalar_event(tag, step, 1.7e9 + step, step / 3)
        for step in range(3000)
        for tag in tags
    ]
    write(str(logdir / "big" / TORCH_NAME), record_bytes(events))
    data = start_data_server(str(logdir), tmp_path)
    try:
        channel = grpc.insecure_channel(
            data.address,
            options=[("grpc.max_receive_message_length", 128 * 1024)],
        )
        provider = grpc_provider.GrpcDataProvider(
            data.address, grpc_provider.make_stub(channel)
        )
        store = Store()
        source = ProviderSource(
            provider,
            store,
            config=Config,
            logdir="",
            flags=argparse.Namespace(grpc_data_provider=data.address),
        )
        # The data server loads in the background: wait for every point.
        _wait_for(
            lambda: source.reload()
            and store.has_run("big")
            and store.summary("big").num_points == 12000,
            "every point of the big run",
        )
        for tag in tags:
            series = store.scalars("big", tag)
            np.testing.assert_array_equal(series.steps, np.arange(3000))
            np.testing.assert_array_equal(
                series.values, np.float32(np.arange(3000) / 3)
            )
        # The limit is real: the whole run in one answer fails.
        with pytest.raises(grpc.RpcError) as raised:
            provider.read_scalars(
                None,
                experiment_id="",
                plugin_name="scalars",
                downsample=10**9,
            )
        assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        data.stop()
