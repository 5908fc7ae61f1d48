"""The layout routes' answers through the `Api` facade (api/layout_answers.py).

The paths no route test reaches: no writable place for layouts (503 before
the body is read), and a preview whose body is refused before any context
is built. Files::

    tmp_path/
      absent.json     the config (never written)
      layouts.json    the user layouts, when a store is given
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tb_multiframework.api import service
from tb_multiframework.api.service import Api, LayoutsUnavailable, NotFound
from tb_multiframework.settings.config import ConfigFile
from tb_multiframework.settings.layouts import LayoutStore
from tb_multiframework.store.store import RunMeta, Store

_LAYOUT = {
    "name": "mine",
    "categories": [
        {
            "title": "Losses",
            "charts": [{"title": "loss", "kind": "multiline", "tags": ["^lo"]}],
        }
    ],
}


def _api(tmp_path, layout_store):
    store = Store()
    store.set_meta(RunMeta("run", "run", "pytorch", "", "tfevents"))
    for tag in ("loss", "accuracy"):
        store.append_scalars(
            "run", tag, np.arange(3), 1e9 + np.arange(3), np.ones(3)
        )
    config = ConfigFile(str(tmp_path / "absent.json"), optional=True)
    return Api(store, None, config, layout_store, "read-only logdir")


def test_without_a_place_layouts_are_listed_and_never_saved(tmp_path):
    api = _api(tmp_path, None)
    answer = api.layouts()
    assert answer["layouts"] == [] and answer["warnings"] == []
    assert answer["path"] is None and answer["writable"] is False
    assert answer["pathReason"] == "read-only logdir"
    assert service.LayoutsUnavailable is LayoutsUnavailable  # plugin.py's name
    # The place is checked first: even a malformed body is a 503, not a 400.
    for call in (
        lambda: api.save_layout({"layout": _LAYOUT}),
        lambda: api.save_layout("not a body"),
        lambda: api.delete_layout("mine"),
    ):
        with pytest.raises(LayoutsUnavailable) as raised:
            call()
        assert str(raised.value) == "layouts cannot be saved: read-only logdir"


def test_save_list_delete_and_preview_with_a_place(tmp_path):
    path = tmp_path / "layouts.json"
    api = _api(tmp_path, LayoutStore(str(path)))
    with pytest.raises(ValueError, match="unknown keys in the body: \\['x'\\]"):
        api.save_layout({"layout": _LAYOUT, "x": 1})
    with pytest.raises(ValueError, match="overwrite must be true or false"):
        api.save_layout({"layout": _LAYOUT, "overwrite": "yes"})
    assert not path.exists()
    assert api.save_layout({"layout": _LAYOUT})["layout"]["name"] == "mine"
    listed = api.layouts()
    assert [entry["name"] for entry in listed["layouts"]] == ["mine"]
    assert listed["writable"] is True and listed["path"] == str(path)
    (chart,) = api.preview_layout({"layout": _LAYOUT})["charts"]
    # `^lo` of the run's two tags: only `loss`.
    assert [(m["run"], m["tag"]) for m in chart["matches"]] == [("run", "loss")]
    assert chart["totalMatches"] == 1
    assert api.delete_layout("mine") == {"deleted": "mine"}
    with pytest.raises(NotFound, match="no layout named 'mine'"):
        api.delete_layout("mine")


def test_a_refused_preview_builds_no_context(tmp_path, monkeypatch):
    api = _api(tmp_path, None)

    def no_context():
        raise AssertionError("the context was asked for")

    monkeypatch.setattr(api, "_context", no_context)
    with pytest.raises(
        ValueError, match=re.escape('the body must be {"layout": {...}}')
    ):
        api.preview_layout({"layout": _LAYOUT, "extra": 1})
