"""Finding runs under a logdir and reading their files into the store.

Each file keeps its offset: a reload reads only bytes that arrived since, and
bytes of a record not yet complete stay pending until it is. Problems with a
file become warnings on its run; they never stop the other files.

Local files are read with the OS directly; remote logdirs (`gs://`, `s3://`,
...) through TensorBoard's gfile layer, so they work where TensorBoard's do.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import posixpath
import re
import threading
import time
from typing import Any, Callable, Iterator

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
from tb_multiframework.ingest.logfile import (
    LogFile,
    Rewritten,
    gfile,
    is_remote,
    local,
)
from tb_multiframework.ingest.periodic import PeriodicReload
from tb_multiframework.ingest.repeats import StepRepeats
from tb_multiframework.ingest.run_meta import describe_run
from tb_multiframework.settings.config import Config
from tb_multiframework.settings.regular import not_regular_reason
from tb_multiframework.store.allocator import release_freed_memory
from tb_multiframework.store.store import RunMeta, Store

logger = logging.getLogger(__name__)

_SKIPPED_DIRS = (".tb_multiframework",)
_MAX_LOGGED_HPARAMS = 20  # hparams summaries kept per run (the last ones)
_MAX_PROBLEMS = 50  # logdir problems listed; more are counted
# Longest tag read, in UTF-8 bytes: every tag listed must fit in a request
# URL (percent-encoded, up to 3 characters a byte, two tags in one request
# under the 64 KiB request line of TensorBoard's server), so the routes
# accept every tag they list. Longer tags are skipped with a warning.
MAX_TAG_BYTES = 8192


# Every tfevents writer names its files `<prefix>.out.tfevents.<seconds>.
# <host><suffix>` (TensorFlow's EventsWriter, TensorBoard's and torch's
# EventFileWriter, tensorboardX), the prefix being `events` unless set.
_TFEVENTS_NAME = re.compile(r".+\.out\.tfevents\.\d+\.")
# Suffixes of compressed or archived copies: never a record stream.
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".lz4", ".zip", ".tar", ".tgz")


def file_format(name: str) -> str | None:
    """ "tfevents", "visualdl" or None for a file name."""
    return classify_file_name(name)[0]


def classify_file_name(name: str) -> tuple[str | None, str]:
    """(format or None, why a name that looks like a log is not read).

    TensorBoard reads any name containing `tfevents`, VisualDL any name
    containing `vdlrecords`; files such as `x.tfevents.times.json` or
    `vdlrecords.1.log.gz` then fill a run with corrupt-data warnings. A name
    is read when it has a writer's shape: tfevents as above, VisualDL's
    `vdlrecords.<seconds>.log<suffix>` or any name containing `vdlrecords`
    (its `LogWriter(filename=...)` insists on that word), and is not a
    compressed copy. The reason is empty for names that look like no log.
    """
    if "tfevents" in name:
        looks = "tfevents"
    elif "vdlrecords" in name:
        looks = "visualdl"
    else:
        return None, ""
    if name.lower().endswith(_COMPRESSED):
        return None, "a compressed file, not a log file"
    if looks == "tfevents" and not _TFEVENTS_NAME.match(name):
        return None, (
            "not a log file name (writers use "
            "<prefix>.out.tfevents.<seconds>.<host>...)"
        )
    return looks, ""


class _RunState:
    def __init__(self, run: str) -> None:
        self.run = run
        self.files: dict[str, LogFile] = {}
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
        self.skipped: dict[str, str] = {}  # file name -> why it is not read
        self.repeats = StepRepeats()

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
        # Problems of the logdir itself: unlistable directories, runs whose
        # every file is skipped (shown in `GET runs` errors).
        self.problems: tuple[str, ...] = ()

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
            found, skipped = self._discover()
            if self._cache is not None:
                self._cache.restore(self, found)
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
                    state.files[name] = LogFile(path, name, fmt)
            for state in self._runs.values():
                state.skipped = skipped.get(state.run, {})
            for run in list(self._runs):
                read, count = self._read_run(run)
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
                release_freed_memory()
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
        """Drops runs whose files were removed or changed, to read them anew.

        A regenerated or cleaned-up run must not show old points beside new
        ones (nor twice): its data is dropped and every current file read
        from the start. A run with no files left disappears. A file counts
        as changed when it shrank, or when it was replaced or rewritten in
        place whatever its new size (see `logfile`).
        """
        current: dict[str, set[str]] = {}
        for run, name, _, _ in found:
            current.setdefault(run, set()).add(name)
        for run, state in list(self._runs.items()):
            names = current.get(run, set())
            changes: dict[str, list[str]] = {}
            for name in sorted(state.files):
                change = state.files[name].change() if name in names else ""
                if name not in names:
                    changes.setdefault("removed", []).append(name)
                elif change:
                    changes.setdefault(change, []).append(name)
            if not changes:
                continue
            del self._runs[run]
            self._store.remove_run(run)
            if names:
                self._notes[run] = [_reread_note(changes)]

    def runs_on_disk(self) -> list[str]:
        """Names of the runs under the roots now, without reading them."""
        return sorted({run for run, _, _, _ in self._discover()[0]})

    def _bytes_to_read(self, found: list[tuple[str, str, str, str]]) -> int:
        """Bytes of local files not read yet (for progress reports)."""
        total = 0
        for run, name, path, _ in found:
            if is_remote(path):
                continue
            state = self._runs.get(run)
            done = state.files.get(name) if state else None
            try:
                size = os.path.getsize(local(path))
            except OSError:
                continue
            if done is not None:
                size -= done.offset + len(done.pending)
            total += max(size, 0)
        return total

    def _read_run(self, run: str) -> tuple[int, int]:
        """Reads what arrived in a run's files; returns (bytes, records).

        A remote file found rewritten while being read (its first bytes
        changed) makes the run be dropped and read again from the start.
        """
        bytes_read = records = 0
        for attempt in range(2):
            state = self._runs[run]
            if not self._store.has_run(run):
                self._store.set_meta(self._meta(state))
            try:
                for file_state in sorted(
                    state.files.values(), key=lambda f: f.name
                ):
                    read, count = self._read_file(state, file_state)
                    bytes_read += read
                    records += count
                break
            except Rewritten as rewritten:
                self._store.remove_run(run)
                fresh = self._runs[run] = _RunState(run)
                fresh.skipped = state.skipped
                fresh.files = {
                    name: LogFile(f.path, name, f.format)
                    for name, f in state.files.items()
                }
                fresh.notes = [_reread_note({"rewritten": [str(rewritten)]})]
                if attempt:
                    fresh.notes.append("it changed again while being read")
        return bytes_read, records

    def _discover(
        self,
    ) -> tuple[list[tuple[str, str, str, str]], dict[str, dict[str, str]]]:
        """Log files under the roots, and look-alikes that are not read.

        Only regular files are read: a FIFO named like a log would block
        the reload forever, a symlink to `/dev/zero` never end. Directories
        that cannot be listed and runs with nothing readable are noted in
        `problems`.

        Returns:
          (run, file name, path, format) of every log file, and per run the
          names that look like logs but are not ({name: why}).
        """
        found: list[tuple[str, str, str, str]] = []
        skipped: dict[str, dict[str, str]] = {}
        problems: list[str] = []
        for run, name, path in self._walk(problems):
            fmt, why = classify_file_name(name)
            if fmt is not None and not is_remote(path):
                why = _not_regular(local(path))
                fmt = None if why else fmt
            if fmt is not None:
                found.append((run, name, path, fmt))
            elif why:
                skipped.setdefault(run, {})[name] = why
        readable = {run for run, *_ in found}
        for run in sorted(set(skipped) - readable):
            problems.extend(
                f"run {run!r}: skipped {name}: {why}"
                for name, why in sorted(skipped[run].items())
            )
        self.problems = tuple(problems[:_MAX_PROBLEMS]) + (
            (f"{len(problems) - _MAX_PROBLEMS} more problems",)
            if len(problems) > _MAX_PROBLEMS
            else ()
        )
        return files_as_ranks(found, self._config()), skipped

    def _walk(self, problems: list[str]) -> Iterator[tuple[str, str, str]]:
        """(run, file name, path) of every file under the roots.

        A directory that cannot be listed (permissions) is noted in
        `problems`, never skipped silently.
        """

        def unreadable(error: OSError) -> None:
            where = error.filename or "?"
            problems.append(
                f"cannot list {where}: {error.strerror or error}; the runs "
                "in it are not read"
            )

        for log_root in self._roots:
            if is_remote(log_root.path):
                walk: Iterator[tuple[str, list[str], list[str]]] = gfile().walk(
                    log_root.path
                )
            else:
                walk = os.walk(local(log_root.path), onerror=unreadable)
            root = local(log_root.path)
            for directory, subdirs, names in walk:
                subdirs[:] = sorted(
                    d for d in subdirs if d not in _SKIPPED_DIRS
                )
                relative = posixpath.relpath(
                    local(directory).replace(os.sep, "/"),
                    root.replace(os.sep, "/"),
                )
                run = log_root.run_name(relative)
                for name in sorted(names):
                    yield run, name, posixpath.join(directory, name)

    def _read_file(
        self, state: _RunState, file_state: LogFile
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
        self, state: _RunState, file_state: LogFile, buf: bytes
    ) -> int:
        """Frames and decodes `buf`; keeps what is not yet a whole record."""
        where = {
            "file_offset": file_state.offset,
            "search_from": file_state.searched,
        }
        if file_state.format == "visualdl":
            framing = visualdl.frame(buf, **where)
            chunk = visualdl.decode_records(
                buf, framing.starts, framing.lengths
            )
        else:
            framing = tfrecord.frame_records(
                buf, before=file_state.consumed_tail, **where
            )
            chunk = tfevents.decode_records(
                buf, framing.starts, framing.lengths, state.plugins
            )
        starts = framing.starts
        for problem in [*framing.problems, *chunk.problems]:
            file_state.note(problem)
        consumed = framing.consumed
        file_state.advance(buf, consumed)
        file_state.damaged_tail = framing.damaged_tail
        file_state.need = framing.need
        file_state.searched = max(0, framing.searched - consumed)
        self._store_chunk(state, chunk, file_state)
        return len(starts)

    def _store_chunk(
        self, state: _RunState, chunk: DecodedChunk, file_state: Any = None
    ) -> None:
        file = "" if file_state is None else file_state.name
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
            if _too_long(tag, len(indices), "points", file_state):
                continue
            state.repeats.add(
                file, tag, chunk.steps[indices], chunk.wall_times[indices]
            )
            self._store.append_scalars(
                run,
                tag,
                chunk.steps[indices],
                chunk.wall_times[indices],
                chunk.values[indices],
                attempts=attempts[indices],
            )
            state.tags.add(tag)
        for step, before, low in restarts:
            self._store.add_session_start(run, step, before, low_point=low)
        for tag, items in chunk.histograms.items():
            if _too_long(tag, len(items), "histograms", file_state):
                continue
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
            tags = {t for t in tags if len(t.encode("utf-8", "replace")) <= MAX_TAG_BYTES}
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
        repeated = state.repeats.warning(
            lambda tag: self._store.scalars(state.run, tag).steps
        )
        if repeated:
            warnings.append(repeated)
        warnings.extend(
            f"skipped {name}: {why}"
            for name, why in sorted(state.skipped.items())
        )
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
            file_spans=tuple(state.repeats.file_spans()),
            repeated_files=tuple(state.repeats.repeated_files()),
        )


def files_as_ranks(
    found: list[tuple[str, str, str, str]], config: Config
) -> list[tuple[str, str, str, str]]:
    """Each log file of a run with `filesAsRanks` set becomes its own run.

    Several processes (DDP ranks) writing one directory interleave their
    points; read apart, each file is a run `<run>/rank_<k>` (k in file-name
    order, not the process' own rank), and the group rules put the ranks
    together (core/groups.py: sibling `rank_<k>` runs).
    """
    by_run: dict[str, list[tuple[str, str, str, str]]] = {}
    for item in found:
        by_run.setdefault(item[0], []).append(item)
    out = []
    for run, items in by_run.items():
        if len(items) < 2 or not config.for_run(run).files_as_ranks:
            out.extend(items)
            continue
        for rank, (_, name, path, fmt) in enumerate(
            sorted(items, key=lambda item: item[1])
        ):
            label = f"rank_{rank}"
            out.append(
                (label if run == "." else f"{run}/{label}", name, path, fmt)
            )
    return out


def _too_long(tag: str, count: int, what: str, file_state: Any) -> bool:
    """Whether a tag is too long to serve (noted on its file if so)."""
    size = len(tag.encode("utf-8", "replace"))
    if size <= MAX_TAG_BYTES:
        return False
    if file_state is not None:
        file_state.note(
            f"tag {tag[:60]!r}... of {size:,} bytes not read: longer than "
            f"{MAX_TAG_BYTES:,} bytes; {count:,} {what} skipped"
        )
    return True


def _not_regular(path: str) -> str:
    """Why a log file name is not read as one (not a regular file), or ""."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""  # gone or unreadable: reading it says so
    return not_regular_reason(mode)


def _read_side_files(state: _RunState) -> None:
    """(Re-)reads the settings files of a run's directory that changed.

    One `stat` per known file name per reload; a file is parsed again only
    when its modification time or size moved. Remote logdirs are skipped
    (a request per name per run per reload would cost more than it gives).
    """
    paths = [f.path for f in state.files.values()]
    if not paths or is_remote(paths[0]):
        return
    directory = os.path.dirname(local(paths[0]))
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


_CHANGE_WORDS = {
    "removed": "removed",
    "replaced": "replaced by another file",
    "shrank": "rewritten shorter",
    "rewritten": "rewritten in place (first bytes changed)",
}


def _reread_note(changes: dict[str, list[str]]) -> str:
    what = "; ".join(
        f"{_CHANGE_WORDS[kind]}: {', '.join(names)}"
        for kind, names in changes.items()
    )
    return (
        f"files changed on disk ({what}); the run was read again at "
        f"{time.strftime('%H:%M:%S')}"
    )
