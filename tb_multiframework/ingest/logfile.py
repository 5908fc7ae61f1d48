"""One log file being read incrementally: offset, pending bytes, identity.

A file is read from where the last reload stopped. That is only right while
it is the same file, grown: a file replaced (renamed over), truncated and
written again, or rewritten in place (same size, even with its modification
time restored) would otherwise be read from the old offset, its new content
never seen, or a mix of old and new points served that was never on disk.
So each file keeps its identity:

- local files: device and inode (where the filesystem gives a stable,
  non-zero inode), and three samples of the bytes already read: the first
  `FINGERPRINT_BYTES`, the last `TAIL_BYTES` consumed (the end of the last
  record read, a tfevents record's CRC included) together with the pending
  bytes after them, and `SAMPLE_BYTES` blocks at positions 4 KiB · 4^k
  (4 KiB, 16 KiB, 64 KiB, ... : one per factor of 4 of the file's size)
  kept as CRC32s. Every reload checks them with a few small `pread`s per
  file (about 1 KiB for a 100 MB file), whatever the size or time say, so
  a rewrite with the same size and a restored time is caught; the file is
  never read again whole to check it.
- remote files (`gs://`, `s3://`, ... through TensorBoard's gfile): gfile's
  stat gives only a length, and object stores rewrite an object on every
  flush (its generation or ETag changes on each append too), so the first
  bytes are the identity: they are read again whenever new bytes arrive.

The first record of every writer's file differs between two files (the
tfevents `file_version` event carries its wall time, VisualDL's first scalar
its millisecond timestamp), and the last record read carries the newest
step and time, so a rewritten file shows in the samples.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from typing import Any

from tb_multiframework.settings.regular import open_regular

READ_BYTES = 32 << 20  # bytes read from a file at once
MAX_WARNINGS = 20  # per file; more are counted, not listed
FINGERPRINT_BYTES = 256  # bytes at the start of a file kept as its identity
TAIL_BYTES = 256  # bytes before the read offset kept, checked every reload
PENDING_CHECK_BYTES = 4096  # of the pending bytes, checked every reload
SAMPLE_BYTES = 256  # bytes of each sampled block (kept as a CRC32)
_FIRST_SAMPLE = 4096  # sampled blocks start at 4 KiB * 4**k


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

    # Identity samples (class defaults: reader states cached by an older
    # version of this class lack them, and then are checked from the next
    # read on).
    _tail = b""  # the last TAIL_BYTES consumed, ending at `offset`
    _samples: tuple[tuple[int, int], ...] = ()  # (position, CRC32)

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

    @property
    def consumed_tail(self) -> bytes:
        """The last bytes consumed, ending at `offset` (the end of the last
        record read, or of skipped damage)."""
        return self._tail

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
          but bytes already read changed), or "" (grown or unchanged).
          Remote files are checked as they are read (`Rewritten`).
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
        try:
            if not self._same_bytes():
                return "rewritten"
        except OSError:
            return ""  # unreadable now: reading it says so
        self._stamp = (stat.st_size, stat.st_mtime_ns)
        return ""

    def _same_bytes(self) -> bool:
        """Whether the samples of the bytes already read are still there."""
        if not (self._fingerprint or self._tail or self.pending):
            return True
        with open_regular(local(self.path)) as handle:
            fd = handle.fileno()
            head = self._fingerprint
            if head and os.pread(fd, len(head), 0) != head:
                return False
            start = self.offset - len(self._tail)
            expected = self._tail + self.pending[:PENDING_CHECK_BYTES]
            if expected and os.pread(fd, len(expected), start) != expected:
                return False
            for position, crc in self._samples:
                block = os.pread(fd, SAMPLE_BYTES, position)
                if len(block) != SAMPLE_BYTES or zlib.crc32(block) != crc:
                    return False
        return True

    def advance(self, buf: bytes, consumed: int) -> None:
        """Moves past `consumed` bytes of `buf` (read at `offset`); the
        rest stays pending. Keeps the identity samples of what was read."""
        if consumed:
            view = memoryview(buf)[:consumed]
            start = self.offset - len(self._tail)  # where `window` starts
            end = self.offset + consumed
            window_tail = bytes(view[-TAIL_BYTES:])
            if len(window_tail) < TAIL_BYTES:
                window_tail = (self._tail + window_tail)[-TAIL_BYTES:]
            samples = list(self._samples)
            position = _FIRST_SAMPLE * 4 ** len(samples)
            while position + SAMPLE_BYTES <= end:
                # The block lies in tail + consumed bytes: TAIL_BYTES >=
                # SAMPLE_BYTES, and earlier blocks were taken earlier.
                lo = position - start
                if lo >= len(self._tail):
                    block = bytes(
                        view[lo - len(self._tail) : lo - len(self._tail)
                             + SAMPLE_BYTES]
                    )
                else:
                    block = (self._tail[lo:] + bytes(view[:SAMPLE_BYTES]))[
                        :SAMPLE_BYTES
                    ]
                samples.append((position, zlib.crc32(block)))
                position *= 4
            self._samples = tuple(samples)
            self._tail = window_tail
            self.offset = end
        self.pending = buf[consumed:]

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
        with open_regular(local(self.path)) as handle:
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
