"""Writes vdlrecords.<ts>.log here with every kind VisualDL's LogWriter has.

Run with the Paddle demo venv (visualdl 2.5.3), from this folder:
    rm vdlrecords.*.log; /opt/venvs/demo-paddle/bin/python make.py .
"""

import sys

import numpy as np

np.float = float  # VisualDL 2.5.3's pr/roc curves still use the removed alias
from visualdl import LogWriter  # noqa: E402

rng = np.random.default_rng(0)
with LogWriter(logdir=sys.argv[1]) as w:
    for step in range(3):
        w.add_scalar(tag="train/loss", step=step, value=1.0 / (step + 1))
        w.add_scalars(
            main_tag="loss",
            tag_scalar_dict={"train": 0.5, "eval": 0.25},
            step=step,
        )
        w.add_histogram(
            tag="fc.w_0", values=rng.normal(size=100), step=step, buckets=10
        )
        w.add_text(tag="notes", text_string=f"step {step}", step=step)
        image = (rng.random((4, 4, 3)) * 255).astype("uint8")
        w.add_image(tag="img", img=image, step=step)
        labels, predictions = rng.integers(0, 2, 20), rng.random(20)
        w.add_pr_curve(
            tag="pr", labels=labels, predictions=predictions, step=step
        )
        w.add_roc_curve(
            tag="roc", labels=labels, predictions=predictions, step=step
        )
        audio = rng.random(800).astype("float32") - 0.5
        w.add_audio(tag="audio", audio_array=audio, step=step, sample_rate=8000)
    w.add_embeddings(
        tag="emb",
        labels=["a", "b", "c"],
        hot_vectors=rng.random((3, 4)).tolist(),
    )
    w.add_hparams(
        hparams_dict={"lr": 0.1, "bs": 32}, metrics_list=["train/loss"]
    )
