"""Which framework and which library wrote a run, from evidence in its files.

Evidence, strongest first:
* the format: `vdlrecords.*.log` files are written only by VisualDL, which is
  PaddlePaddle's logger;
* the writer named in the first event (`source_metadata.writer`):
  `tensorboard.summary.writer.event_file_writer` (torch.utils.tensorboard)
  or `tensorflow.core.util.events_writer` (tf.summary, Keras);
  tensorboardX names none;
* the event file name, which each writer builds differently:
  `events.out.tfevents.<ts>.<host>.<pid>.<n>.v2` (TensorFlow's C++ writer:
  tf.summary and Keras), `events.out.tfevents.<ts>.<host>.<pid>.<n>`
  (tensorboard.summary.writer, i.e. torch.utils.tensorboard) and
  `events.out.tfevents.<ts>.<host>` (tensorboardX);
* Keras' layout: sub-runs named `train` / `validation` holding `epoch_*`,
  `batch_*` or `evaluation_*_vs_iterations` tags.

tensorboardX is used from PyTorch and from Paddle alike and the files do not
say which, so its runs are `unknown` unless the config says otherwise.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from typing import Iterable

_TF_NAME = re.compile(r"^events\.out\.tfevents\.\d+\..+\.\d+\.\d+\.v2$")
_TORCH_NAME = re.compile(r"^events\.out\.tfevents\.\d+\..+\.\d+\.\d+$")
_TBX_NAME = re.compile(
    r"^events\.out\.tfevents\.\d+\.[^.]+(\.[^.]*[^.\d][^.]*)*$"
)
_SOURCE_WRITERS = {
    "tensorboard.summary.writer.event_file_writer": "torch.utils.tensorboard",
    "tensorflow.core.util.events_writer": "tensorflow",
}
_KERAS_SUBRUNS = ("train", "validation")
_KERAS_TAG = re.compile(r"^(epoch_|batch_|evaluation_.+_vs_iterations$)")


@dataclasses.dataclass(frozen=True)
class Detection:
    framework: str
    writer: str
    group: str
    evidence: tuple[str, ...]


def classify_file_name(name: str) -> str:
    """The writer a tfevents file name points to, or "" if none."""
    if _TF_NAME.match(name):
        return "tensorflow"
    if _TORCH_NAME.match(name):
        return "torch.utils.tensorboard"
    if _TBX_NAME.match(name):
        return "tensorboardX"
    return ""


def detect_run(
    run: str,
    *,
    format: str,
    file_names: Iterable[str],
    tags: Iterable[str],
    source_writers: Iterable[str] = (),
) -> Detection:
    """Detects the framework, writer and group of one run.

    Args:
      run: the run name (directory relative to the logdir).
      format: "tfevents" or "visualdl".
      file_names: base names of the run's files.
      tags: every tag seen in the run.
      source_writers: `source_metadata.writer` values of the run's events.
    """
    names = sorted(file_names)
    if format == "visualdl":
        return Detection(
            framework="paddle",
            writer="visualdl",
            group=run,
            evidence=(
                "vdlrecords.*.log files are written by VisualDL, "
                "PaddlePaddle's logger",
            ),
        )
    kinds = {name: classify_file_name(name) for name in names}
    evidence = [
        f"file {name}: {kind or 'unrecognised name'}"
        for name, kind in kinds.items()
    ]
    declared = {_SOURCE_WRITERS.get(w, "") for w in source_writers}
    for writer in sorted(source_writers):
        evidence.append(f"events say they were written by {writer}")
    # The writer the events name beats the file name (host names may
    # contain dots and digits); writers we do not know do not count.
    found = sorted(declared - {""}) or sorted(set(kinds.values()) - {""})
    if len(found) > 1:
        evidence.append(f"files from several writers: {', '.join(found)}")
    kind = found[0] if len(found) == 1 else ""
    if kind == "tensorflow":
        base = posixpath.basename(run)
        keras_tags = sorted(t for t in tags if _KERAS_TAG.match(t))
        if base in _KERAS_SUBRUNS and keras_tags:
            parent = posixpath.dirname(run) or "."
            evidence.append(
                f"Keras TensorBoard callback layout: sub-run '{base}' with "
                f"tags like {keras_tags[0]!r}"
            )
            return Detection("tensorflow", "keras", parent, tuple(evidence))
        return Detection("tensorflow", "tf.summary", run, tuple(evidence))
    if kind == "torch.utils.tensorboard":
        return Detection("pytorch", kind, run, tuple(evidence))
    if kind == "tensorboardX":
        evidence.append(
            "tensorboardX serves PyTorch and Paddle alike; set the framework "
            "in the config file"
        )
        return Detection("unknown", kind, run, tuple(evidence))
    return Detection("unknown", "", run, tuple(evidence))
