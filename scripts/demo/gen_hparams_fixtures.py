"""Small real logs for every hyper-parameter source, for the ingest tests.

Writes ``tests/data/hparams_sources/<case>/`` with the real writers and
``tests/data/hparams_sources/truth_<part>.json`` with the values each case
was given (recorded here, not read back). Parts, each for its own venv:

* ``--part torch`` (/opt/venvs/demo-torch): ``torch_subrun/`` torch
  ``add_hparams`` with the default ``run_name`` (a ``<time.time()>``
  sub-run); ``hf_text/`` the ``args`` and ``model_config`` text summaries
  Hugging Face's ``TensorBoardCallback`` writes (``add_text`` of
  ``TrainingArguments.to_json_string()`` / ``PretrainedConfig
  .to_json_string()``: indented JSON); ``files/`` ``hparams.json`` beside
  an events file.
* ``--part paddle`` (/opt/venvs/demo-paddle): ``tbx/`` tensorboardX
  ``add_hparams``; ``visualdl/`` VisualDL ``LogWriter.add_hparams``.
* ``--part lightning`` (a venv with ``lightning`` and torch==2.13.0, e.g.
  ``pip install -c <(echo torch==2.13.0) lightning``): ``lightning/
  version_0/`` a real ``TensorBoardLogger`` (``log_hyperparams`` writes
  ``hparams.yaml`` with Lightning's ``save_hparams_to_yaml`` and an
  ``hparams`` summary); ``yaml/`` a ``config.yaml`` written by PyYAML.

Usage::

    python gen_hparams_fixtures.py --part torch --out tests/data/hparams_sources
"""

from __future__ import annotations

import argparse
import json
import os
import shutil

ARGS = {  # a cut-down TrainingArguments.to_dict()
    "output_dir": "out",
    "learning_rate": 5e-05,
    "per_device_train_batch_size": 8,
    "num_train_epochs": 3.0,
    "seed": 42,
    "lr_scheduler_type": "linear",
    "report_to": ["tensorboard"],
    "fp16": False,
    "adam_beta1": 0.9,
}
MODEL_CONFIG = {  # a cut-down BertConfig.to_dict()
    "architectures": ["BertForSequenceClassification"],
    "hidden_size": 64,
    "id2label": {"0": "NEGATIVE", "1": "POSITIVE"},
    "model_type": "bert",
    "num_attention_heads": 2,
    "layer_norm_eps": 1e-12,
}
HPARAMS = {"lr": 0.01, "batch_size": 16, "optimizer": "adam", "dropout": 0.1}
NESTED = {
    "lr": 0.001,
    "model": {"hidden": 32, "act": "relu", "layers": [32, 16]},
    "seed": 3,
    "use_amp": True,
}


def fresh(out: str, case: str) -> str:
    path = os.path.join(out, case)
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path


def part_torch(out: str) -> dict:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(fresh(out, "torch_subrun"))
    writer.add_scalar("loss", 0.5, 0)
    writer.add_hparams(HPARAMS, {"hparam/loss": 0.25})
    writer.close()

    writer = SummaryWriter(fresh(out, "hf_text"))
    writer.add_text("args", json.dumps(ARGS, indent=2))
    writer.add_text(
        "model_config",
        json.dumps(MODEL_CONFIG, indent=2, sort_keys=True) + "\n",
    )
    writer.add_scalar("train/loss", 0.7, 5)
    writer.close()

    path = fresh(out, "files")
    writer = SummaryWriter(path)
    writer.add_scalar("loss", 0.4, 0)
    writer.close()
    with open(os.path.join(path, "hparams.json"), "w") as f:
        json.dump(NESTED, f)
    return {
        "torch_subrun": HPARAMS,
        "hf_text": {"args": ARGS, "model_config": MODEL_CONFIG},
        "files": NESTED,
    }


def part_paddle(out: str) -> dict:
    from tensorboardX import SummaryWriter
    from visualdl import LogWriter

    writer = SummaryWriter(fresh(out, "tbx"))
    writer.add_scalar("loss", 0.3, 0)
    # The default name: a <time.time()> sub-run. With name="." tensorboardX
    # opens a second writer on the same file name (same second, same host)
    # and the two writers corrupt each other's records.
    writer.add_hparams(HPARAMS, {"hparam/loss": 0.25})
    writer.close()
    with LogWriter(logdir=fresh(out, "visualdl")) as writer:
        writer.add_hparams(HPARAMS, ["hparam/accuracy"])
        writer.add_scalar("hparam/accuracy", 0.9, 1)
    return {"tbx": HPARAMS, "visualdl": HPARAMS}


def part_lightning(out: str) -> dict:
    import lightning
    import yaml
    from lightning.pytorch.loggers import TensorBoardLogger

    root = fresh(out, "lightning")
    logger = TensorBoardLogger(save_dir=root, name="", version=0)
    logger.log_hyperparams(NESTED)
    logger.log_metrics({"train_loss": 0.5}, step=0)
    logger.finalize("success")
    path = fresh(out, "yaml")
    with open(os.path.join(path, "config.yaml"), "w") as f:
        yaml.safe_dump(NESTED, f)
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(path)
    writer.add_scalar("loss", 0.4, 0)
    writer.close()
    return {
        "lightning/version_0": NESTED,
        "yaml": NESTED,
        "versions": {
            "lightning": lightning.__version__,
            "pyyaml": yaml.__version__,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--part", choices=("torch", "paddle", "lightning"))
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    truth = globals()[f"part_{args.part}"](args.out)
    with open(os.path.join(args.out, f"truth_{args.part}.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
