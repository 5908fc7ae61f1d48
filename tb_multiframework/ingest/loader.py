"""Finding runs under a logdir and reading their files into the store.

Each file keeps its offset: a reload reads only bytes that arrived since, and
bytes of a record not yet complete stay pending until it is. Problems with a
file become warnings on its run; they never stop the other files.

Local files are read with the OS directly; remote logdirs (`gs://`, `s3://`,
...) through TensorBoard's gfile layer, so they work where TensorBoard's do.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import logging
import os
import posixpath
import threading
import time
from typing import Any, Callable, Iterator

from tb_multiframework.config import Config
from tb_multiframework.core.hparams import HParamSource
from tb_multiframework.ingest import (
    detect,
    hparams,
    tfevents,
    tfrecord,
    visualdl,
)
from tb_multiframework.ingest.attempts import AttemptTracker
from tb_multiframework.ingest.decoded import DecodedChunk
from tb_multiframework.ingest.periodic import PeriodicReload
from tb_multiframework.ingest.run_meta import describe_run
from tb_multiframework.store import RunMeta, Store

logger = logging.getLogger(__name__)

_READ_BYTES = 32 << 20  # bytes read from a file at once
_MAX_WARNINGS = 20  # per file; more are counted, not listed
_SKIPPED_DIRS = (".tb_multiframework",)
_MAX_LOGGED_HPARAMS = 20  # hparams summaries kept per run (the last ones)


def file_format(name: str) -> str | None:
    """ "tfevents", "visualdl" or None for a file name."""
    if "tfevents" in name:
        return "tfevents"
    if name.startswith("vdlrecords.") and ".log" in name:
        return "visualdl"
    return None


def _is_remote(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def _local(path: str) -> str:
    return path[len("file://") :] if path.startswith("file://") else path


def _gfile() -> Any:
    from tensorboard.compat import tf  # noqa: PLC0415 - heavy, remote only

    return tf.io.gfile


def _load_libc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None)
    except OSError:
        return None


_MALLOC_TRIM = _load_libc_trim()


def _release_freed_memory() -> None:
    """Returns memory freed by a reload's temporary arrays to the OS.

    glibc raises its mmap threshold after large frees, so later temporaries
    come from the heap and stay resident after being freed (~10 bytes per
    point loaded); `malloc_trim` hands them back. A no-op without glibc.
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


class _FileState:
    def __init__(self, path: str, name: str, fmt: str) -> None:
        self.path = path
        self.name = name
        self.format = fmt
        self.offset = 0  # bytes of the file consumed into records
        self.pending = b""  # bytes read past `offset`, not yet a record
        self.damaged_tail = False  # `pending` follows corrupt bytes
        self.problems: list[str] = []
        self.dropped_problems = 0
        self.remote_handle: Any = None

    def note(self, problem: str) -> None:
        if len(self.problems) < _MAX_WARNINGS:
            self.problems.append(problem)
        else:
            self.dropped_problems += 1

    def warnings(self) -> list[str]:
        out = [f"{self.name}: {problem}" for problem in self.problems]
        if self.dropped_problems:
            out.append(f"{self.name}: {self.dropped_problems} more problems")
        if self.pending and not self.damaged_tail:
            out.append(
                f"{self.name}: ends with an incomplete record "
                f"({len(self.pending)} bytes; still being written, or the "
                "writer stopped); it is read once complete"
            )
        return out

    def shrank(self) -> bool:
        """Whether the file is now shorter than what was read (rewritten).

        Only checked for local files: a remote stat per file per reload
        costs a request.
        """
        if _is_remote(self.path):
            return False
        try:
            size = os.path.getsize(_local(self.path))
        except OSError:
            return False
        return size < self.offset + len(self.pending)

    def read_new(self) -> Iterator[bytes]:
        """Yields the bytes that arrived since the last read, in pieces."""
        if _is_remote(self.path):
            if self.remote_handle is None:
                self.remote_handle = _gfile().GFile(self.path, "rb")
            while True:
                data = self.remote_handle.read(_READ_BYTES)
                if not data:
                    return
                yield data
        with open(_local(self.path), "rb") as handle:
            handle.seek(self.offset + len(self.pending))
            while True:
                data = handle.read(_READ_BYTES)
                if not data:
                    return
                yield data


