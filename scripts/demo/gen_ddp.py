"""A real 2-rank DDP job: torch.distributed with gloo on CPU, a dir a rank.

Writes ``<logdir>/ddp/rank_0/`` and ``<logdir>/ddp/rank_1/`` and
``<truth-dir>/ddp.json``. Two processes (``torch.multiprocessing.spawn``)
join a ``gloo`` process group on 127.0.0.1, wrap the shared MLP in
``DistributedDataParallel`` and train it on their half of each global batch
of 32 (rank r takes samples r, r+2, ...), so gradients are averaged across
ranks while each rank's logged ``Loss/train`` is its own shard's loss: the
ranks' curves differ, as real DDP logs do. Each rank logs with its own
``SummaryWriter`` into ``rank_<r>`` (``Loss/train`` and the ``epoch``
staircase every step, ``Loss/val`` per epoch) and saves the job's settings
as ``config.json`` beside its events file, the common "save the config with
the logs" convention.
"""

from __future__ import annotations

import json
import os
import socket

import common
import tensorboard
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from gen_pytorch import MLP
from gen_seeds_pytorch import load_weights
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.tensorboard import SummaryWriter

RUN = "ddp"
WORLD_SIZE = 2
SEED = 0  # the job's seed (initial weights, batch order)


def config(world_size: int) -> dict:
    return {
        "job": "ddp_mlp",
        "backend": "gloo",
        "world_size": world_size,
        "train": {
            "lr": common.BASE_LR,
            "global_batch_size": common.BATCH_SIZE,
            "epochs": common.EPOCHS,
            "seed": SEED,
        },
        "model": {"hidden": common.N_HIDDEN, "activation": "relu"},
    }


def worker(rank: int, port: int, logdir: str, out: str) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD_SIZE)
    data = common.make_dataset()
    x_train = torch.from_numpy(data.x_train)
    y_train = torch.from_numpy(data.y_train)
    x_val = torch.from_numpy(data.x_val)
    y_val = torch.from_numpy(data.y_val)
    model = MLP()
    load_weights(model, SEED)
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=common.BASE_LR)
    loss_fn = nn.CrossEntropyLoss()
    run_dir = f"{RUN}/rank_{rank}"
    path = os.path.join(logdir, run_dir)
    writer = SummaryWriter(log_dir=path)
    with open(os.path.join(path, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config(WORLD_SIZE), f, indent=2)
    logged: dict[str, dict[str, list]] = {}

    def log(tag: str, value: float, step: int) -> None:
        writer.add_scalar(tag, value, step)
        series = logged.setdefault(tag, {"steps": [], "values": []})
        series["steps"].append(step)
        series["values"].append(float(value))

    step = 0
    for epoch in range(common.EPOCHS):
        for group in optimizer.param_groups:
            group["lr"] = common.learning_rate(epoch)
        ddp.train()
        for batch in range(common.STEPS_PER_EPOCH):
            idx = common.batch_indices(epoch, batch, SEED)[rank::WORLD_SIZE]
            idx_t = torch.from_numpy(idx.copy())
            optimizer.zero_grad()
            loss = loss_fn(ddp(x_train[idx_t]), y_train[idx_t])
            loss.backward()  # DDP all-reduces (averages) the gradients
            optimizer.step()
            log("Loss/train", loss.item(), step)
            log("epoch", float(epoch), step)
            step += 1
        ddp.eval()
        with torch.no_grad():
            val = x_val[rank::WORLD_SIZE], y_val[rank::WORLD_SIZE]
            log("Loss/val", loss_fn(model(val[0]), val[1]).item(), step - 1)
    writer.close()
    with open(os.path.join(out, f"rank_{rank}.json"), "w") as f:
        json.dump(logged, f)
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    args = common.parse_args(__doc__ or "")
    truth = common.Truth(RUN, framework="pytorch", writer="torch")
    truth.versions.update(
        torch=torch.__version__, tensorboard=tensorboard.__version__
    )
    truth.notes.append(
        "2 ranks, gloo on CPU, DistributedDataParallel; each rank logs its "
        "own shard's loss at 0-based global steps; config.json per rank dir"
    )
    scratch = os.path.join(args.truth_dir, ".ddp_scratch")
    os.makedirs(scratch, exist_ok=True)
    mp.spawn(
        worker,
        args=(free_port(), args.logdir, scratch),
        nprocs=WORLD_SIZE,
        join=True,
    )
    for rank in range(WORLD_SIZE):
        run_dir = f"{RUN}/rank_{rank}"
        with open(os.path.join(scratch, f"rank_{rank}.json")) as f:
            logged = json.load(f)
        for tag, series in logged.items():
            for step, value in zip(series["steps"], series["values"]):
                truth.scalar(run_dir, tag, step, value)
        truth.hparams_of(run_dir, "config.json", config(WORLD_SIZE))
        os.remove(os.path.join(scratch, f"rank_{rank}.json"))
    os.rmdir(scratch)
    print("truth:", truth.save(args.truth_dir))


if __name__ == "__main__":
    main()
