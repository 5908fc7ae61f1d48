"""TF2 run: a custom training loop (GradientTape) logging with tf.summary.

Writes ``<logdir>/tf2_loop/`` and ``<truth-dir>/tf2_loop.json``. Steps are
``optimizer.iterations`` after the update (1-based); epoch-level values are
logged at the iteration count at the end of the epoch. The run logs no epoch
information at all: a UI has to be told the steps per epoch to put it on an
epoch axis. A custom-scalars layout is written at step 0 with
``tf.summary.experimental.write_raw_pb``.
"""

from __future__ import annotations

import os

import common
import keras
import numpy as np
import tensorboard
import tensorflow as tf
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.custom_scalar import summary as cs_summary

RUN = "tf2_loop"


def build_layout() -> layout_pb2.Layout:
    """A custom-scalars layout: two multiline charts and one margin chart."""
    multiline = layout_pb2.MultilineChartContent
    margin = layout_pb2.MarginChartContent
    return layout_pb2.Layout(
        category=[
            layout_pb2.Category(
                title="losses",
                chart=[
                    layout_pb2.Chart(
                        title="train vs val loss",
                        multiline=multiline(tag=[r"train/loss", r"val/loss"]),
                    ),
                    layout_pb2.Chart(
                        title="epoch loss, min..max over batches",
                        margin=margin(
                            series=[
                                margin.Series(
                                    value="train/epoch_loss",
                                    lower="train/epoch_loss_min",
                                    upper="train/epoch_loss_max",
                                )
                            ]
                        ),
                    ),
                ],
            ),
            layout_pb2.Category(
                title="accuracy",
                chart=[
                    layout_pb2.Chart(
                        title="train vs val accuracy",
                        multiline=multiline(tag=[r".*/accuracy"]),
                    )
                ],
            ),
        ]
    )


def main() -> None:
    args = common.parse_args(__doc__ or "")
    keras.utils.set_random_seed(common.SEED)
    tf.config.experimental.enable_op_determinism()

    data = common.make_dataset()
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
    optimizer = keras.optimizers.SGD(learning_rate=common.BASE_LR)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(x: tf.Tensor, y: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss, logits

    truth = common.Truth(RUN, framework="tensorflow", writer="tf.summary")
    truth.versions.update(
        tensorflow=tf.__version__,
        keras=keras.__version__,
        tensorboard=tensorboard.__version__,
    )
    truth.notes.append(
        "train/loss at every step = optimizer.iterations (1-based); "
        "epoch-level tags and histograms at the iterations count at epoch "
        "end (50, 100, ...); no epoch tag"
    )
    truth.notes.append(
        "custom_scalars__config__ (custom_scalars layout) is at step 0"
    )

    writer = tf.summary.create_file_writer(os.path.join(args.logdir, RUN))
    with writer.as_default():
        layout_summary = cs_summary.pb(build_layout())
        tf.summary.experimental.write_raw_pb(
            layout_summary.SerializeToString(), step=0
        )
        for epoch in range(common.EPOCHS):
            optimizer.learning_rate.assign(common.learning_rate(epoch))
            losses = []
            correct = 0
            for batch in range(common.STEPS_PER_EPOCH):
                idx = common.batch_indices(epoch, batch)
                xb, yb = data.x_train[idx], data.y_train[idx]
                loss, logits = train_step(tf.constant(xb), tf.constant(yb))
                step = int(optimizer.iterations.numpy())
                loss_value = float(loss.numpy())
                losses.append(loss_value)
                correct += int(np.sum(np.argmax(logits.numpy(), 1) == yb))
                tf.summary.scalar("train/loss", loss_value, step=step)
                truth.scalar(RUN, "train/loss", step, loss_value)

            val_logits = model(data.x_val, training=False)
            epoch_scalars = {
                "train/accuracy": correct / common.N_TRAIN,
                "train/epoch_loss": float(np.mean(losses)),
                "train/epoch_loss_min": float(np.min(losses)),
                "train/epoch_loss_max": float(np.max(losses)),
                "val/loss": float(loss_fn(data.y_val, val_logits).numpy()),
                "val/accuracy": float(
                    np.mean(np.argmax(val_logits.numpy(), 1) == data.y_val)
                ),
                "learning_rate": float(optimizer.learning_rate.numpy()),
            }
            for tag, value in epoch_scalars.items():
                tf.summary.scalar(tag, value, step=step)
                truth.scalar(RUN, tag, step, value)
            for var in model.trainable_variables:
                tag = var.path  # e.g. "mlp/fc1/kernel"
                tf.summary.histogram(tag, var, step=step)
                truth.histogram(RUN, tag, step, var.numpy())
            print(
                f"[{RUN}] epoch {epoch} val_loss "
                f"{epoch_scalars['val/loss']:.4f} val_acc "
                f"{epoch_scalars['val/accuracy']:.4f}"
            )
    writer.close()
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
