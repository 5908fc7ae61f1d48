"""`tbmf diff` against the routes: last/best from the `export` route's
points, |B − A| from the `scalars` route's difference curve, both reduced
with numpy here."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from tb_multiframework.cli.speed import SPEED_NAMES
from tests.cli.conftest import assert_usage_error, tbmf

CASES = [
    # (A, B, metric, axis, smoothing, direction)
    ("pytorch_sgd", "keras_fit", "loss/val@epoch", "epoch", 0.0, "min"),
    ("pytorch_sgd", "paddle_tbx", "loss/train@batch", "step", 0.0, "min"),
    ("keras_fit", "paddle_hapi", "accuracy/train@batch", "epoch", 0.6, "max"),
    (
        "paddle_vdl",
        "pytorch_sgd",
        "learning_rate@epoch",
        "relative",
        0.0,
        None,
    ),
]


def _points(routes, run, tag, axis, smoothing):
    text = routes.text("export", run=run, tag=tag, x=axis, smoothing=smoothing)
    rows = list(csv.DictReader(io.StringIO(text)))
    steps = np.array([int(r["step"]) for r in rows])
    column = "smoothed" if smoothing else "value"
    values = np.array([float(r[column]) for r in rows])
    return steps, values


def _summary(steps, values, direction):
    order = np.argsort(steps, kind="stable")
    s, v = steps[order], values[order]
    best = best_step = None
    if direction:
        pick = np.nanargmin(v) if direction == "min" else np.nanargmax(v)
        best, best_step = v[pick], s[pick]
    return v[-1], s[-1], best, best_step


@pytest.mark.parametrize("a, b, metric, axis, smoothing, direction", CASES)
def test_json_matches_the_routes(
    demo_logdir, demo_routes, a, b, metric, axis, smoothing, direction
) -> None:
    result = tbmf(
        "diff",
        demo_logdir,
        a,
        b,
        "--metric",
        metric,
        "--x",
        axis,
        "--smoothing",
        str(smoothing),
        "--json",
    )
    assert result.code == 0, result.err
    (item,) = result.json()["metrics"]
    assert item["metric"] == metric and item["direction"] == direction
    side_a, side_b = item["baseline"], item["candidate"]
    members = {
        m["run"]: m["tag"]
        for m in reversed(
            next(
                e
                for e in demo_routes.get("metrics")["metrics"]
                if e["key"] == metric
            )["members"]
        )
    }  # reversed: the first tag of each run wins
    assert side_a["tag"] == members[side_a["run"]]
    assert side_b["tag"] == members[side_b["run"]]
    for side, change_key in ((side_a, "baseline"), (side_b, "candidate")):
        steps, values = _points(
            demo_routes, side["run"], side["tag"], axis, smoothing
        )
        last, last_step, best, best_step = _summary(steps, values, direction)
        assert side["last"] == pytest.approx(last, rel=1e-12)
        assert side["lastStep"] == last_step
        assert item["last"][change_key] == side["last"]
        if direction:
            assert side["best"] == pytest.approx(best, rel=1e-12)
            assert side["bestStep"] == best_step
        else:
            assert side["best"] is None
    delta = side_b["last"] - side_a["last"]
    assert item["last"]["delta"] == pytest.approx(delta)
    assert item["last"]["relative"] == pytest.approx(
        delta / abs(side_a["last"])
    )
    scalars = demo_routes.get(
        "scalars",
        metric=metric,
        run=[side_a["run"], side_b["run"]],
        x=axis,
        smoothing=smoothing,
        baseline=side_a["run"],
        points=20000,
    )
    (curve,) = [
        d
        for d in scalars["diffs"]
        if (d["run"], d["tag"]) == (side_b["run"], side_b["tag"])
        and d["baselineTag"] == side_a["tag"]
    ]
    assert curve["returned"] == curve["total"]  # full resolution
    y = np.array(curve["smoothed"] if smoothing else curve["y"], dtype=float)
    x = np.array(curve["x"], dtype=float)
    finite = np.isfinite(y)
    gaps = np.abs(y[finite])
    diff = item["diff"]
    assert diff["points"] == x.size and diff["compared"] == finite.sum()
    assert diff["meanAbs"] == pytest.approx(gaps.mean(), rel=1e-9, abs=1e-15)
    assert diff["maxAbs"] == pytest.approx(gaps.max(), rel=1e-9)
    assert diff["maxAt"] == x[finite][np.argmax(gaps)]
    assert diff["overlap"] == [x[0], x[-1]]


def test_human_output_shows_the_json_numbers(demo_logdir) -> None:
    args = ("diff", demo_logdir, "pytorch_sgd", "keras_fit", "--x", "epoch")
    data = tbmf(*args, "--json").json()
    text = tbmf(*args).out
    assert text.startswith("A  pytorch_sgd  pytorch / torch.utils.tensorboard")
    assert "B  keras_fit (keras_fit/train, keras_fit/validation)" in text
    config, *blocks = text.split("\n\n")[1:]
    assert config == "config  no hyper-parameters logged"
    assert len(blocks) == len(data["metrics"]) >= 5
    for block, item in zip(blocks, data["metrics"]):
        lines = block.strip().split("\n")
        assert lines[0].startswith(item["metric"] + "  ")
        last = item["last"]
        assert lines[1].split()[:4] == [
            "last",
            f"{last['baseline']:.5g}",
            "→",
            f"{last['candidate']:.5g}",
        ]
        diff = item["diff"]
        assert f"mean {diff['meanAbs']:.5g}, max {diff['maxAbs']:.5g}" in block


def test_default_is_every_shared_metric(demo_logdir, demo_routes) -> None:
    data = tbmf(
        "diff", demo_logdir, "pytorch_sgd", "paddle_tbx", "--json"
    ).json()
    shared, pairs = [], set()
    for m in demo_routes.get("metrics")["metrics"]:
        tags = {}
        for x in m["members"]:
            tags.setdefault(x["run"], x["tag"])
        if not {"pytorch_sgd", "paddle_tbx"} <= set(tags):
            continue
        # speed is compared as figures (`tbmf check --metric time/step`)
        if m["name"] in SPEED_NAMES:
            continue
        # The same two series under two levels (both of unknown level) are
        # compared once, under the first.
        pair = (tags["pytorch_sgd"], tags["paddle_tbx"])
        if pair not in pairs:
            pairs.add(pair)
            shared.append(m["key"])
    assert shared
    assert [m["metric"] for m in data["metrics"]] == shared


def test_excluded_axis_is_said(demo_logdir) -> None:
    data = tbmf(
        "diff",
        demo_logdir,
        "pytorch_sgd",
        "tf2_loop",
        "--metric",
        "loss/val",
        "--x",
        "epoch",
        "--json",
    ).json()
    (item,) = data["metrics"]
    assert item["diff"] is None
    assert item["excluded"].startswith(
        "candidate tf2_loop has no place on epoch"
    )


def test_diff_usage_errors(demo_logdir) -> None:
    assert_usage_error(
        tbmf("diff", demo_logdir, "pytorch_sgd", "kears_fit"),
        "unknown run 'kears_fit'",
        "keras_fit/train",
    )
    assert_usage_error(
        tbmf(
            "diff",
            demo_logdir,
            "pytorch_sgd",
            "paddle_hapi",
            "--metric",
            "loss_max/train",
        ),
        "do not both have loss_max/train",
        "metrics both have:",
    )
