"""Short pauses of Python's cyclic garbage collector in the server.

A full collection (of the oldest generation) walks every container object
the process holds while holding the GIL: no other request runs meanwhile.
A TensorBoard process holds many that live for good: its own reservoirs
(two objects per kept point: 160,000 for 20 runs of four tags), modules,
the store's contexts. Requests promote enough short-lived objects into the
oldest generation that Python runs a full collection every 15–40 s under
the soak (`bench/bench_soak.py`), and each took 100–195 ms there: those
were every light request stalled > 100 ms (the stall trace matched each
one to a collection; none was left after the fix).

`freeze_long_lived` waits until the oldest generation holds
`FREEZE_AFTER` objects, collects (so no garbage already there is frozen),
then moves every object the collector tracks (after that collection
nearly all in the oldest generation) into Python's permanent generation
(`gc.freeze`): later collections walk only what came after, a few
milliseconds. The
server calls it after each reload, when what a reload added (TensorBoard's
and the store's data) has become long-lived.

The price, bounded: a frozen object is still freed when its last
reference goes, but a frozen object in a reference cycle that later
becomes garbage is never collected. Requests make such cycles (a werkzeug
request and its environ, ~16 objects each): those in flight at a freeze
are kept, a few KiB per freeze. Freezes happen only when another
`FREEZE_AFTER` long-lived objects have accumulated, i.e. as the data
grows, not as time passes. The command line and the Python API never
freeze: the caller's process is theirs.
"""

from __future__ import annotations

import gc

FREEZE_AFTER = 50_000  # objects in the oldest generation (~25 ms a walk)


def freeze_long_lived(threshold: int = FREEZE_AFTER) -> bool:
    """Freezes the oldest generation once it holds `threshold` objects or
    more (after collecting it); True when it did."""
    if len(gc.get_objects(generation=2)) < threshold:
        return False
    gc.collect()  # walks only what is not frozen yet
    gc.freeze()
    return True


def collector_figures() -> dict[str, int]:
    """Objects a full collection walks (`gcOldObjects`: the oldest
    generation) and those frozen out of it (`gcFrozenObjects`)."""
    return {
        "gcOldObjects": len(gc.get_objects(generation=2)),
        "gcFrozenObjects": gc.get_freeze_count(),
    }
