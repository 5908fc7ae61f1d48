"""PyTorch-Ignite with its `TensorboardLogger`: one real run.

`ignite/`: set up as Ignite's own `TensorboardLogger` docstring does, with
the evaluators' tags named by when they run:

* `training/loss` at every trainer iteration (step = `state.iteration`,
  1-based, never reset): the batch's own loss from
  `create_supervised_trainer`; `training/running_avg_loss`, Ignite's
  `RunningAverage` (an exponential moving average, alpha 0.98, not reset at
  epochs), same steps;
* `lr/group_0` at `ITERATION_STARTED` (the same 1-based iteration);
* `training_by_epoch/accuracy`, `training_by_epoch/nll` (an evaluator over
  the training set) and `validation_by_epoch/accuracy`,
  `validation_by_epoch/nll` (over the validation set) after each epoch, at
  `global_step_from_engine(trainer)` = the trainer's `state.epoch`: 1-based
  (1 after the first epoch).

Ignite's `TensorboardLogger` prefers tensorboardX over torch's writer, so the
file is tensorboardX's (`events.out.tfevents.<ts>.<host>`).

Run in the trainers venv (scripts/trainers/requirements.txt).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ignite  # noqa: E402
import tensorboardX  # noqa: E402
import torch  # noqa: E402
from common import fresh_dir, make_data, parse_args  # noqa: E402
from ignite.engine import (  # noqa: E402
    Events,
    create_supervised_evaluator,
    create_supervised_trainer,
)
from ignite.handlers import global_step_from_engine  # noqa: E402
from ignite.handlers.tensorboard_logger import TensorboardLogger  # noqa: E402
from ignite.metrics import Accuracy, Loss, RunningAverage  # noqa: E402
from torch import nn  # noqa: E402
from truth import Recorder, finish, version_of  # noqa: E402

BATCH = 8
N_TRAIN = 64  # 8 iterations an epoch
N_VAL = 32
EPOCHS = 3


def loader(x, y, shuffle: bool) -> torch.utils.data.DataLoader:
    data = torch.utils.data.TensorDataset(
        torch.from_numpy(x), torch.from_numpy(y)
    )
    generator = torch.Generator().manual_seed(0)
    return torch.utils.data.DataLoader(
        data, batch_size=BATCH, shuffle=shuffle, generator=generator
    )


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    logdir = os.path.abspath(args.logdir)
    run_dir = fresh_dir(os.path.join(logdir, "ignite"))
    recorder = Recorder(logdir, "ignite")
    recorder.versions.update(
        ignite=version_of(ignite),
        tensorboardX=version_of(tensorboardX),
        torch=version_of(torch),
    )
    recorder.wrap(
        tensorboardX.SummaryWriter,
        "add_scalar",
        lambda w: recorder.rel(w.logdir),
    )
    torch.manual_seed(0)
    x, y, xv, yv = make_data(N_TRAIN, N_VAL)
    train_loader, val_loader = loader(x, y, True), loader(xv, yv, False)
    n = len(train_loader)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=n * 2)
    criterion = nn.CrossEntropyLoss()
    trainer = create_supervised_trainer(model, optimizer, criterion)
    metrics = {"accuracy": Accuracy(), "nll": Loss(criterion)}
    train_eval = create_supervised_evaluator(model, metrics=metrics)
    val_eval = create_supervised_evaluator(model, metrics=metrics)
    ctx = recorder.context

    # Context first: handlers run in the order they were attached.
    @trainer.on(Events.ITERATION_STARTED)
    def _batch(engine):
        ctx.update(
            loop="train",
            epoch=engine.state.epoch - 1,
            batch=(engine.state.iteration - 1) % n + 1,
            epoch_level=False,
        )

    RunningAverage(output_transform=lambda loss: loss).attach(
        trainer, "running_avg_loss"
    )
    tb_logger = TensorboardLogger(log_dir=run_dir)
    tb_logger.attach_output_handler(
        trainer,
        event_name=Events.ITERATION_COMPLETED,
        tag="training",
        output_transform=lambda loss: {"loss": loss},
        metric_names=["running_avg_loss"],
    )
    tb_logger.attach_opt_params_handler(
        trainer, event_name=Events.ITERATION_STARTED, optimizer=optimizer
    )
    for evaluator, tag in (
        (train_eval, "training_by_epoch"),
        (val_eval, "validation_by_epoch"),
    ):
        tb_logger.attach_output_handler(
            evaluator,
            event_name=Events.EPOCH_COMPLETED,
            tag=tag,
            metric_names=["accuracy", "nll"],
            global_step_transform=global_step_from_engine(trainer),
        )

    @trainer.on(Events.ITERATION_COMPLETED)
    def _lr(engine):
        scheduler.step()

    @trainer.on(Events.EPOCH_COMPLETED)
    def _evaluate(engine):
        ctx.update(epoch=engine.state.epoch - 1, batch=None, epoch_level=True)
        ctx.update(loop="train")
        train_eval.run(train_loader)
        ctx.update(loop="val")
        val_eval.run(val_loader)

    trainer.run(train_loader, max_epochs=EPOCHS)
    tb_logger.close()

    entry = recorder.run("ignite")
    entry.update(framework="pytorch", writer="tensorboardX", trainer="ignite")
    finish(
        entry,
        steps_per_epoch=n,
        tag_facts={
            "training/loss": {"split": "train", "level": "batch", "aggregation": "per_batch"},
            "training/running_avg_loss": {"split": "train", "level": "batch", "aggregation": "unknown"},
            "lr/group_0": {"split": None, "level": "batch", "aggregation": "per_batch"},
            "training_by_epoch/accuracy": {"split": "train", "level": "epoch", "aggregation": "epoch_mean"},
            "training_by_epoch/nll": {"split": "train", "level": "epoch", "aggregation": "epoch_mean"},
            "validation_by_epoch/accuracy": {"split": "val", "level": "epoch", "aggregation": "epoch_mean"},
            "validation_by_epoch/nll": {"split": "val", "level": "epoch", "aggregation": "epoch_mean"},
        },
    )
    recorder.notes.extend(
        [
            "iteration tags at state.iteration (1-based, never reset)",
            "evaluator tags at global_step_from_engine(trainer) = "
            "trainer.state.epoch: 1-based, 1 after the first epoch",
            "training/running_avg_loss is an EMA (alpha 0.98), not an "
            "epoch running mean: it does not reset at epochs",
            "framework: tensorboardX files do not say PyTorch",
        ]
    )
    print(recorder.save(args.truth_dir))


if __name__ == "__main__":
    main()
