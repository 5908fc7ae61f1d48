"""Random event streams and their expected decoding, for differential tests.

A stream is the bytes of one log file plus what a reader must find in it.
For tfevents the expectation is computed from the finished file alone, by a
plain loop over its records and protobuf's own `Event` parser (with
TensorBoard's `tensor_util` for tensors); for VisualDL, whose message classes
ship only with visualdl, it is what the generator encoded. Neither path
shares code with the readers under test, except the histogram normalisation
(`ingest.histograms`, tested by hand in tests/ingest/test_histograms.py),
applied to what protobuf decoded.

Every random choice comes from a `numpy.random.Generator`, so a case is
reproduced from its seed alone.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from typing import Any

import numpy as np
from google.protobuf import json_format, struct_pb2
from tensorboard.compat.proto import (
    event_pb2,
    graph_pb2,
    summary_pb2,
    tensor_pb2,
    tensor_shape_pb2,
)
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.hparams import plugin_data_pb2
from tensorboard.util import tensor_util

from tb_multiframework.ingest import histograms
from tests import eventfiles

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
LAYOUT_TAG = "custom_scalars__config__"
# Characters of 1 to 4 UTF-8 bytes, including ones that look like framing
# (NUL, newline, the field keys 0x0A/0x12) and the replacement character.
_CHARS = (
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    + list("/_-. :=+@%")
    + ["\x00", "\n", "\x12", "\x7f", "é", "ß", "λ", "ж", "\ufffd"]
    + ["中", "文", "€", "\u200b", "🙂", "𝔘"]
)
_CHAR_BYTES = {char: len(char.encode()) for char in _CHARS}


@dataclasses.dataclass
class Expected:
    """What reading a whole stream must give.

    Attributes:
      scalars: tag -> (steps, wall times, values) in logged order.
      histograms: tag -> list of (step, wall, edges, counts).
      layouts: (step, layout as a dict) in logged order.
      other_tags: tags of every other kind (text, images, graph, ...).
      display_names: tag -> display name (tfevents).
      run_display_name: the VisualDL run's display name.
      hparams: values of each `hparams` plugin summary, in logged order.
    """

    scalars: dict[str, tuple[list[int], list[float], list[float]]] = (
        dataclasses.field(default_factory=dict)
    )
    histograms: dict[str, list[tuple[int, float, Any, Any]]] = (
        dataclasses.field(default_factory=dict)
    )
    layouts: list[tuple[int, dict[str, Any]]] = dataclasses.field(
        default_factory=list
    )
    other_tags: set[str] = dataclasses.field(default_factory=set)
    display_names: dict[str, str] = dataclasses.field(default_factory=dict)
    run_display_name: str = ""
    hparams: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def add_scalar(self, tag: str, step: int, wall: float, value: float):
        steps, walls, values = self.scalars.setdefault(tag, ([], [], []))
        steps.append(step)
        walls.append(wall)
        values.append(value)


@dataclasses.dataclass
class Stream:
    data: bytes
    record_ends: list[int]  # byte offset after each record


# Random pieces.


def random_tag(rng: np.random.Generator, used: set[str]) -> str:
    """A new tag of 1 to 300 UTF-8 bytes."""
    while True:
        limit = int(
            rng.choice([rng.integers(1, 9), rng.integers(9, 64)])
            if rng.random() < 0.85
            else rng.integers(100, 301)
        )
        chars = [_CHARS[i] for i in rng.integers(len(_CHARS), size=limit)]
        sizes = np.cumsum([_CHAR_BYTES[c] for c in chars])
        tag = "".join(chars[: int(np.searchsorted(sizes, limit, "right"))])
        if tag and tag not in used and tag != LAYOUT_TAG:
            used.add(tag)
            return tag


def random_step(rng: np.random.Generator, counter: int) -> int:
    roll = rng.random()
    if roll < 0.7:
        return counter
    if roll < 0.75:
        return 0
    if roll < 0.82:
        return -int(rng.integers(1, 1 << 20))
    if roll < 0.86:
        return INT64_MIN
    if roll < 0.90:
        return INT64_MAX
    return int(rng.integers(INT64_MIN, INT64_MAX, dtype=np.int64))


def random_wall(rng: np.random.Generator, counter: int) -> float:
    roll = rng.random()
    if roll < 0.85:
        return 1.7e9 + counter * 0.25 + float(rng.random())
    if roll < 0.9:
        return 0.0
    return float(rng.choice([math.nan, math.inf, -1.5, 1e300]))


def random_value(rng: np.random.Generator) -> float:
    """A float32-representable value, extremes and non-finite included."""
    roll = rng.random()
    if roll < 0.6:
        value = float(rng.normal() * 10.0 ** rng.integers(-8, 8))
    elif roll < 0.7:
        value = float(
            rng.choice([0.0, -0.0, math.nan, math.inf, -math.inf, 1.0])
        )
    elif roll < 0.8:
        value = float(
            rng.choice([3.4028234663852886e38, 1e-45, -1e-45, 1.17549435e-38])
        )
    else:  # any bit pattern, NaN payloads included
        bits = int(rng.integers(0, 1 << 32))
        value = struct.unpack("<f", struct.pack("<I", bits))[0]
    return float(np.float32(value))


def _pick(rng: np.random.Generator, items: list[str]) -> str:
    return items[int(rng.integers(len(items)))]


def _chunk_bounds(
    rng: np.random.Generator, size: int, record_ends: list[int], count: int
) -> list[int]:
    """Up to `count` - 1 cut points (0 < cut < size, sorted).

    Uniform positions, positions near record boundaries (inside the length
    prefix, the header CRC, the first payload byte, the footer), and now and
    then a run of one-byte appends.
    """
    cuts: set[int] = set()
    if rng.random() < 0.1 and size > 2:
        start = int(rng.integers(1, size))
        cuts.update(range(start, min(size, start + count - 1)))
    while len(cuts) < count - 1:
        if record_ends and rng.random() < 0.5:
            edge = record_ends[int(rng.integers(len(record_ends)))]
            cuts.add(edge + int(rng.choice([-4, -1, 0, 1, 3, 7, 8, 9, 12, 13])))
        else:
            cuts.add(int(rng.integers(1, max(size, 2))))
        if len(cuts) >= size:
            break
    return sorted(c for c in cuts if 0 < c < size)


def pieces(rng: np.random.Generator, stream: Stream, count: int) -> list[bytes]:
    """The stream cut into at most `count` appends, as a writer cuts it."""
    bounds = [
        0,
        *_chunk_bounds(rng, len(stream.data), stream.record_ends, count),
    ]
    bounds.append(len(stream.data))
    return [stream.data[a:b] for a, b in zip(bounds, bounds[1:])]


# tfevents.


def _string_tensor(items: list[bytes]) -> tensor_pb2.TensorProto:
    return tensor_pb2.TensorProto(
        dtype=7,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=len(items))]
        ),
        string_val=items,
    )


def _scalar_tensor(rng: np.random.Generator, value: float) -> Any:
    roll = rng.random()
    if roll < 0.6:  # TF2's writer
        return tensor_pb2.TensorProto(
            dtype=1,
            tensor_shape=tensor_shape_pb2.TensorShapeProto(),
            tensor_content=struct.pack("<f", value),
        )
    if roll < 0.8:
        return tensor_pb2.TensorProto(
            dtype=1,
            tensor_shape=tensor_shape_pb2.TensorShapeProto(),
            float_val=[value],
        )
    return tensor_pb2.TensorProto(
        dtype=2,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(),
        double_val=[value],
    )


def _legacy_histogram(rng: np.random.Generator) -> summary_pb2.HistogramProto:
    buckets = int(rng.integers(0, 12))
    limits = np.sort(rng.normal(size=buckets) * 3)
    if buckets and rng.random() < 0.5:
        limits[-1] = 1.7976931348623157e308  # torch's last limit
    counts = rng.integers(0, 4, size=buckets).astype(float)
    low = float(limits[0] - 1) if buckets else 0.0
    high = float(limits[-2]) if buckets > 1 else low + 1.0
    return summary_pb2.HistogramProto(
        min=low,
        max=max(high, low),
        num=float(counts.sum()),
        sum=0.0,
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


def _tf2_histogram_tensor(rng: np.random.Generator) -> Any:
    rows = int(rng.integers(0, 10))
    lefts = np.sort(rng.normal(size=rows))
    rights = lefts + rng.random(rows)
    triples = np.stack([lefts, rights, rng.integers(0, 5, rows)], axis=1)
    return tensor_util.make_tensor_proto(
        triples.astype(np.float64), dtype="float64"
    )


_HPARAMS_CONTENT = plugin_data_pb2.HParamsPluginData(
    session_start_info=plugin_data_pb2.SessionStartInfo(
        hparams={"lr": struct_pb2.Value(number_value=0.1)}
    )
).SerializeToString()


class _TfeventsBuilder:
    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        used: set[str] = set()
        self.scalar_tags = [
            random_tag(rng, used) for _ in range(int(rng.integers(1, 7)))
        ]
        self.hist_tags = [
            random_tag(rng, used) for _ in range(int(rng.integers(1, 4)))
        ]
        self.text_tags = [random_tag(rng, used) for _ in range(2)]
        self.image_tags = [random_tag(rng, used)]
        self.metadata_policy = {
            tag: _pick(rng, ["every", "first", "never"])
            for tag in self.scalar_tags + self.hist_tags
        }
        self.named: set[str] = set()
        self.counter = 0

    def _metadata(self, tag: str, plugin: str, value: Any) -> None:
        policy = self.metadata_policy.get(tag, "every")
        if policy == "every" or (policy == "first" and tag not in self.named):
            value.metadata.plugin_data.plugin_name = plugin
            if self.rng.random() < 0.05:
                value.metadata.display_name = "shown " + tag
            self.named.add(tag)

    def _scalar_value(self, event: Any) -> None:
        rng = self.rng
        tag = _pick(rng, self.scalar_tags)
        value = random_value(rng)
        item = event.summary.value.add(tag=tag)
        if rng.random() < 0.55:
            item.simple_value = value
            if rng.random() < 0.05:
                item.metadata.plugin_data.plugin_name = "scalars"
        else:
            item.tensor.CopyFrom(_scalar_tensor(rng, value))
            self._metadata(tag, "scalars", item)

    def _hist_value(self, event: Any) -> None:
        rng = self.rng
        tag = _pick(rng, self.hist_tags)
        item = event.summary.value.add(tag=tag)
        if rng.random() < 0.5:
            item.histo.CopyFrom(_legacy_histogram(rng))
        else:
            item.tensor.CopyFrom(_tf2_histogram_tensor(rng))
            # TF2 always names the histograms plugin on a tag's first event.
            if tag not in self.named or rng.random() < 0.5:
                item.metadata.plugin_data.plugin_name = "histograms"
                self.named.add(tag)

    def event(self) -> Any:
        rng = self.rng
        self.counter += 1
        event = event_pb2.Event(
            step=random_step(rng, self.counter),
            wall_time=random_wall(rng, self.counter),
        )
        roll = rng.random()
        if roll < 0.55:
            self._scalar_value(event)
        elif roll < 0.65:
            for _ in range(int(rng.integers(2, 5))):
                if rng.random() < 0.75:
                    self._scalar_value(event)
                else:
                    self._hist_value(event)
        elif roll < 0.78:
            self._hist_value(event)
        elif roll < 0.82:
            item = event.summary.value.add(tag=_pick(rng, self.text_tags))
            item.metadata.plugin_data.plugin_name = "text"
            item.tensor.CopyFrom(_string_tensor([b"some <b>text</b>"]))
        elif roll < 0.84:
            item = event.summary.value.add(tag=_pick(rng, self.image_tags))
            item.image.height, item.image.width = 1, 1
            item.image.encoded_image_string = b"\x89PNG"
        elif roll < 0.86:
            item = event.summary.value.add(tag="_hparams_/session_start_info")
            item.metadata.plugin_data.plugin_name = "hparams"
            item.metadata.plugin_data.content = _HPARAMS_CONTENT
        elif roll < 0.88:
            layout = layout_pb2.Layout()
            category = layout.category.add(title="cat " + self.scalar_tags[0])
            chart = category.chart.add(title="chart")
            chart.multiline.tag.append(self.scalar_tags[0])
            item = event.summary.value.add(tag=LAYOUT_TAG)
            item.metadata.plugin_data.plugin_name = "custom_scalars"
            item.tensor.CopyFrom(_string_tensor([layout.SerializeToString()]))
        elif roll < 0.91:
            event.session_log.status = int(rng.integers(0, 4))
        elif roll < 0.93:
            event.graph_def = graph_pb2.GraphDef().SerializeToString()
        elif roll < 0.95:
            event.tagged_run_metadata.tag = "step" + str(self.counter)
        elif roll < 0.97:
            event.log_message.message = "a log line"
        else:
            self._scalar_value(event)
        return event


def tfevents_stream(rng: np.random.Generator, events: int) -> list[bytes]:
    """Serialized events: the file version first, then random ones."""
    builder = _TfeventsBuilder(rng)
    out = [eventfiles.file_version_event()]
    out += [builder.event().SerializeToString() for _ in range(events)]
    return out


def framed(payloads: list[bytes]) -> Stream:
    """TFRecord framing by TensorBoard's `RecordWriter`."""
    ends, total = [], 0
    for payload in payloads:
        total += len(payload) + 16
        ends.append(total)
    return Stream(eventfiles.record_bytes(payloads), ends)


