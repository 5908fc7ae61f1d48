"""A real `tensorboard_data_server` process, as a remote data provider.

`start_data_server(logdir)` runs the binary of the `tensorboard_data_server`
package (the Rust server TensorBoard itself starts under `--load_fast`):
`server --logdir D --port 0 --port-file F --samples-per-plugin ...`, waits
for the port file and for the logdir to be loaded, and returns its address
for `tensorboard --grpc_data_provider`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import tensorboard_data_server

_START_TIMEOUT_S = 30.0  # until the port file appears
_STOP_TIMEOUT_S = 10.0


@dataclass
class DataServer:
    process: subprocess.Popen[bytes]
    address: str  # host:port
    log: Path

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=_STOP_TIMEOUT_S)


def start_data_server(
    logdir: str,
    workdir: Path,
    *,
    samples: str = "scalars=all,histograms=all",
    cwd: Path | None = None,
) -> DataServer:
    """Starts the data server on `logdir` (relative to `cwd` if relative).

    Raises:
        RuntimeError: the server exited or wrote no port in time.
    """
    binary = tensorboard_data_server.server_binary()
    if binary is None:
        raise RuntimeError("tensorboard_data_server has no server binary")
    port_file = workdir / "data_server.port"
    log = workdir / "data_server.log"
    port_file.unlink(missing_ok=True)
    command = [
        binary,
        "--logdir",
        logdir,
        "--port",
        "0",
        "--port-file",
        str(port_file),
        "--reload",
        "1",
    ]
    if samples:
        command += ["--samples-per-plugin", samples]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not (port_file.exists() and port_file.read_text().strip()):
        if process.poll() is not None or time.monotonic() > deadline:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            raise RuntimeError(
                f"data server did not start: {log.read_text()[-2000:]}"
            )
        time.sleep(0.1)
    port = int(port_file.read_text().strip())
    return DataServer(process, f"127.0.0.1:{port}", log)
