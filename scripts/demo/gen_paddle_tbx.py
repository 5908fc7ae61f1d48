"""Paddle run: custom training loop logging with tensorboardX.

Writes ``<logdir>/paddle_tbx/events.out.tfevents.<ts>.<host>`` and
``<truth-dir>/paddle_tbx.json``. Same conventions as the PyTorch run (0-based
global steps, an ``epoch`` staircase at every step, epoch-level values at the
step of the epoch's last batch); Paddle tensors go straight into
tensorboardX (its ``make_np`` accepts them).
"""

from __future__ import annotations

import os

import common
import paddle
import paddle_mlp
import tensorboardX
from tensorboardX import SummaryWriter

RUN = "paddle_tbx"


def main() -> None:
    args = common.parse_args(__doc__ or "")
    data = common.make_dataset()
    model, scheduler, optimizer, loss_fn, x_val, y_val = paddle_mlp.custom_loop(
        data
    )

    truth = common.Truth(RUN, framework="paddle", writer="tensorboardX")
    truth.versions.update(
        paddle=paddle.__version__, tensorboardX=tensorboardX.__version__
    )
    truth.notes.append(
        "train/* and epoch at 0-based global batch steps; val/*, lr and "
        "params/* histograms at the step of the epoch's last batch"
    )
    writer = SummaryWriter(logdir=os.path.join(args.logdir, RUN))
    step = 0
    for epoch in range(common.EPOCHS):
        model.train()
        for batch in range(common.STEPS_PER_EPOCH):
            idx = common.batch_indices(epoch, batch)
            xb = paddle.to_tensor(data.x_train[idx])
            yb = data.y_train[idx]
            logits = model(xb)
            loss = loss_fn(logits, paddle.to_tensor(yb))
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            scalars = {
                "train/loss": float(loss.item()),
                "train/acc": paddle_mlp.accuracy(logits, yb),
                "epoch": float(epoch),
            }
            for tag, value in scalars.items():
                writer.add_scalar(tag, value, step)
                truth.scalar(RUN, tag, step, value)
            step += 1
        last_step = step - 1

        model.eval()
        with paddle.no_grad():
            val_logits = model(x_val)
            val_loss = float(loss_fn(val_logits, y_val).item())
        val_acc = paddle_mlp.accuracy(val_logits, data.y_val)
        for tag, value in (
            ("val/loss", val_loss),
            ("val/acc", val_acc),
            ("lr", optimizer.get_lr()),
        ):
            writer.add_scalar(tag, value, last_step)
            truth.scalar(RUN, tag, last_step, value)
        for name, param in model.named_parameters():
            writer.add_histogram(f"params/{name}", param, last_step)
            truth.histogram(RUN, f"params/{name}", last_step, param.numpy())
        scheduler.step()
        print(
            f"[{RUN}] epoch {epoch} val_loss {val_loss:.4f} val_acc {val_acc:.4f}"
        )
    writer.close()
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
