"""Differential fuzz test: reading in random appends equals a whole decode.

Random event streams (see tests/fuzz_streams.py) are written as tfevents
(TensorBoard's `RecordWriter`, and for some cases its `EventFileWriter`) and
as VisualDL records, then appended to real files in random pieces cut at any
byte, mid-record and mid-length-prefix included, with a real `Loader.reload`
after every round of appends, as TensorBoard's reload loop does while
training runs. After the last piece, every run must hold exactly what a
plain decode of its whole file gives: tag for tag, value for value, in
logged order, with no warning.

The seed is random per run unless TBMF_FUZZ_SEED is set; a failure names the
seed and the case. TBMF_FUZZ_CASE=<n> runs that case alone.
TBMF_FUZZ_TFEVENTS / TBMF_FUZZ_VISUALDL set the number of cases.
"""

from __future__ import annotations

import concurrent.futures
import glob
import multiprocessing
import os
import secrets
import struct

import numpy as np
import pytest
from tensorboard.compat.proto import event_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from tb_multiframework.ingest.loader import Loader
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import Store
from tests import fuzz_streams
from tests.eventfiles import TORCH_NAME

_TFEVENTS_CASES = int(os.environ.get("TBMF_FUZZ_TFEVENTS", "12000"))
_VISUALDL_CASES = int(os.environ.get("TBMF_FUZZ_VISUALDL", "8000"))
_BATCH = 400  # cases (runs) read by one loader
_EVENT_FILE_WRITER_EVERY = 10  # every n-th tfevents case goes through it
_VDL_NAME = "vdlrecords.1700000000.log"

_SEED = int(os.environ.get("TBMF_FUZZ_SEED") or secrets.randbits(32))
_ONLY = os.environ.get("TBMF_FUZZ_CASE")


def _case_ids(count: int) -> list[int]:
    if _ONLY is not None:
        return [int(_ONLY)] if int(_ONLY) < count else []
    return list(range(count))


def _where(fmt: str, case: int) -> str:
    return (
        f"{fmt} case {case} of seed {_SEED}; reproduce with "
        f"TBMF_FUZZ_SEED={_SEED} TBMF_FUZZ_CASE={case} "
        "python3 -m pytest tests/ingest/test_fuzz_chunks.py"
    )


def _record_ends(data: bytes) -> list[int]:
    ends, pos = [], 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        pos += 16 + length
        ends.append(pos)
    return ends


def _event_file_writer_stream(
    tmp, payloads: list[bytes]
) -> fuzz_streams.Stream:
    """The same events written by TensorBoard's `EventFileWriter`.

    It writes its own file-version event first, so ours is left out.
    """
    directory = tmp / "efw" / str(len(payloads)) / secrets.token_hex(6)
    writer = EventFileWriter(str(directory))
    for payload in payloads[1:]:
        writer.add_event(event_pb2.Event.FromString(payload))
    writer.close()
    (path,) = glob.glob(str(directory / "events.out.tfevents.*"))
    with open(path, "rb") as handle:
        data = handle.read()
    return fuzz_streams.Stream(data, _record_ends(data))


def _rng(fmt: str, case: int) -> np.random.Generator:
    return np.random.default_rng([_SEED, 0 if fmt == "tfevents" else 1, case])


def _piece_count(fmt: str, case: int) -> int:
    """How many appends a case makes, decided before it is built."""
    return int(_rng(fmt, case).integers(1, 12))


def _build_case(fmt: str, case: int, tmp):
    rng = _rng(fmt, case)
    pieces_wanted = int(rng.integers(1, 12))
    events = int(rng.choice([1, 2, 5, 20, 60]))
    if fmt == "tfevents":
        payloads = fuzz_streams.tfevents_stream(rng, events)
        if case % _EVENT_FILE_WRITER_EVERY == 0:
            stream = _event_file_writer_stream(tmp, payloads)
        else:
            stream = fuzz_streams.framed(payloads)
        expected = None  # decoded from the finished file
    else:
        stream, expected = fuzz_streams.visualdl_stream(rng, events)
    return fuzz_streams.pieces(rng, stream, pieces_wanted), expected


