"""`GET scalars?encoding=b64`: compact arrays that decode to the JSON answer.

The packed arrays are decoded here with `base64` and `np.frombuffer` (not
with the code under test) and compared bit for bit with the plain JSON
answer of the same request, on the demo logs (every framework, every axis)
and on event files holding NaN, +-Inf, float64 values and huge steps.
"""

from __future__ import annotations

import base64
import json
import math
import struct

import numpy as np
import pytest
from tensorboard.compat.proto import event_pb2

from tests import eventfiles
from tests.conftest import make_client

BASE = "/data/plugin/tb_multiframework"
FIELDS = (
    "x",
    "y",
    "yMin",
    "yMax",
    "smoothed",
    "steps",
    "lower",
    "upper",
    "count",
    "countBaseline",
)
LISTS = ("series", "diffs", "aggregates", "groupDiffs")
DTYPES = {"f4": "<f4", "f8": "<f8", "i4": "<i4", "i8": "<i8"}


def get(client, path, headers=None):
    response = client.get(BASE + path, headers=headers or {})
    assert response.mimetype == "application/json"
    return response


def get_json(client, path, status=200):
    response = get(client, path)
    assert response.status_code == status, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def plain(values):
    """A JSON array with TensorBoard's non-finite strings, as float64."""
    named = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
    return np.array([named.get(v, v) for v in values], dtype=np.float64)


def decode(entry):
    """Every packed field of a series or diff, decoded independently."""
    out = {}
    for field in FIELDS:
        packed = entry.get(field)
        if packed is None or "b64" not in packed:
            continue
        raw = base64.b64decode(packed["b64"], validate=True)
        out[field] = np.frombuffer(raw, dtype=DTYPES[packed["dtype"]])
    for field in FIELDS:
        packed = entry.get(field)
        if packed is not None and "sameAs" in packed:
            out[field] = out[packed["sameAs"]]
    return out


def assert_same_answer(client, query):
    plain_body = get_json(client, f"/scalars?{query}")
    packed_body = get_json(client, f"/scalars?{query}&encoding=b64")
    assert plain_body["encoding"] == "json"
    assert packed_body["encoding"] == "b64"
    for key in LISTS:
        assert len(plain_body.get(key, [])) == len(packed_body.get(key, []))
        for p, b in zip(
            plain_body.get(key, []), packed_body.get(key, []), strict=True
        ):
            decoded = decode(b)
            for field in FIELDS:
                if field not in decoded:  # not an array, or an empty list
                    assert b.get(field) == p.get(field), field
                    assert not p.get(field), field
            for field, values in decoded.items():
                expected = plain(p[field])
                got = values.astype(np.float64)
                # Bit for bit: NaN where NaN, the sign of zero kept.
                np.testing.assert_array_equal(
                    got.view(np.int64)[~np.isnan(got)],
                    expected.view(np.int64)[~np.isnan(expected)],
                    err_msg=f"{query} {key} {field}",
                )
                np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
            rest = {k: v for k, v in b.items() if k not in FIELDS}
            assert rest == {k: v for k, v in p.items() if k not in FIELDS}
    return packed_body


@pytest.mark.parametrize(
    "query",
    [
        "run=pytorch_sgd&run=paddle_vdl&tag=Loss/train&points=50",
        "metric=loss/train@batch&x=epoch&smoothing=0.6&points=80",
        "metric=loss/val@epoch&x=epoch&baseline=pytorch_sgd",
        "metric=loss/train@batch&x=wall&smoothing=0.9&smoothingMode=time"
        "&baseline=paddle_vdl&diffMode=ratio&points=40",
        "metric=loss/train@batch&x=relative&xMin=1&xMax=30&points=20",
        "run=keras_fit/train&tag=epoch_loss&x=progress",
        "metric=loss/train@batch&groupBy=framework&aggregate=mean&band=std"
        "&smoothing=0.6&points=60",
        "metric=loss/train@batch&x=epoch&groupBy=framework&aggregate=median"
        "&band=minmax&baselineGroup=pytorch&includeSeries=0&points=60",
    ],
)
def test_packed_answer_decodes_to_the_plain_answer(demo_client, query):
    body = assert_same_answer(demo_client, query)
    if "aggregate=" in query:
        assert body["aggregates"], query
        for entry in body["aggregates"] + body.get("groupDiffs", []):
            assert {"b64", "sameAs"} & set(entry["lower"])
            assert entry["count"]["dtype"] == "i4"


def _double_event(tag, step, wall, value):
    event = event_pb2.Event(wall_time=wall, step=step)
    item = event.summary.value.add(tag=tag)
    item.tensor.dtype = 2  # DT_DOUBLE
    item.tensor.tensor_shape.SetInParent()
    item.tensor.tensor_content = struct.pack("<d", value)
    item.metadata.plugin_data.plugin_name = "scalars"
    return event.SerializeToString()


