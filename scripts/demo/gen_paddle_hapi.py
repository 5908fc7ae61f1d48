"""Paddle run: the high-level API, paddle.Model.fit + paddle.callbacks.VisualDL.

Writes ``<logdir>/paddle_hapi/vdlrecords.<unix s>.log`` and
``<truth-dir>/paddle_hapi.json``. The callback writes ``train/loss`` and
``train/acc`` after every batch at a 1-based counter that never resets, and
``eval/loss``, ``eval/acc`` at step = 0-based epoch. hapi's ``train/loss``
is the batch loss, ``train/acc`` the accuracy accumulated since the epoch
began, ``eval/acc`` the accuracy over the whole eval set, but ``eval/loss``
is the loss of the LAST eval batch only (hapi keeps the last batch's loss).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterator
from typing import Any

import common
import numpy as np
import paddle
import paddle_mlp
import visualdl
from paddle.static import InputSpec

RUN = "paddle_hapi"


class ArrayDataset(paddle.io.Dataset):
    """(features, label) pairs from two numpy arrays."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        super().__init__()
        self.x = x
        self.y = y

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        return self.x[i], self.y[i]

    def __len__(self) -> int:
        return len(self.x)


class SharedOrderSampler(paddle.io.BatchSampler):
    """Yields the shared per-epoch shuffled batches, epoch after epoch."""

    def __init__(self) -> None:
        self.epoch = 0

    def __iter__(self) -> Iterator[list[int]]:
        for batch in range(common.STEPS_PER_EPOCH):
            yield common.batch_indices(self.epoch, batch).tolist()
        self.epoch += 1

    def __len__(self) -> int:
        return common.STEPS_PER_EPOCH


class TruthRecorder(paddle.callbacks.Callback):
    """Mirrors paddle.callbacks.VisualDL's tags, steps and values."""

    def __init__(self, truth: common.Truth) -> None:
        super().__init__()
        self.truth = truth
        self.train_step = 0
        self.epoch = 0

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        self.epoch = epoch

    def _record(self, logs: dict[str, Any], mode: str, step: int) -> None:
        for name in self.params["metrics"]:
            value = logs.get(name)
            if isinstance(value, (list, tuple)):
                value = value[0]
            if isinstance(value, numbers.Number):
                self.truth.scalar(RUN, f"{mode}/{name}", step, float(value))

    def on_train_batch_end(self, step: int, logs: Any = None) -> None:
        self.train_step += 1
        self._record(logs or {}, "train", self.train_step)

    def on_eval_end(self, logs: Any = None) -> None:
        self._record(logs or {}, "eval", self.epoch)


def main() -> None:
    args = common.parse_args(__doc__ or "")
    data = common.make_dataset()
    train_loader = paddle.io.DataLoader(
        ArrayDataset(data.x_train, data.y_train),
        batch_sampler=SharedOrderSampler(),
        return_list=True,
    )
    eval_loader = paddle.io.DataLoader(
        ArrayDataset(data.x_val, data.y_val),
        batch_size=common.BATCH_SIZE,
        shuffle=False,
        return_list=True,
    )
    net = paddle_mlp.build_model()
    model = paddle.Model(
        net,
        inputs=[InputSpec([None, common.N_FEATURES], "float32", "x")],
        labels=[InputSpec([None], "int64", "label")],
    )
    scheduler = paddle_mlp.step_decay()
    model.prepare(
        optimizer=paddle.optimizer.SGD(
            learning_rate=scheduler, parameters=net.parameters()
        ),
        loss=paddle.nn.CrossEntropyLoss(),
        metrics=paddle.metric.Accuracy(),
    )

    truth = common.Truth(RUN, framework="paddle", writer="visualdl")
    truth.versions.update(
        paddle=paddle.__version__, visualdl=visualdl.__version__
    )
    truth.notes.append(
        "paddle.callbacks.VisualDL: train/loss (batch loss) and train/acc "
        "(running accuracy since the epoch began) at a 1-based never-reset "
        "batch counter; eval/loss (loss of the LAST eval batch) and eval/acc "
        "(accuracy over the eval set) at step = 0-based epoch"
    )
    model.fit(
        train_loader,
        eval_loader,
        epochs=common.EPOCHS,
        verbose=0,
        callbacks=[
            paddle.callbacks.VisualDL(log_dir=os.path.join(args.logdir, RUN)),
            # Step the schedule per epoch (hapi's default steps per batch).
            paddle.callbacks.LRScheduler(by_step=False, by_epoch=True),
            TruthRecorder(truth),
        ],
    )
    for step, value in zip(
        truth.dirs[RUN]["scalars"]["eval/acc"]["steps"],
        truth.dirs[RUN]["scalars"]["eval/acc"]["values"],
    ):
        print(f"[{RUN}] epoch {step} eval_acc {value:.4f}")
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
