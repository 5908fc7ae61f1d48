"""The persistent cache: what was read from a logdir, kept across restarts.

Layout, under the cache directory (`--tbmf_cache_dir`, default
`$XDG_CACHE_HOME/tb_multiframework`, i.e. `~/.cache/tb_multiframework`):
```
<sha256 of the logdir's real path, 16 hex>/
  logdir.txt           the logdir, for people
  index.json           {"format", "plugin", "logdir", "runs": {run: Entry}}
  lock                 flock()ed by a process writing
  <run hash>-<generation>-<n>.seg   a run's segments (see segments.py)
```
An `Entry` is `{"generation", "segments": [names], "progress", "state"}`:
the run's segments in order (a full one, then the deltas of later reloads),
how much of the run they hold, and the reader's state to continue from
(`state` is the loader's: per file its path, identity, size, mtime, offset,
pending bytes, problems; per run its tag -> plugin map and metadata).

Concurrency: segments are immutable and renamed into place; the index is
rewritten whole (temporary file + rename) under an exclusive `flock`, after
re-reading it, so two TensorBoards on one logdir never lose each other's
entries or corrupt a file. A process extends an entry with a delta only if
its segments are still the ones this process wrote or read; otherwise the
entry that holds more of the run wins (rewritten whole, a new generation).
Segments no entry names are deleted
after `_ORPHAN_SECONDS` (a reader that just read the old index may still
open them).

Nothing read from here is trusted: a bad index, a missing or corrupt
segment, another format version or plugin version drops the entry (or the
cache) with a log line, and the run is read from its files. Every entry is
bound to its logdir and run: the index names the logdir's real path (a
cache copied from another logdir is not used), each segment's header names
the logdir and the run it holds (an index whose segment lists were swapped
or edited drops those entries), and the loader uses a reader state only
when its files are that run's files (`loader_cache`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import time
import uuid
from typing import Any, Iterator, Mapping

import numpy as np

from tb_multiframework import __version__
from tb_multiframework.cache.runs import Progress, export_run, import_segments
from tb_multiframework.cache.segments import (
    FORMAT_VERSION,
    CacheError,
    read_segment,
    write_segment,
)
from tb_multiframework.store.store import Store

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

_INDEX = "index.json"
_LOCK = "lock"
_MAX_SEGMENTS = 16  # a run's deltas before it is rewritten as one segment
_ORPHAN_SECONDS = 600.0  # unreferenced segments older than this are removed
_MAX_INDEX_BYTES = 256 << 20  # a larger index is not read
DISABLED = ("none", "off", "false", "0")  # --tbmf_cache_dir values


def default_cache_root() -> str:
    """`$XDG_CACHE_HOME/tb_multiframework`, or `~/.cache/tb_multiframework`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    return os.path.join(base, "tb_multiframework")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class LogdirCache:
    """The cache entries of one logdir.

    Args:
      root: the cache directory (all logdirs).
      logdir: a local logdir.

    Raises:
      OSError: the cache directory cannot be created.
    """

    def __init__(self, root: str, logdir: str) -> None:
        real = os.path.realpath(logdir)
        self.logdir = real
        self.directory = os.path.join(root, _digest(real)[:16])
        os.makedirs(self.directory, exist_ok=True)
        label = os.path.join(self.directory, "logdir.txt")
        if not os.path.exists(label):
            with open(label, "w", encoding="utf-8") as out:
                out.write(real + "\n")
        self._entries: dict[str, dict[str, Any]] = {}  # as last read
        # run -> its segments as this process last read or wrote them: only
        # then may it append a delta (else another process wrote since).
        self._mine: dict[str, tuple[str, ...]] = {}
        self._progress: dict[str, Progress] = {}
        self.dropped: list[str] = []  # why entries were not used
        self._stale: set[str] = set()  # dropped entries, removed at a write
        self._entries = self._read_index()

    # Reading.

    def _read_index(self) -> dict[str, dict[str, Any]]:
        path = os.path.join(self.directory, _INDEX)
        try:
            with open(path, "rb") as handle:
                raw = handle.read(_MAX_INDEX_BYTES + 1)
        except FileNotFoundError:
            return {}
        except OSError as error:
            self._drop("", f"index unreadable: {error}")
            return {}
        try:
            index = json.loads(raw)
            if len(raw) > _MAX_INDEX_BYTES:
                raise ValueError("index too large")
            if index.get("format") != FORMAT_VERSION:
                raise ValueError(f"cache format {index.get('format')!r}")
            if index.get("plugin") != __version__:
                raise ValueError(f"written by plugin {index.get('plugin')!r}")
            if index.get("logdir") != self.logdir:
                raise ValueError(
                    f"written for the logdir {index.get('logdir')!r}, not "
                    f"{self.logdir!r}"
                )
            runs = index["runs"]
            if not isinstance(runs, dict):
                raise ValueError("no runs table")
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            self._drop("", f"index not used: {error}")
            return {}
        return runs

    def entry_state(self, run: str) -> Any:
        """The reader state cached for `run`, or None."""
        entry = self._entries.get(run)
        return None if entry is None else entry.get("state")

    def restore(self, run: str, store: Store) -> bool:
        """Puts `run`'s cached series into the store (which has the run,
        empty); False (and nothing added) when the entry is unusable."""
        entry = self._entries.get(run)
        if entry is None:
            return False
        try:
            names = [str(name) for name in entry["segments"]]
            segments = [
                read_segment(os.path.join(self.directory, name))
                for name in names
            ]
            for name, (meta, _) in zip(names, segments):
                owner = meta.get("owner") if isinstance(meta, dict) else None
                if owner != {"logdir": self.logdir, "run": run}:
                    raise CacheError(f"{name} holds {owner!r}, not this run")
        except (CacheError, OSError, KeyError, TypeError) as error:
            self._drop(run, str(error))
            return False
        meta = store.meta(run)
        try:
            progress = import_segments(store, run, segments)
        except ValueError as error:
            self._drop(run, str(error))
            store.remove_run(run)  # whatever was restored before the error
            store.set_meta(meta)
            return False
        self._mine[run] = tuple(names)
        self._progress[run] = progress
        return True

    def forget(self, run: str, why: str) -> None:
        """Stops using `run`'s entry (and removes it at the next write)."""
        self._drop(run, why)

    def _drop(self, run: str, why: str) -> None:
        message = f"cache entry {run!r} dropped: {why}" if run else why
        logger.warning(
            "tb_multiframework cache %s: %s", self.directory, message
        )
        self.dropped.append(message)
        if run:
            self._stale.add(run)
        self._entries.pop(run, None)
        self._mine.pop(run, None)
        self._progress.pop(run, None)

    # Writing.

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with open(os.path.join(self.directory, _LOCK), "a+b") as handle:
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                if fcntl is not None:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def persist(
        self, store: Store, states: Mapping[str, Any], forget: set[str]
    ) -> None:
        """Writes what `states`' runs gained, and drops `forget`'s entries.

        Args:
          store: where the runs' series are.
          states: run -> reader state (JSON-able, with a numeric
            "consumed" key: bytes of the run's files read).
          forget: runs whose entries must go (re-read or removed).

        Raises:
          OSError: writing failed; the index on disk is unchanged.
        """
        with self._locked():
            entries = self._read_index()
            for run in forget | self._stale:
                entries.pop(run, None)
                self._mine.pop(run, None)
                self._progress.pop(run, None)
            for run, state in states.items():
                entries[run] = self._extend(store, run, state, entries.get(run))
            self._write_index(entries)
            self._entries = entries
            self._stale.clear()
            self._remove_orphans(entries)

    def _extend(
        self,
        store: Store,
        run: str,
        state: Any,
        entry: dict[str, Any] | None,
    ) -> dict[str, Any]:
        base: dict[str, Any] | None = None  # the entry to extend
        if entry is not None:
            if tuple(entry.get("segments", ())) == self._mine.get(run):
                base = entry
            elif entry.get("state", {}).get("consumed", 0) >= state.get(
                "consumed", 0
            ):
                return entry  # another process holds at least as much
        if base is not None and len(base["segments"]) >= _MAX_SEGMENTS:
            base = None  # rewrite the run as one segment
        since = self._progress.get(run, Progress()) if base else Progress()
        meta, arrays, progress = export_run(store, run, since)
        meta["owner"] = {"logdir": self.logdir, "run": run}
        generation = str(base["generation"]) if base else _new_id()
        segments = list(base["segments"]) if base else []
        gained = meta["scalars"] or meta["histograms"] or meta["layouts"]
        if gained or not segments:
            name = f"{_digest(run)[:16]}-{generation}-{len(segments)}.seg"
            write_segment(os.path.join(self.directory, name), meta, arrays)
            segments.append(name)
        self._mine[run] = tuple(segments)
        self._progress[run] = progress
        return {
            "generation": generation,
            "segments": segments,
            "progress": progress.to_json(),
            "state": state,
        }

    def _write_index(self, entries: Mapping[str, Any]) -> None:
        handle, temp = tempfile.mkstemp(
            prefix=".tmp-", suffix=".json", dir=self.directory
        )
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(
                    {
                        "format": FORMAT_VERSION,
                        "plugin": __version__,
                        "logdir": self.logdir,
                        "runs": entries,
                    },
                    out,
                    separators=(",", ":"),
                    default=_json_default,
                )
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, os.path.join(self.directory, _INDEX))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def _remove_orphans(self, entries: Mapping[str, Any]) -> None:
        used = {
            name for entry in entries.values() for name in entry["segments"]
        }
        now = time.time()
        for name in os.listdir(self.directory):
            leftover = name.endswith(".seg") or name.startswith(".tmp-")
            if not leftover or name in used:
                continue
            path = os.path.join(self.directory, name)
            with contextlib.suppress(OSError):
                if now - os.path.getmtime(path) > _ORPHAN_SECONDS:
                    os.unlink(path)


def _new_id() -> str:
    return uuid.uuid4().hex[:12]


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot store {type(value).__name__} in the cache index")
