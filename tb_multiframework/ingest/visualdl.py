"""VisualDL `vdlrecords.*.log` files (PaddlePaddle): records to data.

Framing is `uint64 length | serialized visualdl.Record`, with no checksum, so
a damaged length cannot be told from a record still being written except by
the parse failing. The message classes are built here from a descriptor that
mirrors VisualDL 2.5's `record.proto` (field numbers checked against its
`record_pb2`), so reading needs only `protobuf`, not visualdl. Kinds this
plugin does not chart are declared as `bytes`, which the wire format allows
for any message field, so they are recognised without being decoded;
`hparam` (`add_hparams`) is decoded as VisualDL's `Record.HParam`.
Timestamps are milliseconds; `add_scalars(main, {sub: v})` is read as tag
`main/sub`.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError

from tb_multiframework.ingest import histograms, hparams
from tb_multiframework.ingest.decoded import (
    DecodedChunk,
    Histogram,
    ScalarColumns,
)
from tb_multiframework.ingest.wire import Matcher

_LENGTH = struct.Struct("<Q")
_HEADER = 8  # bytes of the length prefix
_MAX_RECORD = 1 << 30  # bytes; a longer "length" is damage, not a record

_F = descriptor_pb2.FieldDescriptorProto


def _build_record_class() -> Any:
    file_proto = descriptor_pb2.FileDescriptorProto(
        name="tb_multiframework_visualdl_record.proto",
        package="tb_multiframework.visualdl",
        syntax="proto3",
    )
    record = file_proto.message_type.add(name="Record")
    record.field.add(
        name="values",
        number=1,
        label=_F.LABEL_REPEATED,
        type=_F.TYPE_MESSAGE,
        type_name=".tb_multiframework.visualdl.Record.Value",
    )
    histogram = record.nested_type.add(name="Histogram")
    histogram.field.add(
        name="hist", number=1, label=_F.LABEL_REPEATED, type=_F.TYPE_DOUBLE
    )
    histogram.field.add(
        name="bin_edges", number=2, label=_F.LABEL_REPEATED, type=_F.TYPE_DOUBLE
    )
    meta = record.nested_type.add(name="MetaData")
    meta.field.add(
        name="display_name",
        number=1,
        label=_F.LABEL_OPTIONAL,
        type=_F.TYPE_STRING,
    )
    tag_value = record.nested_type.add(name="TagValue")
    tag_value.field.add(
        name="tag", number=1, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING
    )
    tag_value.field.add(
        name="value", number=2, label=_F.LABEL_OPTIONAL, type=_F.TYPE_FLOAT
    )
    hparam = record.nested_type.add(name="HParam")
    info = hparam.nested_type.add(name="HparamInfo")
    info.oneof_decl.add(name="type")
    for name, number, kind in (
        ("int_value", 1, _F.TYPE_INT64),
        ("float_value", 2, _F.TYPE_DOUBLE),
        ("string_value", 3, _F.TYPE_STRING),
    ):
        info.field.add(
            name=name,
            number=number,
            label=_F.LABEL_OPTIONAL,
            type=kind,
            oneof_index=0,
        )
    info.field.add(
        name="name", number=4, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING
    )
    for name, number in (("hparamInfos", 1), ("metricInfos", 2)):
        hparam.field.add(
            name=name,
            number=number,
            label=_F.LABEL_REPEATED,
            type=_F.TYPE_MESSAGE,
            type_name=".tb_multiframework.visualdl.Record.HParam.HparamInfo",
        )
    hparam.field.add(
        name="name", number=3, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING
    )
    value = record.nested_type.add(name="Value")
    value.oneof_decl.add(name="one_value")
    for name, number, kind in (
        ("id", 1, _F.TYPE_INT64),
        ("tag", 2, _F.TYPE_STRING),
        ("timestamp", 3, _F.TYPE_INT64),
    ):
        value.field.add(
            name=name, number=number, label=_F.LABEL_OPTIONAL, type=kind
        )
    one_value = (
        ("value", 4, _F.TYPE_FLOAT, ""),
        ("image", 5, _F.TYPE_BYTES, ""),
        ("audio", 6, _F.TYPE_BYTES, ""),
        ("embeddings", 7, _F.TYPE_BYTES, ""),
        ("histogram", 8, _F.TYPE_MESSAGE, "Histogram"),
        ("pr_curve", 9, _F.TYPE_BYTES, ""),
        ("meta_data", 10, _F.TYPE_MESSAGE, "MetaData"),
        ("roc_curve", 11, _F.TYPE_BYTES, ""),
        ("text", 12, _F.TYPE_BYTES, ""),
        ("hparam", 13, _F.TYPE_MESSAGE, "HParam"),
        ("tag_value", 14, _F.TYPE_MESSAGE, "TagValue"),
    )
    for name, number, kind, type_name in one_value:
        field = value.field.add(
            name=name,
            number=number,
            label=_F.LABEL_OPTIONAL,
            type=kind,
            oneof_index=0,
        )
        if type_name:
            field.type_name = f".tb_multiframework.visualdl.Record.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file_proto)
    return message_factory.GetMessageClass(
        pool.FindMessageTypeByName("tb_multiframework.visualdl.Record")
    )


Record = _build_record_class()


def frame_records(
    buf: bytes, *, file_offset: int = 0
) -> tuple[np.ndarray, np.ndarray, int, list[str]]:
    """Cuts `buf` into records.

    Returns:
      (payload starts, payload lengths, bytes consumed, problems). Bytes after
      the last whole record are left unconsumed (a record still arriving). A
      length beyond any sane record size stops reading the file there, with a
      problem reported, because without checksums nothing after it can be
      trusted to start a record.
    """
    unpack = _LENGTH.unpack_from
    size = len(buf)
    starts: list[int] = []
    lengths: list[int] = []
    problems: list[str] = []
    pos = 0
    while pos + _HEADER <= size:
        (length,) = unpack(buf, pos)
        if length > _MAX_RECORD:
            problems.append(
                f"impossible record length {length} at byte "
                f"{file_offset + pos}; the rest of the file "
                f"({size - pos} bytes read so far) is not read"
            )
            pos = size
            break
        if pos + _HEADER + length > size:
            break
        starts.append(pos + _HEADER)
        lengths.append(length)
        pos += _HEADER + length
    return (
        np.array(starts, dtype=np.int64),
        np.array(lengths, dtype=np.int64),
        pos,
        problems,
    )


# Record/Value field keys (field number << 3 | wire type).
_VALUES = 0x0A  # Record.values 1: message
_ID = 0x08  # Value.id 1: varint
_TAG = 0x12  # Value.tag 2: string
_TIMESTAMP = 0x18  # Value.timestamp 3: varint
_SCALAR = 0x25  # Value.value 4: float


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
            record = Record.FromString(view[start : start + length])
        except DecodeError as error:
            chunk.problems.append(f"undecodable VisualDL record: {error}")
            continue
        for value in record.values:
            _decode_value(int(index), value, chunk, columns)
    columns.fill(chunk)
    return chunk


def _match_scalars(
    array: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    columns: ScalarColumns,
) -> np.ndarray:
    """Records of one `add_scalar` value; returns the mask of the others."""
    m = Matcher(array, starts, lengths)
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
    m.expect(_SCALAR)
    value = m.fixed("<f4")
    m.require_end()
    tags, ids = m.strings(tag_start, tag_length)
    matched = np.flatnonzero(m.ok)
    columns.add_vectorised(
        matched,
        tags,
        ids[matched],
        step[matched],
        millis[matched] / 1000.0,
        value[matched],
    )
    return ~m.ok


def _decode_value(
    record: int, value: Any, chunk: DecodedChunk, columns: ScalarColumns
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
