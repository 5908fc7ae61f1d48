"""Opening files that may be anything: only regular files are read.

A name in a logdir can be a FIFO (opening it waits for a writer, forever),
a symlink to `/dev/zero` or `/dev/urandom` (reading never ends), a socket
or a device. `open_regular` opens without blocking and refuses anything
but a regular file, so no such name can stall a reload or a request.
"""

from __future__ import annotations

import io
import os
import stat

# O_NONBLOCK: a FIFO opens at once instead of waiting for a writer.
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """A path that is not a regular file (FIFO, device, socket, directory)."""


def file_kind(mode: int) -> str:
    """What a `st_mode` is, in words ("regular file", "FIFO", ...)."""
    for test, name in (
        (stat.S_ISREG, "regular file"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISDIR, "directory"),
    ):
        if test(mode):
            return name
    return "special file"


def not_regular_reason(mode: int) -> str:
    """Why a file of this mode is not read, or "" for a regular file."""
    if stat.S_ISREG(mode):
        return ""
    return f"not a regular file (a {file_kind(mode)}): not read"


def open_regular(path: str) -> io.BufferedReader:
    """Opens a regular file for binary reading, never blocking.

    Raises:
      NotRegularFile: the path (after symlinks) is not a regular file.
      OSError: it cannot be opened.
    """
    fd = os.open(path, _FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(
                0, f"not a regular file (a {file_kind(mode)})", path
            )
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
