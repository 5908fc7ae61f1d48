"""VisualDL's `Record` message, decoded from the protobuf wire format by hand.

Why not the protobuf library: a message class built at run time needs
`message_factory.GetMessageClass` (protobuf >= 4.21) and crashes protobuf
4.22-4.24's upb backend (protobuf issue #12047), and VisualDL's generated
`record_pb2` ships only with visualdl. The wire format is small and stable,
so this module reads it with the standard library alone: the same on every
protobuf version, and any input, however damaged, either decodes or raises
`DecodeError`; it never loops, recurses without bound or allocates more than
the input's size.

It keeps protobuf's parsing rules, so it returns what a protobuf parse of
the same bytes gives: a field of unknown number or unexpected wire type is
skipped and marks its message `unknown`; repeated scalars are accepted packed
and unpacked; setting a `oneof` member clears the others and a message field
seen twice is merged; proto3 strings must be UTF-8. Kinds this plugin does
not chart are declared `bytes`, which the wire format allows for any message
field, so they are recognised without being decoded. Field numbers follow
VisualDL 2.5's `record.proto` (scripts/demo/visualdl_record.proto).
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

_MAX_DEPTH = 100  # nested messages and groups, protobuf's own default limit
_MAX_TAG = (1 << 32) - 1  # a field key is a 32-bit varint
_MAX_LENGTH = (1 << 31) - 1  # bytes of one length-delimited field
_MASK64 = (1 << 64) - 1
_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")

# Wire types.
_VARINT, _I64, _LEN, _SGROUP, _EGROUP, _I32 = 0, 1, 2, 3, 4, 5


class DecodeError(ValueError):
    """The bytes are not a serialized message of the expected type."""


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a message type, as `record.proto` declares it.

    Attributes:
      number: the field number.
      name: the field name.
      kind: "int64", "float", "double", "string", "bytes" or "message".
      repeated: whether the label is `repeated`.
      oneof: the name of the `oneof` the field belongs to, or "".
      message: the type of a "message" field.
    """

    number: int
    name: str
    kind: str
    repeated: bool = False
    oneof: str = ""
    message: MessageType | None = None


_WIRE_TYPE = {
    "int64": _VARINT,
    "float": _I32,
    "double": _I64,
    "string": _LEN,
    "bytes": _LEN,
    "message": _LEN,
}
_DEFAULT: dict[str, Any] = {
    "int64": 0,
    "float": 0.0,
    "double": 0.0,
    "string": "",
    "bytes": b"",
}


# How one occurrence of a known field is read, by its field key.
_INT64, _FLOAT, _DOUBLE, _STRING, _BYTES, _MESSAGE = range(6)
_PACKED_INT64, _PACKED_FLOAT, _PACKED_DOUBLE = range(6, 9)
_READ = {
    ("int64", _VARINT): _INT64,
    ("float", _I32): _FLOAT,
    ("double", _I64): _DOUBLE,
    ("string", _LEN): _STRING,
    ("bytes", _LEN): _BYTES,
    ("message", _LEN): _MESSAGE,
}
_READ_PACKED = {"int64": _PACKED_INT64, "float": _PACKED_FLOAT}
_READ_PACKED["double"] = _PACKED_DOUBLE


class MessageType:
    """A message type: its fields by name, and how to read each field key.

    A key whose wire type the field does not take is not in `by_key`: the
    occurrence is an unknown field, as protobuf reads it. A repeated number
    is also read packed.
    """

    def __init__(self, name: str, fields: tuple[Field, ...]) -> None:
        self.name = name
        self.fields = fields
        self.by_name = {f.name: f for f in fields}
        self.by_key: dict[int, tuple[Field, int]] = {}
        for f in fields:
            wire = _WIRE_TYPE[f.kind]
            self.by_key[f.number << 3 | wire] = (f, _READ[f.kind, wire])
            if f.repeated and f.kind in _READ_PACKED:
                self.by_key[f.number << 3 | _LEN] = (f, _READ_PACKED[f.kind])


