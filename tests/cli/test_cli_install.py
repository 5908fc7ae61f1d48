"""`pip install .` installs the `tbmf` console script, and the installed
command works from outside the source tree (the HTML report finds the
vendored uPlot inside the installed package)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

from tests.buildlock import building
from tests.cli.conftest import DEMO_LOGS
from tests.conftest import SOURCE


def test_wheel_installs_a_working_tbmf(tmp_path) -> None:
    dist, target = tmp_path / "dist", tmp_path / "site"
    with building(SOURCE):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                SOURCE,
                "--no-deps",
                "-q",
                "-w",
                str(dist),
            ],
            check=True,
            cwd=tmp_path,
        )
    (wheel,) = dist.glob("tb_multiframework-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        (entry,) = [
            n for n in archive.namelist() if n.endswith("entry_points.txt")
        ]
        text = archive.read(entry).decode()
    assert (
        "[console_scripts]\ntbmf = tb_multiframework.cli.main:entry_point"
        in text
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        cwd=tmp_path,
    )
    script = target / "bin" / "tbmf"
    assert script.is_file()
    # The installed package, not the checkout: run elsewhere, with only the
    # install directory on the path (tensorboard and numpy from site).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    shown = run("--help")
    assert shown.returncode == 0 and "exit codes:" in shown.stdout
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import tb_multiframework.cli; "
            "print(tb_multiframework.cli.__file__)",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    ).stdout
    assert where.startswith(str(target)), where
    page = tmp_path / "r.html"
    made = run(
        "report",
        DEMO_LOGS,
        "-a",
        "pytorch_sgd",
        "-b",
        "paddle_tbx",
        "--metric",
        "loss/val",
        "--out",
        str(page),
    )
    assert made.returncode == 0, made.stderr
    assert "uPlot.join = join" in page.read_text()
