"""Cross-framework metric matching: canonical `quantity/split` names.

Every scalar (run, tag) gets a canonical name such as `loss/train` and a
level ("epoch", "batch" or None when the naming does not say), from the tag
and the run name, so that Keras `epoch_loss` in `x/train`, PyTorch
`Loss/train` and Paddle `train/loss` meet under one name. The rules are the
data tables below plus user alias rules from the config file, tried first.
The raw tag always stays with the result.

Rules, in order (the first that applies wins; see docs/conventions.md):

1. User alias rules (`AliasRule`), in config order; then speed and
   resource tags (`core.speed_tags`: Keras `*_steps_per_second`, HF
   `train_runtime`, MMEngine `time`, SB3 `time/fps`, `perf/step_time`,
   `gpu/memory_gb`, ..., and the series derived from wall time) under
   their canonical names (`time/step`, `throughput/steps_per_s`, ...).
2. Keras runs (writer `keras`, or a TensorFlow run named `train` or
   `validation`): `epoch_<q>` is epoch-level, `batch_<q>` batch-level,
   `evaluation_<q>_vs_iterations` is `<q>/val` at epoch level. In any run an
   `epoch_` prefix of the last tag component means epoch level.
3. Lightning suffixes: `<split>_<q>_epoch` / `<split>_<q>_step`.
4. The split is a whole tag component (`Loss/train`, `Train/Loss`,
   `eval/acc`), else an underscore prefix or suffix of the last component
   (`val_loss`, `loss_val`), else the first or last word of another
   component (`validation_by_epoch/accuracy`), else the run's last path
   component (`x/train`, `x/validation`), else the sub-run name PyTorch
   `add_scalars` makes (`<main>_<sub>`), else a split inferred from the data
   (`SplitHint`, e.g. a tag logged once per epoch only beside validation
   metrics), else it is unknown: the name is the quantity alone and the
   derivation says how to set it. The user's split (`SplitHint` with
   `override`) beats all of these.
5. Paddle hapi runs (`paddle.callbacks.VisualDL`, trainer `paddle_hapi`):
   `train/<q>` is batch-level and `eval/<q>` epoch-level.
6. Quantities are lower-cased and renamed by `QUANTITY_SYNONYMS`
   (`acc` -> `accuracy`, `lr` -> `learning_rate`).

Epoch counters (`epoch`, Lightning's `epoch`, HF's `train/epoch`) are the
epoch axis' source, not a metric of a split: they are all named `epoch`.
A tag's second loop (`core.loops`, `"time ⟨loop 2⟩"`) is named as its tag,
with the loop kept in the name (`time ⟨loop 2⟩`).
In the index, a Keras validation run's `evaluation_<q>_vs_iterations` (the
same values as its `epoch_<q>`) is an alias of the `epoch_<q>` member, so
each run has one series per metric.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .loops import loop_tag, parse_loop_tag
from .speed_tags import CANONICAL_UNITS, speed_tag
from .types import LEVELS, AliasRule, RunInfo

SPLIT_SYNONYMS: dict[str, str] = {
    "train": "train",
    "training": "train",
    "validation": "val",
    "val": "val",
    "valid": "val",
    "eval": "val",
    "evaluation": "val",
    "test": "test",
    "testing": "test",
}
QUANTITY_SYNONYMS: dict[str, str] = {
    "acc": "accuracy",
    "acc_top1": "accuracy",
    "accuracy_top1": "accuracy",
    "acc_top5": "accuracy_top5",
    "categorical_accuracy": "accuracy",
    "sparse_categorical_accuracy": "accuracy",
    "binary_accuracy": "accuracy",
    "lr": "learning_rate",
    "learningrate": "learning_rate",
}
SPLITS = ("train", "val", "test")
# Quantities no split measures (a schedule): named without one, so that
# Keras' `epoch_learning_rate` (train run), HF's `train/learning_rate` and a
# script's `lr` are one metric.
SPLITLESS = frozenset({"learning_rate"})
HOW_TO_SET_SPLIT = (
    "set it in the Runs table or in the config (runs[<run>].splits)"
)
EPOCH_COUNTER = "epoch"  # the one name of every epoch counter tag
HP_METRIC_PLACEHOLDER = -1.0  # Lightning's hp_metric before it is set
MAX_ALIAS_RULES = 500  # alias rules in the config file

# Tags TensorBoard plugins write for their own use, never metrics.
_INTERNAL_TAG = re.compile(
    r"custom_scalars__config__|_hparams_/.*|.*/text_summary|keras"
)
_KERAS_EVAL = re.compile(r"evaluation_(.+)_vs_iterations")
_KERAS_LEVEL = re.compile(r"(epoch|batch)_(.+)")
_LIGHTNING_LEVEL = re.compile(r"(.+)_(epoch|step)")
_EPOCH_PREFIX = re.compile(r"epoch_(.+)")
_ALIAS_KEYS = frozenset({"pattern", "metric", "level", "runPattern"})


@dataclass(frozen=True)
class SplitHint:
    """A split for one (run, tag) that its name does not give.

    Attributes:
        split: One of `SPLITS`, or None ("no split", set by the user).
        how: The evidence, or "set by you".
        override: The user's: beats the split the name gives.
    """

    split: str | None
    how: str
    override: bool = False


@dataclass(frozen=True)
class CanonicalMetric:
    """The canonical metric of one (run, tag).

    Attributes:
        name: Lower-case `quantity/split` (`loss/train`), the quantity alone
            when the split is unknown, or the alias name.
        level: "epoch", "batch" or None (the naming does not say).
        derivation: How the name was found, for the UI.
        split: The split, or None when unknown.
        split_source: "name" (tag or run name), "inferred" (the data),
            "user" (set by you), "alias" or "unknown".
    """

    name: str
    level: str | None
    derivation: str
    split: str | None = None
    split_source: str = "unknown"


@dataclass(frozen=True)
class MetricMember:
    """One raw (run, tag) of a metric entry.

    Attributes:
        aliases: Other tags of the same run holding the same series (Keras'
            `evaluation_<q>_vs_iterations` beside `epoch_<q>`).
    """

    run: str
    tag: str
    level: str | None
    derivation: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetricEntry:
    """One metric of the index: a name, a level and its raw members.

    Attributes:
        name: Canonical name.
        level: "epoch", "batch" or None. Members whose own level is unknown
            appear under every known level of their name, so they can be
            compared with both.
        members: Raw (run, tag) pairs, sorted.
    """

    name: str
    level: str | None
    members: tuple[MetricMember, ...]

    @property
    def key(self) -> str:
        """Unique id of the entry: `name`, or `name@level`."""
        return metric_key(self.name, self.level)


def metric_key(name: str, level: str | None) -> str:
    """The unique id of a metric entry (`loss/train@epoch`)."""
    return name if level is None else f"{name}@{level}"


def parse_alias_rules(section: object) -> tuple[AliasRule, ...]:
    """Builds alias rules from the config file's `metricAliases` section.

    The section is a list of objects with keys `pattern` (regex over the raw
    tag, whole-tag match), `metric` (canonical name, may use `\\1` groups),
    optional `level` ("epoch" | "batch" | null) and optional `runPattern`
    (regex over the run name, whole-name match).

    Args:
        section: The parsed JSON value (None for no section).

    Returns:
        The rules in config order.

    Raises:
        ValueError: On a malformed section, naming the bad entry.
    """
    if section is None:
        return ()
    if not isinstance(section, (list, tuple)):
        raise ValueError(  # noqa: TRY004
            f"metric aliases must be a list, got {section!r}"
        )
    if len(section) > MAX_ALIAS_RULES:
        raise ValueError(
            f"at most {MAX_ALIAS_RULES} metric aliases, got {len(section)}"
        )
    rules = []
    for i, item in enumerate(section):
        if not isinstance(item, dict):
            raise ValueError(  # noqa: TRY004
                f"metric alias {i}: expected an object: {item!r}"
            )
        unknown = sorted(set(item) - _ALIAS_KEYS)
        if unknown:
            raise ValueError(f"metric alias {i}: unknown keys {unknown}")
        pattern = item.get("pattern")
        metric = item.get("metric")
        level = item.get("level")
        run_pattern = item.get("runPattern")
        if not isinstance(pattern, str) or not isinstance(metric, str):
            raise ValueError(  # noqa: TRY004
                f"metric alias {i}: 'pattern' and 'metric' must be strings: "
                f"{item!r}"
            )
        if level is not None and level not in LEVELS:
            raise ValueError(f"metric alias {i}: bad level {level!r}")
        if run_pattern is not None and not isinstance(run_pattern, str):
            raise ValueError(
                f"metric alias {i}: bad runPattern {run_pattern!r}"
            )
        try:
            rules.append(AliasRule(pattern, metric, level, run_pattern))
        except ValueError as err:
            raise ValueError(f"metric alias {i}: {err}") from err
    return tuple(rules)


def canonical_metric(
    run: RunInfo,
    tag: str,
    *,
    aliases: Sequence[AliasRule] = (),
    run_tags: frozenset[str] = frozenset(),
    split_hint: SplitHint | None = None,
) -> CanonicalMetric | None:
    """Finds the canonical metric of a raw (run, tag).

    Args:
        run: The run the tag belongs to.
        tag: The raw scalar tag (or a loop's name, `core.loops.loop_tag`).
        aliases: User rules, tried first, in order.
        run_tags: The run's scalar tags (some speed tags are named only
            beside others: MMEngine's `time` with its `data_time`).
        split_hint: A split the data shows or the user set.

    Returns:
        The canonical metric, or None for tags that are not metrics
        (TensorBoard's internal tags, an empty tag, a bare split word).
    """
    for i, rule in enumerate(aliases):
        name = rule.match(run.run, tag)
        if name:
            return CanonicalMetric(
                name,
                rule.level,
                f"alias rule {i + 1} ({rule.pattern!r})",
                split=name.rsplit("/", 1)[-1] if "/" in name else None,
                split_source="alias",
            )
    loop = parse_loop_tag(tag)
    raw = tag if loop is None else loop[0]
    if _INTERNAL_TAG.fullmatch(raw):
        return None
    tokens = [t for t in raw.split("/") if t]
    speed = speed_tag(run, tag, run_tags=run_tags)
    if speed is not None:
        # The name says what is timed; the split is shown as the tag says it.
        split = _split_from_tokens(tokens)[0] or _split_from_run(
            run, raw, tokens
        )[0]
        if split is None:
            return CanonicalMetric(
                speed.name,
                None,
                f"{speed.what}; a speed or resource metric belongs to no split",
                None,
                "name",
            )
        return CanonicalMetric(speed.name, None, speed.what, split, "name")
    if not tokens:
        return None
    found = _parse_tag(run, raw, tokens, split_hint)
    if found is None or loop is None:
        return found
    return dataclasses.replace(
        found,
        name=loop_tag(found.name, loop[1]),
        derivation=f"{found.derivation}; loop {loop[1] + 1} of tag {raw!r} "
        "(logged by another loop at another step scale)",
    )


def build_metric_index(
    pairs: Iterable[tuple[RunInfo, str]],
    *,
    aliases: Sequence[AliasRule] = (),
    level_hints: Mapping[tuple[str, str], str] | None = None,
    split_hints: Mapping[tuple[str, str], SplitHint] | None = None,
) -> list[MetricEntry]:
    """Groups raw (run, tag) pairs into canonical metrics.

    Epoch-level and batch-level series of one name become separate entries;
    members of unknown level join each known level of their name (or form
    the single level-None entry when no level is known).

    Args:
        pairs: Every scalar (run, tag) to index.
        aliases: User alias rules.
        level_hints: (run, tag) -> level known from the data, used where the
            naming says nothing (e.g. "epoch" for the epoch map's
            `epoch_indexed_tags`).
        split_hints: (run, tag) -> a split inferred from the data or set by
            the user.

    Returns:
        Entries sorted by name, then level (None, epoch, batch).
    """
    hints = level_hints or {}
    splits = split_hints or {}
    pairs = list(pairs)
    run_tags: dict[str, set[str]] = {}
    for run, tag in pairs:
        run_tags.setdefault(run.run, set()).add(tag)
    frozen = {run: frozenset(tags) for run, tags in run_tags.items()}
    by_name: dict[str, list[MetricMember]] = {}
    for run, tag in pairs:
        found = canonical_metric(
            run,
            tag,
            aliases=aliases,
            run_tags=frozen[run.run],
            split_hint=splits.get((run.run, tag)),
        )
        if found is None:
            continue
        level, how = found.level, found.derivation
        hint = hints.get((run.run, tag))
        if (
            level is None
            and hint in LEVELS
            and found.name != EPOCH_COUNTER
            and found.name not in CANONICAL_UNITS  # speed: one entry, no level
        ):
            level, how = hint, f"{how}; {hint} level from the data"
        member = MetricMember(run.run, tag, level, how)
        by_name.setdefault(found.name, []).append(member)
    entries = []
    for name in sorted(by_name):
        members = sorted(
            _keras_aliases_merged(set(by_name[name])),
            key=lambda m: (m.run, m.tag),
        )
        known = [lv for lv in LEVELS if any(m.level == lv for m in members)]
        if not known:
            entries.append(MetricEntry(name, None, tuple(members)))
            continue
        for level in known:
            chosen = [m for m in members if m.level in (level, None)]
            entries.append(MetricEntry(name, level, tuple(chosen)))
    return entries


def is_placeholder_metric(tag: str, values: Sequence[float]) -> bool:
    """Whether a tag is Lightning's `hp_metric` placeholder, not a metric.

    `TensorBoardLogger` logs `hp_metric` = -1 with the hyper-parameters
    unless the module logs its own value under that name.
    """
    return (
        tag == "hp_metric"
        and len(values) > 0
        and all(v == HP_METRIC_PLACEHOLDER for v in values)
    )


def _keras_aliases_merged(members: set[MetricMember]) -> list[MetricMember]:
    """One member per run and level: Keras' evaluation_* joins epoch_*.

    A Keras validation run logs `epoch_<q>` (step = epoch) and
    `evaluation_<q>_vs_iterations` (step = iterations) with the same values;
    the second becomes an alias of the first.
    """
    out = {(m.run, m.tag): m for m in members}
    for m in members:
        found = _KERAS_EVAL.fullmatch(m.tag)
        if not found:
            continue
        partner = out.get((m.run, f"epoch_{found.group(1)}"))
        if partner is None or partner.level != m.level:
            continue
        del out[(m.run, m.tag)]
        out[(partner.run, partner.tag)] = dataclasses.replace(
            partner,
            aliases=(*partner.aliases, m.tag),
            derivation=f"{partner.derivation}; {m.tag} holds the same "
            "values (alias)",
        )
    return list(out.values())


def normalize_quantity(text: str) -> str:
    """Lower-cases a quantity and applies `QUANTITY_SYNONYMS` per component."""
    parts = []
    for part in text.split("/"):
        word = re.sub(r"[\s\-]+", "_", part.strip().lower())
        parts.append(QUANTITY_SYNONYMS.get(word, word))
    return "/".join(p for p in parts if p)


def _parse_tag(
    run: RunInfo, tag: str, tokens: list[str], hint: SplitHint | None = None
) -> CanonicalMetric | None:
    notes: list[str] = []
    level: str | None = None
    split: str | None = None
    source = "unknown"

    if len(tokens) == 1 and _is_keras_run(run):
        evaluation = _KERAS_EVAL.fullmatch(tokens[0])
        keras_level = _KERAS_LEVEL.fullmatch(tokens[0])
        if evaluation:
            tokens = [evaluation.group(1)]
            split, level, source = "val", "epoch", "name"
            notes.append("keras evaluation_*_vs_iterations")
        elif keras_level:
            level = keras_level.group(1)
            tokens = [keras_level.group(2)]
            notes.append(f"keras {level}_ prefix")

    epoch_prefixed = _EPOCH_PREFIX.fullmatch(tokens[-1])
    if level is None and epoch_prefixed:
        level = "epoch"
        tokens = tokens[:-1] + [epoch_prefixed.group(1)]
        notes.append("epoch_ prefix")

    lightning = _LIGHTNING_LEVEL.fullmatch(tokens[-1])
    if level is None and lightning and _split_affix(lightning.group(1)):
        level = "epoch" if lightning.group(2) == "epoch" else "batch"
        tokens = tokens[:-1] + [lightning.group(1)]
        notes.append(f"_{lightning.group(2)} suffix")

    if split is None:
        split, tokens, note = _split_from_tokens(tokens)
        if note:
            notes.append(note)
    if split is None:
        split, tokens, note = _split_from_run(run, tag, tokens)
        if note:
            notes.append(note)
    if split is not None and source == "unknown":
        source = "name"

    if level is None and run.trainer == "paddle_hapi" and len(tokens) == 1:
        head = tag.split("/")[0]
        if head in ("train", "eval"):
            level = "batch" if head == "train" else "epoch"
            notes.append(
                f"paddle hapi (paddle.callbacks.VisualDL) logs {head}/ "
                + ("every batch" if head == "train" else "once an epoch")
            )

    quantity = normalize_quantity("/".join(tokens))
    if not quantity or quantity in SPLIT_SYNONYMS:
        return None  # nothing but a split word: no quantity to name
    if quantity.split("/")[0] in SPLITLESS and not (
        hint is not None and hint.override
    ):
        notes.append("a learning rate belongs to no split")
        return CanonicalMetric(quantity, level, "; ".join(notes), None, "name")
    if quantity == EPOCH_COUNTER:
        return CanonicalMetric(
            EPOCH_COUNTER,
            None,
            "epoch counter: the source of the epoch axis, not a metric",
        )
    if hint is not None and (hint.override or split is None):
        if hint.override and split is not None and split != hint.split:
            notes.append(f"the name says {split}")
        split, source = hint.split, "user" if hint.override else "inferred"
        notes.append(hint.how)
    if split is None:
        notes.append(
            "split unknown: no split word in the tag or the run name; "
            + HOW_TO_SET_SPLIT
        )
        return CanonicalMetric(quantity, level, "; ".join(notes), None)
    return CanonicalMetric(
        f"{quantity}/{split}", level, "; ".join(notes), split, source
    )


def _split_from_tokens(
    tokens: list[str],
) -> tuple[str | None, list[str], str | None]:
    for i, token in enumerate(tokens):
        split = SPLIT_SYNONYMS.get(token.lower())
        if split and len(tokens) > 1:
            rest = tokens[:i] + tokens[i + 1 :]
            return split, rest, f"split {token!r} from tag"
    affix = _split_affix(tokens[-1])
    if affix:
        affix_split, word = affix
        note = f"split from tag {tokens[-1]!r}"
        return affix_split, tokens[:-1] + [word], note
    # A group component led or ended by a split word:
    # `validation_by_epoch/accuracy` (Ignite evaluators' tags).
    for i, token in enumerate(tokens[:-1]):
        words = [w for w in token.lower().split("_") if w]
        for word in (words[0], words[-1]) if words else ():
            if word in SPLIT_SYNONYMS:
                rest = tokens[:i] + tokens[i + 1 :]
                note = f"split {word!r} from tag component {token!r}"
                return SPLIT_SYNONYMS[word], rest, note
    return None, tokens, None


def _split_affix(token: str) -> tuple[str, str] | None:
    """`val_loss` or `loss_val` -> ("val", "loss"); else None."""
    head, _, tail = token.partition("_")
    if tail and head.lower() in SPLIT_SYNONYMS:
        return SPLIT_SYNONYMS[head.lower()], tail
    head, _, tail = token.rpartition("_")
    if head and tail.lower() in SPLIT_SYNONYMS:
        return SPLIT_SYNONYMS[tail.lower()], head
    return None


def _split_from_run(
    run: RunInfo, tag: str, tokens: list[str]
) -> tuple[str | None, list[str], str | None]:
    base = run.run.rstrip("/").rsplit("/", 1)[-1]
    # torch add_scalars(main, {sub: v}) writes tag `main` into run `main_sub`.
    prefix = tag.replace("/", "_") + "_"
    if base.startswith(prefix) and len(base) > len(prefix):
        sub = base[len(prefix) :]
        split = SPLIT_SYNONYMS.get(sub.lower())
        if split:
            return split, tokens, f"split from add_scalars run {base!r}"
        return None, tokens + [sub], f"add_scalars sub-run {base!r}"
    split = SPLIT_SYNONYMS.get(base.lower())
    if split:
        return split, tokens, f"split from run {base!r}"
    return None, tokens, None


def _is_keras_run(run: RunInfo) -> bool:
    if run.writer == "keras":
        return True
    return run.framework == "tensorflow" and run.basename in (
        "train",
        "validation",
    )


def cadence_split_hints(
    run: RunInfo,
    steps_of: Mapping[str, Sequence[int]],
    *,
    aliases: Sequence[AliasRule] = (),
) -> dict[str, SplitHint]:
    """Splits the cadence shows for epoch-level tags whose names do not.

    A tag logged once per epoch (`steps_of`: the run's epoch-indexed tags and
    their steps) at steps where the run logs validation metrics, and where
    no training or test metric is logged once per epoch, is most likely a
    validation metric too (MMEngine's val loop logs `accuracy` and the
    script names no split). Anything less is no evidence: the split stays
    unknown.

    Args:
        run: The run.
        steps_of: Epoch-indexed tag -> its steps.
        aliases: User alias rules (a tag they name is not guessed at).

    Returns:
        tag -> hint, for the tags the rule names.
    """
    named: dict[str, set[str]] = {}
    unnamed: list[str] = []
    for tag in steps_of:
        found = canonical_metric(run, tag, aliases=aliases)
        if found is None or found.name == EPOCH_COUNTER:
            continue
        if found.split is None:
            unnamed.append(tag)
        else:
            named.setdefault(found.split, set()).add(tag)
    val = named.get("val", set())
    if not unnamed or not val or set(named) != {"val"}:
        return {}
    val_steps = {int(s) for tag in val for s in steps_of[tag]}
    hints = {}
    shown = ", ".join(repr(t) for t in sorted(val)[:3])
    for tag in unnamed:
        steps = {int(s) for s in steps_of[tag]}
        if steps and steps <= val_steps:
            hints[tag] = SplitHint(
                "val",
                f"split val inferred: logged once per epoch at the steps of "
                f"the validation metrics {shown}, beside no training metric "
                f"logged once per epoch; {HOW_TO_SET_SPLIT}",
            )
    return hints
