"""Seed repeats, Keras: three runs equal but for their seed.

Writes ``<logdir>/seeds/keras_seed{0,1,2}/{train,validation}/`` (the
``keras.callbacks.TensorBoard`` callback, ``update_freq="epoch"``) plus the
hyper-parameters in ``seeds/keras_seed{k}/`` itself, written by
TensorBoard's own Keras callback ``tensorboard.plugins.hparams.api
.KerasCallback`` into the same log dir, as TensorBoard's HParams tutorial
does; and ``<truth-dir>/seeds_keras.json``. Seed k starts from the same
weights and batch order as ``seeds/pytorch_seed{k}``.
"""

from __future__ import annotations

import os
from typing import Any

import common
import keras
import tensorboard
import tensorflow as tf
from tensorboard.plugins.hparams import api as hp

RUN = "seeds_keras"


class EpochTruth(keras.callbacks.Callback):
    """Records what the TensorBoard callback writes at update_freq="epoch"."""

    def __init__(self, truth: common.Truth, run_dir: str) -> None:
        super().__init__()
        self.truth = truth
        self.run_dir = run_dir

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        # LearningRateScheduler puts `learning_rate` into logs: the callback
        # writes it as epoch_learning_rate like any other entry.
        logs = dict(logs or {})
        for name, value in logs.items():
            if name.startswith("val_"):
                self.truth.scalar(
                    f"{self.run_dir}/validation",
                    f"epoch_{name[4:]}",
                    epoch,
                    value,
                )
            else:
                self.truth.scalar(
                    f"{self.run_dir}/train", f"epoch_{name}", epoch, value
                )

    def on_test_end(self, logs: Any = None) -> None:
        step = int(self.model.optimizer.iterations.numpy())
        for name, value in (logs or {}).items():
            self.truth.scalar(
                f"{self.run_dir}/validation",
                f"evaluation_{name}_vs_iterations",
                step,
                value,
            )


def build_model(seed: int) -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input(shape=(common.N_FEATURES,)),
            keras.layers.Dense(common.N_HIDDEN, activation="relu", name="fc1"),
            keras.layers.Dense(common.N_CLASSES, name="fc2"),
        ],
        name="mlp",
    )
    w = common.initial_weights(seed)
    model.get_layer("fc1").set_weights([w["w1"], w["b1"]])
    model.get_layer("fc2").set_weights([w["w2"], w["b2"]])
    return model


def train(seed: int, logdir: str, truth: common.Truth) -> None:
    run_dir = f"seeds/keras_seed{seed}"
    keras.utils.set_random_seed(seed)
    data = common.make_dataset()
    order = common.all_batches_order(seed)
    train_ds = tf.data.Dataset.from_tensor_slices(
        (data.x_train[order], data.y_train[order])
    ).batch(common.BATCH_SIZE)
    model = build_model(seed)
    model.compile(
        optimizer=keras.optimizers.SGD(learning_rate=common.BASE_LR),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    log_dir = os.path.join(logdir, run_dir)
    hparams = common.seed_hparams(seed, "keras")
    model.fit(
        train_ds,
        validation_data=(data.x_val, data.y_val),
        epochs=common.EPOCHS,
        steps_per_epoch=common.STEPS_PER_EPOCH,
        shuffle=False,
        validation_batch_size=common.BATCH_SIZE,
        callbacks=[
            keras.callbacks.LearningRateScheduler(common.learning_rate),
            keras.callbacks.TensorBoard(log_dir=log_dir, update_freq="epoch"),
            hp.KerasCallback(log_dir, hparams, trial_id=run_dir),
            EpochTruth(truth, run_dir),
        ],
        verbose=0,
    )
    truth.hparams_of(run_dir, "hparams.api.KerasCallback", hparams)
    print(f"[{run_dir}] done")


def main() -> None:
    args = common.parse_args(__doc__ or "")
    tf.config.experimental.enable_op_determinism()
    truth = common.Truth(RUN, framework="tensorflow", writer="keras")
    truth.versions.update(
        tensorflow=tf.__version__,
        keras=keras.__version__,
        tensorboard=tensorboard.__version__,
    )
    truth.notes.append(
        "update_freq='epoch': epoch_* at step = epoch (train and validation), "
        "evaluation_*_vs_iterations at optimizer.iterations; hparams "
        "(plugin hparams, _hparams_/session_start_info) in the run dir itself"
    )
    for seed in common.SEEDS:
        train(seed, args.logdir, truth)
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