class _RunState:
    def __init__(self, run: str) -> None:
        self.run = run
        self.files: dict[str, _FileState] = {}
        self.tags: set[str] = set()
        self.other_tags: dict[str, set[str]] = {}
        self.display_names: dict[str, str] = {}
        self.plugins = tfevents.TagPlugins()
        self.run_display_name = ""
        self.source_writers: set[str] = set()
        self.notes: list[str] = []
        self.logged_hparams: list[HParamSource] = []
        # side file name -> ((mtime, size), source or None, problem)
        self.side_files: dict[str, tuple[Any, HParamSource | None, str]] = {}
        self.attempts = AttemptTracker()

    @property
    def format(self) -> str:
        formats = {state.format for state in self.files.values()}
        return "visualdl" if formats == {"visualdl"} else "tfevents"


@dataclasses.dataclass(frozen=True)
class LogRoot:
    """A directory whose runs are read, named as TensorBoard names them.

    Attributes:
      path: the directory (local path or URL).
      prefix: prepended to run names, as `--logdir_spec name:path` does
        (`name/<run path under it>`); a run in the directory itself is
        named `name` (TensorBoard shows `name/.`). "" for `--logdir`.
    """

    path: str
    prefix: str = ""

    def run_name(self, relative: str) -> str:
        if not self.prefix:
            return relative
        return self.prefix if relative == "." else f"{self.prefix}/{relative}"


@dataclasses.dataclass(frozen=True)
class ReloadStats:
    seconds: float
    bytes_read: int
    records: int
    runs: int


