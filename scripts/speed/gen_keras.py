"""Keras 3 `model.fit` with `TensorBoard(write_steps_per_second=True)`.

`keras_sps/train/` and `keras_sps/validation/`: an MLP (64 -> 256 -> 256 ->
3) on synthetic data, batch 128, 40 steps an epoch, 4 epochs, validation
after each, `update_freq="batch"`. Keras logs `batch_steps_per_second`
(1 / the batch's own run time, from `on_train_batch_begin` to
`on_train_batch_end`: data and callback time between batches excluded) at
every batch and `epoch_steps_per_second` (the epoch's iterations / the time
from `on_epoch_begin` to `on_epoch_end`, validation included) at each
epoch, beside `batch_loss`, `epoch_loss`, ... The speed tests compare the
speed derived from wall time with these.

Usage (venv with tensorflow-cpu==2.21.0, keras==3.15.1):
    python scripts/speed/gen_keras.py --out tests/data/speed/frameworks
"""

from __future__ import annotations

import argparse
import os
import shutil

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

BATCH = 128
STEPS = 40  # an epoch
EPOCHS = 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    path = os.path.join(os.path.abspath(args.out), "keras_sps")
    if os.path.exists(path):
        shutil.rmtree(path)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH * STEPS, 64)).astype("float32")
    y = (x[:, :3].argmax(1)).astype("int64")
    model = keras.Sequential(
        [
            keras.Input((64,)),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dense(3),
        ]
    )
    model.compile(
        optimizer=keras.optimizers.SGD(0.05),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(
        x,
        y,
        batch_size=BATCH,
        epochs=EPOCHS,
        validation_data=(x[:1024], y[:1024]),
        shuffle=False,
        verbose=0,
        callbacks=[
            keras.callbacks.TensorBoard(
                log_dir=path,
                update_freq="batch",
                write_steps_per_second=True,
                histogram_freq=0,
            )
        ],
    )
    print(f"wrote {path} (keras {keras.__version__}, tf {tf.__version__})")


if __name__ == "__main__":
    main()
