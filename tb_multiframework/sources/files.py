"""The `files` source: the plugin reads the logdir itself (`ingest.loader`)."""

from __future__ import annotations

from typing import Callable

from tb_multiframework.config import Config
from tb_multiframework.ingest.loader import Loader
from tb_multiframework.sources import SourceStatus
from tb_multiframework.store import Store


class FilesSource(Loader):
    """Every file under the logdir, read losslessly and incrementally."""

    def __init__(
        self,
        logdir: str,
        store: Store,
        *,
        config: Callable[[], Config],
        reason: str = "",
    ) -> None:
        super().__init__(logdir, store, config=config)
        self._reason = reason

    def status(self) -> SourceStatus:
        return SourceStatus(
            kind="files", location=self._logdir, reason=self._reason
        )
