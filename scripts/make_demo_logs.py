"""Regenerates demo_logs/ and tests/data/demo_truth/ with the real frameworks.

Each run is written by its own script in scripts/demo/, executed by the
Python of that framework's venv (the frameworks pin clashing protobuf
versions, so they live in separate venvs; see scripts/demo/README.md).
Everything is written into temporary directories next to the targets,
checked against the ground truth with scripts/demo/check_logs.py, and only
then swapped in place of the old directories. Needs only the stdlib.

Usage::

    python scripts/make_demo_logs.py                  # all runs
    python scripts/make_demo_logs.py --only keras_fit,tf2_loop
    DEMO_TORCH_PYTHON=/path/to/python python scripts/make_demo_logs.py

Interpreters (flag, else environment variable, else default):
    --torch-python   DEMO_TORCH_PYTHON   /opt/venvs/demo-torch/bin/python
    --tf-python      DEMO_TF_PYTHON      /opt/venvs/demo-tf/bin/python
    --paddle-python  DEMO_PADDLE_PYTHON  /opt/venvs/demo-paddle/bin/python
    --trainers-python DEMO_TRAINERS_PYTHON /opt/venvs/demo-trainers/bin/python
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO_DIR = os.path.join(REPO, "scripts", "demo")
MAX_TOTAL_BYTES = 5 * 1024 * 1024  # demo_logs size budget

_DEFAULT_PYTHONS = {
    "torch": ("DEMO_TORCH_PYTHON", "/opt/venvs/demo-torch/bin/python"),
    "tf": ("DEMO_TF_PYTHON", "/opt/venvs/demo-tf/bin/python"),
    "paddle": ("DEMO_PADDLE_PYTHON", "/opt/venvs/demo-paddle/bin/python"),
    "trainers": (
        "DEMO_TRAINERS_PYTHON",
        "/opt/venvs/demo-trainers/bin/python",
    ),
}


@dataclass(frozen=True)
class Run:
    """One top-level run directory and the script that writes it."""

    name: str
    venv: str  # key of _DEFAULT_PYTHONS
    script: str
    log_format: str  # "tfevents" or "visualdl"
    dirs: tuple[str, ...] = ()  # directories it writes, if not just `name`

    @property
    def owned(self) -> tuple[str, ...]:
        return self.dirs or (self.name,)


_SEED_DIRS = tuple(
    f"seeds/{fw}_seed{seed}" for fw in ("pytorch", "keras") for seed in range(3)
)
RUNS = (
    Run("pytorch_sgd", "torch", "gen_pytorch.py", "tfevents"),
    Run("keras_fit", "tf", "gen_keras.py", "tfevents"),
    Run("tf2_loop", "tf", "gen_tf2.py", "tfevents"),
    Run("paddle_vdl", "paddle", "gen_paddle_vdl.py", "visualdl"),
    Run("paddle_tbx", "paddle", "gen_paddle_tbx.py", "tfevents"),
    Run("paddle_hapi", "paddle", "gen_paddle_hapi.py", "visualdl"),
    Run("lightning_mlp", "trainers", "gen_lightning.py", "tfevents"),
    Run("hf_trainer", "trainers", "gen_hf_trainer.py", "tfevents"),
    Run("pytorch_resumed", "torch", "gen_pytorch_resumed.py", "tfevents"),
    Run(
        "seeds_pytorch",
        "torch",
        "gen_seeds_pytorch.py",
        "tfevents",
        _SEED_DIRS[:3],
    ),
    Run("seeds_keras", "tf", "gen_seeds_keras.py", "tfevents", _SEED_DIRS[3:]),
    Run("ddp", "torch", "gen_ddp.py", "tfevents"),
)

# Single-threaded, quiet, CPU-only: the numbers must not depend on the box.
_CHILD_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "CUDA_VISIBLE_DEVICES": "",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "HF_HUB_OFFLINE": "1",
}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    for key, (env, default) in _DEFAULT_PYTHONS.items():
        parser.add_argument(
            f"--{key}-python",
            default=os.environ.get(env, default),
            help=f"interpreter of the {key} venv (env {env})",
        )
    parser.add_argument(
        "--out",
        default=os.path.join(REPO, "demo_logs"),
        help="log directory to replace (default: demo_logs/)",
    )
    parser.add_argument(
        "--truth-out",
        default=os.path.join(REPO, "tests", "data", "demo_truth"),
        help="ground-truth directory to replace",
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated run names to regenerate; the other runs are "
        "kept as they are",
    )
    parser.add_argument(
        "--no-check",
        action="store_true",
        help="skip the check of the new logs against the ground truth",
    )
    return parser.parse_args()


def python_for(args: argparse.Namespace, venv: str) -> str:
    path = getattr(args, f"{venv}_python")
    if not os.path.exists(path):
        sys.exit(
            f"error: no {venv} interpreter at {path}; set up the venvs as "
            "scripts/demo/README.md says, or pass --{venv}-python"
        )
    return str(path)


def run_child(cmd: list[str]) -> None:
    env = dict(os.environ, **_CHILD_ENV)
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=DEMO_DIR, env=env)


def keep_old(
    selected: set[str], out: str, truth_out: str, tmp_logs: str, tmp_truth: str
) -> None:
    """Copies the runs that are not regenerated into the new directories.

    The logdir's own config (`.tb_multiframework/`) is kept too.
    """
    own_config = os.path.join(out, ".tb_multiframework")
    if os.path.isdir(own_config):
        shutil.copytree(
            own_config, os.path.join(tmp_logs, ".tb_multiframework")
        )
    for run in RUNS:
        if run.name in selected:
            continue
        old_truth = os.path.join(truth_out, f"{run.name}.json")
        for owned in run.owned:
            old_run = os.path.join(out, owned)
            if os.path.isdir(old_run):
                shutil.copytree(old_run, os.path.join(tmp_logs, owned))
        if os.path.isfile(old_truth):
            shutil.copy2(old_truth, tmp_truth)


def swap_in(new: str, target: str) -> None:
    """Replaces `target` by `new` with two renames (same filesystem)."""
    old = None
    if os.path.exists(target):
        old = tempfile.mkdtemp(
            prefix=os.path.basename(target) + ".old-",
            dir=os.path.dirname(target),
        )
        os.rmdir(old)
        os.rename(target, old)
    os.rename(new, target)
    if old:
        shutil.rmtree(old)


def print_sizes(root: str) -> int:
    """Prints every file under `root` with its size; returns the total."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            size = os.path.getsize(path)
            total += size
            print(f"{size:>10,}  {os.path.relpath(path, REPO)}")
    print(f"{total:>10,}  total {os.path.relpath(root, REPO)}/")
    return total


