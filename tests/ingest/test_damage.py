"""Damaged logs: impossible lengths, stray bytes, torn records, zeros.

Random streams (tests/fuzz_streams.py) get damaged the ways files do: stray
bytes between records, a length field claiming 2^62 bytes (with a valid
checksum, for tfevents) or 2^30 and more (VisualDL), a plausible length
running past whole records, a record cut short and followed by more records
(a crashed writer, then a new one appending), a zero-filled span, flipped
bytes. The damaged file is framed in random pieces, as the loader reads a
growing file. Every record the damage left untouched must be read, in
order (for VisualDL, which has no checksum, records under 16 bytes only
when what follows them frames too); for tfevents nothing else is read. The
seed is printed;
TBMF_FUZZ_SEED=<n> replays it.

The memory tests read a bad length followed by 40 MB of valid records with
1 MiB reads and bound the peak traced allocation: before the fix the reader
buffered everything after the bad length (+190 MiB for 100 MB).
"""

from __future__ import annotations

import os
import secrets
import struct
import tracemalloc

import numpy as np
import pytest
from tensorboard.compat.proto import event_pb2

from tb_multiframework.ingest import logfile, tfrecord, visualdl, visualdl_wire
from tb_multiframework.ingest.crc32c import masked_crc32c
from tb_multiframework.ingest.loader import Loader
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import Store
from tests import eventfiles, fuzz_streams

SEED = int(os.environ.get("TBMF_FUZZ_SEED") or secrets.randbits(32))
CASES = 300  # damaged streams per format
KINDS = ("insert", "huge", "plausible", "torn", "zeros", "flip")


def _tf_header(length: int) -> bytes:
    packed = struct.pack("<Q", length)
    return packed + struct.pack("<I", masked_crc32c(packed))


def _records(fmt: str, rng: np.random.Generator) -> list[bytes]:
    """Whole records (header, payload, footer) of a random stream."""
    count = int(rng.choice([2, 5, 20, 40]))
    if fmt == "tfevents":
        payloads = fuzz_streams.tfevents_stream(rng, count)
        return [eventfiles.record_bytes([p]) for p in payloads]
    stream, _ = fuzz_streams.visualdl_stream(rng, count)
    bounds = [0, *stream.record_ends]
    return [stream.data[a:b] for a, b in zip(bounds, bounds[1:])]


def _payload(fmt: str, record: bytes) -> bytes:
    return record[12:-4] if fmt == "tfevents" else record[8:]


def _damaged(fmt: str, rng: np.random.Generator):
    """([(piece of the damaged file, intact?)], payloads written): intact
    is True/False for a record (untouched or damaged), None for inserted
    junk; the payloads are every record's, damaged or not."""
    records = _records(fmt, rng)
    pieces: list[tuple[bytes, bool | None]] = [(r, True) for r in records]
    # VisualDL has no checksum: a length field damaged into another
    # plausible length, or a record cut short, can swallow the records after
    # it and still parse, so its damage stays between records and inside
    # payloads here (the cut record has its own tests below).
    kinds = KINDS if fmt == "tfevents" else KINDS[:3] + KINDS[4:]
    payload_from = 0 if fmt == "tfevents" else 8
    for _ in range(int(rng.integers(1, 4))):
        kind = kinds[int(rng.integers(len(kinds)))]
        at = int(rng.integers(len(pieces) + 1))
        if kind == "insert":
            junk = rng.integers(0, 256, int(rng.integers(1, 41)), np.uint8)
            pieces.insert(at, (junk.tobytes(), None))
        elif kind == "huge":
            length = int(rng.choice([1 << 62, 1 << 30, (1 << 28) + 1, 1 << 40]))
            header = (
                _tf_header(length)
                if fmt == "tfevents"
                else struct.pack("<Q", length)
            )
            pieces.insert(at, (header + b"\x0a\x00junk", None))
        elif kind == "plausible":
            length = int(rng.choice([100, 5000, 1 << 20, 200 << 20]))
            header = (
                _tf_header(length)
                if fmt == "tfevents"
                else struct.pack("<Q", length) + b"\x0a"
            )
            pieces.insert(at, (header, None))
        else:
            index = int(rng.integers(len(pieces)))
            data, intact = pieces[index]
            if intact is None or len(data) < 3:
                continue
            if kind == "torn":
                data = data[: int(rng.integers(1, len(data)))]
            else:
                if len(data) <= payload_from:
                    continue
                start = int(rng.integers(payload_from, len(data)))
                stop = min(len(data), start + int(rng.integers(1, 200)))
                fill = (
                    bytes(stop - start)
                    if kind == "zeros"
                    else rng.integers(0, 256, stop - start, np.uint8).tobytes()
                )
                data = data[:start] + fill + data[stop:]
            pieces[index] = (data, intact and data == pieces[index][0])
    return pieces, [_payload(fmt, r) for r in records]


