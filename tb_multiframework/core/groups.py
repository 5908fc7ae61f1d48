"""Run groups: which runs are repeats or parts of one experiment.

A run's group comes from the first rule that claims it (`GROUP_RULES`):

1. the config file: `runs[glob].group`, then the `groups` rules (a regex
   searched in the run name -> a group name, `\\1` inserting its groups);
2. DDP/Horovod ranks: sibling directories named `rank_0`, `rank-1`,
   `rank1`, `worker_2`, `local_rank_0`, ... (at least two under one parent)
   form one group named after the parent;
3. seed repeats: runs of one framework whose hyper-parameters are equal
   except keys named `seed` / `*_seed` / `*.seed` (which they have, with at
   least two different values among them) form one group, named by the
   common part of their names (`seeds/torch_seed*`), else
   `repeats <config hash of the shared values>`;
4. the logical run ingest found: Keras' `train`/`validation` sub-runs, and
   sub-runs such as torch's `add_scalars`/`add_hparams` directories;
5. else the run is its own group.

Rules are plain functions over `RunFacts`, so others can be added or
reordered. `group_key` groups runs by any column instead (framework,
writer, trainer, a hyper-parameter).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .hparams import HParamValue, config_hash, is_seed_key

MAX_GROUP_RULES = 200  # `groups` rules in the config file
_MAX_PATTERN_CHARS = 1000  # characters of one group regex
_RANK_DIR = re.compile(
    r"(?:local[_-]?)?(?:rank|worker)[_-]?(\d+)", re.IGNORECASE
)
_TIMESTAMP_DIR = re.compile(r"\d{9,}\.\d+")  # torch add_hparams: time.time()
GROUP_BY = ("group", "framework", "writer", "trainer", "none")
HPARAM_PREFIX = "hparam:"

# groupSource values.
SOURCE_CONFIG = "config"
SOURCE_CONFIG_RULE = "config rule"
SOURCE_DDP = "ddp ranks"
SOURCE_SEEDS = "seed repeats"
SOURCE_SUBRUNS = "sub-runs"
SOURCE_RUN = "run"


def compile_user_pattern(pattern: str) -> re.Pattern[str]:
    """Compiles a regex the user wrote (config `groups` rules).

    The one place user group patterns are compiled, so the engine can be
    swapped for a linear-time one in a single line.

    Raises:
        ValueError: for a pattern that is too long or does not compile.
    """
    if len(pattern) > _MAX_PATTERN_CHARS:
        raise ValueError(
            f"group pattern longer than {_MAX_PATTERN_CHARS}: {pattern[:40]!r}"
        )
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"invalid group pattern {pattern!r}: {err}") from err


@dataclass(frozen=True)
class GroupRule:
    """A config rule: runs whose name matches `pattern` join `group`.

    Attributes:
        pattern: Regex searched in the run name.
        group: Group name; `\\1`, `\\g<name>` insert the match's groups.
    """

    pattern: str
    group: str
    _re: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.group.strip():
            raise ValueError(f"group rule {self.pattern!r}: empty group name")
        object.__setattr__(self, "_re", compile_user_pattern(self.pattern))

    def match(self, run: str) -> str | None:
        """The group this rule gives `run`, or None."""
        found = self._re.search(run)
        if found is None:
            return None
        try:
            return found.expand(self.group).strip() or None
        except (re.error, IndexError) as err:
            raise ValueError(
                f"group rule {self.pattern!r}: {self.group!r} refers to a "
                f"missing group: {err}"
            ) from err


def parse_group_rules(data: Any) -> tuple[GroupRule, ...]:
    """Validates the config's `groups`: `[{"pattern", "group"}]`.

    Raises:
        ValueError: naming the offending rule.
    """
    if not isinstance(data, list):
        raise ValueError("'groups' must be a list of {pattern, group}")
    if len(data) > MAX_GROUP_RULES:
        raise ValueError(f"at most {MAX_GROUP_RULES} group rules")
    rules = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or set(item) != {"pattern", "group"}:
            raise ValueError(
                f"groups[{i}] must be an object with 'pattern' and 'group'"
            )
        if not all(isinstance(item[k], str) for k in ("pattern", "group")):
            raise ValueError(f"groups[{i}]: 'pattern' and 'group' are strings")
        rules.append(GroupRule(item["pattern"], item["group"]))
    return tuple(rules)


@dataclass(frozen=True)
class RunFacts:
    """What the group rules know about a run.

    Attributes:
        run: The run name.
        logical: The logical run ingest found (Keras `x` for `x/train`).
        framework: Its framework.
        hparams: Its merged hyper-parameters.
        config_group: The group the config's `runs[glob]` gives, or None.
    """

    run: str
    logical: str
    framework: str = "unknown"
    hparams: Mapping[str, HParamValue] = field(default_factory=dict)
    config_group: str | None = None


@dataclass(frozen=True)
class Assigned:
    """A run's group and the rule that gave it."""

    group: str
    source: str


Rule = Callable[[Sequence[RunFacts]], dict[str, Assigned]]


def config_glob_rule(runs: Sequence[RunFacts]) -> dict[str, Assigned]:
    """`runs[glob].group` of the config file."""
    return {
        f.run: Assigned(f.config_group, SOURCE_CONFIG)
        for f in runs
        if f.config_group
    }


def config_regex_rule(rules: Sequence[GroupRule]) -> Rule:
    """The config's `groups` rules, first match wins."""

    def apply(runs: Sequence[RunFacts]) -> dict[str, Assigned]:
        out = {}
        for facts in runs:
            for rule in rules:
                group = rule.match(facts.run)
                if group is not None:
                    out[facts.run] = Assigned(group, SOURCE_CONFIG_RULE)
                    break
        return out

    return apply


