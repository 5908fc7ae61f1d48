"""Canonical metric names across frameworks, alias rules, the index."""

import pytest

from tb_multiframework.core.metrics import (
    build_metric_index,
    canonical_metric,
    parse_alias_rules,
)
from tb_multiframework.core.types import RunInfo

KERAS_TRAIN = RunInfo("keras_fit/train", "keras_fit", "tensorflow", "keras")
KERAS_VAL = RunInfo("keras_fit/validation", "keras_fit", "tensorflow", "keras")
TORCH = RunInfo(
    "pytorch_sgd", "pytorch_sgd", "pytorch", "torch.utils.tensorboard"
)
PADDLE_VDL = RunInfo("paddle_vdl", "paddle_vdl", "paddle", "visualdl")
PADDLE_HAPI = RunInfo(
    "paddle_hapi", "paddle_hapi", "paddle", "visualdl", "paddle_hapi"
)
PADDLE_TBX = RunInfo("paddle_tbx", "paddle_tbx", "unknown", "tensorboardX")
TF2 = RunInfo("tf2_loop", "tf2_loop", "tensorflow", "tf.summary")


@pytest.mark.parametrize(
    ("run", "tag", "name", "level"),
    [
        # Keras 3 callback layout
        (KERAS_TRAIN, "epoch_loss", "loss/train", "epoch"),
        (KERAS_TRAIN, "batch_loss", "loss/train", "batch"),
        (KERAS_TRAIN, "epoch_accuracy", "accuracy/train", "epoch"),
        (KERAS_TRAIN, "epoch_learning_rate", "learning_rate", "epoch"),
        (KERAS_VAL, "epoch_accuracy", "accuracy/val", "epoch"),
        (KERAS_VAL, "epoch_loss", "loss/val", "epoch"),
        (KERAS_VAL, "evaluation_loss_vs_iterations", "loss/val", "epoch"),
        (
            KERAS_VAL,
            "evaluation_accuracy_vs_iterations",
            "accuracy/val",
            "epoch",
        ),
        # PyTorch / tensorboardX / tf.summary naming
        (TORCH, "Loss/train", "loss/train", None),
        (TORCH, "Train/Loss", "loss/train", None),
        (TORCH, "train/loss", "loss/train", None),
        (TORCH, "Loss/validation", "loss/val", None),
        (TORCH, "Loss/valid", "loss/val", None),
        (TORCH, "Accuracy/test", "accuracy/test", None),
        (TORCH, "Eval/Acc", "accuracy/val", None),
        (TORCH, "val_loss", "loss/val", None),
        (TORCH, "loss_val", "loss/val", None),
        (TORCH, "lr", "learning_rate", None),
        (TORCH, "learning_rate", "learning_rate", None),
        (TORCH, "loss", "loss", None),
        (PADDLE_TBX, "Train/Loss", "loss/train", None),
        (TF2, "train/accuracy", "accuracy/train", None),
        # Lightning's on_step / on_epoch suffixes
        (TORCH, "train_loss_step", "loss/train", "batch"),
        (TORCH, "train_loss_epoch", "loss/train", "epoch"),
        (TORCH, "val_acc_epoch", "accuracy/val", "epoch"),
        # Paddle hapi (VisualDL callback)
        (PADDLE_HAPI, "train/loss", "loss/train", "batch"),
        (PADDLE_HAPI, "eval/acc", "accuracy/val", "epoch"),
        (PADDLE_HAPI, "eval/acc_top1", "accuracy/val", "epoch"),
        (PADDLE_HAPI, "eval/acc_top5", "accuracy_top5/val", "epoch"),
        # A VisualDL LogWriter loop: the prefix says nothing about the level
        (PADDLE_VDL, "train/loss", "loss/train", None),
        (PADDLE_VDL, "Eval/Acc", "accuracy/val", None),
        # Epoch counters are one thing, whatever the split around them
        (TORCH, "epoch", "epoch", None),
        (TORCH, "train/epoch", "epoch", None),
        (TORCH, "Epoch", "epoch", None),
        # VisualDL add_scalars(main, {sub: v}) read as `main/sub`
        (PADDLE_VDL, "loss/valid", "loss/val", None),
        (PADDLE_VDL, "curves/xsinx", "curves/xsinx", None),
    ],
)
def test_canonical_names(run, tag, name, level):
    found = canonical_metric(run, tag)
    assert found is not None
    assert (found.name, found.level) == (name, level)
    assert found.derivation


