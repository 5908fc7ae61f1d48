"""Tests for core/pairing: suggested histogram tag pairs across frameworks.

The tag lists are the ones each framework writes for the same MLP
(20 -> 32 -> 32 -> 10): fc1 has 20*32 = 640 weights and 32 biases, fc2
32*32 = 1024 and 32, fc3 32*10 = 320 and 10. PyTorch stores fc1.weight as
(32, 20) and Keras its kernel as (20, 32): the same 640 elements.
"""

from __future__ import annotations

import pytest

from tb_multiframework.core.pairing import (
    MAX_PAIR_TAGS,
    MIN_PAIR_SCORE,
    HistTagInfo,
    suggest_tag_pairs,
    tag_features,
)

SIZES = [640, 32, 1024, 32, 320, 10]  # weight, bias per layer, in order


def infos(names, counts=SIZES):
    return [HistTagInfo(t, c, k) for k, (t, c) in enumerate(zip(names, counts))]


PYTORCH = [
    "weights/fc1.weight",
    "weights/fc1.bias",
    "weights/fc2.weight",
    "weights/fc2.bias",
    "weights/fc3.weight",
    "weights/fc3.bias",
]
KERAS3 = [
    "mlp/dense/kernel/histogram",
    "mlp/dense/bias/histogram",
    "mlp/dense_1/kernel/histogram",
    "mlp/dense_1/bias/histogram",
    "mlp/dense_2/kernel/histogram",
    "mlp/dense_2/bias/histogram",
]
TF_KERAS = [
    "dense/kernel_0/histogram",
    "dense/bias_0/histogram",
    "dense_1/kernel_0/histogram",
    "dense_1/bias_0/histogram",
    "dense_2/kernel_0/histogram",
    "dense_2/bias_0/histogram",
]
PADDLE = [
    "linear_0.w_0",
    "linear_0.b_0",
    "linear_1.w_0",
    "linear_1.b_0",
    "linear_2.w_0",
    "linear_2.b_0",
]


def as_dict(pairs):
    return {p.tag_a: p.tag_b for p in pairs}


@pytest.mark.parametrize("other", [KERAS3, TF_KERAS, PADDLE])
def test_pytorch_layers_pair_with_each_framework(other):
    pairs = suggest_tag_pairs(infos(PYTORCH), infos(other))
    assert as_dict(pairs) == dict(zip(PYTORCH, other))
    assert [p.tag_a for p in pairs] == PYTORCH  # in A's order
    for p in pairs:
        assert MIN_PAIR_SCORE <= p.score <= 1
        assert any("same element count" in r for r in p.reasons)


def test_equal_biases_are_told_apart_by_layer_order():
    # fc1.bias and fc2.bias both have 32 elements; order decides.
    pairs = as_dict(suggest_tag_pairs(infos(PYTORCH), infos(KERAS3)))
    assert pairs["weights/fc1.bias"] == "mlp/dense/bias/histogram"
    assert pairs["weights/fc2.bias"] == "mlp/dense_1/bias/histogram"


def test_order_follows_first_seen_position_not_list_position():
    # B's tags listed in reverse but with their first-seen order.
    b = [HistTagInfo(t, c, k) for k, (t, c) in enumerate(zip(KERAS3, SIZES))][
        ::-1
    ]
    assert as_dict(suggest_tag_pairs(infos(PYTORCH), b)) == dict(
        zip(PYTORCH, KERAS3)
    )


def test_element_count_beats_order_when_a_layer_is_missing():
    # Keras run without fc2's layer: fc3 (320) must go to dense_1 (320).
    keras = infos(
        ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"],
        [640, 32, 320, 10],
    )
    pairs = as_dict(suggest_tag_pairs(infos(PYTORCH), keras))
    assert pairs == {
        "weights/fc1.weight": "dense/kernel",
        "weights/fc1.bias": "dense/bias",
        "weights/fc3.weight": "dense_1/kernel",
        "weights/fc3.bias": "dense_1/bias",
    }


def test_weight_never_pairs_with_bias_of_the_same_size():
    # A 1x32 kernel has as many elements as a 32-element bias.
    a = infos(["fc.weight"], [32])
    b = infos(["dense/bias"], [32])
    assert suggest_tag_pairs(a, b) == []


def test_gradients_pair_with_gradients_only():
    a = infos(
        ["weights/fc1.weight", "grads/fc1.weight", "fc2.weight_grad"],
        [640, 640, 1024],
    )
    b = infos(
        ["dense/kernel", "dense/kernel/gradients", "dense_1/kernel/gradients"],
        [640, 640, 1024],
    )
    assert as_dict(suggest_tag_pairs(a, b)) == {
        "weights/fc1.weight": "dense/kernel",
        "grads/fc1.weight": "dense/kernel/gradients",
        "fc2.weight_grad": "dense_1/kernel/gradients",
    }


