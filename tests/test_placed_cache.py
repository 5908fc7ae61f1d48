"""The placed-series cache: hits, extension on append, invalidation, bounds.

Every answer is checked against `place_series` computed afresh on the same
store contents (the cache must never change a result), for a series that a
live run keeps appending to through the real `Store`.
"""

from __future__ import annotations

import numpy as np
import pytest

from tb_multiframework.api.placed import PlacedCache
from tb_multiframework.core.axes import EpochMap
from tb_multiframework.core.compare import Selection, place_series
from tb_multiframework.core.types import RunInfo
from tb_multiframework.store.store import RunMeta, Store

RUN = RunInfo("r", "r", "pytorch", "torch.utils.tensorboard")


def _store():
    store = Store()
    store.set_meta(
        RunMeta(
            run="r",
            group="r",
            framework="pytorch",
            writer="torch.utils.tensorboard",
            format="tfevents",
        )
    )
    return store


def _append(store, steps, values, attempt=None):
    steps = np.asarray(steps, dtype=np.int64)
    store.append_scalars(
        "r",
        "loss",
        steps,
        1.7e9 + steps * 0.5,
        np.asarray(values, float),
        attempts=None if attempt is None else np.full(len(steps), attempt),
    )


def _selection(store, epoch_map=None):
    return Selection(
        run=RUN,
        tag="loss",
        series=store.scalars("r", "loss"),
        epoch_map=epoch_map,
        run_start_time=1.7e9,
        run_last_step=store.summary("r").last_step,
    )


def _assert_equal_to_fresh(cache, sel, axis, smoothing, mode):
    got = cache.place(sel, axis, smoothing, mode)
    fresh = place_series(sel, axis, smoothing, mode)
    for field in ("x", "y", "steps", "wall_times"):
        np.testing.assert_array_equal(
            getattr(got, field), getattr(fresh, field)
        )
    np.testing.assert_allclose(
        got.smoothed, fresh.smoothed, rtol=1e-12, atol=1e-12
    )
    return got


@pytest.mark.parametrize("mode", ["ema", "time"])
@pytest.mark.parametrize("axis", ["step", "wall", "relative", "progress"])
def test_appends_give_what_a_fresh_placement_gives(axis, mode):
    rng = np.random.default_rng(17)
    print("seed=17")
    store, cache = _store(), PlacedCache()
    values = rng.normal(size=3000).cumsum()
    values[rng.integers(0, 3000, 20)] = np.nan
    end = 0
    for cut in (500, 501, 1200, 1201, 2600, 3000):
        _append(store, np.arange(end, cut), values[end:cut])
        end = cut
        for smoothing in (0.0, 0.6, 0.99):
            _assert_equal_to_fresh(
                cache, _selection(store), axis, smoothing, mode
            )


def test_unchanged_data_is_a_hit_and_returns_the_same_arrays():
    store, cache = _store(), PlacedCache()
    _append(store, np.arange(100), np.arange(100.0) % 7)
    first = cache.place(_selection(store), "step", 0.6, "ema")
    again = cache.place(_selection(store), "step", 0.6, "ema")
    assert again is first


def test_points_appended_before_the_end_are_sorted_in():
    store, cache = _store(), PlacedCache()
    _append(store, np.arange(10, 20), np.arange(10.0))
    _assert_equal_to_fresh(cache, _selection(store), "step", 0.5, "ema")
    # A restarted run logs steps 12.. again (a new attempt, as ingest marks
    # it): they sort among the old ones.
    _append(store, np.arange(12, 30), -np.arange(18.0), attempt=1)
    got = _assert_equal_to_fresh(cache, _selection(store), "step", 0.5, "ema")
    assert got.x.size == 28


def test_a_constant_series_that_stops_being_constant_is_smoothed_again():
    store, cache = _store(), PlacedCache()
    _append(store, np.arange(50), np.full(50, 2.0))
    got = _assert_equal_to_fresh(cache, _selection(store), "step", 0.9, "ema")
    assert np.all(got.smoothed == 2.0)  # returned as is, like TensorBoard
    _append(store, np.arange(50, 60), np.full(10, 2.0))
    _assert_equal_to_fresh(cache, _selection(store), "step", 0.9, "ema")
    _append(store, np.arange(60, 70), np.arange(10.0))
    got = _assert_equal_to_fresh(cache, _selection(store), "step", 0.9, "ema")
    assert not np.all(got.smoothed == got.y)


def test_a_new_epoch_map_places_the_series_anew():
    store, cache = _store(), PlacedCache()
    _append(store, np.arange(100), np.arange(100.0))
    ten = EpochMap(source="config: 10 steps/epoch", steps_per_epoch=10.0)
    got = cache.place(_selection(store, ten), "epoch", 0.0, "ema")
    assert got.x[-1] == pytest.approx(9.9)
    twenty = EpochMap(source="config: 20 steps/epoch", steps_per_epoch=20.0)
    got = cache.place(_selection(store, twenty), "epoch", 0.0, "ema")
    assert got.x[-1] == pytest.approx(4.95)


def test_memory_is_bounded():
    store, cache = _store(), PlacedCache(max_bytes=200_000)
    _append(store, np.arange(5000), np.arange(5000.0))
    for weight in (0.1, 0.2, 0.3, 0.4, 0.5):
        cache.place(_selection(store), "step", weight, "ema")
    assert cache.nbytes <= 200_000 or len(cache._entries) == 1
