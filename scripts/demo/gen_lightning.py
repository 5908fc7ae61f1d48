"""PyTorch Lightning run: Trainer.fit with TensorBoardLogger, as users write it.

Writes ``<logdir>/lightning_mlp/version_0/`` (one events file and
``hparams.yaml``) and ``<truth-dir>/lightning_mlp.json``. The LightningModule
is the shared MLP (``common``: same data, initial weights, batch order and
learning-rate schedule), trained on the CPU with synthetic data; nothing is
downloaded.

What Lightning writes (2.6): ``train_loss_step`` every batch (0-based global
step) and ``train_loss_epoch`` / ``val_loss`` / ``val_acc`` at the epoch's
last step (``self.log(on_step=True, on_epoch=True)``; validation metrics are
epoch means), an ``epoch`` scalar with every log call (so at the epoch's last
step it is logged three times with the same value), ``hp_metric`` = -1 at
step 0 with the hyper-parameters, and ``hparams.yaml``.

The truth is what Lightning handed to the writer: ``TensorBoardLogger``
subclassed to record ``log_metrics`` calls (names and steps as written).
"""

from __future__ import annotations

import os
import warnings

import common
import lightning
import numpy as np
import tensorboard
import torch
from lightning.pytorch.loggers import TensorBoardLogger
from torch import nn
from torch.utils.data import DataLoader, Sampler, TensorDataset

RUN = "lightning_mlp"
RUN_DIR = f"{RUN}/version_0"


class EpochBatches(Sampler[list[int]]):
    """The shared shuffled batches of the epoch the trainer is starting.

    (Lightning calls `set_epoch` only on samplers it knows; reading the
    trainer's epoch when iteration starts works for any.)
    """

    def __init__(self) -> None:
        self.trainer: lightning.Trainer | None = None

    def __len__(self) -> int:
        return common.STEPS_PER_EPOCH

    def __iter__(self):  # type: ignore[no-untyped-def]
        epoch = self.trainer.current_epoch if self.trainer else 0
        for batch in range(common.STEPS_PER_EPOCH):
            yield common.batch_indices(epoch, batch).tolist()


class MLP(lightning.LightningModule):
    """The shared 20 -> 32 -> 3 model, with plain SGD and StepLR."""

    def __init__(self, lr: float = common.BASE_LR, hidden: int = 32) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.fc1 = nn.Linear(common.N_FEATURES, hidden)
        self.fc2 = nn.Linear(hidden, common.N_CLASSES)
        w = common.initial_weights()
        with torch.no_grad():
            self.fc1.weight.copy_(torch.from_numpy(w["w1"].T.copy()))
            self.fc1.bias.copy_(torch.from_numpy(w["b1"]))
            self.fc2.weight.copy_(torch.from_numpy(w["w2"].T.copy()))
            self.fc2.bias.copy_(torch.from_numpy(w["b2"]))
        self.loss_fn = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))

    def training_step(self, batch, batch_idx):  # type: ignore[no-untyped-def]
        x, y = batch
        loss = self.loss_fn(self(x), y)
        self.log("train_loss", loss, on_step=True, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):  # type: ignore[no-untyped-def]
        x, y = batch
        logits = self(x)
        self.log("val_loss", self.loss_fn(logits, y))
        self.log("val_acc", (logits.argmax(dim=1) == y).float().mean())

    def configure_optimizers(self):  # type: ignore[no-untyped-def]
        optimizer = torch.optim.SGD(self.parameters(), lr=self.hparams.lr)
        scheduler = torch.optim.lr_scheduler.StepLR(
            optimizer, step_size=common.LR_DECAY_EVERY, gamma=common.LR_DECAY
        )
        return [optimizer], [scheduler]


class RecordingLogger(TensorBoardLogger):
    """TensorBoardLogger that also records every scalar it writes."""

    def __init__(self, truth: common.Truth, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.truth = truth

    def log_metrics(self, metrics, step=None):  # type: ignore[no-untyped-def]
        for name, value in metrics.items():
            if isinstance(value, torch.Tensor):
                value = value.item()
            self.truth.scalar(RUN_DIR, name, int(step or 0), float(value))
        super().log_metrics(metrics, step)


def main() -> None:
    args = common.parse_args(__doc__ or "")
    torch.manual_seed(common.SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    warnings.filterwarnings("ignore")  # Lightning's tips and num_workers hints

    data = common.make_dataset()
    train = TensorDataset(
        torch.from_numpy(data.x_train), torch.from_numpy(data.y_train)
    )
    val = TensorDataset(
        torch.from_numpy(data.x_val), torch.from_numpy(data.y_val)
    )
    batches = EpochBatches()
    train_loader = DataLoader(train, batch_sampler=batches)
    val_loader = DataLoader(val, batch_size=common.N_VAL)

    truth = common.Truth(RUN, framework="pytorch", writer="torch")
    truth.versions.update(
        torch=torch.__version__,
        lightning=lightning.__version__,
        tensorboard=tensorboard.__version__,
    )
    truth.notes += [
        "TensorBoardLogger(save_dir=logdir, name='lightning_mlp') -> "
        "lightning_mlp/version_0 with hparams.yaml",
        "train_loss_step at every 0-based global step (log_every_n_steps=1); "
        "train_loss_epoch, val_loss, val_acc at the epoch's last step",
        "'epoch' is logged with every log call: three times at each epoch's "
        "last step (after the step, the validation and the epoch end), the "
        "same value each time",
        "hp_metric = -1 at step 0 is Lightning's placeholder, not a metric",
        "same model, data, initial weights and batches as pytorch_sgd: "
        "train_loss_step equals its Loss/train until its spike at step "
        f"{common.SPIKE_STEP}",
    ]
    logger = RecordingLogger(truth, save_dir=args.logdir, name=RUN, version=0)
    trainer = lightning.Trainer(
        max_epochs=common.EPOCHS,
        logger=logger,
        log_every_n_steps=1,
        accelerator="cpu",
        devices=1,
        deterministic=True,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
    )
    batches.trainer = trainer
    trainer.fit(MLP(), train_loader, val_loader)
    assert os.path.isfile(
        os.path.join(args.logdir, RUN_DIR, "hparams.yaml")
    ), "Lightning wrote no hparams.yaml"
    losses = truth.dirs[RUN_DIR]["scalars"]["train_loss_step"]["values"]
    print(f"[{RUN}] {len(losses)} batch losses, last {np.float32(losses[-1])}")
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
