"""Writes tests/data/trainers/ with every trainer generator, each in its venv.

Usage (three venvs, see README.md):

    python scripts/trainers/make_trainer_logs.py \
        --torch-python /work/venvs/trainers/bin/python \
        --tf-python /work/venvs/trainers-tf/bin/python \
        --paddle-python /work/venvs/trainers-paddle/bin/python

Logs go to `tests/data/trainers/` (one logdir, every trainer's runs side by
side), ground truth to `tests/data/trainers/truth/` (outside every run
directory). Events files carry wall times and host names, so a rerun
changes the bytes, never the steps, tags or the truth's interpretation.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GENERATORS = {
    "torch": [
        "gen_mmengine.py",
        "gen_sb3.py",
        "gen_ignite.py",
        "gen_accelerate.py",
        "gen_tbx_subruns.py",
        "gen_restart.py",
    ],
    "tf": ["gen_keras_freq.py"],
    "paddle": ["gen_vdl_loops.py"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch-python", required=True)
    parser.add_argument("--tf-python", required=True)
    parser.add_argument("--paddle-python", required=True)
    parser.add_argument(
        "--out", default=os.path.join(REPO, "tests", "data", "trainers")
    )
    parser.add_argument("--only", nargs="*", help="generator file names")
    args = parser.parse_args()
    pythons = {
        "torch": args.torch_python,
        "tf": args.tf_python,
        "paddle": args.paddle_python,
    }
    truth = os.path.join(args.out, "truth")
    for kind, scripts in GENERATORS.items():
        for script in scripts:
            if args.only and script not in args.only:
                continue
            print(f"== {script} ({kind})", flush=True)
            subprocess.run(
                [
                    pythons[kind],
                    os.path.join(HERE, script),
                    "--logdir",
                    args.out,
                    "--truth-dir",
                    truth,
                ],
                check=True,
            )


if __name__ == "__main__":
    sys.exit(main())
