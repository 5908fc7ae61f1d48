"""The shared MLP in PaddlePaddle, used by the three Paddle runs."""

from __future__ import annotations

import common
import numpy as np
import paddle
from paddle import nn


class MLP(nn.Layer):
    """The shared 20 -> 32 -> 3 model (Paddle's Linear is (in, out))."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(common.N_FEATURES, common.N_HIDDEN)
        self.fc2 = nn.Linear(common.N_HIDDEN, common.N_CLASSES)

    def forward(self, x: paddle.Tensor) -> paddle.Tensor:
        return self.fc2(nn.functional.relu(self.fc1(x)))


def build_model() -> MLP:
    """Returns the MLP initialised from the shared numpy weights."""
    paddle.seed(common.SEED)
    model = MLP()
    w = common.initial_weights()
    model.fc1.weight.set_value(w["w1"])
    model.fc1.bias.set_value(w["b1"])
    model.fc2.weight.set_value(w["w2"])
    model.fc2.bias.set_value(w["b2"])
    return model


def step_decay() -> paddle.optimizer.lr.StepDecay:
    """The shared schedule as Paddle's StepDecay (stepped once per epoch)."""
    return paddle.optimizer.lr.StepDecay(
        learning_rate=common.BASE_LR,
        step_size=common.LR_DECAY_EVERY,
        gamma=common.LR_DECAY,
    )


def accuracy(logits: paddle.Tensor, labels: np.ndarray) -> float:
    """Fraction of rows whose argmax equals the label."""
    return float(np.mean(np.argmax(logits.numpy(), axis=1) == labels))


def custom_loop(data: common.Dataset) -> tuple:
    """What both hand-written Paddle loops train with: (model, lr schedule,
    SGD optimizer, cross-entropy, validation inputs, validation labels)."""
    model = build_model()
    scheduler = step_decay()
    optimizer = paddle.optimizer.SGD(
        learning_rate=scheduler, parameters=model.parameters()
    )
    return (
        model,
        scheduler,
        optimizer,
        paddle.nn.CrossEntropyLoss(),
        paddle.to_tensor(data.x_val),
        paddle.to_tensor(data.y_val),
    )
