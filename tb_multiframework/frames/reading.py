"""`tb_multiframework.read(logdir)`: checks the logdir, builds the stack the
tab and `tbmf` build (`wiring.build_stack`), reads every run with a progress
bar, and says clearly what is wrong with a missing or empty logdir."""

from __future__ import annotations

import os
import warnings

from tb_multiframework import wiring
from tb_multiframework.frames import tables
from tb_multiframework.frames.experiment import Experiment
from tb_multiframework.frames.names import NoRunsError, TbmfWarning
from tb_multiframework.sources import logdir_readable

_EXAMPLE_FILES = 3  # file names quoted when a logdir holds no log file


def read(
    logdir: str | os.PathLike[str],
    *,
    config: str | os.PathLike[str] | None = None,
    frames: str = "auto",
    progress_bar: bool | None = None,
    cache_dir: str | None = None,
) -> Experiment:
    """Reads every run under a logdir, as the tab does, into an Experiment.

    Args:
      logdir: a directory, or an `s3://` / `gs://` URL (read through
        TensorBoard's filesystem layer, as the tab reads it).
      config: a tb_multiframework config file; default: the logdir's own
        `.tb_multiframework/config.json` when present.
      frames: "auto" (pandas DataFrames when pandas is installed, else numpy
        `Table`s), "pandas" (an ImportError naming the extra without it) or
        "numpy".
      progress_bar: None shows one in a notebook or on a terminal when
        reading takes a while; True/False forces it.
      cache_dir: the persistent cache of the tab (`--tbmf_cache_dir`); None
        for none, "" for its default place.

    Raises:
      FileNotFoundError: the logdir or config file does not exist (or a
        remote logdir cannot be listed from here).
      NotADirectoryError: the logdir is a file.
      NoRunsError: the logdir holds no log file.
      ValueError: the config file is malformed, or `frames` unknown.
      ImportError: frames="pandas" without pandas.
    """
    pandas = tables.pandas_module(frames)
    path = _checked_logdir(logdir)
    config_path = ""
    if config is not None:
        config_path = os.path.expanduser(os.fspath(config))
        if not os.path.isfile(config_path):
            raise FileNotFoundError(
                f"config file {config_path!r} does not exist"
            )
    stack = wiring.build_stack(
        path,
        config_path=config_path,
        layouts=False,
        source="files",
        cache_dir="none" if cache_dir is None else cache_dir,
    )
    if stack.config_file.error:
        if config_path:
            raise ValueError(stack.config_file.error)
        warnings.warn(
            f"{stack.config_file.error}; reading without it",
            TbmfWarning,
            stacklevel=2,
        )
    experiment = Experiment(path, stack, pandas, progress_bar)
    experiment.refresh()
    if not stack.store.runs():
        raise NoRunsError(_no_runs_message(path, stack))
    return experiment


def _checked_logdir(logdir: str | os.PathLike[str]) -> str:
    if not isinstance(logdir, (str, os.PathLike)):
        raise TypeError(f"logdir must be a path or URL, got {logdir!r}")
    path = os.fspath(logdir)
    if not path:
        raise ValueError("logdir is empty")
    if "://" in path and not path.startswith("file://"):
        if not logdir_readable(path):
            raise FileNotFoundError(
                f"logdir {path!r} cannot be listed from this process: it "
                "does not exist, or the filesystem needs credentials or an "
                "endpoint (TensorBoard's: S3_ENDPOINT and AWS_* variables for "
                "s3://, Google credentials for gs://)"
            )
        return path
    local = os.path.expanduser(
        path[len("file://") :] if "://" in path else path
    )
    if not os.path.exists(local):
        raise FileNotFoundError(f"logdir {path!r} does not exist")
    if not os.path.isdir(local):
        raise NotADirectoryError(f"logdir {path!r} is a file, not a directory")
    return local


def _no_runs_message(path: str, stack: wiring.Stack) -> str:
    loader = stack.loader
    error = getattr(loader, "last_error", "") if loader is not None else ""
    if error:
        return f"no runs read from {path!r}: {error}"
    if "://" in path:
        return f"no runs under {path!r}: no file named like a log file"
    files = [
        os.path.relpath(os.path.join(d, f), path)
        for d, _, names in os.walk(path)
        for f in names
    ]
    if not files:
        return f"no runs under {path!r}: the directory is empty"
    shown = ", ".join(repr(f) for f in sorted(files)[:_EXAMPLE_FILES])
    return (
        f"no runs under {path!r}: none of its {len(files)} files is named like "
        f"a log file (events.out.tfevents.* or vdlrecords.*): {shown}"
        + (", …" if len(files) > _EXAMPLE_FILES else "")
    )
