"""TFRecord framing: cut a byte buffer into checked records.

A record is `uint64 length | masked crc32c(length) | payload | masked
crc32c(payload)`, all little-endian. A buffer is what has been read of a file
so far; its end may cut a record (a writer still writing, or a crash). Such a
torn tail is left *pending*: the caller keeps those bytes and frames them again
once more data arrives. Corrupt bytes (a checksum that does not match) are
skipped up to the next position where a valid record starts, and reported.
"""

from __future__ import annotations

import array
import dataclasses
import struct

import numpy as np

from tb_multiframework.ingest.crc32c import masked_crc32c, masked_crc32c_many

_HEADER = 12  # bytes: uint64 length + uint32 crc
_FOOTER = 4  # bytes: uint32 crc of the payload
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")


MAX_RECORD_BYTES = 256 << 20  # a longer length field is damage, not a record


@dataclasses.dataclass(frozen=True)
class Framing:
    """Records found in a buffer.

    Attributes:
      starts: int64 offsets of the payloads in the buffer.
      lengths: int64 payload lengths.
      consumed: bytes at the front of the buffer that are done with (whole
        records and skipped corrupt bytes); the rest is pending.
      problems: human-readable descriptions of corrupt regions skipped.
      damaged_tail: whether the pending bytes are the end of a corrupt region
        (kept only in case a valid record starts among them), rather than
        the start of a record still being written.
      need: bytes the pending record needs in all (header included), once
        its length is known; 0 when unknown or nothing is pending.
      searched: position in the buffer before which no whole record starts
        inside the pending bytes; pass it back as `search_from` (shifted by
        `consumed`) so that a growing record is searched only once.
    """

    starts: np.ndarray
    lengths: np.ndarray
    consumed: int
    problems: tuple[str, ...]
    damaged_tail: bool = False
    need: int = 0
    searched: int = 0


def frame_records(
    buf: bytes,
    *,
    file_offset: int = 0,
    search_from: int = 0,
    before: bytes = b"",
) -> Framing:
    """Cuts `buf` into records, checking both checksums of each.

    A length field that passes its checksum is still damage when it is
    larger than MAX_RECORD_BYTES, or when the record it announces would run
    past the end of `buf` while a whole valid record starts inside it: a
    record being written contains no whole records. Damage is skipped to the
    next whole valid record, so at most one real record is ever pending.

    A record cut short inside its payload checksum and then appended to
    (a crashed writer, then a new one) can still pass both checksums: the
    bytes the next record lends it happen to complete its checksum (1 in 256
    when one byte is missing). Its payload is then the one written, and the
    next record starts up to three bytes *before* its end. So where the
    chain of records breaks right after a record, the last three bytes of
    that record are searched for a record start first (`_overlapping`).

    Args:
      buf: bytes read from a file, starting at a record boundary.
      file_offset: position of `buf` in its file, for messages.
      search_from: position in `buf` before which an earlier call found no
        record starting inside the pending bytes (its `searched`).
      before: the bytes of the file just before `buf` (its last three
        count): where the chain breaks at the start of `buf`, a record may
        have started inside them (see above).

    Returns:
      The records, how much of `buf` is consumed, and any corruption found.
    """
    array = np.frombuffer(buf, dtype=np.uint8)
    starts_parts: list[np.ndarray] = []
    lengths_parts: list[np.ndarray] = []
    problems: list[str] = []
    pos = 0
    while True:
        starts, lengths, stop = _scan(buf, pos)
        bad = _first_bad_record(array, buf, starts, lengths)
        if bad is None:
            starts_parts.append(starts)
            lengths_parts.append(lengths)
            tail = _check_tail(array, buf, stop, max(stop + 1, search_from))
            if isinstance(tail, _Pending):
                return Framing(
                    starts=np.concatenate(starts_parts),
                    lengths=np.concatenate(lengths_parts),
                    consumed=stop,
                    problems=tuple(problems),
                    need=tail.need,
                    searched=tail.searched,
                )
            bad_at, why = stop, tail
            after_record = len(starts) > 0 or pos == 0
        else:
            starts_parts.append(starts[:bad])
            lengths_parts.append(lengths[:bad])
            bad_at = int(starts[bad]) - _HEADER
            why = "a record whose checksum does not match"
            after_record = bad > 0 or pos == 0
        back_whole, back_arriving = (
            _overlapping(buf, before if bad_at == 0 else b"", bad_at)
            if after_record
            else (None, None)
        )
        if back_whole is not None:
            start, length = back_whole
            starts_parts.append(np.array([start], np.int64))
            lengths_parts.append(np.array([length], np.int64))
            problems.append(
                f"a record cut short before byte {file_offset + bad_at}: the "
                f"next one starts {bad_at - start + _HEADER} bytes before its "
                f"end (both pass their checksums, both read)"
            )
            pos = start + length + _FOOTER
            continue
        whole, arriving = _find_record(array, buf, bad_at + 1)
        if whole is None and back_arriving is not None:
            # A record overlapping the last one is still being written:
            # keep everything after that last one, and look back again
            # when more has arrived.
            return Framing(
                starts=np.concatenate(starts_parts),
                lengths=np.concatenate(lengths_parts),
                consumed=bad_at,
                problems=tuple(problems),
                need=back_arriving - bad_at,
                searched=bad_at,
            )
        resume = whole if whole is not None else arriving
        if resume is None:
            # Nothing valid after the damage yet; keep the last bytes in case
            # a valid record starts among them once the file grows.
            consumed = max(bad_at + 1, len(buf) - _HEADER + 1)
            problems.append(
                f"corrupt data from byte {file_offset + bad_at} to the end "
                f"of what was read ({consumed - bad_at} bytes skipped): {why}"
            )
            return Framing(
                starts=np.concatenate(starts_parts),
                lengths=np.concatenate(lengths_parts),
                consumed=consumed,
                problems=tuple(problems),
                damaged_tail=True,
            )
        problems.append(
            f"corrupt data at bytes {file_offset + bad_at}-"
            f"{file_offset + resume} ({resume - bad_at} bytes skipped): {why}"
        )
        pos = resume


