"""Layouts logged in the demo runs, against TensorBoard's own Custom Scalars.

TensorBoard's `CustomScalarsPlugin.layout_impl`, over its own
`EventMultiplexer`, is the independent reading: every category and chart it
shows must come out of our `GET layouts` with the same regexes and margin
series, tagged with the run that logged it.
"""

import json

from tensorboard import context as tb_context
from tensorboard.backend.event_processing import (
    data_provider,
    plugin_event_multiplexer,
)
from tensorboard.plugins import base_plugin
from tensorboard.plugins.custom_scalar import custom_scalars_plugin

from tests.conftest import DEMO_LOGS


def _tensorboard_layout():
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(DEMO_LOGS)
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, DEMO_LOGS)
    context = base_plugin.TBContext(
        logdir=DEMO_LOGS, multiplexer=multiplexer, data_provider=provider
    )
    plugin = custom_scalars_plugin.CustomScalarsPlugin(context)
    return json.loads(plugin.layout_impl(tb_context.RequestContext(), ""))


def test_imported_layout_equals_tensorboards(demo_client):
    theirs = _tensorboard_layout()
    ours = json.loads(
        demo_client.get("/data/plugin/tb_multiframework/layouts").get_data()
    )["imported"]
    assert ours["readOnly"] is True
    our_charts = {
        (category["title"], chart["title"]): chart
        for category in ours["categories"]
        for chart in category["charts"]
    }
    expected = {}
    for category in theirs["category"]:
        for chart in category["chart"]:
            expected[(category["title"], chart["title"])] = chart
    assert set(our_charts) == set(expected)
    for key, chart in expected.items():
        mine = our_charts[key]
        if "multiline" in chart:
            assert mine["kind"] == "multiline"
            assert mine["tags"] == chart["multiline"]["tag"]
        else:
            assert mine["kind"] == "margin"
            assert mine["series"] == [
                {"value": s["value"], "lower": s["lower"], "upper": s["upper"]}
                for s in chart["margin"]["series"]
            ]
    sources = {
        category["title"]: category["source"] for category in ours["categories"]
    }
    assert sources["Loss"] == ["pytorch_sgd"]
    assert sources["losses"] == ["tf2_loop"]
