"""One log file being read incrementally: offset, pending bytes, identity.

A file is read from where the last reload stopped. That is only right while
it is the same file, grown: a file replaced (renamed over) or truncated and
written again with as many bytes or more would otherwise be read from the
old offset, its new start never seen. So each file keeps its identity:

- local files: device and inode (where the filesystem gives a stable,
  non-zero inode), the size and modification time last seen, and the first
  `FINGERPRINT_BYTES` bytes read. A stat per file per reload (the loader
  already made one) tells growth apart from replacement; the first bytes are
  read again only when the size or time changed, never the whole file.
- remote files (`gs://`, `s3://`, ... through TensorBoard's gfile): gfile's
  stat gives only a length, and object stores rewrite an object on every
  flush (its generation or ETag changes on each append too), so the first
  bytes are the identity: they are read again whenever new bytes arrive.

The first record of every writer's file differs between two files (the
tfevents `file_version` event carries its wall time, VisualDL's first scalar
its millisecond timestamp), so a rewritten file shows in its first bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

READ_BYTES = 32 << 20  # bytes read from a file at once
MAX_WARNINGS = 20  # per file; more are counted, not listed
FINGERPRINT_BYTES = 256  # bytes at the start of a file kept as its identity


def is_remote(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def local(path: str) -> str:
    return path[len("file://") :] if path.startswith("file://") else path


def gfile() -> Any:
    from tensorboard.compat import tf  # noqa: PLC0415 - heavy, remote only

    return tf.io.gfile


class Rewritten(Exception):
    """A remote file's first bytes changed: it is another file now."""


class LogFile:
    """Reading state of one log file.

    Attributes:
      offset: bytes of the file consumed into records.
      pending: bytes read past `offset`, not yet a record.
      damaged_tail: `pending` follows corrupt bytes.
      need: bytes the pending record needs in all, once known.
      searched: pending bytes known to hold no record start.
    """

    def __init__(self, path: str, name: str, fmt: str) -> None:
        self.path = path
        self.name = name
        self.format = fmt
        self.offset = 0
        self.pending = b""
        self.damaged_tail = False
        self.need = 0
        self.searched = 0
        self.problems: list[str] = []
        self.dropped_problems = 0
        self.remote_handle: Any = None
        self._identity: tuple[int, int] | None = None  # (st_dev, st_ino)
        self._stamp: tuple[int, int] | None = None  # (size, mtime in ns)
        self._fingerprint = b""  # the file's first bytes, as read

    def note(self, problem: str) -> None:
        if len(self.problems) < MAX_WARNINGS:
            self.problems.append(problem)
        else:
            self.dropped_problems += 1

    def warnings(self) -> list[str]:
        out = [f"{self.name}: {problem}" for problem in self.problems]
        if self.dropped_problems:
            out.append(f"{self.name}: {self.dropped_problems} more problems")
        if self.pending and not self.damaged_tail:
            out.append(f"{self.name}: {self._pending_note()}")
        return out

    def _pending_note(self) -> str:
        have = len(self.pending)
        header = 8 if self.format == "visualdl" else 12
        if have < header:
            return (
                f"ends with {have} bytes, fewer than a record header "
                f"({header} bytes): the start of a record being written, or "
                "bytes left by an interrupted write; read once a whole "
                "record follows"
            )
        return (
            f"ends with an incomplete record ({have} of its {self.need} "
            "bytes; still being written, or the writer stopped); it is "
            "read once complete"
        )

    def change(self) -> str:
        """How a local file changed other than by growing, or "".

        Returns:
          "replaced" (another file has its name: device or inode differ),
          "shrank" (shorter than what was read), "rewritten" (same file,
          but its first bytes changed), or "" (grown or unchanged). Remote
          files are checked as they are read (`Rewritten`).
        """
        if is_remote(self.path):
            return ""
        try:
            stat = os.stat(local(self.path))
        except OSError:
            return ""
        identity = _identity(stat)
        if self._identity and identity and identity != self._identity:
            return "replaced"
        if stat.st_size < self.offset + len(self.pending):
            return "shrank"
        stamp = (stat.st_size, stat.st_mtime_ns)
        if self._fingerprint and stamp != self._stamp:
            try:
                with open(local(self.path), "rb") as handle:
                    head = handle.read(len(self._fingerprint))
            except OSError:
                return ""
            if head != self._fingerprint:
                return "rewritten"
        self._stamp = stamp
        return ""

    def read_new(self) -> Iterator[bytes]:
        """Yields the bytes that arrived since the last read, in pieces.

        Raises:
          Rewritten: a remote file whose first bytes changed.
          OSError: the file cannot be read.
        """
        position = self.offset + len(self.pending)
        if is_remote(self.path):
            yield from self._read_remote(position)
            return
        with open(local(self.path), "rb") as handle:
            stat = os.fstat(handle.fileno())
            self._identity = self._identity or _identity(stat)
            self._stamp = (stat.st_size, stat.st_mtime_ns)
            handle.seek(position)
            while True:
                data = handle.read(READ_BYTES)
                if not data:
                    return
                self._extend_fingerprint(position, data)
                position += len(data)
                yield data

    def _read_remote(self, position: int) -> Iterator[bytes]:
        if self.remote_handle is None:
            self.remote_handle = gfile().GFile(self.path, "rb")
        first = True
        while True:
            data = self.remote_handle.read(READ_BYTES)
            if not data:
                return
            if first and self._fingerprint:
                with gfile().GFile(self.path, "rb") as handle:
                    head = handle.read(len(self._fingerprint))
                if head != self._fingerprint:
                    raise Rewritten(self.name)
            first = False
            self._extend_fingerprint(position, data)
            position += len(data)
            yield data

    def _extend_fingerprint(self, position: int, data: bytes) -> None:
        """Keeps the first bytes of the file while they are being read."""
        have = len(self._fingerprint)
        if position == have < FINGERPRINT_BYTES:
            self._fingerprint += data[: FINGERPRINT_BYTES - have]


def _identity(stat: os.stat_result) -> tuple[int, int] | None:
    """(device, inode), or None where the filesystem gives no inode."""
    return (stat.st_dev, stat.st_ino) if stat.st_ino else None
