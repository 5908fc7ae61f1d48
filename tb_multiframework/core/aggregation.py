"""What one logged number stands for, and converting running means.

Frameworks log different things under the same metric name. Keras' callback
logs `batch_<q>` as the *running mean since the epoch began* (its metrics
accumulate over the epoch); a PyTorch, Paddle or TF custom loop logs each
batch's own value; Lightning's `*_epoch` and Keras' `epoch_*` are means over
the epoch; HF Trainer's `train/loss` is the mean over the last
`logging_steps` steps. `series_aggregation` says which, with the evidence.

To compare like for like, a running-mean series can be shown as per-batch
values and a per-batch series as running means (docs/conventions.md,
"Batch values: running means and per-batch values"). Within an epoch, with
`b` the number of batches done when mean `m_b` was logged:

    v_b = (b·m_b − b'·m_b') / (b − b')      (b' the previous logged batch)

which is `b·m_b − (b−1)·m_(b−1)` when every batch is logged, and the mean
of the batches in between when only every g-th batch is. It is exact when
the epoch's batches weigh the same; a short last batch (r of B samples,
weighted by Keras by its size) comes out as
`m_(b−1) + (v − m_(b−1))·b·r / ((b−1)·B + r)`: pulled towards the running
mean, the epoch's other batches still exact.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .axes import EpochMap
from .types import Excluded, FloatArray, RunInfo

AGGREGATIONS = (
    "per_batch",  # each batch's own value
    "running_mean",  # mean of the epoch's batches so far
    "epoch_mean",  # mean over an epoch (or over an evaluation set)
    "window_mean",  # mean over the last logging window (HF Trainer)
    "last_batch",  # the last batch's value of an evaluation (Paddle hapi)
    "counter",  # an epoch counter, not an aggregate
    "unknown",  # the files do not say
)
# How the Compare view may show batch-level series.
BATCH_VIEWS = ("logged", "per_batch", "running_mean")
_ROUND_TOL = 1e-6  # batch counts this close to an integer are that integer

_KERAS_BATCH = re.compile(r"batch_.+")
_KERAS_EPOCH = re.compile(r"epoch_.+|evaluation_.+_vs_iterations")
_LIGHTNING_STEP = re.compile(r".+_step")
_LIGHTNING_EPOCH = re.compile(r".+_epoch")


@dataclass(frozen=True)
class Aggregation:
    """What a series' values are, and why we say so."""

    kind: str
    evidence: str


def series_aggregation(
    run: RunInfo,
    tag: str,
    *,
    level: str | None,
    split: str | None,
    data_evidence: str | None = None,
) -> Aggregation:
    """The aggregation of one (run, tag), from the trainer, else the data.

    A trainer's rules apply only when the files name the trainer (or the
    user did); no value is called per batch because no trainer was found.

    Args:
        run: The run (writer and trainer decide).
        tag: The raw tag.
        level: The member's level ("epoch", "batch" or None).
        split: The canonical split (`train`, `val`, ...) or None.
        data_evidence: `per_batch_signature` of its current points.

    Returns:
        The kind (one of `AGGREGATIONS`) and its evidence.
    """
    last = tag.rsplit("/", 1)[-1]
    if last.lower() == "epoch":
        return Aggregation(
            "counter",
            "an epoch counter: the source of the epoch axis, not an aggregate",
        )
    if run.writer == "keras" or run.trainer == "keras_fit":
        if tag == "epoch_learning_rate":
            return Aggregation(
                "unknown",
                "Keras logs the optimizer's learning rate as it is at the "
                "epoch's end, not an aggregate",
            )
        if _KERAS_BATCH.fullmatch(tag):
            return Aggregation(
                "running_mean",
                "Keras TensorBoard callback: batch_* is the running mean "
                "since the epoch began (Keras metrics accumulate over the "
                "epoch, weighted by batch size)",
            )
        if _KERAS_EPOCH.fullmatch(tag):
            return Aggregation(
                "epoch_mean",
                "Keras: epoch_* is the mean over the epoch's batches "
                "(validation: over the validation set)",
            )
    if run.trainer == "lightning":
        if _LIGHTNING_STEP.fullmatch(last):
            return Aggregation(
                "per_batch",
                "Lightning self.log(on_step=True) writes <name>_step: the "
                "batch's own value",
            )
        if _LIGHTNING_EPOCH.fullmatch(last) or split in ("val", "test"):
            return Aggregation(
                "epoch_mean",
                "Lightning on_epoch logging (<name>_epoch, validation "
                "metrics): the mean over the epoch's batches, weighted by "
                "batch size",
            )
    if run.trainer == "transformers":
        if tag in ("train/loss",):
            return Aggregation(
                "window_mean",
                "HF Trainer: train/loss is the mean loss over the steps "
                "since the previous log (logging_steps)",
            )
        if tag.startswith("eval/"):
            return Aggregation(
                "epoch_mean",
                "HF Trainer: eval/* is computed over the whole eval set",
            )
        if tag in ("train/learning_rate", "train/grad_norm"):
            return Aggregation(
                "per_batch",
                "HF Trainer: the value at the logging step",
            )
    if run.trainer == "paddle_hapi":
        if tag == "train/loss":
            return Aggregation(
                "per_batch",
                "paddle hapi callbacks.VisualDL: train/loss is the batch's "
                "own loss",
            )
        if tag.startswith("train/"):
            return Aggregation(
                "running_mean",
                "paddle hapi: metrics (paddle.metric.Accuracy, ...) "
                "accumulate since the epoch began",
            )
        if tag == "eval/loss":
            return Aggregation(
                "last_batch",
                "paddle hapi: eval/loss is the last evaluation batch's loss",
            )
        if tag.startswith("eval/"):
            return Aggregation(
                "epoch_mean",
                "paddle hapi: eval metrics accumulate over the eval set",
            )
    if data_evidence and level != "epoch":
        return Aggregation("per_batch", data_evidence)
    return Aggregation(
        "unknown",
        "the script's own value: how it was aggregated is not in the files"
        + (f" ({run.writer} stores the value it is given)" if run.writer else ""),
    )


