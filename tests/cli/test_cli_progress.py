"""The progress bar: on a terminal when reading takes over a second, never
when stderr is piped; the loader reports every byte it reads."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from tb_multiframework.cli import common
from tests.cli.conftest import DEMO_LOGS, ROOT


def test_loader_reports_every_byte(demo_logdir) -> None:
    from tb_multiframework import wiring

    calls: list[tuple[int, int]] = []
    stack = wiring.build_stack(demo_logdir, layouts=False)
    stack.loader.reload(
        progress=lambda done, total: calls.append((done, total))
    )
    sizes = sum(
        p.stat().st_size
        for p in Path(demo_logdir).rglob("*")
        if p.is_file()
        and ("tfevents" in p.name or p.name.startswith("vdlrecords"))
    )
    assert calls[-1] == (sizes, sizes)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    again: list[tuple[int, int]] = []
    stack.loader.reload(progress=lambda d, t: again.append((d, t)))
    assert again == []  # nothing new to read


def test_bar_text() -> None:
    stream = io.StringIO()
    bar = common.Progress("reading runs", enabled=False, stream=stream)
    bar.update(25_000_000, 100_000_000)
    line = bar.line(80)
    assert line.startswith("tbmf: reading runs [")
    assert " 25% 25.0/100.0 MB " in line and len(line) <= 80
    filled, empty = line.count("#"), line.count("-")
    assert abs(filled / (filled + empty) - 0.25) <= 1 / (filled + empty)
    bar.update(3_000_000, 0)  # remote files: size unknown
    assert bar.line(80).startswith("tbmf: reading runs 3.0 MB")


_SLOW_READ_S = 0.15  # seconds each remote read waits


def _command() -> list[str]:
    helper = os.path.join(ROOT, "tests", "cli", "slow_remote.py")
    return [sys.executable, helper, DEMO_LOGS, str(_SLOW_READ_S), "list"]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=ROOT)


def test_bar_on_a_terminal_when_reading_is_slow() -> None:
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        _command(),
        stdout=subprocess.PIPE,
        stderr=follower,
        stdin=subprocess.DEVNULL,
        env=_env(),
        cwd=ROOT,
    )
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    out = process.communicate(timeout=120)[0].decode()
    os.close(leader)
    assert process.returncode == 0
    text = seen.decode()
    # remote files have no known size: the bar counts bytes and seconds
    assert "\rtbmf: reading slowmem://logs " in text, text
    assert " MB " in text
    assert text.endswith("\r\x1b[K"), text  # cleared at the end
    assert "pytorch_sgd" in out


def test_no_bar_when_stderr_is_piped() -> None:
    started = time.monotonic()
    done = subprocess.run(
        _command(), capture_output=True, env=_env(), cwd=ROOT, timeout=120
    )
    assert time.monotonic() - started > 1.5  # it was slow
    assert done.returncode == 0
    assert done.stderr == b""
    assert b"pytorch_sgd" in done.stdout
