"""A series and its attempt masks are one version, even while a reader appends.

Regression (issue 20, point 3): `current_scalars` read the points under one
lock and the attempt masks under another; a resumed run that kept growing
between the two gave a mask longer than the series (IndexError, a 500).
"""

import threading

import numpy as np

from tb_multiframework.store import scalar_reads as store_module
from tb_multiframework.store.store import RunMeta, Store


def _resumed_store():
    """Run `r`, tag `loss`: steps 0..9 (attempt 0), then 5..14 (attempt 1)."""
    store = Store()
    store.set_meta(RunMeta("r", "r", "pytorch", "", "tfevents"))
    steps = np.concatenate([np.arange(10), np.arange(5, 15)])
    attempts = np.array([0] * 10 + [1] * 10)
    values = steps * 10.0 + attempts
    store.append_scalars(
        "r", "loss", steps, steps * 1.0 + 1e9, values, attempts=attempts
    )
    return store


def test_append_while_decoding_gives_one_version(monkeypatch):
    store = _resumed_store()
    real = store_module.decode_blocks
    appended = []

    def decode_then_append(blocks):
        decoded = real(blocks)
        if not appended:  # a writer lands between the snapshot and the masks
            appended.append(True)
            store.append_scalars(
                "r",
                "loss",
                np.arange(15, 20),
                np.arange(15, 20) * 1.0 + 1e9,
                np.arange(15, 20) * 10.0 + 1,
                attempts=np.ones(5, dtype=np.int64),
            )
        return decoded

    monkeypatch.setattr(store_module, "decode_blocks", decode_then_append)
    current = store.current_scalars("r", "loss")
    # Hand-computed: attempt 0 keeps steps 0..4, attempt 1 holds 5..14 (the
    # snapshot before the append), all increasing, one point a step.
    assert current.steps.tolist() == list(range(15))
    expected = [s * 10.0 for s in range(5)] + [s * 10.0 + 1 for s in range(5, 15)]
    assert current.values.tolist() == expected
    # The next read sees the appended points, with masks of their length.
    every, found = store.scalar_view("r", "loss")
    assert len(every) == 25 and len(found.current) == 25
    assert store.current_scalars("r", "loss").steps.tolist() == list(range(20))


def test_concurrent_reads_never_fail_while_appending():
    """Readers against a growing resumed series: bounded (about a second)."""
    store = _resumed_store()
    errors = []
    stop = threading.Event()

    def writer():
        step = 15
        while not stop.is_set() and step < 15 + 3000:
            store.append_scalars(
                "r",
                "loss",
                np.array([step]),
                np.array([1e9 + step]),
                np.array([step * 10.0 + 1]),
                attempts=np.array([1]),
            )
            step += 1

    def reader():
        try:
            for _ in range(300):
                series = store.current_scalars("r", "loss")
                steps = series.steps
                assert (np.diff(steps) > 0).all()
                assert steps[0] == 0 and steps[-1] == len(steps) - 1
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=writer)] + [
        threading.Thread(target=reader) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads[1:]:
        thread.join(timeout=60)
    stop.set()
    threads[0].join(timeout=60)
    assert errors == []
