"""`tbmf export` is the `export` route's answer, byte for byte."""

from __future__ import annotations

import csv
import io

import pytest

from tests.cli.conftest import assert_usage_error, tbmf


@pytest.mark.parametrize(
    "cli_args, route_args",
    [
        (
            ["--metric", "loss/val@epoch", "--x", "epoch"],
            {"metric": "loss/val@epoch", "x": "epoch"},
        ),
        (
            [
                "--metric",
                "loss/train@batch",
                "--run",
                "keras_fit",
                "--run",
                "pytorch_sgd",
                "--smoothing",
                "0.6",
                "--x",
                "relative",
            ],
            {
                "metric": "loss/train@batch",
                "run": ["keras_fit/train", "pytorch_sgd"],
                "smoothing": 0.6,
                "x": "relative",
            },
        ),
        (
            [
                "--tag",
                "Loss/train",
                "--run",
                "pytorch_sgd",
                "--x-min",
                "10",
                "--x-max",
                "20",
                "--smoothing",
                "0.3",
                "--smoothing-mode",
                "time",
            ],
            {
                "tag": "Loss/train",
                "run": "pytorch_sgd",
                "xMin": 10,
                "xMax": 20,
                "smoothing": 0.3,
                "smoothingMode": "time",
            },
        ),
    ],
)
@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_export_equals_the_route(
    demo_logdir, demo_routes, tmp_path, cli_args, route_args, fmt
) -> None:
    expected = demo_routes.text("export", format=fmt, **route_args)
    out = tmp_path / f"export.{fmt}"
    result = tbmf(
        "export", demo_logdir, *cli_args, "--format", fmt, "--out", str(out)
    )
    assert result.code == 0, result.err
    # The file holds the route's bytes (CSV lines end in CRLF).
    assert out.read_bytes() == expected.encode("utf-8")
    assert len(expected) > 200  # the query really selected points
    printed = tbmf("export", demo_logdir, *cli_args, "--format", fmt)
    # (stdout is read as text: line ends are translated.)
    assert printed.out.rstrip("\n") == expected.replace("\r\n", "\n").rstrip(
        "\n"
    )


def test_rows_are_every_logged_point(demo_logdir, demo_routes) -> None:
    result = tbmf(
        "export", demo_logdir, "--tag", "Loss/train", "--run", "pytorch_sgd"
    )
    rows = list(csv.DictReader(io.StringIO(result.out)))
    runs = {r["run"]: r for r in demo_routes.get("runs")["runs"]}
    points = demo_routes.get(
        "scalars", run="pytorch_sgd", tag="Loss/train", points=20000
    )["series"][0]
    assert len(rows) == points["total"]
    assert int(rows[-1]["step"]) == runs["pytorch_sgd"]["lastStep"]


def test_export_usage_errors(demo_logdir) -> None:
    # A name without level is accepted (tests/cli/test_cli_metric_names.py);
    # an unknown one names the choices.
    assert_usage_error(
        tbmf("export", demo_logdir, "--metric", "loss/trian"),
        "unknown metric",
        "loss/train",
    )
    assert_usage_error(
        tbmf("export", demo_logdir, "--tag", "Loss/train"), "--run"
    )
    assert_usage_error(
        tbmf(
            "export",
            demo_logdir,
            "--metric",
            "loss/val@epoch",
            "--run",
            "pytorch",
        ),
        "unknown run 'pytorch'",
        "did you mean 'pytorch_sgd'",
    )
    assert_usage_error(
        tbmf("export", demo_logdir, "--tag", "nope", "--run", "pytorch_sgd"),
        "no selected run has scalar tag 'nope'",
    )
    assert_usage_error(
        tbmf(
            "export", demo_logdir, "--metric", "loss/val@epoch", "--x-min", "1"
        ),
        "--x-max",
    )
    assert_usage_error(
        tbmf(
            "export",
            demo_logdir,
            "--metric",
            "loss/val@epoch",
            "--out",
            "/nonexistent/dir/x.csv",
        ),
        "cannot write '/nonexistent/dir/x.csv'",
    )


def test_failed_write_keeps_the_old_file(demo_logdir, tmp_path) -> None:
    out = tmp_path / "kept.csv"
    out.write_text("previous\n")
    result = tbmf(
        "export", demo_logdir, "--metric", "nope/x", "--out", str(out)
    )
    assert result.code == 2
    assert out.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.csv"]
