"""Prints how the speed derived from wall time agrees with what each
framework logged itself (tests/data/speed/frameworks), as the README's
table. The framework's own figures are read with TensorBoard's
`EventAccumulator`, the derived ones through `tbmf`'s stack.

Usage: python scripts/speed/agreement.py [LOGDIR]
"""

from __future__ import annotations

import os
import sys

import numpy as np
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.util import tensor_util

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "..", "tests", "data", "speed", "frameworks")


def logged(path: str, tag: str) -> tuple[np.ndarray, np.ndarray]:
    """(steps, values) of a tag as TensorBoard itself reads it."""
    acc = event_accumulator.EventAccumulator(
        path, size_guidance={"scalars": 0, "tensors": 0}
    )
    acc.Reload()
    if tag in acc.Tags()["scalars"]:
        events = acc.Scalars(tag)
        return (
            np.array([e.step for e in events]),
            np.array([e.value for e in events], np.float64),
        )
    events = acc.Tensors(tag)
    return (
        np.array([e.step for e in events]),
        np.array(
            [float(tensor_util.make_ndarray(e.tensor_proto)) for e in events]
        ),
    )


def measure(logdir: str) -> list[tuple[str, str, float, float]]:
    """(framework, quantity, framework's figure, derived) rows."""
    from tb_multiframework import wiring

    stack = wiring.build_stack(logdir, layouts=False)
    stack.loader.reload()
    speed = {r["run"]: r for r in stack.api.speed_payload(())["runs"]}
    rows = []
    # Keras: epoch_steps_per_second of epochs 1.. vs steps / derived epoch.
    k = speed["keras_sps/train"]
    _, sps = logged(
        os.path.join(logdir, "keras_sps", "train"), "epoch_steps_per_second"
    )
    for epoch in k["epochs"]:
        rows.append(
            (
                "Keras",
                f"epoch {epoch['epoch']} steps/s (write_steps_per_second)",
                float(sps[epoch["epoch"]]),
                40 / epoch["seconds"],
            )
        )
    steps, batch = logged(
        os.path.join(logdir, "keras_sps", "train"), "batch_steps_per_second"
    )
    rows.append(
        (
            "Keras",
            "median batch steps/s (compute only)",
            float(np.median(batch[1:])),
            k["stepsPerSecond"],
        )
    )
    # HF: train_steps_per_second (steps / train() seconds) vs derived.
    h = speed["hf_sps"]
    _, hf = logged(
        os.path.join(logdir, "hf_sps"), "train/train_steps_per_second"
    )
    _, runtime = logged(os.path.join(logdir, "hf_sps"), "train/train_runtime")
    rows.append(
        (
            "HF Trainer",
            "train_steps_per_second",
            float(hf[0]),
            200 / (h["trainingSeconds"] + 5 * h["meanStepTime"]),
        )
    )
    _, hfs = logged(
        os.path.join(logdir, "hf_sps"), "train/train_samples_per_second"
    )
    rows.append(
        (
            "HF Trainer",
            "train_samples_per_second",
            float(hfs[0]),
            h["samplesPerStep"]
            * 200
            / (h["trainingSeconds"] + 5 * h["meanStepTime"]),
        )
    )
    rows.append(
        (
            "HF Trainer",
            "train_runtime (s)",
            float(runtime[0]),
            h["trainingSeconds"] + 5 * h["meanStepTime"],
        )
    )
    # MMEngine: `time` (window mean s/iteration) vs derived s/step, median.
    m_run = next(r for r in speed if r.startswith("mmengine_sps"))
    m = speed[m_run]
    _, mm = logged(os.path.join(logdir, m_run), "time")
    rows.append(
        (
            "MMEngine",
            "median time (s/iteration)",
            float(np.median(mm)),
            m["medianStepTime"],
        )
    )
    rows.append(
        (
            "MMEngine",
            "mean time (s/iteration)",
            float(np.mean(mm)),
            m["meanStepTime"],
        )
    )
    # SB3: time/fps is steps since learn() / seconds since: the rate
    # between the first and last dump from it, vs derived.
    s_run = next(r for r in speed if r.startswith("sb3_sps"))
    steps, fps = logged(os.path.join(logdir, s_run), "time/fps")
    elapsed = steps / fps
    rows.append(
        (
            "SB3",
            "time/fps rate, first to last dump (steps/s)",
            float((steps[-1] - steps[0]) / (elapsed[-1] - elapsed[0])),
            1.0 / speed[s_run]["meanStepTime"],
        )
    )
    return rows


def main() -> None:
    logdir = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    print(
        "| framework | figure | its own | derived from wall time | derived / own |"
    )
    print("|---|---|--:|--:|--:|")
    for framework, what, own, derived in measure(logdir):
        print(
            f"| {framework} | {what} | {own:.4g} | {derived:.4g} | {derived / own:.3f} |"
        )


if __name__ == "__main__":
    main()
