"""Stable-Baselines3 A2C on CartPole with `tensorboard_log`: its `time/fps`.

`sb3_sps/A2C_1/`: SB3's logger (a torch `SummaryWriter`) dumps every
`log_interval` updates (here 10 updates of 5 environment steps) at
step = `num_timesteps`: `time/fps` = int(timesteps since `learn()` began /
seconds since it began), a running average from the start, beside
`train/*` and `rollout/*`. The speed tests turn consecutive `time/fps`
values back into the rate between two dumps and compare it with the
steps/s derived from wall time.

Usage (the trainers venv: torch==2.13.0, stable-baselines3==2.9.2):
    python scripts/speed/gen_sb3.py --out tests/data/speed/frameworks
"""

from __future__ import annotations

import argparse
import os
import shutil

import gymnasium
import stable_baselines3
import torch
from stable_baselines3 import A2C


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    root = os.path.join(os.path.abspath(args.out), "sb3_sps")
    if os.path.exists(root):
        shutil.rmtree(root)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = A2C(
        "MlpPolicy",
        gymnasium.make("CartPole-v1"),
        n_steps=5,
        policy_kwargs=dict(net_arch=[64, 64]),
        tensorboard_log=root,
        seed=0,
        verbose=0,
        device="cpu",
    )
    model.learn(total_timesteps=6000, log_interval=10, tb_log_name="A2C")
    model.logger.close()
    print(f"wrote {root} (sb3 {stable_baselines3.__version__})")


if __name__ == "__main__":
    main()