@pytest.fixture
def odd_client(tmp_path):
    """Runs with non-finite, float64 and huge-step points.

    tmp/
      f32/   simple_value (float32): NaN, +-Inf, -0.0, steps 0..299
      f64/   DT_DOUBLE tensors: 0.1 * k (not float32-exact), steps 0..299
      huge/  steps beyond int32 and beyond 2**24
    """
    f32 = [
        eventfiles.scalar_event("loss", s, 1e9 + s, v)
        for s, v in enumerate(
            [math.nan, math.inf, -math.inf, -0.0]
            + [float(np.float32(0.5 * k)) for k in range(296)]
        )
    ]
    f64 = [_double_event("loss", s, 1e9 + s, 0.1 * s) for s in range(300)]
    huge = [
        eventfiles.scalar_event("loss", 2**40 + s * 3, 1e9 + s, float(s))
        for s in range(300)
    ]
    for name, events in (("f32", f32), ("f64", f64), ("huge", huge)):
        eventfiles.write(
            str(tmp_path / name / eventfiles.TORCH_NAME),
            eventfiles.record_bytes(events),
        )
    client, _ = make_client(str(tmp_path))
    return client


def test_float32_only_where_every_value_survives(odd_client):
    body = assert_same_answer(odd_client, "run=f32&run=f64&tag=loss")
    f32, f64 = body["series"]
    assert f32["y"]["dtype"] == "f4"  # logged as float32, NaN/Inf included
    y = decode(f32)["y"]
    assert np.isnan(y[0]) and y[1] == np.inf and y[2] == -np.inf
    assert y[3] == 0 and math.copysign(1, y[3]) == -1
    assert f64["y"]["dtype"] == "f8"  # 0.1 * k is not float32-exact
    assert f32["x"]["dtype"] == "f4" and f32["steps"] == {"sameAs": "x"}
    assert f32["smoothed"] == {"sameAs": "y"}  # no smoothing: the values
    wall = assert_same_answer(odd_client, "run=f32&tag=loss&x=wall")
    assert wall["series"][0]["x"]["dtype"] == "f8"  # epoch seconds


def test_huge_steps_travel_exactly(odd_client):
    body = assert_same_answer(odd_client, "run=huge&run=f32&tag=loss")
    huge = body["series"][0]
    assert huge["x"]["dtype"] == "f8" and huge["steps"] == {"sameAs": "x"}
    np.testing.assert_array_equal(
        decode(huge)["steps"], 2**40 + 3 * np.arange(300)
    )
    diffs = assert_same_answer(
        odd_client, "run=f32&run=f64&tag=loss&baseline=f32&smoothing=0.5"
    )["diffs"]
    assert diffs[0]["smoothed"]["dtype"] == "f8"


def test_steps_beyond_two_to_the_53_travel_as_int64(tmp_path):
    """Issue 22: 2**53 + 1 and 2**63 - 1 came back rounded (as float64)."""
    steps = [0, 1, 2**53 + 1, 2**63 - 1]
    events = [
        eventfiles.scalar_event("loss", s, 1e9 + i, float(i))
        for i, s in enumerate(steps)
    ]
    eventfiles.write(
        str(tmp_path / "beyond" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes(events),
    )
    client, _ = make_client(str(tmp_path))
    packed = get_json(client, "/scalars?run=beyond&tag=loss&encoding=b64")
    (series,) = packed["series"]
    assert series["steps"]["dtype"] == "i8"
    raw = base64.b64decode(series["steps"]["b64"], validate=True)
    assert np.frombuffer(raw, dtype="<i8").tolist() == steps
    # Plain JSON writes every digit (json.loads reads them as Python ints).
    plain_body = get_json(client, "/scalars?run=beyond&tag=loss")
    assert plain_body["series"][0]["steps"] == steps
    runs = get_json(client, "/runs")["runs"]
    assert runs[0]["lastStep"] == 2**63 - 1


def test_packed_answer_is_not_gzipped(odd_client):
    gzip = {"Accept-Encoding": "gzip"}
    packed = get(odd_client, "/scalars?run=f32&tag=loss&encoding=b64", gzip)
    assert packed.headers.get("Content-Encoding") is None
    assert packed.headers["Content-Length"] == str(len(packed.get_data()))
    assert json.loads(packed.get_data(as_text=True))["encoding"] == "b64"
    plain_answer = get(odd_client, "/scalars?run=f32&tag=loss", gzip)
    assert plain_answer.headers.get("Content-Encoding") == "gzip"


@pytest.mark.parametrize("value", ["xml", "", "B64", "<script>", "json;b64"])
def test_unknown_encoding_is_a_400(odd_client, value):
    body = get_json(
        odd_client, f"/scalars?run=f32&tag=loss&encoding={value}", status=400
    )
    assert "encoding" in body["error"]


def test_export_stays_plain_csv(odd_client):
    response = odd_client.get(
        BASE + "/export?run=f32&tag=loss&format=csv&encoding=b64"
    )
    assert response.status_code == 200
    assert response.get_data(as_text=True).startswith("x,run,tag,step")
