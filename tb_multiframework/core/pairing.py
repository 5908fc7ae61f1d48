"""Suggests which histogram tags of two runs show the same layer parameter.

Frameworks name parameters differently: PyTorch ``weights/fc1.weight``, Keras 3
``mlp/dense/kernel/histogram``, tf_keras ``dense/kernel_0/histogram``, Paddle
``linear_0.w_0``. What they share:

* the element count, which is the histogram's total count. It is strong
  evidence: a 20x32 layer has 640 weights in every framework, even though
  PyTorch stores ``fc1.weight`` as (out, in) and Keras its kernel as (in, out)
  (a histogram ignores the shape);
* the role (weight, bias, normalisation statistic) and whether the tag holds
  gradients or values;
* the order of layers: the n-th weight of one run is likely the n-th of the
  other (``order`` is each tag's first-seen position in its run);
* sometimes the layer name itself (two runs of the same framework).

Each candidate pair gets a score in [0, 1] from these signals; pairs are chosen
greedily by score, one-to-one, and returned with the reasons behind them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

MAX_PAIR_TAGS = 2000  # histogram tags per run considered for pairing
MIN_PAIR_SCORE = 0.5  # lowest score of a suggested pair
# An alternative scoring within this of the chosen pair makes it ambiguous.
_AMBIGUOUS_MARGIN = 0.05  # score units
_CANDIDATES_PER_TAG = 8  # best pairs per tag kept for the greedy assignment

# Weights of the signals in the score; they sum to 1.
_W_COUNT, _W_ROLE, _W_ORDER, _W_NAME = 0.45, 0.2, 0.25, 0.1

_ROLE_PATTERNS = (
    (
        "weight",
        re.compile(r"weights?(_\w+)?|\w*kernel(_\d+)?|w(_\d+)?|gamma|scale"),
    ),
    ("weight", re.compile(r"embeddings?")),
    ("bias", re.compile(r"bias(_\w+)?|biases|b(_\d+)?|beta|offset")),
    ("stat", re.compile(r"_?((running|moving)_)?(mean|var|variance)")),
)
_ROLE_NAMES = {
    "weight": "weights",
    "bias": "biases",
    "stat": "statistics",
    "other": "other tensors",
}
# Tokens that say nothing about the layer: summary suffixes and TF's ":0"
# output index (dropped from the end), group prefixes users put in front of
# parameter names (dropped from the layer name; "weights" can also be a role).
_SUFFIX_TOKENS = frozenset({"histogram", "histograms", "hist", "values", "0"})
_GROUP_TOKENS = frozenset({"weights", "params", "parameters", "param", "train"})
_GRAD_TOKEN = re.compile(r"^(grads?|gradients?)$")
_GRAD_AFFIX = re.compile(r"^grads?_|_grads?$|_gradients?$")
_SPLIT = re.compile(r"[/.:]+")
# Paddle names a norm layer's running mean and variance w_1 and w_2 (created
# after the scale w_0), e.g. batch_norm2d_0.w_1.
_PADDLE_NORM_STAT = re.compile(r"w_[12]")


@dataclass(frozen=True)
class HistTagInfo:
    """One histogram tag of a run.

    Attributes:
        tag: the raw tag.
        element_count: elements of the logged tensor (the histogram's total
            count), None when unknown.
        order: first-seen position of the tag in its run.
    """

    tag: str
    element_count: int | None
    order: int


@dataclass(frozen=True)
class TagPair:
    """A suggested pairing of a tag of run A with a tag of run B.

    Attributes:
        tag_a: tag of run A.
        tag_b: tag of run B.
        score: confidence in [0, 1]; at least MIN_PAIR_SCORE.
        reasons: human-readable evidence, strongest first (English).
        reason_messages: the same reasons as message ids of the catalogs
            (`tb_multiframework/i18n`) with their parameters, in order.
    """

    tag_a: str
    tag_b: str
    score: float
    reasons: tuple[str, ...]
    reason_messages: tuple[tuple[str, dict[str, object]], ...] = ()


@dataclass(frozen=True)
class TagFeatures:
    """What a tag's name says about the tensor behind it.

    Attributes:
        role: "weight", "bias", "stat" (normalisation statistic) or "other".
        is_grad: True when the tag holds gradients.
        layer_tokens: lower-case name parts left after the role and noise.
    """

    role: str
    is_grad: bool
    layer_tokens: frozenset[str]


def suggest_tag_pairs(
    tags_a: Sequence[HistTagInfo], tags_b: Sequence[HistTagInfo]
) -> list[TagPair]:
    """Suggests one-to-one pairs of histogram tags across two runs.

    A pair is never suggested between tags whose known element counts differ,
    between a weight and a bias (or a bias and a statistic), or between a
    gradient and a value.

    Args:
        tags_a: histogram tags of run A.
        tags_b: histogram tags of run B.

    Returns:
        Pairs scoring at least MIN_PAIR_SCORE, in A's order.

    Raises:
        ValueError: if a run has more than MAX_PAIR_TAGS tags, a tag repeats,
            or an element count is negative.
    """
    for which, tags in (("tags_a", tags_a), ("tags_b", tags_b)):
        if len(tags) > MAX_PAIR_TAGS:
            raise ValueError(
                f"{which} has {len(tags)} tags, more than {MAX_PAIR_TAGS}"
            )
        seen = [t.tag for t in tags]
        if len(set(seen)) != len(seen):
            dupes = sorted({t for t in seen if seen.count(t) > 1})
            raise ValueError(f"{which} repeats tags {dupes[:3]}")
        bad = [t.element_count for t in tags if (t.element_count or 0) < 0]
        if bad:
            raise ValueError(f"{which} has negative element counts {bad[:3]}")
    if not tags_a or not tags_b:
        return []

    feats_a = [tag_features(t.tag) for t in tags_a]
    feats_b = [tag_features(t.tag) for t in tags_b]
    rank_a, size_a = _class_ranks(tags_a, feats_a)
    rank_b, size_b = _class_ranks(tags_b, feats_b)
    score = _score_matrix(
        tags_a, tags_b, feats_a, feats_b, (rank_a, size_a), (rank_b, size_b)
    )
    candidates = _candidates(score, tags_a, tags_b)

    top_a = _top_two(candidates, by_a=True)
    top_b = _top_two(candidates, by_a=False)
    taken_a: set[int] = set()
    taken_b: set[int] = set()
    pairs = []
    for value, i, j in candidates:
        if i in taken_a or j in taken_b:
            continue
        taken_a.add(i)
        taken_b.add(j)
        reasons, messages = _reasons(
            tags_a[i],
            tags_b[j],
            feats_a[i],
            feats_b[j],
            (int(rank_a[i]), int(size_a[i])),
            (int(rank_b[j]), int(size_b[j])),
        )
        rival = max(_rival(top_a[i], j), _rival(top_b[j], i))
        if rival >= value - _AMBIGUOUS_MARGIN:
            reasons += ("a close alternative exists",)
            messages += (("pair.reason.closeAlternative", {}),)
        pairs.append(
            TagPair(
                tags_a[i].tag,
                tags_b[j].tag,
                round(value, 4),
                reasons,
                messages,
            )
        )
    order_a = {t.tag: t.order for t in tags_a}
    pairs.sort(key=lambda p: order_a[p.tag_a])
    return pairs


def tag_features(tag: str) -> TagFeatures:
    """Role, gradient flag and layer-name tokens of a histogram tag.

    Args:
        tag: a raw histogram tag.

    Returns:
        The features the pairing score uses.
    """
    tokens = [t for t in _SPLIT.split(tag.lower()) if t]
    is_grad = False
    kept = []
    for token in tokens:
        if _GRAD_TOKEN.match(token):
            is_grad = True
            continue
        stripped = _GRAD_AFFIX.sub("", token)
        is_grad |= stripped != token
        kept.append(stripped)
    while kept and kept[-1] in _SUFFIX_TOKENS:
        kept.pop()
    role = "other"
    last = kept[-1] if kept else ""
    for name, pattern in _ROLE_PATTERNS:
        if pattern.fullmatch(last):
            role = name
            kept.pop()
            break
    # A "0" inside the name is a layer index (``layers.0.weight``), keep it.
    noise = (_SUFFIX_TOKENS - {"0"}) | _GROUP_TOKENS
    layer = frozenset(t for t in kept if t not in noise)
    norm_layer = any("norm" in t for t in layer)
    if role == "weight" and norm_layer and _PADDLE_NORM_STAT.fullmatch(last):
        role = "stat"
    return TagFeatures(role=role, is_grad=is_grad, layer_tokens=layer)


def _score_matrix(
    tags_a: Sequence[HistTagInfo],
    tags_b: Sequence[HistTagInfo],
    feats_a: Sequence[TagFeatures],
    feats_b: Sequence[TagFeatures],
    ranks_a: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
    ranks_b: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
) -> npt.NDArray[np.float64]:
    """Score of every (A, B) pair; -1 where a pair is never suggested."""
    count_a = np.array([_count_or(t, -1) for t in tags_a])[:, None]
    count_b = np.array([_count_or(t, -1) for t in tags_b])[None, :]
    known = (count_a >= 0) & (count_b >= 0)
    same_count = count_a == count_b
    score = _W_COUNT * np.where(known, same_count, 0.5)

    roles = ("weight", "bias", "stat", "other")
    compat = np.array([[_role_compat(r, s) for s in roles] for r in roles])
    role_a = np.array([roles.index(f.role) for f in feats_a])[:, None]
    role_b = np.array([roles.index(f.role) for f in feats_b])[None, :]
    role_score = compat[role_a, role_b]
    score += _W_ROLE * role_score

    (rank_a, size_a), (rank_b, size_b) = ranks_a, ranks_b
    far = np.abs(rank_a[:, None] - rank_b[None, :])
    far /= np.maximum(size_a[:, None], size_b[None, :])
    score += _W_ORDER * np.clip(1 - far, 0.0, 1.0)
    score += _W_NAME * _jaccard_matrix(feats_a, feats_b)

    grad_a = np.array([f.is_grad for f in feats_a])[:, None]
    grad_b = np.array([f.is_grad for f in feats_b])[None, :]
    never = (grad_a != grad_b) | (role_score == 0) | (known & ~same_count)
    score[never] = -1.0
    return score


def _candidates(
    score: npt.NDArray[np.float64],
    tags_a: Sequence[HistTagInfo],
    tags_b: Sequence[HistTagInfo],
) -> list[tuple[float, int, int]]:
    """Each tag's best few pairs above MIN_PAIR_SCORE, best first.

    Keeping only the best few per tag (on either side) bounds the greedy
    assignment's work on long tag lists; a pair ranked lower than that for
    both of its tags is not worth suggesting.
    """
    keep = np.zeros(score.shape, dtype=bool)
    for axis in (1, 0):
        k = min(_CANDIDATES_PER_TAG, score.shape[axis])
        best = np.argpartition(-score, k - 1, axis=axis)
        best = best[:, :k] if axis == 1 else best[:k, :]
        if axis == 1:
            rows = np.arange(score.shape[0])[:, None]
            keep[rows, best] = True
        else:
            cols = np.arange(score.shape[1])[None, :]
            keep[best, cols] = True
    keep &= score >= MIN_PAIR_SCORE
    i, j = np.nonzero(keep)
    values = score[i, j]
    order_a = np.array([t.order for t in tags_a])[i]
    order_b = np.array([t.order for t in tags_b])[j]
    # Best score first; equal scores in A's, then B's, logging order.
    ranked = np.lexsort((order_b, order_a, -values))
    return [(float(values[k]), int(i[k]), int(j[k])) for k in ranked.tolist()]


def _jaccard_matrix(
    feats_a: Sequence[TagFeatures], feats_b: Sequence[TagFeatures]
) -> npt.NDArray[np.float64]:
    """Jaccard similarity of the layer-name tokens of every (A, B) pair."""
    members_a: dict[str, list[int]] = {}
    members_b: dict[str, list[int]] = {}
    for members, feats in ((members_a, feats_a), (members_b, feats_b)):
        for k, f in enumerate(feats):
            for token in f.layer_tokens:
                members.setdefault(token, []).append(k)
    shared = np.zeros((len(feats_a), len(feats_b)))
    for token, rows in members_a.items():
        if token in members_b:
            shared[np.ix_(rows, members_b[token])] += 1
    len_a = np.array([len(f.layer_tokens) for f in feats_a], dtype=float)
    len_b = np.array([len(f.layer_tokens) for f in feats_b], dtype=float)
    union = len_a[:, None] + len_b[None, :] - shared
    out: npt.NDArray[np.float64] = np.zeros_like(shared)
    np.divide(shared, union, out=out, where=union > 0)
    return out


def _count_or(info: HistTagInfo, default: int) -> int:
    return default if info.element_count is None else int(info.element_count)


def _role_compat(a: str, b: str) -> float:
    """How well two roles match: 1 same, 0.5 plausible, 0 never."""
    if a == b:
        return 1.0
    if {a, b} in ({"weight", "bias"}, {"bias", "stat"}):
        return 0.0
    # "other" is an unrecognised name; Paddle names norm statistics w_1, w_2.
    return 0.5


def _class_ranks(
    tags: Sequence[HistTagInfo], feats: Sequence[TagFeatures]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Rank of each tag among its run's tags of the same role and kind."""
    classes: dict[tuple[str, bool], list[int]] = {}
    for k in sorted(range(len(tags)), key=lambda k: tags[k].order):
        classes.setdefault((feats[k].role, feats[k].is_grad), []).append(k)
    rank = np.zeros(len(tags), dtype=float)
    size = np.zeros(len(tags), dtype=float)
    for members in classes.values():
        for r, k in enumerate(members):
            rank[k], size[k] = r, len(members)
    return rank, size


