"""Writing event files for tests, independently of the code under test.

tfevents records go through TensorBoard's own `RecordWriter` (its pure-Python
CRC); VisualDL records are encoded by hand from the wire format, so neither
shares code with the readers they test.
"""

from __future__ import annotations

import io
import os
import struct

from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer.record_writer import RecordWriter


def record_bytes(payloads: list[bytes]) -> bytes:
    """TFRecord framing of `payloads`, by TensorBoard's writer."""
    out = io.BytesIO()
    writer = RecordWriter(out)
    for payload in payloads:
        writer.write(payload)
    return out.getvalue()


def scalar_event(tag: str, step: int, wall: float, value: float) -> bytes:
    event = event_pb2.Event(wall_time=wall, step=step)
    event.summary.value.add(tag=tag, simple_value=value)
    return event.SerializeToString()


def file_version_event(wall: float = 1.0) -> bytes:
    return event_pb2.Event(
        wall_time=wall, file_version="brain.Event:2"
    ).SerializeToString()


def tf2_scalar_event(
    tag: str, step: int, wall: float, value: float, *, metadata: bool = True
) -> bytes:
    """A rank-0 float tensor as TF2's writer stores it."""
    event = event_pb2.Event(wall_time=wall, step=step)
    item = event.summary.value.add(tag=tag)
    item.tensor.dtype = 1  # DT_FLOAT
    item.tensor.tensor_shape.SetInParent()
    item.tensor.tensor_content = struct.pack("<f", value)
    if metadata:
        item.metadata.plugin_data.plugin_name = "scalars"
    return event.SerializeToString()


def histogram_event(
    tag: str,
    step: int,
    wall: float,
    *,
    minimum: float,
    maximum: float,
    limits: list[float],
    counts: list[float],
) -> bytes:
    event = event_pb2.Event(wall_time=wall, step=step)
    histo = summary_pb2.HistogramProto(
        min=minimum,
        max=maximum,
        num=sum(counts),
        bucket_limit=limits,
        bucket=counts,
    )
    event.summary.value.add(tag=tag, histo=histo)
    return event.SerializeToString()


def write(path: str, data: bytes, mode: str = "wb") -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as handle:
        handle.write(data)
    return path


TORCH_NAME = "events.out.tfevents.1700000000.host.123.0"
TF_NAME = "events.out.tfevents.1700000000.host.123.0.v2"
TBX_NAME = "events.out.tfevents.1700000000.host"


# VisualDL, by hand: Record { repeated Value values = 1 } with
# Value { int64 id = 1; string tag = 2; int64 timestamp = 3; float value = 4;
#         Histogram histogram = 8; MetaData meta_data = 10; TagValue tag_value = 14 }.


def _varint(number: int) -> bytes:
    number &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        if number:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, wire_type: int, payload: bytes) -> bytes:
    key = _varint(number << 3 | wire_type)
    if wire_type == 2:
        return key + _varint(len(payload)) + payload
    return key + payload


def vdl_value(
    tag: str,
    step: int,
    millis: int,
    *,
    scalar: float | None = None,
    tag_value: tuple[str, float] | None = None,
    hist: tuple[list[float], list[float]] | None = None,
    display_name: str | None = None,
    other: tuple[int, bytes] | None = None,
) -> bytes:
    """One `Record.values` entry; `other` is (field number, raw message)."""
    body = b""
    if step:
        body += _field(1, 0, _varint(step))
    body += _field(2, 2, tag.encode())
    if millis:
        body += _field(3, 0, _varint(millis))
    if scalar is not None:
        body += _field(4, 5, struct.pack("<f", scalar))
    if hist is not None:
        counts, edges = hist
        packed_counts = b"".join(struct.pack("<d", c) for c in counts)
        packed_edges = b"".join(struct.pack("<d", e) for e in edges)
        body += _field(
            8, 2, _field(1, 2, packed_counts) + _field(2, 2, packed_edges)
        )
    if display_name is not None:
        body += _field(10, 2, _field(1, 2, display_name.encode()))
    if tag_value is not None:
        sub, value = tag_value
        body += _field(
            14,
            2,
            _field(1, 2, sub.encode()) + _field(2, 5, struct.pack("<f", value)),
        )
    if other is not None:
        body += _field(other[0], 2, other[1])
    return _field(1, 2, body)


def vdl_records(records: list[bytes]) -> bytes:
    return b"".join(struct.pack("<Q", len(r)) + r for r in records)
