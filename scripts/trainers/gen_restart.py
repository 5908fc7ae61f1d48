"""A real restart: a training script killed and restarted, re-logging steps.

`restart/`: a PyTorch loop with `torch.utils.tensorboard.SummaryWriter`
(8 batches an epoch, 5 epochs) that saves a checkpoint after every epoch.
Logged: `Loss/train` and `lr` every batch at the 0-based global step,
`Loss/val` after each epoch at the global step of its last batch.

The first process is killed with SIGKILL in the middle of epoch 3 (after
step 28 was flushed); the second process (the same script, `--resume`)
loads the checkpoint of epoch 2 and trains on from step 24, logging steps
24..39 again into a new events file, without `purge_step`. So the points of
the first attempt at steps >= 24 are superseded; everything before stays.

Both processes write their own truth lines (`--truth-lines`), flushed after
each point; the parent joins them. Run in the trainers venv.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import fresh_dir, make_data  # noqa: E402
from truth import Recorder, finish  # noqa: E402

BATCH = 8
N_TRAIN = 64
N_VAL = 32
EPOCHS = 5
KILL_AFTER_STEP = 28  # the first process is killed after flushing this step
N = N_TRAIN // BATCH  # batches an epoch


def child(run_dir: str, lines: str, resume: bool) -> None:
    import torch
    from torch import nn
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(0)
    x, y, xv, yv = make_data(N_TRAIN, N_VAL)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    xv, yv = torch.from_numpy(xv), torch.from_numpy(yv)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2 * N)
    ckpt = os.path.join(run_dir, "..", "restart_checkpoint.pt")
    start_epoch = 0
    if resume:
        state = torch.load(ckpt)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1
    writer = SummaryWriter(run_dir)
    out = open(lines, "a", encoding="utf-8")

    def log(tag: str, value: float, step: int, epoch: int, batch, level: bool):
        writer.add_scalar(tag, value, step)
        writer.flush()
        out.write(json.dumps([tag, step, value, epoch, batch, level, resume]) + "\n")
        out.flush()

    for epoch in range(start_epoch, EPOCHS):
        gen = torch.Generator().manual_seed(epoch)
        order = torch.randperm(N_TRAIN, generator=gen)
        for b in range(N):
            step = epoch * N + b
            idx = order[b * BATCH : (b + 1) * BATCH]
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            log("lr", optimizer.param_groups[0]["lr"], step, epoch, b + 1, False)
            optimizer.step()
            scheduler.step()
            log("Loss/train", loss.item(), step, epoch, b + 1, False)
            if step == KILL_AFTER_STEP and not resume:
                print("ready", flush=True)
                time.sleep(600)  # killed here
        with torch.no_grad():
            vl = nn.functional.cross_entropy(model(xv), yv).item()
        log("Loss/val", vl, epoch * N + N - 1, epoch, None, True)
        torch.save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "epoch": epoch,
            },
            ckpt,
        )
    writer.close()


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", required=True)
    parser.add_argument("--truth-dir")
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--truth-lines")
    args = parser.parse_args()
    logdir = os.path.abspath(args.logdir)
    run_dir = os.path.join(logdir, "restart")
    if args.child:
        child(run_dir, args.truth_lines, args.resume)
        return
    fresh_dir(run_dir)
    lines = os.path.join(logdir, "restart_truth.jsonl")
    if os.path.exists(lines):
        os.remove(lines)
    base = [sys.executable, os.path.abspath(__file__), "--child"]
    base += ["--logdir", logdir, "--truth-lines", lines]
    first = subprocess.Popen(base, stdout=subprocess.PIPE, text=True)
    assert first.stdout is not None
    assert first.stdout.readline().strip() == "ready"
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    time.sleep(1.1)  # a new events file name (its time stamp is in seconds)
    subprocess.run(base + ["--resume"], check=True)
    os.remove(os.path.join(logdir, "restart_checkpoint.pt"))

    import torch

    recorder = Recorder(logdir, "restart")
    recorder.versions["torch"] = str(torch.__version__)
    ctx = recorder.context
    resumed_from = None
    with open(lines, encoding="utf-8") as f:
        for line in f:
            tag, step, value, epoch, batch, level, resumed = json.loads(line)
            if resumed and resumed_from is None:
                resumed_from = step
            ctx.update(
                loop="val" if level else "train",
                epoch=epoch,
                batch=batch,
                epoch_level=level,
            )
            recorder.record("restart", tag, step, value)
            series = recorder.runs["restart"]["tags"][tag]
            series.setdefault("attempt", []).append(1 if resumed else 0)
    os.remove(lines)
    entry = recorder.runs["restart"]
    entry.update(framework="pytorch", writer="torch.utils.tensorboard")
    entry["resumes"] = [{"step": resumed_from, "cause": "process killed (SIGKILL) and restarted from the epoch-2 checkpoint"}]
    for series in entry["tags"].values():
        # A first-attempt point is superseded when the second attempt logged
        # its step again.
        relogged = {s for s, a in zip(series["steps"], series["attempt"]) if a}
        series["current"] = [
            bool(a) or s not in relogged
            for s, a in zip(series["steps"], series["attempt"])
        ]
    finish(
        entry,
        steps_per_epoch=N,
        tag_facts={
            "Loss/train": {"split": "train", "level": "batch", "aggregation": "per_batch"},
            "lr": {"split": None, "level": "batch", "aggregation": "per_batch"},
            "Loss/val": {"split": "val", "level": "epoch", "aggregation": "epoch_mean"},
        },
    )
    recorder.notes.append(
        f"first process killed after step {KILL_AFTER_STEP}; the second "
        f"re-logs from step {resumed_from} (no purge_step)"
    )
    print(recorder.save(args.truth_dir))


if __name__ == "__main__":
    main()
