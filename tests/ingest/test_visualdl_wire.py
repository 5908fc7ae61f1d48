"""The hand-written VisualDL decoder against the protobuf library.

Random records are encoded by protobuf (tests/ingest/vdl_reference.py,
whatever backend is installed); the decoder must return exactly the fields
protobuf parses back, and say "unknown fields" exactly when protobuf's
`DiscardUnknownFields` would shrink the message. Damaged bytes (flipped,
cut, inserted, deleted, duplicated, random) must be rejected by both or
decoded identically by both. Seeded: a failure names its seed.
"""

import math
import os
import random
import re
import struct
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from google.protobuf import __version__ as protobuf_version
from google.protobuf.internal import api_implementation
from google.protobuf.message import DecodeError as ProtobufDecodeError

from tb_multiframework.ingest import visualdl, visualdl_wire
from tb_multiframework.ingest.decoded import DecodedChunk, ScalarColumns
from tests.conftest import ROOT
from tests.eventfiles import vdl_records
from tests.ingest.vdl_reference import BROKEN, record_class

needs_protobuf = pytest.mark.skipif(
    BROKEN, reason="this protobuf crashes on run-time message classes"
)
PACKED = record_class()
UNPACKED = record_class(packed=False)
EXTRA = record_class(extra=True)
_KINDS = (
    None,
    "value",
    "image",
    "audio",
    "embeddings",
    "histogram",
    "pr_curve",
    "meta_data",
    "roc_curve",
    "text",
    "hparam",
    "tag_value",
)


def _float(x):
    return "nan" if math.isnan(x) else struct.pack("<d", x)


def _floats(xs):
    return [_float(x) for x in xs]


def _info(info):
    kind = info.WhichOneof("type")
    value = None if kind is None else getattr(info, kind)
    if isinstance(value, float):
        value = _float(value)
    return (info.name, kind, value)


def canon(record):
    """Every field the plugin can read, from either implementation."""
    out = []
    for v in record.values:
        kind = v.WhichOneof("one_value")
        item = [v.id, v.tag, v.timestamp, kind]
        if kind == "value":
            item.append(_float(v.value))
        elif kind == "histogram":
            item.append(
                (_floats(v.histogram.hist), _floats(v.histogram.bin_edges))
            )
        elif kind == "meta_data":
            item.append(v.meta_data.display_name)
        elif kind == "tag_value":
            item.append((v.tag_value.tag, _float(v.tag_value.value)))
        elif kind == "hparam":
            item.append(
                (
                    [_info(i) for i in v.hparam.hparamInfos],
                    [_info(i) for i in v.hparam.metricInfos],
                    v.hparam.name,
                )
            )
        elif kind is not None:
            item.append(bytes(getattr(v, kind)))
        out.append(item)
    return out


def _protobuf_has_unknown(message):
    size = message.ByteSize()
    message.DiscardUnknownFields()
    return message.ByteSize() != size


