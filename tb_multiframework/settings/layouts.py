"""User layouts on disk: one JSON file, written atomically and safely shared.

File format::

    {"version": 1, "layouts": {"<name>": <layout JSON, see core.layouts>}}

Where the file lives is decided by ``resolve_layouts_path``: a directory
given by flag; else ``<logdir>/.tb_multiframework/layouts.json`` when the
logdir is a local, writable directory; else a file under the user's config
directory named after the logdir.

Every change (save, rename, delete) validates first, then, holding a
per-file thread lock and an exclusive ``fcntl.flock`` on ``<file>.lock``,
re-reads the file, applies the change, writes a temporary file in the same
directory, flushes and fsyncs it, renames it over the file and fsyncs the
directory. Two tabs or two TensorBoard processes saving at once both land
(last writer wins per layout); a writer killed at any point leaves the
previous file intact. A file that cannot be parsed is never silently
replaced: the next save first keeps a byte-for-byte copy next to it
(``layouts.json.corrupt-<time>``), and ``warnings()`` reports it.
"""

from __future__ import annotations

import builtins
import contextlib
import glob
import hashlib
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tb_multiframework.core import strict_json
from tb_multiframework.core.layouts import layout_to_json, validate_layout
from tb_multiframework.settings.regular import open_regular

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: thread lock only
    fcntl = None  # type: ignore[assignment]

FILE_VERSION = 1  # format written by this code
MAX_LAYOUTS = 200  # layouts in one file
MAX_FILE_BYTES = 256 << 20  # bytes of the layouts file read, at most
LAYOUTS_DIRNAME = ".tb_multiframework"  # folder created inside the logdir
LAYOUTS_FILENAME = "layouts.json"
_NEW_FILE_MODE = 0o644
_SAFE_NAME_CHARS = 40  # characters of the logdir name in a config file name

_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


class LayoutStoreError(Exception):
    """The layouts file could not be read or written (disk, permissions).

    The message names the file and is fit to show to the user.
    """


class LayoutExistsError(ValueError):
    """A layout with that name exists and the request may not replace it."""


@dataclass(frozen=True)
class _FileState:
    """What the layouts file holds right now.

    Attributes:
      layouts: Entries as stored, by name (not yet validated).
      problem: Why the file could not be used, or None.
      writable: False when saving over it would destroy something we could
        not copy or understand (unreadable, or a newer format).
      raw: The file's bytes when it exists and was read.
    """

    layouts: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None
    writable: bool = True
    raw: bytes | None = None


