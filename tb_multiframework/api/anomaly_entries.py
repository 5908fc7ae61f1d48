"""One finding as `GET anomalies` lists it (docs/api.md, GET anomalies).

A finding of core/anomalies names points of its series by index; its
entry says them as steps and on the axis the request asked for, with the
metric's name, the usual cause of its kind, and the texts as catalog
messages. The finder in anomalies.py makes one entry per listed finding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tb_multiframework.api.anomaly_inputs import RunsView
from tb_multiframework.core import anomalies as core
from tb_multiframework.core.anomalies import Anomaly
from tb_multiframework.core.axes import axis_values
from tb_multiframework.core.types import Excluded
from tb_multiframework.store.store import ScalarSeries, Store


def entry_json(
    store: Store,
    view: RunsView,
    run: str,
    tag: str,
    anomaly: Anomaly,
    axis: str,
) -> dict[str, Any]:
    """The `anomalies[]` entry of one finding in the series (run, tag).

    Args:
      axis: the axis of the entry's `x` range (the query's `x`).
    """
    x = _range_on(store, view, run, tag, axis, anomaly)
    metric = view.metric(run, tag)
    return {
        "run": run,
        "tag": tag,
        "metric": None if metric is None else metric.name,
        "kind": anomaly.kind,
        "step": anomaly.start_step,
        "endStep": anomaly.end_step,
        "x": x,
        "severity": anomaly.severity,
        "message": anomaly.message,
        "cause": core.USUAL_CAUSES[anomaly.kind],
        "evidence": anomaly.evidence,
        # The English texts above as catalog messages (docs/api.md,
        # Messages): the tab shows them in the user's language.
        "i18n": {
            "message": (
                {"id": anomaly.message_id, "params": anomaly.message_params}
                if anomaly.message_id
                else None
            ),
            "cause": {"id": f"anomaly.cause.{anomaly.kind}", "params": {}},
        },
    }


def _range_on(
    store: Store,
    view: RunsView,
    run: str,
    tag: str,
    axis: str,
    anomaly: Anomaly,
) -> list[float] | None:
    """A finding's first and last point on an axis (None when the
    series has no place on it). Only those two points are placed:
    whole-series positions for every axis would cost memory."""
    summary = view.summaries[run]
    series = store.scalars(run, tag)
    steps = np.asarray(series.steps)
    if len(steps) > 1 and np.any(steps[1:] < steps[:-1]):
        order = np.argsort(steps, kind="stable")
        picked = order[[anomaly.start, anomaly.end]]
    else:
        picked = np.array([anomaly.start, anomaly.end])
    two = ScalarSeries(
        steps=steps[picked],
        wall_times=np.asarray(series.wall_times)[picked],
        values=np.asarray(series.values)[picked],
    )
    found = axis_values(
        axis,
        two,
        tag=tag,
        epoch_map=view.epoch_maps[run],
        run_start_time=summary.start_time,
        run_last_step=summary.last_step,
    )
    if isinstance(found, Excluded):
        return None
    return [float(found[0]), float(found[1])]