def reference(payload):
    """(fields, has unknown fields) by protobuf, or None if it refuses."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            message = PACKED.FromString(payload)
    except (ProtobufDecodeError, ValueError):
        return None
    # protobuf < 4's C++ backend stops at a stray end-group or a field
    # number 0 with this warning, keeping what came before; later versions,
    # and the decoder, refuse the message.
    if any("Unexpected end-group tag" in str(w.message) for w in caught):
        return None
    return canon(message), _protobuf_has_unknown(message)


def ours(payload):
    try:
        record = visualdl_wire.parse_record(payload)
    except visualdl_wire.DecodeError:
        return None
    return canon(record), visualdl_wire.has_unknown_fields(record)


def _random_text(rng):
    alphabet = "ab/_.x0é中🙂"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))


def _random_double(rng):
    return rng.choice(
        [
            0.0,
            -0.0,
            1.5,
            float("inf"),
            float("-inf"),
            float("nan"),
            rng.uniform(-1e6, 1e6),
            rng.random() * 1e-300,
        ]
    )


def _random_int(rng):
    return rng.choice(
        [
            0,
            1,
            127,
            128,
            -1,
            -(1 << 63),
            (1 << 63) - 1,
            rng.randrange(-(1 << 40), 1 << 40),
        ]
    )


def _fill_info(info, rng):
    kind = rng.choice([None, "int_value", "float_value", "string_value"])
    if kind == "int_value":
        info.int_value = _random_int(rng)
    elif kind == "float_value":
        info.float_value = _random_double(rng)
    elif kind == "string_value":
        info.string_value = _random_text(rng)
    if rng.random() < 0.7:
        info.name = _random_text(rng)


def _fill_value(value, rng, *, extra):
    if rng.random() < 0.8:
        value.id = _random_int(rng)
    if rng.random() < 0.9:
        value.tag = _random_text(rng)
    if rng.random() < 0.8:
        value.timestamp = _random_int(rng)
    kind = rng.choice(_KINDS)
    if kind == "value":
        value.value = _random_double(rng)
    elif kind == "histogram":
        n = rng.randrange(0, 6)
        value.histogram.hist.extend(_random_double(rng) for _ in range(n))
        value.histogram.bin_edges.extend(
            _random_double(rng) for _ in range(rng.choice([0, n + 1, n]))
        )
        value.histogram.SetInParent()
    elif kind == "meta_data":
        value.meta_data.display_name = _random_text(rng)
        value.meta_data.SetInParent()
    elif kind == "tag_value":
        value.tag_value.tag = _random_text(rng)
        value.tag_value.value = _random_double(rng)
        value.tag_value.SetInParent()
    elif kind == "hparam":
        for _ in range(rng.randrange(0, 4)):
            _fill_info(value.hparam.hparamInfos.add(), rng)
        for _ in range(rng.randrange(0, 3)):
            _fill_info(value.hparam.metricInfos.add(), rng)
        if rng.random() < 0.5:
            value.hparam.name = _random_text(rng)
        value.hparam.SetInParent()
    elif kind is not None:
        setattr(value, kind, rng.randbytes(rng.randrange(0, 20)))
    if extra:
        if rng.random() < 0.3:
            value.x_varint = rng.randrange(1, 1 << 64)
        if rng.random() < 0.3:
            value.x_fixed = rng.randrange(1, 1 << 64)
        if rng.random() < 0.3:
            value.x_bytes = rng.randbytes(rng.randrange(1, 9))
        if kind == "histogram" and rng.random() < 0.5:
            value.histogram.x_fixed32 = rng.randrange(1, 1 << 32)
        if kind == "meta_data" and rng.random() < 0.5:
            value.meta_data.x_varint = rng.randrange(-5, 5) or 1
        if kind == "tag_value" and rng.random() < 0.5:
            value.tag_value.x_bytes = b"\x00"


def random_payload(rng):
    """A serialized Record: one class's encoding, or pieces of several
    concatenated (protobuf merges them: oneof members replace each other,
    messages merge, repeated fields append)."""
    pieces = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        cls = rng.choice([PACKED, UNPACKED, EXTRA])
        record = cls()
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
            _fill_value(record.values.add(), rng, extra=cls is EXTRA)
        pieces.append(record.SerializeToString())
    if len(pieces) > 1 and rng.random() < 0.5:
        # Fragments of one Value, so that its fields merge.
        body = b"".join(
            PACKED.FromString(p).values[0].SerializeToString()
            if PACKED.FromString(p).values
            else b""
            for p in pieces
        )
        return b"\x0a" + _varint(len(body)) + body
    return b"".join(pieces)


def _varint(number):
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        if number:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def mutate(payload, rng):
    """`payload` damaged one of six ways."""
    data = bytearray(payload)
    how = rng.randrange(6)
    if how == 0 and data:
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif how == 1:
        del data[rng.randrange(len(data) + 1) :]
    elif how == 2:
        at = rng.randrange(len(data) + 1)
        data[at:at] = rng.randbytes(rng.randrange(1, 6))
    elif how == 3 and data:
        at = rng.randrange(len(data))
        del data[at : at + rng.randrange(1, 6)]
    elif how == 4 and data:
        at = rng.randrange(len(data))
        piece = data[at : at + rng.randrange(1, 12)]
        data[at:at] = piece
    else:
        data = bytearray(rng.randbytes(rng.randrange(0, 40)))
    return bytes(data)


@needs_protobuf
def test_random_records_decode_as_protobuf_parses_them():
    rng = random.Random(20261204)
    kinds, unknown = set(), 0
    for seed in range(3000):
        payload = random_payload(rng)
        expected = reference(payload)
        assert expected is not None, seed
        assert ours(payload) == expected, (seed, payload)
        kinds.update(item[3] for item in expected[0])
        unknown += expected[1]
    # The generator reaches every kind and both sides of "unknown".
    assert kinds == set(_KINDS)
    assert 100 < unknown < 2900


# protobuf 3.x's C++ backend reads a field key longer than 32 bits modulo
# 2**32 (protobuf 4+ refuses it, as the decoder does).
_WRAPS_LONG_KEYS = (
    api_implementation.Type() == "cpp"
    and int(protobuf_version.split(".")[0]) < 4
)


@needs_protobuf
def test_damaged_records_are_refused_or_read_alike():
    rng = random.Random(7)
    refused = accepted = wrapped = 0
    for seed in range(20000):
        payload = mutate(random_payload(rng), rng)
        expected = reference(payload)
        got = ours(payload)
        if got is None and expected is not None and _WRAPS_LONG_KEYS:
            with pytest.raises(visualdl_wire.DecodeError, match="32-bit"):
                visualdl_wire.parse_record(payload)
            wrapped += 1
            continue
        assert got == expected, (seed, payload)
        if expected is None:
            refused += 1
        else:
            accepted += 1
    assert refused > 10000 and accepted > 1000 and wrapped < 20


@needs_protobuf
@pytest.mark.parametrize(
    "payload",
    [
        b"\x0a\x05\x12\x03ab",  # a length past the end
        b"\x0a" + b"\xff" * 9 + b"\x01",  # a length of ~2**63
        b"\x0a\x02\x12\x02",  # a nested length past its parent's end
        b"\x08" + b"\x80" * 11 + b"\x01",  # an 11-byte varint
        b"\x80",  # a truncated key
        b"\x0e",  # wire type 6
        b"\x0c",  # an end-group with no start
        b"\x0b\x0c\x0c",  # an end-group too many
        b"\x0b\x14",  # an end-group of another number
        b"\x00\x00",  # field number 0
        b"\x0a\x03\x12\x01\xff",  # a string that is not UTF-8
        b"\x0a\x04\x42\x02\x0a\x01",  # a packed run of 1 byte of doubles
        b"\x0a\x02\x25\x00",  # a float cut short
    ],
)
def test_malformed_bytes_are_refused_by_both(payload):
    assert reference(payload) is None
    assert ours(payload) is None


@needs_protobuf
def test_unknown_groups_are_skipped_until_nesting_is_absurd():
    """A group of an unknown number is skipped, nesting included; a
    million nested groups are refused, not recursed into."""

    def groups(depth):
        return b"\x7b" * depth + b"\x7c" * depth  # field 15, start / end

    shallow = groups(20) + b"\x0a\x00"
    assert ours(shallow) == reference(shallow) == ([[0, "", 0, None]], True)
    started = time.perf_counter()
    assert ours(groups(1_000_000)) is None
    assert time.perf_counter() - started < 5


def test_huge_declared_lengths_allocate_nothing():
    """Lengths up to 2**63 in a 20-byte record: refused at once."""
    for length in (1 << 20, 1 << 31, 1 << 40, (1 << 63) - 1):
        payload = b"\x0a" + _varint(length) + b"\x12\x01a"
        assert ours(payload) is None
        payload = b"\x0a\x0b\x42" + _varint(length) + b"\x0a"
        assert ours(payload) is None


@needs_protobuf
def test_decode_records_matches_decoding_protobuf_messages():
    """The chunk decode_records builds (fast path plus this decoder) equals
    the one built from protobuf's own messages, record by record."""
    rng = random.Random(11)
    payloads = [random_payload(rng) for _ in range(600)]
    for _ in range(300):  # what LogWriter writes: one value a record
        record = PACKED()
        value = record.values.add()
        _fill_value(value, rng, extra=False)
        if rng.random() < 0.5:
            value.tag_value.tag = _random_text(rng)
            value.tag_value.value = _random_double(rng)
        else:
            value.value = _random_double(rng)
        payloads.insert(
            rng.randrange(len(payloads)), record.SerializeToString()
        )
    payloads = [p for p in payloads if PACKED.FromString(p).values]
    buf = vdl_records(payloads)
    framing = visualdl.frame(buf)
    assert len(framing.starts) == len(payloads)
    chunk = visualdl.decode_records(buf, framing.starts, framing.lengths)
    array = np.frombuffer(buf, dtype=np.uint8)
    fast = visualdl._scalar_shape(array, framing.starts, framing.lengths).ok
    pairs = visualdl._tag_value_shape(array, framing.starts, framing.lengths)
    # Both vectorised paths and the decoder are exercised.
    assert fast.sum() > 10 and pairs.ok.sum() > 10
    assert (~(fast | pairs.ok)).sum() > 300

    expected = DecodedChunk(num_records=len(payloads))
    columns = ScalarColumns()
    for index, payload in enumerate(payloads):
        for value in PACKED.FromString(payload).values:
            visualdl._decode_value(index, value, expected, columns)
    columns.fill(expected)

    assert _points(chunk) == _points(expected)
    assert chunk.problems == expected.problems
    assert chunk.other_tags == expected.other_tags
    assert chunk.run_display_name == expected.run_display_name
    assert [_nan_safe(h.values) for h in chunk.hparams] == [
        _nan_safe(h.values) for h in expected.hparams
    ]
    assert chunk.histograms.keys() == expected.histograms.keys()
    for tag, hists in chunk.histograms.items():
        for got, want in zip(hists, expected.histograms[tag], strict=True):
            assert (got.step, got.wall_time) == (want.step, want.wall_time)
            assert _floats(got.edges.tolist()) == _floats(want.edges.tolist())
            assert _floats(got.counts.tolist()) == _floats(want.counts.tolist())
    assert len(chunk.histograms) > 5 and len(chunk.scalar_tags) > 50


