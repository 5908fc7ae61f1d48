"""Segment files: numpy arrays plus a JSON header, checked, read whole.

Layout (little-endian):
```
b"TBMFSEG\\0"  u32 format version  u32 header bytes  u32 header CRC32
header (UTF-8 JSON: {"meta": ..., "arrays": [[name, dtype, count, offset]],
                     "dataBytes": n, "dataCrc": crc32 of the data})
padding to 64 bytes, then the data: each array 64-byte aligned
```
A segment is written to a temporary file in its directory and renamed into
place, so a reader sees a whole segment or none; two writers never share a
temporary name. Reading copies the file into memory and checks sizes and
both CRCs before any array is handed out: a truncated, corrupt or foreign
file raises `CacheError`, never yields data. The file is not memory-mapped:
a mapped file truncated by anyone while the server runs kills the process
with SIGBUS on the next access, which no Python code can catch.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import zlib
from typing import Any, Mapping

import numpy as np

from tb_multiframework.settings.regular import open_regular

MAGIC = b"TBMFSEG\0"
FORMAT_VERSION = 2  # 2: attempt trackers keep each tag's largest step
_PREFIX = struct.Struct("<8sIII")  # magic, version, header bytes, header CRC
_ALIGN = 64  # bytes; array starts are aligned to this
_MAX_HEADER_BYTES = 64 << 20  # a larger header is corruption
_DTYPES = frozenset(
    ("int8", "int16", "int32", "int64", "uint8", "float32", "float64")
)


class CacheError(Exception):
    """A cache file that cannot be trusted (corrupt, truncated, foreign)."""


def _aligned(offset: int) -> int:
    return -(-offset // _ALIGN) * _ALIGN


def write_segment(
    path: str, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]
) -> int:
    """Writes a segment atomically (temporary file + rename); returns bytes.

    Raises:
      OSError: the directory is not writable or the disk is full; nothing
        is left behind.
    """
    table: list[tuple[str, str, int, int]] = []
    offset = 0
    contiguous = {}
    for name, array in arrays.items():
        data = np.ascontiguousarray(array)
        if data.dtype.name not in _DTYPES or data.ndim != 1:
            raise ValueError(f"array {name!r}: {data.dtype}{data.shape}")
        offset = _aligned(offset)
        table.append((name, data.dtype.name, int(data.size), offset))
        contiguous[name] = data
        offset += data.nbytes
    data_bytes = offset
    # The data section as written, padding included, is what the CRC covers.
    pieces: list[bytes | memoryview] = []
    written = 0
    for (_, _, _, start), data in zip(table, contiguous.values()):
        pieces.append(b"\0" * (start - written))
        pieces.append(data.data.cast("B"))
        written = start + data.nbytes
    crc = 0
    for piece in pieces:
        crc = zlib.crc32(piece, crc)
    header = json.dumps(
        {
            "meta": meta,
            "arrays": table,
            "dataBytes": data_bytes,
            "dataCrc": crc,
        },
        separators=(",", ":"),
    ).encode("utf-8")
    prefix = _PREFIX.pack(
        MAGIC, FORMAT_VERSION, len(header), zlib.crc32(header)
    )
    head = prefix + header
    data_start = _aligned(len(head))
    directory = os.path.dirname(path) or "."
    handle, temp = tempfile.mkstemp(
        prefix=".tmp-", suffix=".seg", dir=directory
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(head)
            out.write(b"\0" * (data_start - len(head)))
            for piece in pieces:
                out.write(piece)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    return data_start + data_bytes


def read_segment(path: str) -> tuple[Any, dict[str, np.ndarray]]:
    """Reads a segment and checks it; returns (meta, read-only arrays).

    Raises:
      CacheError: the file is not a whole, intact segment of this version.
      OSError: it cannot be opened.
    """
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size < _PREFIX.size:
            raise CacheError(f"{path}: {size} bytes, too short")
        raw = bytearray(size)
        got = handle.readinto(raw)
        if got != size or handle.read(1):
            raise CacheError(f"{path}: changed while being read")
    magic, version, header_bytes, header_crc = _PREFIX.unpack_from(raw, 0)
    if magic != MAGIC:
        raise CacheError(f"{path}: not a segment file")
    if version != FORMAT_VERSION:
        raise CacheError(
            f"{path}: format version {version}, this plugin reads "
            f"{FORMAT_VERSION}"
        )
    if header_bytes > min(_MAX_HEADER_BYTES, size - _PREFIX.size):
        raise CacheError(f"{path}: header of {header_bytes} bytes")
    head = bytes(raw[_PREFIX.size : _PREFIX.size + header_bytes])
    if zlib.crc32(head) != header_crc:
        raise CacheError(f"{path}: header checksum mismatch")
    try:
        header = json.loads(head.decode("utf-8"))
        table = header["arrays"]
        data_bytes = int(header["dataBytes"])
        data_crc = int(header["dataCrc"])
    except (ValueError, KeyError, TypeError) as error:
        raise CacheError(f"{path}: bad header: {error}") from None
    data_start = _aligned(_PREFIX.size + header_bytes)
    if data_start + data_bytes != size:
        raise CacheError(
            f"{path}: {size} bytes, the header says "
            f"{data_start + data_bytes}"
        )
    data = memoryview(raw).toreadonly()[data_start:]  # read-only arrays
    if zlib.crc32(data) != data_crc:
        raise CacheError(f"{path}: data checksum mismatch")
    arrays = {}
    try:
        for name, dtype, count, offset in table:
            if dtype not in _DTYPES:
                raise CacheError(f"{path}: array {name!r} of dtype {dtype!r}")
            kind = np.dtype(dtype)
            if offset < 0 or offset + count * kind.itemsize > data_bytes:
                raise CacheError(f"{path}: array {name!r} out of bounds")
            arrays[name] = np.frombuffer(
                data, dtype=kind, count=count, offset=offset
            )
    except (ValueError, TypeError) as error:
        raise CacheError(f"{path}: bad array table: {error}") from None
    return header["meta"], arrays