def expected_tfevents(path: str) -> Expected:
    """Decodes a whole tfevents file with TensorBoard's reader and protobuf.

    Rules (the plugin's, written independently here): a tag's plugin is the
    first non-empty plugin name its values carry; `simple_value` is a
    scalar; a numeric tensor of one element is a scalar when its tag's
    plugin is `scalars` or none; `histo` and `histograms` tensors are
    histograms; `custom_scalars` (or the layout tag) carry layouts; an
    `hparams` summary is an other tag carrying its session's values; every
    other value with data, the graph and tagged run metadata are other tags.
    """
    out = Expected()
    plugins: dict[str, str] = {}
    with open(path, "rb") as handle:
        data = handle.read()
    for raw in _records(data):
        event = event_pb2.Event.FromString(raw)
        what = event.WhichOneof("what")
        if what in ("graph_def", "meta_graph_def"):
            out.other_tags.add("(graph)")
        elif what == "tagged_run_metadata":
            out.other_tags.add(event.tagged_run_metadata.tag)
        if what != "summary":
            continue
        for value in event.summary.value:
            _expect_value(out, plugins, event.step, event.wall_time, value)
    return out


def _records(data: bytes) -> list[bytes]:
    """Payloads of a whole, valid TFRecord file, by a plain loop."""
    out, pos = [], 0
    while pos < len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        out.append(data[pos + 12 : pos + 12 + length])
        pos += 16 + length
    assert pos == len(data), "a torn record in a finished stream"
    return out


