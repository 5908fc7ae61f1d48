"""`tbmf anomalies`: the `anomalies` route's findings, and exit 1 for a
--fail-on kind."""

from __future__ import annotations

import numpy as np

from tests.cli.conftest import Routes, assert_usage_error, tbmf, write_run


def test_json_is_the_route(demo_logdir, demo_routes) -> None:
    result = tbmf("anomalies", demo_logdir, "--json")
    assert result.code == 0, result.err
    got = result.json()
    want = demo_routes.get("anomalies")
    assert got["failOn"] == [] and got["failing"] == []
    for key in ("anomalies", "counts", "total", "truncated", "series", "x"):
        assert got[key] == want[key], key
    # the demo's PyTorch run logs a spike at step 217 (its generator does)
    assert any(
        a["run"] == "pytorch_sgd" and a["kind"] == "spike" and a["step"] == 217
        for a in got["anomalies"]
    )


def test_table_lists_each_finding(demo_logdir, demo_routes) -> None:
    found = demo_routes.get("anomalies")["anomalies"]
    lines = tbmf("anomalies", demo_logdir).out.rstrip("\n").split("\n")
    assert lines[0].split()[:5] == [
        "run",
        "series",
        "kind",
        "steps",
        "severity",
    ]
    assert len(lines) == len(found) + 2
    for line, item in zip(lines[1:], found):
        assert line.split()[:3] == [item["run"], item["metric"], item["kind"]]
    assert lines[-1].startswith(f"{len(found)} found in ")


def test_fail_on_a_divergence(tmp_path) -> None:
    steps = np.arange(200)
    loss = 2.0 * np.exp(-steps / 50.0) + 0.1
    diverged = loss.copy()
    diverged[150:] = np.nan
    write_run(tmp_path, "healthy", {"loss": list(zip(steps.tolist(), loss))})
    write_run(tmp_path, "broken", {"loss": list(zip(steps.tolist(), diverged))})
    result = tbmf(
        "anomalies", str(tmp_path), "--fail-on", "nonfinite", "--json"
    )
    assert result.code == 1, result.err
    body = result.json()
    assert body["failing"] == ["nonfinite"]
    (nonfinite,) = [a for a in body["anomalies"] if a["kind"] == "nonfinite"]
    assert (nonfinite["run"], nonfinite["step"]) == ("broken", 150)
    assert (
        body["anomalies"] == Routes(str(tmp_path)).get("anomalies")["anomalies"]
    )
    healthy = tbmf(
        "anomalies", str(tmp_path), "--run", "healthy", "--fail-on", "any"
    )
    assert healthy.code == 0, healthy.out
    assert healthy.out.strip().endswith("0 found in 1 series")
    human = tbmf("anomalies", str(tmp_path), "--fail-on", "nonfinite,spike")
    assert human.code == 1
    assert "found nonfinite (--fail-on)" in human.err


def test_usage_errors(demo_logdir) -> None:
    assert_usage_error(
        tbmf("anomalies", demo_logdir, "--fail-on", "spik"),
        "unknown anomaly kind 'spik'",
        "did you mean 'spike'",
    )
    assert_usage_error(
        tbmf("anomalies", demo_logdir, "--run", "nope"), "unknown run 'nope'"
    )
    assert_usage_error(
        tbmf("anomalies", demo_logdir, "--metric", "loss/trian"),
        "unknown metric 'loss/trian'",
    )
