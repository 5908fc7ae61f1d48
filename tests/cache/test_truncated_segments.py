"""A cache segment truncated while the server runs never kills it.

Regression (issue 20, point 1): segments were memory-mapped, and touching a
mapped page past the new end of a truncated file raises SIGBUS, which kills
the process (Python cannot catch it). The check runs in a child process so
a crash shows as its exit status instead of ending the test session.
"""

import os
import subprocess
import sys

from tests import eventfiles
from tests.conftest import ROOT

_CHILD = """
import glob, os, sys
from tb_multiframework.wiring import build_stack

logdir, cache = sys.argv[1], sys.argv[2]
build_stack(logdir, cache_dir=cache, layouts=False).loader.reload()
stack = build_stack(logdir, cache_dir=cache, layouts=False)
stack.loader.reload()
print("restored", stack.loader.status().to_json()["cache"]["restoredRuns"])
segments = glob.glob(os.path.join(cache, "*", "*.seg"))
for path in segments:
    os.truncate(path, 0)  # what a `> file` or a cleaner would do
print("truncated", len(segments))
values = stack.store.scalars("run", "loss").values
print("values", len(values), float(values.sum()))
"""


def test_truncating_segments_under_a_running_process(tmp_path):
    n = 5000
    payloads = [eventfiles.file_version_event()] + [
        eventfiles.scalar_event("loss", i, 1000.0 + i, i * 0.5) for i in range(n)
    ]
    eventfiles.write(
        str(tmp_path / "logs" / "run" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes(payloads),
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            str(tmp_path / "logs"),
            str(tmp_path / "cache"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    lines = done.stdout.splitlines()
    assert lines[0] == "restored 1"
    assert lines[1] != "truncated 0"
    # Every point, as written: sum of i * 0.5 for i < n.
    assert lines[2] == f"values {n} {sum(i * 0.5 for i in range(n))}"
