"""The loader: discovery, incremental reads, torn and broken files, overrides.

Directory trees used here::

    logdir/
      good/events.out.tfevents.<ts>.host.123.0      (torch-style name)
      broken/events.out.tfevents.<ts>.host.123.0    (garbage + a good file)
      broken/events.out.tfevents.<ts>.host.123.1
      k/train/...v2, k/validation/...v2              (Keras layout)
      vdl/vdlrecords.<ts>.log
"""

import os

import numpy as np

from tb_multiframework.ingest.loader import Loader
from tb_multiframework.settings.config import Config, parse_config
from tb_multiframework.store.store import Store
from tests import eventfiles


def _loader(logdir, config=None):
    store = Store()
    current = config or Config()
    return Loader(str(logdir), store, config=lambda: current), store


def test_incremental_reload_reads_only_new_points(tmp_path):
    payloads = [eventfiles.file_version_event()] + [
        eventfiles.scalar_event("loss", i, 100.0 + i, i * 0.5)
        for i in range(100)
    ]
    whole = eventfiles.record_bytes(payloads)
    path = tmp_path / "good" / eventfiles.TORCH_NAME
    # First write stops in the middle of a record.
    cut = len(eventfiles.record_bytes(payloads[:40])) + 7
    eventfiles.write(str(path), whole[:cut])
    loader, store = _loader(tmp_path)
    first = loader.reload()
    series = store.scalars("good", "loss")
    assert series.steps.tolist() == list(range(39))
    warnings = store.meta("good").warnings
    assert (
        len(warnings) == 1
        and "ends with 7 bytes, fewer than a record header" in warnings[0]
    )
    eventfiles.write(str(path), whole[cut:], mode="ab")
    second = loader.reload()
    series = store.scalars("good", "loss")
    assert series.steps.tolist() == list(range(100))
    np.testing.assert_array_equal(series.values, np.arange(100) * 0.5)
    np.testing.assert_array_equal(series.wall_times, 100.0 + np.arange(100))
    assert store.meta("good").warnings == ()
    assert first.bytes_read + second.bytes_read == len(whole)
    # Nothing new: nothing read, nothing duplicated.
    assert loader.reload().bytes_read == 0
    assert len(store.scalars("good", "loss")) == 100


