"""`tbmf list` on the demo logs, checked against the `runs` route."""

from __future__ import annotations

import re

from tests.cli.conftest import assert_usage_error, tbmf, write_run


def _without_timing(payload: dict) -> dict:
    # `source` says how this process read the runs (the tab keeps a
    # persistent cache, `tbmf` does not): not data.
    return {k: v for k, v in payload.items() if k not in ("reload", "source")}


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
    runs = demo_routes.get("runs")["runs"]
    assert len(lines) == len(runs) + 1
    # elided, not wrapped
    assert any("…" in line for line in lines)
    wide = tbmf("list", demo_logdir, "--width", "300").out.rstrip("\n")
    header, *rows = wide.split("\n")
    assert header.split() == [
        "run",
        "group",
        "framework",
        "writer",
        "trainer",
        "config",
        "hparams",
        "points",
        "steps",
        "duration",
    ] + (  # the warnings column only when a run has warnings
        ["warn"] if any(run["warnings"] for run in runs) else []
    )
    for row, run in zip(rows, runs, strict=True):  # by name, as the route
        first, last = run["firstStep"], run["lastStep"]
        steps = "—" if first is None else f"{first:,}–{last:,}"
        if first is not None and first == last:
            steps = f"{first:,}"  # one step: shown once, as the tab does
        # a run that is a group of its own leaves the group cell blank
        group = "" if run["group"] == run["run"] else run["group"]
        left = [run["run"], group, run["framework"], run["writer"]]
        left += [v for v in (run["trainer"], run["configHash"]) if v]
        differing = [
            f"{k}={v}" for k, v in run["hparams"].items() if k in ("seed",)
        ]
        pattern = (
            r"\s+".join(re.escape(v) for v in left if v)
            + r"\s+(?P<hparams>.*?)\s*"
            + r"\s+".join(
                re.escape(v) for v in (f"{run['numPoints']:,}", steps)
            )
            + r"\s+\S.*"
        )
        match = re.fullmatch(pattern, row)
        assert match, (pattern, row)
        for item in differing:
            assert item in match["hparams"].split(), row


def test_filter_is_the_tabs_syntax(demo_logdir, demo_routes) -> None:
    runs = demo_routes.get("runs")["runs"]
    found = tbmf("list", demo_logdir, "--filter", "seed=1 pytorch", "--json")
    assert (
        [r["run"] for r in found.json()["runs"]]
        == [
            r["run"]
            for r in runs
            if r["hparams"].get("seed") == 1 and "pytorch" in r["run"]
        ]
        == ["seeds/pytorch_seed1"]
    )
    found = tbmf(
        "list",
        demo_logdir,
        "--filter",
        "points>=818 framework!=paddle",
        "--json",
    )
    assert [r["run"] for r in found.json()["runs"]] == [
        r["run"]
        for r in runs
        if r["numPoints"] >= 818 and r["framework"] != "paddle"
    ]
    summary = demo_routes.get("metric_summary", metric="loss/val@epoch")
    best = {row["run"]: row["best"] for row in summary["runs"]}
    limit = sorted(best.values())[len(best) // 2]
    found = tbmf(
        "list",
        demo_logdir,
        "--metric",
        "loss/val@epoch",
        "--filter",
        f"best<{limit}",
        "--json",
    ).json()
    assert found["metricSummary"] == summary
    assert [r["run"] for r in found["runs"]] == [
        r["run"] for r in runs if best.get(r["run"], float("inf")) < limit
    ]


def test_sort_descending_by_points(demo_logdir, demo_routes) -> None:
    result = tbmf("list", demo_logdir, "--sort=-points", "--json")
    order = [r["run"] for r in result.json()["runs"]]
    runs = demo_routes.get("runs")["runs"]
    expected = [r["run"] for r in sorted(runs, key=lambda r: -r["numPoints"])]
    assert order == expected
    human = tbmf("list", demo_logdir, "--sort=-points", "--width", "300")
    lines = human.out.split("\n")[1:]
    assert [line.split()[0] for line in lines if line] == expected
    by_seed = tbmf("list", demo_logdir, "--sort", "seed", "--json").json()
    seeds = [r["hparams"].get("seed") for r in by_seed["runs"]]
    present = [s for s in seeds if s is not None]
    assert present == sorted(present) and seeds[: len(present)] == present


def test_unknown_sort_column_names_the_columns(demo_logdir) -> None:
    assert_usage_error(
        tbmf("list", demo_logdir, "--sort", "pionts"),
        "unknown column 'pionts'",
        "did you mean 'points'",
        "columns: run, group, framework",
    )


def test_empty_logdir_and_narrow_width(tmp_path) -> None:
    result = tbmf("list", str(tmp_path))
    assert result.code == 0 and result.out == ""
    assert "no runs" in result.err
    write_run(tmp_path, "a_rather_long_run_name_" * 4, {"loss": [(0, 1.0)]})
    narrow = tbmf("list", str(tmp_path), "--width", "80")
    assert all(len(line) <= 80 for line in narrow.out.splitlines())
    # cut in the middle: the start and the end of the name stay
    assert re.search(r"^a_rathe\w*…\w*_name_  ", narrow.out, re.M)
    assert "…" in narrow.out


def test_hostile_names_cannot_drive_the_terminal(tmp_path) -> None:
    write_run(tmp_path, "evil\x1b[2Jrun", {"loss": [(0, 1.0), (1, 0.5)]})
    result = tbmf("list", str(tmp_path))
    assert result.code == 0, result.err
    assert "\x1b" not in result.out
    assert "evil\\x1b[2Jrun" in result.out


def test_elided_run_names_stay_distinct(demo_logdir) -> None:
    # run names differ at their end (Loss_train/Loss_val, seed0/seed1):
    # a cut at the end would print two rows that read the same
    result = tbmf("list", demo_logdir, "--width", "60")
    assert result.code == 0, result.err
    cells = [line.split("  ")[0] for line in result.out.splitlines()[1:]]
    assert any("…" in cell for cell in cells)
    assert len(set(cells)) == len(cells), cells


def test_elide_keeps_the_tail_in_terminal_cells() -> None:
    from tb_multiframework.cli.textfmt import display_width, elide

    for text in ["pytorch_resumed/Loss_train", "実験/シード_0/train", "a" * 50]:
        for width in range(2, len(text) + 3):
            cut = elide(text, width, keep_tail=True)
            assert display_width(cut) <= width
            if display_width(text) <= width:
                assert cut == text
            else:
                head, tail = cut.split("…")
                assert text.startswith(head) and text.endswith(tail)
                assert display_width(cut) >= width - 1  # wide chars: 1 spare