def _frame_in_pieces(fmt: str, data: bytes, rng: np.random.Generator):
    """Frames `data` as the loader does a file growing in random appends."""
    frame = tfrecord.frame_records if fmt == "tfevents" else visualdl.frame
    cuts = sorted(
        set(rng.integers(0, len(data) + 1, int(rng.integers(0, 8))).tolist())
    )
    pending, offset, searched = b"", 0, 0
    read, problems = [], []
    for a, b in zip([0, *cuts], [*cuts, len(data)]):
        buf = pending + data[a:b]
        before = {"before": data[max(0, offset - 3) : offset]}
        framing = frame(
            buf,
            file_offset=offset,
            search_from=searched,
            **(before if fmt == "tfevents" else {}),
        )
        read += [
            buf[s : s + n] for s, n in zip(framing.starts, framing.lengths)
        ]
        problems += framing.problems
        offset += framing.consumed
        pending = buf[framing.consumed :]
        searched = max(0, framing.searched - framing.consumed)
    return read, problems


@pytest.mark.parametrize("fmt", ["tfevents", "visualdl"])
def test_every_untouched_record_is_read_after_random_damage(fmt):
    print(f"seed {SEED} (TBMF_FUZZ_SEED={SEED} replays it)")
    for case in range(CASES):
        rng = np.random.default_rng([SEED, case, fmt == "tfevents"])
        pieces, written = _damaged(fmt, rng)
        data = b"".join(p for p, _ in pieces)
        intact = [_payload(fmt, p) for p, ok in pieces if ok]
        where = f"{fmt} case {case}, TBMF_FUZZ_SEED={SEED}"
        # Damage followed by a whole record is reported, never silent.
        flagged = [ok is not True for _, ok in pieces]
        last_intact = max(
            (i for i, f in enumerate(flagged) if not f), default=0
        )
        reported = any(flagged[:last_intact])
        if fmt == "tfevents":
            # Read in random appends, as a growing file is.
            read, problems = _frame_in_pieces(fmt, data, rng)
            # Every untouched record, in order, and nothing the writer did
            # not write: a record whose checksum lost its last bytes, then
            # completed by the next record's first, passes both checksums
            # and is read (its payload is the one written).
            assert _in_order(intact, read), where
            assert _in_order(read, written), where
            assert bool(problems) or not reported, where
            continue
        # VisualDL, read at once: the untouched records, in order. Without
        # a checksum, flipped payload bytes, or a torn record completed by
        # the bytes after it into something that parses, read as records.
        framing = visualdl.frame(data)
        read = [
            data[s : s + n] for s, n in zip(framing.starts, framing.lengths)
        ]
        # A record under 16 bytes is only taken when a plausible frame or
        # the end follows it (see visualdl.frame).
        required = [
            _payload(fmt, p)
            for i, (p, ok) in enumerate(pieces)
            if ok
            and (
                len(_payload(fmt, p)) >= 16
                or i + 1 == len(pieces)
                or pieces[i + 1][1] is True
            )
        ]
        it = iter(read)
        assert all(any(r == p for r in it) for p in required), where


