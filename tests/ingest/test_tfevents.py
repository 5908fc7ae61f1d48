"""Decoding tfevents records, checked against a plain protobuf reading.

Random mixes of event shapes go through `decode_records` (vectorised paths
plus protobuf fallback) and through a minimal reference reader written here
with the protobuf library alone; every scalar must come out identical and in
the same order.
"""

import struct

import numpy as np
import pytest
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.custom_scalar import layout_pb2

from tb_multiframework.ingest import tfevents
from tb_multiframework.ingest.tfrecord import frame_records
from tests import eventfiles


def _reference_scalars(payloads):
    """(tag, step, wall, value) per scalar, by the protobuf library."""
    plugins = {}
    out = []
    for payload in payloads:
        event = event_pb2.Event.FromString(payload)
        for value in event.summary.value:
            if value.HasField("metadata"):
                plugins.setdefault(
                    value.tag, value.metadata.plugin_data.plugin_name
                )
            kind = value.WhichOneof("value")
            if kind == "simple_value":
                out.append(
                    (value.tag, event.step, event.wall_time, value.simple_value)
                )
            elif (
                kind == "tensor"
                and plugins.get(value.tag, "scalars") == "scalars"
            ):
                tensor = value.tensor
                if tensor.dtype == 1:
                    number = (
                        struct.unpack("<f", tensor.tensor_content)[0]
                        if tensor.tensor_content
                        else tensor.float_val[0]
                    )
                else:
                    number = (
                        struct.unpack("<d", tensor.tensor_content)[0]
                        if tensor.tensor_content
                        else tensor.double_val[0]
                    )
                out.append((value.tag, event.step, event.wall_time, number))
    return out


def _random_events(rng, count):
    payloads = [eventfiles.file_version_event()]
    tags = ["loss", "acc", "a/very/long/tag/" + "x" * 150, "ünï/cödé"]
    for i in range(count):
        kind = rng.integers(0, 7)
        step = int(rng.choice([0, i, -5, 2**40, 127, 128, 16383, 16384]))
        wall = float(rng.choice([0.0, 1.7e9 + i * 0.25]))
        tag = tags[int(rng.integers(0, len(tags)))]
        value = float(np.float32(rng.normal()))
        if kind == 0 or kind == 1:
            payloads.append(eventfiles.scalar_event(tag, step, wall, value))
        elif kind == 2:
            # Several values in one summary (TF1 merged summaries).
            event = event_pb2.Event(wall_time=wall, step=step)
            event.summary.value.add(tag=tag, simple_value=value)
            event.summary.value.add(tag="second", simple_value=value * 2)
            payloads.append(event.SerializeToString())
        elif kind == 3:
            payloads.append(
                eventfiles.tf2_scalar_event(
                    "tf2/" + tag, step, wall, value, metadata=bool(i % 2)
                )
            )
        elif kind == 4:
            event = event_pb2.Event(wall_time=wall, step=step)
            item = event.summary.value.add(tag="tf2/double")
            item.metadata.plugin_data.plugin_name = "scalars"
            item.tensor.dtype = 2
            item.tensor.tensor_shape.SetInParent()
            item.tensor.double_val.append(value)
            payloads.append(event.SerializeToString())
        elif kind == 5:
            event = event_pb2.Event(wall_time=wall, step=step)
            item = event.summary.value.add(tag=tag, simple_value=value)
            item.metadata.display_name = "shown " + tag
            payloads.append(event.SerializeToString())
        else:
            payloads.append(
                eventfiles.histogram_event(
                    "hist",
                    step,
                    wall,
                    minimum=-1,
                    maximum=1,
                    limits=[-0.5, 0.0, 0.5, 1e308],
                    counts=[1, 2, 0, 3],
                )
            )
    return payloads


@pytest.mark.parametrize("seed", range(5))
def test_scalars_match_plain_protobuf_reading(seed):
    rng = np.random.default_rng(seed)
    payloads = _random_events(rng, 400)
    buf = eventfiles.record_bytes(payloads)
    framing = frame_records(buf)
    chunk = tfevents.decode_records(
        buf, framing.starts, framing.lengths, tfevents.TagPlugins()
    )
    got = [
        (chunk.scalar_tags[t], int(s), float(w), float(v))
        for t, s, w, v in zip(
            chunk.scalar_tag_ids, chunk.steps, chunk.wall_times, chunk.values
        )
    ]
    assert got == _reference_scalars(payloads)
    assert chunk.problems == []


