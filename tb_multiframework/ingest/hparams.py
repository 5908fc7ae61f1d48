"""Hyper-parameters from every place frameworks put them, decoded.

* tfevents `hparams` plugin summaries (`_hparams_/session_start_info`):
  written by torch's and tensorboardX's `add_hparams` and by Keras/TF
  `tensorboard.plugins.hparams.api.hparams`; the values sit in the summary
  metadata's plugin content, a serialized `HParamsPluginData`.
* Hugging Face Trainer's `args` and `model_config` text summaries: JSON
  objects inside a text tensor (tag `args/text_summary` from torch's
  `add_text`, `args` from `tf.summary.text`).
* VisualDL `LogWriter.add_hparams`: a `Record.Value.hparam` message.
* Files in the run directory: PyTorch Lightning's `hparams.yaml`, and the
  `config.json` / `config.yaml` / `config.yml` / `hparams.json` that many
  scripts save beside their logs.

YAML needs PyYAML (an optional dependency, `pip install
tb-multiframework[yaml]`); without it a YAML file gives a warning on its run
and everything else is read.
"""

from __future__ import annotations

import json
import os
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from tensorboard.plugins.hparams import plugin_data_pb2

from tb_multiframework.core.hparams import HParamSource, flatten
from tb_multiframework.settings.regular import open_regular

PLUGIN_NAME = "hparams"
SESSION_START_TAG = "_hparams_/session_start_info"
# Text summaries holding a JSON object of settings, and the key prefix their
# values get (Hugging Face Trainer's TensorBoardCallback writes both).
TEXT_SOURCES = {"args": "", "model_config": "model_config."}
_TEXT_SUFFIX = "/text_summary"  # torch's add_text appends it to the tag
# Files read from a run's directory, and the source kind they are.
SIDE_FILES = {
    "hparams.yaml": "hparams_yaml",
    "config.json": "config_file",
    "config.yaml": "config_file",
    "config.yml": "config_file",
    "hparams.json": "config_file",
}
MAX_SIDE_FILE_BYTES = 1 << 20  # a larger side file is not read
MAX_TEXT_CHARS = 1 << 20  # characters of one args/model_config text
YAML_MISSING = (
    "{name}: reading YAML needs PyYAML (pip install pyyaml, or "
    "tb-multiframework[yaml]); its hyper-parameters are not shown"
)


def text_source_prefix(tag: str) -> str | None:
    """The key prefix of a settings text tag, or None for other tags."""
    base = tag[: -len(_TEXT_SUFFIX)] if tag.endswith(_TEXT_SUFFIX) else tag
    return TEXT_SOURCES.get(base)


def from_plugin_content(content: bytes, *, where: str) -> HParamSource | None:
    """The hyper-parameters of an `hparams` plugin summary's content.

    Only `session_start_info` carries values; experiment and session-end
    summaries give None.

    Raises:
        ValueError: if the content is not an `HParamsPluginData`.
    """
    try:
        data = plugin_data_pb2.HParamsPluginData.FromString(content)
    except DecodeError as error:
        raise ValueError(f"undecodable hparams plugin data: {error}") from None
    if data.WhichOneof("data") != "session_start_info":
        return None
    raw = {
        key: json_format.MessageToDict(value)
        for key, value in data.session_start_info.hparams.items()
    }
    values, _ = flatten(raw)
    return HParamSource("hparams_plugin", where, values)


def from_text(tag: str, texts: list[bytes]) -> tuple[HParamSource | None, str]:
    """Settings from a Hugging Face `args`/`model_config` text summary.

    Returns:
        (source or None, problem or "").
    """
    prefix = text_source_prefix(tag)
    if prefix is None or not texts:
        return None, ""
    raw = texts[0][:MAX_TEXT_CHARS]
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"text {tag!r} is not JSON: {error}"
    except RecursionError:
        return None, f"text {tag!r} is nested too deeply"
    if not isinstance(data, dict):
        return None, f"text {tag!r} is not a JSON object"
    values, problems = flatten(data, prefix=prefix)
    return HParamSource("hf_args", tag, values), "; ".join(problems)


def from_visualdl(hparam: Any, *, where: str) -> HParamSource:
    """The values of a VisualDL `Record.HParam` message."""
    raw: dict[str, Any] = {}
    for info in hparam.hparamInfos:
        kind = info.WhichOneof("type")
        raw[info.name] = None if kind is None else getattr(info, kind)
    values, _ = flatten(raw)
    return HParamSource("visualdl", where, values)


def read_side_file(path: str, name: str) -> tuple[HParamSource | None, str]:
    """Reads one settings file of a run directory.

    Args:
        path: The file.
        name: Its base name, a key of `SIDE_FILES`.

    Returns:
        (source or None, problem or "").
    """
    kind = SIDE_FILES[name]
    try:
        size = os.path.getsize(path)
        if size > MAX_SIDE_FILE_BYTES:
            return None, f"{name}: larger than 1 MiB, not read"
        with open_regular(path) as handle:
            raw = handle.read(MAX_SIDE_FILE_BYTES)
    except OSError as error:
        return None, f"{name}: cannot read: {error.strerror or error}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"{name}: not UTF-8 text: {error}"
    if name.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            return None, f"{name}: not JSON: {error}"
        except RecursionError:
            return None, f"{name}: nested too deeply"
    else:
        found = _load_yaml(text, name)
        if isinstance(found, str):
            return None, found
        data = found[0]
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return None, f"{name}: expected a mapping of settings"
    values, problems = flatten(data)
    return HParamSource(kind, name, values), "; ".join(
        f"{name}: {p}" for p in problems
    )


def _load_yaml(text: str, name: str) -> tuple[Any] | str:
    """(data,) or a problem; never runs code from the file."""
    try:
        import yaml  # noqa: PLC0415 - optional dependency
    except ImportError:
        return YAML_MISSING.format(name=name)
    try:
        return (yaml.load(text, Loader=_lenient_loader(yaml)),)
    except yaml.YAMLError as error:
        return f"{name}: not YAML: {error}"
    except RecursionError:
        return f"{name}: nested too deeply"


_LOADER: Any = None


def _lenient_loader(yaml: Any) -> Any:
    """A safe loader that reads Python-specific tags as plain text.

    Lightning writes what `yaml.dump` makes of a value; an object it cannot
    represent plainly comes out as e.g. `!!python/object/apply:...`. The safe
    loader refuses those; here they become their tag name instead, so one
    exotic value does not hide the file's other settings.
    """
    global _LOADER  # noqa: PLW0603 - built once
    if _LOADER is None:

        class Loader(yaml.SafeLoader):  # type: ignore[misc, name-defined]
            pass

        def unknown(loader: Any, suffix: str, node: Any) -> str:
            return f"!{node.tag}"

        Loader.add_multi_constructor("tag:yaml.org,2002:python/", unknown)
        Loader.add_multi_constructor("!", unknown)
        _LOADER = Loader
    return _LOADER