class LayoutStore:
    """The saved user layouts of one TensorBoard instance.

    Args:
      path: The layouts file (see ``resolve_layouts_path``). Its directory
        is created on the first save.
    """

    def __init__(self, path: str) -> None:
        self._path = os.path.abspath(path)
        # The file's bytes (their SHA-256) -> its validated entries: each
        # content is validated once, not at every `list()`/`warnings()`
        # (a file of thousands of regexes took seconds each time).
        self._validated: tuple[bytes, Any] | None = None
        self._validated_lock = threading.Lock()

    @property
    def path(self) -> str:
        """Absolute path of the layouts file."""
        return self._path

    def list(self) -> builtins.list[dict[str, Any]]:
        """All valid saved layouts, as JSON, sorted by name.

        Entries that no longer pass validation are left out and reported
        by ``warnings()``.
        """
        layouts = self._valid_layouts(self._read())[0]
        return [layouts[name] for name in sorted(layouts, key=_name_order)]

    def get(self, name: str) -> dict[str, Any] | None:
        """The saved layout with that name, or None."""
        return self._valid_layouts(self._read())[0].get(name)

    def warnings(self) -> builtins.list[str]:
        """Problems the UI should show: a damaged file, invalid entries,
        copies of damaged files kept next to it."""
        state = self._read()
        found = [] if state.problem is None else [state.problem]
        found.extend(self._valid_layouts(state)[1])
        for copy in sorted(glob.glob(glob.escape(self._path) + ".corrupt-*")):
            found.append(
                f"a damaged layouts file was kept as {copy}; the layouts in "
                "it were not loaded"
            )
        return found

    def save(
        self,
        layout_json: Mapping[str, Any],
        *,
        previous_name: str | None = None,
        overwrite: bool = True,
    ) -> dict[str, Any]:
        """Saves a layout, or renames one when previous_name differs.

        A rename writes the new entry and removes the old one in the same
        atomic write. Other layouts in the file are kept as they are.

        Args:
          layout_json: The layout (core.layouts schema).
          previous_name: The name the layout had before an edit.
          overwrite: Whether a save may replace a layout of the same name
            (an edit, with previous_name equal to the name, always may).
            A rename never replaces another layout.

        Returns:
          The layout as saved (validated, defaults filled in).

        Raises:
          ValueError: The layout is invalid, or MAX_LAYOUTS are saved.
          LayoutExistsError: The name is taken and may not be replaced.
          LayoutStoreError: The file could not be read or written.
        """
        entry = layout_to_json(validate_layout(layout_json))
        name = entry["name"]
        renaming = previous_name is not None and previous_name != name
        with self._exclusive():
            state = self._read_for_update()
            layouts = dict(state.layouts)
            replaces_other = renaming or not overwrite
            if name in layouts and previous_name != name and replaces_other:
                raise LayoutExistsError(
                    f"a layout named {name!r} already exists"
                )
            if renaming and previous_name is not None:
                layouts.pop(previous_name, None)
            if name not in layouts and len(layouts) >= MAX_LAYOUTS:
                raise ValueError(
                    f"{len(layouts)} layouts are saved, the most allowed is "
                    f"{MAX_LAYOUTS}; delete one first"
                )
            layouts[name] = entry
            self._write(layouts, state)
        return entry

    def delete(self, name: str) -> bool:
        """Deletes a layout; False when there is none with that name.

        Raises:
          LayoutStoreError: The file could not be read or written.
        """
        with self._exclusive():
            state = self._read_for_update()
            if name not in state.layouts:
                return False
            layouts = dict(state.layouts)
            del layouts[name]
            self._write(layouts, state)
        return True

    # -- reading -------------------------------------------------------------

    def _read(self) -> _FileState:
        try:
            with open_regular(self._path) as handle:
                raw = handle.read(MAX_FILE_BYTES + 1)
            if len(raw) > MAX_FILE_BYTES:
                raise OSError(f"larger than {MAX_FILE_BYTES} bytes")
        except FileNotFoundError:
            return _FileState()
        except OSError as error:
            return _FileState(
                problem=f"cannot read the layouts file {self._path}: {error}",
                writable=False,
            )
        return _parse(raw, self._path)

    def _read_for_update(self) -> _FileState:
        state = self._read()
        if not state.writable:
            raise LayoutStoreError(f"{state.problem}; not saving over it")
        return state

    def _valid_layouts(
        self, state: _FileState
    ) -> tuple[dict[str, dict[str, Any]], builtins.list[str]]:
        if state.raw is None or state.problem is not None:
            return self._validate(state)
        key = hashlib.sha256(state.raw).digest()
        with self._validated_lock:
            if self._validated is not None and self._validated[0] == key:
                valid, problems = self._validated[1]
                return dict(valid), builtins.list(problems)
        found = self._validate(state)
        with self._validated_lock:
            self._validated = (key, found)
        return dict(found[0]), builtins.list(found[1])

    def _validate(
        self, state: _FileState
    ) -> tuple[dict[str, dict[str, Any]], builtins.list[str]]:
        valid = {}
        problems = []
        for name, entry in state.layouts.items():
            try:
                layout = validate_layout(entry)
            except ValueError as error:
                problems.append(
                    f"saved layout {name!r} is not valid and is hidden: {error}"
                )
                continue
            if layout.name != name:
                problems.append(
                    f"saved layout {name!r} is hidden: it is named "
                    f"{layout.name!r} inside"
                )
                continue
            valid[name] = layout_to_json(layout)
        return valid, problems

    # -- writing -------------------------------------------------------------

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        with _THREAD_LOCKS_GUARD:
            lock = _THREAD_LOCKS.setdefault(self._path, threading.Lock())
        with lock:
            directory = os.path.dirname(self._path)
            try:
                os.makedirs(directory, exist_ok=True)
                fd = os.open(
                    self._path + ".lock", os.O_RDWR | os.O_CREAT, _NEW_FILE_MODE
                )
            except OSError as error:
                raise LayoutStoreError(
                    f"cannot lock the layouts file {self._path}: {error}"
                ) from error
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                # A writer holds the lock while its temp file exists, so
                # any temp file found now was left by a killed writer.
                self._remove_stale_temp_files()
                yield
            finally:
                os.close(fd)  # releases the flock

    def _write(self, layouts: dict[str, Any], state: _FileState) -> None:
        data = json.dumps(
            {"version": FILE_VERSION, "layouts": layouts},
            ensure_ascii=False,
            indent=1,
            sort_keys=True,
        ).encode("utf-8")
        directory = os.path.dirname(self._path)
        try:
            if state.problem is not None and state.raw is not None:
                self._keep_copy(state.raw)
            mode = _existing_mode(self._path)
            fd, temp = tempfile.mkstemp(
                prefix=self._temp_prefix(), suffix=".tmp", dir=directory
            )
            done = False
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data + b"\n")
                    handle.flush()
                    os.fsync(handle.fileno())
                os.chmod(temp, mode)
                os.replace(temp, self._path)
                done = True
            finally:
                if not done:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(temp)
            _fsync_directory(directory)
        except OSError as error:
            raise LayoutStoreError(
                f"cannot write the layouts file {self._path}: {error}"
            ) from error

    def _keep_copy(self, raw: bytes) -> str:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        base = f"{self._path}.corrupt-{stamp}"
        for attempt in range(1000):
            copy = base if attempt == 0 else f"{base}-{attempt}"
            try:
                with open(copy, "xb") as handle:
                    handle.write(raw)
                    handle.flush()
                    os.fsync(handle.fileno())
            except FileExistsError:
                continue
            return copy
        raise FileExistsError(f"too many copies named {base}-*")

    def _temp_prefix(self) -> str:
        return "." + os.path.basename(self._path) + "."

    def _remove_stale_temp_files(self) -> None:
        pattern = os.path.join(
            glob.escape(os.path.dirname(self._path)),
            glob.escape(self._temp_prefix()) + "*.tmp",
        )
        for stale in glob.glob(pattern):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(stale)


