"""Full garbage collections in the server walk only what came after the
last freeze (`store/collector.py`, issue 20's stalls).

Each case runs in a fresh interpreter: freezing is per process, and this
test process' own objects must not count.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

_CHILD = textwrap.dedent(
    """
    import gc, json, sys, weakref
    from tb_multiframework.store import collector

    class Node:
        pass

    gc.collect()
    frozen_at_start = gc.get_freeze_count()  # some versions start with some
    # Long-lived data: LISTS lists of ten Nodes (11 containers each).
    LISTS = int(sys.argv[1])
    kept = [[Node() for _ in range(10)] for _ in range(LISTS)]
    # Garbage already promoted to the oldest generation: a cycle.
    cycle = Node()
    cycle.me = cycle
    cycle_gone = weakref.ref(cycle)
    gc.collect()  # everything alive is in the oldest generation now
    del cycle
    old = len(gc.get_objects(generation=2))
    below = collector.freeze_long_lived(threshold=old + 1)
    frozen_below = gc.get_freeze_count() - frozen_at_start
    froze = collector.freeze_long_lived(threshold=old)
    after = collector.collector_figures()

    # A frozen object is still freed when its last reference goes.
    first = kept.pop()
    frozen_before_drop = gc.get_freeze_count()
    del first
    dropped = frozen_before_drop - gc.get_freeze_count()

    # New long-lived data after the freeze is what a collection walks.
    newer = [[Node() for _ in range(10)] for _ in range(1000)]
    gc.collect()
    walked = len(gc.get_objects(generation=2))

    # The price: a frozen cycle that becomes garbage is not collected.
    leak = Node()
    leak.me = leak
    leak_gone = weakref.ref(leak)
    gc.collect()
    collector.freeze_long_lived(threshold=0)
    del leak
    gc.collect()
    print(json.dumps({
        "old": old, "below": below, "frozenBelow": frozen_below,
        "froze": froze, "after": after, "cycleCollected": cycle_gone() is None,
        "dropped": dropped, "walked": walked,
        "frozenCycleCollected": leak_gone() is None,
    }))
    """
)


def test_freezing_leaves_full_collections_only_newer_objects():
    lists = 20_000
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(lists)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    got = json.loads(done.stdout)
    # The data alone is 11 containers per list, plus the list of them.
    assert got["old"] >= 11 * lists + 1, got
    # Below the threshold nothing moves.
    assert got["below"] is False and got["frozenBelow"] == 0, got
    # At it, all of the oldest generation is frozen (it held the data)...
    assert got["froze"] is True, got
    assert got["after"]["gcFrozenObjects"] >= 11 * lists + 1, got
    assert got["after"]["gcOldObjects"] < 100, got
    # ...after the garbage in it was collected, not frozen with it.
    assert got["cycleCollected"] is True, got
    # Freed by reference count as before: one list and its ten Nodes.
    assert got["dropped"] == 11, got
    # A full collection now walks the 11,000 newer objects, not the data.
    assert 11 * 1000 <= got["walked"] < 11 * 1000 + 200, got
    # The documented price: a frozen cycle that dies stays (bounded by
    # what is in flight at a freeze; see the module's note).
    assert got["frozenCycleCollected"] is False, got
