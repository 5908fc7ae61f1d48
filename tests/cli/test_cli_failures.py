"""`tbmf` fails with one line and the README's exit code, never a traceback.

A missing logdir and bad arguments are usage errors (2); a dependency
missing or of a version that does not work is 3 (made so from outside by a
`sitecustomize.py` on PYTHONPATH that breaks the import of the package's
reading stack); Ctrl-C on `tbmf open` is 130, with TensorBoard stopped.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests.breakage import BREAK_IMPORT
from tests.cli.conftest import assert_usage_error, tbmf
from tests.conftest import DEMO_LOGS, ROOT


def _one_line(result, code, *fragments):
    assert result.code == code, (result.code, result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.err, result.err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def test_missing_logdir_is_a_usage_error(tmp_path):
    missing = str(tmp_path / "nowhere")
    for command in (
        ["list", missing],
        ["diff", missing, "a", "b"],
        ["export", missing, "--metric", "loss/train"],
        ["anomalies", missing],
    ):
        assert_usage_error(tbmf(*command), repr(missing))


def test_bad_arguments_are_usage_errors():
    assert_usage_error(tbmf("list", DEMO_LOGS, "--bogus"), "--bogus")
    assert_usage_error(tbmf(), "COMMAND")
    assert_usage_error(
        tbmf("diff", DEMO_LOGS, "pytorch_sgd", "keras_fit", "--x", "days"),
        "days",
    )


@pytest.mark.parametrize(
    ("error", "fragments"),
    [
        (
            "AttributeError(\"module 'google.protobuf.message_factory' has "
            "no attribute 'GetMessageClass'\")",
            ["does not work", "GetMessageClass", "pip install --upgrade"],
        ),
        (
            "ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')",
            ["'numpy' is not installed", "pip install --upgrade"],
        ),
    ],
)
def test_broken_dependency_is_one_line_exit_3(tmp_path, error, fragments):
    (tmp_path / "sitecustomize.py").write_text(BREAK_IMPORT.format(error=error))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), ROOT])
    for args in (["list", DEMO_LOGS], ["anomalies", DEMO_LOGS]):
        done = subprocess.run(
            [sys.executable, "-m", "tb_multiframework.cli.main", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
        )
        result = type("R", (), {})()
        result.code, result.out, result.err = (
            done.returncode,
            done.stdout,
            done.stderr,
        )
        line = _one_line(result, 3, *fragments)
        assert line.startswith("tbmf: cannot run: ")
        assert sys.executable in line
    # --help needs no reading stack: it still works.
    done = subprocess.run(
        [sys.executable, "-m", "tb_multiframework.cli.main", "list", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0 and "usage: tbmf list" in done.stdout


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_on_open_exits_130_and_stops_tensorboard():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tb_multiframework.cli.main",
            "open",
            DEMO_LOGS,
            "pytorch_sgd",
            "--quiet",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        start_new_session=True,  # its own group, as a terminal's job
        # ... with Ctrl-C's signal not ignored, as in a terminal's foreground
        # job (a shell without job control starts background commands with
        # SIGINT ignored, and a run of the suite from one passes that on).
        preexec_fn=_default_sigint,
    )
    try:
        link = process.stdout.readline()
        assert re.match(r"http://\S+#tb_multiframework", link), link
        time.sleep(0.5)
        # Ctrl-C in a terminal: SIGINT to the whole foreground group.
        os.killpg(process.pid, signal.SIGINT)
        code = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    err = process.stderr.read()
    assert code == 130, (code, err)
    assert "Traceback" not in err
    # TensorBoard, in the same group, is gone too.
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)
