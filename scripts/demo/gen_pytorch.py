"""PyTorch run: torch.utils.tensorboard.SummaryWriter, as a user writes it.

Writes ``<logdir>/pytorch_sgd/`` and ``<truth-dir>/pytorch_sgd.json``.
Steps are 0-based global batch indices; epoch-level values are logged at
the step of the epoch's last batch. One batch (``common.SPIKE_STEP``) has
corrupted labels, so ``Loss/train`` shows a single-step spike.
"""

from __future__ import annotations

import os
from collections import deque

import common
import numpy as np
import tensorboard
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter

RUN = "pytorch_sgd"


class MLP(nn.Module):
    """The shared 20 -> 32 -> 3 model."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(common.N_FEATURES, common.N_HIDDEN)
        self.fc2 = nn.Linear(common.N_HIDDEN, common.N_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def load_initial_weights(model: MLP) -> None:
    """Copies the shared numpy weights (transposed to (out, in))."""
    w = common.initial_weights()
    with torch.no_grad():
        model.fc1.weight.copy_(torch.from_numpy(w["w1"].T.copy()))
        model.fc1.bias.copy_(torch.from_numpy(w["b1"]))
        model.fc2.weight.copy_(torch.from_numpy(w["w2"].T.copy()))
        model.fc2.bias.copy_(torch.from_numpy(w["b2"]))


LAYOUT = {
    "Loss": {
        "train vs val": ["Multiline", ["Loss/train", "Loss/val"]],
        "train loss, mean +- std of last 10 batches": [
            "Margin",
            ["LossBand/mean", "LossBand/lower", "LossBand/upper"],
        ],
    },
    "Accuracy": {
        "train vs val": ["Multiline", ["Accuracy/train", "Accuracy/val"]],
    },
}


def main() -> None:
    args = common.parse_args(__doc__ or "")
    torch.manual_seed(common.SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    data = common.make_dataset()
    x_train = torch.from_numpy(data.x_train)
    y_train = torch.from_numpy(data.y_train)
    x_val = torch.from_numpy(data.x_val)
    y_val = torch.from_numpy(data.y_val)

    model = MLP()
    load_initial_weights(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=common.BASE_LR)
    scheduler = torch.optim.lr_scheduler.StepLR(
        optimizer, step_size=common.LR_DECAY_EVERY, gamma=common.LR_DECAY
    )
    loss_fn = nn.CrossEntropyLoss()

    truth = common.Truth(RUN, framework="pytorch", writer="torch")
    truth.versions.update(
        torch=torch.__version__, tensorboard=tensorboard.__version__
    )
    truth.notes.append(
        "steps are 0-based global batch indices; epoch-level tags "
        "(Loss/val, Accuracy/val, learning_rate, histograms) are at the "
        "step of the epoch's last batch"
    )
    truth.notes.append(
        f"Loss/train spikes at step {common.SPIKE_STEP} (labels of that "
        "batch shifted by one class)"
    )
    truth.notes.append(
        "custom_scalars__config__ (custom_scalars layout) is at step 0"
    )
    run_dir = RUN
    writer = SummaryWriter(log_dir=os.path.join(args.logdir, RUN))
    writer.add_custom_scalars(LAYOUT)

    band: deque[float] = deque(maxlen=common.BAND_WINDOW)
    step = 0
    for epoch in range(common.EPOCHS):
        model.train()
        for batch in range(common.STEPS_PER_EPOCH):
            idx = torch.from_numpy(common.batch_indices(epoch, batch))
            xb, yb = x_train[idx], y_train[idx]
            if step == common.SPIKE_STEP:
                yb = torch.from_numpy(common.spiked_labels(yb.numpy()))
            optimizer.zero_grad()
            logits = model(xb)
            loss = loss_fn(logits, yb)
            loss.backward()
            optimizer.step()

            loss_value = loss.item()
            acc = (logits.argmax(dim=1) == yb).float().mean().item()
            band.append(loss_value)
            band_mean = float(np.mean(band))
            band_std = float(np.std(band))
            scalars = {
                "Loss/train": loss_value,
                "Accuracy/train": acc,
                "epoch": float(epoch),
                "LossBand/mean": band_mean,
                "LossBand/lower": band_mean - band_std,
                "LossBand/upper": band_mean + band_std,
            }
            for tag, value in scalars.items():
                writer.add_scalar(tag, value, step)
                truth.scalar(run_dir, tag, step, value)
            step += 1
        last_step = step - 1

        model.eval()
        with torch.no_grad():
            val_logits = model(x_val)
            val_loss = loss_fn(val_logits, y_val).item()
            val_acc = (val_logits.argmax(dim=1) == y_val).float().mean().item()
        lr = optimizer.param_groups[0]["lr"]
        for tag, value in (
            ("Loss/val", val_loss),
            ("Accuracy/val", val_acc),
            ("learning_rate", lr),
        ):
            writer.add_scalar(tag, value, last_step)
            truth.scalar(run_dir, tag, last_step, value)
        for name, param in model.named_parameters():
            weights = param.detach()
            grads = param.grad.detach()
            writer.add_histogram(f"weights/{name}", weights, last_step)
            writer.add_histogram(f"grads/{name}", grads, last_step)
            truth.histogram(
                run_dir, f"weights/{name}", last_step, weights.numpy()
            )
            truth.histogram(run_dir, f"grads/{name}", last_step, grads.numpy())
        scheduler.step()
        print(
            f"[{RUN}] epoch {epoch} loss {loss_value:.4f} "
            f"val_loss {val_loss:.4f} val_acc {val_acc:.4f}"
        )
    writer.close()
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
