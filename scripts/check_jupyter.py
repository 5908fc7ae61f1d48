"""Checks the tab inside Jupyter's `%tensorboard`, once, with real parts.

What it does (all local, nothing is installed by it):
1. starts a real Jupyter server (token off, root in a temp dir) with
   jupyter-server-proxy, so `/proxy/<port>/` reaches local ports as on a
   JupyterHub;
2. writes a notebook: `%load_ext tensorboard` then
   `%tensorboard --logdir <copy of demo_logs>`, once as on a laptop
   (TensorBoard's iframe points at its own port) and once behind the proxy
   (`TENSORBOARD_PROXY_URL=/proxy/%PORT%/`, TensorBoard's documented setting
   for a proxied Jupyter);
3. opens it in Jupyter's own UI (Notebook 7) in Chromium, Run > Run All
   Cells on a real IPython kernel, clicks the MULTIFRAMEWORK tab inside
   TensorBoard inside the cell's output, checks that the Runs table lists
   every run and that Compare draws its chart, and saves a screenshot.

`%tensorboard` starts the `tensorboard` binary with PYTHONPATH removed, so
it serves the plugin installed in that Python; to check this checkout's
plugin instead, the script points TensorBoard's TENSORBOARD_BINARY at a
wrapper that puts this checkout first on the path.

Usage (Jupyter needs: pip install notebook ipykernel jupyter-server-proxy):
    python scripts/check_jupyter.py [--out tests/e2e/screenshots/jupyter]
The plugin is the one on PYTHONPATH (run it with PYTHONPATH=<checkout>).
Exit status 0 when both modes pass.
"""

from __future__ import annotations

import argparse
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

import nbformat
from playwright.sync_api import Frame, Page, sync_playwright

REPO = Path(__file__).resolve().parents[1]
DEMO_LOGS = REPO / "demo_logs"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
PLUGIN = "tb_multiframework"
_TIMEOUT_MS = 120_000


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_jupyter(root: Path, port: int) -> subprocess.Popen[bytes]:
    jupyter = Path(sys.executable).with_name("jupyter")
    process = subprocess.Popen(
        [
            str(jupyter),
            "server",
            "--no-browser",
            f"--port={port}",
            "--ip=127.0.0.1",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            # CI and this machine run as root; the script's own REST calls
            # (shutting its kernels down) carry no XSRF cookie.
            "--allow-root",
            "--ServerApp.disable_check_xsrf=True",
            f"--ServerApp.root_dir={root}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2)
            return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError("the Jupyter server did not start")


def _write_notebook(
    path: Path, logdir: Path, tb_port: int, proxy: bool
) -> None:
    """The notebook a user would write; behind a proxy TensorBoard is told
    its public path with its documented TENSORBOARD_PROXY_URL."""
    cells = []
    if proxy:
        cells.append(
            nbformat.v4.new_code_cell(
                'import os\nos.environ["TENSORBOARD_PROXY_URL"] = "/proxy/%PORT%/"'
            )
        )
    cells.append(nbformat.v4.new_code_cell("%load_ext tensorboard"))
    cells.append(
        nbformat.v4.new_code_cell(
            f"%tensorboard --logdir {logdir} --port {tb_port}"
        )
    )
    notebook = nbformat.v4.new_notebook()
    notebook.cells = cells
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, str(path))


def _notebook_kernel_idle(sessions: list[dict], notebook: str) -> bool:
    """Whether this notebook's own kernel is idle: the server also lists the
    sessions of notebooks opened before (the direct mode's, still idle,
    while the proxy mode's kernel is starting)."""
    return any(
        session.get("path") == notebook
        and session["kernel"]["execution_state"] == "idle"
        for session in sessions
    )


def _run_all_cells(page: Page, url: str, api: str, notebook: str) -> None:
    """Opens the notebook in Jupyter's own UI and runs every cell, as a
    user does (Run > Run All Cells) once its kernel is idle."""
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=_TIMEOUT_MS)
    deadline = time.monotonic() + _TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        # Jupyter may ask which kernel to start: the default one.
        select = page.query_selector('.jp-Dialog button:has-text("Select")')
        if select:
            select.click()
        with urllib.request.urlopen(f"{api}/sessions", timeout=10) as response:
            sessions = json.loads(response.read())
        if _notebook_kernel_idle(sessions, notebook):
            break
        time.sleep(0.5)
    else:
        raise RuntimeError("the notebook's kernel never became idle")
    page.click('.lm-MenuBar-itemLabel:text-is("Run")')
    page.click('.lm-Menu-itemLabel:text-is("Run All Cells")')


