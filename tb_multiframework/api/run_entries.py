"""The entries of `GET runs`: one per run, with its tags, attempts,
inferences, speed figures and the message ids of its texts.

Built once per context (the tab polls `runs`; `Api` keeps the last list).
"""

from __future__ import annotations

from typing import Any

from tb_multiframework.api import catalog
from tb_multiframework.api.context import Context, epoch_source
from tb_multiframework.api.inferences import run_inferences
from tb_multiframework.api.messages import with_run_messages
from tb_multiframework.api.speed import with_speed
from tb_multiframework.api.views import resume_note, run_attempts
from tb_multiframework.core.axes import EpochMap
from tb_multiframework.core.types import Excluded
from tb_multiframework.store.store import RunSummary, Store


def run_entries(
    store: Store, ctx: Context, all_tags: bool
) -> list[dict[str, Any]]:
    """Every run's entry, in name order.

    Args:
      all_tags: list every tag of each run (else the first
        `catalog.MAX_LISTED_TAGS` of each kind, with the counts).
    """
    return [
        with_run_messages(
            with_speed(
                {
                    **_run_entry(
                        store, ctx, summary, ctx.epoch_maps[run], all_tags
                    ),
                    **ctx.experiments.run_fields(run),
                },
                ctx.speed.runs.get(run),
            )
        )
        for run, summary in sorted(ctx.summaries.items())
    ]


def _run_entry(
    store: Store,
    ctx: Context,
    summary: RunSummary,
    emap: EpochMap | Excluded,
    all_tags: bool,
) -> dict[str, Any]:
    entry = _summary_fields(summary, emap)
    for kind in ("scalar", "histogram"):
        shown, count = catalog.listed(entry[f"{kind}Tags"], all_tags)
        entry[f"{kind}Tags"] = shown
        entry[f"{kind}TagCount"] = count
    meta = summary.meta
    override = ctx.config.for_run(meta.run)
    trainer = ctx.infos[meta.run].trainer
    attempts = run_attempts(store, meta, summary.first_step)
    inferred = run_inferences(
        summary, emap, override, attempts, trainer=trainer
    )
    entry.update(
        {
            "trainer": trainer,
            "trainerEvidence": inferred["trainer"]["evidence"]
            if trainer
            else [],
            "parent": meta.parent,
            "subRun": meta.sub_run,
            "attempts": attempts,
            "resumeNote": "" if override.not_resumed else resume_note(attempts),
            "inferences": inferred,
        }
    )
    return entry


def _summary_fields(
    summary: RunSummary, emap: EpochMap | Excluded
) -> dict[str, Any]:
    meta = summary.meta
    return {
        "run": meta.run,
        "group": meta.group,
        "framework": meta.framework,
        "writer": meta.writer,
        "format": meta.format,
        "displayName": meta.display_name,
        "scalarTags": list(summary.scalar_tags),
        "histogramTags": list(summary.histogram_tags),
        "otherTags": {k: list(v) for k, v in meta.other_tags.items()},
        "numPoints": summary.num_points,
        "numHistograms": summary.num_histograms,
        "firstStep": summary.first_step,
        "lastStep": summary.last_step,
        "startTime": summary.start_time,
        "endTime": summary.end_time,
        "epochSource": epoch_source(emap),
        "hasEpochAxis": isinstance(emap, EpochMap),
        "hasLayout": summary.has_layout,
        "evidence": list(meta.evidence),
        "files": list(meta.files),
        "warnings": list(meta.warnings),
    }