@dataclasses.dataclass(frozen=True)
class _Pending:
    need: int
    searched: int


def _check_tail(
    array: np.ndarray, buf: bytes, stop: int, search_from: int
) -> _Pending | str:
    """Whether what follows the last whole record is a record arriving.

    Returns:
      `_Pending` for a record still being written (or nothing at all), or
      why the bytes at `stop` are damage.
    """
    if stop + _HEADER > len(buf):
        return _Pending(need=_HEADER if stop < len(buf) else 0, searched=stop)
    if not _header_ok(buf, stop):
        return "a record header whose checksum does not match"
    (length,) = _LENGTH.unpack_from(buf, stop)
    if length > MAX_RECORD_BYTES:
        return (
            f"a record length of {length} bytes, more than any writer "
            f"produces ({MAX_RECORD_BYTES} at most)"
        )
    whole, arriving = _find_record(array, buf, search_from)
    if whole is not None:
        return (
            f"a record header announcing {length} bytes, but a whole valid "
            f"record starts {whole - stop} bytes later"
        )
    unchecked = max(search_from, len(buf) - _HEADER + 1)
    return _Pending(
        need=_HEADER + length + _FOOTER,
        searched=unchecked if arriving is None else arriving,
    )


_SCAN_STEP = 64  # records followed one by one before guessing ahead
_MAX_PERIOD = 8  # longest repeating pattern of record lengths recognised
_GUESS_BATCH = 1 << 16  # records guessed and checked at once


