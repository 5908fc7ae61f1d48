"""PyTorch run resumed from a checkpoint with SummaryWriter(purge_step=...).

Writes ``<logdir>/pytorch_resumed/`` and ``<truth-dir>/pytorch_resumed.json``.
The shared MLP trains as in ``gen_pytorch.py`` (without the spike) and
checkpoints every ``CHECKPOINT_EVERY`` epochs. The first attempt "crashes"
after step ``CRASH_STEP`` (epoch 5); the second starts a new
``SummaryWriter(log_dir, purge_step=RESUME_STEP)`` (torch writes a
``SessionLog.START`` at that step), restores the checkpoint of the end of
epoch 3 and trains epochs 4..7. Like many real resumes, it does not restore
the data order: its epochs shuffle with another seed, so the re-logged steps
differ from the superseded ones.

Tags: per batch ``Loss/train`` and ``epoch`` (the staircase); per epoch, at
the epoch's last 0-based step, ``Loss/val``, ``Accuracy/val`` and
``add_scalars("Loss", {"train": epoch mean, "val": val loss})`` (sub-runs
``Loss_train``, ``Loss_val``: the second attempt opens new files there and
re-logs step 249 without a START); at the end ``add_hparams`` (sub-run named
by ``time.time()``).
"""

from __future__ import annotations

import copy
import os
import time

import common
import numpy as np
import tensorboard
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter

