"""VisualDL records, encoded by hand from the wire format."""

import struct

import numpy as np

from tb_multiframework.ingest import visualdl
from tests.eventfiles import vdl_records, vdl_value


def _decode(buf):
    starts, lengths, consumed, problems = visualdl.frame_records(buf)
    return visualdl.decode_records(buf, starts, lengths), consumed, problems


def _scalars(chunk):
    return [
        (chunk.scalar_tags[t], int(s), float(w), float(v))
        for t, s, w, v in zip(
            chunk.scalar_tag_ids, chunk.steps, chunk.wall_times, chunk.values
        )
    ]


def test_scalars_tag_values_histograms_meta():
    f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]  # noqa: E731
    records = [
        vdl_value("meta_data_tag", 0, 1_700_000_000_000, display_name="my run"),
        vdl_value("Train/Loss", 0, 1_700_000_000_500, scalar=1.25),
        vdl_value("Train/Loss", 1, 1_700_000_001_000, scalar=0.1),
        vdl_value("Loss", 1, 1_700_000_001_000, tag_value=("train", 0.7)),
        vdl_value("Loss", 1, 1_700_000_001_000, tag_value=("eval", 0.9)),
        vdl_value("Train/Loss", 300, 1_700_000_002_000, scalar=-3.5),
        vdl_value(
            "fc.w_0",
            2,
            1_700_000_003_000,
            hist=([0, 2, 0, 5], [-1.0, -0.5, 0.0, 0.5, 1.0]),
        ),
    ]
    chunk, consumed, problems = _decode(vdl_records(records))
    assert problems == [] and chunk.problems == []
    assert _scalars(chunk) == [
        ("Train/Loss", 0, 1_700_000_000.5, 1.25),
        ("Train/Loss", 1, 1_700_000_001.0, f32(0.1)),
        ("Loss/train", 1, 1_700_000_001.0, f32(0.7)),
        ("Loss/eval", 1, 1_700_000_001.0, f32(0.9)),
        ("Train/Loss", 300, 1_700_000_002.0, -3.5),
    ]
    (hist,) = chunk.histograms["fc.w_0"]
    np.testing.assert_array_equal(hist.edges, [-0.5, 0.0, 0.5, 1.0])
    np.testing.assert_array_equal(hist.counts, [2, 0, 5])
    assert hist.step == 2 and hist.wall_time == 1_700_000_003.0
    assert chunk.run_display_name == "my run"


def test_torn_record_is_left_pending():
    whole = vdl_records(
        [vdl_value("a", i, 1000 * i, scalar=float(i)) for i in range(1, 6)]
    )
    last = len(
        vdl_records(
            [vdl_value("a", i, 1000 * i, scalar=float(i)) for i in range(1, 5)]
        )
    )
    for cut in range(last, len(whole)):
        starts, lengths, consumed, problems = visualdl.frame_records(
            whole[:cut]
        )
        assert len(starts) == 4 and consumed == last and problems == []


def test_impossible_length_is_skipped_to_the_next_record():
    """Issue 13: a length of 2^40 used to stop reading the file there."""
    buf = vdl_records([vdl_value("a", 1, 1000, scalar=1.0)])
    bad_at = len(buf)
    buf += struct.pack("<Q", 1 << 40) + b"junk"
    buf += vdl_records([vdl_value("a", 2, 2000, scalar=2.0)])
    starts, lengths, consumed, problems = visualdl.frame_records(buf)
    assert len(starts) == 2 and consumed == len(buf)
    assert problems == [
        f"corrupt data at bytes {bad_at}-{bad_at + 12} (12 bytes skipped): "
        f"a record length of {1 << 40} bytes, which no writer produces"
    ]
