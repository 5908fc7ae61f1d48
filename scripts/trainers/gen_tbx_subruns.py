"""tensorboardX `add_scalars` and `add_hparams(name=...)` sub-runs: one run.

`tbx_subruns/`: a PyTorch loop (8 batches an epoch, 3 epochs) logging with
`tensorboardX.SummaryWriter`:

* `loss` every batch at the 0-based global step;
* after each epoch, at the global step of its last batch,
  `add_scalars("acc", {"train": a, "val": b}, step)` and
  `add_scalars("metrics/loss", {"train": l, "val": m}, step)`: tensorboardX
  writes each key into its own run `<run>/<main_tag>/<key>` holding the tag
  `<main_tag>` (`tbx_subruns/acc/train` holds `acc`,
  `tbx_subruns/metrics/loss/val` holds `metrics/loss`);
* at the end `add_hparams({...}, {"hparam/accuracy": b}, name="trial_a")`:
  the `_hparams_` summaries and the metric go into `<run>/trial_a`.

Run in the trainers venv (scripts/trainers/requirements.txt).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorboardX  # noqa: E402
import torch  # noqa: E402
from common import fresh_dir, make_data, parse_args  # noqa: E402
from torch import nn  # noqa: E402
from truth import Recorder, finish, to_float, version_of  # noqa: E402

BATCH = 8
N_TRAIN = 64
N_VAL = 32
EPOCHS = 3


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    logdir = os.path.abspath(args.logdir)
    run_dir = fresh_dir(os.path.join(logdir, "tbx_subruns"))
    recorder = Recorder(logdir, "tbx_subruns")
    recorder.versions.update(
        tensorboardX=version_of(tensorboardX), torch=version_of(torch)
    )
    writer_dir = lambda w: recorder.rel(w.logdir)  # noqa: E731
    recorder.wrap(tensorboardX.SummaryWriter, "add_scalar", writer_dir)

    def scalars_call(w, main_tag, values, global_step=None, walltime=None):
        return [
            (f"{writer_dir(w)}/{main_tag}/{key}", main_tag, int(global_step), to_float(v))
            for key, v in values.items()
        ]

    def hparams_call(w, hparams, metrics, name=None, global_step=None):
        return [
            (f"{writer_dir(w)}/{name}", k, int(global_step or 0), to_float(v))
            for k, v in metrics.items()
        ]

    recorder.wrap(
        tensorboardX.SummaryWriter, "add_scalars", writer_dir, unpack=scalars_call
    )
    recorder.wrap(
        tensorboardX.SummaryWriter, "add_hparams", writer_dir, unpack=hparams_call
    )
    torch.manual_seed(0)
    x, y, xv, yv = make_data(N_TRAIN, N_VAL)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    xv, yv = torch.from_numpy(xv), torch.from_numpy(yv)
    n = N_TRAIN // BATCH
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    writer = tensorboardX.SummaryWriter(run_dir)
    ctx = recorder.context
    step = 0
    val_acc = 0.0
    for epoch in range(EPOCHS):
        order = torch.randperm(N_TRAIN)
        for b in range(n):
            idx = order[b * BATCH : (b + 1) * BATCH]
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            ctx.update(loop="train", epoch=epoch, batch=b + 1, epoch_level=False)
            writer.add_scalar("loss", loss.item(), step)
            step += 1
        with torch.no_grad():
            out, out_v = model(x), model(xv)
            acc = (out.argmax(1) == y).float().mean().item()
            val_acc = (out_v.argmax(1) == yv).float().mean().item()
            tl = nn.functional.cross_entropy(out, y).item()
            vl = nn.functional.cross_entropy(out_v, yv).item()
        ctx.update(loop="eval", epoch=epoch, batch=None, epoch_level=True)
        writer.add_scalars("acc", {"train": acc, "val": val_acc}, step - 1)
        writer.add_scalars("metrics/loss", {"train": tl, "val": vl}, step - 1)
    ctx.update(loop="hparams", epoch=None, batch=None, epoch_level=False)
    writer.add_hparams(
        {"lr": 0.1, "batch_size": BATCH},
        {"hparam/accuracy": val_acc},
        name="trial_a",
    )
    writer.close()

    for name, entry in recorder.runs.items():
        entry.update(framework="pytorch", writer="tensorboardX", trainer=None)
        epoch_facts = lambda split: {  # noqa: E731
            "split": split, "level": "epoch", "aggregation": "epoch_mean"
        }
        if name == "tbx_subruns":
            facts = {"loss": {"split": "train", "level": "batch", "aggregation": "per_batch"}}
        elif name == "tbx_subruns/trial_a":
            entry.update(parent="tbx_subruns", subRun="add_hparams")
            facts = {"hparam/accuracy": {"split": "val", "level": None, "aggregation": "epoch_mean"}}
        else:
            entry.update(parent="tbx_subruns", subRun="add_scalars")
            split = name.rsplit("/", 1)[-1]
            facts = {t: epoch_facts(split) for t in entry["tags"]}
        finish(entry, steps_per_epoch=n, tag_facts=facts)
    recorder.notes.extend(
        [
            "add_scalars(main, {key: v}) -> run <run>/<main>/<key>, tag <main>",
            "add_hparams(..., name='trial_a') -> run <run>/trial_a",
            "framework: tensorboardX files do not say PyTorch",
            "hparam/accuracy is the final validation accuracy; its name "
            "does not say val (unknown is right)",
        ]
    )
    print(recorder.save(args.truth_dir))


if __name__ == "__main__":
    main()
