"""Smoke check of an installed tb-multiframework (the compatibility leg).

Run with the Python of the environment to check (stdlib only, Python 3.10+):
    python .ci/smoke.py demo_logs
1. starts a real `tensorboard --logdir <copy of demo_logs>` on a free port
   and GETs the tab's `runs` route until loading is done; the runs it lists
   must be the directories of demo_logs holding event or VisualDL files
   (counted here from the file names);
2. runs `tbmf list <copy>` and `tbmf list --json <copy>`: exit 0, no
   traceback, the same runs.
Prints one line per check; exit status 0 when both pass.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

_START_TIMEOUT_S = 180


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def expected_runs(logdir: Path) -> list[str]:
    """Run names as TensorBoard names them: directories holding event or
    VisualDL files, relative to the logdir."""
    runs = set()
    for path in logdir.rglob("*"):
        if path.is_file() and path.name.startswith(
            ("events.out.tfevents", "vdlrecords")
        ):
            runs.add(str(path.parent.relative_to(logdir)))
    return sorted(runs)


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def check_tensorboard(logdir: Path, expected: list[str]) -> str:
    port = _free_port()
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [_bin("tensorboard"), "--logdir", str(logdir), "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/data/plugin/tb_multiframework/runs"
    try:
        deadline = time.monotonic() + _START_TIMEOUT_S
        body: dict = {}
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    body = json.loads(response.read())
                if not body.get("loading") and body.get("runs"):
                    break
            except OSError:
                pass
            time.sleep(1)
        if process.poll() is not None:
            log.seek(0)
            raise AssertionError(
                f"tensorboard exited {process.returncode}:\n"
                + log.read().decode(errors="replace")[-3000:]
            )
        listed = sorted(run["run"] for run in body.get("runs", []))
        if listed != expected:
            raise AssertionError(f"runs route listed {listed}, not {expected}")
        return f"GET runs: {len(listed)} runs, as on disk"
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def check_cli(logdir: Path, expected: list[str]) -> str:
    outputs = []
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [_bin("tbmf"), "list", str(logdir), *extra],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or "Traceback" in done.stderr:
            raise AssertionError(
                f"tbmf list {' '.join(extra)} exited {done.returncode}:\n"
                + done.stderr[-3000:]
            )
        outputs.append(done.stdout)
    listed = sorted(run["run"] for run in json.loads(outputs[1])["runs"])
    if listed != expected:
        raise AssertionError(f"tbmf list --json: {listed}, not {expected}")
    return (
        f"tbmf list (table and --json): exit 0, {len(listed)} runs, as on disk"
    )


def main() -> int:
    source = Path(sys.argv[1] if len(sys.argv) > 1 else "demo_logs")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        # The tab's cache and a writable copy: nothing lands in the checkout.
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        logdir = Path(tmp) / "demo_logs"
        shutil.copytree(source, logdir)
        expected = expected_runs(logdir)
        for check in (check_tensorboard, check_cli):
            try:
                print(f"ok   {check(logdir, expected)}", flush=True)
            except AssertionError as error:
                print(f"FAIL {check.__name__}: {error}", flush=True)
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
