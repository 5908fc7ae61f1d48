"""Choosing a source, provider-side detection and histogram conversion.

The histogram test is differential: random legacy `HistogramProto`s
(PyTorch-style exponential limits with an empty bucket left of the data,
TF1-style ±DBL_MAX outer limits, empty runs, single values) go through the
conversions TensorBoard's providers apply (the Rust server's, transcribed
from data_compat.rs, and the Python multiplexer's own `data_compat`), then
through the provider source; the result must equal what the files source
makes of the original proto.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from tensorboard import data_compat
from tensorboard.compat.proto import summary_pb2
from tensorboard.util import tensor_util

from tb_multiframework.ingest import histograms
from tb_multiframework.sources import choose_source, logdir_readable
from tb_multiframework.sources.provider_convert import (
    converted_legacy as _converted_legacy,
)
from tb_multiframework.sources.provider_convert import normalise as _normalise
from tb_multiframework.sources.provider_detect import (
    ProviderEvidence,
    detect_provider_run,
    name_hint,
)

SEED = 1212


def test_auto_reads_files_when_the_logdir_is_readable(tmp_path):
    assert logdir_readable(str(tmp_path))
    assert choose_source("auto", logdir=str(tmp_path), has_provider=True) == (
        "files",
        "the logdir is readable from this process",
    )


def test_auto_falls_back_to_the_provider(tmp_path):
    missing = str(tmp_path / "not_here")
    kind, why = choose_source("auto", logdir=missing, has_provider=True)
    assert kind == "provider" and "not readable" in why
    kind, why = choose_source("auto", logdir="", has_provider=True)
    assert kind == "provider" and "without --logdir" in why
    assert choose_source("auto", logdir="", has_provider=False)[0] is None


def test_forced_choices_and_a_bad_one(tmp_path):
    readable = str(tmp_path)
    forced = choose_source("provider", logdir=readable, has_provider=True)
    assert forced[0] == "provider"
    forced = choose_source("files", logdir="/nowhere", has_provider=True)
    assert forced[0] == "files"
    assert choose_source("provider", logdir="x", has_provider=False)[0] is None
    with pytest.raises(ValueError, match="'filez'"):
        choose_source("filez", logdir="", has_provider=True)


def test_an_unlistable_logdir_is_not_readable(tmp_path):
    if os.geteuid() == 0:  # root reads everything: use a file instead
        path = tmp_path / "file"
        path.write_text("x")
        assert not logdir_readable(str(path))
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0)
        assert not logdir_readable(str(locked))


@pytest.mark.parametrize(
    "run, framework",
    [
        ("pytorch_sgd", "pytorch"),
        ("exp/torch-resnet", "pytorch"),
        ("paddle_tbx", "paddle"),
        ("keras_fit/train", "tensorflow"),
        ("tf2_loop", "tensorflow"),
        ("torch_vs_paddle", ""),  # two frameworks named: no hint
        ("run_7", ""),
        ("checkpoint", ""),  # no token, only a substring
    ],
)
def test_name_hint(run, framework):
    assert name_hint(run) == framework


def _detect(run, tags=(), other=None, legacy=(), tf2=()):
    evidence = ProviderEvidence(legacy=list(legacy), tf2=list(tf2))
    return detect_provider_run(
        run, scalar_tags=tags, other_tags=other or {}, evidence=evidence
    )


def test_keras_layout_and_model_tag_mean_keras():
    found = _detect("exp/validation", ["epoch_loss"])
    assert (found.framework, found.writer, found.group) == (
        "tensorflow",
        "keras",
        "exp",
    )
    found = _detect("exp/train", ["x"], {"graph_keras_model": {"keras"}})
    assert (found.framework, found.writer, found.group) == (
        "tensorflow",
        "keras",
        "exp",
    )


def test_legacy_evidence_beats_a_keras_looking_layout():
    found = _detect("exp/train", ["epoch_loss"], legacy=["converted"])
    assert found.framework == "unknown" and found.writer == ""
    assert any("tensorboardX" in line for line in found.evidence)


def test_tf2_evidence_means_tf_summary():
    found = _detect("paddle_named", ["loss"], tf2=["tensors"])
    # The format wins over the name: TF2 tensors are TensorFlow's.
    assert (found.framework, found.writer) == ("tensorflow", "tf.summary")


def test_legacy_runs_take_lightning_or_the_name_among_legacy_frameworks():
    assert _detect("v0", ["hp_metric"], legacy=["x"]).framework == "pytorch"
    assert _detect("paddle_x", ["a"], legacy=["x"]).framework == "paddle"
    # A legacy run named "keras": not a framework legacy summaries come from.
    assert _detect("keras_x", ["a"], legacy=["x"]).framework == "unknown"
    found = _detect("pytorch_x", ["a"], legacy=["x"])
    assert found.framework == "pytorch"
    assert any("weak evidence" in line for line in found.evidence)


def test_no_evidence_but_the_name():
    assert _detect("long_torch", ["loss"]).framework == "pytorch"
    assert _detect("mystery", ["loss"]).framework == "unknown"


# Histograms.


def _tf_bucket_limits() -> np.ndarray:
    """TensorFlow's default bucket limits, as PyTorch's bins='tensorflow'."""
    v = 1e-12
    positive = []
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    positive = np.array(positive)
    return np.concatenate((-positive[::-1], [0.0], positive, [np.inf]))


def _torch_style(rng: np.random.Generator) -> summary_pb2.HistogramProto:
    """What torch's make_histogram writes (an empty bucket left of the data)."""
    values = rng.normal(
        rng.uniform(-1, 1), rng.uniform(1e-3, 2), rng.integers(1, 500)
    )
    if rng.random() < 0.2:
        values[:] = values[0]  # a single value
    limits = _tf_bucket_limits()
    counts, edges = np.histogram(
        values, bins=np.concatenate(([-np.inf], limits))
    )
    filled = np.flatnonzero(counts)
    start, end = int(filled[0]), int(filled[-1]) + 1
    counts = (
        counts[start - 1 : end]
        if start > 0
        else np.concatenate(([0], counts[:end]))
    )
    return summary_pb2.HistogramProto(
        min=float(values.min()),
        max=float(values.max()),
        num=len(values),
        bucket_limit=edges[start : end + 1].tolist(),
        bucket=counts.astype(float).tolist(),
    )