def test_vectorised_path_takes_plain_scalars():
    payloads = [
        eventfiles.scalar_event("loss", i, 10.0 + i, i / 4) for i in range(50)
    ]
    payloads += [
        eventfiles.tf2_scalar_event("val", i, 10.0 + i, i / 8)
        for i in range(50)
    ]
    buf = eventfiles.record_bytes(payloads)
    framing = frame_records(buf)
    array = np.frombuffer(buf, dtype=np.uint8)
    from tb_multiframework.ingest.decoded import ScalarColumns

    plugins = tfevents.TagPlugins()
    todo = np.arange(len(payloads))
    legacy = tfevents._match_legacy_scalars(
        array, todo, framing.starts, framing.lengths, plugins, ScalarColumns()
    )
    rest = np.setdiff1d(todo, legacy)
    tf2 = tfevents._match_tf2_scalars(
        array, rest, framing.starts, framing.lengths, plugins, ScalarColumns()
    )
    assert len(legacy) == 50 and len(tf2) == 50


def test_histograms_and_layouts_and_other_kinds():
    layout = layout_pb2.Layout(
        category=[
            layout_pb2.Category(
                title="Loss",
                chart=[
                    layout_pb2.Chart(
                        title="both",
                        multiline=layout_pb2.MultilineChartContent(
                            tag=["loss/.*"]
                        ),
                    )
                ],
            )
        ]
    )
    layout_event = event_pb2.Event(step=0, wall_time=5.0)
    item = layout_event.summary.value.add(tag=tfevents.LAYOUT_TAG)
    item.metadata.plugin_data.plugin_name = "custom_scalars"
    item.tensor.dtype = 7
    item.tensor.string_val.append(layout.SerializeToString())
    tf2_hist = event_pb2.Event(step=3, wall_time=6.0)
    item = tf2_hist.summary.value.add(tag="kernel")
    item.metadata.plugin_data.plugin_name = "histograms"
    item.tensor.dtype = 2
    item.tensor.tensor_shape.dim.add(size=2)
    item.tensor.tensor_shape.dim.add(size=3)
    item.tensor.tensor_content = np.array(
        [[0, 1, 4], [1, 2, 6]], dtype="<f8"
    ).tobytes()
    text = event_pb2.Event(step=1, wall_time=7.0)
    item = text.summary.value.add(tag="notes/text_summary")
    item.metadata.plugin_data.plugin_name = "text"
    item.tensor.dtype = 7
    item.tensor.string_val.append(b"hello")
    payloads = [
        layout_event.SerializeToString(),
        tf2_hist.SerializeToString(),
        text.SerializeToString(),
        eventfiles.histogram_event(
            "w",
            2,
            8.0,
            minimum=-2,
            maximum=3,
            limits=[-1, 0, 1, 2, 1e308],
            counts=[1, 0, 0, 2, 1],
        ),
    ]
    buf = eventfiles.record_bytes(payloads)
    framing = frame_records(buf)
    chunk = tfevents.decode_records(
        buf, framing.starts, framing.lengths, tfevents.TagPlugins()
    )
    assert chunk.layouts == [
        (
            0,
            {
                "category": [
                    {
                        "title": "Loss",
                        "chart": [
                            {"title": "both", "multiline": {"tag": ["loss/.*"]}}
                        ],
                    }
                ]
            },
        )
    ]
    (kernel,) = chunk.histograms["kernel"]
    np.testing.assert_array_equal(kernel.edges, [0, 1, 2])
    np.testing.assert_array_equal(kernel.counts, [4, 6])
    (legacy,) = chunk.histograms["w"]
    # Buckets (-2,-1]:1, (-1,1]: empty run merged, (1,2]:2, (2,3]:1.
    np.testing.assert_array_equal(legacy.edges, [-2, -1, 1, 2, 3])
    np.testing.assert_array_equal(legacy.counts, [1, 0, 2, 1])
    assert chunk.other_tags == {"text": {"notes/text_summary"}}
    assert chunk.scalar_tags == []


def test_undecodable_payload_becomes_a_problem():
    payloads = [
        eventfiles.scalar_event("a", 1, 1.0, 1.0),
        b"\xff\xff\xff",  # valid framing, not an Event
        eventfiles.scalar_event("a", 2, 2.0, 2.0),
    ]
    buf = eventfiles.record_bytes(payloads)
    framing = frame_records(buf)
    chunk = tfevents.decode_records(
        buf, framing.starts, framing.lengths, tfevents.TagPlugins()
    )
    assert chunk.steps.tolist() == [1, 2]
    assert len(chunk.problems) == 1 and "undecodable" in chunk.problems[0]


def test_histogram_summary_proto_roundtrip_uses_summary_pb2():
    # Guards the fixture itself: the test writer produces real HistogramProto.
    event = event_pb2.Event.FromString(
        eventfiles.histogram_event(
            "h", 1, 1.0, minimum=0, maximum=1, limits=[1], counts=[3]
        )
    )
    assert isinstance(event.summary.value[0].histo, summary_pb2.HistogramProto)