class Loader(PeriodicReload):
    """Reads every run under `logdir` into `store`, incrementally.

    Args:
      logdir: the directory TensorBoard was given.
      store: where the data goes.
      config: returns the current user config (overrides).
      cache: restores runs at the first reload and saves what reloads read
        (`cache.loader_cache.LoaderCache`); None for no cache.
      roots: directories to read instead of `logdir`, each with its run
        name prefix (TensorBoard's `--logdir_spec`).
    """

    def __init__(
        self,
        logdir: str,
        store: Store,
        *,
        config: Callable[[], Config],
        roots: tuple[LogRoot, ...] = (),
        cache: Any = None,
    ) -> None:
        super().__init__()
        self._cache = cache  # a cache.loader_cache.LoaderCache, or None
        self._roots = tuple(
            LogRoot(root.path.rstrip("/") or "/", root.prefix)
            for root in (roots or (LogRoot(logdir),))
        )
        self._store = store
        self._config = config
        self._runs: dict[str, _RunState] = {}
        self._notes: dict[str, list[str]] = {}  # for runs read again
        self._lock = threading.Lock()  # one reload at a time
        self._progress: Callable[[int, int], None] | None = None
        self._progress_done = self._progress_total = 0  # bytes
        self.last_stats: ReloadStats | None = None

    def reload(
        self, progress: Callable[[int, int], None] | None = None
    ) -> ReloadStats:
        """Discovers new runs and files and reads every new byte.

        Args:
          progress: called as `progress(bytes_read, bytes_to_read)` after
            every piece read (remote files count as 0 bytes to read).
        """
        with self._lock:
            started = time.monotonic()
            bytes_read = records = 0
            found = list(self._discover())
            if self._cache is not None:
                self._cache.restore(self, {run for run, *_ in found})
            self._forget_changed_runs(found)
            self._progress = progress
            self._progress_done = 0
            self._progress_total = 0
            if progress is not None:
                self._progress_total = self._bytes_to_read(found)
            for run, name, path, fmt in found:
                state = self._runs.get(run)
                if state is None:
                    state = self._runs[run] = _RunState(run)
                    state.notes = self._notes.pop(run, [])
                if name not in state.files:
                    state.files[name] = _FileState(path, name, fmt)
            for state in self._runs.values():
                if not self._store.has_run(state.run):
                    self._store.set_meta(self._meta(state))
                for file_state in sorted(
                    state.files.values(), key=lambda f: f.name
                ):
                    read, count = self._read_file(state, file_state)
                    bytes_read += read
                    records += count
                if self._cache is not None:
                    self._cache.checkpoint(self)
            self._progress = None
            # Parents before their sub-runs, which take the parent's group.
            metas: dict[str, RunMeta] = {}
            for run in sorted(self._runs):
                _read_side_files(self._runs[run])
                metas[run] = self._meta(self._runs[run], metas)
                self._store.set_meta(metas[run])
            self._store.compact()
            if self._cache is not None:
                self._cache.persist(self)
            if bytes_read:
                _release_freed_memory()
            stats = ReloadStats(
                seconds=time.monotonic() - started,
                bytes_read=bytes_read,
                records=records,
                runs=len(self._runs),
            )
            self.last_stats = stats
            return stats

    def _forget_changed_runs(
        self, found: list[tuple[str, str, str, str]]
    ) -> None:
        """Drops runs whose files were removed or shrank, to read them anew.

        A regenerated or cleaned-up run must not show old points beside new
        ones (nor twice): its data is dropped and every current file read
        from the start. A run with no files left disappears.
        """
        current: dict[str, set[str]] = {}
        for run, name, _, _ in found:
            current.setdefault(run, set()).add(name)
        for run, state in list(self._runs.items()):
            names = current.get(run, set())
            removed = sorted(set(state.files) - names)
            shrank = sorted(
                f.name
                for f in state.files.values()
                if f.name in names and f.shrank()
            )
            if not removed and not shrank:
                continue
            del self._runs[run]
            self._store.remove_run(run)
            if names:
                what = "; ".join(
                    part
                    for part in (
                        removed and f"removed: {', '.join(removed)}",
                        shrank and f"rewritten: {', '.join(shrank)}",
                    )
                    if part
                )
                self._notes[run] = [
                    f"files changed on disk ({what}); the run was read again "
                    f"at {time.strftime('%H:%M:%S')}"
                ]

    def runs_on_disk(self) -> list[str]:
        """Names of the runs under the roots now, without reading them."""
        return sorted({run for run, _, _, _ in self._discover()})

    def _bytes_to_read(self, found: list[tuple[str, str, str, str]]) -> int:
        """Bytes of local files not read yet (for progress reports)."""
        total = 0
        for run, name, path, _ in found:
            if _is_remote(path):
                continue
            state = self._runs.get(run)
            done = state.files.get(name) if state else None
            try:
                size = os.path.getsize(_local(path))
            except OSError:
                continue
            if done is not None:
                size -= done.offset + len(done.pending)
            total += max(size, 0)
        return total

    def _discover(self) -> Iterator[tuple[str, str, str, str]]:
        """(run, file name, path, format) of every log file under the roots."""
        for log_root in self._roots:
            if _is_remote(log_root.path):
                walk: Iterator[tuple[str, list[str], list[str]]] = (
                    _gfile().walk(log_root.path)
                )
            else:
                walk = os.walk(_local(log_root.path))
            root = _local(log_root.path)
            for directory, subdirs, names in walk:
                subdirs[:] = sorted(
                    d for d in subdirs if d not in _SKIPPED_DIRS
                )
                relative = posixpath.relpath(
                    _local(directory).replace(os.sep, "/"),
                    root.replace(os.sep, "/"),
                )
                run = log_root.run_name(relative)
                for name in sorted(names):
                    fmt = file_format(name)
                    if fmt is not None:
                        path = posixpath.join(directory, name)
                        yield run, name, path, fmt

    def _read_file(
        self, state: _RunState, file_state: _FileState
    ) -> tuple[int, int]:
        """Reads what arrived in one file; returns (bytes, records)."""
        bytes_read = records = 0
        try:
            for data in file_state.read_new():
                bytes_read += len(data)
                records += self._consume(
                    state, file_state, file_state.pending + data
                )
                if self._progress is not None:
                    self._progress_done += len(data)
                    self._progress(self._progress_done, self._progress_total)
        except OSError as error:
            file_state.note(f"cannot read: {error.strerror or error}")
        return bytes_read, records

    def _consume(
        self, state: _RunState, file_state: _FileState, buf: bytes
    ) -> int:
        """Frames and decodes `buf`; keeps what is not yet a whole record."""
        if file_state.format == "visualdl":
            starts, lengths, consumed, problems = visualdl.frame_records(
                buf, file_offset=file_state.offset
            )
            chunk = visualdl.decode_records(buf, starts, lengths)
        else:
            framing = tfrecord.frame_records(buf, file_offset=file_state.offset)
            starts, lengths = framing.starts, framing.lengths
            consumed, problems = framing.consumed, list(framing.problems)
            file_state.damaged_tail = framing.damaged_tail
            chunk = tfevents.decode_records(buf, starts, lengths, state.plugins)
        for problem in [*problems, *chunk.problems]:
            file_state.note(problem)
        file_state.offset += consumed
        file_state.pending = buf[consumed:]
        self._store_chunk(state, chunk, file_state.name)
        return len(starts)

    def _store_chunk(
        self, state: _RunState, chunk: DecodedChunk, file: str = ""
    ) -> None:
        run = state.run
        attempts, restarts = state.attempts.assign(
            chunk.scalar_tags,
            chunk.scalar_tag_ids,
            chunk.steps,
            chunk.wall_times,
            chunk.scalar_records,
            chunk.session_starts,
            file=file,
        )
        for tag, indices in chunk.scalar_groups():
            self._store.append_scalars(
                run,
                tag,
                chunk.steps[indices],
                chunk.wall_times[indices],
                chunk.values[indices],
                attempts=attempts[indices],
            )
            state.tags.add(tag)
        for step, before in restarts:
            self._store.add_session_start(run, step, before)
        for tag, items in chunk.histograms.items():
            self._store.append_histograms(
                run,
                tag,
                [h.step for h in items],
                [h.wall_time for h in items],
                [h.edges for h in items],
                [h.counts for h in items],
            )
            state.tags.add(tag)
        for step, layout in chunk.layouts:
            self._store.add_layout(run, step, layout)
        for kind, tags in chunk.other_tags.items():
            state.other_tags.setdefault(kind, set()).update(tags)
            state.tags.update(tags)
        state.display_names.update(chunk.display_names)
        if chunk.hparams:
            state.logged_hparams.extend(chunk.hparams)
            del state.logged_hparams[:-_MAX_LOGGED_HPARAMS]
        state.source_writers.update(chunk.source_writers)
        if chunk.run_display_name:
            state.run_display_name = chunk.run_display_name

    def _meta(
        self, state: _RunState, parents: dict[str, RunMeta] | None = None
    ) -> RunMeta:
        detection = detect.detect_run(
            state.run,
            format=state.format,
            file_names=state.files,
            tags=state.tags,
            source_writers=state.source_writers,
        )
        warnings: list[str] = list(state.notes)
        for file_state in sorted(state.files.values(), key=lambda f: f.name):
            warnings.extend(file_state.warnings())
        side = [state.side_files[name] for name in sorted(state.side_files)]
        warnings.extend(problem for _, _, problem in side if problem)
        return describe_run(
            detection,
            run=state.run,
            format=state.format,
            store=self._store,
            other_tags=state.other_tags,
            side_files=state.side_files,
            parents=parents,
            config=self._config(),
            files=tuple(sorted(state.files)),
            warnings=tuple(warnings),
            display_names=dict(state.display_names),
            display_name=state.run_display_name,
            hparams=tuple(
                [source for _, source, _ in side if source is not None]
                + state.logged_hparams
            ),
            attempt_starts=tuple(state.attempts.starts),
        )


def _read_side_files(state: _RunState) -> None:
    """(Re-)reads the settings files of a run's directory that changed.

    One `stat` per known file name per reload; a file is parsed again only
    when its modification time or size moved. Remote logdirs are skipped
    (a request per name per run per reload would cost more than it gives).
    """
    paths = [f.path for f in state.files.values()]
    if not paths or _is_remote(paths[0]):
        return
    directory = os.path.dirname(_local(paths[0]))
    for name in hparams.SIDE_FILES:
        path = os.path.join(directory, name)
        try:
            stat = os.stat(path)
        except OSError:
            state.side_files.pop(name, None)
            continue
        stamp = (stat.st_mtime_ns, stat.st_size)
        known = state.side_files.get(name)
        if known is not None and known[0] == stamp:
            continue
        source, problem = hparams.read_side_file(path, name)
        state.side_files[name] = (stamp, source, problem)
