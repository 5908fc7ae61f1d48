"""Framing: whole records, torn tails, corrupt regions, garbage."""

import numpy as np

from tb_multiframework.ingest.tfrecord import frame_records
from tests.eventfiles import record_bytes

PAYLOADS = [bytes([i]) * (5 + 7 * i) for i in range(12)]


def _payloads(buf, framing):
    return [buf[s : s + n] for s, n in zip(framing.starts, framing.lengths)]


def test_whole_file():
    buf = record_bytes(PAYLOADS)
    framing = frame_records(buf)
    assert _payloads(buf, framing) == PAYLOADS
    assert framing.consumed == len(buf)
    assert framing.problems == ()


def test_torn_last_record_is_pending_at_every_cut():
    whole = record_bytes(PAYLOADS)
    last_start = len(record_bytes(PAYLOADS[:-1]))
    for cut in range(last_start, len(whole)):
        framing = frame_records(whole[:cut])
        assert _payloads(whole, framing) == PAYLOADS[:-1], cut
        assert framing.consumed == last_start, cut
        assert framing.problems == (), cut


def test_corrupt_payload_skips_only_that_record():
    buf = bytearray(record_bytes(PAYLOADS))
    bad_start = len(record_bytes(PAYLOADS[:5]))
    buf[bad_start + 12 + 2] ^= 0xFF  # a payload byte of record 5
    framing = frame_records(bytes(buf), file_offset=1000)
    assert _payloads(bytes(buf), framing) == PAYLOADS[:5] + PAYLOADS[6:]
    assert framing.consumed == len(buf)
    (problem,) = framing.problems
    record_size = 12 + len(PAYLOADS[5]) + 4
    assert (
        f"bytes {1000 + bad_start}-{1000 + bad_start + record_size}" in problem
    )


def test_corrupt_length_field_resyncs_at_next_record():
    buf = bytearray(record_bytes(PAYLOADS))
    bad_start = len(record_bytes(PAYLOADS[:3]))
    buf[bad_start + 1] = 0x7F  # length becomes enormous; header CRC fails
    framing = frame_records(bytes(buf))
    assert _payloads(bytes(buf), framing) == PAYLOADS[:3] + PAYLOADS[4:]
    assert len(framing.problems) == 1


def test_garbage_is_reported_not_raised():
    rng = np.random.default_rng(7)
    garbage = rng.integers(0, 256, 5000, dtype=np.uint8).tobytes()
    framing = frame_records(garbage)
    assert len(framing.starts) == 0
    assert len(framing.problems) == 1
    assert "corrupt data from byte 0" in framing.problems[0]


def test_empty_buffer():
    framing = frame_records(b"")
    assert len(framing.starts) == 0 and framing.consumed == 0