def test_split_from_run_name_for_non_keras_writers():
    run = RunInfo("exp1/val", "exp1", "pytorch", "torch.utils.tensorboard")
    assert canonical_metric(run, "loss").name == "loss/val"


def test_torch_add_scalars_sub_run():
    # add_scalars("Loss", {"train": ..}) writes tag "Loss" into run Loss_train
    run = RunInfo("exp/Loss_train", "exp", "pytorch", "torch.utils.tensorboard")
    assert canonical_metric(run, "Loss").name == "loss/train"
    run = RunInfo("exp/Loss_sin", "exp", "pytorch", "torch.utils.tensorboard")
    assert canonical_metric(run, "Loss").name == "loss/sin"


def test_keras_prefixes_only_for_keras_runs():
    # A PyTorch scalar called batch_size is not a batch-level "size".
    found = canonical_metric(TORCH, "batch_size")
    assert (found.name, found.level) == ("batch_size", None)


def test_learning_rates_are_one_metric_without_a_split():
    # A schedule is measured on no split: every framework's rate matches.
    for run, tag in [
        (KERAS_TRAIN, "epoch_learning_rate"),
        (TORCH, "train/learning_rate"),
        (PADDLE_VDL, "Train/LR"),
        (TORCH, "lr"),
    ]:
        found = canonical_metric(run, tag)
        assert (found.name, found.split) == ("learning_rate", None), tag
        assert "no split" in found.derivation


def test_unknown_split_is_said_with_how_to_set_it():
    # No split word anywhere: no split is assumed (it used to be "train").
    found = canonical_metric(TORCH, "loss")
    assert (found.split, found.split_source) == (None, "unknown")
    assert "split unknown" in found.derivation
    assert "runs[<run>].splits" in found.derivation


@pytest.mark.parametrize(
    "tag", ["custom_scalars__config__", "", "/", "train", "x/text_summary"]
)
def test_non_metrics(tag):
    assert canonical_metric(TORCH, tag) is None


def test_epoch_counter_has_no_split():
    assert canonical_metric(TORCH, "epoch").name == "epoch"


def test_alias_rules_win_and_use_groups():
    rules = parse_alias_rules(
        [
            {
                "pattern": r"(?i)mse_(\w+)",
                "metric": r"loss/\1",
                "level": "epoch",
            },
            {"pattern": "score", "metric": "F1/Val", "runPattern": "paddle_.*"},
        ]
    )
    found = canonical_metric(TORCH, "MSE_train", aliases=rules)
    assert (found.name, found.level) == ("loss/train", "epoch")
    assert "alias rule 1" in found.derivation
    assert canonical_metric(PADDLE_VDL, "score", aliases=rules).name == "f1/val"
    # runPattern does not match the torch run: built-in rules apply
    assert canonical_metric(TORCH, "score", aliases=rules).name == "score"


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"pattern": "a"}, "must be a list"),
        (["a"], "expected an object"),
        ([{"pattern": "a", "metric": "b", "colour": 1}], "unknown keys"),
        ([{"pattern": "(", "metric": "b"}], "invalid alias pattern"),
        ([{"pattern": "a"}], "must be strings"),
        ([{"pattern": "a", "metric": "b", "level": "step"}], "bad level"),
        ([{"pattern": "a", "metric": " "}], "must not be empty"),
        ([{"pattern": "a", "metric": "b", "runPattern": 3}], "runPattern"),
    ],
)
def test_bad_alias_sections(section, message):
    with pytest.raises(ValueError, match=message):
        parse_alias_rules(section)


def test_no_alias_section():
    assert parse_alias_rules(None) == ()