class Message:
    """A decoded message, read like a protobuf one.

    An unset field reads as its proto3 default (0, "", an empty list, an
    empty message); `WhichOneof` names the member of a `oneof` that is set.
    `unknown` says that the message itself held fields its type does not
    declare (see `has_unknown_fields` for the whole tree).
    """

    __slots__ = ("_type", "_values", "_cases", "unknown")

    def __init__(self, message_type: MessageType) -> None:
        self._type = message_type
        self._values: dict[str, Any] = {}
        self._cases: dict[str, str] = {}  # oneof name -> member set
        self.unknown = False

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            pass
        field = self._type.by_name.get(name)
        if field is None:
            raise AttributeError(f"{self._type.name} has no field {name!r}")
        if field.repeated:
            return []
        if field.kind == "message":
            assert field.message is not None
            return Message(field.message)
        return _DEFAULT[field.kind]

    def WhichOneof(self, oneof: str) -> str | None:  # noqa: N802 - protobuf's name
        """The member of `oneof` that is set, or None."""
        return self._cases.get(oneof)

    def set_fields(self) -> dict[str, Any]:
        """The fields present, by name (a copy)."""
        return dict(self._values)

    def __repr__(self) -> str:
        return f"{self._type.name}({self._values!r})"


def parse(message_type: MessageType, data: bytes | memoryview) -> Message:
    """Parses one serialized message.

    Raises:
      DecodeError: `data` is not a `message_type` (truncated, a malformed
        varint or length, an illegal wire type, a misplaced end-group,
        invalid UTF-8 in a string, nesting past 100 levels).
    """
    buf = data if isinstance(data, bytes) else bytes(data)
    message = Message(message_type)
    _merge(buf, 0, len(buf), message, 0)
    return message


def has_unknown_fields(message: Message) -> bool:
    """Whether the message or any message set in it held unknown fields
    (what protobuf's `DiscardUnknownFields` would remove)."""
    if message.unknown:
        return True
    for value in message._values.values():
        if isinstance(value, Message):
            if has_unknown_fields(value):
                return True
        elif (
            isinstance(value, list) and value and isinstance(value[0], Message)
        ):
            if any(has_unknown_fields(item) for item in value):
                return True
    return False


def _varint(buf: Any, pos: int, end: int) -> tuple[int, int]:
    """(value modulo 2**64, position after it); at most 10 bytes."""
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise DecodeError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & _MASK64, pos
        shift += 7
        if shift >= 70:
            raise DecodeError("varint longer than 10 bytes")


def _length(buf: Any, pos: int, end: int) -> tuple[int, int]:
    """(start, end) of the length-delimited payload whose length is at `pos`."""
    length, pos = _varint(buf, pos, end)
    if length > _MAX_LENGTH or pos + length > end:
        raise DecodeError(f"a length of {length} bytes runs past the end")
    return pos, pos + length


def _merge(buf: Any, pos: int, end: int, message: Message, depth: int) -> None:
    """Parses buf[pos:end] into `message`, as protobuf's MergeFromString.

    Hot: one-byte keys and lengths, the usual case, are read inline.
    """
    if depth > _MAX_DEPTH:
        raise DecodeError("messages nested too deeply")
    by_key = message._type.by_key
    values = message._values
    while pos < end:
        key = buf[pos]
        if key < 0x80:
            pos += 1
        else:
            key, pos = _varint(buf, pos, end)
            if key > _MAX_TAG:
                raise DecodeError(f"field key {key} is not a 32-bit value")
        known = by_key.get(key)
        if known is None:
            if key < 8:
                raise DecodeError("field number 0 is illegal")
            pos = _skip(buf, pos, end, key >> 3, key & 7, depth)
            message.unknown = True
            continue
        field, read = known
        name = field.name
        value: Any
        if field.oneof:
            case = message._cases.get(field.oneof)
            if case != name:
                if case is not None:
                    del values[case]
                message._cases[field.oneof] = name
        if read == _INT64:
            value, pos = _varint(buf, pos, end)
            if value >> 63:
                value -= 1 << 64
        elif read == _FLOAT or read == _DOUBLE:
            size = 4 if read == _FLOAT else 8
            if pos + size > end:
                raise DecodeError("truncated fixed-width field")
            value = (_F32 if size == 4 else _F64).unpack_from(buf, pos)[0]
            pos += size
        else:
            length = buf[pos] if pos < end else 0x80
            if length < 0x80:
                start = pos + 1
                pos = start + length
                if pos > end:
                    raise DecodeError("a length runs past the end")
            else:
                start, pos = _length(buf, pos, end)
            if read == _MESSAGE:
                assert field.message is not None
                item = None if field.repeated else values.get(name)
                if item is None:
                    item = Message(field.message)
                    if field.repeated:
                        values.setdefault(name, []).append(item)
                    else:
                        values[name] = item
                _merge(buf, start, pos, item, depth + 1)
                continue
            if read == _STRING:
                try:
                    value = bytes(buf[start:pos]).decode("utf-8")
                except UnicodeDecodeError as error:
                    raise DecodeError(
                        f"a string field is not UTF-8: {error}"
                    ) from None
            elif read == _BYTES:
                value = bytes(buf[start:pos])
            else:
                values.setdefault(name, []).extend(
                    _packed(buf, start, pos, read)
                )
                continue
        if field.repeated:
            values.setdefault(name, []).append(value)
        else:
            values[name] = value


