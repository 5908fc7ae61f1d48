"""The `files` source: the plugin reads the logdir itself (`ingest.loader`).

With a cache directory (`--tbmf_cache_dir`, on by default for local
logdirs), what was read is kept there and a restart reads only new bytes.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from tb_multiframework.cache import DISABLED, LogdirCache, default_cache_root
from tb_multiframework.cache.loader_cache import LoaderCache
from tb_multiframework.ingest.loader import Loader, LogRoot
from tb_multiframework.settings.config import Config
from tb_multiframework.sources import SourceStatus
from tb_multiframework.store.store import Store

logger = logging.getLogger(__name__)


class FilesSource(Loader):
    """Every file under the logdir, read losslessly and incrementally.

    Args:
      cache_dir: the cache directory; "" for the default, one of
        `cache.DISABLED` ("none", ...) for no cache.
    """

    def __init__(
        self,
        logdir: str,
        store: Store,
        *,
        config: Callable[[], Config],
        reason: str = "",
        roots: tuple[LogRoot, ...] = (),
        cache_dir: str = "",
    ) -> None:
        if roots:  # --logdir_spec: several directories, no one cache key
            cache, self._cache_note = None, "not kept with --logdir_spec"
        else:
            cache, self._cache_note = _open_cache(logdir, cache_dir)
        super().__init__(logdir, store, config=config, roots=roots, cache=cache)
        self._reason = reason
        self._location = logdir or ",".join(
            f"{root.prefix}:{root.path}" if root.prefix else root.path
            for root in roots
        )

    def status(self) -> SourceStatus:
        cache: dict[str, Any] = {"enabled": False, "note": self._cache_note}
        if isinstance(self._cache, LoaderCache):
            cache = {
                "enabled": True,
                "directory": self._cache.cache.directory,
                "restoredRuns": self._cache.restored,
                "dropped": list(self._cache.cache.dropped[-5:]),
                "error": self._cache.error,
            }
        return SourceStatus(
            kind="files",
            location=self._location,
            reason=self._reason,
            cache=cache,
        )


def _open_cache(logdir: str, cache_dir: str) -> tuple[LoaderCache | None, str]:
    """The logdir's cache, or None and why not."""
    if cache_dir.strip().lower() in DISABLED:
        return None, "disabled by --tbmf_cache_dir"
    if "://" in logdir and not logdir.startswith("file://"):
        return None, "not kept for remote logdirs"
    root = cache_dir or default_cache_root()
    try:
        return LoaderCache(LogdirCache(root, logdir)), ""
    except OSError as error:
        logger.warning("tb_multiframework cache %s not usable: %s", root, error)
        return None, f"{root} not usable: {error}"
