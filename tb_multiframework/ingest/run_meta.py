"""A run's metadata from a detection: sub-runs, trainers, the user's config.

Shared by every source of runs (the files loader, the data provider), so a
run is described by the same rules whichever read it.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from tb_multiframework.ingest import detect
from tb_multiframework.settings.config import TRAINER_NONE, Config
from tb_multiframework.store.store import RunMeta, Store


def describe_run(
    detection: detect.Detection,
    *,
    run: str,
    format: str,
    store: Store,
    other_tags: Mapping[str, Iterable[str]],
    side_files: Iterable[str],
    parents: Mapping[str, RunMeta] | None,
    config: Config,
    **fields: Any,
) -> RunMeta:
    """The `RunMeta` of a run, its detection completed and overridden.

    Args:
      detection: framework, writer and group from the run's own evidence.
      run: the run name.
      format: "tfevents" or "visualdl".
      store: holds the run's series (for their tags), if it has any yet.
      other_tags: tags of kinds not charted here, by plugin name.
      side_files: names of trainer files in the run directory.
      parents: metadata of the runs described before this one (sorted
        names put a parent first); a sub-run joins its parent's group.
      config: the user's config (framework, writer, group overrides).
      **fields: the other `RunMeta` fields (files, warnings, ...).
    """
    evidence = list(detection.evidence)
    group = detection.group
    scalar_tags: tuple[str, ...] = ()
    histogram_tags: tuple[str, ...] = ()
    if store.has_run(run):
        summary = store.summary(run)
        scalar_tags, histogram_tags = (
            summary.scalar_tags,
            summary.histogram_tags,
        )
    sub_run = detect.detect_sub_run(
        run,
        runs=parents or {},
        scalar_tags=scalar_tags,
        histogram_tags=histogram_tags,
        other_tags=other_tags,
    )
    if sub_run is not None and parents is not None:
        group = parents[sub_run.parent].group
        evidence.append(f"{sub_run.evidence}: joins group {group!r}")
    trainer = detect.detect_trainer(
        run,
        format=format,
        writer=detection.writer,
        scalar_tags=scalar_tags,
        other_tags=other_tags,
        side_files=side_files,
        steps_of=(lambda tag: store.scalars(run, tag).steps)
        if scalar_tags
        else None,
    )
    override = config.for_run(run)
    trainer_name, trainer_evidence = trainer.trainer, trainer.evidence
    if override.trainer is not None:
        trainer_name = "" if override.trainer == TRAINER_NONE else override.trainer
        trainer_evidence = (
            f"trainer {override.trainer!r} set by you in "
            f"{config.path or 'the config'}",
        )
    for key, value in (
        ("framework", override.framework),
        ("writer", override.writer),
        ("group", override.group),
    ):
        if value is not None:
            evidence.append(
                f"{key} set to {value!r} by {config.path or 'config'}"
            )
    return RunMeta(
        run=run,
        group=override.group or group,
        framework=override.framework or detection.framework,
        writer=override.writer or detection.writer,
        format=format,
        evidence=tuple(evidence),
        other_tags={k: tuple(sorted(v)) for k, v in other_tags.items()},
        trainer=trainer_name,
        trainer_evidence=trainer_evidence,
        parent=sub_run.parent if sub_run else "",
        sub_run=sub_run.kind if sub_run else "",
        **fields,
    )
