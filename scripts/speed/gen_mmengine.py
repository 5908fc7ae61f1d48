"""MMEngine `Runner` + `TensorboardVisBackend`: its own `time` per iteration.

`mmengine_sps/<timestamp>/vis_data/`: an `IterBasedTrainLoop` of 120
iterations (a 64 -> 256 -> 256 -> 3 MLP, batch 64, a data set with a 2 ms
`__getitem__` delay per batch so `data_time` is not 0), no validation, the
`LoggerHook` every 5 iterations. MMEngine writes, at step = iteration
(1-based), `loss`, `lr`, `time` (the mean seconds an iteration over the
last 5: its `LogProcessor` `mean_pattern` window, data loading included)
and `data_time` (the data-loading part), `iter`. The speed tests compare
`time` with the step time derived from wall time.

Usage (the trainers venv: torch==2.13.0, mmengine==0.10.7):
    python scripts/speed/gen_mmengine.py --out tests/data/speed/frameworks
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import time

import mmengine
import numpy as np
import torch
from mmengine.config import Config
from mmengine.model import BaseModel
from mmengine.registry import DATASETS, MODELS
from mmengine.runner import Runner
from torch import nn

BATCH = 64
ITERS = 120
INTERVAL = 5


@MODELS.register_module(force=True)
class SpeedNet(BaseModel):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(64, 256),
            nn.ReLU(),
            nn.Linear(256, 256),
            nn.ReLU(),
            nn.Linear(256, 3),
        )

    def forward(self, inputs, labels, mode="tensor"):  # type: ignore[override]
        logits = self.net(inputs)
        if mode == "loss":
            return {"loss": nn.functional.cross_entropy(logits, labels)}
        return logits


@DATASETS.register_module(force=True)
class SlowData(torch.utils.data.Dataset):
    def __init__(self) -> None:
        rng = np.random.default_rng(0)
        self.x = torch.from_numpy(
            rng.standard_normal((BATCH * 20, 64)).astype("float32")
        )
        self.y = self.x[:, :3].argmax(1)

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int):
        if i % BATCH == 0:
            time.sleep(0.002)
        return {"inputs": self.x[i], "labels": self.y[i]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    work_dir = os.path.join(os.path.abspath(args.out), "mmengine_sps")
    if os.path.exists(work_dir):
        shutil.rmtree(work_dir)
    torch.set_num_threads(1)
    cfg = Config(
        dict(
            model=dict(type="SpeedNet"),
            work_dir=work_dir,
            experiment_name="mmengine_sps",
            train_dataloader=dict(
                dataset=dict(type="SlowData"),
                sampler=dict(type="DefaultSampler", shuffle=False),
                batch_size=BATCH,
                collate_fn=dict(type="default_collate"),
            ),
            train_cfg=dict(by_epoch=False, max_iters=ITERS),
            optim_wrapper=dict(optimizer=dict(type="SGD", lr=0.05)),
            log_processor=dict(by_epoch=False, window_size=INTERVAL),
            default_hooks=dict(
                logger=dict(type="LoggerHook", interval=INTERVAL),
                checkpoint=dict(type="CheckpointHook", interval=10**6),
            ),
            visualizer=dict(
                type="Visualizer",
                vis_backends=[dict(type="TensorboardVisBackend")],
                name="vis_speed",
            ),
            randomness=dict(seed=0),
            log_level="WARNING",
        )
    )
    runner = Runner.from_cfg(cfg)
    runner.train()
    runner.visualizer.close()
    for pattern in ("*.pth", "last_checkpoint", "*/*.log", "*/vis_data/*.json"):
        for path in glob.glob(os.path.join(work_dir, pattern)):
            os.remove(path)
    print(f"wrote {runner.log_dir} (mmengine {mmengine.__version__})")


if __name__ == "__main__":
    main()