def _scan(buf: bytes, pos: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Follows length fields from `pos` while whole records fit in `buf`.

    Following lengths is sequential, and a Python loop costs ~0.4 µs a
    record. But logs repeat themselves: an event of one scalar has the same
    length as the one a few records back (same tag, same varint sizes). So
    after following a few records one by one, the next lengths are guessed by
    repeating the last pattern, and all guessed positions are checked at once
    by reading the length field there. Up to the first wrong guess every
    position is exactly what the loop would have reached, since the loop
    would have read the same length at the same place.
    """
    array = np.frombuffer(buf, dtype=np.uint8)
    size = len(buf)
    starts: list[np.ndarray] = []
    backoff = _SCAN_STEP
    while pos + _HEADER <= size:
        found, pos = _follow(buf, pos, backoff)
        starts.append(found)
        if len(found) < backoff:
            break  # stopped at a record that does not fit (or the end)
        lengths = np.diff(found, append=pos) - _HEADER - _FOOTER
        period = _period(lengths)
        if period is None or pos + _HEADER > size:
            backoff = min(backoff * 2, 1 << 14)
            continue
        guessed, pos = _guess(array, pos, lengths[-period:])
        starts.append(guessed)
        # Little gained: follow longer stretches before guessing again.
        backoff = (
            _SCAN_STEP
            if len(guessed) >= _SCAN_STEP
            else min(backoff * 2, 1 << 14)
        )
    headers = np.concatenate(starts) if starts else np.zeros(0, np.int64)
    lengths = np.diff(headers, append=pos) - _HEADER - _FOOTER
    return headers + _HEADER, lengths, pos


def _follow(buf: bytes, pos: int, count: int) -> tuple[np.ndarray, int]:
    """Header positions of up to `count` whole records from `pos`, one by one."""
    unpack = _LENGTH.unpack_from
    size = len(buf)
    headers = array.array("q")
    append = headers.append
    overhead = _HEADER + _FOOTER
    while count and pos + _HEADER <= size:
        (length,) = unpack(buf, pos)
        end = pos + length + overhead
        if end > size:
            break
        append(pos)
        pos = end
        count -= 1
    return np.frombuffer(headers, dtype=np.int64), pos


def _period(lengths: np.ndarray) -> int | None:
    """Shortest period of the recent record lengths, if they repeat."""
    for period in range(1, _MAX_PERIOD + 1):
        window = lengths[-4 * period :]
        if len(window) < 4 * period:
            return None
        if (window[period:] == window[:-period]).all():
            return period
    return None


def _guess(
    array: np.ndarray, pos: int, pattern: np.ndarray
) -> tuple[np.ndarray, int]:
    """Header positions from `pos` while the lengths repeat `pattern`."""
    accepted: list[np.ndarray] = []
    size = len(array)
    windows = np.lib.stride_tricks.sliding_window_view(array, 8)
    while True:
        repeats = -(-_GUESS_BATCH // len(pattern))
        lengths = np.tile(pattern, repeats)
        ends = pos + np.cumsum(lengths + _HEADER + _FOOTER)
        heads = np.concatenate(([pos], ends[:-1]))
        fits = ends <= size
        heads, lengths, ends = heads[fits], lengths[fits], ends[fits]
        if len(heads) == 0:
            break
        actual = np.ascontiguousarray(windows[heads]).view("<u8")[:, 0]
        wrong = np.flatnonzero(actual != lengths.astype(np.uint64))
        good = int(wrong[0]) if len(wrong) else len(heads)
        accepted.append(heads[:good])
        if good == 0:
            break
        pos = int(ends[good - 1])
        if good < len(heads) or good < _GUESS_BATCH:
            break
    found = np.concatenate(accepted) if accepted else np.zeros(0, np.int64)
    return found, pos


_LOOKBACK = _FOOTER - 1  # bytes of a record's checksum the next may share


def _overlapping(
    buf: bytes, before: bytes, at: int
) -> tuple[tuple[int, int] | None, int | None]:
    """A record starting in the last bytes before `at` (where a record
    ended and no record starts), the earliest first.

    Positions below 0 are in `before` (the bytes of the file before `buf`).

    Returns:
      ((payload start, payload length) of a whole valid record, or None;
      the end of a record whose valid header is there but whose bytes run
      past `buf`, or None).
    """
    arriving = None
    for pos in range(max(at - _LOOKBACK, -min(len(before), _LOOKBACK)), at):
        head = (before[len(before) + pos :] if pos < 0 else b"") + buf[
            max(pos, 0) : pos + _HEADER
        ]
        if len(head) < _HEADER:
            continue
        (length,) = _LENGTH.unpack_from(head)
        (stored,) = _CRC.unpack_from(head, 8)
        if length > MAX_RECORD_BYTES or masked_crc32c(head[:8]) != stored:
            continue
        start = pos + _HEADER
        end = start + length + _FOOTER
        if end > len(buf):
            arriving = end if arriving is None else arriving
            continue
        (stored,) = _CRC.unpack_from(buf, end - _FOOTER)
        if masked_crc32c(buf[start : end - _FOOTER]) == stored:
            return (start, length), arriving
    return None, arriving


def _header_ok(buf: bytes, pos: int) -> bool:
    (stored,) = _CRC.unpack_from(buf, pos + 8)
    return masked_crc32c(buf[pos : pos + 8]) == stored


def _stored_crcs(array: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """uint32 little-endian values at `offsets`."""
    windows = np.lib.stride_tricks.sliding_window_view(array, 4)
    return np.ascontiguousarray(windows[offsets]).view("<u4")[:, 0]


def _first_bad_record(
    array: np.ndarray, buf: bytes, starts: np.ndarray, lengths: np.ndarray
) -> int | None:
    """Index of the first record whose header or payload checksum fails."""
    if len(starts) == 0:
        return None
    headers = starts - _HEADER
    # The header's CRC covers only the length: one per distinct length.
    distinct, inverse = np.unique(lengths, return_inverse=True)
    expected = np.array(
        [masked_crc32c(_LENGTH.pack(int(n))) for n in distinct],
        dtype=np.uint32,
    )
    header_ok = expected[inverse.reshape(-1)] == _stored_crcs(
        array, headers + 8
    )
    payload_ok = masked_crc32c_many(array, starts, lengths) == _stored_crcs(
        array, starts + lengths
    )
    bad = np.flatnonzero(~(header_ok & payload_ok))
    return int(bad[0]) if len(bad) else None


_RESYNC_WINDOW = (
    1 << 16
)  # positions searched at once (~20 bytes of memory each)


def _find_record(
    array: np.ndarray, buf: bytes, start: int
) -> tuple[int | None, int | None]:
    """Where a record starts at or after `start`.

    Returns:
      (first position of a whole valid record, first position of a valid
      header whose record runs past the end of `buf`); either may be None.
      Lengths above MAX_RECORD_BYTES never count as valid.
    """
    size = len(buf)
    lo = start
    arriving = None
    while lo + _HEADER <= size:
        hi = min(lo + _RESYNC_WINDOW, size - _HEADER + 1)
        windows = np.lib.stride_tricks.sliding_window_view(array[lo:], 8)
        lengths = np.ascontiguousarray(windows[: hi - lo]).view("<u8")[:, 0]
        # The length check is cheap and rules out almost every position of
        # random bytes before the checksum is computed.
        crc_windows = np.lib.stride_tricks.sliding_window_view(
            array[lo + 8 :], 4
        )
        stored = np.ascontiguousarray(crc_windows[: hi - lo]).view("<u4")[:, 0]
        # Cheap checks first: a length no writer produces, or twelve zero
        # bytes (a zero-filled region, the usual leftover of a crash).
        plausible = (lengths <= MAX_RECORD_BYTES) & ((lengths | stored) != 0)
        candidates = np.flatnonzero(plausible) + lo
        ok = _length_crcs(lengths[plausible]) == stored[plausible]
        for pos in candidates[ok].tolist():
            (length,) = _LENGTH.unpack_from(buf, pos)
            end = pos + _HEADER + length + _FOOTER
            if end > size:
                if arriving is None:
                    arriving = pos
                continue
            payload = buf[pos + _HEADER : end - _FOOTER]
            (stored,) = _CRC.unpack_from(buf, end - _FOOTER)
            if masked_crc32c(payload) == stored:
                return pos, arriving
        lo = hi
    return None, arriving


def _length_crcs(lengths: np.ndarray) -> np.ndarray:
    """Masked CRC of each uint64 length, computed once per distinct value
    (a run of zero bytes is a million positions of one length)."""
    distinct, inverse = np.unique(lengths, return_inverse=True)
    packed = np.ascontiguousarray(distinct, dtype="<u8").view(np.uint8)
    crcs = masked_crc32c_many(
        packed,
        np.arange(0, 8 * len(distinct), 8, dtype=np.int64),
        np.full(len(distinct), 8, dtype=np.int64),
    )
    return crcs[inverse.reshape(-1)]
