"""Names from the logs never reach a terminal raw (issue 20, point 10).

`tbmf diff` printed metric names as they are, and `tbmf export` to a
terminal wrote run and tag names into the CSV as they are: an ESC starts a
terminal escape sequence (here one that would clear the screen and retitle
the window), a backspace rubs out what was printed, U+202E reverses what
follows. On a terminal every such character is shown escaped; a pipe or a
file still gets the export's bytes unchanged.

Tree::

    logdir/a/events...  tag "Loss\\x1b[2J\\x1b]0;pwned\\x07\\u202e\\b/train"
    logdir/b/events...  the same tag, other values
"""

import os
import pty
import select
import subprocess
import sys

from tests.cli.conftest import tbmf, write_run
from tests.conftest import ROOT

TAG = "Loss\x1b[2J\x1b]0;pwned\x07\u202e\b/train"
RAW = ("\x1b", "\x07", "\u202e", "\b")


def _logdir(tmp_path):
    write_run(tmp_path, "a", {TAG: [(s, 1.0 / (1 + s)) for s in range(20)]})
    write_run(tmp_path, "b", {TAG: [(s, 2.0 / (1 + s)) for s in range(20)]})
    return str(tmp_path)


def _on_terminal(*args):
    """Runs tbmf with stdout on a pseudo-terminal; returns what it showed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tb_multiframework.cli.main", *args],
        stdout=follower,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ, PYTHONPATH=ROOT),
        cwd=ROOT,
    )
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    process.wait(timeout=120)
    os.close(leader)
    assert process.returncode == 0, process.stderr.read()
    return seen.decode("utf-8")


def test_diff_escapes_metric_names(tmp_path):
    logdir = _logdir(tmp_path)
    out = tbmf("diff", logdir, "a", "b").out
    assert "loss" in out.lower()
    assert not any(ch in out for ch in RAW), repr(out)
    assert "\\x1b[2J" in out and "\\u202e" in out


def test_export_to_a_terminal_is_escaped_but_a_pipe_gets_the_bytes(tmp_path):
    logdir = _logdir(tmp_path)
    shown = _on_terminal("export", logdir, "--run", "a", "--tag", TAG)
    assert not any(ch in shown for ch in RAW), repr(shown)
    assert "\\x1b[2J" in shown and "\\u202e" in shown
    assert len([line for line in shown.splitlines() if "\\x1b" in line]) == 20
    piped = tbmf("export", logdir, "--run", "a", "--tag", TAG).out
    assert piped.count(TAG) == 20  # data unchanged for files and pipes
