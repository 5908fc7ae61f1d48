"""Which framework wrote a run, from what a data provider shows of it.

A data provider hides what `ingest.detect` relies on most: file names and the
writer named in the first event. What it still shows, strongest first:

* the Keras model tag (plugin `graph_keras_model`) and Keras' layout
  (sub-runs `train` / `validation` with `epoch_*`, `batch_*` or
  `evaluation_*_vs_iterations` tags): TensorFlow, Keras;
* the summary format: legacy `simple_value` / `HistogramProto` summaries
  (PyTorch's `torch.utils.tensorboard` or tensorboardX) show up as
  histograms with an empty, backwards first bucket (the Rust data server's
  conversion) or as series whose display name is their tag (the Python
  multiplexer's); TF2 tensor histograms show neither;
* trainer tags: `hp_metric` is PyTorch Lightning's;
* last and weakest, the run name (`pytorch_sgd`, `paddle_tbx`, `keras_fit`),
  only among the frameworks the format allows, and said so in the evidence.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from typing import Iterable

from tb_multiframework.ingest.detect import Detection

_KERAS_SUBRUNS = ("train", "validation")
_KERAS_TAG = re.compile(r"^(epoch_|batch_|evaluation_.+_vs_iterations$)")
_KERAS_MODEL_PLUGIN = "graph_keras_model"
_LIGHTNING_TAGS = ("hp_metric",)
_NAME_TOKENS = {
    "pytorch": "pytorch",
    "torch": "pytorch",
    "lightning": "pytorch",
    "pt": "pytorch",
    "paddle": "paddle",
    "paddlepaddle": "paddle",
    "tensorflow": "tensorflow",
    "tf": "tensorflow",
    "tf2": "tensorflow",
    "keras": "tensorflow",
}
_LEGACY_FRAMEWORKS = ("pytorch", "paddle")  # tensorboardX serves both
HIDDEN = (
    "read through TensorBoard's data provider, which does not pass on file "
    "names or writer metadata"
)


@dataclasses.dataclass
class ProviderEvidence:
    """What the provider showed of one run's format.

    Attributes:
      legacy: reasons to think legacy summaries were written.
      tf2: reasons to think TF2 tensor summaries were written.
    """

    legacy: list[str] = dataclasses.field(default_factory=list)
    tf2: list[str] = dataclasses.field(default_factory=list)

    def note_legacy(self, reason: str) -> None:
        if reason not in self.legacy:
            self.legacy.append(reason)

    def note_tf2(self, reason: str) -> None:
        if reason not in self.tf2:
            self.tf2.append(reason)


def name_hint(run: str) -> str:
    """The framework a run's name mentions, or "" (none or several)."""
    tokens = re.split(r"[^a-z0-9]+", run.lower())
    found = {_NAME_TOKENS[t] for t in tokens if t in _NAME_TOKENS}
    return found.pop() if len(found) == 1 else ""


def detect_provider_run(
    run: str,
    *,
    scalar_tags: Iterable[str],
    other_tags: dict[str, set[str]],
    evidence: ProviderEvidence,
) -> Detection:
    """Detects framework, writer and group of a run read from a provider.

    Args:
      run: the run name.
      scalar_tags: the run's scalar tags.
      other_tags: tags of other plugins, by plugin name.
      evidence: what the run's series showed of their format.
    """
    notes = [HIDDEN]
    notes += [f"legacy summaries: {why}" for why in evidence.legacy]
    notes += [f"TF2 summaries: {why}" for why in evidence.tf2]
    tags = sorted(scalar_tags)
    base = posixpath.basename(run)
    keras_tags = [t for t in tags if _KERAS_TAG.match(t)]
    if not evidence.legacy:
        if other_tags.get(_KERAS_MODEL_PLUGIN):
            notes.append("a Keras model summary (plugin graph_keras_model)")
            group = posixpath.dirname(run) if base in _KERAS_SUBRUNS else run
            return Detection("tensorflow", "keras", group or ".", tuple(notes))
        if base in _KERAS_SUBRUNS and keras_tags:
            notes.append(
                f"Keras TensorBoard callback layout: sub-run '{base}' with "
                f"tags like {keras_tags[0]!r}"
            )
            parent = posixpath.dirname(run) or "."
            return Detection("tensorflow", "keras", parent, tuple(notes))
        if evidence.tf2:
            return Detection("tensorflow", "tf.summary", run, tuple(notes))
    hinted = name_hint(run)
    if evidence.legacy:
        lightning = [t for t in _LIGHTNING_TAGS if t in tags]
        if lightning:
            notes.append(f"tag {lightning[0]!r} is PyTorch Lightning's")
            return Detection("pytorch", "", run, tuple(notes))
        notes.append(
            "legacy summaries come from torch.utils.tensorboard or "
            "tensorboardX (PyTorch or Paddle)"
        )
        if hinted in _LEGACY_FRAMEWORKS:
            notes.append(f"the run name suggests {hinted} (weak evidence)")
            return Detection(hinted, "", run, tuple(notes))
        return Detection("unknown", "", run, tuple(notes))
    if hinted:
        notes.append(f"the run name suggests {hinted} (weak evidence)")
        return Detection(hinted, "", run, tuple(notes))
    return Detection("unknown", "", run, tuple(notes))
