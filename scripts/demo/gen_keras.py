"""Keras 3 run: model.fit + keras.callbacks.TensorBoard(histogram_freq=1).

Writes ``<logdir>/keras_fit/{train,validation}/`` and
``<truth-dir>/keras_fit.json``. ``update_freq="batch"`` is used because it
is the only setting that always keeps BOTH batch- and epoch-level summaries
(with an integer N, Keras writes epoch summaries only for epochs whose last
global batch is a multiple of N, see the README).

The truth is captured by a callback that sees the same ``logs`` dicts the
TensorBoard callback sees and applies the same naming and step rules.
"""

from __future__ import annotations

import os
from typing import Any

import common
import keras
import numpy as np
import tensorboard
import tensorflow as tf

RUN = "keras_fit"
TRAIN_DIR = f"{RUN}/train"
VAL_DIR = f"{RUN}/validation"


class TruthRecorder(keras.callbacks.Callback):
    """Mirrors keras.callbacks.TensorBoard's scalar and histogram rules."""

    def __init__(self, truth: common.Truth) -> None:
        super().__init__()
        self.truth = truth
        self.global_batch = 0

    def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
        self.global_batch += 1  # TensorBoard's 1-based, never-reset counter

    def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
        for name, value in (logs or {}).items():
            self.truth.scalar(
                TRAIN_DIR, f"batch_{name}", self.global_batch, value
            )

    def on_test_end(self, logs: Any = None) -> None:
        step = int(self.model.optimizer.iterations.numpy())
        for name, value in (logs or {}).items():
            self.truth.scalar(
                VAL_DIR, f"evaluation_{name}_vs_iterations", step, value
            )

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        logs = dict(logs or {})
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        train["learning_rate"] = float(
            np.asarray(self.model.optimizer.learning_rate)
        )
        for name, value in train.items():
            self.truth.scalar(TRAIN_DIR, f"epoch_{name}", epoch, value)
        for name, value in logs.items():
            if name.startswith("val_"):
                self.truth.scalar(VAL_DIR, f"epoch_{name[4:]}", epoch, value)
        for layer in self.model.layers:
            for weight in layer.weights:
                tag = weight.path.replace(":", "_") + "/histogram"
                self.truth.histogram(
                    TRAIN_DIR, tag, epoch, np.asarray(weight.numpy())
                )


def build_model() -> keras.Model:
    """The shared MLP, initialised from the shared numpy weights."""
    model = keras.Sequential(
        [
            keras.Input(shape=(common.N_FEATURES,)),
            keras.layers.Dense(common.N_HIDDEN, activation="relu", name="fc1"),
            keras.layers.Dense(common.N_CLASSES, name="fc2"),
        ],
        name="mlp",
    )
    w = common.initial_weights()
    model.get_layer("fc1").set_weights([w["w1"], w["b1"]])
    model.get_layer("fc2").set_weights([w["w2"], w["b2"]])
    return model


def main() -> None:
    args = common.parse_args(__doc__ or "")
    keras.utils.set_random_seed(common.SEED)
    tf.config.experimental.enable_op_determinism()

    data = common.make_dataset()
    order = common.all_batches_order()
    # One pass over all epochs' shuffled orders; with steps_per_epoch set,
    # fit() keeps the iterator across epochs, so batch k of epoch e is the
    # same batch every other run sees.
    train_ds = tf.data.Dataset.from_tensor_slices(
        (data.x_train[order], data.y_train[order])
    ).batch(common.BATCH_SIZE)

    model = build_model()
    model.compile(
        optimizer=keras.optimizers.SGD(learning_rate=common.BASE_LR),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )

    truth = common.Truth(RUN, framework="tensorflow", writer="keras")
    truth.versions.update(
        tensorflow=tf.__version__,
        keras=keras.__version__,
        tensorboard=tensorboard.__version__,
    )
    truth.notes.append(
        "batch_* at 1-based global batch steps, values are Keras' running "
        "means since the epoch began; epoch_* at step = 0-based epoch; "
        "evaluation_*_vs_iterations at step = optimizer.iterations"
    )
    truth.notes.append(
        "epoch_learning_rate is read back from the optimizer's float32 "
        "variable (0.05000000074505806), as the TensorBoard callback does"
    )
    truth.notes.append(
        "not listed: the 'keras' tag (model config JSON, string tensor, "
        "plugin graph_keras_model, step 0); Keras 3 writes no graph_def; "
        "histograms are at step = epoch in keras_fit/train"
    )

    tensorboard_cb = keras.callbacks.TensorBoard(
        log_dir=os.path.join(args.logdir, RUN),
        histogram_freq=1,
        update_freq="batch",
    )
    schedule_cb = keras.callbacks.LearningRateScheduler(common.learning_rate)
    model.fit(
        train_ds,
        validation_data=(data.x_val, data.y_val),
        epochs=common.EPOCHS,
        steps_per_epoch=common.STEPS_PER_EPOCH,
        shuffle=False,  # train_ds is already in the shared shuffled order
        validation_batch_size=common.BATCH_SIZE,
        callbacks=[schedule_cb, tensorboard_cb, TruthRecorder(truth)],
        verbose=2,
    )
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
