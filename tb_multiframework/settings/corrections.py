"""The user's corrections of what the tab inferred, saved in the config file.

The Runs table lets a user correct an inference for one run (its epoch
axis, the base of its epoch counts, a tag's split, its trainer, "not a
resume"); `save_run_settings` writes the correction into the config file
(`--tbmf_config`, else the logdir's own `.tb_multiframework/config.json`)
under the run's exact name (`runs[<run name, glob-escaped>]`), keeping
every other entry and key of the file as they were. The new file is
validated by the same parser that reads it and written atomically (a
temporary file in the same directory, flushed, then renamed over the old
one): a failed save leaves the previous file intact.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Mapping
from typing import Any

from tb_multiframework.core import strict_json
from tb_multiframework.core.metrics import SPLITS
from tb_multiframework.settings.config import (
    _MAX_CONFIG_BYTES,
    TRAINER_NONE,
    parse_config,
)

# What a correction may set; a value null removes the user's setting.
SETTABLE = (
    "trainer",
    "epochAxis",
    "epochBase",
    "stepsPerEpoch",
    "splits",
    "notResumed",
)
SPLIT_NONE = "none"  # in a request: "this tag has no split"
_LOCK = threading.Lock()  # one save at a time in this process


class SettingsUnavailable(Exception):
    """No config file to save corrections in (HTTP 503)."""


def glob_escape(name: str) -> str:
    """A glob that matches exactly `name` (`fnmatch` specials bracketed)."""
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)


def save_run_settings(
    path: str, run: str, changes: Any, *, known_trainers: tuple[str, ...]
) -> dict[str, Any]:
    """Applies one run's corrections to the config file at `path`.

    Args:
      path: the config file ("" when there is none).
      run: the run's exact name.
      changes: {key: value} with keys from `SETTABLE`; `splits` is
        {tag: "train"|"val"|"test"|"none"|null}; null removes a setting.
      known_trainers: trainer names the config accepts.

    Returns:
      {"run", "pattern", "settings" (the run's entry now), "path"}.

    Raises:
      SettingsUnavailable: no file to write.
      ValueError: a bad change, or a config file that cannot be read as
        JSON (it is left as it is).
    """
    if not path:
        raise SettingsUnavailable(
            "corrections cannot be saved: no config file (start TensorBoard "
            "with --tbmf_config FILE, or use a local logdir)"
        )
    updates = _validated(changes, known_trainers)
    with _LOCK:
        data = _read(path)
        runs = data.setdefault("runs", {})
        if not isinstance(runs, dict):
            raise ValueError(f"'runs' in {path} is not an object")
        pattern = glob_escape(run)
        entry = runs.get(pattern, {})
        if not isinstance(entry, dict):
            raise ValueError(f"runs[{pattern!r}] in {path} is not an object")
        entry = dict(entry)
        for key, value in updates.items():
            if key == "splits":
                splits = dict(entry.get("splits") or {})
                for tag, split in value.items():
                    if split is None:
                        splits.pop(tag, None)
                    else:
                        splits[tag] = None if split == SPLIT_NONE else split
                if splits:
                    entry["splits"] = splits
                else:
                    entry.pop("splits", None)
            elif value is None:
                entry.pop(key, None)
            else:
                entry[key] = value
        if entry:
            runs[pattern] = entry
        else:
            runs.pop(pattern, None)
        parse_config(data, path=path)  # never write a file we cannot read
        _write_atomically(path, data)
    return {"run": run, "pattern": pattern, "settings": entry, "path": path}


def _validated(changes: Any, known_trainers: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(changes, Mapping) or not changes:
        raise ValueError(
            f"'set' must be a non-empty object with keys from {list(SETTABLE)}"
        )
    unknown = sorted(set(changes) - set(SETTABLE))
    if unknown:
        raise ValueError(f"cannot set {unknown}; settable: {list(SETTABLE)}")
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if value is None:
            out[key] = None
        elif key == "trainer":
            allowed = [*known_trainers, TRAINER_NONE]
            if value not in allowed:
                raise ValueError(f"trainer {value!r} not in {allowed}")
            out[key] = value
        elif key in ("epochAxis", "notResumed"):
            if not isinstance(value, bool):
                raise ValueError(f"{key} must be true, false or null")
            out[key] = value
        elif key == "epochBase":
            if isinstance(value, bool) or value not in (0, 1):
                raise ValueError("epochBase must be 0, 1 or null")
            out[key] = int(value)
        elif key == "stepsPerEpoch":
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not 0 < value < 1e15
            ):
                raise ValueError("stepsPerEpoch must be a number > 0 or null")
            out[key] = value
        elif key == "splits":
            out[key] = _validated_splits(value)
    return out


def _validated_splits(value: Any) -> dict[str, str | None]:
    if not isinstance(value, Mapping) or not value:
        raise ValueError("splits must be a non-empty object {tag: split}")
    allowed = [*SPLITS, SPLIT_NONE]
    for tag, split in value.items():
        if not isinstance(tag, str) or not tag or len(tag) > 4096:
            raise ValueError(f"bad tag in splits: {tag!r}")
        if split is not None and split not in allowed:
            raise ValueError(
                f"split of {tag!r}: {split!r} not in {allowed} or null"
            )
    return dict(value)


def _read(path: str) -> dict[str, Any]:
    try:
        size = os.path.getsize(path)
    except FileNotFoundError:
        return {}
    if size > _MAX_CONFIG_BYTES:
        raise ValueError(f"config {path} is larger than 1 MiB; not changed")
    with open(path, "rb") as handle:
        raw = handle.read(_MAX_CONFIG_BYTES + 1)
    if not raw.strip():
        return {}
    try:
        data = strict_json.loads(raw)
    except strict_json.JsonError as error:
        raise ValueError(
            f"config {path} is not valid JSON ({error}); fix it by hand, it "
            "was not changed"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"config {path} is not a JSON object; not changed")
    return data


def _write_atomically(path: str, data: dict[str, Any]) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    handle, temp = tempfile.mkstemp(
        dir=folder, prefix=".tbmf_config.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text + "\n")
            out.flush()
            os.fsync(out.fileno())
        if os.path.exists(path):
            os.chmod(temp, os.stat(path).st_mode & 0o777)
        os.replace(temp, path)
    except BaseException:
        try:
            os.remove(temp)
        except OSError:
            pass
        raise