def _top_two(
    candidates: Sequence[tuple[float, int, int]], *, by_a: bool
) -> dict[int, list[tuple[float, int]]]:
    """Best two (score, partner) per tag of A (``by_a``) or of B."""
    top: dict[int, list[tuple[float, int]]] = {}
    for score, i, j in candidates:  # sorted best first
        key, partner = (i, j) if by_a else (j, i)
        best = top.setdefault(key, [])
        if len(best) < 2:
            best.append((score, partner))
    return top


def _rival(top: list[tuple[float, int]], partner: int) -> float:
    """Best score among a tag's top two with another partner (-1 if none)."""
    return max((s for s, p in top if p != partner), default=-1.0)


def _reasons(
    a: HistTagInfo,
    b: HistTagInfo,
    fa: TagFeatures,
    fb: TagFeatures,
    rank_a: tuple[int, int],
    rank_b: tuple[int, int],
) -> tuple[tuple[str, ...], tuple[tuple[str, dict[str, object]], ...]]:
    """The evidence for a pair: English texts and the same as message ids."""
    reasons: list[str] = []
    messages: list[tuple[str, dict[str, object]]] = []
    if a.element_count is not None and b.element_count is not None:
        reasons.append(f"same element count ({a.element_count})")
        messages.append(
            ("pair.reason.sameCount", {"count": a.element_count})
        )
    else:
        reasons.append("element count unknown")
        messages.append(("pair.reason.countUnknown", {}))
    kind = "gradients of " if fa.is_grad else ""
    grad = "Grad" if fa.is_grad else ""
    if fa.role == fb.role:
        reasons.append(f"both {kind}{_ROLE_NAMES[fa.role]}")
        messages.append((f"pair.reason.both{grad}.{fa.role}", {}))
    else:
        reasons.append(f"{kind}{fa.role} vs {fb.role}")
        messages.append(
            (f"pair.reason.roles{grad}", {"a": fa.role, "b": fb.role})
        )
    where_a = f"{rank_a[0] + 1} of {rank_a[1]}"
    where_b = f"{rank_b[0] + 1} of {rank_b[1]}"
    if where_a == where_b:
        reasons.append(
            f"same position among {_ROLE_NAMES[fa.role]} ({where_a})"
        )
        messages.append(
            (
                f"pair.reason.samePosition.{fa.role}",
                {"index": rank_a[0] + 1, "count": rank_a[1]},
            )
        )
    else:
        reasons.append(f"position {where_a} vs {where_b}")
        messages.append(
            (
                "pair.reason.positions",
                {
                    "indexA": rank_a[0] + 1,
                    "countA": rank_a[1],
                    "indexB": rank_b[0] + 1,
                    "countB": rank_b[1],
                },
            )
        )
    shared = sorted(fa.layer_tokens & fb.layer_tokens)
    if shared:
        reasons.append(f"shared layer name ({', '.join(shared)})")
        messages.append(
            ("pair.reason.sharedName", {"names": ", ".join(shared)})
        )
    return tuple(reasons), tuple(messages)
