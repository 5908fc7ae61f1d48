"""`--metric NAME` (no level) is read alike by every command.

`loss/train` names every level of the metric; commands showing one metric
(`export`, `anomalies`, `list`, `open`) take the level the runs log at a
level of their own, then the one with most runs. The expected key is
worked out here from the `metrics` route, and each command's output must
equal its output for that key.
"""

from __future__ import annotations

from tests.cli.conftest import tbmf


def _expected_key(routes, name: str, runs: list[str]) -> str:
    entries = [m for m in routes.get("metrics")["metrics"] if m["name"] == name]
    assert len(entries) > 1  # the case under test: several levels

    def score(entry):
        members = [m for m in entry["members"] if not runs or m["run"] in runs]
        return (
            sum(m["level"] is not None for m in members),
            len({m["run"] for m in members}),
        )

    best = max(map(score, entries))
    return next(e["key"] for e in entries if score(e) == best)


def test_export_accepts_a_name(demo_logdir, demo_routes) -> None:
    key = _expected_key(demo_routes, "loss/train", ["keras_fit/train"])
    by_name = tbmf(
        "export", demo_logdir, "--metric", "loss/train", "--run", "keras_fit"
    )
    by_key = tbmf("export", demo_logdir, "--metric", key, "--run", "keras_fit")
    assert by_name.code == 0, by_name.err
    assert by_name.out == by_key.out and by_name.out.count("\n") > 5


def test_anomalies_help_example_runs(demo_logdir, demo_routes) -> None:
    """`tbmf anomalies --help`'s own example, on the demo logs."""
    helptext = tbmf("anomalies", "--help").out
    assert "--metric loss/train --json" in helptext
    by_name = tbmf(
        "anomalies",
        demo_logdir,
        "--run",
        "pytorch_sgd",
        "--metric",
        "loss/train",
        "--json",
    )
    assert by_name.code == 0, by_name.err
    key = _expected_key(demo_routes, "loss/train", ["pytorch_sgd"])
    by_key = tbmf(
        "anomalies",
        demo_logdir,
        "--run",
        "pytorch_sgd",
        "--metric",
        key,
        "--json",
    )
    assert by_name.json() == by_key.json()


def test_list_accepts_a_name(demo_logdir, demo_routes) -> None:
    key = _expected_key(demo_routes, "loss/train", [])
    by_name = tbmf("list", demo_logdir, "--metric", "loss/train", "--json")
    by_key = tbmf("list", demo_logdir, "--metric", key, "--json")
    assert by_name.code == 0, by_name.err
    got, want = by_name.json(), by_key.json()
    for answer in (got, want):
        answer.pop("reload", None)  # how long reading took
    assert got == want


def test_open_reads_a_name(demo_logdir, demo_routes) -> None:
    """`open` puts the key chosen by the same rule in the tab's link."""
    from tb_multiframework import wiring
    from tb_multiframework.cli import open_tb

    stack = wiring.build_stack(demo_logdir, layouts=False)
    stack.loader.reload()
    assert open_tb._metric_key(stack, "loss/train") == _expected_key(
        demo_routes, "loss/train", []
    )
    assert open_tb._metric_key(stack, "loss/val@epoch") == "loss/val@epoch"