def _nan_safe(values):
    return {
        k: _float(v) if isinstance(v, float) else v for k, v in values.items()
    }


def _points(chunk):
    """Scalar points in logged order (tag ids differ: the fast path numbers
    its tags first)."""
    return list(
        zip(
            [chunk.scalar_tags[i] for i in chunk.scalar_tag_ids.tolist()],
            chunk.scalar_records.tolist(),
            chunk.steps.tolist(),
            chunk.wall_times.tolist(),
            _floats(chunk.values.tolist()),
            strict=True,
        )
    )


def test_decoder_imports_without_protobuf():
    """The decoder needs only the standard library: it reads the same
    whatever protobuf is installed, or none."""
    code = (
        "import sys; sys.modules['google'] = None; sys.modules['numpy'] = None\n"
        "import importlib.util as u\n"
        "spec = u.spec_from_file_location('w', sys.argv[1])\n"
        "m = sys.modules['w'] = u.module_from_spec(spec)\n"
        "spec.loader.exec_module(m)\n"
        "r = m.parse_record(b'\\x0a\\x08\\x12\\x01a\\x25\\x00\\x00\\xc0\\x3f')\n"
        "print(r.values[0].tag, r.values[0].value)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, visualdl_wire.__file__],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["a", "1.5"]


def _proto_messages():
    """{message name: {field name: (number, type, repeated, in a oneof)}},
    read from scripts/demo/visualdl_record.proto line by line."""
    path = os.path.join(ROOT, "scripts", "demo", "visualdl_record.proto")
    field = re.compile(r"^\s*(repeated )?(\w+) (\w+) = (\d+)")
    messages, stack, oneof = {}, [], False
    for line in open(path):
        line = line.split("//")[0]
        opened = re.match(r"^\s*(message|oneof) (\w+) \{", line)
        if opened:
            if opened[1] == "message":
                stack.append(opened[2])
                messages[".".join(stack)] = {}
            else:
                oneof = True
        elif line.strip() == "}":
            if oneof:
                oneof = False
            else:
                stack.pop()
        elif field.match(line):
            rep, kind, name, number = field.match(line).groups()
            messages[".".join(stack)][name] = (
                int(number),
                kind,
                bool(rep),
                oneof,
            )
    return messages


def test_schema_is_visualdl_record_proto():
    """Every field of every message the decoder reads, against the .proto
    reconstructed from VisualDL 2.5.3 (kinds the plugin does not chart are
    `bytes`, as the wire format allows for a message)."""
    proto = _proto_messages()
    for message_type in (
        visualdl_wire.RECORD,
        visualdl_wire.VALUE,
        visualdl_wire.HISTOGRAM,
        visualdl_wire.META_DATA,
        visualdl_wire.TAG_VALUE,
        visualdl_wire.HPARAM,
        visualdl_wire.HPARAM_INFO,
    ):
        expected = proto[message_type.name]
        ours = {}
        for f in message_type.fields:
            kind = f.message.name.split(".")[-1] if f.message else f.kind
            if f.kind == "bytes" and expected[f.name][1] != "bytes":
                kind = expected[f.name][1]  # a message read as bytes
            ours[f.name] = (f.number, kind, f.repeated, bool(f.oneof))
        assert ours == expected, message_type.name
