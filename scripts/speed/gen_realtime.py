"""Real-time logs for the step-semantics and shared-directory detectors.

Written with torch's real `SummaryWriter` and the real clock (no
`walltime=`), by real processes:

* `ms_steps/`: a loop that logs `perf/latency` at
  `global_step = int(elapsed * 1000)` (milliseconds as steps, the common
  trick to get a time axis) while its `loss` uses a logical step counter
  (0, 1, 2, ...): one writer, two step semantics. Iterations sleep 5-40 ms
  (drawn), every 40th 150 ms (an evaluation).
* `ms_only/`: only `perf/latency` and `perf/queue` at
  `int(elapsed * 1000)`.
* `ddp_shared/`: a real 2-rank `torch.distributed` (gloo, CPU) job whose
  ranks both open `SummaryWriter(log_dir=<the same directory>)`: two files
  (`...<host>.<pid>.0`, a pid each) written at the same time, logging the
  same steps 0..199 of `Loss/train` and `epoch` (40 steps an epoch).

`truth.json` says what each directory is.

Usage (a venv with torch==2.13.0, e.g. the trainers venv):
    python scripts/speed/gen_realtime.py --out tests/data/speed/realtime
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.tensorboard import SummaryWriter

DDP_STEPS = 200
DDP_STEPS_PER_EPOCH = 40


def ms_steps(path: str, *, with_logical: bool, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    writer = SummaryWriter(log_dir=path)
    start = time.time()
    ms = []
    for i in range(150):
        pause = 0.150 if i % 40 == 39 else float(rng.uniform(0.005, 0.040))
        time.sleep(pause)
        elapsed = time.time() - start
        step = int(elapsed * 1000)
        ms.append(step)
        writer.add_scalar("perf/latency", pause * 1000, step)
        if with_logical:
            writer.add_scalar("loss", 1.0 / (1 + i), i)
        else:
            writer.add_scalar("perf/queue", float(i % 7), step)
    writer.close()
    return {
        "timestampTags": ["perf/latency"]
        + ([] if with_logical else ["perf/queue"]),
        "logicalTags": ["loss"] if with_logical else [],
        "unit": "ms",
        "firstStep": ms[0],
        "lastStep": ms[-1],
    }


def ddp_worker(rank: int, port: int, path: str) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(rank)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    writer = SummaryWriter(log_dir=path)  # the mistake: one dir for all ranks
    for step in range(DDP_STEPS):
        x = torch.randn(16, 8)
        loss = ((model(x) - x.sum(1, keepdim=True)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        time.sleep(0.01)
        writer.add_scalar("Loss/train", loss.item(), step)
        writer.add_scalar("epoch", step // DDP_STEPS_PER_EPOCH, step)
    writer.close()
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    truth = {"torch": torch.__version__, "runs": {}}
    truth["runs"]["ms_steps"] = ms_steps(
        os.path.join(out, "ms_steps"), with_logical=True, seed=1
    )
    truth["runs"]["ms_only"] = ms_steps(
        os.path.join(out, "ms_only"), with_logical=False, seed=2
    )
    shared = os.path.join(out, "ddp_shared")
    os.makedirs(shared)
    mp.spawn(ddp_worker, args=(free_port(), shared), nprocs=2, join=True)
    truth["runs"]["ddp_shared"] = {
        "writers": 2,
        "files": sorted(os.listdir(shared)),
        "steps": [0, DDP_STEPS - 1],
    }
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