def _in_order(part: list[bytes], whole: list[bytes]) -> bool:
    """Whether `part` is `whole` with some items left out."""
    it = iter(whole)
    return all(any(w == p for w in it) for p in part)


def test_tfevents_length_of_2_62_with_a_valid_checksum_is_skipped():
    before = [eventfiles.scalar_event("a", i, 1.0, i) for i in range(3)]
    after = [eventfiles.scalar_event("a", i, 1.0, i) for i in range(3, 9)]
    buf = (
        eventfiles.record_bytes(before)
        + _tf_header(1 << 62)
        + eventfiles.record_bytes(after)
    )
    framing = tfrecord.frame_records(buf, file_offset=100)
    payloads = [buf[s : s + n] for s, n in zip(framing.starts, framing.lengths)]
    assert payloads == before + after and framing.consumed == len(buf)
    bad_at = 100 + len(eventfiles.record_bytes(before))
    (problem,) = framing.problems
    assert problem == (
        f"corrupt data at bytes {bad_at}-{bad_at + 12} (12 bytes skipped): "
        f"a record length of {1 << 62} bytes, more than any writer produces "
        f"({256 << 20} at most)"
    )


def test_plausible_length_over_whole_records_is_damage_not_pending():
    after = [eventfiles.scalar_event("a", i, 1.0, i) for i in range(5)]
    buf = _tf_header(100 << 20) + eventfiles.record_bytes(after)
    framing = tfrecord.frame_records(buf)
    payloads = [buf[s : s + n] for s, n in zip(framing.starts, framing.lengths)]
    assert payloads == after
    assert (
        "announcing 104857600 bytes, but a whole valid record starts 12 "
        in (framing.problems[0])
    )


# Steps whose record's last 1 or 2 checksum bytes equal the first bytes of
# the record of _NEXT (its length, 0x1a 0x00): found by search, checked in
# the test with TensorBoard's own writer.
_CUT_STEPS = {1: 438, 2: 47948}
_NEXT = eventfiles.scalar_event("loss", 7, 2.0, 0.5)


@pytest.mark.parametrize("cut", sorted(_CUT_STEPS))
def test_a_record_cut_in_its_checksum_then_appended_to_loses_nothing(
    cut, tmp_path
):
    # A writer dies `cut` bytes short of the end of a record; a new writer
    # appends. The bytes it appends complete the old record's checksum, so
    # both records pass both checksums, overlapping by `cut` bytes.
    cut_short = eventfiles.scalar_event("loss", _CUT_STEPS[cut], 1.0, 0.25)
    first = eventfiles.record_bytes([cut_short])
    after = [_NEXT, eventfiles.scalar_event("loss", 8, 3.0, 0.75)]
    rest = eventfiles.record_bytes(after)
    assert first[-cut:] == rest[:cut]  # the precondition, by TB's writer
    data = first[:-cut] + rest
    written = [cut_short, *after]
    whole = tfrecord.frame_records(data)
    assert _payloads(data, whole) == written and whole.consumed == len(data)
    (problem,) = whole.problems
    assert problem == (
        f"a record cut short before byte {len(first)}: the next one starts "
        f"{cut} bytes before its end (both pass their checksums, both read)"
    )
    # Appended at every possible place, as a growing file is read.
    for at in range(len(data) + 1):
        read, offset, pending = [], 0, b""
        for piece in (data[:at], data[at:]):
            buf = pending + piece
            framing = tfrecord.frame_records(
                buf, file_offset=offset, before=data[max(0, offset - 3) : offset]
            )
            read += _payloads(buf, framing)
            offset += framing.consumed
            pending = buf[framing.consumed :]
        assert read == written and not pending, at
    # And by the loader, the file growing in two writes.
    path = tmp_path / "run" / "events.out.tfevents.1.host"
    for at in (len(first) - cut, len(first), len(first) + 5):
        eventfiles.write(str(path), data[:at])
        store = Store()
        loader = Loader(str(tmp_path), store, config=lambda: Config())
        loader.reload()
        with open(path, "ab") as handle:
            handle.write(data[at:])
        loader.reload()
        steps = store.scalars("run", "loss").steps.tolist()
        assert steps == [_CUT_STEPS[cut], 7, 8], at


