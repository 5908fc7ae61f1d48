"""VisualDL `vdlrecords.*.log` files (PaddlePaddle): records to data.

Framing is `uint64 length | serialized visualdl.Record`, with no checksum, so
a damaged length cannot be told from a record still being written except by
the parse failing. Records are parsed by `visualdl_wire`, a decoder of the
protobuf wire format that mirrors VisualDL 2.5's `record.proto` and needs
neither visualdl nor any particular protobuf version. Kinds this plugin does
not chart are recognised without being decoded; `hparam` (`add_hparams`) is
decoded as VisualDL's `Record.HParam`.
Timestamps are milliseconds; `add_scalars(main, {sub: v})` is read as tag
`main/sub`.
"""

from __future__ import annotations

import dataclasses
import struct

import numpy as np

from tb_multiframework.ingest import histograms, hparams
from tb_multiframework.ingest.decoded import (
    DecodedChunk,
    Histogram,
    ScalarColumns,
)
from tb_multiframework.ingest.tfrecord import MAX_RECORD_BYTES, Framing
from tb_multiframework.ingest.visualdl_wire import (
    DecodeError,
    Message,
    has_unknown_fields,
    parse_record,
)
from tb_multiframework.ingest.wire import Matcher

_LENGTH = struct.Struct("<Q")
_HEADER = 8  # bytes of the length prefix
_MIN_RECORD = 2  # bytes of the smallest record: one empty value


def frame_records(
    buf: bytes, *, file_offset: int = 0
) -> tuple[np.ndarray, np.ndarray, int, list[str]]:
    """Cuts `buf` into records (see `frame`).

    Returns:
      (payload starts, payload lengths, bytes consumed, problems).
    """
    framing = frame(buf, file_offset=file_offset)
    return (
        framing.starts,
        framing.lengths,
        framing.consumed,
        list(framing.problems),
    )


def frame(buf: bytes, *, file_offset: int = 0, search_from: int = 0) -> Framing:
    """Cuts `buf` into records; bytes after the last whole one are pending.

    With no checksum, damage shows as a frame no writer produces: a length
    below 2 or above MAX_RECORD_BYTES, a payload not starting with the
    `Record.values` key (every record VisualDL writes does), or a record
    running past the end of `buf` while a whole record starts inside it (a
    record being written contains none). Damage is skipped to the next
    *verified* record: a length whose payload parses as a non-empty
    `Record` whose values all have a kind, with no unknown field, and, if
    shorter than 16 bytes, is followed by the end of `buf` or by a
    plausible frame whose payload, if whole, verifies too. Every real
    record after the damage passes, so the first one is where reading
    resumes, unless the damaged bytes happen to hold such a record (random
    bytes essentially never do). When the damage follows a record whose
    length ran into the next one (a record cut short by a crash, then a new
    writer appending), that record is dropped and reading resumes inside
    it, if both lie in `buf`. Without a checksum, a cut record that the
    bytes after it complete into something that parses reads as a record.
    At most one real record is ever pending.

    Args:
      buf: bytes read from a file, starting at a record boundary.
      file_offset: position of `buf` in its file, for messages.
      search_from: `searched` of the previous call, shifted by what it
        consumed: the pending bytes before it hold no record start.
    """
    size = len(buf)
    starts: list[int] = []
    lengths: list[int] = []
    problems: list[str] = []
    pos = 0
    while True:
        first = len(starts)
        segment = pos
        pos, why = _follow(buf, pos, starts, lengths)
        bad = _first_unreadable(buf, starts[first:], lengths[first:])
        if bad is not None:
            pos = starts[first + bad] - _HEADER
            del starts[first + bad :], lengths[first + bad :]
            why = "a record that does not parse as a VisualDL Record"
        elif why is None:
            pending = _pending_tail(buf, pos, max(pos + 1, search_from))
            if isinstance(pending, Framing):
                return dataclasses.replace(
                    pending,
                    starts=np.array(starts, dtype=np.int64),
                    lengths=np.array(lengths, dtype=np.int64),
                    problems=tuple(problems),
                )
            why = pending
        if len(starts) > first and starts[-1] - _HEADER >= segment:
            # The frame before the damage may be a record cut short whose
            # length ran into the next one: a record starting inside it
            # says so.
            previous = starts[-1] - _HEADER
            inside, _ = _find_record(buf, previous + 1, limit=pos)
            if inside is not None:
                del starts[-1], lengths[-1]
                pos = previous
                why = "a record cut short, running into the next one"
        whole, arriving = _find_record(buf, pos + 1)
        resume = whole if whole is not None else arriving
        if resume is None:
            consumed = max(pos + 1, size - _HEADER + 1)
            problems.append(
                f"corrupt data from byte {file_offset + pos} to the end of "
                f"what was read ({consumed - pos} bytes skipped): {why}"
            )
            return Framing(
                starts=np.array(starts, dtype=np.int64),
                lengths=np.array(lengths, dtype=np.int64),
                consumed=consumed,
                problems=tuple(problems),
                damaged_tail=True,
            )
        problems.append(
            f"corrupt data at bytes {file_offset + pos}-{file_offset + resume} "
            f"({resume - pos} bytes skipped): {why}"
        )
        pos = resume