RUN = "pytorch_resumed"
CHECKPOINT_EVERY = 2  # epochs
CRASH_STEP = 279  # last step the first attempt logs (epoch 5, batch 29)
RESUME_EPOCH = 4  # the checkpoint of the end of epoch 3
RESUME_STEP = RESUME_EPOCH * common.STEPS_PER_EPOCH  # 200: purge_step
RESUMED_ORDER_SEED = 1000  # epoch order offset of the second attempt


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(common.N_FEATURES, common.N_HIDDEN)
        self.fc2 = nn.Linear(common.N_HIDDEN, common.N_CLASSES)
        w = common.initial_weights()
        with torch.no_grad():
            self.fc1.weight.copy_(torch.from_numpy(w["w1"].T.copy()))
            self.fc1.bias.copy_(torch.from_numpy(w["b1"]))
            self.fc2.weight.copy_(torch.from_numpy(w["w2"].T.copy()))
            self.fc2.bias.copy_(torch.from_numpy(w["b2"]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


class Logger:
    """Writes through a SummaryWriter and records the truth alongside."""

    def __init__(self, writer: SummaryWriter, truth: common.Truth) -> None:
        self.writer = writer
        self.truth = truth

    def scalar(self, tag: str, value: float, step: int) -> None:
        self.writer.add_scalar(tag, value, step)
        self.truth.scalar(RUN, tag, step, value)

    def scalars(self, main: str, values: dict[str, float], step: int) -> None:
        self.writer.add_scalars(main, values, step)
        for key, value in values.items():
            self.truth.scalar(f"{RUN}/{main}_{key}", main, step, value)


def train(
    epochs: range,
    state: dict,  # type: ignore[type-arg]
    log: Logger,
    order_seed: int,
    crash_step: int | None,
) -> dict | None:  # type: ignore[type-arg]
    """Trains `epochs` (stopping after `crash_step`); the last checkpoint."""
    data = common.make_dataset()
    x_train, y_train = torch.from_numpy(data.x_train), torch.from_numpy(
        data.y_train
    )
    x_val, y_val = torch.from_numpy(data.x_val), torch.from_numpy(data.y_val)
    model, optimizer, scheduler = state["model"], state["opt"], state["sched"]
    loss_fn = nn.CrossEntropyLoss()
    checkpoint = None
    for epoch in epochs:
        batch_losses = []
        for batch in range(common.STEPS_PER_EPOCH):
            step = epoch * common.STEPS_PER_EPOCH + batch
            idx = torch.from_numpy(
                common.batch_indices(epoch + order_seed, batch)
            )
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            batch_losses.append(loss.item())
            log.scalar("Loss/train", loss.item(), step)
            log.scalar("epoch", float(epoch), step)
            if step == crash_step:
                log.writer.flush()
                return checkpoint
        last_step = step
        with torch.no_grad():
            logits = model(x_val)
            val_loss = loss_fn(logits, y_val).item()
            val_acc = (logits.argmax(dim=1) == y_val).float().mean().item()
        log.scalar("Loss/val", val_loss, last_step)
        log.scalar("Accuracy/val", val_acc, last_step)
        log.scalars(
            "Loss",
            {"train": float(np.mean(batch_losses)), "val": val_loss},
            last_step,
        )
        scheduler.step()
        if (epoch + 1) % CHECKPOINT_EVERY == 0:
            checkpoint = copy.deepcopy(
                {
                    "model": model.state_dict(),
                    "opt": optimizer.state_dict(),
                    "sched": scheduler.state_dict(),
                    "epoch": epoch + 1,
                }
            )
    return checkpoint


def fresh_state() -> dict:  # type: ignore[type-arg]
    model = MLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=common.BASE_LR)
    scheduler = torch.optim.lr_scheduler.StepLR(
        optimizer, step_size=common.LR_DECAY_EVERY, gamma=common.LR_DECAY
    )
    return {"model": model, "opt": optimizer, "sched": scheduler}


def main() -> None:
    args = common.parse_args(__doc__ or "")
    torch.manual_seed(common.SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    log_dir = os.path.join(args.logdir, RUN)
    truth = common.Truth(RUN, framework="pytorch", writer="torch")
    truth.versions.update(
        torch=torch.__version__, tensorboard=tensorboard.__version__
    )
    truth.notes += [
        f"attempt 0 logs steps 0..{CRASH_STEP} and stops (a crash); its "
        f"last checkpoint is the end of epoch {RESUME_EPOCH - 1}",
        f"attempt 1: SummaryWriter(purge_step={RESUME_STEP}) writes "
        f"SessionLog.START at step {RESUME_STEP}, resumes from the "
        f"checkpoint and logs steps {RESUME_STEP}..399 with another data "
        "order",
        "scalars are listed in logged order, both attempts; the sub-runs "
        "Loss_train / Loss_val get a new file in attempt 1 and log step "
        f"{(RESUME_EPOCH + 1) * common.STEPS_PER_EPOCH - 1} again, without "
        "a START",
    ]

    first = fresh_state()
    writer = SummaryWriter(log_dir=log_dir)
    checkpoint = train(
        range(common.EPOCHS), first, Logger(writer, truth), 0, CRASH_STEP
    )
    assert checkpoint is not None and checkpoint["epoch"] == RESUME_EPOCH
    writer.close()
    time.sleep(1.1)  # a new file name: a new process would start later

    second = fresh_state()
    second["model"].load_state_dict(checkpoint["model"])
    second["opt"].load_state_dict(checkpoint["opt"])
    second["sched"].load_state_dict(checkpoint["sched"])
    writer = SummaryWriter(log_dir=log_dir, purge_step=RESUME_STEP)
    log = Logger(writer, truth)
    train(
        range(RESUME_EPOCH, common.EPOCHS),
        second,
        log,
        RESUMED_ORDER_SEED,
        None,
    )
    before = set(os.listdir(log_dir))
    writer.add_hparams(
        {"lr": common.BASE_LR, "batch_size": common.BATCH_SIZE},
        {
            "hparam/val_loss": truth.dirs[RUN]["scalars"]["Loss/val"]["values"][
                -1
            ]
        },
    )
    writer.close()
    (hparams_dir,) = set(os.listdir(log_dir)) - before
    truth.scalar(
        f"{RUN}/{hparams_dir}",
        "hparam/val_loss",
        0,
        truth.dirs[RUN]["scalars"]["Loss/val"]["values"][-1],
    )
    truth.notes.append(
        f"add_hparams wrote the sub-run {hparams_dir} (time.time())"
    )
    print(f"[{RUN}] resumed at {RESUME_STEP}; hparams in {hparams_dir}")
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
