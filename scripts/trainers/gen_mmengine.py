"""MMEngine `Runner` + `TensorboardVisBackend`: two real runs.

* `mmengine_epoch/<timestamp>/vis_data/`: `EpochBasedTrainLoop`, 4 epochs of
  8 iterations, validation after every epoch (`val_interval=1`),
  `LoggerHook(interval=2)`, MultiStepLR. MMEngine logs, from the train loop at
  step = iteration + 1 (1-based): `lr`, `loss` (mean of the last `interval`
  iterations: the LogProcessor's `mean_pattern` window), `time`, `data_time`
  (window means too), `epoch` (1-based: 1 during the first epoch), `iter`; and
  from the validation loop at step = `runner.epoch` (epochs completed, 1..4):
  `accuracy` (our metric), `time`, `data_time` (means over the val loop). So
  `time` and `data_time` are logged by two loops at two step scales.
* `mmengine_iter/<timestamp>/vis_data/`: `IterBasedTrainLoop`, 40 iterations,
  `log_processor=dict(by_epoch=False)`, validation once at the end, with the
  `LoggerHook` left at its default `log_metric_by_epoch=True`: the validation
  metrics are logged at step = `runner.epoch` = 0 (no epochs ran).

Run in the trainers venv (scripts/trainers/requirements.txt).
"""

from __future__ import annotations

import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mmengine  # noqa: E402
import torch  # noqa: E402
from common import fresh_dir, make_data, parse_args  # noqa: E402
from mmengine.config import Config  # noqa: E402
from mmengine.evaluator import BaseMetric  # noqa: E402
from mmengine.hooks import Hook  # noqa: E402
from mmengine.model import BaseModel  # noqa: E402
from mmengine.registry import DATASETS, HOOKS, METRICS, MODELS  # noqa: E402
from mmengine.runner import Runner  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils import tensorboard as torch_tb  # noqa: E402
from truth import Recorder, finish, version_of  # noqa: E402

BATCH = 8  # samples
N_TRAIN = 64  # samples: 8 iterations an epoch
N_VAL = 32
EPOCHS = 4
ITERS = 40  # the iteration-based run
LOG_INTERVAL = 2  # LoggerHook interval (iterations)


RECORDER: Recorder | None = None  # the LoopContext hook reports to it