def _follow(
    buf: bytes, pos: int, starts: list[int], lengths: list[int]
) -> tuple[int, str | None]:
    """Appends whole records from `pos`; returns where it stopped and why.

    The reason is None at the end of `buf` or a record still arriving,
    else what is wrong with the frame at the returned position.
    """
    unpack = _LENGTH.unpack_from
    size = len(buf)
    while pos + _HEADER <= size:
        (length,) = unpack(buf, pos)
        if not _MIN_RECORD <= length <= MAX_RECORD_BYTES:
            return (
                pos,
                f"a record length of {length} bytes, which no writer produces",
            )
        if pos + _HEADER < size and buf[pos + _HEADER] != _VALUES:
            return pos, "a record that does not start like a VisualDL Record"
        end = pos + _HEADER + length
        if end > size:
            return pos, None
        starts.append(pos + _HEADER)
        lengths.append(length)
        pos = end
    return pos, None


def _pending_tail(buf: bytes, pos: int, search_from: int) -> Framing | str:
    """A pending tail at `pos` (an empty framing to fill), or why not."""
    size = len(buf)
    if pos + _HEADER > size:
        need = _HEADER if pos < size else 0
        return _empty_framing(pos, need=need, searched=pos)
    (length,) = _LENGTH.unpack_from(buf, pos)
    whole, arriving = _find_record(buf, search_from)
    if whole is not None:
        return (
            f"a record length of {length} bytes, but a whole record starts "
            f"{whole - pos} bytes later"
        )
    unchecked = max(search_from, size - _HEADER + 1)
    return _empty_framing(
        pos,
        need=_HEADER + length,
        searched=unchecked if arriving is None else arriving,
    )


def _empty_framing(consumed: int, *, need: int, searched: int) -> Framing:
    empty = np.zeros(0, dtype=np.int64)
    return Framing(
        starts=empty,
        lengths=empty,
        consumed=consumed,
        problems=(),
        need=need,
        searched=searched,
    )


_SEARCH_WINDOW = 1 << 16  # positions examined at once when resynchronising
# A verified record this long is taken as is; a shorter one must also be
# followed by a plausible frame (the next record may be damaged too).
_SURE_RECORD = 16  # bytes


def _find_record(
    buf: bytes, start: int, *, limit: int | None = None
) -> tuple[int | None, int | None]:
    """(first verified record at or after `start` and before `limit`, first
    plausible frame running past the end of `buf`); either may be None."""
    array = np.frombuffer(buf, dtype=np.uint8)
    size = len(buf)
    stop = size - _HEADER if limit is None else min(limit, size - _HEADER)
    lo = start
    arriving = None
    while lo < stop:
        hi = min(lo + _SEARCH_WINDOW, stop)
        windows = np.lib.stride_tricks.sliding_window_view(array[lo:], 8)
        frame_lengths = np.ascontiguousarray(windows[: hi - lo]).view("<u8")
        frame_lengths = frame_lengths[:, 0]
        first_bytes = array[lo + _HEADER : hi + _HEADER]
        plausible = (
            (frame_lengths >= _MIN_RECORD)
            & (frame_lengths <= MAX_RECORD_BYTES)
            & (first_bytes == _VALUES)
        )
        for pos in (np.flatnonzero(plausible) + lo).tolist():
            end = pos + _HEADER + int(frame_lengths[pos - lo])
            if end > size:
                if arriving is None:
                    arriving = pos
            elif _verified(buf, pos + _HEADER, end) and (
                end - pos - _HEADER >= _SURE_RECORD or _frame_follows(buf, end)
            ):
                return pos, arriving
        lo = hi
    last = size - _HEADER  # a header with no payload byte yet
    if arriving is None and limit is None and last >= start:
        (length,) = _LENGTH.unpack_from(buf, last)
        if _MIN_RECORD <= length <= MAX_RECORD_BYTES:
            arriving = last
    return None, arriving


