"""Which way a metric should go: the one rule every judgement uses.

`metric_direction("loss/train")` is "lower" (lower is better),
`metric_direction("accuracy/val")` is "higher", and a name that says
neither (`grad_norm`, `epoch`, `learning_rate`) is None. The anomaly
detectors use it to tell a cliff (a sudden improvement) from a step up (a
sudden worsening); a command-line judgement (better / worse than a
baseline) uses the same function, so the two never disagree.

Names are split into lower-case words at `/`, `_`, `-`, `.` and spaces,
and also at camelCase humps (`LossBand/upper` -> lossband, upper, loss,
band), then looked up in the word tables below. A rate over time (`samples_per_sec`) is a
throughput, higher is better; a time over something (`time_per_step`) is a
cost, lower is better.
"""

from __future__ import annotations

import re
from typing import Literal

Direction = Literal["lower", "higher"]

LOWER_WORDS = frozenset(
    {
        "loss",
        "losses",
        "error",
        "errors",
        "err",
        "mse",
        "mae",
        "rmse",
        "mape",
        "smape",
        "nll",
        "xent",
        "crossentropy",
        "perplexity",
        "ppl",
        "wer",
        "cer",
        "ter",
        "bpd",
        "bpc",
        "fid",
        "lpips",
        "regret",
        "latency",
        "duration",
        "time",
        "seconds",
        "sec",
        "secs",
        "ms",
    }
)
HIGHER_WORDS = frozenset(
    {
        "acc",
        "accuracy",
        "top1",
        "top5",
        "auc",
        "auroc",
        "auprc",
        "roc",
        "f1",
        "fscore",
        "iou",
        "miou",
        "map",
        "precision",
        "recall",
        "bleu",
        "rouge",
        "meteor",
        "psnr",
        "ssim",
        "dice",
        "r2",
        "ndcg",
        "mrr",
        "reward",
        "return",
        "throughput",
        "fps",
        "ips",
    }
)
_TIME_UNITS = frozenset({"s", "sec", "secs", "second", "seconds", "ms", "hour"})
_LEARNING_RATE = frozenset({"lr", "learning_rate", "learningrate"})
_COUNTERS = frozenset(
    {"epoch", "epochs", "step", "steps", "global_step", "iteration", "iter"}
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")


def name_words(name: str) -> list[str]:
    """The lower-case words of a tag or metric name: split at separators,
    and each of those also at camelCase humps (`mIoU` is `miou`, and
    `LossBand` both `lossband` and `loss`, `band`)."""
    words = [w for w in _SEPARATORS.split(name.lower()) if w]
    humps = [w for w in _SEPARATORS.split(_CAMEL.sub(" ", name).lower()) if w]
    return words + [w for w in humps if w not in words]


def metric_direction(name: str) -> Direction | None:
    """Whether lower or higher values of a metric are better.

    Args:
        name: A canonical metric name (`loss/train`) or a raw tag
            (`Accuracy/val`, `epoch_loss`, `samples_per_sec`).

    Returns:
        "lower" for losses, errors, perplexities and times; "higher" for
        accuracies, AUC, F1, IoU, mAP, rewards and throughputs; None when
        the name says neither (learning rates, counters, norms).
    """
    words = name_words(name)
    if is_learning_rate(name) or not words:
        return None
    for i, word in enumerate(words[:-1]):
        if word == "per" and words[i + 1] in _TIME_UNITS:
            return "higher"  # a rate: samples per second
    if any(w in LOWER_WORDS for w in words):
        return "lower"
    if any(w in HIGHER_WORDS for w in words):
        return "higher"
    return None


def is_learning_rate(name: str) -> bool:
    """Whether a tag or metric name is a learning rate (a schedule)."""
    lowered = name.lower()
    if any(p in lowered for p in ("learning_rate", "learningrate")):
        return True
    return any(w in _LEARNING_RATE for w in name_words(name))


def is_counter(name: str) -> bool:
    """Whether a name is a progress counter (`epoch`, `global_step`)."""
    words = name_words(name)
    joined = "_".join(words)
    return joined in _COUNTERS or (
        len(words) == 2 and words[0] in _COUNTERS and words[1] in _SPLITS
    )


_SPLITS = frozenset({"train", "val", "test", "eval", "validation"})