def _expect_value(
    out: Expected, plugins: dict[str, str], step: int, wall: float, value: Any
) -> None:
    tag = value.tag
    if value.HasField("metadata"):
        name = value.metadata.plugin_data.plugin_name
        if name:
            plugins.setdefault(tag, name)
        shown = value.metadata.display_name
        if shown and shown != tag:
            out.display_names[tag] = shown
        if name == "hparams":
            data = plugin_data_pb2.HParamsPluginData.FromString(
                value.metadata.plugin_data.content
            )
            out.other_tags.add(tag)
            out.hparams.append(
                {
                    key: json_format.MessageToDict(item)
                    for key, item in data.session_start_info.hparams.items()
                }
            )
            return
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        plugins.setdefault(tag, "scalars")
        out.add_scalar(tag, step, wall, value.simple_value)
    elif kind == "histo":
        plugins.setdefault(tag, "histograms")
        histo = value.histo
        edges, counts = histograms.from_bucket_limits(
            histo.min, histo.max, histo.bucket_limit, histo.bucket
        )
        out.histograms.setdefault(tag, []).append((step, wall, edges, counts))
    elif kind == "tensor":
        plugin = plugins.get(tag, "")
        if plugin == "custom_scalars" or tag == LAYOUT_TAG:
            for raw in value.tensor.string_val:
                layout = layout_pb2.Layout.FromString(raw)
                out.layouts.append(
                    (
                        step,
                        json_format.MessageToDict(
                            layout, preserving_proto_field_name=True
                        ),
                    )
                )
        elif plugin == "histograms":
            edges, counts = histograms.from_bucket_triples(
                tensor_util.make_ndarray(value.tensor)
            )
            out.histograms.setdefault(tag, []).append(
                (step, wall, edges, counts)
            )
        elif plugin in ("scalars", "") and value.tensor.dtype != 7:
            array = tensor_util.make_ndarray(value.tensor)
            if array.size == 1:
                plugins.setdefault(tag, "scalars")
                out.add_scalar(tag, step, wall, float(array.reshape(-1)[0]))
            else:
                out.other_tags.add(tag)
        else:
            out.other_tags.add(tag)
    elif kind in ("image", "audio"):
        out.other_tags.add(tag)


