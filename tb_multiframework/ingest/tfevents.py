"""tfevents files (PyTorch, tensorboardX, tf.summary, Keras): records to data.

Scalars come as legacy `simple_value` (PyTorch, tensorboardX) or as rank-0
tensors with plugin `scalars` (TF2, Keras); histograms as legacy
`HistogramProto` or TF2 `(k, 3)` tensors; custom-scalar layouts as a
serialized `tensorboard.Layout` in a string tensor. Events holding exactly
one legacy or TF2 scalar are decoded vectorised (see `wire.Matcher`); every
other record goes through the protobuf library.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from tensorboard.compat.proto import event_pb2
from tensorboard.plugins.custom_scalar import layout_pb2

from tb_multiframework.ingest import histograms, hparams, tensors
from tb_multiframework.ingest.decoded import (
    DecodedChunk,
    Histogram,
    ScalarColumns,
)
from tb_multiframework.ingest.wire import Matcher

LAYOUT_TAG = "custom_scalars__config__"
_SCALARS = "scalars"
_HISTOGRAMS = "histograms"
_CUSTOM_SCALARS = "custom_scalars"

# Event field keys (field number << 3 | wire type).
_WALL_TIME = 0x09  # 1: double
_STEP = 0x10  # 2: varint
_SUMMARY = 0x2A  # 5: message
_VALUE = 0x0A  # Summary.value 1: message
_TAG = 0x0A  # Value.tag 1: string
_SIMPLE_VALUE = 0x15  # Value.simple_value 2: float
_TENSOR = 0x42  # Value.tensor 8: message
_METADATA = 0x4A  # Value.metadata 9: message
# A float32 scalar tensor: dtype DT_FLOAT, empty shape, then 4 bytes held in
# tensor_content (TF2's writer) or in one packed float_val.
_TF2_FLOAT_CONTENT = bytes([0x08, 0x01, 0x12, 0x00, 0x22, 0x04])
_TF2_FLOAT_VAL = bytes([0x08, 0x01, 0x12, 0x00, 0x2A, 0x04])
# Metadata naming only the scalars plugin: plugin_data { plugin_name }.
_SCALARS_METADATA = bytes([0x4A, 0x0B, 0x0A, 0x09, 0x0A, 0x07]) + b"scalars"


class TagPlugins:
    """Plugin name per tag of one run, from the first event that names it.

    TF2 writers put `SummaryMetadata` only on a tag's first event.
    """

    def __init__(self) -> None:
        self.by_tag: dict[str, str] = {}

    def note(self, tag: str, plugin: str) -> None:
        if plugin:
            self.by_tag.setdefault(tag, plugin)


def decode_records(
    buf: bytes, starts: np.ndarray, lengths: np.ndarray, plugins: TagPlugins
) -> DecodedChunk:
    """Decodes the framed records of one chunk of a tfevents file.

    Args:
      buf: the chunk.
      starts, lengths: payload positions from `tfrecord.frame_records`.
      plugins: the run's tag -> plugin map, updated in place.
    """
    chunk = DecodedChunk(num_records=len(starts))
    columns = ScalarColumns()
    array = np.frombuffer(buf, dtype=np.uint8)
    slow = np.ones(len(starts), dtype=bool)
    for matcher_fn in (_match_legacy_scalars, _match_tf2_scalars):
        todo = np.flatnonzero(slow)
        if len(todo) == 0:
            break
        matched = matcher_fn(array, todo, starts, lengths, plugins, columns)
        slow[todo[matched]] = False
    view = memoryview(buf)
    for index in np.flatnonzero(slow):
        start, length = int(starts[index]), int(lengths[index])
        try:
            event = event_pb2.Event.FromString(view[start : start + length])
        except DecodeError as error:
            chunk.problems.append(f"undecodable event record: {error}")
            continue
        _decode_event(int(index), event, chunk, columns, plugins)
    columns.fill(chunk)
    return chunk


def _match_event_header(matcher: Matcher) -> tuple[np.ndarray, np.ndarray]:
    """Reads the optional wall_time and step fields of an Event."""
    has_wall = matcher.peek(_WALL_TIME)
    matcher.skip(has_wall.astype(np.int64))
    wall = matcher.fixed("<f8", has_wall)
    has_step = matcher.peek(_STEP)
    matcher.skip(has_step.astype(np.int64))
    step = matcher.varint(has_step).view(np.int64)
    return wall, step


def _match_one_value(m: Matcher) -> tuple[np.ndarray, ...]:
    """Reads an Event up to the tag of its summary's only value.

    Returns:
      (wall time, step, where the summary ends, tag start, tag length); the
      value's own fields follow the tag.
    """
    wall, step = _match_event_header(m)
    m.expect(_SUMMARY)
    summary_length = m.short_length()
    summary_end = m.pos + summary_length
    m.expect(_VALUE)
    value_length = m.short_length()
    m.require_end(summary_end - value_length)  # one value fills the summary
    m.expect(_TAG)
    tag_length = m.short_length()
    tag_start = m.pos.copy()
    m.skip(tag_length)
    return wall, step, summary_end, tag_start, tag_length


def _match_legacy_scalars(
    array: np.ndarray,
    todo: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    plugins: TagPlugins,
    columns: ScalarColumns,
) -> np.ndarray:
    """Events with one `simple_value` and nothing else; returns the matches."""
    m = Matcher(array, starts[todo], lengths[todo])
    wall, step, summary_end, tag_start, tag_length = _match_one_value(m)
    m.expect(_SIMPLE_VALUE)
    value = m.fixed("<f4")
    m.require_end(summary_end)
    m.require_end()
    tags, ids = m.strings(tag_start, tag_length)
    matched = np.flatnonzero(m.ok)
    for tag in tags:
        plugins.note(tag, _SCALARS)
    columns.add_vectorised(
        todo[matched],
        tags,
        ids[matched],
        step[matched],
        wall[matched],
        value[matched],
    )
    return matched


def _match_tf2_scalars(
    array: np.ndarray,
    todo: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    plugins: TagPlugins,
    columns: ScalarColumns,
) -> np.ndarray:
    """Events with one float32 scalar tensor; returns the matches.

    TF2 writes `tensor_content` and repeats the plugin metadata on every
    event; other writers may use `float_val` and name the plugin once. Without
    metadata only tags already known as scalars are accepted.
    """
    m = Matcher(array, starts[todo], lengths[todo])
    wall, step, summary_end, tag_start, tag_length = _match_one_value(m)
    m.expect(_TENSOR)
    m.ok &= m.short_length() == len(_TF2_FLOAT_CONTENT) + 4
    m.ok &= m.matches(_TF2_FLOAT_CONTENT) | m.matches(_TF2_FLOAT_VAL)
    m.skip(np.full(len(todo), len(_TF2_FLOAT_CONTENT), dtype=np.int64))
    value = m.fixed("<f4")
    has_metadata = m.peek(_METADATA)
    m.ok &= ~has_metadata | m.matches(_SCALARS_METADATA)
    m.skip(np.where(has_metadata, len(_SCALARS_METADATA), 0))
    m.require_end(summary_end)
    m.require_end()
    tags, ids = m.strings(tag_start, tag_length)
    for tag_id in np.unique(ids[m.ok & has_metadata]):
        plugins.note(tags[tag_id], _SCALARS)
    known = np.array(
        [plugins.by_tag.get(tag) == _SCALARS for tag in tags] + [False]
    )
    m.ok &= known[ids]  # ids are -1 (-> False) where unmatched
    matched = np.flatnonzero(m.ok)
    columns.add_vectorised(
        todo[matched],
        tags,
        ids[matched],
        step[matched],
        wall[matched],
        value[matched],
    )
    return matched


def _decode_event(
    record: int,
    event: Any,
    chunk: DecodedChunk,
    columns: ScalarColumns,
    plugins: TagPlugins,
) -> None:
    what = event.WhichOneof("what")
    if event.HasField("source_metadata") and event.source_metadata.writer:
        chunk.source_writers.add(event.source_metadata.writer)
    if what == "file_version":
        chunk.file_versions.add(event.file_version)
    elif what in ("graph_def", "meta_graph_def"):
        chunk.other_tags.setdefault("graph", set()).add("(graph)")
    elif what == "tagged_run_metadata":
        chunk.other_tags.setdefault("run_metadata", set()).add(
            event.tagged_run_metadata.tag
        )
    elif (
        what == "session_log"
        and event.session_log.status == event_pb2.SessionLog.START
    ):
        # A (re)started session: torch's `purge_step`, TF1's Supervisor.
        chunk.session_starts.append(
            (record, int(event.step), float(event.wall_time))
        )
    if what != "summary":
        return
    step, wall = int(event.step), float(event.wall_time)
    for value in event.summary.value:
        try:
            _decode_value(record, step, wall, value, chunk, columns, plugins)
        except ValueError as error:
            chunk.problems.append(f"tag {value.tag!r} at step {step}: {error}")


def _decode_value(
    record: int,
    step: int,
    wall: float,
    value: Any,
    chunk: DecodedChunk,
    columns: ScalarColumns,
    plugins: TagPlugins,
) -> None:
    tag = value.tag
    kind = value.WhichOneof("value")
    if value.HasField("metadata"):
        metadata = value.metadata
        plugins.note(tag, metadata.plugin_data.plugin_name)
        if metadata.display_name and metadata.display_name != tag:
            chunk.display_names[tag] = metadata.display_name
        if metadata.plugin_data.plugin_name == hparams.PLUGIN_NAME:
            _decode_hparams(tag, metadata.plugin_data.content, chunk)
            return
    if kind == "simple_value":
        plugins.note(tag, _SCALARS)
        columns.add(record, tag, step, wall, value.simple_value)
    elif kind == "histo":
        plugins.note(tag, _HISTOGRAMS)
        histo = value.histo
        edges, counts = histograms.from_bucket_limits(
            histo.min, histo.max, histo.bucket_limit, histo.bucket
        )
        _add_histogram(chunk, tag, step, wall, edges, counts)
    elif kind == "tensor":
        _decode_tensor(
            record, step, wall, tag, value.tensor, chunk, columns, plugins
        )
    elif kind in ("image", "audio"):
        chunk.other_tags.setdefault(kind + "s", set()).add(tag)


def _decode_tensor(
    record: int,
    step: int,
    wall: float,
    tag: str,
    tensor: Any,
    chunk: DecodedChunk,
    columns: ScalarColumns,
    plugins: TagPlugins,
) -> None:
    plugin = plugins.by_tag.get(tag, "")
    if plugin == _CUSTOM_SCALARS or tag == LAYOUT_TAG:
        for raw in tensors.tensor_strings(tensor):
            try:
                layout = layout_pb2.Layout.FromString(raw)
            except DecodeError as error:
                raise ValueError(f"undecodable layout: {error}") from None
            chunk.layouts.append(
                (
                    step,
                    json_format.MessageToDict(
                        layout, preserving_proto_field_name=True
                    ),
                )
            )
        return
    if plugin == "text" and hparams.text_source_prefix(tag) is not None:
        found, problem = hparams.from_text(tag, tensors.tensor_strings(tensor))
        if found is not None:
            chunk.hparams.append(found)
        if problem:
            chunk.problems.append(problem)
    if plugin == _HISTOGRAMS:
        edges, counts = histograms.from_bucket_triples(
            tensors.tensor_to_array(tensor)
        )
        _add_histogram(chunk, tag, step, wall, edges, counts)
        return
    if plugin in (_SCALARS, "") and tensor.dtype != tensors.DT_STRING:
        array = tensors.tensor_to_array(tensor)
        if array.size == 1:
            plugins.note(tag, _SCALARS)
            columns.add(record, tag, step, wall, float(array.reshape(-1)[0]))
            return
    chunk.other_tags.setdefault(plugin or "tensors", set()).add(tag)


def _decode_hparams(tag: str, content: bytes, chunk: DecodedChunk) -> None:
    """An `hparams` plugin summary: values only from session_start_info."""
    chunk.other_tags.setdefault(hparams.PLUGIN_NAME, set()).add(tag)
    found = hparams.from_plugin_content(content, where=tag)
    if found is not None:
        chunk.hparams.append(found)


def _add_histogram(
    chunk: DecodedChunk,
    tag: str,
    step: int,
    wall: float,
    edges: np.ndarray,
    counts: np.ndarray,
) -> None:
    chunk.histograms.setdefault(tag, []).append(
        Histogram(step=step, wall_time=wall, edges=edges, counts=counts)
    )