def test_broken_file_is_a_warning_and_the_rest_is_served(tmp_path):
    rng = np.random.default_rng(3)
    broken_dir = tmp_path / "broken"
    eventfiles.write(
        str(broken_dir / eventfiles.TORCH_NAME),
        rng.integers(0, 256, 3000, dtype=np.uint8).tobytes(),
    )
    eventfiles.write(
        str(broken_dir / (eventfiles.TORCH_NAME[:-1] + "1")),
        eventfiles.record_bytes([eventfiles.scalar_event("acc", 5, 1.0, 0.75)]),
    )
    eventfiles.write(
        str(tmp_path / "good" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes([eventfiles.scalar_event("loss", 1, 1.0, 2.0)]),
    )
    loader, store = _loader(tmp_path)
    loader.reload()
    assert store.runs() == ["broken", "good"]
    warnings = store.meta("broken").warnings
    assert len(warnings) == 1
    assert warnings[0].startswith(eventfiles.TORCH_NAME + ": corrupt data")
    assert store.scalars("broken", "acc").values.tolist() == [0.75]
    assert store.scalars("good", "loss").values.tolist() == [2.0]
    assert store.meta("good").warnings == ()


def test_detection_grouping_and_config_override(tmp_path):
    for sub, tags in (
        ("train", ["epoch_loss", "batch_loss"]),
        ("validation", ["epoch_loss"]),
    ):
        eventfiles.write(
            str(tmp_path / "k" / sub / eventfiles.TF_NAME),
            eventfiles.record_bytes(
                [eventfiles.tf2_scalar_event(t, 0, 1.0, 1.0) for t in tags]
            ),
        )
    eventfiles.write(
        str(tmp_path / "tbx" / eventfiles.TBX_NAME),
        eventfiles.record_bytes([eventfiles.scalar_event("loss", 0, 1.0, 1.0)]),
    )
    eventfiles.write(
        str(tmp_path / "vdl" / "vdlrecords.1700000000.log"),
        eventfiles.vdl_records(
            [eventfiles.vdl_value("Train/Loss", 1, 1000, scalar=1.0)]
        ),
    )
    loader, store = _loader(tmp_path)
    loader.reload()
    metas = {run: store.meta(run) for run in store.runs()}
    assert {r: (m.framework, m.writer, m.group) for r, m in metas.items()} == {
        "k/train": ("tensorflow", "keras", "k"),
        "k/validation": ("tensorflow", "keras", "k"),
        "tbx": ("unknown", "tensorboardX", "tbx"),
        "vdl": ("paddle", "visualdl", "vdl"),
    }
    assert metas["vdl"].format == "visualdl"
    config = parse_config(
        {"runs": {"tb*": {"framework": "paddle", "group": "g"}}}
    )
    loader, store = _loader(tmp_path, config)
    loader.reload()
    meta = store.meta("tbx")
    assert (meta.framework, meta.writer, meta.group) == (
        "paddle",
        "tensorboardX",
        "g",
    )
    assert any("set to 'paddle'" in e for e in meta.evidence)


def test_skips_the_plugins_own_folder(tmp_path):
    eventfiles.write(
        str(tmp_path / ".tb_multiframework" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes([eventfiles.scalar_event("x", 1, 1.0, 1.0)]),
    )
    loader, store = _loader(tmp_path)
    loader.reload()
    assert store.runs() == []


def test_rewritten_and_removed_files_are_read_again_not_doubled(tmp_path):
    run_dir = tmp_path / "r"
    first = eventfiles.record_bytes(
        [eventfiles.scalar_event("loss", i, 1.0, float(i)) for i in range(10)]
    )
    eventfiles.write(str(run_dir / eventfiles.TORCH_NAME), first)
    eventfiles.write(
        str(tmp_path / "other" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes([eventfiles.scalar_event("x", 1, 1.0, 1.0)]),
    )
    loader, store = _loader(tmp_path)
    loader.reload()
    assert len(store.scalars("r", "loss")) == 10
    # Regenerated: the old file removed, a new one with 4 points written.
    os.remove(run_dir / eventfiles.TORCH_NAME)
    eventfiles.write(
        str(run_dir / (eventfiles.TORCH_NAME[:-1] + "7")),
        eventfiles.record_bytes(
            [
                eventfiles.scalar_event("loss", i, 2.0, -float(i))
                for i in range(4)
            ]
        ),
    )
    loader.reload()
    assert store.scalars("r", "loss").values.tolist() == [0.0, -1.0, -2.0, -3.0]
    (note,) = store.meta("r").warnings
    assert "removed: " + eventfiles.TORCH_NAME in note
    # Rewritten in place, shorter: read from the start again.
    eventfiles.write(
        str(run_dir / (eventfiles.TORCH_NAME[:-1] + "7")),
        eventfiles.record_bytes([eventfiles.scalar_event("loss", 0, 3.0, 9.0)]),
    )
    loader.reload()
    assert store.scalars("r", "loss").values.tolist() == [9.0]
    assert "rewritten" in store.meta("r").warnings[0]
    # Every file gone: the run goes; the other run is untouched.
    os.remove(run_dir / (eventfiles.TORCH_NAME[:-1] + "7"))
    loader.reload()
    assert store.runs() == ["other"]


def test_remote_logdir_goes_through_tensorboards_gfile():
    """A `memory://` logdir (fsspec) is read incrementally via gfile."""
    import fsspec

    fs = fsspec.filesystem("memory")
    path = "/tbmf-test/a/" + eventfiles.TORCH_NAME
    data = eventfiles.record_bytes(
        [eventfiles.scalar_event("loss", i, 1.0, float(i)) for i in range(5)]
    )
    try:
        with fs.open(path, "wb") as handle:
            handle.write(data[:-7])
        loader, store = _loader("memory://tbmf-test")
        loader.reload()
        assert store.runs() == ["a"]
        assert store.scalars("a", "loss").values.tolist() == [0, 1, 2, 3]
        with fs.open(path, "wb") as handle:
            handle.write(data)
        assert loader.reload().bytes_read == 7
        assert store.scalars("a", "loss").values.tolist() == [0, 1, 2, 3, 4]
    finally:
        fs.rm("/tbmf-test", recursive=True)


def test_a_short_tag_after_a_long_one_keeps_its_tag(tmp_path):
    """Issue 8's reproduction: the chunk's last record has the shortest tag.

    The vectorised reader once cut every tag at the longest tag's width and
    moved windows that ran past the chunk back inside it, so the last `loss`
    point was filed under a tag of binary garbage.
    """
    long_tag = "validation/accuracy_top1_whole_set"
    points = [("loss", 0, 0.5), (long_tag, 1, 0.75), ("loss", 1, 0.25)]
    eventfiles.write(
        str(tmp_path / "tb" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes(
            [eventfiles.file_version_event()]
            + [
                eventfiles.scalar_event(tag, step, 1.0 + step, value)
                for tag, step, value in points
            ]
        ),
    )
    eventfiles.write(
        str(tmp_path / "vdl" / "vdlrecords.1700000000.log"),
        eventfiles.vdl_records(
            [
                eventfiles.vdl_value(tag, step, 1000 + step, scalar=value)
                for tag, step, value in points
            ]
        ),
    )
    loader, store = _loader(tmp_path)
    loader.reload()
    for run in ("tb", "vdl"):
        assert sorted(store.summary(run).scalar_tags) == ["loss", long_tag]
        loss = store.scalars(run, "loss")
        assert loss.steps.tolist() == [0, 1]
        assert loss.values.tolist() == [0.5, 0.25]


# Names real writers produce (from their sources: TensorFlow's EventsWriter
# `%s.out.tfevents.%010lld.%s%s`, TensorBoard's/torch's EventFileWriter
# `events.out.tfevents.%010d.%s.%s.%s` + filename_suffix, tensorboardX
# `<prefix>.out.tfevents.<10 digits>.<host>` + filename_suffix, VisualDL
# `vdlrecords.%010d.log%s` or any `filename` containing `vdlrecords`).
WRITER_NAMES = {
    eventfiles.TORCH_NAME: "tfevents",
    eventfiles.TF_NAME: "tfevents",
    eventfiles.TBX_NAME: "tfevents",
    "events.out.tfevents.1700000000.node-3.cluster.example.com.99.1": "tfevents",
    "events.out.tfevents.1700000000.host.123.0.my_suffix": "tfevents",
    "events.out.tfevents.1700000000.host.profile-empty": "tfevents",
    "myprefix.out.tfevents.1700000000.host": "tfevents",
    "vdlrecords.1700000000.log": "visualdl",
    "vdlrecords.1700000000.log.rank0": "visualdl",
    "train.vdlrecords": "visualdl",
}
LOOK_ALIKES = {
    "x.tfevents.times.json": "not a log file name",
    "events.out.tfevents.json": "not a log file name",
    "tfevents_notes.txt": "not a log file name",
    "vdlrecords.1.log.gz": "a compressed file",
    eventfiles.TORCH_NAME + ".gz": "a compressed file",
}


def test_file_names_follow_the_writers_and_tensorboard():
    from tensorboard.backend.event_processing import io_wrapper

    from tb_multiframework.ingest.loader import classify_file_name

    for name, fmt in WRITER_NAMES.items():
        assert classify_file_name(name) == (fmt, ""), name
    # Every real file of the demo logdir (written by torch, TF, Keras,
    # tensorboardX and VisualDL) that TensorBoard or VisualDL would read.
    demo = os.path.join(os.path.dirname(__file__), "..", "..", "demo_logs")
    for _, _, names in os.walk(demo):
        for name in names:
            if io_wrapper.IsTensorFlowEventsFile(name) or "vdlrecords" in name:
                assert classify_file_name(name)[0] is not None, name
    for name, words in LOOK_ALIKES.items():
        fmt, why = classify_file_name(name)
        assert fmt is None and words in why, name
    assert classify_file_name("checkpoint.pt") == (None, "")


def test_look_alike_files_are_skipped_and_said_so(tmp_path):
    good = eventfiles.record_bytes(
        [eventfiles.scalar_event("loss", 1, 1.0, 2.0)]
    )
    eventfiles.write(str(tmp_path / "r" / eventfiles.TORCH_NAME), good)
    eventfiles.write(str(tmp_path / "r" / "x.tfevents.times.json"), b'{"a": 1}')
    vdl = eventfiles.vdl_records(
        [eventfiles.vdl_value("a", 1, 1000, scalar=1.0)]
    )
    eventfiles.write(str(tmp_path / "v" / "vdlrecords.1700000000.log"), vdl)
    import gzip

    eventfiles.write(
        str(tmp_path / "v" / "vdlrecords.1.log.gz"), gzip.compress(vdl)
    )
    eventfiles.write(str(tmp_path / "only_junk" / "y.tfevents.json"), b"{}")
    loader, store = _loader(tmp_path)
    loader.reload()
    assert store.runs() == ["r", "v"]
    assert store.meta("r").warnings == (
        "skipped x.tfevents.times.json: not a log file name (writers use "
        "<prefix>.out.tfevents.<seconds>.<host>...)",
    )
    assert store.meta("r").files == (eventfiles.TORCH_NAME,)
    assert store.meta("v").warnings == (
        "skipped vdlrecords.1.log.gz: a compressed file, not a log file",
    )
    assert store.scalars("v", "a").values.tolist() == [1.0]


def _points(first_step: int, count: int, value: float) -> bytes:
    return eventfiles.record_bytes(
        [eventfiles.file_version_event(wall=float(first_step))]
        + [
            eventfiles.scalar_event("loss", first_step + i, 1.0 + i, value)
            for i in range(count)
        ]
    )


def test_a_file_replaced_by_one_as_long_or_longer_is_read_again(tmp_path):
    """Issue 13: only shorter rewrites were noticed; a file renamed over
    (new inode) or truncated and rewritten (same inode) with as many bytes
    or more kept serving the old points, or old and new mixed."""
    path = tmp_path / "r" / eventfiles.TORCH_NAME
    eventfiles.write(str(path), _points(0, 10, 1.0))
    loader, store = _loader(tmp_path)
    loader.reload()
    assert store.scalars("r", "loss").values.tolist() == [1.0] * 10
    # Renamed over by a longer file.
    eventfiles.write(str(tmp_path / "new.tmp"), _points(100, 12, 2.0))
    os.replace(tmp_path / "new.tmp", path)
    loader.reload()
    series = store.scalars("r", "loss")
    assert series.values.tolist() == [2.0] * 12
    assert series.steps.tolist() == list(range(100, 112))
    (note,) = store.meta("r").warnings
    assert f"replaced by another file: {eventfiles.TORCH_NAME}" in note
    # Truncated and rewritten in place (same inode), exactly as long.
    inode = os.stat(path).st_ino
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(_points(200, 12, 3.0))
    assert os.stat(path).st_ino == inode
    loader.reload()
    assert store.scalars("r", "loss").values.tolist() == [3.0] * 12
    (note,) = store.meta("r").warnings
    assert "rewritten in place (first bytes changed)" in note
    # Appending is not a change: nothing is read twice, no note.
    eventfiles.write(
        str(path),
        eventfiles.record_bytes(
            [eventfiles.scalar_event("loss", 300, 1.0, 4.0)]
        ),
        mode="ab",
    )
    loader.reload()
    assert store.scalars("r", "loss").values.tolist() == [3.0] * 12 + [4.0]
    assert store.meta("r").warnings == (note,)


def test_replacement_is_seen_without_stable_inodes(tmp_path, monkeypatch):
    """Some filesystems give no inode: the first bytes still tell."""
    from tb_multiframework.ingest import logfile

    monkeypatch.setattr(logfile, "_identity", lambda stat: None)
    path = tmp_path / "r" / eventfiles.TORCH_NAME
    eventfiles.write(str(path), _points(0, 10, 1.0))
    loader, store = _loader(tmp_path)
    loader.reload()
    eventfiles.write(str(tmp_path / "new.tmp"), _points(100, 10, 2.0))
    os.replace(tmp_path / "new.tmp", path)
    loader.reload()
    assert store.scalars("r", "loss").values.tolist() == [2.0] * 10
    assert "rewritten in place" in store.meta("r").warnings[0]


def test_the_identity_check_reads_a_few_small_blocks_never_the_file(
    tmp_path, monkeypatch
):
    """Each reload checks a file's identity with a few small reads (head,
    tail, pending bytes, one block per factor of 4 of its size), never the
    whole file; growth reads only the new bytes."""

    from tb_multiframework.ingest import logfile

    path = tmp_path / "r" / eventfiles.TORCH_NAME
    eventfiles.write(str(path), _points(0, 3000, 1.0))
    size = os.path.getsize(path)
    loader, store = _loader(tmp_path)
    loader.reload()
    reads: list[int] = []

    class Counting:
        def __init__(self, handle):
            self._handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._handle.close()

        def __getattr__(self, name):
            return getattr(self._handle, name)

        def read(self, size=-1):
            data = self._handle.read(size)
            reads.append(len(data))
            return data

    real_open = logfile.open_regular
    real_pread = os.pread
    monkeypatch.setattr(
        logfile, "open_regular", lambda path: Counting(real_open(path))
    )

    def counting_pread(fd, n, offset):
        data = real_pread(fd, n, offset)
        reads.append(len(data))
        return data

    monkeypatch.setattr(os, "pread", counting_pread)
    loader.reload()
    # 4 KiB * 4**k below the size: a block each (an independent count).
    blocks = sum(1 for k in range(40) if 4096 * 4**k + 256 <= size)
    check = logfile.FINGERPRINT_BYTES + logfile.TAIL_BYTES + 256 * blocks
    assert sum(reads) == check < size / 20
    record = eventfiles.record_bytes(
        [eventfiles.scalar_event("loss", 5, 1.0, 4.0)]
    )
    eventfiles.write(str(path), record, mode="ab")
    reads.clear()
    loader.reload()
    assert sum(reads) == check + len(record)
    assert len(store.all_points("r", "loss")) == 3001


def test_a_remote_file_rewritten_longer_is_read_again():
    import fsspec

    fs = fsspec.filesystem("memory")
    path = "/tbmf-rewrite/a/" + eventfiles.TORCH_NAME
    try:
        with fs.open(path, "wb") as handle:
            handle.write(_points(0, 5, 1.0))
        loader, store = _loader("memory://tbmf-rewrite")
        loader.reload()
        assert store.scalars("a", "loss").values.tolist() == [1.0] * 5
        with fs.open(path, "wb") as handle:
            handle.write(_points(50, 9, 2.0))
        loader.reload()
        assert store.scalars("a", "loss").values.tolist() == [2.0] * 9
        (note,) = store.meta("a").warnings
        assert "rewritten in place (first bytes changed)" in note
        # Growing is not a change.
        with fs.open(path, "ab") as handle:
            handle.write(
                eventfiles.record_bytes(
                    [eventfiles.scalar_event("loss", 60, 1.0, 3.0)]
                )
            )
        loader.reload()
        assert store.scalars("a", "loss").values.tolist() == [2.0] * 9 + [3.0]
    finally:
        fs.rm("/tbmf-rewrite", recursive=True)


def _write_with_event_file_writer(run_dir, steps, value, suffix):
    """A file as torch's SummaryWriter writes it (TensorBoard's
    EventFileWriter, which torch.utils.tensorboard uses)."""
    from tensorboard.compat.proto import event_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(run_dir), filename_suffix=suffix)
    for step in steps:
        event = event_pb2.Event(wall_time=1.0 + step, step=int(step))
        event.summary.value.add(tag="loss", simple_value=value)
        writer.add_event(event)
    writer.close()
    (name,) = [n for n in os.listdir(run_dir) if n.endswith(suffix)]
    return name


def test_steps_logged_twice_by_a_resumed_run_are_a_warning(tmp_path):
    """Issue 13 part 6: a second file restarting below the first's last
    step. Every point stays; the warning names the steps and files."""
    run_dir = tmp_path / "resumed"
    first = _write_with_event_file_writer(run_dir, range(100), 1.0, ".a")
    loader, store = _loader(tmp_path)
    loader.reload()
    assert store.meta("resumed").warnings == ()
    second = _write_with_event_file_writer(run_dir, range(50, 150), 2.0, ".b")
    loader.reload()
    steps = store.scalars("resumed", "loss").steps
    assert len(steps) == 200  # nothing dropped
    twice = np.intersect1d(np.arange(100), np.arange(50, 150))
    (warning,) = store.meta("resumed").warnings
    assert warning == (
        f"steps {twice[0]}–{twice[-1]} logged twice (2 files: "
        f"{', '.join(sorted([first, second]))}; {len(twice)} distinct "
        "steps, 1 tag): a resumed or restarted run; every point is kept"
    )
    # The same answer from a cold read of both files.
    cold_loader, cold = _loader(tmp_path)
    cold_loader.reload()
    assert cold.meta("resumed").warnings == (warning,)


def test_a_step_logged_again_in_the_same_file_is_no_restart(tmp_path):
    """PyTorch Lightning logs `epoch` three times at each epoch's last step
    and the HF Trainer its `train/epoch` at several steps, in one file: by
    design, not a resumed run, so no warning (a restart opens a new file)."""
    eventfiles.write(
        str(tmp_path / "r" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes(
            [
                eventfiles.scalar_event("epoch", s, 1.0, 1.0)
                for s in (0, 1, 2, 2, 2, 3)
            ]
        ),
    )
    loader, store = _loader(tmp_path)
    loader.reload()
    assert store.scalars("r", "epoch").steps.tolist() == [0, 1, 2, 2, 2, 3]
    assert store.meta("r").warnings == ()


def test_only_steps_a_later_file_logs_again_are_counted(tmp_path):
    """A step repeated inside the first file (Lightning's epoch counter) is
    not counted; the steps the second file logs again are."""
    run_dir = tmp_path / "resumed"
    first = _write_with_event_file_writer(
        run_dir, [0, 1, 1, 1, 2, 3, 4], 1.0, ".a"
    )
    second = _write_with_event_file_writer(run_dir, [3, 4, 5], 2.0, ".b")
    loader, store = _loader(tmp_path)
    loader.reload()
    (warning,) = store.meta("resumed").warnings
    assert warning.startswith(
        f"steps 3–4 logged twice (2 files: {', '.join(sorted([first, second]))}"
        "; 2 distinct steps, 1 tag)"
    )


def test_steps_that_only_grow_across_files_are_no_warning(tmp_path):
    run_dir = tmp_path / "r"
    _write_with_event_file_writer(run_dir, range(0, 50), 1.0, ".a")
    _write_with_event_file_writer(run_dir, range(50, 100), 1.0, ".b")
    # Two tags at the same steps are not a repeat either.
    eventfiles.write(
        str(tmp_path / "t" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes(
            [
                eventfiles.scalar_event(t, s, 1.0, 1.0)
                for s in range(9)
                for t in "ab"
            ]
        ),
    )
    loader, store = _loader(tmp_path)
    loader.reload()
    assert store.meta("r").warnings == () and store.meta("t").warnings == ()
