"""Stable-Baselines3 PPO on CartPole with `tensorboard_log`: one real run.

`sb3_ppo/PPO_1/`: SB3's logger (`TensorBoardOutputFormat`, a
`torch.utils.tensorboard.SummaryWriter`) dumps every recorded key at
step = `num_timesteps` (environment steps, 128 a rollout here):
`rollout/ep_len_mean`, `rollout/ep_rew_mean` (means over the last 100
finished training episodes), `time/fps`, `train/*` (the PPO update's
losses, `train/learning_rate`, `train/n_updates` a counter, ...), and from
an `EvalCallback` every 256 steps `eval/mean_reward`, `eval/mean_ep_length`.
No epochs: PPO's `n_epochs` are passes over one rollout buffer, not epochs of
a data set, and nothing in the files counts them.

Run in the trainers venv (scripts/trainers/requirements.txt).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gymnasium  # noqa: E402
import stable_baselines3  # noqa: E402
import torch  # noqa: E402
from common import fresh_dir, parse_args  # noqa: E402
from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.callbacks import EvalCallback  # noqa: E402
from torch.utils import tensorboard as torch_tb  # noqa: E402
from truth import Recorder, finish, version_of  # noqa: E402

N_STEPS = 128  # environment steps a rollout
TOTAL = 1024  # environment steps
EVAL_FREQ = 256  # environment steps between evaluations


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    logdir = os.path.abspath(args.logdir)
    root = fresh_dir(os.path.join(logdir, "sb3_ppo"))
    recorder = Recorder(logdir, "sb3")
    recorder.versions.update(
        stable_baselines3=version_of(stable_baselines3),
        gymnasium=version_of(gymnasium),
        torch=version_of(torch),
    )
    recorder.wrap(
        torch_tb.SummaryWriter,
        "add_scalar",
        lambda w: recorder.rel(w.log_dir),
    )
    torch.manual_seed(0)
    env = gymnasium.make("CartPole-v1")
    eval_env = gymnasium.make("CartPole-v1")
    model = PPO(
        "MlpPolicy",
        env,
        n_steps=N_STEPS,
        batch_size=64,
        n_epochs=2,
        policy_kwargs=dict(net_arch=[16]),
        tensorboard_log=root,
        seed=0,
        verbose=0,
        device="cpu",
    )
    model.learn(
        total_timesteps=TOTAL,
        tb_log_name="PPO",
        callback=EvalCallback(
            eval_env, eval_freq=EVAL_FREQ, n_eval_episodes=2, verbose=0
        ),
    )
    model.logger.close()
    for _run_dir, entry in recorder.runs.items():
        entry.update(
            framework="pytorch",
            writer="torch.utils.tensorboard",
            trainer="stable_baselines3",
        )
        facts = {}
        for tag in entry["tags"]:
            head = tag.split("/")[0]
            if head == "rollout":
                # Means over the last 100 finished *training* episodes; no
                # split word, and "train" would be a guess.
                facts[tag] = {"split": None, "level": None, "aggregation": "window_mean"}
            elif head == "eval":
                facts[tag] = {"split": "val", "level": None, "aggregation": "epoch_mean"}
            elif tag == "train/n_updates":
                facts[tag] = {"split": None, "level": None, "aggregation": "counter"}
            elif head == "train":
                facts[tag] = {"split": "train", "level": None, "aggregation": "unknown"}
            else:  # time/fps
                facts[tag] = {"split": None, "level": None, "aggregation": "unknown"}
        finish(entry, steps_per_epoch=None, tag_facts=facts)
    recorder.notes.append(
        "every tag at step = num_timesteps (environment steps); no epochs"
    )
    print(recorder.save(args.truth_dir))


if __name__ == "__main__":
    main()
