"""HF Transformers run: Trainer(report_to=["tensorboard"]), as users write it.

Writes ``<logdir>/hf_trainer/`` and ``<truth-dir>/hf_trainer.json``. The
model is the shared MLP as a custom ``PreTrainedModel`` built from its
config in code (nothing is downloaded; ``HF_HUB_OFFLINE=1``), trained on the
shared synthetic data in the shared batch order (a Trainer subclass hands
the batches out, as a custom sampler would), with plain SGD and the shared
schedule (StepLR every 150 optimizer steps = 3 epochs).

What the Trainer writes (5.x, its ``TensorBoardCallback``): the directory
comes from ``TENSORBOARD_LOGGING_DIR``; ``args`` and ``model_config`` text
summaries (JSON) at step 0; every ``logging_steps`` (here 10) optimizer
steps ``train/loss`` (the mean loss over those steps), ``train/grad_norm``,
``train/learning_rate`` and ``train/epoch`` (fractional epochs); at each
epoch end ``eval/loss`` and ``eval/runtime``-like timings plus
``train/epoch``; at the end ``train/train_runtime``, ``train/train_loss``
(mean over all steps) etc. Steps are the 1-based optimizer step
(``state.global_step``).

The truth records what the callback writes: a second callback sees the same
``logs`` and applies the callback's own renaming (``rewrite_logs``) and
filter (numbers only).
"""

from __future__ import annotations

import os
import shutil

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

import common  # noqa: E402
import numpy as np  # noqa: E402
import tensorboard  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, Dataset, Sampler  # noqa: E402
from transformers import (  # noqa: E402
    PretrainedConfig,
    PreTrainedModel,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)
from transformers.integrations.integration_utils import (  # noqa: E402
    rewrite_logs,
)
from transformers.modeling_outputs import (  # noqa: E402
    SequenceClassifierOutput,
)

RUN = "hf_trainer"
LOGGING_STEPS = 10  # optimizer steps between two train/* logs


class MLPConfig(PretrainedConfig):
    model_type = "demo_mlp"

    def __init__(
        self,
        n_features: int = common.N_FEATURES,
        hidden: int = common.N_HIDDEN,
        n_classes: int = common.N_CLASSES,
        **kwargs,  # type: ignore[no-untyped-def]
    ) -> None:
        super().__init__(**kwargs)
        self.n_features = n_features
        self.hidden = hidden
        self.n_classes = n_classes


class MLPModel(PreTrainedModel):
    """The shared 20 -> 32 -> 3 MLP as a Transformers model."""

    config_class = MLPConfig

    def __init__(self, config: MLPConfig) -> None:
        super().__init__(config)
        self.fc1 = nn.Linear(config.n_features, config.hidden)
        self.fc2 = nn.Linear(config.hidden, config.n_classes)
        self.post_init()
        w = common.initial_weights()
        with torch.no_grad():
            self.fc1.weight.copy_(torch.from_numpy(w["w1"].T.copy()))
            self.fc1.bias.copy_(torch.from_numpy(w["b1"]))
            self.fc2.weight.copy_(torch.from_numpy(w["w2"].T.copy()))
            self.fc2.bias.copy_(torch.from_numpy(w["b2"]))

    def forward(self, features, labels=None):  # type: ignore[no-untyped-def]
        logits = self.fc2(torch.relu(self.fc1(features)))
        loss = None
        if labels is not None:
            loss = nn.functional.cross_entropy(logits, labels)
        return SequenceClassifierOutput(loss=loss, logits=logits)


class Samples(Dataset):
    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        self.x = torch.from_numpy(x)
        self.y = torch.from_numpy(y)

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"features": self.x[i], "labels": self.y[i]}