# VisualDL.


def visualdl_stream(
    rng: np.random.Generator, records: int
) -> tuple[Stream, Expected]:
    """Records of 1-3 random values each, and what they hold."""
    used: set[str] = set()
    scalar_tags = [
        random_tag(rng, used) for _ in range(int(rng.integers(1, 6)))
    ]
    main_tags = [random_tag(rng, used) for _ in range(2)]
    sub_tags = [random_tag(rng, set()) for _ in range(2)]
    hist_tags = [random_tag(rng, used) for _ in range(2)]
    other_tags = [random_tag(rng, used) for _ in range(2)]
    pools = {
        "scalar_tags": scalar_tags,
        "main_tags": main_tags,
        "sub_tags": sub_tags,
        "hist_tags": hist_tags,
        "other_tags": other_tags,
    }
    out = Expected()
    payloads = []
    for counter in range(records):
        count = int(rng.integers(2, 4)) if rng.random() < 0.2 else 1
        payloads.append(
            b"".join(
                _visualdl_value(rng, counter, out, pools) for _ in range(count)
            )
        )
    data = eventfiles.vdl_records(payloads)
    ends, total = [], 0
    for payload in payloads:
        total += len(payload) + 8
        ends.append(total)
    return Stream(data, ends), out


def _visualdl_value(
    rng: np.random.Generator,
    counter: int,
    out: Expected,
    pools: dict[str, list[str]],
) -> bytes:
    step = random_step(rng, counter)
    millis = int(
        rng.choice([counter * 250 + 1_700_000_000_000, 0, INT64_MAX, 1])
    )
    wall = millis / 1000.0
    roll = rng.random()
    if roll < 0.7:
        tag = _pick(rng, pools["scalar_tags"])
        value = random_value(rng)
        out.add_scalar(tag, step, wall, value)
        return eventfiles.vdl_value(tag, step, millis, scalar=value)
    if roll < 0.8:
        main, sub = _pick(rng, pools["main_tags"]), _pick(
            rng, pools["sub_tags"]
        )
        value = random_value(rng)
        out.add_scalar(f"{main}/{sub}", step, wall, value)
        return eventfiles.vdl_value(main, step, millis, tag_value=(sub, value))
    if roll < 0.9:
        tag = _pick(rng, pools["hist_tags"])
        buckets = int(rng.integers(1, 11))
        counts = rng.integers(0, 6, buckets).astype(float)
        edges = np.sort(rng.normal(size=buckets + 1))
        got_edges, got_counts = histograms.from_edges(edges, counts)
        out.histograms.setdefault(tag, []).append(
            (step, wall, got_edges, got_counts)
        )
        return eventfiles.vdl_value(
            tag, step, millis, hist=(counts.tolist(), edges.tolist())
        )
    if roll < 0.93:
        name = "run " + _pick(rng, pools["scalar_tags"])
        out.run_display_name = name
        return eventfiles.vdl_value("", step, millis, display_name=name)
    tag = _pick(rng, pools["other_tags"])
    out.other_tags.add(tag)
    field = int(rng.choice([5, 6, 12, 13]))  # image, audio, text, hparam
    if field != 13:
        raw = bytes(rng.integers(0, 256, int(rng.integers(0, 6)), np.uint8))
        return eventfiles.vdl_value(tag, step, millis, other=(field, raw))
    # HParam { HparamInfo hparamInfos = 1 { double float_value = 2;
    # string name = 4 } }
    rate = float(rng.random())
    info = b"\x11" + struct.pack("<d", rate) + b"\x22\x02lr"
    out.hparams.append({"lr": rate})
    return eventfiles.vdl_value(
        tag, step, millis, other=(13, b"\x0a" + bytes([len(info)]) + info)
    )
