"""The vectorised CRC-32C against TensorBoard's own pure-Python one."""

import numpy as np
import pytest
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import (
    masked_crc32c as reference_masked_crc32c,
)

from tb_multiframework.ingest.crc32c import masked_crc32c, masked_crc32c_many


def test_known_value():
    # CRC-32C check value from RFC 3720 (iSCSI), unmasked: 0xE3069283.
    from tb_multiframework.ingest.crc32c import crc32c

    assert crc32c(b"123456789") == 0xE3069283


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_many_slices_match_reference(seed):
    rng = np.random.default_rng(seed)
    lengths = np.concatenate(
        [np.arange(0, 80), rng.integers(0, 3000, 40), [5000, 70001]]
    ).astype(np.int64)
    rng.shuffle(lengths)
    gaps = rng.integers(0, 7, len(lengths))
    starts = np.cumsum(np.concatenate(([3], lengths[:-1] + gaps[:-1])))
    buf = rng.integers(
        0, 256, int(starts[-1] + lengths[-1] + 5), dtype=np.uint8
    )
    got = masked_crc32c_many(buf, starts, lengths)
    raw = buf.tobytes()
    expected = [
        reference_masked_crc32c(raw[s : s + n]) for s, n in zip(starts, lengths)
    ]
    assert got.tolist() == expected


def test_scalar_function_matches_reference():
    data = bytes(range(256)) * 3
    assert masked_crc32c(data) == reference_masked_crc32c(data)


def test_empty_input():
    got = masked_crc32c_many(np.zeros(4, np.uint8), np.zeros(0), np.zeros(0))
    assert got.shape == (0,)


def test_buffers_shorter_than_a_block():
    for size in range(0, 70, 3):
        buf = np.arange(size, dtype=np.uint8)
        for start in range(0, size + 1, 4):
            length = size - start
            got = masked_crc32c_many(buf, np.array([start]), np.array([length]))
            assert got[0] == reference_masked_crc32c(buf[start:].tobytes())