def _frame_follows(buf: bytes, pos: int) -> bool:
    """Whether `pos` is the end of `buf` or starts a plausible frame."""
    size = len(buf)
    if pos + _HEADER > size:
        return True  # the end, or a header being written
    (length,) = _LENGTH.unpack_from(buf, pos)
    if not _MIN_RECORD <= length <= MAX_RECORD_BYTES:
        return False
    if pos + _HEADER == size:
        return True
    if buf[pos + _HEADER] != _VALUES:
        return False
    end = pos + _HEADER + length
    return end > size or _verified(buf, pos + _HEADER, end)


def _first_unreadable(
    buf: bytes, starts: list[int], lengths: list[int]
) -> int | None:
    """Index of the first frame whose payload is not a Record.

    A frame cut short by a crash and followed by a new writer's records
    (VisualDL appends to a `filename` that exists) keeps a plausible
    length, so frames are checked: one-scalar records by their shape, all
    at once, the others by parsing them.
    """
    if not starts:
        return None
    array = np.frombuffer(buf, dtype=np.uint8)
    starts_array = np.array(starts, dtype=np.int64)
    lengths_array = np.array(lengths, dtype=np.int64)
    ok = _scalar_shape(array, starts_array, lengths_array).ok
    ok |= _tag_value_shape(array, starts_array, lengths_array).ok
    for index in np.flatnonzero(~ok).tolist():
        start = starts[index]
        if _parse(buf[start : start + lengths[index]]) is None:
            return index
    return None


def _parse(payload: bytes) -> Message | None:
    """The Record in `payload` if it parses and has values, else None."""
    try:
        record = parse_record(payload)
    except DecodeError:
        return None
    return record if record.values else None


def _verified(buf: bytes, start: int, end: int) -> bool:
    """Whether buf[start:end] is, beyond reasonable doubt, a record: it
    parses, every value has a kind, and no field is unknown (random bytes
    that happen to parse essentially always hold unknown fields)."""
    record = _parse(buf[start:end])
    if record is None or any(
        v.WhichOneof("one_value") is None for v in record.values
    ):
        return False
    return not has_unknown_fields(record)


# Record/Value field keys (field number << 3 | wire type).
_VALUES = 0x0A  # Record.values 1: message
_ID = 0x08  # Value.id 1: varint
_TAG = 0x12  # Value.tag 2: string
_TIMESTAMP = 0x18  # Value.timestamp 3: varint
_SCALAR = 0x25  # Value.value 4: float
_TAG_VALUE = 0x72  # Value.tag_value 14: message
_SUB_TAG = 0x0A  # TagValue.tag 1: string
_SUB_VALUE = 0x15  # TagValue.value 2: float


def decode_records(
    buf: bytes, starts: np.ndarray, lengths: np.ndarray
) -> DecodedChunk:
    """Decodes the framed records of one chunk of a vdlrecords file."""
    chunk = DecodedChunk(num_records=len(starts))
    columns = ScalarColumns()
    array = np.frombuffer(buf, dtype=np.uint8)
    slow = _match_scalars(array, starts, lengths, columns)
    view = memoryview(buf)
    for index in np.flatnonzero(slow):
        start, length = int(starts[index]), int(lengths[index])
        try:
            record = parse_record(view[start : start + length])
        except DecodeError as error:
            chunk.problems.append(f"undecodable VisualDL record: {error}")
            continue
        for value in record.values:
            _decode_value(int(index), value, chunk, columns)
    columns.fill(chunk)
    return chunk


@dataclasses.dataclass(frozen=True)
class _ScalarShape:
    """Fields of records holding one `add_scalar` value (where `ok`)."""

    ok: np.ndarray
    matcher: Matcher
    step: np.ndarray
    tag_start: np.ndarray
    tag_length: np.ndarray
    millis: np.ndarray
    value: np.ndarray


