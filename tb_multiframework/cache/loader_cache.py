"""The files loader's side of the persistent cache.

`restore` runs at the start of a reload, before the loader checks its files
for changes: every run found on disk whose cache entry checks out is put
back (series into the store, the loader's per-run state as it was), so the
loader's own rules then decide whether a file was replaced, rewritten or
shrank (the run is dropped and read again) or grew (only the new bytes are
read). `persist` runs at the end of a reload and writes what changed: runs
that read bytes get a delta, runs read anew a whole new entry, runs gone
lose theirs.
"""

from __future__ import annotations

import importlib
import logging
import time
from typing import Any, Iterable

from tb_multiframework.cache import LogdirCache
from tb_multiframework.cache.snapshot import SnapshotError, dump, load
from tb_multiframework.core.hparams import HParamSource
from tb_multiframework.ingest import attempts, loader, tfevents
from tb_multiframework.store.store import AttemptStart, RunMeta

logger = logging.getLogger(__name__)

_CHECKPOINT_SECONDS = 10.0  # during a long reload, between cache writes


def _state_classes() -> dict[type, tuple[str, ...]]:
    """The classes a run's reader state is made of, and attributes left
    out (the only classes a cache entry may rebuild)."""
    classes: dict[type, tuple[str, ...]] = {
        loader._RunState: (),
        tfevents.TagPlugins: (),
        attempts.AttemptTracker: (),
        attempts._Tag: (),
        AttemptStart: (),
        HParamSource: (),
    }
    # A file's reading state: `LogFile` where the loader keeps identities.
    for module, name in (
        ("tb_multiframework.ingest.loader", "_FileState"),
        ("tb_multiframework.ingest.logfile", "LogFile"),
        ("tb_multiframework.ingest.repeats", "StepRepeats"),
    ):
        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
        classes[cls] = ("remote_handle",) if name != "StepRepeats" else ()
    return classes


_STATE_CLASSES = _state_classes()


def _consumed(state: Any) -> int:
    """Bytes of a run's files read (records plus pending bytes)."""
    return sum(f.offset + len(f.pending) for f in state.files.values())


class LoaderCache:
    """Connects a `Loader` to a `LogdirCache`.

    Attributes:
      restored: runs put back from the cache so far.
      error: the last failure to write the cache, "" if none.
    """

    def __init__(self, cache: LogdirCache) -> None:
        self.cache = cache
        self.restored = 0
        self.error = ""
        self._written: dict[str, tuple[Any, int]] = {}  # run -> state, bytes
        self._last_write = time.monotonic()

    def restore(
        self, target: Any, found: Iterable[tuple[str, str, str, str]]
    ) -> None:
        """Puts back the cached runs among those found that the loader does
        not have.

        Args:
          found: (run, file name, path, format) of every log file on disk.
          An entry is used only when every file its reader state names is
          one of its run's files found here, at the same path: a cache
          copied from another logdir, or entries swapped between runs,
          would otherwise serve (and keep reading) other files.
        """
        store = target._store
        paths: dict[str, dict[str, str]] = {}
        for run, name, path, _ in found:
            paths.setdefault(run, {})[name] = path
        for run in sorted(set(paths) - set(target._runs)):
            data = self.cache.entry_state(run)
            if data is None:
                continue
            try:
                state = load(data["reader"], _STATE_CLASSES)
                if not isinstance(state, loader._RunState) or state.run != run:
                    raise SnapshotError("not this run's reader state")
                foreign = [
                    name
                    for name, file in state.files.items()
                    if getattr(file, "path", None) != paths[run].get(name)
                ]
                if foreign:
                    raise SnapshotError(
                        f"files not of this run here: {sorted(foreign)[:3]}"
                    )
            except (SnapshotError, KeyError, TypeError) as error:
                self.cache.forget(run, f"reader state: {error}")
                continue
            store.set_meta(RunMeta(run, run, "unknown", "", state.format))
            if not self.cache.restore(run, store):
                store.remove_run(run)
                continue
            target._runs[run] = state
            self._written[run] = (state, _consumed(state))
            self.restored += 1

    def checkpoint(self, target: Any) -> None:
        """Persists now if the last write is `_CHECKPOINT_SECONDS` old.

        Called between runs during a reload, so a long first read (or one
        stopped half way) leaves what it has read in the cache.
        """
        if time.monotonic() - self._last_write >= _CHECKPOINT_SECONDS:
            self.persist(target)

    def persist(self, target: Any) -> None:
        """Writes what the loader's runs gained since the last call."""
        self._last_write = time.monotonic()
        states: dict[str, Any] = {}
        forget = set(self._written) - set(target._runs)
        for run in forget:
            del self._written[run]
        for run, state in target._runs.items():
            consumed = _consumed(state)
            written = self._written.get(run)
            if written is None and consumed == 0:
                continue  # not read yet
            if written is not None and written[0] is state:
                if written[1] == consumed:
                    continue
            elif written is not None:
                forget.add(run)  # read anew: its old entry must not grow
            try:
                reader = dump(state, _STATE_CLASSES)
            except SnapshotError as error:
                logger.warning("tb_multiframework cache: %s: %s", run, error)
                continue
            states[run] = {"consumed": consumed, "reader": reader}
            self._written[run] = (state, consumed)
        if not states and not forget:
            return
        try:
            self.cache.persist(target._store, states, forget)
            self.error = ""
        except OSError as error:
            # The cache is an optimisation: the data is served anyway.
            logger.warning(
                "tb_multiframework cache %s not written: %s",
                self.cache.directory,
                error,
            )
            self.error = f"cache not written: {error}"
            for run in states:
                self._written.pop(run, None)
