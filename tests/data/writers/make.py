"""Writes small logs with torch, tensorboardX and tf.summary, for the tbparse
differential test (tests/frames/test_tbparse_differential.py).

The tree, one folder per writer (run names as TensorBoard and tbparse see
them; `<t>` is a `time.time()` sub-run that `add_hparams` creates):

    torch/                 torch.utils.tensorboard.SummaryWriter
      plain/               add_scalar (float32 and NaN/±Inf values, a repeated
                           step), add_scalar(new_style=True) (a rank-0 tensor
                           with plugin 'scalars'), the same with
                           double_precision=True (a float64 tensor),
                           add_histogram (bins='tensorflow' and bins='auto')
      plain/Loss_train/    add_scalars("Loss", {"train", "val"}) sub-runs
      plain/Loss_val/
      plain/<t>/           add_hparams (default run_name: a sub-run)
      resumed/             two writers on one directory: steps 0..9, then
                           purge_step=6 and steps 6..11 again
    tbx/                   tensorboardX.SummaryWriter
      plain/               add_scalar, add_histogram
      plain/Loss/train/    add_scalars("Loss", {"train", "val"}) sub-runs
      plain/Loss/val/      (tensorboardX nests them, torch joins with `_`)
      plain/<t>/           add_hparams sub-run (as torch's)
    tf/                    tf.summary (TF2, `.v2` files)
      plain/               tf.summary.scalar, tf.summary.histogram, the
                           hparams plugin's hp.hparams

They need a venv with torch==2.13.0, tensorflow-cpu==2.21.0 and tensorboardX
(the plugin and the tests need none of them), e.g.:

    python3.11 -m venv /tmp/gen && /tmp/gen/bin/pip install torch==2.13.0 \
        tensorflow-cpu==2.21.0 tensorboardX
    rm -rf tests/data/writers/{torch,tbx,tf}
    /tmp/gen/bin/python tests/data/writers/make.py tests/data/writers

Values come from a seeded generator; file names and wall times change with
every run of this script.
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

STEPS = 12  # points a scalar tag
HIST_STEPS = 3  # histograms a tag


def values(seed: int, n: int = STEPS) -> list[float]:
    rng = np.random.default_rng(seed)
    return (np.exp(-np.arange(n) / 5) + rng.normal(0, 0.05, n)).tolist()


def write_torch(out: str) -> None:
    from torch.utils.tensorboard import SummaryWriter

    rng = np.random.default_rng(1)
    w = SummaryWriter(os.path.join(out, "plain"))
    for step, v in enumerate(values(1)):
        w.add_scalar("Loss/train", v, step)
        w.add_scalar("Accuracy/train", 1 - v / 2, step)
        w.add_scalar("new/loss", v * 3, step, new_style=True)
        w.add_scalar(
            "new/loss64", v / 3, step, new_style=True, double_precision=True
        )
        w.add_scalars("Loss", {"train": v, "val": v + 0.1}, step)
    # Non-finite values and a step logged twice (kept: nothing is dropped).
    for step, v in enumerate([math.nan, math.inf, -math.inf, 0.5, 0.25]):
        w.add_scalar("odd/values", v, step)
    w.add_scalar("odd/values", 0.125, 4)
    for step in range(HIST_STEPS):
        w.add_histogram("weights/fc1", rng.normal(0, 1 + step, 500), step)
        w.add_histogram(
            "weights/auto", rng.normal(0, 1 + step, 500), step, bins="auto"
        )
    w.add_hparams(
        {"lr": 0.01, "optimizer": "sgd", "batch_size": 32, "amp": True},
        {"hparam/loss": 0.25},
    )
    w.close()

    first = SummaryWriter(os.path.join(out, "resumed"))
    for step, v in enumerate(values(2, 10)):
        first.add_scalar("Loss/train", v, step)
    first.close()
    time.sleep(1.1)  # a new file name (its timestamp is in whole seconds)
    second = SummaryWriter(os.path.join(out, "resumed"), purge_step=6)
    for step, v in enumerate(values(3), start=0):
        if step >= 6:
            second.add_scalar("Loss/train", v, step)
    second.close()


def write_tbx(out: str) -> None:
    from tensorboardX import SummaryWriter

    rng = np.random.default_rng(4)
    w = SummaryWriter(os.path.join(out, "plain"))
    for step, v in enumerate(values(5)):
        w.add_scalar("train/loss", v, step)
        w.add_scalar("train/acc", 1 - v / 2, step)
        w.add_scalars("Loss", {"train": v, "val": v + 0.2}, step)
    for step in range(HIST_STEPS):
        w.add_histogram("params/fc1", rng.normal(0, 1 + step, 400), step)
    w.add_hparams(
        {"lr": 0.001, "optimizer": "adam", "layers": 3},
        {"hparam/accuracy": 0.75},
    )
    w.close()


def write_tf(out: str) -> None:
    import tensorflow as tf
    from tensorboard.plugins.hparams import api as hp

    rng = np.random.default_rng(6)
    w = tf.summary.create_file_writer(os.path.join(out, "plain"))
    with w.as_default():
        hp.hparams({"lr": 0.05, "optimizer": "sgd", "units": 32})
        for step, v in enumerate(values(7)):
            tf.summary.scalar("train/loss", v, step=step)
            tf.summary.scalar("val/loss", v + 0.05, step=step)
        for step in range(HIST_STEPS):
            tf.summary.histogram(
                "mlp/kernel", rng.normal(0, 1 + step, 300), step=step
            )
    w.close()


def main() -> None:
    out = sys.argv[1]
    write_torch(os.path.join(out, "torch"))
    write_tbx(os.path.join(out, "tbx"))
    write_tf(os.path.join(out, "tf"))


if __name__ == "__main__":
    main()
