"""The data stack the tab and the command line share, built in one place.

Config file -> store -> loader -> api: `plugin.py` (the TensorBoard tab) and
`cli/` (the `tbmf` command) both call `build_stack`, so they read the same
runs, under the same names, with the same settings. Nothing here imports
TensorBoard's server; `--logdir_spec` is parsed by TensorBoard's own parser,
imported only when a spec is given.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from tb_multiframework.api.service import Api
from tb_multiframework.ingest.loader import LogRoot
from tb_multiframework.settings.config import ConfigFile, default_config_path
from tb_multiframework.settings.layouts import LayoutStore, resolve_layouts_path
from tb_multiframework.sources import Source, make_source
from tb_multiframework.store.store import Store

NO_LAYOUTS = "layouts are not used here"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# A wheel ships the frontend in static/; a source checkout (or an editable
# install) serves frontend/ beside the package.
_STATIC_DIRS = (
    os.path.join(_PACKAGE_DIR, "static"),
    os.path.join(os.path.dirname(_PACKAGE_DIR), "frontend"),
)


@dataclasses.dataclass(frozen=True)
class Stack:
    """One wired data stack.

    Attributes:
      api: answers every route (and every `tbmf` command).
      loader: the source filling the store (`sources`: the files, or
        TensorBoard's data provider); call `reload()` or `start()`. None
        when there is nothing to read.
      store: the series.
      config_file: the user config it reads.
    """

    api: Api
    loader: Source | None
    store: Store
    config_file: ConfigFile


def logdir_roots(logdir_spec: str) -> tuple[LogRoot, ...]:
    """The directories of a `--logdir_spec`, named as TensorBoard names them.

    `name:path` entries prefix their runs with `name/`; bare paths do not.
    Parsed by TensorBoard's own parser (so `gs://` URLs and Windows drives
    split exactly as TensorBoard splits them).
    """
    from tensorboard.backend.event_processing import (  # noqa: PLC0415
        data_ingester,  # heavy: only when a spec is given
    )

    paths = data_ingester._parse_event_files_spec(logdir_spec)  # noqa: SLF001
    return tuple(LogRoot(path, name or "") for path, name in paths.items())


def build_stack(
    logdir: str,
    *,
    logdir_spec: str = "",
    config_path: str = "",
    layouts: bool = True,
    layouts_dir: str | None = None,
    source: str = "files",
    data_provider: Any = None,
    flags: Any = None,
    cache_dir: str = "none",
) -> Stack:
    """Builds config, store, loader and api for a logdir (nothing read yet).

    Args:
      logdir: the log directory (`--logdir`), or "" with `logdir_spec`.
      logdir_spec: TensorBoard's `--logdir_spec` (`name:path,...`), used
        when `logdir` is empty.
      config_path: a config file that must exist; "" uses the logdir's own
        `.tb_multiframework/config.json` when there is one.
      layouts: whether user layouts can be saved (False for read-only
        users such as `tbmf`, which must not create files in the logdir).
      layouts_dir: where layouts are saved (the `--tbmf_layouts_dir` flag).
      source: `--tbmf_source` (auto | files | provider).
      data_provider: TensorBoard's `context.data_provider`, if any.
      flags: TensorBoard's flags (sampling settings for the provider).
      cache_dir: the persistent cache (`--tbmf_cache_dir`; "" for the
        default place, "none" for no cache).
    """
    config_file = ConfigFile(
        config_path or default_config_path(logdir),
        optional=not config_path,
    )
    config_file.refresh()
    store = Store()
    roots = logdir_roots(logdir_spec) if logdir_spec and not logdir else ()
    loader, _ = make_source(
        source,
        logdir=logdir,
        roots=roots,
        data_provider=data_provider,
        flags=flags,
        store=store,
        config=lambda: config_file.config,
        cache_dir=cache_dir,
    )
    if layouts:
        layout_store, reason = _layout_store(logdir, layouts_dir)
    else:
        layout_store, reason = None, NO_LAYOUTS
    api = Api(store, loader, config_file, layout_store, reason)
    return Stack(api=api, loader=loader, store=store, config_file=config_file)


def _layout_store(
    logdir: str, flag_dir: str | None
) -> tuple[LayoutStore | None, str]:
    if not logdir and not flag_dir:
        return None, "no logdir"
    try:
        path, reason = resolve_layouts_path(logdir, flag_dir=flag_dir)
    except (OSError, ValueError) as error:
        return None, f"no writable place for layouts: {error}"
    return LayoutStore(path), reason


def static_dir() -> str | None:
    """Where the frontend files are, or None if missing.

    The tab is served from there, and `tbmf report` inlines its vendored
    uPlot.
    """
    for candidate in _STATIC_DIRS:
        if os.path.isfile(os.path.join(candidate, "index.js")):
            return candidate
    return None