def _packed(buf: Any, start: int, stop: int, read: int) -> list[Any]:
    """The values of one packed run of a repeated number field."""
    if read == _PACKED_INT64:
        out = []
        while start < stop:
            value, start = _varint(buf, start, stop)
            out.append(value - (1 << 64) if value >> 63 else value)
        return out
    size = 4 if read == _PACKED_FLOAT else 8
    count, extra = divmod(stop - start, size)
    if extra:
        raise DecodeError(f"a packed run of {stop - start} bytes")
    fmt = f"<{count}{'f' if size == 4 else 'd'}"
    return list(struct.unpack_from(fmt, buf, start))


def _skip(
    buf: Any, pos: int, end: int, number: int, wire: int, depth: int
) -> int:
    """Steps over the value of an unknown field; returns the position after."""
    if wire == _VARINT:
        return _varint(buf, pos, end)[1]
    if wire == _I64 or wire == _I32:
        size = 8 if wire == _I64 else 4
        if pos + size > end:
            raise DecodeError("truncated fixed-width field")
        return pos + size
    if wire == _LEN:
        return _length(buf, pos, end)[1]
    if wire == _SGROUP:
        if depth + 1 > _MAX_DEPTH:
            raise DecodeError("groups nested too deeply")
        while True:
            key, pos = _varint(buf, pos, end)
            if key > _MAX_TAG:
                raise DecodeError(f"field key {key} is not a 32-bit value")
            inner, inner_wire = key >> 3, key & 7
            if inner == 0:
                raise DecodeError("field number 0 is illegal")
            if inner_wire == _EGROUP:
                if inner != number:
                    raise DecodeError("mismatched end-group")
                return pos
            pos = _skip(buf, pos, end, inner, inner_wire, depth + 1)
    if wire == _EGROUP:
        raise DecodeError("end-group without a start-group")
    raise DecodeError(f"invalid wire type {wire}")


def _message(name: str, *fields: Field) -> MessageType:
    return MessageType(name, fields)


# VisualDL 2.5's record.proto, package `visualdl`.
HISTOGRAM = _message(
    "Record.Histogram",
    Field(1, "hist", "double", repeated=True),
    Field(2, "bin_edges", "double", repeated=True),
)
META_DATA = _message("Record.MetaData", Field(1, "display_name", "string"))
TAG_VALUE = _message(
    "Record.TagValue", Field(1, "tag", "string"), Field(2, "value", "float")
)
HPARAM_INFO = _message(
    "Record.HParam.HparamInfo",
    Field(1, "int_value", "int64", oneof="type"),
    Field(2, "float_value", "double", oneof="type"),
    Field(3, "string_value", "string", oneof="type"),
    Field(4, "name", "string"),
)
HPARAM = _message(
    "Record.HParam",
    Field(1, "hparamInfos", "message", repeated=True, message=HPARAM_INFO),
    Field(2, "metricInfos", "message", repeated=True, message=HPARAM_INFO),
    Field(3, "name", "string"),
)
VALUE = _message(
    "Record.Value",
    Field(1, "id", "int64"),
    Field(2, "tag", "string"),
    Field(3, "timestamp", "int64"),
    Field(4, "value", "float", oneof="one_value"),
    Field(5, "image", "bytes", oneof="one_value"),
    Field(6, "audio", "bytes", oneof="one_value"),
    Field(7, "embeddings", "bytes", oneof="one_value"),
    Field(8, "histogram", "message", oneof="one_value", message=HISTOGRAM),
    Field(9, "pr_curve", "bytes", oneof="one_value"),
    Field(10, "meta_data", "message", oneof="one_value", message=META_DATA),
    Field(11, "roc_curve", "bytes", oneof="one_value"),
    Field(12, "text", "bytes", oneof="one_value"),
    Field(13, "hparam", "message", oneof="one_value", message=HPARAM),
    Field(14, "tag_value", "message", oneof="one_value", message=TAG_VALUE),
)
RECORD = _message(
    "Record",
    Field(1, "values", "message", repeated=True, message=VALUE),
)


def parse_record(data: bytes | memoryview) -> Message:
    """Parses one serialized `visualdl.Record` (see `parse`)."""
    return parse(RECORD, data)