@MODELS.register_module(force=True)
class TinyNet(BaseModel):
    """8 -> 16 -> 3 MLP; MMEngine's `forward(inputs, labels, mode)`."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, inputs, labels, mode="tensor"):  # type: ignore[override]
        logits = self.net(inputs)
        if mode == "loss":
            return {"loss": nn.functional.cross_entropy(logits, labels)}
        if mode == "predict":
            return logits.argmax(dim=1), labels
        return logits


@METRICS.register_module(force=True)
class TinyAccuracy(BaseMetric):
    """Accuracy over the validation set."""

    def process(self, data_batch, data_samples) -> None:  # type: ignore[override]
        pred, labels = data_samples
        self.results.append(
            ((pred == labels).sum().item(), len(labels))
        )

    def compute_metrics(self, results):  # type: ignore[override]
        correct = sum(r[0] for r in results)
        total = sum(r[1] for r in results)
        return {"accuracy": correct / total}


@DATASETS.register_module(force=True)
class TinyData(torch.utils.data.Dataset):
    """The synthetic data set, `split` "train" or "val"."""

    def __init__(self, split: str) -> None:
        x, y, xv, yv = make_data(N_TRAIN, N_VAL)
        if split == "val":
            x, y = xv, yv
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        return {"inputs": self.x[i], "labels": self.y[i]}


@HOOKS.register_module(force=True)
class LoopContext(Hook):
    """Tells the recorder which loop runs, from MMEngine's own hook calls.

    Priority HIGHEST: it runs before the LoggerHook in every stage.
    """

    priority = "HIGHEST"

    def __init__(self, by_epoch: bool) -> None:
        assert RECORDER is not None
        self.recorder = RECORDER
        self.by_epoch = by_epoch

    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        ctx = self.recorder.context
        ctx.update(loop="train", epoch_level=False)
        if self.by_epoch:
            ctx.update(epoch=runner.epoch, batch=batch_idx + 1)

    def before_val_epoch(self, runner):
        ctx = self.recorder.context
        ctx.update(loop="val")
        if self.by_epoch:
            # EpochBasedTrainLoop increments runner.epoch before validating.
            ctx.update(epoch=runner.epoch - 1, batch=None, epoch_level=True)


def dataloader(split: str, shuffle: bool) -> dict:
    return dict(
        dataset=dict(type="TinyData", split=split),
        sampler=dict(type="DefaultSampler", shuffle=shuffle),
        batch_size=BATCH,
        collate_fn=dict(type="default_collate"),
    )


def run(logdir: str, name: str, by_epoch: bool) -> str:
    """Trains from a config, as MMEngine users do (`Runner.from_cfg`)."""
    work_dir = os.path.join(logdir, name)
    if by_epoch:
        train_cfg = dict(by_epoch=True, max_epochs=EPOCHS, val_interval=1)
        schedulers = dict(type="MultiStepLR", by_epoch=True, milestones=[2])
        log_processor = dict()
    else:
        train_cfg = dict(by_epoch=False, max_iters=ITERS, val_interval=ITERS)
        schedulers = dict(
            type="MultiStepLR", by_epoch=False, milestones=[ITERS // 2]
        )
        log_processor = dict(by_epoch=False)
    cfg = Config(dict(
        model=dict(type="TinyNet"),
        work_dir=work_dir,
        experiment_name=name,
        train_dataloader=dataloader("train", True),
        val_dataloader=dataloader("val", False),
        val_evaluator=dict(type="TinyAccuracy"),
        train_cfg=train_cfg,
        val_cfg=dict(),
        optim_wrapper=dict(optimizer=dict(type="SGD", lr=0.1)),
        param_scheduler=schedulers,
        log_processor=log_processor,
        default_hooks=dict(
            logger=dict(type="LoggerHook", interval=LOG_INTERVAL),
            checkpoint=dict(type="CheckpointHook", interval=10**6),
        ),
        custom_hooks=[dict(type="LoopContext", by_epoch=by_epoch)],
        visualizer=dict(
            type="Visualizer",
            vis_backends=[dict(type="TensorboardVisBackend")],
            name=f"vis_{name}",
        ),
        randomness=dict(seed=0),
        log_level="WARNING",
    ))
    runner = Runner.from_cfg(cfg)
    runner.train()
    runner.visualizer.close()
    return runner.log_dir


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    logdir = os.path.abspath(args.logdir)
    global RECORDER
    recorder = RECORDER = Recorder(logdir, "mmengine")
    recorder.versions.update(
        mmengine=version_of(mmengine), torch=version_of(torch)
    )
    recorder.wrap(
        torch_tb.SummaryWriter,
        "add_scalar",
        lambda w: recorder.rel(w.log_dir),
    )
    for name, by_epoch in (("mmengine_epoch", True), ("mmengine_iter", False)):
        fresh_dir(os.path.join(logdir, name))
        recorder.context.update(
            loop="train", epoch=None, batch=None, epoch_level=False
        )
        log_dir = run(logdir, name, by_epoch)
        _tidy(log_dir)
    _interpret(recorder)
    recorder.notes.extend(
        [
            "train loop: step = runner.iter + 1 (1-based iteration), every "
            f"{LOG_INTERVAL} iterations; loss/time/data_time are means over "
            "the last `interval` iterations (LogProcessor mean_pattern)",
            "epoch tag = runner.epoch + 1: 1-based, 1 during the first epoch",
            "val loop (epoch run): step = runner.epoch after the increment = "
            "epochs completed (1..4); time/data_time logged by both loops",
            "iter run: val once at the end at step 0 (LoggerHook "
            "log_metric_by_epoch=True with no epochs)",
        ]
    )
    print(recorder.save(args.truth_dir))


def _tidy(log_dir: str) -> None:
    """Keeps MMEngine's vis_data (events, scalars.json, config.py).

    The text log records the machine's environment; checkpoints are big.
    """
    for path in glob.glob(os.path.join(log_dir, "*.log")):
        os.remove(path)
    work_dir = os.path.dirname(log_dir)
    for path in glob.glob(os.path.join(work_dir, "*.pth")) + glob.glob(
        os.path.join(work_dir, "last_checkpoint")
    ):
        os.remove(path)
    for path in glob.glob(os.path.join(log_dir, "*.json")):
        os.remove(path)  # the per-run json log duplicates scalars.json


def _interpret(recorder: Recorder) -> None:
    window = {"split": "train", "level": "batch", "aggregation": "window_mean"}
    for run_dir, entry in recorder.runs.items():
        by_epoch = run_dir.startswith("mmengine_epoch")
        entry.update(framework="pytorch", writer="torch.utils.tensorboard")
        entry["trainer"] = "mmengine"
        facts = {
            "loss": window,
            "lr": {"split": "train", "level": "batch", "aggregation": "per_batch"},
            "iter": {"split": None, "level": "batch", "aggregation": "counter"},
            "epoch": {"split": None, "level": "batch", "aggregation": "counter"},
            "accuracy": {"split": "val", "level": "epoch", "aggregation": "epoch_mean"},
            # Logged by both loops: a window mean in train, the val loop's
            # mean over its iterations in val.
            "time": {"split": "per_loop", "level": "per_loop", "aggregation": "per_loop"},
            "data_time": {"split": "per_loop", "level": "per_loop", "aggregation": "per_loop"},
        }
        finish(
            entry,
            steps_per_epoch=(N_TRAIN // BATCH) if by_epoch else None,
            tag_facts=facts,
        )
        if not by_epoch:
            entry["epochs"] = None


if __name__ == "__main__":
    main()