_SIGNATURE_CHANGES = 100  # nonzero changes a per-batch signature needs
_ALTERNATION = 0.6  # share of sign flips between changes, at least
_ALTERNATION_Z = 4.0  # ... and this many standard errors above 1/2


def per_batch_signature(
    steps: np.ndarray, values: np.ndarray
) -> str | None:
    """Evidence that a series holds each step's own value, or None.

    A value logged at every step that is the step's own (a batch's loss)
    carries that batch's noise, so consecutive changes flip sign about two
    times in three (for independent values, exactly 2/3). A running mean
    since the epoch began, an exponential or a window average changes by a
    fraction of the new value's deviation: its changes flip about half the
    time (measured: Keras' running means 0.42-0.52, window means 0.46-0.50,
    per-batch losses 0.66-0.73). Only series logged at every step are judged
    (a value logged every k steps may be the mean of those k), with at least
    `_SIGNATURE_CHANGES` nonzero changes, and the share must clear both
    `_ALTERNATION` and `_ALTERNATION_Z` standard errors above 1/2.

    Args:
        steps: Current points' steps in logged order.
        values: Their values.

    Returns:
        The evidence in words, or None when the data do not show it.
    """
    s = np.asarray(steps, dtype=np.int64)
    y = np.asarray(values, dtype=np.float64)
    if s.size <= _SIGNATURE_CHANGES or not np.all(np.diff(s) == 1):
        return None
    y = y[np.isfinite(y)]
    d = np.diff(y)
    d = d[d != 0]
    if d.size <= _SIGNATURE_CHANGES:
        return None
    flips = float(np.mean(np.sign(d[1:]) != np.sign(d[:-1])))
    z = (flips - 0.5) * np.sqrt(d.size - 1) / 0.5
    if flips < _ALTERNATION or z < _ALTERNATION_Z:
        return None
    return (
        f"per batch (from the data): logged at every step, and its changes "
        f"flip sign {flips:.0%} of the time over {s.size} points (each "
        "step's own value: about 2/3; a running, window or exponential "
        "mean: about 1/2)"
    )


@dataclass(frozen=True)
class Converted:
    """A series' values shown another way, or why not."""

    values: FloatArray | None
    note: str