def test_different_known_counts_never_pair():
    assert (
        suggest_tag_pairs(infos(["a.weight"], [640]), infos(["k"], [641])) == []
    )


def test_unknown_counts_fall_back_on_role_and_order():
    a = infos(["fc1.weight", "fc2.weight"], [None, None])
    b = infos(["dense/kernel", "dense_1/kernel"], [None, None])
    pairs = suggest_tag_pairs(a, b)
    assert as_dict(pairs) == {
        "fc1.weight": "dense/kernel",
        "fc2.weight": "dense_1/kernel",
    }
    assert all("element count unknown" in p.reasons for p in pairs)


def test_same_names_in_two_pytorch_runs_use_the_name_signal():
    names = ["layers.0.weight", "layers.1.weight"]
    pairs = suggest_tag_pairs(
        infos(names, [100, 100]), infos(names, [100, 100])
    )
    assert as_dict(pairs) == {n: n for n in names}
    assert all(any("shared layer name" in r for r in p.reasons) for p in pairs)


def test_batch_norm_tensors():
    torch = infos(
        ["bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"],
        [64, 64, 64, 64],
    )
    keras = infos(
        [
            "batch_normalization/gamma",
            "batch_normalization/beta",
            "batch_normalization/moving_mean",
            "batch_normalization/moving_variance",
        ],
        [64, 64, 64, 64],
    )
    assert as_dict(suggest_tag_pairs(torch, keras)) == {
        "bn.weight": "batch_normalization/gamma",
        "bn.bias": "batch_normalization/beta",
        "bn.running_mean": "batch_normalization/moving_mean",
        "bn.running_var": "batch_normalization/moving_variance",
    }


def test_batch_norm_tensors_against_paddle_parameter_names():
    torch = infos(
        ["bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"],
        [64, 64, 64, 64],
    )
    paddle = infos(
        [
            "batch_norm2d_0.w_0",
            "batch_norm2d_0.b_0",
            "batch_norm2d_0.w_1",
            "batch_norm2d_0.w_2",
        ],
        [64, 64, 64, 64],
    )
    assert as_dict(suggest_tag_pairs(torch, paddle)) == {
        "bn.weight": "batch_norm2d_0.w_0",
        "bn.bias": "batch_norm2d_0.b_0",
        "bn.running_mean": "batch_norm2d_0.w_1",
        "bn.running_var": "batch_norm2d_0.w_2",
    }


@pytest.mark.parametrize(
    ("tag", "role", "is_grad", "layer"),
    [
        ("weights/fc1.weight", "weight", False, {"fc1"}),
        ("mlp/dense/kernel/histogram", "weight", False, {"mlp", "dense"}),
        ("dense/kernel_0/histogram", "weight", False, {"dense"}),
        ("dense/kernel:0", "weight", False, {"dense"}),
        ("linear_0.w_0", "weight", False, {"linear_0"}),
        ("linear_0.b_0", "bias", False, {"linear_0"}),
        ("conv1/biases", "bias", False, {"conv1"}),
        ("conv1/weights", "weight", False, {"conv1"}),
        ("fc1.weight.grad", "weight", True, {"fc1"}),
        ("bn/running_var", "stat", False, {"bn"}),
        ("bn._variance", "stat", False, {"bn"}),
        ("batch_norm2d_0.w_1", "stat", False, {"batch_norm2d_0"}),
        ("lstm_0.w_1", "weight", False, {"lstm_0"}),
        ("layers.0.weight", "weight", False, {"layers", "0"}),
        ("activations/relu1", "other", False, {"activations", "relu1"}),
    ],
)
def test_tag_features(tag, role, is_grad, layer):
    f = tag_features(tag)
    assert (f.role, f.is_grad, set(f.layer_tokens)) == (role, is_grad, layer)


def test_bad_input():
    with pytest.raises(ValueError, match="repeats"):
        suggest_tag_pairs(infos(["a", "a"], [1, 1]), infos(["b"], [1]))
    with pytest.raises(ValueError, match="-4"):
        suggest_tag_pairs(infos(["a"], [-4]), infos(["b"], [1]))
    too_many = [HistTagInfo(f"t{k}", 1, k) for k in range(MAX_PAIR_TAGS + 1)]
    with pytest.raises(ValueError, match=str(MAX_PAIR_TAGS)):
        suggest_tag_pairs(too_many, infos(["b"], [1]))
    assert suggest_tag_pairs([], infos(["b"], [1])) == []