def rank_of(name: str) -> int | None:
    """The rank a DDP/Horovod rank directory's base name says, else None."""
    found = _RANK_DIR.fullmatch(name)
    return None if found is None else int(found.group(1))


def rank_rule(runs: Sequence[RunFacts]) -> dict[str, Assigned]:
    """Sibling rank directories (two or more) -> their parent's name."""
    ranks: dict[str, set[str]] = defaultdict(set)
    parent_of: dict[str, str] = {}
    for facts in runs:
        base = posixpath.basename(facts.logical)
        if rank_of(base) is not None:
            parent = posixpath.dirname(facts.logical) or "."
            ranks[parent].add(base)
            parent_of[facts.run] = parent
    return {
        run: Assigned(parent, SOURCE_DDP)
        for run, parent in parent_of.items()
        if len(ranks[parent]) >= 2
    }


def seed_rule(runs: Sequence[RunFacts]) -> dict[str, Assigned]:
    """Runs equal in every hyper-parameter but their seeds -> one group."""
    families: dict[tuple[Any, ...], list[RunFacts]] = defaultdict(list)
    for facts in runs:
        seeds = [k for k in facts.hparams if is_seed_key(k)]
        if not seeds:
            continue
        rest = {k: v for k, v in facts.hparams.items() if not is_seed_key(k)}
        key = (facts.framework, config_hash(rest), tuple(sorted(rest)))
        families[key].append(facts)
    out = {}
    for key, members in families.items():
        logical = sorted({f.logical for f in members})
        distinct = {_seed_values(f) for f in members}
        if len(logical) < 2 or len(distinct) < 2:
            continue
        name = _common_name(logical) or f"repeats {key[1]}"
        for facts in members:
            out[facts.run] = Assigned(name, SOURCE_SEEDS)
    return out


def _seed_values(facts: RunFacts) -> tuple[tuple[str, str], ...]:
    return tuple(
        sorted((k, repr(v)) for k, v in facts.hparams.items() if is_seed_key(k))
    )


def logical_rule(runs: Sequence[RunFacts]) -> dict[str, Assigned]:
    """The logical run ingest found (Keras train/validation, sub-runs)."""
    return {
        f.run: Assigned(f.logical, SOURCE_SUBRUNS)
        for f in runs
        if f.logical != f.run
    }


def default_rules(config_rules: Sequence[GroupRule] = ()) -> list[Rule]:
    """The rules in their order (see the module docstring)."""
    return [
        config_glob_rule,
        config_regex_rule(config_rules),
        rank_rule,
        seed_rule,
        logical_rule,
    ]


def assign_groups(
    runs: Sequence[RunFacts], rules: Sequence[Rule]
) -> dict[str, Assigned]:
    """Every run's group: the first rule that claims it, else itself.

    Each rule sees only the runs no earlier rule claimed.
    """
    out: dict[str, Assigned] = {}
    for rule in rules:
        left = [f for f in runs if f.run not in out]
        if not left:
            break
        for run, assigned in rule(left).items():
            out.setdefault(run, assigned)
    for facts in runs:
        out.setdefault(facts.run, Assigned(facts.run, SOURCE_RUN))
    return out


def hparams_owner(run: str, known_runs: set[str]) -> str:
    """The run whose hyper-parameters a run's own ones are.

    torch's `add_hparams()` without `run_name` writes them into a sub-run
    named by `time.time()` (`<run>/1712345678.123`); they describe `<run>`.
    """
    parent, base = posixpath.split(run)
    if parent and parent in known_runs and _TIMESTAMP_DIR.fullmatch(base):
        return parent
    return run


def check_group_by(value: str) -> str:
    """Validates a `groupBy` value.

    Raises:
        ValueError: for anything but `GROUP_BY` or `hparam:<key>`.
    """
    if value in GROUP_BY:
        return value
    if value.startswith(HPARAM_PREFIX) and len(value) > len(HPARAM_PREFIX):
        return value
    raise ValueError(
        f"groupBy must be one of {list(GROUP_BY)} or hparam:<key>, "
        f"got {value!r}"
    )


def group_key(
    by: str,
    *,
    run: str,
    group: str,
    framework: str,
    writer: str,
    trainer: str,
    hparams: Mapping[str, HParamValue],
) -> str:
    """The group of a run under a "group by" column.

    `hparam:<key>` gives `<key>=<value>` (JSON for the value, so `lr=0.1`,
    `opt="adam"`), or `<key> not set`.
    """
    if by == "group":
        return group
    if by == "framework":
        return framework
    if by == "writer":
        return writer or "unknown writer"
    if by == "trainer":
        return trainer or "no trainer"
    if by == "none":
        return run
    key = by[len(HPARAM_PREFIX) :]
    if key not in hparams:
        return f"{key} not set"
    return f"{key}={_json_scalar(hparams[key])}"


def _json_scalar(value: HParamValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _common_name(names: Sequence[str]) -> str:
    """`a/run_seed0`, `a/run_seed1` -> `a/run_seed*`."""
    prefix = os.path.commonprefix(list(names))
    reversed_names = [n[len(prefix) :][::-1] for n in names]
    suffix = os.path.commonprefix(reversed_names)[::-1]
    if not prefix.strip("_-./ ") and not suffix.strip("_-./ "):
        return ""
    return f"{prefix}*{suffix}"
