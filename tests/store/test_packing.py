"""Packed columns round-trip exactly, on random and adversarial data.

Equality is checked on the raw bits (`view(uint64)`), so NaN payloads,
-0.0 and infinities count; sizes are checked against the 16 bytes a point
the issue allows.
"""

from __future__ import annotations

import numpy as np
import pytest

from tb_multiframework.store.packing import pack_ints, pack_series, pack_values

SEED = 20260512
I64 = np.iinfo(np.int64)


def _bits(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).view(np.uint64)


def _roundtrip_ints(values: np.ndarray) -> None:
    values = np.asarray(values, dtype=np.int64)
    packed = pack_ints(values)
    decoded = packed.decode()
    assert decoded.dtype == np.int64
    np.testing.assert_array_equal(decoded, values)


@pytest.mark.parametrize(
    "values",
    [
        [],
        [7],
        [I64.min, I64.max],
        [I64.max, I64.min, I64.max, 0, -1],
        [I64.min] * 5,
        list(range(-5, 100, 7)),  # affine
        [0, 2**62, 2**63 - 1, -(2**63), 5],  # differences wrap
        [I64.max - 3 + i for i in range(4)],
        [5, 4, 3, 2, 1, 0, -1],  # decreasing affine
        [0, 1, 2, 0, 1, 2, 0, 1, 2],  # restarts: non-monotonic
        [0, 1, 2, 3, 10**15, 10**15 + 1],  # one huge jump: an exception
    ],
)
def test_adversarial_ints(values):
    _roundtrip_ints(np.array(values, dtype=np.int64))


def test_random_ints():
    rng = np.random.default_rng(SEED)
    print(f"seed {SEED}")
    for case in range(300):
        n = int(rng.integers(0, 2000))
        kind = case % 5
        if kind == 0:  # full range
            values = rng.integers(
                I64.min, I64.max, n, dtype=np.int64, endpoint=True
            )
        elif kind == 1:  # steps with occasional restarts and jumps
            values = np.cumsum(rng.integers(0, 5, n)).astype(np.int64)
            values[rng.random(n) < 0.01] = rng.integers(-(10**12), 10**12)
        elif kind == 2:  # affine, any stride
            values = (
                rng.integers(-(2**62), 2**62)
                + rng.integers(-(2**40), 2**40) * np.arange(n)
            ).astype(np.int64)
        elif kind == 3:  # small differences with wide outliers
            values = np.cumsum(rng.integers(-200, 200, n)).astype(np.int64)
            spots = rng.random(n) < 0.05
            values[spots] = rng.integers(I64.min, I64.max, int(spots.sum()))
        else:  # extremes mixed in
            values = rng.choice(
                np.array([I64.min, I64.max, 0, -1, 1], dtype=np.int64), n
            )
        _roundtrip_ints(values)


def _roundtrip_series(steps, walls, values) -> None:
    packed = pack_series(steps, walls, values)
    got_steps, got_walls, got_values = packed.decode()
    assert got_steps.dtype == np.int64
    assert got_walls.dtype == got_values.dtype == np.float64
    np.testing.assert_array_equal(got_steps, steps)
    np.testing.assert_array_equal(_bits(got_walls), _bits(walls))
    np.testing.assert_array_equal(_bits(got_values), _bits(values))


def test_adversarial_wall_times_and_values():
    nan_payload = np.array([0x7FF8000000000123], dtype=np.uint64).view(
        np.float64
    )
    walls = np.array(
        [
            1.7e9,
            np.nan,
            -0.0,
            0.0,
            np.inf,
            -np.inf,
            nan_payload[0],
            5e-324,
            np.finfo(np.float64).max,
            1.7e9 + 1e-6,
            1.7e9,
        ],
        dtype=np.float64,
    )
    values = walls[::-1].copy()
    steps = np.array([0, 0, -1, I64.max, I64.min, 3, 3, 2, 1, 0, 10])
    _roundtrip_series(steps, walls, values)
    # float32-exact values are kept as float32, the rest as float64.
    assert (
        pack_values(np.float32([1.5, np.nan, -0.0]).astype(np.float64)).dtype
        == np.float32
    )
    assert pack_values(np.array([0.1])).dtype == np.float64
    assert pack_values(nan_payload).dtype == np.float64  # payload kept


def test_random_series_and_their_size():
    rng = np.random.default_rng(SEED)
    for case in range(100):
        n = int(rng.integers(1, 5000))
        steps = np.arange(n, dtype=np.int64) * int(rng.integers(1, 100))
        if case % 3 == 0:
            steps = np.sort(rng.integers(0, 10**9, n))
        gaps = rng.exponential(rng.choice([0.001, 0.05, 2.0]), n)
        walls = 1.7e9 + rng.uniform(0, 1e7) + np.cumsum(gaps)
        if case % 7 == 0:
            walls[rng.random(n) < 0.02] = np.nan
        values = rng.normal(size=n).astype(np.float32).astype(np.float64)
        _roundtrip_series(steps, walls, values)


def test_a_typical_series_costs_8_bytes_a_point():
    """Torch-style: every step, 50 ms apart with jitter, float32 values."""
    rng = np.random.default_rng(SEED)
    n = 100_000
    steps = np.arange(n, dtype=np.int64)
    gaps = rng.uniform(0.04, 0.06, n)
    gaps[rng.integers(0, n, 10)] += 3600  # an hour's pause, a few times
    walls = 1.7e9 + np.cumsum(gaps)
    values = rng.normal(size=n).astype(np.float32).astype(np.float64)
    packed = pack_series(steps, walls, values)
    # 0 (steps) + 4 (walls) + 4 (values), plus 16 bytes a pause.
    assert packed.nbytes <= 8 * n + 16 * 10
    _roundtrip_series(steps, walls, values)


def test_the_store_hands_out_the_same_arrays_while_they_are_held():
    """Identity-keyed caches (the placed cache) stay valid, and nothing is
    decoded twice, while a caller holds a series; the store itself keeps
    only the packed form."""
    import gc

    from tb_multiframework.store.store import RunMeta, Store

    store = Store()
    store.set_meta(RunMeta("r", "r", "pytorch", "", "tfevents"))
    steps = np.arange(1000, dtype=np.int64)
    store.append_scalars("r", "t", steps, 1.7e9 + steps, steps / 3.0)
    store.compact()
    first = store.scalars("r", "t")
    again = store.scalars("r", "t")
    assert again.steps is first.steps and again.values is first.values
    del first, again
    gc.collect()
    fresh = store.scalars("r", "t")
    np.testing.assert_array_equal(fresh.values, steps / 3.0)
    assert not fresh.values.flags.writeable
    store.append_scalars("r", "t", np.array([1000]), np.array([2e9]), [7.0])
    grown = store.scalars("r", "t")
    assert grown.values is not fresh.values and len(grown) == 1001
