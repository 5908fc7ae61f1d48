"""Prints what the demo runs wrote and checks it against the ground truth.

Two readers, each needing only its own format's library:

* ``--format tfevents`` needs ``tensorboard`` (any of the venvs that has it,
  or the system Python): reads the raw ``Event`` protos, no data_compat.
* ``--format visualdl`` needs ``visualdl`` (the Paddle venv): reads the
  ``[uint64 length][Record]`` frames with VisualDL's own ``record_pb2``.

For every run directory in ``<truth-dir>/*.json`` of that format it checks
that every truth tag is in the files with the same steps, float32-equal
values (scalars) and the same element count, min and max (histograms), and
lists tags the truth does not know. Exit status 1 on any mismatch.

Usage::

    python check_logs.py --format tfevents --logdir demo_logs \
        --truth-dir tests/data/demo_truth [--facts]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import struct
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Series:
    """What one tag of one run directory holds, with facts about storage."""

    kind: str  # "scalar" or "histogram" or "other"
    storage: str  # e.g. "simple_value", "tensor[scalars] float32 ()"
    steps: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    counts_total: list[float] = field(default_factory=list)
    mins: list[float] = field(default_factory=list)
    maxs: list[float] = field(default_factory=list)
    metadata_on: list[bool] = field(default_factory=list)
    extra: str = ""


# --------------------------------------------------------------- tfevents ---
def read_tfevents(run_path: str, facts: bool) -> dict[str, Series]:
    """Reads every event file of one directory (not recursive)."""
    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.compat.proto import event_pb2
    from tensorboard.util import tensor_util

    series: dict[str, Series] = {}
    files = sorted(glob.glob(os.path.join(run_path, "events.out.tfevents.*")))
    for path in files:
        loader = event_file_loader.RawEventFileLoader(path)
        kinds: dict[str, int] = defaultdict(int)
        for i, raw in enumerate(loader.Load()):
            event = event_pb2.Event.FromString(raw)
            what = event.WhichOneof("what")
            kinds[what or "none"] += 1
            if i == 0 and facts:
                source = (
                    repr(event.source_metadata.writer)
                    if event.HasField("source_metadata")
                    else "<absent>"
                )
                print(
                    f"  file {os.path.basename(path)} "
                    f"({os.path.getsize(path)} bytes)"
                )
                print(
                    f"    first event: what={what} "
                    f"file_version={event.file_version!r} "
                    f"step={event.step} wall_time={event.wall_time:.3f} "
                    f"source_metadata.writer={source}"
                )
            if what != "summary":
                continue
            for value in event.summary.value:
                _add_tf_value(series, value, event.step, tensor_util)
        if facts:
            print(f"    event kinds: {dict(kinds)}")
    return series


def _add_tf_value(
    series: dict[str, Series], value: Any, step: int, tensor_util: Any
) -> None:
    has_meta = value.HasField("metadata")
    plugin = value.metadata.plugin_data.plugin_name if has_meta else ""
    field_name = value.WhichOneof("value")
    if field_name == "simple_value":
        s = series.setdefault(value.tag, Series("scalar", "simple_value"))
        s.values.append(value.simple_value)
    elif field_name == "histo":
        s = series.setdefault(value.tag, Series("histogram", "histo"))
        h = value.histo
        s.counts_total.append(sum(h.bucket))
        s.mins.append(h.min)
        s.maxs.append(h.max)
        s.extra = (
            f"num={h.num} buckets={len(h.bucket)} "
            f"limits={len(h.bucket_limit)}"
        )
    elif field_name == "tensor":
        arr = tensor_util.make_ndarray(value.tensor)
        kind = {"scalars": "scalar", "histograms": "histogram"}.get(
            plugin, "other"
        )
        if value.tag not in series:
            # Only the first event of a tag is sure to carry the plugin name.
            series[value.tag] = Series(
                kind, f"tensor[{plugin}] {arr.dtype.name}"
            )
        s = series[value.tag]
        if s.kind == "scalar":
            s.values.append(float(arr))
        elif s.kind == "histogram":
            s.counts_total.append(float(arr[:, 2].sum()) if arr.size else 0.0)
            s.mins.append(float(arr[0, 0]) if arr.size else float("nan"))
            s.maxs.append(float(arr[-1, 1]) if arr.size else float("nan"))
        shapes = set(s.extra.split(";")) if s.extra else set()
        shapes.add(f"shape={arr.shape}")
        s.extra = ";".join(sorted(shapes))
    else:
        s = series.setdefault(value.tag, Series("other", str(field_name)))
    s.steps.append(step)
    s.metadata_on.append(has_meta)


# --------------------------------------------------------------- visualdl ---
def iter_vdl_records(path: str) -> Iterator[bytes]:
    """[uint64 little-endian length][payload], no CRC; stops at a torn tail."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos + 8 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        if pos + 8 + length > len(data):
            break
        yield data[pos + 8 : pos + 8 + length]
        pos += 8 + length


