"""An `s3://` logdir against a real S3 API (moto in server mode).

A `moto` server process speaks the S3 protocol over HTTP; the demo runs are
uploaded to a bucket with boto3; a real `tensorboard --logdir s3://...`
reads them through TensorBoard's filesystem layer (its `S3FileSystem`, boto3,
`S3_ENDPOINT`), and so does the plugin. Chromium checks every run is listed
with the framework its generator used, and that a run whose object is
rewritten longer (as S3 uploads of a growing file do) shows the new points
after a reload. Expected point counts come from TensorBoard's own event file
reader on the uploaded bytes, not from the plugin.
"""

from __future__ import annotations

import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import boto3
import pytest
from tensorboard.backend.event_processing import event_file_loader

from tests.e2e.conftest import DEMO_LOGS, TensorBoardServer, start_tensorboard
from tests.e2e.test_runs_tab import EXPECTED_RUNS

pytestmark = pytest.mark.e2e

BUCKET = "tbmf-e2e"
PREFIX = "logs"
GROWING = "pytorch_sgd"  # the run whose object is rewritten longer
_START_TIMEOUT_S = 30.0
_RELOAD_TIMEOUT_S = 60.0
_RUNNING = re.compile(r"Running on (http://127\.0\.0\.1:\d+)")
_ROW = "tr.tbmf-run-row"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """`python -m moto.server` on a free port; its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    found: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            match = _RUNNING.search(line)
            if match and not ready.is_set():
                found.append(match.group(1))
                ready.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        if not ready.wait(_START_TIMEOUT_S):
            pytest.fail("the moto S3 server did not start", pytrace=False)
        yield found[0]
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


def _s3_env(endpoint: str, home: Path) -> dict[str, str]:
    """What TensorBoard's S3 support reads: S3_ENDPOINT plus boto3's own
    AWS_* variables (moto accepts any credentials). The user's AWS config
    files are kept out."""
    env = dict(os.environ)
    env.update(
        S3_ENDPOINT=endpoint,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE=str(home / "aws_config"),
        AWS_SHARED_CREDENTIALS_FILE=str(home / "aws_credentials"),
    )
    return env


def _client(env: dict[str, str]):
    return boto3.client(
        "s3",
        endpoint_url=env["S3_ENDPOINT"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        region_name=env["AWS_DEFAULT_REGION"],
    )


def _record_ends(data: bytes) -> list[int]:
    """Byte offsets where each TFRecord ends (length, CRC, data, CRC)."""
    ends, offset = [], 0
    while offset + 12 <= len(data):
        (length,) = struct.unpack("<Q", data[offset : offset + 8])
        offset += 12 + length + 4
        ends.append(offset)
    assert ends[-1] == len(data)
    return ends


def _scalar_points(data: bytes, tmp: Path) -> int:
    """Scalar points in tfevents bytes, by TensorBoard's own reader."""
    path = tmp / "events.out.tfevents.count"
    path.write_bytes(data)
    loader = event_file_loader.LegacyEventFileLoader(str(path))
    return sum(
        1
        for event in loader.Load()
        for value in event.summary.value
        if value.HasField("simple_value")
    )


def _demo_run_dirs() -> list[str]:
    """Directories of demo_logs/ holding a log file: the expected runs."""
    return sorted(
        {
            path.parent.relative_to(DEMO_LOGS).as_posix()
            for path in DEMO_LOGS.rglob("*")
            if "tfevents" in path.name or path.name.startswith("vdlrecords.")
        }
    )


def _by_run(server: TensorBoardServer) -> dict[str, dict]:
    return {run["run"]: run for run in server.get_json("runs")["runs"]}


def test_s3_logdir_lists_every_run_and_shows_a_grown_object(
    s3_endpoint: str, tmp_path: Path, tb_page, open_tab, save_screenshot
) -> None:
    env = _s3_env(s3_endpoint, tmp_path)
    s3 = _client(env)
    s3.create_bucket(Bucket=BUCKET)
    growing_key = full = None
    for path in sorted(DEMO_LOGS.rglob("*")):
        if not path.is_file() or ".tb_multiframework" in path.parts:
            continue
        key = f"{PREFIX}/{path.relative_to(DEMO_LOGS).as_posix()}"
        body = path.read_bytes()
        if path.parent.name == GROWING:
            # The upload so far: half the records and a torn one.
            growing_key, full = key, body
            ends = _record_ends(body)
            body = body[: ends[len(ends) // 2] + 10]
        s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    assert growing_key is not None and full is not None
    cut = _record_ends(full)[len(_record_ends(full)) // 2]
    points_before = _scalar_points(full[:cut], tmp_path)
    points_after = _scalar_points(full, tmp_path)
    assert 0 < points_before < points_after

    server = start_tensorboard(
        f"s3://{BUCKET}/{PREFIX}",
        extra_args=(
            "--reload_interval",
            "1",
            "--tbmf_config",
            str(DEMO_LOGS / ".tb_multiframework" / "config.json"),
        ),
        env=env,
    )
    try:
        payload = server.get_json("runs")
        assert payload["source"]["kind"] == "files"
        assert payload["source"]["location"] == f"s3://{BUCKET}/{PREFIX}"
        runs = _by_run(server)
        assert sorted(runs) == _demo_run_dirs()
        for run, (framework, writer, group) in EXPECTED_RUNS.items():
            got = runs[run]
            assert (got["framework"], got["writer"], got["group"]) == (
                framework,
                writer,
                group,
            ), run
        assert runs[GROWING]["numPoints"] == points_before
        # The torn upload ends 10 bytes into a record: fewer than a header.
        assert any(
            "ends with 10 bytes, fewer than a record header" in w
            for w in runs[GROWING]["warnings"]
        ), runs[GROWING]["warnings"]

        frame = open_tab(tb_page, server)
        frame.wait_for_selector(_ROW)
        shown = dict(
            frame.eval_on_selector_all(
                _ROW,
                """rows => rows.map(row => [row.dataset.run,
                  row.querySelector('td[data-col="framework"] .tbmf-badge')
                     .dataset.framework])""",
            )
        )
        assert sorted(shown) == _demo_run_dirs()
        for run, (framework, _, _) in EXPECTED_RUNS.items():
            assert shown[run] == framework, run
        save_screenshot(tb_page, "s3_runs.png")

        # The upload finishes: the object is rewritten, longer.
        s3.put_object(Bucket=BUCKET, Key=growing_key, Body=full)
        deadline = time.monotonic() + _RELOAD_TIMEOUT_S
        while True:
            # Points land during a reload, the run's warnings at its end.
            run = _by_run(server)[GROWING]
            torn = [w for w in run["warnings"] if "incomplete record" in w]
            if run["numPoints"] == points_after and not torn:
                break
            assert time.monotonic() < deadline, f"never grown: {run}"
            time.sleep(0.5)
        tb_page.page.reload()
        frame = open_tab(tb_page, server)
        cell = frame.locator(
            f'{_ROW}[data-run="{GROWING}"] td[data-col="points"]'
        )
        assert cell.text_content() == f"{points_after:,}"
        save_screenshot(tb_page, "s3_runs_grown.png")
    finally:
        tb_page.page.goto("about:blank")  # no request in flight at the stop
        server.stop()
