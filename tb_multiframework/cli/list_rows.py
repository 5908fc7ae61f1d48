"""Which rows `tbmf list` shows, in which order: --filter and --sort."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tb_multiframework.cli import common, lang


@dataclass(frozen=True)
class RowColumn:
    """A column of the table and how to sort by it."""

    id: str
    column: common.Column
    text: Callable[[dict[str, Any]], str]
    key: Callable[[dict[str, Any]], Any]


def metric_fields(
    summary: dict[str, Any] | None,
) -> dict[str, Callable[[dict[str, Any]], Any]]:
    """last, best, beststep and spread by run, as the tab's columns."""
    if summary is None:
        return {}
    rows = {row["run"]: row for row in summary["runs"]}
    spreads = {
        member: spread
        for spread in summary.get("rankSpread", [])
        for member in spread["members"]
    }

    def field(name: str) -> Callable[[dict[str, Any]], Any]:
        def get(run: dict[str, Any]) -> Any:
            value = rows.get(run["run"], {}).get(name)
            return value if isinstance(value, (int, float)) else None

        return get

    return {
        "last": field("last"),
        "best": field("best"),
        "beststep": field("bestStep"),
        "spread": lambda r: (spreads.get(r["run"]) or {}).get("spread"),
    }


def filtered(
    runs: list[dict[str, Any]], text: str, summary: dict[str, Any] | None
) -> list[dict[str, Any]]:
    from tb_multiframework.core import hparams, runfilter  # noqa: PLC0415

    clauses, rest = runfilter.parse_filter(text)
    keys = sorted({k for r in runs for k in r.get("hparams", {})})
    differing = hparams.differing_keys([r.get("hparams", {}) for r in runs])
    extra: dict[str, Callable[[dict[str, Any]], Any]] = {
        f"hp:{key.lower()}": (
            lambda r, key=key: r.get("hparams", {}).get(key, runfilter.MISSING)
        )
        for key in differing
    }
    for name, get in metric_fields(summary).items():
        extra[name] = lambda r, get=get: _or_missing(get(r), runfilter.MISSING)
    return [
        r
        for r in runs
        if runfilter.run_matches(r, rest)
        and all(
            runfilter.clause_matches(
                runfilter.filter_value(r, c, extra, keys), c
            )
            for c in clauses
        )
    ]


def _or_missing(value: Any, missing: Any) -> Any:
    return missing if value is None else value


def sorted_rows(
    runs: Sequence[dict[str, Any]], spec: str, columns: Sequence[RowColumn]
) -> list[dict[str, Any]]:
    descending = spec.startswith("-")
    wanted = spec.lstrip("-")
    by_id = {c.id: c for c in columns}
    column = by_id.get(wanted) or _hparam_column(runs, wanted)
    if column is None:
        raise common.UsageError(
            lang.tr(
                "cli.err.unknownColumn",
                column=repr(wanted),
                choices=common.choices_text(wanted, list(by_id), "columns"),
            )
        )
    values = {id(r): column.key(r) for r in runs}
    present = [r for r in runs if not _missing(values[id(r)])]
    present.sort(key=lambda r: _order(values[id(r)]), reverse=descending)
    return present + [r for r in runs if _missing(values[id(r)])]


def _hparam_column(
    runs: Sequence[dict[str, Any]], wanted: str
) -> RowColumn | None:
    from tb_multiframework.core import runfilter  # noqa: PLC0415

    keys = sorted({k for r in runs for k in r.get("hparams", {})})
    key = runfilter.resolve_key(keys, wanted.removeprefix("hp:"))
    if key is None:
        return None
    return RowColumn(
        key,
        common.column(key),
        lambda r: str(r.get("hparams", {}).get(key, "")),
        lambda r: r.get("hparams", {}).get(key),
    )


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _order(value: Any) -> tuple[int, Any]:
    """Numbers before text; text case-insensitively."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value)
    return (1, str(value).lower())
