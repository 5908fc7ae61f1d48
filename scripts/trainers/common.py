"""Tiny synthetic data and command line shared by the trainer generators.

numpy + stdlib only. Every generator trains a small model built in code on
this data, on CPU, with fixed seeds, for a few epochs (seconds each).
"""

from __future__ import annotations

import argparse
import os
import shutil

import numpy as np

SEED = 20261119
N_FEATURES = 8
N_CLASSES = 3


def make_data(n_train: int, n_val: int) -> tuple[np.ndarray, ...]:
    """(x_train, y_train, x_val, y_val): float32 features, int64 labels."""
    rng = np.random.default_rng(SEED)
    n = n_train + n_val
    x = rng.standard_normal((n, N_FEATURES)).astype(np.float32)
    w = rng.standard_normal((N_FEATURES, N_CLASSES))
    y = np.argmax(x @ w + 0.5 * rng.standard_normal((n, N_CLASSES)), axis=1)
    y = y.astype(np.int64)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def parse_args(description: str) -> argparse.Namespace:
    """`--logdir` (the run(s) go inside) and `--truth-dir`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--logdir", required=True)
    parser.add_argument("--truth-dir", required=True)
    return parser.parse_args()


def fresh_dir(path: str) -> str:
    """Empties `path` (created if missing) and returns it."""
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path