def _parse(raw: bytes, path: str) -> _FileState:
    def damaged(why: str) -> _FileState:
        return _FileState(
            problem=(
                f"the layouts file {path} is damaged ({why}); the next save "
                "keeps a copy of it and starts a new one"
            ),
            raw=raw,
        )

    try:
        content = strict_json.loads(raw)
    except strict_json.JsonError as error:
        return damaged(str(error))
    if not isinstance(content, dict):
        return damaged("not a JSON object")
    version = content.get("version")
    if _is_newer_version(version):
        return _FileState(
            problem=(
                f"the layouts file {path} has format version {version}, "
                f"newer than {FILE_VERSION}; upgrade tb_multiframework "
                "to use it"
            ),
            writable=False,
            raw=raw,
        )
    if isinstance(version, bool) or version != FILE_VERSION:
        return damaged(f"unknown version {version!r}")
    layouts = content.get("layouts")
    if not isinstance(layouts, dict):
        return damaged("'layouts' is not an object")
    return _FileState(layouts=layouts, raw=raw)


def _is_newer_version(version: object) -> bool:
    if isinstance(version, bool) or not isinstance(version, int):
        return False
    return version > FILE_VERSION


def _name_order(name: str) -> tuple[str, str]:
    return (name.casefold(), name)


def _existing_mode(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        return _NEW_FILE_MODE


def _fsync_directory(directory: str) -> None:
    # Makes the rename itself durable; directories cannot be opened on
    # Windows, where os.replace is durable enough.
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------
# Where the file lives


def resolve_layouts_path(
    logdir: str, *, flag_dir: str | None
) -> tuple[str, str]:
    """Chooses the layouts file for a logdir.

    Args:
      logdir: TensorBoard's --logdir (a local path or a URL like gs://...).
      flag_dir: A directory given by flag, or None.

    Returns:
      (absolute path of the layouts file, why it was chosen) -- the reason
      is for a log line or the UI.
    """
    if flag_dir:
        directory = os.path.abspath(os.path.expanduser(flag_dir))
        return (
            os.path.join(directory, LAYOUTS_FILENAME),
            f"directory set by flag: {directory}",
        )
    if logdir and "://" not in logdir:
        local = os.path.abspath(os.path.expanduser(logdir))
        folder = os.path.join(local, LAYOUTS_DIRNAME)
        problem = _make_writable_folder(local, folder)
        if problem is None:
            return (
                os.path.join(folder, LAYOUTS_FILENAME),
                f"inside the logdir: {folder}",
            )
        key, why = local, f"the logdir cannot hold it ({problem})"
    else:
        key, why = logdir, "the logdir is not local" if logdir else "no logdir"
    path = os.path.join(_config_home(), "tb_multiframework", "layouts")
    name = f"{_safe_name(key)}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    return (
        os.path.join(path, name + ".json"),
        f"{why}; using the user config directory",
    )


def _make_writable_folder(logdir: str, folder: str) -> str | None:
    """Creates folder inside logdir; says why it cannot be used, or None."""
    if not os.path.isdir(logdir):
        return f"{logdir} is not a directory"
    created = False
    try:
        os.mkdir(folder)
        created = True
    except FileExistsError:
        pass
    except OSError as error:
        return str(error)
    try:
        fd, probe = tempfile.mkstemp(prefix=".probe.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        if created:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        return str(error)
    return None


def _config_home() -> str:
    configured = os.environ.get("XDG_CONFIG_HOME", "")
    # The XDG spec says to ignore a relative XDG_CONFIG_HOME.
    if os.path.isabs(configured):
        return configured
    return os.path.join(os.path.expanduser("~"), ".config")


def _safe_name(logdir: str) -> str:
    last = logdir.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", last).lstrip(".")
    return safe[:_SAFE_NAME_CHARS] or "logdir"
