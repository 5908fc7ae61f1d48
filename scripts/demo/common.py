"""Shared recipe for the demo runs: data, initial weights, schedule, truth.

Every framework script imports this module (numpy + stdlib only) so that all
runs train the same 20 -> 32 -> 3 MLP on the same data, from the same initial
weights, in the same batch order, with the same learning-rate schedule. Their
curves therefore line up to float32 round-off (except where a run adds a
deliberate anomaly, see ``SPIKE_EPOCH``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

SEED = 20240611
N_FEATURES = 20
N_HIDDEN = 32
N_CLASSES = 3
N_TRAIN = 1600  # samples
N_VAL = 384  # samples
BATCH_SIZE = 32  # samples
STEPS_PER_EPOCH = N_TRAIN // BATCH_SIZE  # 50 batches
VAL_STEPS = N_VAL // BATCH_SIZE  # 12 batches
EPOCHS = 8
BASE_LR = 0.05
LR_DECAY_EVERY = 3  # epochs (StepLR / StepDecay step_size)
LR_DECAY = 0.5  # StepLR gamma
LABEL_NOISE = 0.08  # fraction of labels replaced at random
BAND_WINDOW = 10  # batches in the PyTorch loss band (margin chart)

# One corrupted batch (every label shifted by one class) in the PyTorch run
# only: a realistic anomaly that must survive downsampling in the UI.
SPIKE_EPOCH = 4
SPIKE_BATCH = 17
SPIKE_STEP = SPIKE_EPOCH * STEPS_PER_EPOCH + SPIKE_BATCH  # 0-based step


@dataclass(frozen=True)
class Dataset:
    """The fixed synthetic classification data set.

    Attributes:
        x_train: float32 array (N_TRAIN, N_FEATURES).
        y_train: int64 array (N_TRAIN,), values in [0, N_CLASSES).
        x_val: float32 array (N_VAL, N_FEATURES).
        y_val: int64 array (N_VAL,).
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray


def make_dataset() -> Dataset:
    """Builds the data set: labels from a random tanh teacher plus noise.

    Returns:
        The same `Dataset` on every call and every machine.
    """
    rng = np.random.default_rng(SEED)
    n = N_TRAIN + N_VAL
    x = rng.standard_normal((n, N_FEATURES))
    teacher_1 = rng.standard_normal((N_FEATURES, 16)) / math.sqrt(N_FEATURES)
    teacher_2 = rng.standard_normal((16, N_CLASSES))
    y = np.argmax(np.tanh(x @ teacher_1) @ teacher_2, axis=1)
    noisy = rng.random(n) < LABEL_NOISE
    y[noisy] = rng.integers(0, N_CLASSES, size=int(noisy.sum()))
    x32 = x.astype(np.float32)
    y64 = y.astype(np.int64)
    return Dataset(
        x_train=x32[:N_TRAIN],
        y_train=y64[:N_TRAIN],
        x_val=x32[N_TRAIN:],
        y_val=y64[N_TRAIN:],
    )


def initial_weights(seed: int | None = None) -> dict[str, np.ndarray]:
    """Initial parameters, laid out (in, out) as Keras and Paddle store them.

    PyTorch's `nn.Linear.weight` is (out, in): transpose `w1`/`w2` there.
    Uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), PyTorch's default range.

    Args:
        seed: None for the shared weights of the main runs; an integer for
            the seed-repeat runs (each seed its own draw).

    Returns:
        float32 arrays `w1` (20, 32), `b1` (32,), `w2` (32, 3), `b2` (3,).
    """
    rng = np.random.default_rng(SEED + 1 if seed is None else SEED + 7 + seed)
    b_in = 1.0 / math.sqrt(N_FEATURES)
    b_hid = 1.0 / math.sqrt(N_HIDDEN)
    shapes = {
        "w1": ((N_FEATURES, N_HIDDEN), b_in),
        "b1": ((N_HIDDEN,), b_in),
        "w2": ((N_HIDDEN, N_CLASSES), b_hid),
        "b2": ((N_CLASSES,), b_hid),
    }
    return {
        name: rng.uniform(-bound, bound, size=shape).astype(np.float32)
        for name, (shape, bound) in shapes.items()
    }


def epoch_order(epoch: int, seed: int | None = None) -> np.ndarray:
    """The shuffled order of the training samples in one epoch.

    Args:
        epoch: 0-based epoch index.
        seed: None for the main runs' order; an integer for seed repeats.

    Returns:
        int64 permutation of range(N_TRAIN).
    """
    base = SEED + 100 if seed is None else SEED + 1000 * (seed + 1)
    return np.random.default_rng(base + epoch).permutation(N_TRAIN)


def batch_indices(
    epoch: int, batch: int, seed: int | None = None
) -> np.ndarray:
    """Sample indices of one training batch (0-based epoch and batch)."""
    start = batch * BATCH_SIZE
    return epoch_order(epoch, seed)[start : start + BATCH_SIZE]