def convert_batch_values(
    kind: str,
    view: str,
    *,
    tag: str,
    steps: np.ndarray,
    values: np.ndarray,
    epoch_map: EpochMap | Excluded | None,
) -> Converted:
    """Shows a batch-level series as per-batch values or running means.

    Args:
        kind: The series' aggregation (`series_aggregation`).
        view: One of `BATCH_VIEWS`.
        tag: The raw tag (the epoch map places it).
        steps: Logged steps (current points, logged order).
        values: Their values.
        epoch_map: The run's epoch map (epochs group the batches).

    Returns:
        The converted values in the same order (None: shown as logged) and a
        note saying what was done.

    Raises:
        ValueError: On an unknown view.
    """
    if view not in BATCH_VIEWS:
        raise ValueError(f"unknown batch view {view!r}; expected {BATCH_VIEWS}")
    if view == "logged" or kind == view:
        return Converted(None, "")
    if kind not in ("per_batch", "running_mean"):
        return Converted(None, f"{kind} values are shown as logged")
    if not isinstance(epoch_map, EpochMap):
        why = epoch_map.reason if isinstance(epoch_map, Excluded) else "none"
        return Converted(None, f"not converted: no epoch information ({why})")
    if tag in epoch_map.epoch_indexed_tags:
        return Converted(None, "epoch-level: shown as logged")
    epochs, batches = batch_positions(epoch_map, tag, steps)
    if epochs is None or batches is None:
        return Converted(None, "not converted: batches per epoch unknown")
    y = np.asarray(values, dtype=np.float64)
    if kind == "running_mean":
        out = running_mean_to_per_batch(epochs, batches, y)
        return Converted(out, "running mean → per-batch values")
    out = per_batch_to_running_mean(epochs, batches, y)
    return Converted(out, "per-batch values → running mean")


def batch_positions(
    epoch_map: EpochMap, tag: str, steps: np.ndarray
) -> tuple[np.ndarray | None, FloatArray | None]:
    """(0-based epoch index, batches done in that epoch) of each point.

    A point at epoch position x = k + b/n (the convention) is batch b of
    epoch k; n is the map's local steps per epoch, 1 / (x(s + 1) − x(s)).
    """
    x = epoch_map.epochs(tag, steps)
    x_next = epoch_map.epochs(tag, np.asarray(steps) + 1)
    if isinstance(x, Excluded) or isinstance(x_next, Excluded):
        return None, None
    width = x_next - x
    if not np.all(np.isfinite(width)) or np.any(width <= 0):
        return None, None
    epochs = np.ceil(np.round(x, 9)) - 1.0
    batches = (x - epochs) / width
    near = np.abs(batches - np.round(batches)) <= _ROUND_TOL * np.maximum(
        1.0, np.abs(batches)
    )
    batches = np.where(near, np.round(batches), batches)
    return epochs.astype(np.int64), batches


def running_mean_to_per_batch(
    epochs: np.ndarray, batches: FloatArray, means: FloatArray
) -> FloatArray:
    """Per-batch values from running means (logged order kept).

    Within each epoch, in batch order: v = (b·m − b'·m') / (b − b') with
    (b', m') the previous logged point of that epoch, (0, 0) at its start.
    """
    return _per_epoch(epochs, batches, means, _unroll)


def per_batch_to_running_mean(
    epochs: np.ndarray, batches: FloatArray, values: FloatArray
) -> FloatArray:
    """Running means since the epoch began of the logged per-batch values.

    With every batch logged this is what Keras logs; with every g-th batch
    logged it is the mean of the logged ones.
    """
    return _per_epoch(epochs, batches, values, _accumulate)


def _per_epoch(
    epochs: np.ndarray,
    batches: FloatArray,
    values: FloatArray,
    fn: Callable[[FloatArray, FloatArray], FloatArray],
) -> FloatArray:
    out = np.full(values.shape, np.nan, dtype=np.float64)
    order = np.lexsort((batches, epochs))
    e, b, v = epochs[order], batches[order], values[order]
    cuts = np.flatnonzero(np.diff(e)) + 1
    result = np.empty_like(v)
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(e)]):
        result[lo:hi] = fn(b[lo:hi], v[lo:hi])
    out[order] = result
    return out


def _unroll(b: FloatArray, m: FloatArray) -> FloatArray:
    b_prev = np.r_[0.0, b[:-1]]
    m_prev = np.r_[0.0, m[:-1]]
    gap = b - b_prev
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (b * m - b_prev * m_prev) / gap
    return np.where(gap > 0, out, np.nan)


def _accumulate(b: FloatArray, v: FloatArray) -> FloatArray:
    del b
    finite = np.isfinite(v)
    sums = np.cumsum(np.where(finite, v, 0.0))
    counts = np.cumsum(finite)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = sums / counts
    return np.where(finite, out, v)


def split_of(name: str | None) -> str | None:
    """The split of a canonical `quantity/split` name."""
    if not name or "/" not in name:
        return None
    return name.rsplit("/", 1)[-1]
