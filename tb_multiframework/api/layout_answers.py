"""The layout routes' answers: `GET`/`POST`/`DELETE layouts` and
`POST layout_preview`.

The user's layouts are saved in a `LayoutStore` (None when no place is
writable, with the reason); those logged in the runs (custom scalars) are
read from the series store and converted. A preview tests a layout's
regexes against every scalar and derived speed tag of the current context.
`Api` (service.py) delegates its layout routes here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tb_multiframework.api.context import Context, NotFound
from tb_multiframework.api.messages import evidence_message
from tb_multiframework.core import layouts, safe_regex
from tb_multiframework.core.budget import Budget
from tb_multiframework.settings.layouts import LayoutStore
from tb_multiframework.store.store import Store


class LayoutsUnavailable(Exception):
    """No place to save layouts (HTTP 503)."""


def layouts_json(
    store: Store, layout_store: LayoutStore | None, path_reason: str
) -> dict[str, Any]:
    """`GET layouts`: user layouts and those logged in the runs.

    Args:
      store: the series store (the runs' logged layouts).
      layout_store: where user layouts are saved; None when nowhere.
      path_reason: why that place (or why none).
    """
    per_run = {
        run: [layout for _, layout in logged]
        for run, logged in store.layouts().items()
    }
    imported = (
        layouts.layout_to_json(layouts.convert_imported_layouts(per_run))
        if per_run
        else None
    )
    return {
        "layouts": layout_store.list() if layout_store else [],
        "imported": imported,
        "warnings": layout_store.warnings() if layout_store else [],
        "path": layout_store.path if layout_store else None,
        "pathReason": path_reason,
        "pathReasonMessage": evidence_message(path_reason),
        "writable": layout_store is not None,
        "regexEngine": safe_regex.engine_description(),
    }


def save_layout(
    layout_store: LayoutStore | None, path_reason: str, body: Any
) -> dict[str, Any]:
    """`POST layouts`: validates and saves a user layout."""
    store = _writable(layout_store, path_reason)
    if not isinstance(body, dict) or "layout" not in body:
        raise ValueError(
            'the body must be {"layout": {...}, "previousName": ...}'
        )
    unknown = set(body) - {"layout", "previousName", "overwrite"}
    if unknown:
        raise ValueError(f"unknown keys in the body: {sorted(unknown)}")
    previous = body.get("previousName")
    if previous is not None and not isinstance(previous, str):
        raise ValueError("previousName must be a string or null")
    overwrite = body.get("overwrite", True)
    if not isinstance(overwrite, bool):
        raise ValueError("overwrite must be true or false")
    saved = store.save(
        body["layout"], previous_name=previous, overwrite=overwrite
    )
    return {"layout": saved}


def delete_layout(
    layout_store: LayoutStore | None, path_reason: str, name: str
) -> dict[str, Any]:
    """`DELETE layouts?name=`: removes a user layout."""
    store = _writable(layout_store, path_reason)
    if not store.delete(name):
        raise NotFound(f"no layout named {name!r}")
    return {"deleted": name}


def preview_layout(
    context: Callable[[], Context],
    body: Any,
    *,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """`POST layout_preview`: what each chart's regexes match now.

    The layout may be half-written (its problem is in the answer), but
    the body must be `{"layout": ...}`.

    Args:
      context: the current context, asked for once the body is valid.
      should_stop: whether the client left (the preview stops early).
    """
    if not isinstance(body, dict) or set(body) != {"layout"}:
        raise ValueError('the body must be {"layout": {...}}')
    obj = body["layout"]
    ctx = context()
    candidates = [
        layouts.Candidate(run, tag, _metric_name(ctx, run, tag))
        for run, summary in sorted(ctx.summaries.items())
        for tag in (*summary.scalar_tags, *ctx.speed.derived_tags(run))
    ]
    budget = Budget(layouts.MAX_PREVIEW_TESTS, should_stop=should_stop)
    return layouts.preview_to_json(
        layouts.preview_layout(obj, candidates, budget=budget)
    )


def _writable(
    layout_store: LayoutStore | None, path_reason: str
) -> LayoutStore:
    if layout_store is None:
        raise LayoutsUnavailable(f"layouts cannot be saved: {path_reason}")
    return layout_store


def _metric_name(ctx: Context, run: str, tag: str) -> str | None:
    found = ctx.metric(run, tag)
    return None if found is None else found.name
