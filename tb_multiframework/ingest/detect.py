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
from typing import Callable, Iterable, Mapping

import numpy as np

from tb_multiframework.core.loops import parse_loop_tag

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


# Trainers: the training loop on top of the writer, where the files show it.

_VERSION_DIR = re.compile(r"^version_\d+$")
_LIGHTNING_SUFFIX = re.compile(r"^(.+)_(step|epoch)$")
_HF_TEXT_TAGS = ("args/text_summary", "model_config/text_summary")
_HF_SCALARS = ("train/epoch", "train/loss", "train/learning_rate")
_HAPI_TAG = re.compile(r"^(train|eval)/[^/]+$")
_MMENGINE_DIR = "vis_data"


@dataclasses.dataclass(frozen=True)
class TrainerDetection:
    trainer: str  # one of core.types.TRAINERS
    evidence: tuple[str, ...]


def detect_trainer(
    run: str,
    *,
    format: str,
    writer: str,
    scalar_tags: Iterable[str],
    other_tags: Mapping[str, Iterable[str]],
    side_files: Iterable[str] = (),
    steps_of: Callable[[str], np.ndarray] | None = None,
) -> TrainerDetection:
    """Detects PyTorch Lightning, HF Transformers, Keras fit, Paddle hapi,
    MMEngine, from positive evidence (never from tag names alone).

    Args:
      run: the run name.
      format: "tfevents" or "visualdl".
      writer: the detected writer.
      scalar_tags: the run's scalar tags.
      other_tags: tags of other kinds, by plugin name (`text`, `hparams`).
      side_files: names of non-log files in the run directory that trainers
        write (`hparams.yaml`).
      steps_of: a scalar tag's steps, in logged order (Paddle hapi's
        callback is told by how it counts, not by its tag names).
    """
    scalars = set(scalar_tags)
    text = set(other_tags.get("text", ()))
    found = _lightning_evidence(run, scalars, set(side_files))
    if found:
        return TrainerDetection("lightning", tuple(found))
    hf_texts = [t for t in _HF_TEXT_TAGS if t in text]
    hf_scalars = [t for t in _HF_SCALARS if t in scalars]
    if hf_texts or len(hf_scalars) == len(_HF_SCALARS):
        evidence = [
            f"text summary {t!r} (the Trainer's TrainingArguments / model "
            "config as JSON)"
            for t in hf_texts
        ]
        if hf_scalars:
            evidence.append(
                "HF Trainer tags " + ", ".join(repr(t) for t in hf_scalars)
            )
        return TrainerDetection("transformers", tuple(evidence))
    if writer == "keras":
        return TrainerDetection(
            "keras_fit",
            (
                "written by Keras' TensorBoard callback, which Model.fit "
                "calls (train/validation sub-runs, epoch_*/batch_* tags)",
            ),
        )
    hapi = _hapi_evidence(format, scalars, steps_of)
    if hapi:
        return TrainerDetection("paddle_hapi", tuple(hapi))
    if posixpath.basename(run) == _MMENGINE_DIR and "config/text_summary" in text:
        return TrainerDetection(
            "mmengine",
            (
                "run directory 'vis_data' (MMEngine's Visualizer) holding "
                "a 'config' text summary (TensorboardVisBackend.add_config)",
            ),
        )
    return TrainerDetection("", ())



def _hapi_evidence(
    format: str,
    scalars: set[str],
    steps_of: Callable[[str], np.ndarray] | None,
) -> list[str]:
    """paddle.callbacks.VisualDL under Model.fit, by how it counts.

    The callback writes `train/<m>` for every batch at a counter that starts
    at 1 and never resets (every train tag at the same steps 1, 2, ..., n)
    and `eval/<m>` once per evaluation at step = the epoch index (0, 1, ...
    or every eval_freq-th), nothing else. Names alone are no evidence: a
    hand-written loop may use the same ones (PaddleDetection's counts
    from 0).
    """
    if format != "visualdl" or steps_of is None or not scalars:
        return []
    if not all(_HAPI_TAG.match(t) for t in scalars):
        return []
    trains = sorted(t for t in scalars if t.startswith("train/"))
    evals = sorted(t for t in scalars if t.startswith("eval/"))
    if not trains:
        return []
    first = np.asarray(steps_of(trains[0]))
    if first.size < 2 or not np.array_equal(first, np.arange(1, first.size + 1)):
        return []
    if any(not np.array_equal(np.asarray(steps_of(t)), first) for t in trains):
        return []
    evidence = [
        f"every VisualDL scalar is train/<metric> or eval/<metric>; the "
        f"{len(trains)} train tags share one counter logged at every step "
        f"1..{first.size} (paddle.callbacks.VisualDL counts batches from 1, "
        "never reset)"
    ]
    if evals:
        steps = np.unique(np.concatenate([steps_of(t) for t in evals]))
        if steps.size == 0 or steps[0] != 0 or steps[-1] >= first.size:
            return []
        gaps = np.diff(steps)
        if gaps.size and np.any(gaps != gaps[0]):
            return []
        evidence.append(
            f"eval tags at steps {steps[0]}..{steps[-1]}, the epoch index the "
            "callback writes them at"
        )
    return evidence


