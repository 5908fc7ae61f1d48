"""The Python API's frames are the HTTP API's answers.

For each corpus, the plugin is built as TensorBoard builds it and asked
through TensorBoard's WSGI app (`GET runs`, `metrics`, `export`, `scalars`,
`histograms`, `config_diff`, `anomalies`); `tb_multiframework.read` reads the
same directory in this process. Every frame must hold exactly what the
routes send: the same runs and facts, every exported point with its x on
each axis, attempt and current flag, the same aligned series, difference
curves and group aggregates (asked at `points=20000`, where every series of
these corpora is sent whole), the same histograms, configs and anomalies.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from urllib.parse import urlencode

import numpy as np
import pytest

import tb_multiframework as tbmf
from tests.conftest import ROOT, make_client

BASE = "/data/plugin/tb_multiframework"
CORPORA = {
    "demo_logs": os.path.join(ROOT, "demo_logs"),
    "writers": os.path.join(ROOT, "tests", "data", "writers"),
    "hparams_sources": os.path.join(ROOT, "tests", "data", "hparams_sources"),
    "visualdl_all_kinds": os.path.join(
        ROOT, "tests", "data", "visualdl_all_kinds"
    ),
}
_NAMED = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


@pytest.fixture(scope="module", params=sorted(CORPORA))
def both(request, tmp_path_factory):
    """(Experiment, HTTP getter) over a private copy of a corpus."""
    target = tmp_path_factory.mktemp("parity") / request.param
    shutil.copytree(CORPORA[request.param], target)
    client, _ = make_client(str(target))

    def get(route, **params):
        response = client.get(f"{BASE}/{route}?{urlencode(params, doseq=True)}")
        assert response.status_code == 200, response.get_data(as_text=True)
        return json.loads(response.get_data(as_text=True))

    return tbmf.read(str(target)), get


def _numbers(values) -> np.ndarray:
    return np.array(
        [_NAMED.get(v, v) if isinstance(v, str) else v for v in values],
        dtype=np.float64,
    )


def _plain(value):
    """pandas' missing string (NaN) as the route's null."""
    return None if isinstance(value, float) and math.isnan(value) else value


def _same(a, b) -> bool:
    """Equal arrays, NaN equal to NaN, bit for bit otherwise."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(
        np.all((a == b) | (np.isnan(a) & np.isnan(b)))
    )


def test_runs_frame_is_the_runs_route(both):
    exp, get = both
    routes = {r["run"]: r for r in get("runs")["runs"]}
    frame = exp.runs
    assert list(frame.run) == sorted(routes)
    for row in frame.itertuples(index=False):
        want = routes[row.run]
        assert (row.framework, row.writer, row.trainer, row.group) == (
            want["framework"],
            want["writer"],
            want["trainer"],
            want["group"],
        )
        assert row.points == want["numPoints"]
        assert row.histograms == want["numHistograms"]
        assert tuple(row.warnings) == tuple(want["warnings"])
        assert row.config_hash == want["configHash"]
        assert row.attempts == len(want["attempts"])
    hparams = exp.hparams
    got = {(r.run, r.key): r.value for r in hparams.itertuples()}
    assert got == {
        (run, key): value
        for run, r in routes.items()
        for key, value in r["hparams"].items()
    }


def test_metrics_frame_is_the_metrics_route(both):
    exp, get = both
    want = sorted(
        (e["key"], m["run"], m["tag"], m["level"], m["aggregation"])
        for e in get("metrics")["metrics"]
        for m in e["members"]
    )
    frame = exp.metrics
    got = sorted(
        zip(
            frame.key,
            frame.run,
            frame.tag,
            map(_plain, frame.member_level),
            frame.aggregation,
        )
    )
    assert got == want


def test_every_point_is_the_export_route_on_every_axis(both):
    exp, get = both
    frame = exp.scalars
    assert len(frame) == sum(r["numPoints"] for r in get("runs")["runs"])
    for (run, tag), rows in frame.groupby(["run", "tag"], observed=True):
        ours = rows.sort_values(["step", "wall_time"], kind="stable")
        for axis, column in (
            ("step", "step"),
            ("epoch", "epoch"),
            ("relative", "relative"),
        ):
            body = get(
                "export",
                run=run,
                tag=tag,
                x=axis,
                attempts="all",
                format="json",
            )
            sent = body["rows"]
            if axis == "epoch" and not sent:  # no epoch axis: NaN
                assert ours.epoch.isna().all(), (run, tag)
                continue
            sent = sorted(sent, key=lambda r: (r[3], r[4]))
            assert len(sent) == len(ours), (run, tag, axis)
            assert [r[3] for r in sent] == ours.step.tolist()
            assert _same([r[4] for r in sent], ours.wall_time)
            assert _same(_numbers([r[5] for r in sent]), ours.value)
            assert _same([r[0] for r in sent], ours[column])
            assert [r[7] for r in sent] == ours.attempt.tolist()
            assert [r[8] for r in sent] == ours.current.tolist()


def _first_metric_with_runs(get, *, minimum: int):
    for entry in get("metrics")["metrics"]:
        runs = sorted({m["run"] for m in entry["members"]})
        if len(runs) >= minimum:
            return entry["key"], runs
    return None, []


