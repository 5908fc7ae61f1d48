"""The Markdown card compares like with like, or says what it compared.

A series whose level is unknown (PyTorch's per-batch `Loss/train`) is a
member of every level of its name. The card must not show the same two
series twice (once under @epoch, once under @batch), and a row pairing
unlike series (per batch vs an epoch mean) names both. Expected rows are
worked out from the `metrics` route.
"""

from __future__ import annotations

import re

import pytest

from tests.cli.conftest import tbmf

_AGG = {
    "per_batch": "per batch",
    "epoch_mean": "epoch mean",
    "running_mean": "running mean",
    "window_mean": "window mean",
}


def _cells(row: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", row[1:-1])]


def _member(entry, runs):
    for m in entry["members"]:
        if m["run"] in runs:
            return m
    return None


def _expected_rows(routes, name, runs_b, runs_c):
    """{key: (baseline member, candidate member)}, one per distinct pair."""
    rows, seen = {}, set()
    for entry in routes.get("metrics")["metrics"]:
        if entry["name"] != name:
            continue
        b, c = _member(entry, runs_b), _member(entry, runs_c)
        if b and c and (b["run"], b["tag"], c["run"], c["tag"]) not in seen:
            seen.add((b["run"], b["tag"], c["run"], c["tag"]))
            rows[entry["key"]] = (b, c)
    return rows


def _describe(m):
    level = "level unknown" if m["level"] is None else m["level"]
    agg = _AGG.get(m["aggregation"], "aggregation unknown")
    return f"`{m['tag']}` {agg}, {level}"


@pytest.mark.parametrize(
    ("candidate", "runs_c"),
    [
        ("keras_fit", ["keras_fit/train", "keras_fit/validation"]),
        ("tf2_loop", ["tf2_loop"]),
        ("pytorch_resumed", ["pytorch_resumed"]),
    ],
)
def test_card_rows_say_what_was_compared(
    demo_logdir, demo_routes, tmp_path, candidate, runs_c
) -> None:
    card = tmp_path / "card.md"
    result = tbmf(
        "report",
        demo_logdir,
        "-a",
        "pytorch_sgd",
        "-b",
        candidate,
        "--metric",
        "loss/train",
        "--out",
        str(card),
    )
    assert result.code == 0, result.err
    rows = [
        _cells(line)
        for line in card.read_text().split("\n")
        if line.startswith("| ") and "loss/train@" in line
    ]
    expected = _expected_rows(
        demo_routes, "loss/train", ["pytorch_sgd"], runs_c
    )
    assert len(rows) == len(expected) >= 1
    for cells in rows:
        metric = cells[1]
        key = re.match(r"`([^`]+)`", metric).group(1)
        b, c = expected[key]
        alike = b["level"] is not None and (b["level"], b["aggregation"]) == (
            c["level"],
            c["aggregation"],
        )
        suffix = "" if alike else f" — {_describe(b)} vs {_describe(c)}"
        assert metric == f"`{key}` ↓{suffix}"
    # Rows may hold equal numbers (Keras' running mean at an epoch's last
    # batch is the epoch mean): the words say they compared other series.
    assert len({cells[1].split(" — ")[-1] for cells in rows}) == len(rows)


def test_same_series_under_two_levels_is_one_row(
    demo_logdir, demo_routes, tmp_path
) -> None:
    """pytorch_sgd and pytorch_resumed log `Loss/train` of unknown level:
    both are members of @epoch and @batch, yet one comparison."""
    levels = [
        e["key"]
        for e in demo_routes.get("metrics")["metrics"]
        if e["name"] == "loss/train"
        and _member(e, ["pytorch_sgd"])
        and _member(e, ["pytorch_resumed"])
    ]
    assert len(levels) == 2
    result = tbmf(
        "diff",
        demo_logdir,
        "pytorch_sgd",
        "pytorch_resumed",
        "--metric",
        "loss/train",
        "--json",
    )
    assert result.code == 0, result.err
    assert [m["metric"] for m in result.json()["metrics"]] == levels[:1]