def _payloads(buf: bytes, framing: tfrecord.Framing) -> list[bytes]:
    return [buf[s : s + n] for s, n in zip(framing.starts, framing.lengths)]


def test_a_record_being_written_stays_pending_with_its_size():
    whole = eventfiles.record_bytes([b"x" * 1000])
    framing = tfrecord.frame_records(whole[:600])
    assert framing.consumed == 0 and framing.problems == ()
    assert framing.need == 1016 and not framing.damaged_tail
    vdl = eventfiles.vdl_records([eventfiles.vdl_value("t", 1, 1, scalar=1.0)])
    framing = visualdl.frame(vdl[:-3])
    assert framing.consumed == 0 and framing.need == len(vdl)


VDL = [
    eventfiles.vdl_value("loss", i, 1000 * i, scalar=float(i))
    for i in range(1, 40)
]


def test_visualdl_three_stray_bytes_mid_file_are_skipped():
    buf = (
        eventfiles.vdl_records(VDL[:10])
        + b"xyz"
        + eventfiles.vdl_records(VDL[10:])
    )
    framing = visualdl.frame(buf)
    payloads = [buf[s : s + n] for s, n in zip(framing.starts, framing.lengths)]
    assert payloads == VDL and framing.consumed == len(buf)
    at = len(eventfiles.vdl_records(VDL[:10]))
    (problem,) = framing.problems
    assert problem.startswith(f"corrupt data at bytes {at}-{at + 3} (3 bytes")


def test_visualdl_length_of_2_30_before_valid_records_is_skipped():
    buf = (
        eventfiles.vdl_records(VDL[:2])
        + struct.pack("<Q", 1 << 30)
        + eventfiles.vdl_records(VDL[2:])
    )
    framing = visualdl.frame(buf)
    payloads = [buf[s : s + n] for s, n in zip(framing.starts, framing.lengths)]
    assert payloads == VDL and len(framing.problems) == 1
    assert (
        f"a record length of {1 << 30} bytes, which no writer"
        in (framing.problems[0])
    )


def test_visualdl_torn_record_then_a_new_writer_appending():
    torn = eventfiles.vdl_records([VDL[5]])[:-4]
    buf = (
        eventfiles.vdl_records(VDL[:5]) + torn + eventfiles.vdl_records(VDL[6:])
    )
    framing = visualdl.frame(buf)
    payloads = [buf[s : s + n] for s, n in zip(framing.starts, framing.lengths)]
    assert payloads == VDL[:5] + VDL[6:]
    assert len(framing.problems) == 1


def test_every_real_visualdl_record_kind_verifies():
    """A log LogWriter 2.5.3 wrote with every kind (tests/data/
    visualdl_all_kinds, made by make.py there): each record is one that
    resynchronising would accept."""
    folder = os.path.join(
        os.path.dirname(__file__), "..", "data", "visualdl_all_kinds"
    )
    (name,) = [n for n in os.listdir(folder) if n.startswith("vdlrecords.")]
    with open(os.path.join(folder, name), "rb") as handle:
        buf = handle.read()
    framing = visualdl.frame(buf)
    assert framing.consumed == len(buf) and framing.problems == ()
    kinds = set()
    for start, length in zip(framing.starts.tolist(), framing.lengths.tolist()):
        assert visualdl._verified(buf, start, start + length)
        record = visualdl_wire.parse_record(buf[start : start + length])
        kinds.update(v.WhichOneof("one_value") for v in record.values)
    assert kinds == {
        "value",
        "tag_value",
        "histogram",
        "text",
        "image",
        "audio",
        "pr_curve",
        "roc_curve",
        "meta_data",
        "embeddings",
        "hparam",
    }


