"""Answers about the runs and their metrics, read off one context.

`GET runs` (the catalog, with the load state and every error), the members
of each `GET metrics` entry, `GET speed` and `GET metric_summary`. `Api`
(service.py) delegates to these functions: it keeps what lives across
requests (the context, the answers cache, the last `runs` entries), they
only read. `run_entries.py` makes each run's entry; `catalog.py` pages the
metric index.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tb_multiframework.api import experiments
from tb_multiframework.api.context import Context, NotFound
from tb_multiframework.api.messages import derivation_messages
from tb_multiframework.api.scalars import aggregation_json
from tb_multiframework.api.speed import series_of, speed_json
from tb_multiframework.sources import Source
from tb_multiframework.store.store import Store


def known_runs(ctx: Context, runs: Iterable[str]) -> None:
    """Raises `NotFound` for the first run the context does not have."""
    for run in runs:
        if run not in ctx.summaries:
            raise NotFound(f"unknown run {run!r}")


def runs_json(
    ctx: Context,
    entries: list[dict[str, Any]],
    *,
    loader: Source | None,
    loading: bool,
    config_error: str,
    data_version: int,
) -> dict[str, Any]:
    """`GET runs`: the run catalog.

    Args:
      ctx: the context the entries were made from.
      entries: every run's entry (`run_entries.run_entries`).
      loader: the source filling the store (its errors), None without one.
      loading: whether its first load was still running when `ctx` was
        taken (read before: a context built while the load ended holds
        part of it).
      config_error: why the user config could not be read, or "".
      data_version: the version `ctx` was built for.
    """
    stats = loader.last_stats if loader is not None else None
    errors = (
        [
            e
            for e in (
                config_error,
                (
                    loader.last_error
                    if loader is not None
                    else "no logdir and no data provider"
                ),
            )
            if e
        ]
        + list(ctx.errors)
        + list(getattr(loader, "problems", ()))
    )
    return {
        "runs": entries,
        "loading": loading,
        "dataVersion": data_version,
        "reload": (
            None
            if stats is None
            else {"seconds": stats.seconds, "bytesRead": stats.bytes_read}
        ),
        "errors": errors,
        "source": loader.status().to_json() if loader is not None else None,
    }


def metric_members(ctx: Context, entry: Any) -> list[dict[str, Any]]:
    """The (run, tag) members of one `GET metrics` entry, with how each
    was named and what its batch values are."""
    return [
        {
            "run": m.run,
            "tag": m.tag,
            "level": m.level,
            "derivation": m.derivation,
            "derivationMessages": derivation_messages(m.derivation),
            **_split_json(ctx, m.run, m.tag),
            "aliases": list(m.aliases),
            **aggregation_json(ctx, m.run, m.tag),
        }
        for m in entry.members
    ]


def speed_payload(
    ctx: Context, store: Store, runs: tuple[str, ...]
) -> dict[str, Any]:
    """`GET speed`: each run's speed derived from wall time (every run
    when `runs` is empty)."""
    known_runs(ctx, runs)
    chosen = runs or tuple(sorted(ctx.summaries))
    return {
        "runs": [speed_json(run, ctx.speed.runs[run]) for run in chosen],
        "dataVersion": store.version,
    }


def metric_summary(ctx: Context, store: Store, metric: str) -> dict[str, Any]:
    """`GET metric_summary`: last/best of a metric per run, rank spread."""
    entry = ctx.metrics.get(metric)
    if entry is None:
        raise NotFound(f"unknown metric {metric!r}")
    members = [(m.run, m.tag) for m in entry.members]
    series = {
        (run, tag): series_of(ctx.speed, store, run, tag)
        for run, tag in members
    }
    return experiments.metric_summary(
        entry.key,
        entry.name,
        members,
        series,
        ctx.experiments,
        ctx.epoch_maps,
    )


def _split_json(ctx: Context, run: str, tag: str) -> dict[str, Any]:
    found = ctx.metric(run, tag)
    return {
        "split": None if found is None else found.split,
        "splitSource": "unknown" if found is None else found.split_source,
    }
