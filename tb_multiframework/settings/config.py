"""The user's config file (`--tbmf_config`): per-run overrides and aliases.

```json
{
  "runs": {
    "paddle_tbx*": {"framework": "paddle"},
    "ddp/rank_*": {"group": "ddp"},
    "pytorch_*": {"stepsPerEpoch": 50, "epochOffset": 0},
    "sweep/lr_0.1*": {"hparams": {"lr": 0.1, "optim": {"name": "sgd"}}},
    "mmengine/*": {"epochBase": 1, "splits": {"accuracy": "val"},
                   "trainer": "none", "notResumed": true},
    "sb3/*": {"epochAxis": false}
  },
  "groups": [{"pattern": "sweep/(\\w+)_seed\\d+", "group": "sweep \\1"}],
  "metricAliases": [{"pattern": "^my_loss$", "metric": "loss/train"}]
}
```
`runs` maps a glob over run names (`fnmatch`, `*` also crosses `/`) to
settings; every matching entry applies, later ones winning per key.
`hparams` values are flattened with dots and merged key by key (later
entries win); they override what the run logged. `groups` rules (a regex
searched in the run name -> a group name, `\\1` inserting its groups) come
first among the group rules of `core.groups`.
Corrections of what the tab inferred (the Runs table writes them, for the
exact run name): `trainer` (a trainer name, or "none"), `epochAxis` (false:
no epoch axis), `epochBase` (0 or 1: how the run's epoch counters and
once-per-epoch steps count), `splits` ({tag: "train"|"val"|"test"|null}),
`notResumed` (true: the run's steps going back are not a resume; every
point stays current). `metricAliases` is handed to `core.metrics` as it is. The file is read again
when it changes; a bad file is reported and the previous good one kept. The
file is given with `--tbmf_config`; without the flag, a logdir may carry its
own at `<logdir>/.tb_multiframework/config.json`.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from typing import Any, Mapping

from tb_multiframework.core import strict_json
from tb_multiframework.core.groups import GroupRule, parse_group_rules
from tb_multiframework.core.hparams import flatten
from tb_multiframework.core.metrics import SPLITS
from tb_multiframework.core.types import FRAMEWORKS, TRAINERS
from tb_multiframework.settings.regular import open_regular

# Writers a user may name (core also accepts "unknown" and "").
WRITERS = (
    "torch.utils.tensorboard",
    "tensorboardX",
    "keras",
    "tf.summary",
    "visualdl",
)
_RUN_KEYS: dict[str, type | tuple[type, ...]] = {
    "framework": str,
    "writer": str,
    "group": str,
    "stepsPerEpoch": (int, float),
    "epochOffset": (int, float),
    "hparams": dict,
    "samplesPerStep": (int, float),
    "filesAsRanks": bool,
    "trainer": str,
    "epochAxis": bool,
    "epochBase": int,
    "splits": dict,
    "notResumed": bool,
}
_MAX_SPLITS = 2000  # tags with a split set, per entry
TRAINER_NONE = "none"  # the user says no trainer wrote the run
_MAX_CONFIG_BYTES = 1 << 20  # a config file larger than this is refused


@dataclasses.dataclass(frozen=True)
class RunOverride:
    """Settings for the runs matching `pattern`; None means not set."""

    pattern: str
    framework: str | None = None
    writer: str | None = None
    group: str | None = None
    steps_per_epoch: float | None = None
    epoch_offset: float | None = None
    hparams: tuple[tuple[str, Any], ...] | None = None  # flat, sorted
    samples_per_step: float | None = None  # batch size for samples/s
    files_as_ranks: bool | None = None  # read each events file as a rank
    trainer: str | None = None  # a TRAINERS name or TRAINER_NONE
    epoch_axis: bool | None = None
    epoch_base: int | None = None
    splits: tuple[tuple[str, str | None], ...] | None = None  # sorted
    not_resumed: bool | None = None


@dataclasses.dataclass(frozen=True)
class Config:
    overrides: tuple[RunOverride, ...] = ()
    metric_aliases: tuple[Mapping[str, Any], ...] = ()
    path: str = ""
    group_rules: tuple[GroupRule, ...] = ()

    def for_run(self, run: str) -> RunOverride:
        """The merged settings of every entry whose glob matches `run`."""
        merged: dict[str, Any] = {}
        for override in self.overrides:
            if fnmatch.fnmatchcase(run, override.pattern):
                for field in dataclasses.fields(override)[1:]:
                    value = getattr(override, field.name)
                    if field.name in ("hparams", "splits") and value is not None:
                        both = dict(merged.get(field.name) or ())
                        both.update(value)
                        value = tuple(sorted(both.items()))
                    if value is not None:
                        merged[field.name] = value
        return RunOverride(pattern=run, **merged)


def parse_config(data: Any, *, path: str = "") -> Config:
    """Validates a decoded config file.

    Raises:
      ValueError: naming the offending key or value.
    """
    if not isinstance(data, dict):
        raise ValueError("the config must be a JSON object")
    unknown = set(data) - {"runs", "metricAliases", "groups"}
    if unknown:
        raise ValueError(f"unknown config keys: {sorted(unknown)}")
    runs = data.get("runs", {})
    if not isinstance(runs, dict):
        raise ValueError("'runs' must be an object of glob -> settings")
    overrides = tuple(_parse_override(p, s) for p, s in runs.items())
    aliases = data.get("metricAliases", [])
    if not isinstance(aliases, list) or not all(
        isinstance(a, dict) for a in aliases
    ):
        raise ValueError("'metricAliases' must be a list of objects")
    group_rules = parse_group_rules(data.get("groups", []))
    return Config(
        overrides=overrides,
        metric_aliases=tuple(aliases),
        path=path,
        group_rules=group_rules,
    )


def _parse_override(pattern: str, settings: Any) -> RunOverride:
    where = f"runs[{pattern!r}]"
    if not isinstance(settings, dict):
        raise ValueError(f"{where} must be an object")
    for key, value in settings.items():
        expected = _RUN_KEYS.get(key)
        if expected is None:
            raise ValueError(
                f"{where}: unknown key {key!r} (known: {sorted(_RUN_KEYS)})"
            )
        if expected is bool:
            if not isinstance(value, bool):
                raise ValueError(
                    f"{where}.{key}: wrong type {type(value).__name__}"
                )
        elif isinstance(value, bool) or not isinstance(value, expected):
            raise ValueError(
                f"{where}.{key}: wrong type {type(value).__name__}"
            )
    framework = settings.get("framework")
    if framework is not None and framework not in FRAMEWORKS:
        raise ValueError(
            f"{where}.framework: {framework!r} not in {FRAMEWORKS}"
        )
    writer = settings.get("writer")
    if writer is not None and writer not in WRITERS:
        raise ValueError(f"{where}.writer: {writer!r} not in {WRITERS}")
    steps = settings.get("stepsPerEpoch")
    if steps is not None and not steps > 0:
        raise ValueError(f"{where}.stepsPerEpoch: {steps} is not positive")
    samples = settings.get("samplesPerStep")
    if samples is not None and not samples > 0:
        raise ValueError(f"{where}.samplesPerStep: {samples} is not positive")
    trainer = settings.get("trainer")
    known = [t for t in TRAINERS if t] + [TRAINER_NONE]
    if trainer is not None and trainer not in known:
        raise ValueError(f"{where}.trainer: {trainer!r} not in {known}")
    base = settings.get("epochBase")
    if base is not None and base not in (0, 1):
        raise ValueError(f"{where}.epochBase: {base!r} is not 0 or 1")
    splits = _parse_splits(where, settings.get("splits"))
    hparams = None
    if settings.get("hparams") is not None:
        flat, problems = flatten(settings["hparams"])
        if problems:
            raise ValueError(f"{where}.hparams: {'; '.join(problems)}")
        hparams = tuple(sorted(flat.items()))
    return RunOverride(
        pattern=pattern,
        hparams=hparams,
        framework=framework,
        writer=writer,
        group=settings.get("group"),
        steps_per_epoch=None if steps is None else float(steps),
        epoch_offset=(
            None
            if settings.get("epochOffset") is None
            else float(settings["epochOffset"])
        ),
        samples_per_step=None if samples is None else float(samples),
        files_as_ranks=settings.get("filesAsRanks"),
        trainer=trainer,
        epoch_axis=settings.get("epochAxis"),
        epoch_base=base,
        splits=splits,
        not_resumed=settings.get("notResumed"),
    )


def _parse_splits(
    where: str, splits: Any
) -> tuple[tuple[str, str | None], ...] | None:
    if splits is None:
        return None
    if len(splits) > _MAX_SPLITS:
        raise ValueError(f"{where}.splits: more than {_MAX_SPLITS} tags")
    for tag, split in splits.items():
        if split is not None and split not in SPLITS:
            raise ValueError(
                f"{where}.splits[{tag!r}]: {split!r} not in {SPLITS} or null"
            )
    return tuple(sorted(splits.items()))


def default_config_path(logdir: str) -> str:
    """Where a logdir may carry its own config: `.tb_multiframework/config.json`."""
    if not logdir or "://" in logdir:
        return ""
    return os.path.join(logdir, ".tb_multiframework", "config.json")


class ConfigFile:
    """The config file, re-read when its modification time changes.

    Args:
      path: the file, or None/"" for none.
      optional: whether a missing file is fine (the logdir's default file).
    """

    def __init__(self, path: str | None, *, optional: bool = False) -> None:
        self._path = path or ""
        self._optional = optional
        self._stamp: tuple[float, int] | None = None
        self.config = Config(path=self._path)
        self.error = ""

    @property
    def path(self) -> str:
        """The file ("" for none)."""
        return self._path

    def refresh(self) -> bool:
        """Re-reads the file if it changed. Returns True if the config changed."""
        if not self._path:
            return False
        try:
            stat = os.stat(self._path)
        except FileNotFoundError:
            if self._optional:
                changed = self._stamp is not None or bool(self.error)
                self._stamp, self.error = None, ""
                self.config = Config(path=self._path)
                return changed
            return self._fail(f"config {self._path} does not exist")
        except OSError as error:
            return self._fail(
                f"cannot read config {self._path}: {error.strerror}"
            )
        stamp = (stat.st_mtime, stat.st_size)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        if stat.st_size > _MAX_CONFIG_BYTES:
            return self._fail(f"config {self._path} is larger than 1 MiB")
        try:
            with open_regular(self._path) as handle:
                raw = handle.read(_MAX_CONFIG_BYTES + 1)
            config = parse_config(strict_json.loads(raw), path=self._path)
        except (OSError, ValueError) as error:
            return self._fail(f"config {self._path} not used: {error}")
        self.error = ""
        changed = config != self.config
        self.config = config
        return changed

    def _fail(self, message: str) -> bool:
        changed = message != self.error
        self.error = message
        return changed