class EpochBatches(Sampler[list[int]]):
    """The shared shuffled batches of the epoch the trainer is in."""

    def __init__(self, trainer: Trainer) -> None:
        self.trainer = trainer

    def __len__(self) -> int:
        return common.STEPS_PER_EPOCH

    def __iter__(self):  # type: ignore[no-untyped-def]
        epoch = int(round(self.trainer.state.epoch or 0))
        for batch in range(common.STEPS_PER_EPOCH):
            yield common.batch_indices(epoch, batch).tolist()


class SharedOrderTrainer(Trainer):
    """A Trainer that trains on the shared batches (a custom sampler)."""

    def get_train_dataloader(self) -> DataLoader:
        loader = DataLoader(
            self.train_dataset,
            batch_sampler=EpochBatches(self),
            collate_fn=self.data_collator,
        )
        return self.accelerator.prepare(loader)


class TruthRecorder(TrainerCallback):
    """Records what TensorBoardCallback.on_log writes, by its own rules."""

    def __init__(self, truth: common.Truth) -> None:
        self.truth = truth

    def on_log(self, args, state, control, logs=None, **kwargs):  # type: ignore[no-untyped-def]
        for name, value in rewrite_logs(dict(logs or {})).items():
            if isinstance(value, (int, float)):
                self.truth.scalar(RUN, name, state.global_step, float(value))


def main() -> None:
    args = common.parse_args(__doc__ or "")
    os.environ["TENSORBOARD_LOGGING_DIR"] = os.path.join(args.logdir, RUN)
    torch.manual_seed(common.SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    transformers.logging.set_verbosity_error()

    data = common.make_dataset()
    model = MLPModel(MLPConfig())
    optimizer = torch.optim.SGD(model.parameters(), lr=common.BASE_LR)
    scheduler = torch.optim.lr_scheduler.StepLR(
        optimizer,
        step_size=common.LR_DECAY_EVERY * common.STEPS_PER_EPOCH,
        gamma=common.LR_DECAY,
    )
    training_args = TrainingArguments(
        output_dir=os.path.join(args.logdir, f".{RUN}_output"),
        report_to=["tensorboard"],
        num_train_epochs=common.EPOCHS,
        per_device_train_batch_size=common.BATCH_SIZE,
        per_device_eval_batch_size=common.N_VAL,
        logging_steps=LOGGING_STEPS,
        eval_strategy="epoch",
        save_strategy="no",
        max_grad_norm=1e9,  # the norm is computed and logged, never clips
        use_cpu=True,
        disable_tqdm=True,
        seed=common.SEED,
        dataloader_num_workers=0,
    )
    truth = common.Truth(RUN, framework="pytorch", writer="torch")
    truth.versions.update(
        torch=torch.__version__,
        transformers=transformers.__version__,
        tensorboard=tensorboard.__version__,
    )
    truth.notes += [
        "directory from TENSORBOARD_LOGGING_DIR; steps are state.global_step "
        "(1-based optimizer steps)",
        f"train/loss every {LOGGING_STEPS} steps is the mean of the batch "
        "losses since the previous log: equals the mean of pytorch_sgd's "
        f"Loss/train over those steps (same batches) until its spike at "
        f"step {common.SPIKE_STEP}",
        "train/epoch (fractional epochs) is logged with every train/* log "
        "and again with eval/* and with the end-of-training summary: twice "
        "at step 400 with the same value",
        "args/text_summary and model_config/text_summary are text "
        "summaries (JSON), not listed here",
    ]
    trainer = SharedOrderTrainer(
        model=model,
        args=training_args,
        train_dataset=Samples(data.x_train, data.y_train),
        eval_dataset=Samples(data.x_val, data.y_val),
        optimizers=(optimizer, scheduler),
        callbacks=[TruthRecorder(truth)],
    )
    trainer.train()
    shutil.rmtree(training_args.output_dir, ignore_errors=True)
    losses = truth.dirs[RUN]["scalars"]["train/loss"]["values"]
    print(f"[{RUN}] {len(losses)} train/loss logs, last {losses[-1]:.4f}")
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
