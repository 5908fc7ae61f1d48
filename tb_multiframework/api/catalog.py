"""Tag and metric lists a page at a time, searched on the server.

A run may log 200,000 tags: `GET metrics` answered 87.6 MB and the tab
rendered every entry. `metrics` and `tags` take `search` (a case-insensitive
regex through `core.safe_regex`, or plain text when it is not one, as the
tab's search box reads it), the selected runs (their entries first) and
`offset`/`limit`, and answer `total` (entries that match) beside the page:
nothing is lost, the tab asks for what it shows and says how many more
match. `metrics` without `limit` is the whole index, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tb_multiframework.api.context import Context
from tb_multiframework.core import safe_regex
from tb_multiframework.core.metrics import MetricEntry

MAX_PAGE = 2000  # entries in one page of `metrics` or `tags`
DEFAULT_TAG_PAGE = 500  # `tags` without `limit`
MAX_LISTED_TAGS = 1000  # tags of each kind a `runs` entry lists (all: `tags=all`)
MAX_SEARCH_CHARS = 200  # characters of `search`, as the tab's box allows
_LEVEL_ORDER = {"batch": 0, "epoch": 1, None: 2}


def matcher(search: str) -> Callable[[str], bool]:
    """What the tab's search box matches: a case-insensitive regex (linear
    time, RE2), or the text itself when it is not a usable regex."""
    if not search:
        return lambda name: True
    if len(search) > MAX_SEARCH_CHARS:
        raise ValueError(
            f"argument 'search' has {len(search)} characters; at most "
            f"{MAX_SEARCH_CHARS}"
        )
    try:
        regex = safe_regex.compile(f"(?i:{search})")
    except safe_regex.RegexError:
        needle = search.casefold()
        return lambda name: needle in name.casefold()

    def test(name: str) -> bool:
        try:
            return regex.search(name) is not None
        except safe_regex.RegexError:
            return search.casefold() in name.casefold()

    return test


def _check_page(offset: int, limit: int | None) -> None:
    if offset < 0:
        raise ValueError(f"argument 'offset' must be >= 0, got {offset}")
    if limit is not None and not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"argument 'limit' must be in [1, {MAX_PAGE}]")


def metric_page(
    ctx: Context,
    *,
    member_json: Callable[[MetricEntry], list[dict[str, Any]]],
    search: str = "",
    runs: Sequence[str] = (),
    keys: Sequence[str] = (),
    offset: int = 0,
    limit: int | None = None,
) -> dict[str, Any]:
    """A page of the metric index (`GET metrics`).

    Args:
      member_json: an entry's `members` as JSON.
      search: matched against the entry's name, key and member tags.
      runs: the selected runs: entries with a member among them first.
      keys: when given, exactly these entries (unknown keys are absent),
        with no search or paging.
    """
    _check_page(offset, limit)
    if keys:
        entries = [ctx.metrics[k] for k in dict.fromkeys(keys) if k in ctx.metrics]
        total = len(entries)
    else:
        test = matcher(search)
        chosen = set(runs)
        found = [
            entry
            for entry in ctx.metrics.values()
            if not search
            or test(entry.name)
            or test(entry.key)
            or any(test(m.tag) for m in entry.members)
        ]
        if chosen or limit is not None:
            found.sort(
                key=lambda e: (
                    not any(m.run in chosen for m in e.members),
                    e.name,
                    _LEVEL_ORDER.get(e.level, 3),
                    e.key,
                )
            )
        total = len(found)
        entries = found[offset:] if limit is None else found[offset : offset + limit]
    return {
        "metrics": [
            {
                "key": entry.key,
                "name": entry.name,
                "level": entry.level,
                "members": member_json(entry),
            }
            for entry in entries
        ],
        "total": total,
        "offset": 0 if keys else offset,
        "limit": None if keys else limit,
    }


def tag_page(
    ctx: Context,
    *,
    search: str = "",
    runs: Sequence[str] = (),
    offset: int = 0,
    limit: int = DEFAULT_TAG_PAGE,
) -> dict[str, Any]:
    """A page of every scalar tag (`GET tags`): `{"tag", "runs" (runs that
    log it), "selected" (of those, among `runs`)}`, the selected runs' tags
    first, then by tag."""
    _check_page(offset, limit)
    test = matcher(search)
    chosen = set(runs)
    counts: dict[str, list[int]] = {}  # tag -> [runs, selected runs]
    rejected: set[str] = set()  # tags the search does not match
    for run, summary in ctx.summaries.items():
        mine = run in chosen
        for tag in summary.scalar_tags:
            entry = counts.get(tag)
            if entry is None:
                if tag in rejected:
                    continue
                if search and not test(tag):
                    rejected.add(tag)
                    continue
                entry = counts[tag] = [0, 0]
            entry[0] += 1
            entry[1] += mine
    found = sorted(counts, key=lambda tag: (counts[tag][1] == 0, tag))
    return {
        "tags": [
            {"tag": tag, "runs": counts[tag][0], "selected": counts[tag][1]}
            for tag in found[offset : offset + limit]
        ],
        "total": len(found),
        "offset": offset,
        "limit": limit,
    }


def listed(tags: Iterable[str], everything: bool) -> tuple[list[str], int]:
    """A run's tags as `runs` lists them (the first MAX_LISTED_TAGS unless
    `everything`), and how many it has."""
    tags = list(tags)
    return (tags if everything else tags[:MAX_LISTED_TAGS]), len(tags)


__all__ = ["MAX_PAGE", "listed", "matcher", "metric_page", "tag_page"]