def main() -> None:
    args = parse_args()
    selected = {r.name for r in RUNS}
    if args.only:
        selected = {name.strip() for name in args.only.split(",") if name}
        unknown = selected - {r.name for r in RUNS}
        if unknown:
            sys.exit(f"error: unknown run(s) {sorted(unknown)}")

    out = os.path.abspath(args.out)
    truth_out = os.path.abspath(args.truth_out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    os.makedirs(os.path.dirname(truth_out), exist_ok=True)
    tmp_logs = tempfile.mkdtemp(
        prefix="demo_logs.new-", dir=os.path.dirname(out)
    )
    tmp_truth = tempfile.mkdtemp(
        prefix="demo_truth.new-", dir=os.path.dirname(truth_out)
    )
    try:
        keep_old(selected, out, truth_out, tmp_logs, tmp_truth)
        for run in RUNS:
            if run.name not in selected:
                continue
            for owned in run.owned:
                stale = os.path.join(tmp_logs, owned)
                if os.path.exists(stale):
                    shutil.rmtree(stale)
            run_child(
                [
                    python_for(args, run.venv),
                    os.path.join(DEMO_DIR, run.script),
                    "--logdir",
                    tmp_logs,
                    "--truth-dir",
                    tmp_truth,
                ]
            )
        if not args.no_check:
            checkers = {"tfevents": "torch", "visualdl": "paddle"}
            for log_format, venv in checkers.items():
                run_child(
                    [
                        python_for(args, venv),
                        os.path.join(DEMO_DIR, "check_logs.py"),
                        "--format",
                        log_format,
                        "--logdir",
                        tmp_logs,
                        "--truth-dir",
                        tmp_truth,
                    ]
                )
        total = print_sizes(tmp_logs)
        if total > MAX_TOTAL_BYTES:
            sys.exit(f"error: {total} bytes > budget {MAX_TOTAL_BYTES}")
        swap_in(tmp_logs, out)
        swap_in(tmp_truth, truth_out)
    finally:
        for tmp in (tmp_logs, tmp_truth):
            if os.path.exists(tmp):
                shutil.rmtree(tmp)
    print("\nwritten:")
    print_sizes(out)
    print_sizes(truth_out)


if __name__ == "__main__":
    main()
