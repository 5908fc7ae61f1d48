"""Keras 3 `fit(validation_freq=2)` + `TensorBoard(update_freq=3)`: one run.

`keras_freq/train`, `keras_freq/validation`: 6 epochs of 8 batches,
validation every 2nd epoch (after epochs 2, 4, 6), and the callback's
integer `update_freq=3`. With an integer `update_freq` the callback wraps
all its writing in `tf.summary.record_if(step % 3 == 0)` with the step of
its own batch counters, so `batch_*` are written at global batches 3, 6, 9,
... and the epoch-level `epoch_*` and `evaluation_*_vs_iterations` only when
the counter in force at that moment happens to be a multiple of 3: some
epochs have them, others do not. Recorded here is what was written
(`tf.summary.should_record_summaries()` at each call).

Run in the TF venv (scripts/trainers/requirements-tf.txt).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from common import fresh_dir, make_data, parse_args  # noqa: E402
from tensorflow.python.ops import summary_ops_v2  # noqa: E402
from truth import Recorder, finish, to_float, version_of  # noqa: E402

BATCH = 8
N_TRAIN = 64  # 8 batches an epoch
N_VAL = 32
EPOCHS = 6
VALIDATION_FREQ = 2
UPDATE_FREQ = 3


class Context(keras.callbacks.Callback):
    """Keeps the recorder's context; listed before the TensorBoard callback."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.ctx = recorder.context

    def on_epoch_begin(self, epoch, logs=None):
        self.ctx.update(epoch=epoch, epoch_level=False)

    def on_train_batch_end(self, batch, logs=None):
        self.ctx.update(loop="train", batch=batch + 1, epoch_level=False)

    def on_test_begin(self, logs=None):
        self.ctx.update(loop="val", batch=None, epoch_level=True)

    def on_epoch_end(self, epoch, logs=None):
        self.ctx.update(batch=None, epoch_level=True)


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    logdir = os.path.abspath(args.logdir)
    root = fresh_dir(os.path.join(logdir, "keras_freq"))
    recorder = Recorder(logdir, "keras_freq")
    recorder.versions.update(keras=version_of(keras), tensorflow=version_of(tf))
    keras.utils.set_random_seed(0)
    tb = keras.callbacks.TensorBoard(root, update_freq=UPDATE_FREQ)
    module = tb.summary  # the summary module the callback writes with
    original = module.scalar

    def scalar(name, data, step=None, description=None):
        written = original(name, data, step=step, description=description)
        if bool(written):
            writer = summary_ops_v2._summary_state.writer
            sub = "train" if writer is tb._train_writer else "validation"
            if step is None:
                step = module.experimental.get_step()
            # Which loop computed it: the writer says (train/validation).
            recorder.context["loop"] = "train" if sub == "train" else "val"
            recorder.record(f"keras_freq/{sub}", name, int(step), to_float(data))
        return written

    class Summary:
        """The callback's summary module with `scalar` recorded."""

        def __getattr__(self, attr):
            return scalar if attr == "scalar" else getattr(module, attr)

    tb._summary_module = Summary()
    x, y, xv, yv = make_data(N_TRAIN, N_VAL)
    model = keras.Sequential(
        [
            keras.Input((8,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(3),
        ]
    )
    model.compile(
        optimizer=keras.optimizers.SGD(0.1),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(
        x,
        y,
        batch_size=BATCH,
        epochs=EPOCHS,
        shuffle=True,
        validation_data=(xv, yv),
        validation_freq=VALIDATION_FREQ,
        callbacks=[Context(recorder), tb],
        verbose=0,
    )
    n = N_TRAIN // BATCH
    for run_dir, entry in recorder.runs.items():
        entry.update(framework="tensorflow", writer="keras", trainer="keras_fit")
        split = "train" if run_dir.endswith("/train") else "val"
        facts = {}
        for tag in entry["tags"]:
            if tag.startswith("batch_"):
                facts[tag] = {"split": split, "level": "batch", "aggregation": "running_mean"}
            elif tag == "epoch_learning_rate":
                # the optimizer's rate at the epoch's end, not a mean
                facts[tag] = {"split": split, "level": "epoch", "aggregation": "unknown"}
            else:
                facts[tag] = {"split": split, "level": "epoch", "aggregation": "epoch_mean"}
        finish(entry, steps_per_epoch=n, tag_facts=facts)
    recorder.notes.extend(
        [
            f"update_freq={UPDATE_FREQ}: batch_* at global batches that are "
            "multiples of 3 (1-based), running means since the epoch began",
            "epoch_* and evaluation_*_vs_iterations written only when the "
            "callback's record_if step was a multiple of 3 at that moment",
            f"validation_freq={VALIDATION_FREQ}: validation after epochs "
            "2, 4, 6 (0-based 1, 3, 5)",
        ]
    )
    print(recorder.save(args.truth_dir))


if __name__ == "__main__":
    main()
