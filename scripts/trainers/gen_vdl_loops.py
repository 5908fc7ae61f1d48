"""Paddle training loops logging with VisualDL's `LogWriter`: two real runs.

Both train a small `paddle.nn` MLP (8 batches an epoch, 4 epochs) in a
hand-written loop, as the PaddlePaddle suites do (no `Model.fit`, so no
`paddle.callbacks.VisualDL`), with tags `train/loss`, `train/lr`, `eval/acc`,
`eval/loss`:

* `vdl_det_style/`: the counters of PaddleDetection's `VisualDLWriter`
  callback: `train/*` at `vdl_loss_step`, a 0-based count of training
  iterations (0, 1, 2, ...); `eval/*` at `vdl_mAP_step`, a 0-based count of
  evaluations (one after each epoch: 0, 1, 2, 3). `train/loss` is the
  median of the last 4 iterations' losses (PaddleDetection's `SmoothedValue`
  window, shortened), `train/lr` the learning rate of the iteration.
* `vdl_ocr_style/`: the PaddleOCR way (`VDLLogger.log_metrics` with the
  prefix lower-cased): `train/*` every 2 iterations and `eval/*` after each
  epoch, both at the same 1-based `global_step` (eval at 8, 16, 24, 32).

Neither is Paddle's high-level API: the tags look like hapi's, the loop is
not. Run in the Paddle venv (scripts/trainers/requirements-paddle.txt).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import paddle  # noqa: E402
import visualdl  # noqa: E402
from common import fresh_dir, make_data, parse_args  # noqa: E402
from truth import Recorder, finish, version_of  # noqa: E402
from visualdl import LogWriter  # noqa: E402

BATCH = 8
N_TRAIN = 64
N_VAL = 32
EPOCHS = 4
WINDOW = 4  # iterations in the det-style smoothed loss
OCR_LOG_EVERY = 2  # iterations between train/* logs, ocr style


def train(run: str, logdir: str, recorder: Recorder) -> None:
    paddle.seed(0)
    np.random.seed(0)
    x, y, xv, yv = make_data(N_TRAIN, N_VAL)
    model = paddle.nn.Sequential(
        paddle.nn.Linear(8, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 3)
    )
    scheduler = paddle.optimizer.lr.StepDecay(0.1, step_size=16, gamma=0.5)
    optimizer = paddle.optimizer.SGD(
        learning_rate=scheduler, parameters=model.parameters()
    )
    writer = LogWriter(logdir=os.path.join(logdir, run))
    ctx = recorder.context
    n = N_TRAIN // BATCH
    losses: list[float] = []
    loss_step = map_step = 0  # det style
    global_step = 0  # ocr style
    xv_t, yv_t = paddle.to_tensor(xv), paddle.to_tensor(yv)
    for epoch in range(EPOCHS):
        order = np.random.permutation(N_TRAIN)
        for b in range(n):
            idx = order[b * BATCH : (b + 1) * BATCH]
            xb, yb = paddle.to_tensor(x[idx]), paddle.to_tensor(y[idx])
            loss = paddle.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            lr = optimizer.get_lr()
            optimizer.step()
            optimizer.clear_grad()
            scheduler.step()
            losses.append(float(loss))
            global_step += 1
            ctx.update(loop="train", epoch=epoch, batch=b + 1, epoch_level=False)
            if run == "vdl_det_style":
                smooth = float(np.median(losses[-WINDOW:]))
                writer.add_scalar("train/loss", smooth, loss_step)
                writer.add_scalar("train/lr", lr, loss_step)
                loss_step += 1
            elif global_step % OCR_LOG_EVERY == 0:
                writer.add_scalar("train/loss", float(loss), global_step)
                writer.add_scalar("train/lr", lr, global_step)
        with paddle.no_grad():
            logits = model(xv_t)
            vloss = float(paddle.nn.functional.cross_entropy(logits, yv_t))
            acc = float((logits.argmax(axis=1) == yv_t).astype("float32").mean())
        ctx.update(loop="val", epoch=epoch, batch=None, epoch_level=True)
        step = map_step if run == "vdl_det_style" else global_step
        writer.add_scalar("eval/acc", acc, step)
        writer.add_scalar("eval/loss", vloss, step)
        map_step += 1
    writer.close()


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    logdir = os.path.abspath(args.logdir)
    recorder = Recorder(logdir, "vdl_loops")
    recorder.versions.update(
        paddlepaddle=version_of(paddle), visualdl=version_of(visualdl)
    )
    recorder.wrap(
        LogWriter,
        "add_scalar",
        lambda w: recorder.rel(w.logdir),
        unpack=lambda w, tag, value, step, walltime=None: [
            (recorder.rel(w.logdir), tag, int(step), float(value))
        ],
    )
    for run in ("vdl_det_style", "vdl_ocr_style"):
        fresh_dir(os.path.join(logdir, run))
        train(run, logdir, recorder)
    for run, entry in recorder.runs.items():
        entry.update(framework="paddle", writer="visualdl", trainer=None)
        loss_agg = "window_median" if run == "vdl_det_style" else "per_batch"
        finish(
            entry,
            steps_per_epoch=N_TRAIN // BATCH,
            tag_facts={
                "train/loss": {"split": "train", "level": "batch", "aggregation": loss_agg},
                "train/lr": {"split": "train", "level": "batch", "aggregation": "per_batch"},
                "eval/acc": {"split": "val", "level": "epoch", "aggregation": "epoch_mean"},
                "eval/loss": {"split": "val", "level": "epoch", "aggregation": "epoch_mean"},
            },
        )
    recorder.notes.extend(
        [
            "det style: train/* at a 0-based iteration count, eval/* at a "
            "0-based evaluation count (one evaluation per epoch)",
            "ocr style: train/* every 2 iterations and eval/* per epoch at "
            "the same 1-based global step",
            "trainer: a hand-written loop, not paddle hapi (no Model.fit)",
        ]
    )
    print(recorder.save(args.truth_dir))


if __name__ == "__main__":
    main()
