"""Paddle run: custom training loop logging with VisualDL's LogWriter.

Writes ``<logdir>/paddle_vdl/vdlrecords.<unix s>.log`` and
``<truth-dir>/paddle_vdl.json``. ``Train/*`` at every batch at the 0-based
global step; ``Eval/*``, ``Train/LR``, the ``add_scalars`` group ``Loss``
(sub-tags ``train`` and ``eval``, VisualDL ``tag_value`` records) and the
parameter histograms (VisualDL's default 10 buckets) at step = 0-based
epoch, as PaddleClas and the VisualDL examples do.
"""

from __future__ import annotations

import os

import common
import numpy as np
import paddle
import paddle_mlp
import visualdl
from visualdl import LogWriter

RUN = "paddle_vdl"


def main() -> None:
    args = common.parse_args(__doc__ or "")
    data = common.make_dataset()
    model, scheduler, optimizer, loss_fn, x_val, y_val = paddle_mlp.custom_loop(
        data
    )

    truth = common.Truth(RUN, framework="paddle", writer="visualdl")
    truth.versions.update(
        paddle=paddle.__version__, visualdl=visualdl.__version__
    )
    truth.notes.append(
        "Train/* at 0-based global batch steps; Eval/*, Train/LR, Loss/train, "
        "Loss/eval and Params/* histograms at step = 0-based epoch"
    )
    truth.notes.append(
        "Loss/train and Loss/eval are one add_scalars('Loss', {'train': ..., "
        "'eval': ...}) call per epoch: tag_value records with tag 'Loss' and "
        "sub-tags 'train'/'eval', listed here as 'Loss/<sub>'"
    )
    truth.notes.append(
        "histograms: VisualDL add_histogram (np.histogram, 10 buckets); "
        "timestamps are wall-clock milliseconds"
    )
    with LogWriter(logdir=os.path.join(args.logdir, RUN)) as writer:
        step = 0
        for epoch in range(common.EPOCHS):
            model.train()
            losses = []
            for batch in range(common.STEPS_PER_EPOCH):
                idx = common.batch_indices(epoch, batch)
                xb = paddle.to_tensor(data.x_train[idx])
                yb = data.y_train[idx]
                logits = model(xb)
                loss = loss_fn(logits, paddle.to_tensor(yb))
                loss.backward()
                optimizer.step()
                optimizer.clear_grad()
                loss_value = float(loss.item())
                acc = paddle_mlp.accuracy(logits, yb)
                losses.append(loss_value)
                for tag, value in (
                    ("Train/Loss", loss_value),
                    ("Train/Acc", acc),
                ):
                    writer.add_scalar(tag=tag, value=value, step=step)
                    truth.scalar(RUN, tag, step, value)
                step += 1

            model.eval()
            with paddle.no_grad():
                val_logits = model(x_val)
                val_loss = float(loss_fn(val_logits, y_val).item())
            val_acc = paddle_mlp.accuracy(val_logits, data.y_val)
            lr = optimizer.get_lr()
            for tag, value in (
                ("Eval/Loss", val_loss),
                ("Eval/Acc", val_acc),
                ("Train/LR", lr),
            ):
                writer.add_scalar(tag=tag, value=value, step=epoch)
                truth.scalar(RUN, tag, epoch, value)
            group = {"train": float(np.mean(losses)), "eval": val_loss}
            writer.add_scalars(
                main_tag="Loss", tag_scalar_dict=group, step=epoch
            )
            for sub, value in group.items():
                truth.scalar(RUN, f"Loss/{sub}", epoch, value)
            for name, param in model.named_parameters():
                values = param.numpy()
                writer.add_histogram(
                    tag=f"Params/{name}", values=values, step=epoch
                )
                truth.histogram(RUN, f"Params/{name}", epoch, values)
            scheduler.step()
            print(
                f"[{RUN}] epoch {epoch} val_loss {val_loss:.4f} val_acc {val_acc:.4f}"
            )
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
