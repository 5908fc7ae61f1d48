"""`tbmf check --metric time/step --tolerance 5%` and the report's speed
section, on runs whose timings are known (tests/data/speed/timed, written
by torch's SummaryWriter with walltime= from a drawn schedule)."""

import json
import os
import shutil

import pytest

from tests.cli.conftest import tbmf
from tests.conftest import ROOT

TIMED = os.path.join(ROOT, "tests", "data", "speed", "timed")


@pytest.fixture(scope="module")
def truth():
    with open(os.path.join(TIMED, "truth.json")) as f:
        return json.load(f)["runs"]


@pytest.fixture(scope="module")
def logdir(tmp_path_factory, truth):
    """every_step as the baseline; a copy of it 10 % slower (every wall
    time stretched) as `slower`, written by TensorBoard's record writer."""
    from tensorboard.backend.event_processing import event_file_loader

    from tests.eventfiles import record_bytes

    root = tmp_path_factory.mktemp("speed")
    shutil.copytree(os.path.join(TIMED, "every_step"), root / "every_step")
    (src,) = [f for f in os.listdir(root / "every_step") if "tfevents" in f]
    events = list(
        event_file_loader.EventFileLoader(str(root / "every_step" / src)).Load()
    )
    t0 = events[1].wall_time
    for event in events[1:]:
        event.wall_time = t0 + 1.1 * (event.wall_time - t0)
    (root / "slower").mkdir()
    (root / "slower" / src).write_bytes(
        record_bytes([e.SerializeToString() for e in events])
    )
    shutil.copy(root / "every_step" / "config.json", root / "slower")
    return str(root)


def test_check_passes_within_tolerance_and_when_faster(logdir):
    same = tbmf(
        "check",
        logdir,
        "-a",
        "every_step",
        "-b",
        "every_step",
        "--metric",
        "time/step",
        "--tolerance",
        "5%",
    )
    assert same.code == 0, same.err
    assert same.out.startswith("PASS  time/step")
    faster = tbmf(
        "check",
        logdir,
        "-a",
        "slower",
        "-b",
        "every_step",
        "--metric",
        "time/step",
        "--metric",
        "throughput/steps_per_s",
        "--tolerance",
        "0.05",
        "--json",
    )
    assert faster.code == 0, faster.out
    checks = faster.json()["checks"]
    assert [c["metric"] for c in checks] == [
        "time/step",
        "throughput/steps_per_s",
    ]
    assert checks[0]["values"]["relative"] == pytest.approx(
        1 / 1.1 - 1, rel=1e-3
    )


def test_check_fails_when_slower_by_more(logdir, truth):
    slower = tbmf(
        "check",
        logdir,
        "-a",
        "every_step",
        "-b",
        "slower",
        "--metric",
        "time/step",
        "--tolerance",
        "5%",
        "--json",
    )
    assert slower.code == 1
    (check,) = slower.json()["checks"]
    median = truth["every_step"]["medianStepTime"]
    assert check["values"]["baseline"] == pytest.approx(median, rel=0.01)
    assert check["values"]["candidate"] == pytest.approx(1.1 * median, rel=0.01)
    assert check["values"]["relative"] == pytest.approx(0.1, rel=1e-3)
    within = tbmf(
        "check",
        logdir,
        "-a",
        "every_step",
        "-b",
        "slower",
        "--metric",
        "time/step",
        "--tolerance",
        "11%",
    )
    assert within.code == 0, within.out


def test_check_rejects_a_bad_tolerance(logdir):
    bad = tbmf(
        "check",
        logdir,
        "-a",
        "every_step",
        "-b",
        "slower",
        "--metric",
        "time/step",
        "--tolerance",
        "fast",
    )
    assert bad.code == 2 and "tolerance" in bad.err


def test_report_card_speed_section(logdir, tmp_path):
    card = tmp_path / "card.md"
    done = tbmf(
        "report",
        logdir,
        "-a",
        "every_step",
        "-b",
        "slower",
        "--out",
        str(card),
        "--tolerance",
        "0.05",
    )
    assert done.code == 0, done.err
    text = card.read_text()
    assert "**Speed** (derived from wall time" in text
    lines = {
        line.split("|")[2].strip(): line
        for line in text.splitlines()
        if line.startswith("| ") and "`time/" in line or "`throughput/" in line
    }
    step = next(v for k, v in lines.items() if "time/step" in k)
    assert step.startswith("| ❌ |") and "+10.0%" in step
    rate = next(v for k, v in lines.items() if "steps_per_s" in k)
    assert rate.startswith("| ❌ |") and "−9.1%" in rate
    # the curves' table leaves the speed metrics to the speed section
    assert "`time/step` ↓ |" not in text.split("**Speed**")[0]