def _text_event(step: int, size: int) -> bytes:
    event = event_pb2.Event(wall_time=1.0, step=step)
    value = event.summary.value.add(tag="notes")
    value.metadata.plugin_data.plugin_name = "text"
    value.tensor.dtype = 7  # DT_STRING
    value.tensor.string_val.append(b"n" * size)
    return event.SerializeToString()


def _peak_reading(tmp_path, monkeypatch) -> tuple[int, Store]:
    monkeypatch.setattr(logfile, "READ_BYTES", 1 << 20)
    store = Store()
    loader = Loader(str(tmp_path), store, config=lambda: Config())
    tracemalloc.start()
    try:
        loader.reload()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, store


_BIG = 40 << 20  # bytes of valid records after the bad length
_PEAK = 12 << 20  # bytes: a few 1 MiB reads and records, never the 40 MB


def test_tfevents_bad_length_then_40_mb_is_read_within_bounded_memory(
    tmp_path, monkeypatch
):
    size = 64 << 10
    count = _BIG // size
    data = (
        eventfiles.record_bytes([eventfiles.scalar_event("loss", 0, 1.0, 0.5)])
        + _tf_header(1 << 62)
        + eventfiles.record_bytes(
            [_text_event(i, size) for i in range(count)]
            + [eventfiles.scalar_event("loss", 1, 2.0, 0.25)]
        )
    )
    eventfiles.write(str(tmp_path / "r" / eventfiles.TORCH_NAME), data)
    peak, store = _peak_reading(tmp_path, monkeypatch)
    assert store.scalars("r", "loss").values.tolist() == [0.5, 0.25]
    (warning,) = store.meta("r").warnings
    assert "more than any writer produces" in warning
    assert peak < _PEAK, f"peak {peak / 2**20:.1f} MiB while reading"


def test_visualdl_bad_length_then_40_mb_is_read_within_bounded_memory(
    tmp_path, monkeypatch
):
    def text(step: int) -> bytes:
        body = (
            b"\x08"
            + bytes([step % 100 + 1])
            + b"\x12\x05notes"
            + b"\x62"
            + _varint(64 << 10)
            + b"t" * (64 << 10)
        )
        return b"\x0a" + _varint(len(body)) + body

    count = _BIG // (64 << 10)
    data = (
        eventfiles.vdl_records([VDL[0]])
        + struct.pack("<Q", 1 << 30)
        + eventfiles.vdl_records([text(i) for i in range(count)] + [VDL[1]])
    )
    eventfiles.write(str(tmp_path / "v" / "vdlrecords.1700000000.log"), data)
    peak, store = _peak_reading(tmp_path, monkeypatch)
    assert store.scalars("v", "loss").values.tolist() == [1.0, 2.0]
    (warning,) = store.meta("v").warnings
    assert "which no writer produces" in warning
    assert peak < _PEAK, f"peak {peak / 2**20:.1f} MiB while reading"


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        byte, number = number & 0x7F, number >> 7
        out.append(byte | (0x80 if number else 0))
        if not number:
            return bytes(out)


def test_stray_bytes_at_the_end_say_what_they_are(tmp_path):
    data = eventfiles.vdl_records(VDL[:3]) + b"xyz"
    eventfiles.write(str(tmp_path / "v" / "vdlrecords.1700000000.log"), data)
    store = Store()
    Loader(str(tmp_path), store, config=lambda: Config()).reload()
    (warning,) = store.meta("v").warnings
    assert warning == (
        "vdlrecords.1700000000.log: ends with 3 bytes, fewer than a record "
        "header (8 bytes): the start of a record being written, or bytes "
        "left by an interrupted write; read once a whole record follows"
    )
    assert len(store.scalars("v", "loss")) == 3