def read_visualdl(run_path: str, facts: bool) -> dict[str, Series]:
    """Reads every vdlrecords file of one directory."""
    from visualdl.proto import record_pb2

    series: dict[str, Series] = {}
    for path in sorted(glob.glob(os.path.join(run_path, "vdlrecords.*"))):
        name_seconds = int(os.path.basename(path).split(".")[1])
        n_records = 0
        values_per_record: set[int] = set()
        stamps: list[int] = []
        for i, raw in enumerate(iter_vdl_records(path)):
            record = record_pb2.Record.FromString(raw)
            n_records += 1
            values_per_record.add(len(record.values))
            for value in record.values:
                stamps.append(value.timestamp)
                kind = value.WhichOneof("one_value")
                if i == 0 and facts:
                    print(
                        f"  file {os.path.basename(path)} "
                        f"({os.path.getsize(path)} bytes)"
                    )
                    print(
                        f"    first record: tag={value.tag!r} id={value.id} "
                        f"timestamp={value.timestamp} oneof={kind} "
                        f"display_name={value.meta_data.display_name!r}"
                    )
                _add_vdl_value(series, value, kind)
        if facts:
            print(f"    records={n_records} values/record={values_per_record}")
            print(
                f"    timestamp range {min(stamps)}..{max(stamps)}; file "
                f"name seconds {name_seconds} -> timestamp/1000 - name = "
                f"{min(stamps) / 1000 - name_seconds:.3f} s (milliseconds)"
            )
    return series


def _add_vdl_value(series: dict[str, Series], value: Any, kind: str) -> None:
    if kind == "value":
        s = series.setdefault(value.tag, Series("scalar", "value (float)"))
        s.values.append(value.value)
    elif kind == "tag_value":
        tag = f"{value.tag}/{value.tag_value.tag}"
        s = series.setdefault(tag, Series("scalar", "tag_value (float)"))
        s.values.append(value.tag_value.value)
    elif kind == "histogram":
        s = series.setdefault(value.tag, Series("histogram", "histogram"))
        h = value.histogram
        s.counts_total.append(float(sum(h.hist)))
        s.mins.append(h.bin_edges[0])
        s.maxs.append(h.bin_edges[-1])
        s.extra = f"hist={len(h.hist)} bin_edges={len(h.bin_edges)}"
    else:
        s = series.setdefault(value.tag, Series("other", kind))
    s.steps.append(value.id)
    s.metadata_on.append(False)


# ------------------------------------------------------------------ check ---
def describe(tag: str, s: Series) -> str:
    """One line of facts about one tag."""
    steps = s.steps
    meta = ""
    if any(s.metadata_on):
        first = s.metadata_on[0]
        later = sum(s.metadata_on[1:])
        meta = f" metadata: first={first} later={later}/{len(steps) - 1}"
    rng = f"{min(steps)}..{max(steps)}" if steps else "-"
    extra = f" {s.extra}" if s.extra else ""
    return f"    {tag!r}: {s.storage} n={len(steps)} steps {rng}{meta}{extra}"


def compare(run_dir: str, truth: dict[str, Any], got: dict[str, Series]) -> int:
    """Returns the number of mismatches between truth and files."""
    errors = 0

    def fail(msg: str) -> None:
        nonlocal errors
        errors += 1
        print(f"  MISMATCH {run_dir}: {msg}")

    for tag, want in truth["scalars"].items():
        s = got.get(tag)
        if s is None or s.kind != "scalar":
            fail(f"scalar {tag!r} missing")
            continue
        if s.steps != want["steps"]:
            fail(f"scalar {tag!r} steps differ")
            continue
        want32 = np.asarray(want["values"], dtype=np.float32)
        got32 = np.asarray(s.values, dtype=np.float32)
        bad = np.flatnonzero(want32 != got32)
        if bad.size:
            i = int(bad[0])
            fail(f"scalar {tag!r} step {s.steps[i]}: {got32[i]} != {want32[i]}")
    for tag, want in truth["histograms"].items():
        s = got.get(tag)
        if s is None or s.kind != "histogram":
            fail(f"histogram {tag!r} missing")
            continue
        if s.steps != want["steps"]:
            fail(f"histogram {tag!r} steps differ")
            continue
        if s.counts_total != [float(c) for c in want["counts_total"]]:
            fail(f"histogram {tag!r} counts {s.counts_total}")
        if not np.allclose(s.mins, want["min"], rtol=0, atol=1e-7) or not (
            np.allclose(s.maxs, want["max"], rtol=0, atol=1e-7)
        ):
            fail(f"histogram {tag!r} min/max differ")
    unknown = sorted(
        set(got) - set(truth["scalars"]) - set(truth["histograms"])
    )
    if unknown:
        print(f"  not in truth ({run_dir}): {unknown}")
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--format", choices=("tfevents", "visualdl"), required=True
    )
    parser.add_argument("--logdir", required=True)
    parser.add_argument("--truth-dir", required=True)
    parser.add_argument(
        "--facts",
        action="store_true",
        help="print files, first events and per-tag storage",
    )
    args = parser.parse_args()
    reader = read_tfevents if args.format == "tfevents" else read_visualdl
    pattern = (
        "events.out.tfevents.*"
        if args.format == "tfevents"
        else ("vdlrecords.*")
    )

    errors = 0
    checked = 0
    for truth_path in sorted(glob.glob(os.path.join(args.truth_dir, "*.json"))):
        with open(truth_path, encoding="utf-8") as f:
            doc = json.load(f)
        for run_dir, truth in sorted(doc["dirs"].items()):
            path = os.path.join(args.logdir, run_dir)
            if not glob.glob(os.path.join(path, pattern)):
                continue
            print(f"== {run_dir} ({doc['writer']})")
            got = reader(path, args.facts)
            if args.facts:
                for tag in sorted(got):
                    print(describe(tag, got[tag]))
            errors += compare(run_dir, truth, got)
            checked += 1
    print(f"checked {checked} run dirs ({args.format}): {errors} mismatches")
    return 1 if errors or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