def _plugin_frame(page: Page) -> Frame:
    deadline = time.monotonic() + _TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        for frame in page.frames:
            if f"plugin_entry.html?name={PLUGIN}" in frame.url:
                return frame
        # TensorBoard's own frame: click our tab once it is there.
        for frame in page.frames:
            tab = frame.query_selector(
                f'.plugin-name[data-plugin-id="{PLUGIN}"]'
            )
            if tab:
                tab.click()
        time.sleep(0.5)
    page.screenshot(path="/tmp/check_jupyter_failure.png")
    raise RuntimeError(
        "the plugin's iframe never appeared (frames: "
        + ", ".join(frame.url for frame in page.frames)
        + "; screenshot /tmp/check_jupyter_failure.png)"
    )


def _check(
    page: Page, notebook: str, port: int, shot: Path, runs: list[str]
) -> dict:
    base = f"http://localhost:{port}"
    _run_all_cells(
        page, f"{base}/notebooks/{notebook}", f"{base}/api", notebook
    )
    frame = _plugin_frame(page)
    frame.wait_for_selector(".tbmf-app", timeout=_TIMEOUT_MS)
    frame.wait_for_selector("tr.tbmf-run-row", timeout=_TIMEOUT_MS)
    shown = frame.eval_on_selector_all(
        "tr.tbmf-run-row", "rows => rows.map(r => r.dataset.run)"
    )
    frame.click('.tbmf-tab[data-view="compare"]')
    frame.wait_for_selector(
        '.tbmf-cmp-panel[data-state="ready"] .tbmf-chart .u-over',
        timeout=_TIMEOUT_MS,
    )
    series = frame.evaluate(
        """() => document.querySelector('.tbmf-cmp-panel .tbmf-chart')
             .tbmfChart.slots.length"""
    )
    # Served from this checkout (the static files' URL says which build).
    index = frame.evaluate(
        """async () => (await fetch(new URL("static/prefs.js",
             document.baseURI))).status"""
    )
    page.screenshot(path=str(shot))
    return {
        "runs_listed": sorted(shown) == sorted(runs),
        "this_checkout": index == 200,
        "compare_series": series,
        "plugin_url": frame.url,
    }


def _tensorboard_python() -> str:
    """The Python running this script: the one whose packages (TensorBoard,
    Jupyter) it uses. In a venv that is the venv's, not `sys.base_prefix`'s,
    which has none of them."""
    return sys.executable


def _demo_runs(logdir: Path) -> list[str]:
    """Run names as TensorBoard names them: directories holding event or
    VisualDL files, relative to the logdir."""
    runs = set()
    for path in logdir.rglob("*"):
        if path.is_file() and (
            path.name.startswith("events.out.tfevents")
            or path.name.startswith("vdlrecords")
        ):
            runs.add(str(path.parent.relative_to(logdir)))
    return sorted(runs)


def _descendants(pid: int) -> list[int]:
    """Every process below `pid` (kernels, the TensorBoards they started,
    TensorBoard's data server), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _stop_server_and_children(server: subprocess.Popen[bytes]) -> None:
    """Stops the Jupyter server and everything it started, by pid."""
    below = _descendants(server.pid)
    for pid in [server.pid, *below]:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(
        os.path.exists(f"/proc/{pid}") for pid in below
    ):
        time.sleep(0.3)
    for pid in below:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--out", default=str(REPO / "tests" / "e2e" / "screenshots" / "jupyter")
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        logdir = root / "demo_logs"
        shutil.copytree(DEMO_LOGS, logdir)
        runs = _demo_runs(logdir)
        wrapper = root / "tensorboard-this-checkout"
        wrapper.write_text(
            "#!/bin/sh\n"
            f'PYTHONPATH={REPO} exec {_tensorboard_python()} -m tensorboard.main "$@"\n'
        )
        wrapper.chmod(0o755)
        os.environ["TENSORBOARD_BINARY"] = str(wrapper)
        jupyter_port = _free_port()
        jupyter = _start_jupyter(root, jupyter_port)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=CHROMIUM, args=CHROMIUM_ARGS
                )
                for mode in ("direct", "proxy"):
                    tb_port = _free_port()
                    _write_notebook(
                        root / f"{mode}.ipynb", logdir, tb_port, mode == "proxy"
                    )
                    context = browser.new_context(
                        viewport={"width": 1300, "height": 1100}
                    )
                    page = context.new_page()
                    errors: list[str] = []
                    page.on(
                        "console",
                        lambda m, e=errors: (
                            e.append(m.text) if m.type == "error" else None
                        ),
                    )
                    page.on("pageerror", lambda x, e=errors: e.append(str(x)))
                    result = _check(
                        page,
                        f"{mode}.ipynb",
                        jupyter_port,
                        out / f"jupyter_{mode}.png",
                        runs,
                    )
                    result["errors"] = [
                        e for e in errors if PLUGIN in e or "tbmf" in e
                    ]
                    results[mode] = result
                    context.close()
                browser.close()
        finally:
            _stop_server_and_children(jupyter)
    print(json.dumps(results, indent=1))
    ok = all(
        r["runs_listed"] and r["this_checkout"] and r["compare_series"] > 0
        for r in results.values()
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
