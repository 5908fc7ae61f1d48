"""Running means <-> per-batch values, checked with numbers worked by hand."""

import numpy as np
import pytest

from tb_multiframework.core.aggregation import (
    convert_batch_values,
    per_batch_signature,
    per_batch_to_running_mean,
    running_mean_to_per_batch,
    series_aggregation,
)
from tb_multiframework.core.axes import EpochMap
from tb_multiframework.core.types import Excluded, RunInfo


def test_worked_example_of_the_docs():
    # 4 batches an epoch; losses 0.9, 0.7, 0.8, 0.6 then 0.5, 0.3.
    epochs = np.array([0, 0, 0, 0, 1, 1])
    batches = np.array([1.0, 2, 3, 4, 1, 2])
    means = np.array([0.9, 0.8, 0.8, 0.75, 0.5, 0.4])
    got = running_mean_to_per_batch(epochs, batches, means)
    np.testing.assert_allclose(got, [0.9, 0.7, 0.8, 0.6, 0.5, 0.3])
    back = per_batch_to_running_mean(epochs, batches, got)
    np.testing.assert_allclose(back, means)


def test_every_other_batch_logged_gives_the_mean_in_between():
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    running = np.cumsum(values) / np.arange(1, 7)
    keep = [1, 3, 5]  # batches 2, 4, 6 logged
    got = running_mean_to_per_batch(
        np.zeros(3, dtype=int), np.array([2.0, 4.0, 6.0]), running[keep]
    )
    np.testing.assert_allclose(got, [1.5, 3.5, 5.5])


def test_short_last_batch_is_pulled_towards_the_running_mean():
    big, small, b = 32, 8, 50
    rng = np.random.default_rng(7)
    values = rng.random(b)
    weights = np.r_[np.full(b - 1, big), small]
    running = np.cumsum(values * weights) / np.cumsum(weights)
    got = running_mean_to_per_batch(
        np.zeros(b, dtype=int), np.arange(1.0, b + 1), running
    )
    np.testing.assert_allclose(got[:-1], values[:-1], rtol=1e-9)
    m_prev = running[-2]
    formula = m_prev + (values[-1] - m_prev) * b * small / (
        (b - 1) * big + small
    )
    assert got[-1] == pytest.approx(formula, rel=1e-12)


def test_logged_order_is_kept():
    epochs = np.array([1, 0, 0])
    batches = np.array([1.0, 2.0, 1.0])
    got = running_mean_to_per_batch(epochs, batches, np.array([5.0, 3.0, 2.0]))
    np.testing.assert_allclose(got, [5.0, 4.0, 2.0])


def test_conversion_uses_the_epoch_map_and_says_why_not():
    emap = EpochMap(source="config", steps_per_epoch=4.0)
    steps = np.arange(1, 9)  # 1-based, 4 an epoch
    means = np.array([0.9, 0.8, 0.8, 0.75, 0.5, 0.4, 0.4, 0.4])
    done = convert_batch_values(
        "running_mean",
        "per_batch",
        tag="batch_loss",
        steps=steps,
        values=means,
        epoch_map=emap,
    )
    np.testing.assert_allclose(
        done.values, [0.9, 0.7, 0.8, 0.6, 0.5, 0.3, 0.4, 0.4]
    )
    assert "per-batch" in done.note
    none = convert_batch_values(
        "running_mean",
        "per_batch",
        tag="batch_loss",
        steps=steps,
        values=means,
        epoch_map=Excluded("no epoch information: x"),
    )
    assert none.values is None and "no epoch information" in none.note
    same = convert_batch_values(
        "epoch_mean",
        "per_batch",
        tag="epoch_loss",
        steps=steps,
        values=means,
        epoch_map=emap,
    )
    assert same.values is None and "as logged" in same.note
    with pytest.raises(ValueError, match="unknown batch view"):
        convert_batch_values(
            "per_batch",
            "median",
            tag="t",
            steps=steps,
            values=means,
            epoch_map=emap,
        )


@pytest.mark.parametrize(
    ("run", "tag", "level", "split", "kind"),
    [
        (
            RunInfo("k/train", "k", "tensorflow", "keras", "keras_fit"),
            "batch_loss",
            "batch",
            "train",
            "running_mean",
        ),
        (
            RunInfo("k/train", "k", "tensorflow", "keras", "keras_fit"),
            "epoch_loss",
            "epoch",
            "train",
            "epoch_mean",
        ),
        # No trainer in the files is no evidence of a plain loop: a torch
        # writer's value is whatever the script (or its trainer) passed.
        (
            RunInfo("t", "t", "pytorch", "torch.utils.tensorboard"),
            "Loss/train",
            None,
            "train",
            "unknown",
        ),
        (
            RunInfo("t", "t", "pytorch", "torch.utils.tensorboard"),
            "Loss/val",
            None,
            "val",
            "unknown",
        ),
        (
            RunInfo(
                "h", "h", "pytorch", "torch.utils.tensorboard", "transformers"
            ),
            "train/loss",
            None,
            "train",
            "window_mean",
        ),
        (
            RunInfo("p", "p", "paddle", "visualdl", "paddle_hapi"),
            "train/acc",
            "batch",
            "train",
            "running_mean",
        ),
        (
            RunInfo("p", "p", "paddle", "visualdl", "paddle_hapi"),
            "eval/loss",
            "epoch",
            "val",
            "last_batch",
        ),
        (
            RunInfo(
                "l", "l", "pytorch", "torch.utils.tensorboard", "lightning"
            ),
            "epoch",
            None,
            None,
            "counter",
        ),
    ],
)
def test_aggregation_rules(run, tag, level, split, kind):
    found = series_aggregation(run, tag, level=level, split=split)
    assert found.kind == kind
    assert found.evidence


def test_per_batch_only_from_the_data():
    run = RunInfo("t", "t", "pytorch", "torch.utils.tensorboard")
    found = series_aggregation(
        run, "loss", level=None, split=None, data_evidence="flips 66%"
    )
    assert (found.kind, found.evidence) == ("per_batch", "flips 66%")
    # an epoch-level series is never called per batch
    found = series_aggregation(
        run, "loss", level="epoch", split=None, data_evidence="flips 66%"
    )
    assert found.kind == "unknown"


def _smoothed(x, kind):
    if kind == "running_mean":  # reset every 50 steps, as Keras' batch_*
        return np.concatenate(
            [np.cumsum(x[i : i + 50]) / np.arange(1, 51) for i in range(0, len(x), 50)]
        )
    if kind == "window_mean":
        return np.convolve(x, np.ones(10) / 10, "valid")
    out = np.empty_like(x)  # ema, Ignite's RunningAverage (alpha 0.98)
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = 0.98 * out[i - 1] + 0.02 * x[i]
    return out


def test_per_batch_signature_tells_own_values_from_means():
    rng = np.random.default_rng(7)
    x = np.exp(-np.arange(1000) / 400) + 0.1 * rng.standard_normal(1000)
    steps = np.arange(1000)
    assert per_batch_signature(steps, x) is not None
    for kind in ("running_mean", "window_mean", "ema"):
        y = _smoothed(x, kind)
        assert per_batch_signature(np.arange(len(y)), y) is None, kind
    # logged every 5th step: may be the mean of those 5, so no claim
    assert per_batch_signature(steps[::5] * 1, x[::5]) is None
    assert per_batch_signature(steps[:80], x[:80]) is None  # too few
    # the share of sign flips, by hand: +,-,+,- ... flips every time
    zigzag = np.tile([0.0, 1.0], 200)
    assert "100%" in per_batch_signature(np.arange(400), zigzag)