@pytest.mark.parametrize("axis", ["step", "epoch", "relative"])
def test_compare_frame_is_the_scalars_route(both, axis):
    exp, get = both
    key, runs = _first_metric_with_runs(get, minimum=2)
    if key is None:
        key, runs = get("metrics")["metrics"][0]["key"], None
    params = dict(metric=key, x=axis, smoothing=0.6, points=20000)
    baseline = None
    if runs:
        baseline = runs[0]
        params["baseline"] = baseline
    answer = get("scalars", **params)
    frame = exp.compare(key, x=axis, baseline=baseline, smoothing=0.6)
    x = frame.index.to_numpy()
    labels = frame.attrs["series"]
    by_series = {v: k for k, v in labels.items()}
    drawn = 0
    for series in answer["series"]:
        label = by_series[(series["run"], series["tag"])]
        if series.get("excluded"):
            assert label in frame.attrs["excluded"]
            assert ("value", label) not in frame.columns
            continue
        assert series["returned"] == series["total"]  # sent whole
        xs = _numbers(series["x"])
        unique = np.r_[xs[1:] != xs[:-1], True]  # the last at a repeated x
        at = np.searchsorted(x, xs[unique])
        assert _same(x[at], xs[unique])
        assert _same(
            frame[("value", label)].to_numpy()[at],
            _numbers(series["y"])[unique],
        )
        assert _same(
            frame[("smoothed", label)].to_numpy()[at],
            _numbers(series["smoothed"])[unique],
        )
        # Nothing else in the column: NaN at the other runs' x.
        assert frame[("value", label)].notna().sum() == unique.sum()
        drawn += 1
    assert drawn == sum(not s.get("excluded") for s in answer["series"])
    assert drawn > 0 or axis == "epoch"  # hparams_sources has no epochs
    for diff in answer["diffs"]:
        label = by_series[(diff["run"], diff["tag"])]
        if diff.get("excluded") or not diff["x"]:
            assert ("diff", label) not in frame.columns or frame[
                ("diff", label)
            ].isna().all()
            continue
        assert diff["returned"] == diff["total"]
        at = np.searchsorted(x, _numbers(diff["x"]))
        assert _same(frame[("diff", label)].to_numpy()[at], _numbers(diff["y"]))
        assert _same(
            frame[("diff_smoothed", label)].to_numpy()[at],
            _numbers(diff["smoothed"]),
        )


def test_aggregate_frame_is_the_scalars_route(both):
    exp, get = both
    key, runs = _first_metric_with_runs(get, minimum=2)
    if key is None:  # visualdl_all_kinds: one run, one group
        key, runs = _first_metric_with_runs(get, minimum=1)
    groups = {r["run"]: r["framework"] for r in get("runs")["runs"]}
    baseline = groups[runs[0]]
    answer = get(
        "scalars",
        metric=key,
        x="step",
        aggregate="mean",
        groupBy="framework",
        band="std",
        baselineGroup=baseline,
        includeSeries=0,
        points=20000,
    )
    frame = exp.aggregate(
        key, by="framework", band="std", baseline_group=baseline
    )
    x = frame.index.to_numpy()
    for entry in answer["aggregates"]:
        assert entry["returned"] == entry["total"]
        at = np.searchsorted(x, _numbers(entry["x"]))
        group = entry["group"]
        for stat, field in (
            ("mean", "y"),
            ("lower", "lower"),
            ("upper", "upper"),
            ("count", "count"),
        ):
            assert _same(
                frame[(group, stat)].to_numpy()[at], _numbers(entry[field])
            ), (group, stat)
    for entry in answer["groupDiffs"]:
        at = np.searchsorted(x, _numbers(entry["x"]))
        group = entry["group"]
        assert _same(
            frame[(group, "diff")].to_numpy()[at], _numbers(entry["y"])
        )
        assert _same(
            frame[(group, "diff_lower")].to_numpy()[at],
            _numbers(entry["lower"]),
        )


def test_histograms_frame_is_the_histograms_route(both):
    exp, get = both
    frame = exp.histograms
    count = 0
    for run in get("runs")["runs"]:
        for tag in run["histogramTags"]:
            answer = get("histograms", run=run["run"], tag=tag, x="epoch")
            rows = frame[(frame.run == run["run"]) & (frame.tag == tag)]
            assert len(rows) == len(answer["steps"])
            for row, h in zip(rows.itertuples(), answer["steps"]):
                assert (row.step, row.wall_time) == (h["step"], h["wallTime"])
                assert _same(row.edges, _numbers(h["edges"]))
                assert _same(row.counts, _numbers(h["counts"]))
                want = math.nan if h["x"] is None else h["x"]
                assert _same([row.epoch], [want])
                count += 1
    assert count == len(frame)


def test_config_diff_and_anomalies_are_their_routes(both):
    exp, get = both
    runs = [r["run"] for r in get("runs")["runs"]][:3]
    if len(runs) >= 2:
        answer = get("config_diff", run=runs)
        frame = exp.config_diff(runs)
        assert list(frame.index) == [k["key"] for k in answer["keys"]]
        assert frame["differs"].tolist() == [
            k["differs"] for k in answer["keys"]
        ]
        for run in runs:
            assert frame[run].tolist() == [
                k["values"].get(run) for k in answer["keys"]
            ]
    answer = get("anomalies")
    frame = exp.anomalies()
    assert len(frame) == len(answer["anomalies"])
    assert list(zip(frame.run, frame.tag, frame.kind, frame.step)) == [
        (a["run"], a["tag"], a["kind"], a["step"]) for a in answer["anomalies"]
    ]
