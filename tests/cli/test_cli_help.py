"""`tbmf --help`: every command, examples, exit codes; a fast start."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.conftest import ROOT, assert_usage_error, tbmf

COMMANDS = ("list", "diff", "export", "report", "check", "anomalies", "open")


def test_help_lists_commands_and_exit_codes() -> None:
    result = tbmf("--help")
    assert result.code == 0, result.err
    for command in COMMANDS:
        assert re.search(rf"^\s+{command}\s", result.out, re.M), command
    codes = result.out.split("exit codes:", 1)[1]
    for code in ("0", "1", "2", "130"):
        assert re.search(rf"^\s+{code}\s", codes, re.M), code


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_help_with_examples(command: str) -> None:
    result = tbmf(command, "--help")
    assert result.code == 0, result.err
    examples = result.out.split("examples:", 1)[1]
    assert f"tbmf {command} " in examples


def test_help_names_the_axes_and_modes_core_has() -> None:
    from tb_multiframework.core.axes import AXES
    from tb_multiframework.core.smoothing import SMOOTHING_MODES

    text = tbmf("diff", "--help").out
    for axis in AXES:
        assert axis in text
    assert f"{{{','.join(SMOOTHING_MODES)}}}" in text


def test_help_imports_neither_numpy_nor_tensorboard() -> None:
    """Parsing arguments must not pay for the data stack."""
    code = (
        "import sys\n"
        "from tb_multiframework.cli.main import build_parser\n"
        "build_parser().format_help()\n"
        "heavy = [m for m in ('numpy', 'tensorboard', 'werkzeug', "
        "'google.protobuf') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert done.stdout.strip() == "", done.stdout


def test_help_time_is_printed() -> None:
    """`tbmf --help` wall time (informative; the machine is shared)."""
    started = time.monotonic()
    assert tbmf("--help").code == 0
    print(f"tbmf --help: {time.monotonic() - started:.2f} s")


def test_no_command_and_unknown_command_are_usage_errors() -> None:
    assert tbmf().code == 2
    result = tbmf("lsit", "x")
    assert result.code == 2
    assert "Traceback" not in result.err


def test_missing_logdir_is_one_line() -> None:
    assert_usage_error(
        tbmf("list", "/nonexistent/logdir"), "'/nonexistent/logdir'"
    )


def test_unknown_axis_names_the_axes(demo_logdir: str) -> None:
    assert_usage_error(
        tbmf("diff", demo_logdir, "pytorch_sgd", "paddle_tbx", "--x", "epochs"),
        "unknown axis 'epochs'",
        "step, epoch, relative, wall, progress",
    )


def test_open_state_keys_match_the_frontend() -> None:
    """The deep link's keys are the ones state.js and the Compare view read."""
    from tb_multiframework.cli import open_tb

    state = (Path(ROOT) / "frontend" / "state.js").read_text()
    compare = (
        Path(ROOT) / "frontend" / "views" / "compare" / "viewstate.js"
    ).read_text()
    assert f'PLUGIN_ID = "{open_tb.PLUGIN_ID}"' in state
    assert f'PARENT_PREFIX = "{open_tb.PARENT_PREFIX}"' in state
    assert f'view: "{open_tb.STATE_KEYS["view"]}"' in state
    assert f'selection: "{open_tb.STATE_KEYS["selection"]}"' in state
    for key in ("metric", "axis", "baseline"):
        assert f'{key}: "{open_tb.STATE_KEYS[key]}"' in compare, key
