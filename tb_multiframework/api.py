"""JSON payloads of the HTTP API, built from the store and core.

Each function takes already-parsed arguments and returns a plain dict; it
raises `NotFound` for an unknown run or tag and `ValueError` for a bad
argument, which `plugin.py` turns into 404 and 400 responses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tb_multiframework.config import ConfigFile
from tb_multiframework.ingest.loader import Loader
from tb_multiframework.store import RunSummary, Store


class NotFound(LookupError):
    """An unknown run, tag, metric or layout (HTTP 404)."""


def to_json(value: Any) -> Any:
    """`json.dumps` default: numpy values, with NaN/±Inf as null."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            return np.where(np.isfinite(value), value, None).tolist()
        return value.tolist()
    if isinstance(value, np.generic):
        item = value.item()
        if isinstance(item, float) and not np.isfinite(item):
            return None
        return item
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot serialise {type(value).__name__}")


def runs_payload(
    store: Store, loader: Loader, config: ConfigFile
) -> dict[str, Any]:
    """`GET runs`: the run catalog."""
    stats = loader.last_stats
    return {
        "runs": [_run_entry(summary) for summary in store.summaries()],
        "loading": not loader.loaded_once.is_set(),
        "dataVersion": store.version,
        "reload": (
            None
            if stats is None
            else {"seconds": stats.seconds, "bytesRead": stats.bytes_read}
        ),
        "errors": [e for e in (config.error, loader.last_error) if e],
    }


def _run_entry(summary: RunSummary) -> dict[str, Any]:
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
        "epochSource": None,
        "hasLayout": summary.has_layout,
        "evidence": list(meta.evidence),
        "files": list(meta.files),
        "warnings": list(meta.warnings),
    }
