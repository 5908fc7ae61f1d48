"""Hyper-parameters of a run: flat keys, one value type per kind, a hash, diffs.

Every source (torch/Keras `hparams` summaries, VisualDL `add_hparams`,
Lightning's `hparams.yaml`, Hugging Face `args`, config files beside the
logs, the user's config) hands over a nested mapping; it is flattened here
with dots (`{"optim": {"lr": 0.1}}` -> `optim.lr`), values normalised so the
same setting compares equal whatever wrote it, and the sources merged in a
fixed order (later wins, see `SOURCE_ORDER`).

Values after normalising: `bool`, `int` (integral numbers, also those stored
as doubles such as torch's `number_value`), `float`, `str` or None; lists
are kept as JSON text (`"[32, 64]"`), so every value is a scalar a table cell
and a diff can show.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

HParamValue = Union[bool, int, float, str, None]

MAX_HPARAMS = 2000  # keys kept per run; more are dropped with a warning
MAX_DEPTH = 20  # nesting levels flattened; deeper values become JSON text
MAX_VALUE_CHARS = 1000  # characters of one string value kept
_MAX_EXACT_INT = 2**53  # doubles above this are not exact integers

# Merge order, weakest first: a later source overrides an earlier one key by
# key. Files beside the logs beat logged summaries: they keep types and
# nesting that summaries lose (torch's add_hparams stores a bool as 1.0,
# Lightning logs its hparams.yaml flattened); the user's config beats all.
SOURCE_ORDER = (
    "hf_args",  # Hugging Face Trainer `args` / `model_config` text
    "hparams_plugin",  # torch / tensorboardX add_hparams, Keras hp.hparams
    "visualdl",  # VisualDL LogWriter.add_hparams
    "config_file",  # config.json / config.yaml / hparams.json in the run dir
    "hparams_yaml",  # PyTorch Lightning's hparams.yaml
    "tbmf_config",  # the --tbmf_config file's runs[glob].hparams
)
SEED_KEY = re.compile(r"(?:^|[._])seed$", re.IGNORECASE)


@dataclass(frozen=True)
class HParamSource:
    """Hyper-parameters found in one place.

    Attributes:
        kind: One of `SOURCE_ORDER`.
        where: What the user can look for (a file name, a tag).
        values: Flat key -> normalised value.
        run: The run the values were found in (a sub-run, a parent
            directory's run), or "" for the run itself.
    """

    kind: str
    where: str
    values: Mapping[str, HParamValue]
    run: str = ""


@dataclass(frozen=True)
class MergedHParams:
    """A run's hyper-parameters, merged over its sources.

    Attributes:
        values: key -> value, keys sorted.
        sources: key -> description of the source that gave the value.
        config_hash: first 8 hex digits of the MD5 of
            `json.dumps(values, sort_keys=True)`, or "" without values.
    """

    values: Mapping[str, HParamValue]
    sources: Mapping[str, str]
    config_hash: str


def normalise_value(value: Any) -> HParamValue:
    """One value as a table cell: integral numbers become ints.

    Non-finite floats stay floats (the JSON encoder writes them as "NaN",
    "Infinity"); lists and other JSON values become compact JSON text.
    """
    if value is None or isinstance(value, (bool, str)):
        return value[:MAX_VALUE_CHARS] if isinstance(value, str) else value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            if abs(value) <= _MAX_EXACT_INT:
                return int(value)
        return value
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        text = "(not shown: not a plain value)"
    return text[:MAX_VALUE_CHARS]


def flatten(
    data: Mapping[str, Any], *, prefix: str = ""
) -> tuple[dict[str, HParamValue], list[str]]:
    """Flattens nested mappings with dots; normalises every leaf.

    A `/` inside a key is a dot too: PyTorch Lightning flattens nested
    hyper-parameters with `/` before logging them, so its `hparams` summary
    (`model/hidden`) and its `hparams.yaml` (`model: {hidden: }`) agree.

    Args:
        data: A nested mapping (keys are made strings).
        prefix: Prepended to every key (`"model_config."`).

    Returns:
        (flat values, problems): problems name keys dropped or truncated.
    """
    out: dict[str, HParamValue] = {}
    problems: list[str] = []
    stack: list[tuple[str, Any, int]] = [(prefix.rstrip("."), data, 0)]
    while stack:
        key, value, depth = stack.pop()
        if isinstance(value, Mapping) and value and depth < MAX_DEPTH:
            for sub, item in reversed(list(value.items())):
                name = str(sub).replace("/", ".")
                stack.append(
                    (f"{key}.{name}" if key else name, item, depth + 1)
                )
            continue
        if not key:
            continue
        if len(out) >= MAX_HPARAMS:
            problems.append(
                f"more than {MAX_HPARAMS} hyper-parameters; rest dropped"
            )
            break
        out[key] = normalise_value(value)
    return out, problems


def merge_sources(sources: Iterable[HParamSource]) -> MergedHParams:
    """Merges sources in `SOURCE_ORDER` (later wins), then hashes.

    Sources of the same kind keep their given order (the last wins).
    """
    rank = {kind: i for i, kind in enumerate(SOURCE_ORDER)}
    ordered = sorted(
        enumerate(sources),
        key=lambda item: (rank.get(item[1].kind, -1), item[0]),
    )
    values: dict[str, HParamValue] = {}
    origin: dict[str, str] = {}
    for _, source in ordered:
        label = describe_source(source)
        for key, value in source.values.items():
            values[key] = value
            origin[key] = label
    keys = sorted(values)
    merged = {key: values[key] for key in keys}
    return MergedHParams(
        values=merged,
        sources={key: origin[key] for key in keys},
        config_hash=config_hash(merged),
    )


def describe_source(source: HParamSource) -> str:
    """`hparams_yaml: hparams.yaml` (plus ` in <run>` for another run)."""
    text = f"{source.kind}: {source.where}" if source.where else source.kind
    return f"{text} (in {source.run})" if source.run else text


def config_hash(values: Mapping[str, HParamValue]) -> str:
    """First 8 hex digits of md5(json.dumps(values, sort_keys=True))."""
    if not values:
        return ""
    text = json.dumps(dict(values), sort_keys=True)
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()[
        :8
    ]


def is_seed_key(key: str) -> bool:
    """`seed`, `*_seed`, `*.seed` (any case): keys that make repeats."""
    return bool(SEED_KEY.search(key))


@dataclass(frozen=True)
class DiffKey:
    """One key of a config diff.

    Attributes:
        key: The flat key.
        values: run -> value, None where the run lacks the key.
        present: run -> whether the run has the key (None is also a value).
        differs: Whether the runs disagree (a missing key differs).
    """

    key: str
    values: Mapping[str, HParamValue]
    present: Mapping[str, bool]
    differs: bool


def config_diff(runs: Mapping[str, Mapping[str, HParamValue]]) -> list[DiffKey]:
    """The keys of 2+ runs side by side, differing keys first.

    Args:
        runs: run -> its merged hyper-parameters, in display order.

    Returns:
        One entry per key any run has: differing keys first, then the rest,
        each part sorted by key.
    """
    names = list(runs)
    keys = sorted({key for values in runs.values() for key in values})
    out = []
    for key in keys:
        present = {run: key in runs[run] for run in names}
        values = {run: runs[run].get(key) for run in names}
        distinct = {_identity(values[run]) for run in names if present[run]}
        differs = not all(present.values()) or len(distinct) > 1
        out.append(DiffKey(key, values, present, differs))
    out.sort(key=lambda d: (not d.differs, d.key))
    return out


def differing_keys(runs: Sequence[Mapping[str, HParamValue]]) -> list[str]:
    """Keys whose value (or presence) is not the same in every run."""
    if not runs:
        return []
    keys = sorted({key for values in runs for key in values})
    return [
        key
        for key in keys
        if len({(key in v, _identity(v.get(key))) for v in runs}) > 1
    ]


def _identity(value: HParamValue) -> tuple[str, Any]:
    """Equality that keeps True apart from 1 and NaN equal to NaN."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, float) and math.isnan(value):
        return ("nan", None)
    if isinstance(value, (int, float)):
        return ("number", value)
    return (type(value).__name__, value)
