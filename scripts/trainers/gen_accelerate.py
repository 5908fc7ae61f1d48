"""HF Accelerate with `Accelerator(log_with="tensorboard")`: one real run.

Set up as Accelerate's own `examples/by_feature/tracking.py`:
`accelerator.init_trackers("tracking", config)` (its `TensorBoardTracker`
opens a torch `SummaryWriter` in `<project_dir>/tracking` and stores the
config with `add_hparams(config, metric_dict={})`, which torch writes into a
`<run>/<time.time()>` sub-run, plus `hparams.yml` in another
`<run>/<time.time()>` directory), then after each epoch

    accelerator.log({"accuracy": ..., "train_loss": total / batches,
                     "epoch": epoch}, step=epoch)

so every tag is at step = the 0-based epoch index, and `epoch` equals its
step. `accuracy` is measured on the validation data; nothing in its name
says so.

Run in the trainers venv (scripts/trainers/requirements.txt).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import accelerate  # noqa: E402
import torch  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.utils import set_seed  # noqa: E402
from common import fresh_dir, make_data, parse_args  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils import tensorboard as torch_tb  # noqa: E402
from truth import Recorder, finish, version_of  # noqa: E402

BATCH = 8
N_TRAIN = 64
N_VAL = 32
EPOCHS = 4
CONFIG = {"lr": 0.1, "num_epochs": EPOCHS, "seed": 42, "batch_size": BATCH}


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    logdir = os.path.abspath(args.logdir)
    project = fresh_dir(os.path.join(logdir, "accelerate"))
    recorder = Recorder(logdir, "accelerate")
    recorder.versions.update(
        accelerate=version_of(accelerate), torch=version_of(torch)
    )
    recorder.wrap(
        torch_tb.SummaryWriter,
        "add_scalar",
        lambda w: recorder.rel(w.log_dir),
    )
    set_seed(CONFIG["seed"])
    accelerator = Accelerator(
        cpu=True, log_with="tensorboard", project_dir=project
    )
    accelerator.init_trackers("tracking", CONFIG)
    x, y, xv, yv = make_data(N_TRAIN, N_VAL)
    train = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)),
        batch_size=BATCH,
        shuffle=True,
    )
    val = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(
            torch.from_numpy(xv), torch.from_numpy(yv)
        ),
        batch_size=BATCH,
    )
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"])
    model, optimizer, train, val = accelerator.prepare(
        model, optimizer, train, val
    )
    ctx = recorder.context
    for epoch in range(EPOCHS):
        model.train()
        total = 0.0
        for xb, yb in train:
            loss = nn.functional.cross_entropy(model(xb), yb)
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
            total += loss.detach().float().item()
        model.eval()
        correct = seen = 0
        with torch.no_grad():
            for xb, yb in val:
                pred = model(xb).argmax(dim=1)
                correct += int((pred == yb).sum())
                seen += len(yb)
        ctx.update(loop="epoch_end", epoch=epoch, batch=None, epoch_level=True)
        accelerator.log(
            {
                "accuracy": correct / seen,
                "train_loss": total / len(train),
                "epoch": epoch,
            },
            step=epoch,
        )
    accelerator.end_training()

    for _run_dir, entry in recorder.runs.items():
        entry.update(
            framework="pytorch",
            writer="torch.utils.tensorboard",
            trainer="accelerate",
        )
        finish(
            entry,
            steps_per_epoch=len(train),
            tag_facts={
                "accuracy": {"split": "val", "level": "epoch", "aggregation": "epoch_mean"},
                "train_loss": {"split": "train", "level": "epoch", "aggregation": "epoch_mean"},
                "epoch": {"split": None, "level": "epoch", "aggregation": "counter"},
            },
        )
    subs = sorted(
        d for d in os.listdir(os.path.join(project, "tracking"))
        if os.path.isdir(os.path.join(project, "tracking", d))
    )
    for sub in subs:
        files = os.listdir(os.path.join(project, "tracking", sub))
        if any(f.startswith("events.out.tfevents") for f in files):
            recorder.run(
                f"accelerate/tracking/{sub}",
                framework="pytorch",
                writer="torch.utils.tensorboard",
                trainer="accelerate",
                parent="accelerate/tracking",
                subRun="add_hparams",
            )
    recorder.notes.extend(
        [
            "every tag at step = 0-based epoch index; the epoch tag equals "
            "its step",
            "accuracy is on the validation data (the tag does not say)",
            "add_hparams(config, metric_dict={}) writes the sub-run "
            "<run>/<time.time()>; hparams.yml goes into another "
            "<run>/<time.time()> directory with no events",
        ]
    )
    print(recorder.save(args.truth_dir))


if __name__ == "__main__":
    main()