def all_batches_order(seed: int | None = None) -> np.ndarray:
    """All epochs' orders concatenated (EPOCHS * N_TRAIN indices)."""
    return np.concatenate([epoch_order(e, seed) for e in range(EPOCHS)])


SEEDS = (0, 1, 2)  # the seed-repeat runs


def seed_hparams(seed: int, framework: str) -> dict[str, Any]:
    """The hyper-parameters the seed-repeat runs log (equal but the seed)."""
    return {
        "lr": BASE_LR,
        "lr_decay": LR_DECAY,
        "batch_size": BATCH_SIZE,
        "epochs": EPOCHS,
        "hidden": N_HIDDEN,
        "optimizer": "sgd",
        "framework": framework,
        "seed": seed,
    }


def learning_rate(epoch: int) -> float:
    """The step schedule every run uses: BASE_LR * LR_DECAY**(epoch // 3)."""
    return BASE_LR * LR_DECAY ** (epoch // LR_DECAY_EVERY)


def spiked_labels(labels: np.ndarray) -> np.ndarray:
    """The corrupted labels of the anomalous batch (shifted by one class)."""
    return (labels + 1) % N_CLASSES


def parse_args(description: str) -> argparse.Namespace:
    """Command line shared by the framework scripts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--logdir",
        required=True,
        help="parent directory; the script writes its run(s) inside it",
    )
    parser.add_argument(
        "--truth-dir",
        required=True,
        help="directory for the <run>.json ground-truth file(s)",
    )
    return parser.parse_args()


class Truth:
    """What one script logged, recorded independently of any event reader.

    Layout of the saved JSON::

        {"run": "<top-level run>", "framework": ..., "writer": ...,
         "versions": {...}, "notes": [...],
         "dirs": {"<run dir relative to the logdir>": {
             "scalars": {tag: {"steps": [...], "values": [...]}},
             "histograms": {tag: {"steps": [...], "counts_total": [...],
                                  "min": [...], "max": [...]}}}}}

    Scalar values are the Python floats handed to the writer; every writer
    here stores scalars as float32, so compare after float32 rounding.
    """

    def __init__(self, run: str, *, framework: str, writer: str) -> None:
        self.run = run
        self.framework = framework
        self.writer = writer
        self.versions: dict[str, str] = {
            "python": platform.python_version(),
            "numpy": np.__version__,
        }
        self.notes: list[str] = []
        self.dirs: dict[str, dict[str, dict[str, dict[str, list[Any]]]]] = {}
        # run dir -> {"source": where they are, "values": flat key -> value}
        self.hparams: dict[str, dict[str, Any]] = {}

    def _dir(self, run_dir: str) -> dict[str, dict[str, dict[str, list[Any]]]]:
        return self.dirs.setdefault(run_dir, {"scalars": {}, "histograms": {}})

    def scalar(self, run_dir: str, tag: str, step: int, value: float) -> None:
        """Records one scalar exactly as passed to the writer."""
        series = self._dir(run_dir)["scalars"].setdefault(
            tag, {"steps": [], "values": []}
        )
        series["steps"].append(int(step))
        series["values"].append(float(value))

    def histogram(
        self, run_dir: str, tag: str, step: int, values: np.ndarray
    ) -> None:
        """Records element count, min and max of a logged tensor."""
        arr = np.asarray(values, dtype=np.float64)
        series = self._dir(run_dir)["histograms"].setdefault(
            tag, {"steps": [], "counts_total": [], "min": [], "max": []}
        )
        series["steps"].append(int(step))
        series["counts_total"].append(int(arr.size))
        series["min"].append(float(arr.min()))
        series["max"].append(float(arr.max()))

    def hparams_of(
        self, run_dir: str, source: str, values: dict[str, Any]
    ) -> None:
        """Records the hyper-parameters a run dir was given, and where."""
        self.hparams[run_dir] = {"source": source, "values": dict(values)}

    def save(self, truth_dir: str) -> str:
        """Writes `<truth_dir>/<run>.json`; returns the path."""
        os.makedirs(truth_dir, exist_ok=True)
        doc = {
            "run": self.run,
            "framework": self.framework,
            "writer": self.writer,
            "versions": self.versions,
            "notes": self.notes,
            "dirs": self.dirs,
        }
        if self.hparams:
            doc["hparams"] = self.hparams
        text = json.dumps(doc, indent=1, sort_keys=True)
        # One line per number list keeps the files small and diffable.
        text = re.sub(
            r"\[\s+([^\[\]{}\"]*?)\s+\]",
            lambda m: "[" + re.sub(r"\s+", "", m.group(1)) + "]",
            text,
        )
        path = os.path.join(truth_dir, f"{self.run}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        return path
