"""Axes and epoch maps for each framework's layout.

Expected epoch positions are worked out by hand from the convention: x
counts epochs completed, an epoch-level value of epoch k sits at k + 1, a
batch point after b of n batches of epoch k sits at k + b / n.
"""

from dataclasses import dataclass

import numpy as np
import pytest

from tb_multiframework.core.axes import (
    AXES,
    EpochMap,
    axis_values,
    build_epoch_map,
)
from tb_multiframework.core.types import EpochSetting, Excluded, RunInfo


@dataclass(frozen=True)
class Series:
    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


def series(steps, values=None, walls=None):
    steps = np.asarray(steps, dtype=np.int64)
    values = np.zeros(steps.size) if values is None else values
    walls = steps.astype(np.float64) if walls is None else walls
    return Series(steps, np.asarray(walls, float), np.asarray(values, float))


def epochs_of(emap, tag, s):
    out = emap.epochs(tag, s.steps)
    assert not isinstance(out, Excluded), out
    return out


TORCH = RunInfo("torch", "torch", "pytorch", "torch.utils.tensorboard")


def test_pytorch_epoch_staircase_with_zero_based_steps():
    # 10 batches per epoch, global_step = 10 * epoch + batch (0-based),
    # three full epochs and half of a fourth still running.
    steps = np.arange(35)
    tags = {
        "epoch": series(steps, steps // 10),
        "Loss/train": series(steps),
        "Loss/val": series([9, 19, 29]),
    }
    emap = build_epoch_map(TORCH, {"torch": tags})
    assert isinstance(emap, EpochMap)
    assert emap.source == "tag 'epoch'"
    # batch i of epoch k (step 10k + i) is after i + 1 batches: k + (i+1)/10
    np.testing.assert_allclose(
        epochs_of(emap, "Loss/train", tags["Loss/train"]), (steps + 1) / 10
    )
    # the unfinished epoch 3 (steps 30..34) is not stretched to fill [3, 4]
    assert epochs_of(emap, "epoch", tags["epoch"])[-1] == pytest.approx(3.5)
    np.testing.assert_allclose(
        epochs_of(emap, "Loss/val", tags["Loss/val"]), [1.0, 2.0, 3.0]
    )


def test_epoch_tag_logged_at_step_equal_epoch():
    tags = {"epoch": series(range(5), range(5)), "acc": series(range(5))}
    emap = build_epoch_map(TORCH, {"torch": tags})
    np.testing.assert_allclose(
        epochs_of(emap, "acc", tags["acc"]), [1, 2, 3, 4, 5]
    )


def test_sparse_epoch_logging_uses_last_step_of_each_epoch():
    # Lightning-like: epoch logged every 25 steps and at each epoch's end
    # (100 steps/epoch): ends at steps 99, 199, 299.
    steps = np.r_[np.arange(24, 300, 25), [99, 199, 299]]
    steps = np.sort(np.unique(steps))
    tags = {
        "epoch": series(steps, steps // 100),
        "loss": series([49, 150, 299]),
    }
    emap = build_epoch_map(TORCH, {"torch": tags})
    np.testing.assert_allclose(
        epochs_of(emap, "loss", tags["loss"]), [0.5, 1.51, 3.0]
    )


def test_fractional_epoch_tag():
    steps = np.arange(0, 1001, 50)
    tags = {"epoch": series(steps, steps / 400.0), "loss": series([200, 1200])}
    emap = build_epoch_map(TORCH, {"torch": tags})
    assert "fractional" in emap.source
    np.testing.assert_allclose(
        epochs_of(emap, "loss", tags["loss"]), [0.5, 3.0]
    )


def test_single_epoch_value_is_excluded_with_reason():
    tags = {"epoch": series(range(5), np.zeros(5)), "loss": series(range(5))}
    got = build_epoch_map(TORCH, {"torch": tags})
    assert isinstance(got, Excluded)
    assert "one epoch value" in got.reason


def test_no_epoch_information_is_excluded():
    got = build_epoch_map(TORCH, {"torch": {"loss": series(range(5))}})
    assert isinstance(got, Excluded)
    assert got.reason.startswith("no epoch information")
    assert "stepsPerEpoch" in got.reason


KERAS_TRAIN = RunInfo("fit/train", "fit", "tensorflow", "keras")
KERAS_VAL = RunInfo("fit/validation", "fit", "tensorflow", "keras")


def keras_group(*, validation_every=1):
    """Keras 3: 5 batches/epoch, 3 epochs; batch steps count from 1."""
    val_epochs = np.arange(validation_every - 1, 3, validation_every)
    train = {
        "epoch_loss": series([0, 1, 2]),
        "epoch_learning_rate": series([0, 1, 2]),
        "batch_loss": series(np.arange(1, 16)),
    }
    validation = {
        "epoch_loss": series(val_epochs),
        "evaluation_loss_vs_iterations": series(5 * (val_epochs + 1)),
    }
    return {"fit/train": train, "fit/validation": validation}


def test_keras_train_and_validation_layout():
    group = keras_group()
    train = build_epoch_map(KERAS_TRAIN, group)
    val = build_epoch_map(KERAS_VAL, group)
    assert train.source == val.source == "keras"
    t, v = group["fit/train"], group["fit/validation"]
    np.testing.assert_allclose(
        epochs_of(train, "epoch_loss", t["epoch_loss"]), [1, 2, 3]
    )
    np.testing.assert_allclose(
        epochs_of(train, "batch_loss", t["batch_loss"]), np.arange(1, 16) / 5
    )
    np.testing.assert_allclose(
        epochs_of(val, "epoch_loss", v["epoch_loss"]), [1, 2, 3]
    )
    np.testing.assert_allclose(
        epochs_of(
            val,
            "evaluation_loss_vs_iterations",
            v["evaluation_loss_vs_iterations"],
        ),
        [1, 2, 3],
    )


def test_keras_validation_every_second_epoch():
    group = keras_group(validation_every=2)  # validates after epoch 1 only
    train = build_epoch_map(KERAS_TRAIN, group)
    b = series([7, 13])
    np.testing.assert_allclose(epochs_of(train, "batch_loss", b), [1.4, 2.6])
    v = group["fit/validation"]["epoch_loss"]
    np.testing.assert_allclose(epochs_of(train, "epoch_loss", v), [2.0])


def test_keras_without_validation_estimates_from_wall_clock():
    # batches 1..15 written at t = step seconds; epoch k's summary at
    # t = 5 (k + 1) + 0.5, after its 5th batch.
    train = {
        "epoch_loss": series([0, 1, 2], walls=[5.5, 10.5, 15.5]),
        "batch_loss": series(np.arange(1, 16)),
    }
    emap = build_epoch_map(KERAS_TRAIN, {"fit/train": train})
    assert "wall clock" in emap.source
    np.testing.assert_allclose(
        epochs_of(emap, "batch_loss", train["batch_loss"]),
        np.arange(1, 16) / 5,
    )


def test_keras_epoch_only_run_excludes_nothing_it_has():
    train = {"epoch_loss": series([0, 1])}
    emap = build_epoch_map(KERAS_TRAIN, {"fit/train": train})
    np.testing.assert_allclose(
        epochs_of(emap, "epoch_loss", train["epoch_loss"]), [1, 2]
    )


PADDLE = RunInfo("paddle", "paddle", "paddle", "visualdl")


def test_paddle_hapi_layout():
    # 4 batches/epoch, counter from 1 never reset; eval/* at epoch index,
    # written 50 ms after the epoch's last batch (times in seconds).
    train_steps = np.arange(1, 13)
    tags = {
        "train/loss": series(train_steps, walls=train_steps * 0.1),
        "eval/loss": series([0, 1, 2], walls=[0.45, 0.85, 1.25]),
        "eval/acc": series([0, 1, 2], walls=[0.45, 0.85, 1.25]),
    }
    emap = build_epoch_map(PADDLE, {"paddle": tags})
    # The same rule as for any loop (no trainer is assumed from the names):
    # eval/* at 0, 1, 2 written after 4, 8, 12 batches: the 0-based index.
    assert emap.source == "step = epoch index (4 steps/epoch from wall clock)"
    np.testing.assert_allclose(
        epochs_of(emap, "eval/loss", tags["eval/loss"]), [1, 2, 3]
    )
    np.testing.assert_allclose(
        epochs_of(emap, "train/loss", tags["train/loss"]), train_steps / 4
    )


def test_visualdl_eval_at_global_steps_is_not_hapi():
    tags = {
        "train/loss": series(np.arange(1, 101)),
        "eval/loss": series([50, 100]),
    }
    assert isinstance(build_epoch_map(PADDLE, {"paddle": tags}), Excluded)


def test_config_steps_per_epoch_and_offset():
    tags = {"Loss/train": series([0, 50, 100, 250])}
    setting = EpochSetting(steps_per_epoch=100)
    emap = build_epoch_map(TORCH, {"torch": tags}, setting=setting)
    assert emap.source == "config: 100 steps/epoch"
    np.testing.assert_allclose(
        epochs_of(emap, "Loss/train", tags["Loss/train"]), [0, 0.5, 1, 2.5]
    )
    shifted = build_epoch_map(
        TORCH, {"torch": tags}, setting=EpochSetting(100, epoch_offset=3)
    )
    assert shifted.source == "config: 100 steps/epoch, offset 3"
    np.testing.assert_allclose(
        epochs_of(shifted, "Loss/train", tags["Loss/train"]),
        [3, 3.5, 4, 5.5],
    )


def test_config_overrides_keras_steps_but_keeps_epoch_indexed_tags():
    group = keras_group()
    emap = build_epoch_map(KERAS_TRAIN, group, setting=EpochSetting(10))
    t = group["fit/train"]
    np.testing.assert_allclose(
        epochs_of(emap, "epoch_loss", t["epoch_loss"]), [1, 2, 3]
    )
    np.testing.assert_allclose(
        epochs_of(emap, "batch_loss", t["batch_loss"]), np.arange(1, 16) / 10
    )


def test_offset_alone_shifts_the_derived_map():
    tags = {"epoch": series(range(4), range(4)), "acc": series([0, 3])}
    emap = build_epoch_map(
        TORCH, {"torch": tags}, setting=EpochSetting(epoch_offset=10)
    )
    assert emap.source == "tag 'epoch' (step = epoch number), offset 10"
    np.testing.assert_allclose(epochs_of(emap, "acc", tags["acc"]), [11, 14])


@pytest.mark.parametrize("bad", [0, -5, float("nan"), float("inf")])
def test_bad_epoch_setting(bad):
    with pytest.raises(ValueError, match="stepsPerEpoch"):
        EpochSetting(steps_per_epoch=bad)


def test_run_missing_from_group_is_an_error():
    with pytest.raises(ValueError, match="'torch'"):
        build_epoch_map(TORCH, {"other": {}})


def test_step_wall_relative_progress():
    s = series([0, 5, 10], walls=[100.0, 101.5, 103.0])
    assert axis_values("step", s, tag="t").tolist() == [0, 5, 10]
    assert axis_values("wall", s, tag="t").tolist() == [100.0, 101.5, 103.0]
    rel = axis_values("relative", s, tag="t", run_start_time=99.0)
    assert rel.tolist() == [1.0, 2.5, 4.0]
    prog = axis_values("progress", s, tag="t", run_last_step=20)
    assert prog.tolist() == [0.0, 0.25, 0.5]


def test_progress_of_epoch_indexed_tags_uses_epochs():
    group = keras_group()
    emap = build_epoch_map(KERAS_TRAIN, group)
    t = group["fit/train"]
    got = axis_values(
        "progress",
        t["epoch_loss"],
        tag="epoch_loss",
        epoch_map=emap,
        run_last_step=15,
    )
    np.testing.assert_allclose(got, [1 / 3, 2 / 3, 1.0])
    got = axis_values(
        "progress",
        t["batch_loss"],
        tag="batch_loss",
        epoch_map=emap,
        run_last_step=15,
    )
    np.testing.assert_allclose(got, np.arange(1, 16) / 15)


def test_progress_with_last_step_zero_is_excluded():
    got = axis_values("progress", series([0]), tag="t", run_last_step=0)
    assert isinstance(got, Excluded)


def test_epoch_axis_passes_exclusion_through():
    got = axis_values(
        "epoch",
        series([1]),
        tag="t",
        epoch_map=Excluded("no epoch information"),
    )
    assert got == Excluded("no epoch information")


def test_unknown_axis_names_the_value():
    assert AXES == ("step", "epoch", "relative", "wall", "progress")
    with pytest.raises(ValueError, match="'time'"):
        axis_values("time", series([1]), tag="t")


def test_tags_logged_at_epoch_index_beside_batch_steps():
    # A VisualDL LogWriter script: Train/Loss at a 0-based batch counter,
    # Eval/Acc and Loss/train (add_scalars) at the epoch index; 50 batches
    # per epoch, epoch k's points written after its last batch.
    batch = np.arange(400)
    epoch = np.arange(8)
    end_walls = (epoch + 1) * 50 * 0.01 + 0.001
    tags = {
        "Train/Loss": series(batch, walls=batch * 0.01 + 0.005),
        "Eval/Acc": series(epoch, walls=end_walls),
        "Loss/train": series(epoch, walls=end_walls),
    }
    emap = build_epoch_map(PADDLE, {"paddle": tags})
    assert emap.source == "step = epoch index (50 steps/epoch from wall clock)"
    assert emap.epoch_indexed_tags == {"Eval/Acc", "Loss/train"}
    np.testing.assert_allclose(
        epochs_of(emap, "Eval/Acc", tags["Eval/Acc"]), epoch + 1
    )
    # 0-based batch s is after s + 1 batches
    np.testing.assert_allclose(
        epochs_of(emap, "Train/Loss", tags["Train/Loss"]), (batch + 1) / 50
    )


def test_epoch_tag_at_epoch_index_is_not_a_staircase():
    # `epoch` itself logged once per epoch at step = epoch, beside batches
    # counted from 1 (10 per epoch).
    batch = np.arange(1, 31)
    tags = {
        "epoch": series([0, 1, 2], [0, 1, 2], walls=[10.5, 20.5, 30.5]),
        "loss": series(batch, walls=batch.astype(float)),
    }
    emap = build_epoch_map(TORCH, {"torch": tags})
    assert emap.source.startswith("step = epoch index")
    np.testing.assert_allclose(
        epochs_of(emap, "loss", tags["loss"]), batch / 10
    )


def test_few_batches_per_epoch_are_not_guessed():
    # 0..9 beside steps up to 19: too close to call the first epoch indices.
    tags = {"a": series(range(10)), "b": series(range(20))}
    assert isinstance(build_epoch_map(TORCH, {"torch": tags}), Excluded)


def test_keras_weight_histograms_sit_at_epoch_end_like_epoch_tags():
    # Keras writes histograms at step = epoch index in the train run; when
    # the route passes their steps with the scalars they follow epoch_*.
    group = keras_group()
    group["fit/train"]["mlp/dense/kernel/histogram"] = series([0, 1, 2])
    train = build_epoch_map(KERAS_TRAIN, group)
    hist = group["fit/train"]["mlp/dense/kernel/histogram"]
    np.testing.assert_allclose(
        epochs_of(train, "mlp/dense/kernel/histogram", hist), [1, 2, 3]
    )
    assert "batch_loss" not in train.epoch_indexed_tags