def _match_scalars(
    array: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    columns: ScalarColumns,
) -> np.ndarray:
    """Records of one `add_scalar` or `add_scalars` value; returns the mask
    of the others."""
    shape = _scalar_shape(array, starts, lengths)
    tags, ids = shape.matcher.strings(shape.tag_start, shape.tag_length)
    matched = np.flatnonzero(shape.ok)
    columns.add_vectorised(
        matched,
        tags,
        ids[matched],
        shape.step[matched],
        shape.millis[matched] / 1000.0,
        shape.value[matched],
    )
    pairs = _tag_value_shape(array, starts, lengths)
    m = pairs.matcher
    mains, main_ids = m.strings(pairs.tag_start, pairs.tag_length)
    subs, sub_ids = m.strings(pairs.sub_start, pairs.sub_length)
    paired = np.flatnonzero(m.ok)
    # add_scalars(main, {sub: v}) is tag "main/sub": one id per pair seen.
    pair_keys = main_ids[paired] * max(len(subs), 1) + sub_ids[paired]
    distinct, pair_ids = np.unique(pair_keys, return_inverse=True)
    width = max(len(subs), 1)
    columns.add_vectorised(
        paired,
        [f"{mains[k // width]}/{subs[k % width]}" for k in distinct.tolist()],
        pair_ids.reshape(-1),
        pairs.step[paired],
        pairs.millis[paired] / 1000.0,
        pairs.value[paired],
    )
    return ~(shape.ok | m.ok)


def _value_head(
    m: Matcher,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Reads what every one-value record starts with (its `values` field,
    step, tag and timestamp); returns (step, tag start, tag length,
    milliseconds), the matcher left at the value's field."""
    m.expect(_VALUES)
    value_length = m.short_length()
    m.require_end(m.ends - value_length)
    has_id = m.peek(_ID)
    m.skip(has_id.astype(np.int64))
    step = m.varint(has_id).view(np.int64)
    m.expect(_TAG)
    tag_length = m.short_length()
    tag_start = m.pos.copy()
    m.skip(tag_length)
    has_time = m.peek(_TIMESTAMP)
    m.skip(has_time.astype(np.int64))
    millis = m.varint(has_time).view(np.int64)
    return step, tag_start, tag_length, millis


def _scalar_shape(
    array: np.ndarray, starts: np.ndarray, lengths: np.ndarray
) -> _ScalarShape:
    m = Matcher(array, starts, lengths)
    step, tag_start, tag_length, millis = _value_head(m)
    m.expect(_SCALAR)
    value = m.fixed("<f4")
    m.require_end()
    return _ScalarShape(m.ok, m, step, tag_start, tag_length, millis, value)


@dataclasses.dataclass(frozen=True)
class _TagValueShape(_ScalarShape):
    """Fields of records holding one `add_scalars` value (where `ok`)."""

    sub_start: np.ndarray
    sub_length: np.ndarray


def _tag_value_shape(
    array: np.ndarray, starts: np.ndarray, lengths: np.ndarray
) -> _TagValueShape:
    m = Matcher(array, starts, lengths)
    step, tag_start, tag_length, millis = _value_head(m)
    m.expect(_TAG_VALUE)
    pair_length = m.short_length()
    m.require_end(m.ends - pair_length)
    m.expect(_SUB_TAG)
    sub_length = m.short_length()
    sub_start = m.pos.copy()
    m.skip(sub_length)
    has_value = m.peek(_SUB_VALUE)  # proto3 leaves 0.0 out
    m.skip(has_value.astype(np.int64))
    value = m.fixed("<f4", has_value)
    m.require_end()
    return _TagValueShape(
        m.ok,
        m,
        step,
        tag_start,
        tag_length,
        millis,
        value,
        sub_start,
        sub_length,
    )


def _decode_value(
    record: int, value: Message, chunk: DecodedChunk, columns: ScalarColumns
) -> None:
    kind = value.WhichOneof("one_value")
    step, wall = int(value.id), value.timestamp / 1000.0
    if kind == "value":
        columns.add(record, value.tag, step, wall, value.value)
    elif kind == "tag_value":
        tag = f"{value.tag}/{value.tag_value.tag}"
        columns.add(record, tag, step, wall, value.tag_value.value)
    elif kind == "histogram":
        try:
            edges, counts = histograms.from_edges(
                value.histogram.bin_edges, value.histogram.hist
            )
        except ValueError as error:
            chunk.problems.append(f"tag {value.tag!r} at step {step}: {error}")
            return
        chunk.histograms.setdefault(value.tag, []).append(
            Histogram(step=step, wall_time=wall, edges=edges, counts=counts)
        )
    elif kind == "hparam":
        chunk.other_tags.setdefault(kind, set()).add(value.tag)
        chunk.hparams.append(
            hparams.from_visualdl(value.hparam, where="add_hparams")
        )
    elif kind == "meta_data":
        if value.meta_data.display_name:
            chunk.run_display_name = value.meta_data.display_name
    elif kind is not None:
        chunk.other_tags.setdefault(kind, set()).add(value.tag)
