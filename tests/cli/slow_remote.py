"""Runs `tbmf` on a remote logdir whose reads take time, as S3's do.

Usage: python tests/cli/slow_remote.py LOCAL_LOGDIR DELAY_S TBMF_ARGS...

The local logdir is copied into an fsspec in-memory filesystem registered
as `slowmem://`, whose file reads wait DELAY_S each; TensorBoard's gfile
reaches it through fsspec, as it reaches `s3://` or `gs://`. The command
then runs on `slowmem://logs`, in this process.
"""

from __future__ import annotations

import os
import sys
import time

import fsspec
from fsspec.implementations.memory import MemoryFileSystem

PROTOCOL = "slowmem"


class SlowMemoryFileSystem(MemoryFileSystem):
    """In-memory files whose every read waits `delay` seconds."""

    protocol = PROTOCOL
    delay = 0.0

    @classmethod
    def _strip_protocol(cls, path: str) -> str:
        if path.startswith(f"{PROTOCOL}://"):
            path = path[len(PROTOCOL) + 3 :]
        return MemoryFileSystem._strip_protocol(path)

    def _open(self, path, mode="rb", **kwargs):  # noqa: ANN001, ANN202
        handle = super()._open(path, mode, **kwargs)
        if "r" in mode:
            read = handle.read

            def slow_read(*args):  # noqa: ANN002, ANN202
                time.sleep(self.delay)
                return read(*args)

            handle.read = slow_read
        return handle


def main() -> int:
    source, delay, args = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    SlowMemoryFileSystem.delay = delay
    fsspec.register_implementation(PROTOCOL, SlowMemoryFileSystem, clobber=True)
    fs = SlowMemoryFileSystem()
    for directory, _, names in os.walk(source):
        for name in names:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, source).replace(os.sep, "/")
            with open(path, "rb") as handle:
                fs.pipe(f"/logs/{relative}", handle.read())
    from tb_multiframework.cli.main import main as tbmf_main

    return tbmf_main([args[0], f"{PROTOCOL}://logs", *args[1:]])


if __name__ == "__main__":
    sys.exit(main())
