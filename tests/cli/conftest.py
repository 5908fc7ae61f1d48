"""Fixtures for the `tbmf` tests: the command as a subprocess, the routes
of the same logdir through TensorBoard's WSGI app (the answers the command's
output is checked against), and small runs with known curves written as
real tfevents files (TensorBoard's own record writer)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests import eventfiles
from tests.conftest import DEMO_LOGS, ROOT, make_client

BASE = "/data/plugin/tb_multiframework"
_TIMEOUT_S = 180  # seconds for one command


@dataclass
class Result:
    """What one `tbmf` run printed and returned."""

    code: int
    out: str
    err: str

    def json(self) -> dict:
        return json.loads(self.out)


def tbmf(*args: str, cwd: str | None = None) -> Result:
    """Runs `python -m tb_multiframework.cli.main ARGS` with this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-m", "tb_multiframework.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        cwd=cwd or ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def assert_usage_error(result: Result, *fragments: str) -> None:
    """Exit 2, one line on stderr naming what is wrong, no traceback."""
    assert result.code == 2, (result.code, result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("tbmf: error: "), result.err
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


class Routes:
    """The plugin's routes over a logdir, through TensorBoard's WSGI app."""

    def __init__(self, logdir: str) -> None:
        self.client, _ = make_client(logdir)

    def get(self, route: str, **args: object) -> dict:
        return json.loads(self.text(route, **args))

    def text(self, route: str, **args: object) -> str:
        pairs = []
        for key, value in args.items():
            values = value if isinstance(value, (list, tuple)) else [value]
            pairs += [(key, v) for v in values]
        response = self.client.get(f"{BASE}/{route}?{urlencode(pairs)}")
        body = response.get_data(as_text=True)
        assert response.status_code == 200, body
        return body


@pytest.fixture(scope="session")
def demo_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A private copy of demo_logs/ (with its config)."""
    target = tmp_path_factory.mktemp("cli") / "demo_logs"
    shutil.copytree(DEMO_LOGS, target)
    return str(target)


@pytest.fixture(scope="session")
def demo_routes(demo_logdir: str) -> Routes:
    return Routes(demo_logdir)


def write_run(
    root: Path | str,
    run: str,
    scalars: dict[str, list[tuple[int, float]]],
    *,
    histograms: (
        dict[str, list[tuple[int, list[float], list[float]]]] | None
    ) = None,
    wall_start: float = 1_700_000_000.0,
    seconds_per_step: float = 0.5,
) -> Path:
    """A torch-style run: `simple_value` scalars, legacy histograms.

    Args:
        scalars: tag -> [(step, value)].
        histograms: tag -> [(step, bucket right edges, counts)].
    """
    histograms = histograms or {}
    events = [eventfiles.file_version_event(wall_start)]
    for tag, points in scalars.items():
        for step, value in points:
            wall = wall_start + step * seconds_per_step
            events.append(eventfiles.scalar_event(tag, step, wall, value))
    for tag, items in histograms.items():
        for step, limits, counts in items:
            wall = wall_start + step * seconds_per_step
            events.append(
                eventfiles.histogram_event(
                    tag,
                    step,
                    wall,
                    minimum=limits[0] - 1.0,
                    maximum=limits[-1],
                    limits=limits,
                    counts=counts,
                )
            )
    directory = Path(root) / run
    eventfiles.write(
        str(directory / eventfiles.TORCH_NAME), eventfiles.record_bytes(events)
    )
    return directory