def _tf1_style(rng: np.random.Generator) -> summary_pb2.HistogramProto:
    """±DBL_MAX outer limits, empty buckets anywhere, float32 numbers."""
    k = int(rng.integers(2, 40))
    inner = np.sort(rng.normal(0, 1, k - 1).astype(np.float32))
    limits = np.concatenate((inner, [np.finfo(np.float64).max]))
    counts = rng.integers(0, 4, k).astype(float)
    counts[rng.integers(0, k)] += 1  # at least one value
    filled = np.flatnonzero(counts)
    lo = inner[filled[0] - 1] if filled[0] > 0 else inner[0] - 1
    hi = limits[filled[-1]] if filled[-1] < k - 1 else inner[-1] + 1
    low = np.float32(lo + 1e-3)
    high = np.float32(min(hi, inner[-1] + 1))
    return summary_pb2.HistogramProto(
        min=float(low),
        max=float(max(high, low)),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


def _rust_form(proto: summary_pb2.HistogramProto) -> np.ndarray:
    """data_compat.rs `into_tensor` for a HistogramProto."""
    limits, counts = list(proto.bucket_limit), list(proto.bucket)
    lefts = [proto.min] + limits[:-1]
    rights = limits[:-1] + [proto.max]
    return np.array([lefts, rights, counts], dtype=np.float64).T


def _python_form(proto: summary_pb2.HistogramProto) -> np.ndarray:
    value = summary_pb2.Summary.Value(tag="h", histo=proto)
    return tensor_util.make_ndarray(data_compat.migrate_value(value).tensor)


def test_converted_histograms_normalise_like_the_files_source():
    print(f"seed {SEED}")
    rng = np.random.default_rng(SEED)
    for case in range(400):
        proto = (_torch_style if case % 2 else _tf1_style)(rng)
        want = histograms.from_bucket_limits(
            proto.min, proto.max, proto.bucket_limit, proto.bucket
        )
        rust = _rust_form(proto)
        assert _converted_legacy(rust) or proto.bucket[0] > 0, case
        got = _normalise(rust, legacy=True)
        np.testing.assert_array_equal(got[0], want[0], err_msg=str(case))
        np.testing.assert_array_equal(got[1], want[1], err_msg=str(case))
        if case % 2 == 0:  # float32 numbers survive the Python multiplexer
            got = _normalise(_python_form(proto), legacy=True)
            np.testing.assert_array_equal(got[0], want[0], err_msg=str(case))
            np.testing.assert_array_equal(got[1], want[1], err_msg=str(case))


def test_tf2_tensors_are_not_taken_for_converted_protos():
    rng = np.random.default_rng(SEED)
    for _ in range(200):
        values = rng.normal(0, 1, int(rng.integers(1, 300)))
        counts, edges = np.histogram(values, bins=30)
        triples = np.stack((edges[:-1], edges[1:], counts), axis=1)
        assert not _converted_legacy(triples)
        got = _normalise(triples, legacy=False)
        want = histograms.from_bucket_triples(triples)
        np.testing.assert_array_equal(got[0], want[0])