def test_index_keeps_levels_apart_and_matches_frameworks():
    pairs = [
        (KERAS_TRAIN, "epoch_loss"),
        (KERAS_TRAIN, "batch_loss"),
        (KERAS_VAL, "epoch_loss"),
        (KERAS_VAL, "evaluation_loss_vs_iterations"),
        (TORCH, "Loss/train"),
        (TORCH, "Loss/val"),
        (PADDLE_HAPI, "train/loss"),
        (PADDLE_HAPI, "eval/loss"),
        (TORCH, "custom_scalars__config__"),
        (TF2, "grad_norm"),
    ]
    index = build_metric_index(pairs)
    got = {e.key: sorted((m.run, m.tag) for m in e.members) for e in index}
    assert got == {
        "grad_norm": [("tf2_loop", "grad_norm")],
        "loss/train@epoch": [
            ("keras_fit/train", "epoch_loss"),
            ("pytorch_sgd", "Loss/train"),
        ],
        "loss/train@batch": [
            ("keras_fit/train", "batch_loss"),
            ("paddle_hapi", "train/loss"),
            ("pytorch_sgd", "Loss/train"),
        ],
        "loss/val@epoch": [
            ("keras_fit/validation", "epoch_loss"),
            ("paddle_hapi", "eval/loss"),
            ("pytorch_sgd", "Loss/val"),
        ],
    }
    assert [e.key for e in index] == [
        "grad_norm",
        "loss/train@epoch",
        "loss/train@batch",
        "loss/val@epoch",
    ]
    torch_member = [m for m in index[1].members if m.run == "pytorch_sgd"][0]
    assert torch_member.level is None and torch_member.tag == "Loss/train"
    # Keras' validation run: one series, the other tag is its alias.
    (keras_val,) = [
        m for m in index[3].members if m.run == "keras_fit/validation"
    ]
    assert keras_val.tag == "epoch_loss"
    assert keras_val.aliases == ("evaluation_loss_vs_iterations",)


def test_evaluation_tag_stays_a_member_without_its_epoch_partner():
    # update_freq=N can drop epoch_* and keep evaluation_*: nothing to alias.
    index = build_metric_index([(KERAS_VAL, "evaluation_loss_vs_iterations")])
    (member,) = index[0].members
    assert member.tag == "evaluation_loss_vs_iterations"
    assert member.aliases == ()


def test_epoch_counters_are_one_entry_never_a_split_metric():
    lightning = RunInfo(
        "pl/version_0",
        "pl/version_0",
        "pytorch",
        "torch.utils.tensorboard",
        "lightning",
    )
    hf = RunInfo(
        "hf", "hf", "pytorch", "torch.utils.tensorboard", "transformers"
    )
    pairs = [(lightning, "epoch"), (hf, "train/epoch"), (TORCH, "epoch")]
    index = build_metric_index(
        pairs, level_hints={("pytorch_sgd", "epoch"): "epoch"}
    )
    assert [(e.key, len(e.members)) for e in index] == [("epoch", 3)]
    assert all(m.level is None for m in index[0].members)


def test_hp_metric_placeholder_is_not_a_metric():
    from tb_multiframework.core.metrics import is_placeholder_metric

    assert is_placeholder_metric("hp_metric", [-1.0])
    assert is_placeholder_metric("hp_metric", [-1.0, -1.0])
    assert not is_placeholder_metric("hp_metric", [-1.0, 0.93])
    assert not is_placeholder_metric("hp_metric", [])
    assert not is_placeholder_metric("val_loss", [-1.0])


def test_epoch_prefix_in_any_run():
    found = canonical_metric(TF2, "train/epoch_loss")
    assert (found.name, found.level) == ("loss/train", "epoch")
    found = canonical_metric(TORCH, "epoch_val_accuracy")
    assert (found.name, found.level) == ("accuracy/val", "epoch")


def test_level_hints_from_the_data():
    vdl = RunInfo("paddle_vdl", "paddle_vdl", "paddle", "visualdl")
    pairs = [(vdl, "Loss/train"), (KERAS_TRAIN, "epoch_loss")]
    index = build_metric_index(
        pairs, level_hints={("paddle_vdl", "Loss/train"): "epoch"}
    )
    assert [e.key for e in index] == ["loss/train@epoch"]
    member = [m for m in index[0].members if m.run == "paddle_vdl"][0]
    assert member.level == "epoch" and "from the data" in member.derivation
