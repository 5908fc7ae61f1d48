"""Plain types shared by the scalar-comparison modules of core/.

The store hands core one `ScalarSeriesLike` per (run, tag) and one `RunInfo`
per run; the config file gives per-run `EpochSetting`s and metric alias rules
(`AliasRule`, parsed in `core.metrics`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from tb_multiframework.core import safe_regex

FRAMEWORKS = ("pytorch", "tensorflow", "paddle", "unknown")
WRITERS = (
    "torch.utils.tensorboard",
    "tensorboardX",
    "keras",
    "tf.summary",
    "visualdl",
    "unknown",
    "",  # the store's "not known"
)
LEVELS = ("epoch", "batch")
# Training loops that write on a framework's behalf, detected from the files
# (ingest/detect.py): "" when none is recognised.
# Why a run's trainer is unknown (the API says it beside `trainer: ""`).
NO_TRAINER = (
    "no trainer's signature in the files (looked for: Lightning, "
    "Transformers, Keras fit, Paddle hapi, MMEngine); set the trainer in the "
    "config (runs[<run>].trainer) or in the Runs table"
)
TRAINERS = (
    "lightning",
    "transformers",
    "keras_fit",
    "paddle_hapi",
    "mmengine",
    "",
)

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class ScalarSeriesLike(Protocol):
    """One scalar series in logged order (not necessarily sorted by step).

    A restarted run may repeat steps; every point is kept.
    """

    @property
    def steps(self) -> Int64Array:
        """Global steps as logged."""
        ...

    @property
    def wall_times(self) -> FloatArray:
        """Seconds since the Unix epoch."""
        ...

    @property
    def values(self) -> FloatArray:
        """Logged values; may hold NaN and +-Inf."""
        ...


@dataclass(frozen=True)
class RunInfo:
    """What core needs to know about a run.

    Attributes:
        run: Path relative to the logdir, `/`-separated (`keras_fit/train`).
        group: The logical run (`keras_fit` for Keras `train`/`validation`
            sub-runs, else the run itself).
        framework: One of `FRAMEWORKS`.
        writer: One of `WRITERS`.
        trainer: One of `TRAINERS` (the loop on top of the writer).
    """

    run: str
    group: str
    framework: str = "unknown"
    writer: str = "unknown"
    trainer: str = ""

    def __post_init__(self) -> None:
        if self.framework not in FRAMEWORKS:
            raise ValueError(f"unknown framework: {self.framework!r}")
        if self.writer not in WRITERS:
            raise ValueError(f"unknown writer: {self.writer!r}")
        if self.trainer not in TRAINERS:
            raise ValueError(f"unknown trainer: {self.trainer!r}")

    @property
    def basename(self) -> str:
        """Last path component of the run name, lower-cased."""
        return self.run.rstrip("/").rsplit("/", 1)[-1].lower()


@dataclass(frozen=True)
class EpochSetting:
    """A user's epoch setting for one run (from the config file).

    Attributes:
        steps_per_epoch: Global steps in one epoch; when set it overrides
            every other epoch source for step-counted tags.
        epoch_offset: Added to every epoch position of the run (for a run
            resumed with its epoch counter restarted).
        epoch_base: How the run's epoch counters and once-per-epoch steps
            count: 0 (the first epoch is 0) or 1; None: from the evidence.
        disabled: No epoch axis for the run (the user said so).
    """

    steps_per_epoch: float | None = None
    epoch_offset: float = 0.0
    epoch_base: int | None = None
    disabled: bool = False

    def __post_init__(self) -> None:
        spe = self.steps_per_epoch
        if spe is not None and not (math.isfinite(spe) and spe > 0):
            raise ValueError(f"stepsPerEpoch must be > 0, got {spe!r}")
        if self.epoch_base not in (None, 0, 1):
            raise ValueError(f"epochBase must be 0 or 1, got {self.epoch_base!r}")
        if not math.isfinite(self.epoch_offset):
            raise ValueError(
                f"epochOffset must be finite, got {self.epoch_offset!r}"
            )


@dataclass(frozen=True)
class AliasRule:
    """A user rule mapping raw tags to a canonical metric name.

    Attributes:
        pattern: Regular expression (Python syntax, matched in linear time
            by `core.safe_regex`) that must match the whole raw tag
            (case-sensitive; use `(?i)` for case-insensitive).
        metric: Canonical name to give; may use the pattern's groups
            (`\\1`, `\\g<name>`), read as `re.Match.expand` does. Lower-cased.
        level: "epoch", "batch" or None (unknown).
        run_pattern: Optional regex that must match the whole run name.
    """

    pattern: str
    metric: str
    level: str | None = None
    run_pattern: str | None = None
    _tag_re: safe_regex.Regex = field(init=False, repr=False, compare=False)
    _run_re: safe_regex.Regex | None = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if not self.metric.strip():
            raise ValueError(f"alias metric must not be empty: {self.metric!r}")
        if self.level is not None and self.level not in LEVELS:
            raise ValueError(f"alias level must be epoch|batch: {self.level!r}")
        tag_re = _compile(self.pattern)
        object.__setattr__(self, "_tag_re", tag_re)
        run_re = (
            None if self.run_pattern is None else _compile(self.run_pattern)
        )
        object.__setattr__(self, "_run_re", run_re)
        # A template naming a group the pattern lacks fails here, once,
        # rather than on every tag it matches.
        unmatched = safe_regex.Match(
            "", ((0, 0),) + ((-1, -1),) * tag_re.groups, tag_re.groupindex
        )
        try:
            unmatched.expand(self.metric)
        except (re.error, IndexError) as err:
            raise ValueError(
                f"alias metric {self.metric!r} refers to a missing group: {err}"
            ) from err

    def match(self, run: str, tag: str) -> str | None:
        """Returns the canonical name this rule gives, or None."""
        try:
            if self._run_re is not None and not self._run_re.fullmatch(run):
                return None
            found = self._tag_re.fullmatch(tag)
        except safe_regex.RegexError:
            return None  # the fallback engine gave up on this pattern
        if found is None:
            return None
        return found.expand(self.metric).strip().lower()


_MAX_PATTERN_CHARS = 1000  # characters of one alias regex


def _compile(pattern: str) -> safe_regex.Regex:
    if len(pattern) > _MAX_PATTERN_CHARS:
        raise ValueError(
            f"alias pattern longer than {_MAX_PATTERN_CHARS}: {pattern[:40]!r}"
        )
    try:
        return safe_regex.compile(pattern)
    except safe_regex.RegexError as err:
        raise ValueError(
            f"invalid alias pattern {pattern!r}: {err.message}"
        ) from err


@dataclass(frozen=True)
class Excluded:
    """A series that cannot be placed on the requested axis, and why."""

    reason: str


def all_finite(values: npt.NDArray[np.float64]) -> bool:
    """Whether every value is finite, usually without an n-sized mask.

    A NaN or an Inf anywhere makes the sum non-finite; only a sum that
    overflows needs the elementwise check.
    """
    with np.errstate(all="ignore"):
        if math.isfinite(float(np.add.reduce(values))):
            return True
    return bool(np.all(np.isfinite(values)))