def _run_batch(fmt: str, cases: list[int], tmp) -> str | None:
    """Appends every case's pieces round by round, reloading after each.

    Returns:
      The first mismatch, described, or None.
    """
    plans = {case: _build_case(fmt, case, tmp) for case in cases}
    logdir = tmp / f"logdir_{min(plans)}"
    name = TORCH_NAME if fmt == "tfevents" else _VDL_NAME
    paths = {}
    for case in plans:
        paths[case] = logdir / f"c{case:06d}" / name
        paths[case].parent.mkdir(parents=True)
        paths[case].touch()
    store = Store()
    loader = Loader(str(logdir), store, config=Config)
    rounds = max(len(pieces) for pieces, _ in plans.values())
    for index in range(rounds):
        for case, (pieces, _) in plans.items():
            if index < len(pieces):
                with open(paths[case], "ab") as handle:
                    handle.write(pieces[index])
        loader.reload()
    for case, (_, expected) in plans.items():
        if expected is None:
            expected = fuzz_streams.expected_tfevents(str(paths[case]))
        try:
            _check(store, f"c{case:06d}", expected)
        except AssertionError as error:
            return f"{_where(fmt, case)}\n{error}"
    return None


def _check(store: Store, run: str, expected: fuzz_streams.Expected) -> None:
    summary = store.summary(run)
    meta = summary.meta
    # One file a run: steps repeated inside it are no restart, so nothing
    # at all is said (ingest/repeats.py).
    assert meta.warnings == (), meta.warnings
    # Every point of each raw tag as read (a tag whose steps go back and up
    # again is served as loops; the reader is checked on all of them).
    assert set(store.raw_scalar_tags(run)) == set(expected.scalars)
    for tag, (steps, walls, values) in expected.scalars.items():
        got = store.all_points(run, tag)
        want = np.array(values, dtype=np.float64)
        np.testing.assert_array_equal(got.steps, np.array(steps, np.int64))
        np.testing.assert_array_equal(got.wall_times, walls, err_msg=tag)
        np.testing.assert_array_equal(got.values, want, err_msg=tag)
        assert (np.signbit(got.values) == np.signbit(want)).all(), tag
    assert set(summary.histogram_tags) == set(expected.histograms)
    for tag, items in expected.histograms.items():
        got_h = store.histograms(run, tag)
        assert got_h.steps.tolist() == [item[0] for item in items], tag
        np.testing.assert_array_equal(
            got_h.wall_times, [item[1] for item in items]
        )
        for i, (_, _, edges, counts) in enumerate(items):
            np.testing.assert_array_equal(got_h.edges[i], edges)
            np.testing.assert_array_equal(got_h.counts[i], counts)
    assert store.layouts().get(run, []) == expected.layouts
    other = set().union(*meta.other_tags.values())
    assert other == expected.other_tags
    assert dict(meta.display_names) == expected.display_names
    assert meta.display_name == expected.run_display_name
    logged = [
        dict(source.values)
        for source in meta.hparams
        if source.kind in ("hparams_plugin", "visualdl")
    ]
    # The loader keeps a run's last 20 hparams summaries.
    assert logged == expected.hparams[-20:]


@pytest.mark.parametrize(
    ("fmt", "count"),
    [("tfevents", _TFEVENTS_CASES), ("visualdl", _VISUALDL_CASES)],
)
def test_random_appends_read_exactly_as_a_whole_decode(fmt, count, tmp_path):
    print(f"fuzz seed {_SEED} ({count} {fmt} cases)")
    cases = _case_ids(count)
    # Cases cut into as many pieces share a loader: a batch needs as many
    # reloads as its most-cut case.
    cases.sort(key=lambda case: _piece_count(fmt, case))
    batches = [cases[i : i + _BATCH] for i in range(0, len(cases), _BATCH)]
    # Batches are independent: one process per core.
    context = multiprocessing.get_context("fork")
    workers = min(len(batches), os.cpu_count() or 1) or 1
    with concurrent.futures.ProcessPoolExecutor(workers, context) as pool:
        jobs = [pool.submit(_run_batch, fmt, b, tmp_path) for b in batches]
        failures = [job.result() for job in jobs]
    failures = [f for f in failures if f is not None]
    assert not failures, failures[0]
