"""HF Transformers `Trainer(report_to=["tensorboard"])`: its own speed figures.

`hf_sps/`: a 64 -> 256 -> 256 -> 3 MLP (a `PreTrainedModel` built in code,
nothing downloaded) on synthetic data, `per_device_train_batch_size=64`,
50 steps an epoch, 4 epochs, `logging_steps=5`, evaluation every epoch.
The Trainer writes `train/loss`, `train/learning_rate`, `train/grad_norm`,
`train/epoch` every 5 optimizer steps, `eval/runtime`,
`eval/samples_per_second`, `eval/steps_per_second` after each evaluation,
and once at the end `train/train_runtime`, `train/train_samples_per_second`
and `train/train_steps_per_second` (the whole `train()` call: 200 steps /
its run time, warm-up and evaluations included), plus the `args` text
summary holding `per_device_train_batch_size`.

Usage (venv with torch==2.13.0, transformers==5.24.0, accelerate==1.15.0):
    python scripts/speed/gen_hf.py --out tests/data/speed/frameworks
"""

from __future__ import annotations

import argparse
import os
import shutil

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import Dataset  # noqa: E402
from transformers import (  # noqa: E402
    PretrainedConfig,
    PreTrainedModel,
    Trainer,
    TrainingArguments,
)
from transformers.modeling_outputs import SequenceClassifierOutput  # noqa: E402

BATCH = 64
STEPS = 50  # an epoch
EPOCHS = 4


class MLPConfig(PretrainedConfig):
    model_type = "speed_mlp"


class MLP(PreTrainedModel):
    config_class = MLPConfig

    def __init__(self, config: MLPConfig) -> None:
        super().__init__(config)
        self.net = nn.Sequential(
            nn.Linear(64, 256),
            nn.ReLU(),
            nn.Linear(256, 256),
            nn.ReLU(),
            nn.Linear(256, 3),
        )
        self.post_init()

    def forward(self, features, labels=None):  # type: ignore[no-untyped-def]
        logits = self.net(features)
        loss = (
            None
            if labels is None
            else nn.functional.cross_entropy(logits, labels)
        )
        return SequenceClassifierOutput(loss=loss, logits=logits)


class Samples(Dataset):
    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int) -> dict:
        return {"features": self.x[i], "labels": self.y[i]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    path = os.path.join(os.path.abspath(args.out), "hf_sps")
    if os.path.exists(path):
        shutil.rmtree(path)
    os.environ["TENSORBOARD_LOGGING_DIR"] = path
    torch.manual_seed(0)
    torch.set_num_threads(1)
    transformers.logging.set_verbosity_error()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH * STEPS, 64)).astype("float32")
    y = x[:, :3].argmax(1).astype("int64")
    output = path + "_output"
    training_args = TrainingArguments(
        output_dir=output,
        report_to=["tensorboard"],
        num_train_epochs=EPOCHS,
        per_device_train_batch_size=BATCH,
        per_device_eval_batch_size=256,
        logging_steps=5,
        eval_strategy="epoch",
        save_strategy="no",
        use_cpu=True,
        disable_tqdm=True,
        seed=0,
        dataloader_num_workers=0,
    )
    trainer = Trainer(
        model=MLP(MLPConfig()),
        args=training_args,
        train_dataset=Samples(x, y),
        eval_dataset=Samples(x[:1024], y[:1024]),
    )
    result = trainer.train()
    shutil.rmtree(output, ignore_errors=True)
    print(f"wrote {path}: {result.metrics}")


if __name__ == "__main__":
    main()