def _lightning_evidence(
    run: str, scalars: set[str], side_files: set[str]
) -> list[str]:
    base = posixpath.basename(run)
    suffixed: dict[str, set[str]] = {"step": set(), "epoch": set()}
    for tag in scalars:
        found = _LIGHTNING_SUFFIX.match(tag.rsplit("/", 1)[-1])
        if found:
            suffixed[found.group(2)].add(found.group(1))
    pairs = sorted(suffixed["step"] & suffixed["epoch"])
    signs = []
    if "hparams.yaml" in side_files:
        signs.append("hparams.yaml in the run directory (TensorBoardLogger)")
    if _VERSION_DIR.match(base):
        signs.append(f"run directory {base!r} (TensorBoardLogger's version_N)")
    if pairs:
        signs.append(
            f"tags {pairs[0]}_step and {pairs[0]}_epoch "
            "(self.log(on_step=True, on_epoch=True))"
        )
    if "hp_metric" in scalars:
        signs.append("tag 'hp_metric' (TensorBoardLogger's placeholder)")
    if "epoch" in scalars and signs:
        signs.append("tag 'epoch' logged with the metrics")
    strong = "hparams.yaml" in side_files or (
        _VERSION_DIR.match(base) is not None and len(signs) >= 2
    )
    if strong or len(signs) >= 3:
        return signs
    return []


# Sub-runs that torch's SummaryWriter makes inside a run's directory.

_TIMESTAMP_DIR = re.compile(r"^\d{9,}\.\d+$")


@dataclasses.dataclass(frozen=True)
class SubRun:
    parent: str
    kind: str  # "add_scalars" | "add_hparams"
    evidence: str


def detect_sub_run(
    run: str,
    *,
    runs: Iterable[str],
    scalar_tags: Iterable[str],
    histogram_tags: Iterable[str],
    other_tags: Mapping[str, Iterable[str]],
) -> SubRun | None:
    """Recognises `add_scalars` and `add_hparams` sub-runs of a parent run.

    * torch `add_scalars(main, {key: v})` writes tag `main` into
      `<run>/<main>_<key>` (`/` in `main` becomes `_`);
    * tensorboardX `add_scalars(main, {key: v})` writes tag `main` into
      `<run>/<main>/<key>` (`main` may hold `/`: the sub-run is deeper);
    * `add_hparams()` writes the `_hparams_` summaries and its metrics into
      `<run>/<time.time()>`, or `<run>/<name>` with tensorboardX's
      `name=...`: a run directly under another whose files hold the
      hparams plugin's summaries.

    Args:
      run: the candidate sub-run.
      runs: every run name (the parent must be one).
    """
    names = set(runs)
    scalars = sorted(t for t in scalar_tags if parse_loop_tag(t) is None)
    parent = posixpath.dirname(run)
    base = posixpath.basename(run)
    if parent and parent in names and "hparams" in other_tags:
        how = (
            "named by time.time()"
            if _TIMESTAMP_DIR.match(base)
            else f"named {base!r} (add_hparams(name=...))"
        )
        return SubRun(
            parent,
            "add_hparams",
            f"add_hparams() sub-run of {parent!r} ({how}, holds the "
            "_hparams_ summaries)",
        )
    if not scalars or any(True for _ in histogram_tags) or len(scalars) != 1:
        return None
    (tag,) = scalars
    # tensorboardX: <parent>/<tag>/<key>
    head = posixpath.dirname(run)
    if head.endswith("/" + tag):
        tbx_parent = head[: -len(tag) - 1]
        if tbx_parent in names and "/" not in base:
            return SubRun(
                tbx_parent,
                "add_scalars",
                f"tensorboardX add_scalars() sub-run of {tbx_parent!r}: "
                f"tag {tag!r}, key {base!r} (<run>/<main_tag>/<key>)",
            )
    if not parent or parent not in names:
        return None
    prefix = tag.replace("/", "_") + "_"
    if not (base.startswith(prefix) and len(base) > len(prefix)):
        return None
    return SubRun(
        parent,
        "add_scalars",
        f"add_scalars() sub-run of {parent!r}: tag {tag!r}, key "
        f"{base[len(prefix):]!r}",
    )
