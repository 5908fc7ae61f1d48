"""`tbmf list` on the demo logs, checked against the `runs` route."""

from __future__ import annotations

import re

from tests.cli.conftest import assert_usage_error, tbmf, write_run


def _without_timing(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k != "reload"}


def test_json_is_the_runs_route(demo_logdir, demo_routes) -> None:
    result = tbmf("list", demo_logdir, "--json")
    assert result.code == 0, result.err
    assert _without_timing(result.json()) == _without_timing(
        demo_routes.get("runs")
    )


def test_table_has_a_line_per_run_within_100_columns(
    demo_logdir, demo_routes
) -> None:
    result = tbmf("list", demo_logdir)
    assert result.code == 0, result.err
    lines = result.out.rstrip("\n").split("\n")
    assert all(len(line) <= 100 for line in lines), lines
    header, rows = lines[0], lines[1:]
    assert header.split() == [
        "run",
        "group",
        "framework",
        "writer",
        "points",
        "steps",
        "duration",
        "warn",
    ]
    runs = demo_routes.get("runs")["runs"]
    assert len(rows) == len(runs)
    for row, run in zip(rows, runs):  # the route's order: by name
        cells = re.split(r"\s{2,}", row.strip())
        assert cells[0] == run["run"]
        assert cells[2] == run["framework"]
        assert f"{run['numPoints']:,}" in cells
        assert f"{run['firstStep']:,}–{run['lastStep']:,}" in cells
    # torch.utils.tensorboard does not fit its column: elided, not wrapped
    assert any("torch.utils.tensorboa…" in row for row in rows)


def test_sort_descending_by_points(demo_logdir, demo_routes) -> None:
    result = tbmf("list", demo_logdir, "--sort=-points", "--json")
    order = [r["run"] for r in result.json()["runs"]]
    runs = demo_routes.get("runs")["runs"]
    expected = [r["run"] for r in sorted(runs, key=lambda r: -r["numPoints"])]
    assert order == expected
    human = tbmf("list", demo_logdir, "--sort=-points").out.split("\n")[1:]
    assert [line.split()[0] for line in human if line] == expected


def test_unknown_sort_column_names_the_columns(demo_logdir) -> None:
    assert_usage_error(
        tbmf("list", demo_logdir, "--sort", "pionts"),
        "unknown column 'pionts'",
        "did you mean 'points'",
        "duration",
    )


def test_empty_logdir_and_narrow_width(tmp_path) -> None:
    result = tbmf("list", str(tmp_path))
    assert result.code == 0 and result.out == ""
    assert "no runs" in result.err
    write_run(tmp_path, "a_rather_long_run_name_" * 4, {"loss": [(0, 1.0)]})
    narrow = tbmf("list", str(tmp_path), "--width", "80")
    assert all(len(line) <= 80 for line in narrow.out.splitlines())
    assert "a_rather_long_run_n…" in narrow.out
    assert "…" in narrow.out


def test_hostile_names_cannot_drive_the_terminal(tmp_path) -> None:
    write_run(tmp_path, "evil\x1b[2Jrun", {"loss": [(0, 1.0), (1, 0.5)]})
    result = tbmf("list", str(tmp_path))
    assert result.code == 0, result.err
    assert "\x1b" not in result.out
    assert "evil\\x1b[2Jrun" in result.out
