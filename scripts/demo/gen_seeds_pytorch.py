"""Seed repeats, PyTorch: three runs equal but for their seed.

Writes ``<logdir>/seeds/pytorch_seed{0,1,2}/`` and
``<truth-dir>/seeds_pytorch.json``. Each run trains the shared MLP on the
shared data from its seed's initial weights and batch order
(``common.initial_weights(seed)``, ``common.epoch_order(epoch, seed)``),
logs ``Loss/train`` and the ``epoch`` staircase every batch, ``Loss/val``
and ``Accuracy/val`` at each epoch's last batch, and its hyper-parameters
with ``SummaryWriter.add_hparams(..., run_name=".")`` (into the run itself,
so TensorBoard's HParams tab and this plugin see one run, not a timestamp
sub-run). The Keras script uses the same seeds, so seed k of both
frameworks starts from the same weights.
"""

from __future__ import annotations

import os

import common
import tensorboard
import torch
from gen_pytorch import MLP
from torch import nn
from torch.utils.tensorboard import SummaryWriter

RUN = "seeds_pytorch"


def load_weights(model: MLP, seed: int) -> None:
    """Copies the seed's numpy weights (transposed to (out, in))."""
    w = common.initial_weights(seed)
    with torch.no_grad():
        model.fc1.weight.copy_(torch.from_numpy(w["w1"].T.copy()))
        model.fc1.bias.copy_(torch.from_numpy(w["b1"]))
        model.fc2.weight.copy_(torch.from_numpy(w["w2"].T.copy()))
        model.fc2.bias.copy_(torch.from_numpy(w["b2"]))


def train(seed: int, logdir: str, truth: common.Truth) -> None:
    run_dir = f"seeds/pytorch_seed{seed}"
    torch.manual_seed(seed)
    data = common.make_dataset()
    x_train = torch.from_numpy(data.x_train)
    y_train = torch.from_numpy(data.y_train)
    x_val = torch.from_numpy(data.x_val)
    y_val = torch.from_numpy(data.y_val)
    model = MLP()
    load_weights(model, seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=common.BASE_LR)
    scheduler = torch.optim.lr_scheduler.StepLR(
        optimizer, step_size=common.LR_DECAY_EVERY, gamma=common.LR_DECAY
    )
    loss_fn = nn.CrossEntropyLoss()
    writer = SummaryWriter(log_dir=os.path.join(logdir, run_dir))
    step = 0
    val_loss = val_acc = 0.0
    for epoch in range(common.EPOCHS):
        model.train()
        for batch in range(common.STEPS_PER_EPOCH):
            idx = torch.from_numpy(common.batch_indices(epoch, batch, seed))
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            for tag, value in (("Loss/train", loss.item()), ("epoch", epoch)):
                writer.add_scalar(tag, value, step)
                truth.scalar(run_dir, tag, step, value)
            step += 1
        model.eval()
        with torch.no_grad():
            logits = model(x_val)
            val_loss = loss_fn(logits, y_val).item()
            val_acc = (logits.argmax(dim=1) == y_val).float().mean().item()
        for tag, value in (("Loss/val", val_loss), ("Accuracy/val", val_acc)):
            writer.add_scalar(tag, value, step - 1)
            truth.scalar(run_dir, tag, step - 1, value)
        scheduler.step()
    hparams = common.seed_hparams(seed, "pytorch")
    metrics = {"hparam/val_loss": val_loss, "hparam/val_accuracy": val_acc}
    writer.add_hparams(hparams, metrics, run_name=".")
    for tag, value in metrics.items():
        truth.scalar(run_dir, tag, 0, value)
    truth.hparams_of(run_dir, "add_hparams(run_name='.')", hparams)
    writer.close()
    print(f"[{run_dir}] val_loss {val_loss:.4f} val_acc {val_acc:.4f}")


def main() -> None:
    args = common.parse_args(__doc__ or "")
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    truth = common.Truth(RUN, framework="pytorch", writer="torch")
    truth.versions.update(
        torch=torch.__version__, tensorboard=tensorboard.__version__
    )
    truth.notes.append(
        "Loss/train and epoch at every 0-based global batch step; Loss/val, "
        "Accuracy/val at each epoch's last batch; add_hparams(run_name='.') "
        "writes hparam/* at step 0 in a second events file of the run"
    )
    for seed in common.SEEDS:
        train(seed, args.logdir, truth)
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
