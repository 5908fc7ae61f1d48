"""A training loop's logging, live: appends and flushes while it runs.

    python3 tests/live_writer.py LOGDIR STEPS INTERVAL

writes two runs under LOGDIR while it goes: `tb/` through TensorBoard's own
`EventFileWriter` (the class torch's SummaryWriter wraps), flushed every
INTERVAL seconds, and `vdl/` as VisualDL records appended and flushed just as
often. Each step logs `loss` and, every third step, the much longer
`validation/accuracy_top1_whole_set` (the case that once misfiled points),
and every fifth step a multi-byte UTF-8 tag. At the end it writes
LOGDIR/truth.json: every point it logged, per run and tag.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

import numpy as np
from tensorboard.compat.proto import event_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests import eventfiles  # noqa: E402

TAGS = ("loss", "validation/accuracy_top1_whole_set", "métrique/λ")


def _points(step: int) -> list[tuple[str, float]]:
    out = [(TAGS[0], float(np.float32(2.0 * math.exp(-step / 40.0))))]
    if step % 3 == 0:
        out.append((TAGS[1], float(np.float32(step / (step + 10.0)))))
    if step % 5 == 0:
        out.append((TAGS[2], float(np.float32(-step * 0.5))))
    return out


def main(logdir: str, steps: int, interval: float) -> None:
    truth: dict[str, dict[str, list[list[float]]]] = {"tb": {}, "vdl": {}}
    writer = EventFileWriter(os.path.join(logdir, "tb"), flush_secs=3600)
    os.makedirs(os.path.join(logdir, "vdl"), exist_ok=True)
    vdl_path = os.path.join(logdir, "vdl", "vdlrecords.1700000000.log")
    with open(vdl_path, "ab") as vdl:
        for step in range(steps):
            wall = time.time()
            for tag, value in _points(step):
                event = event_pb2.Event(wall_time=wall, step=step)
                event.summary.value.add(tag=tag, simple_value=value)
                writer.add_event(event)
                millis = int(wall * 1000)
                vdl.write(
                    eventfiles.vdl_records(
                        [eventfiles.vdl_value(tag, step, millis, scalar=value)]
                    )
                )
                truth["tb"].setdefault(tag, []).append([step, value])
                truth["vdl"].setdefault(tag, []).append([step, value])
            writer.flush()
            vdl.flush()
            time.sleep(interval)
    writer.close()
    with open(os.path.join(logdir, "truth.json"), "w") as handle:
        json.dump(truth, handle)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
