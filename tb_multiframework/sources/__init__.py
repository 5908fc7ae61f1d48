"""Where runs come from: the logdir's files or TensorBoard's data provider.

Both fill the same `Store`; everything after it (core, api, routes) does not
know which one did.

* `files` (`FilesSource`): the plugin reads every file itself, losslessly
  and incrementally (`ingest.loader`). The default whenever the logdir is
  readable from the TensorBoard process.
* `provider` (`ProviderSource`): runs, tags, scalars, histograms and layouts
  through TensorBoard's `context.data_provider`: the Rust data server
  TensorBoard starts itself, a remote one (`--grpc_data_provider`), or the
  Python multiplexer. For logdirs this process cannot read. Providers keep a
  sample of each series unless told otherwise; the catalog says where. No
  provider knows VisualDL files: those are still read as files where the
  data's location is readable here, else the catalog says they are missing.

`--tbmf_source=auto` (the default) takes `files` when TensorBoard's
`--logdir` is readable from this process and `provider` otherwise.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from typing import Any, Callable, Mapping, Protocol

from tb_multiframework.ingest.loader import ReloadStats
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import Store

logger = logging.getLogger(__name__)

SOURCES = ("auto", "files", "provider")


@dataclasses.dataclass(frozen=True)
class SourceStatus:
    """What the catalog says about where the runs come from.

    Attributes:
      kind: "files" or "provider".
      location: the logdir, or the provider and the data's location.
      reason: why this source was chosen.
      notices: what the user misses with this source and how to fix it.
      cache: the persistent cache's state (files source), or None.
    """

    kind: str
    location: str
    reason: str
    notices: tuple[str, ...] = ()
    cache: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "location": self.location,
            "reason": self.reason,
            "notices": list(self.notices),
            "cache": None if self.cache is None else dict(self.cache),
        }


class Source(Protocol):
    """What the plugin and the API need from a source of runs."""

    loaded_once: threading.Event
    last_stats: ReloadStats | None
    last_error: str
    reloading: bool
    after_reload: Callable[[], Any] | None

    def reload(self) -> ReloadStats: ...

    def start(self, interval: float, *, wait_first: bool = False) -> None: ...

    def stop(self) -> None: ...

    def status(self) -> SourceStatus: ...


def logdir_readable(logdir: str) -> bool:
    """Whether this process can list `logdir` (local or remote)."""
    if not logdir:
        return False
    if "://" in logdir and not logdir.startswith("file://"):
        try:
            from tensorboard.compat import tf  # noqa: PLC0415 - heavy

            return bool(tf.io.gfile.isdir(logdir))
        except Exception as error:  # noqa: BLE001 - any backend failure
            # Remote filesystems raise their own errors (botocore, ...):
            # any of them means "not readable from here".
            logger.info("logdir %s not readable here: %r", logdir, error)
            return False
    path = logdir[len("file://") :] if logdir.startswith("file://") else logdir
    path = os.path.expanduser(path)
    return os.path.isdir(path) and os.access(path, os.R_OK | os.X_OK)


def choose_source(
    choice: str, *, logdir: str, has_provider: bool, has_roots: bool = False
) -> tuple[str | None, str]:
    """The source to use and why; (None, why) when there is none.

    Raises:
      ValueError: `choice` is not one of `SOURCES`.
    """
    if choice not in SOURCES:
        raise ValueError(
            f"--tbmf_source is {choice!r}; expected one of {list(SOURCES)}"
        )
    if choice == "files":
        if not logdir and not has_roots:
            return None, "--tbmf_source=files needs --logdir"
        return "files", "--tbmf_source=files"
    if choice == "provider":
        if not has_provider:
            return None, "--tbmf_source=provider: TensorBoard has no provider"
        return "provider", "--tbmf_source=provider"
    if has_roots and not logdir:
        return "files", "--logdir_spec names the directories to read"
    if logdir_readable(logdir):
        return "files", "the logdir is readable from this process"
    if has_provider:
        why = (
            f"the logdir {logdir!r} is not readable from this process"
            if logdir
            else "TensorBoard was started without --logdir"
        )
        return "provider", why
    return None, "no logdir and no data provider"


def make_source(
    choice: str,
    *,
    logdir: str,
    data_provider: Any,
    flags: Any,
    store: Store,
    config: Callable[[], Config],
    roots: tuple[Any, ...] = (),
    cache_dir: str = "",
) -> tuple[Source | None, str]:
    """Builds the source `choice` resolves to; (None, why) if none.

    Args:
      roots: `ingest.loader.LogRoot`s of a `--logdir_spec` (files only).
      cache_dir: the persistent cache of the files source ("" default,
        "none" off).
    """
    kind, reason = choose_source(
        choice,
        logdir=logdir,
        has_provider=data_provider is not None,
        has_roots=bool(roots),
    )
    if kind == "files":
        from tb_multiframework.sources.files import (  # noqa: PLC0415
            FilesSource,
        )

        source = FilesSource(
            logdir,
            store,
            config=config,
            reason=reason,
            roots=roots,
            cache_dir=cache_dir,
        )
        return source, reason
    if kind == "provider":
        from tb_multiframework.sources.provider import (  # noqa: PLC0415
            ProviderSource,
        )

        return (
            ProviderSource(
                data_provider,
                store,
                config=config,
                logdir=logdir,
                flags=flags,
                reason=reason,
            ),
            reason,
        )
    return None, reason
