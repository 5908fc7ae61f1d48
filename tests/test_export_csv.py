"""CSV export neutralises spreadsheet formulas in run and tag names.

Run and tag names are chosen by whoever wrote the logs; a spreadsheet opening
the export would run a cell such as `=cmd|' /C calc'!A0`. Directory tree::

    logdir/
      =HYPERLINK("x")/events.out.tfevents.<ts>.host.1.0
      @SUM(1+1)/...   +1/...   -2+3/...   <TAB>tab/...   <CR>cr/...
      plain/...                 (tags: =cmd|' /C calc'!A0, -loss, loss)
"""

import csv
import io
import json
import math
import urllib.parse

import numpy as np
import pytest

from tests import eventfiles
from tests.conftest import make_client

BASE = "/data/plugin/tb_multiframework"
HOSTILE_RUNS = ['=HYPERLINK("x")', "@SUM(1+1)", "+1", "-2+3", "\ttab", "\rcr"]
HOSTILE_TAG = "=cmd|' /C calc'!A0"
VALUES = [-1.5, 2.25, -0.0, 1e-9]
# simple_value is a float32: what a reader gets back.
F32 = [float(np.float32(v)) for v in VALUES]


@pytest.fixture
def hostile_client(tmp_path):
    for run in [*HOSTILE_RUNS, "plain"]:
        eventfiles.write(
            str(tmp_path / run / eventfiles.TORCH_NAME),
            eventfiles.record_bytes(
                [
                    eventfiles.scalar_event(tag, step, 100.0 + step, value)
                    for tag in (HOSTILE_TAG, "-loss", "loss")
                    for step, value in enumerate(VALUES)
                ]
            ),
        )
    client, _ = make_client(str(tmp_path))
    return client


def _export(client, tag, fmt):
    runs = "&".join(
        "run=" + urllib.parse.quote(r) for r in [*HOSTILE_RUNS, "plain"]
    )
    response = client.get(
        f"{BASE}/export?{runs}&tag={urllib.parse.quote(tag)}&format={fmt}"
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_data(as_text=True)


def test_csv_cells_starting_a_formula_get_a_quote(hostile_client):
    text = _export(hostile_client, HOSTILE_TAG, "csv")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert len(rows) == 7 * len(VALUES)
    assert {r["run"] for r in rows} == {"'" + r for r in HOSTILE_RUNS} | {
        "plain"
    }
    assert {r["tag"] for r in rows} == {"'" + HOSTILE_TAG}
    # No cell of the file starts a formula; numbers are numbers, unquoted.
    for row in rows:
        for cell in row.values():
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
            assert not cell.startswith("-") or _is_number(cell), cell
        assert float(row["value"]) in F32
        assert row["step"] == str(int(row["step"]))
    negative = [r["value"] for r in rows if float(r["value"]) < 0]
    assert negative and all(v == "-1.5" for v in negative)


def test_a_tag_starting_with_minus_is_text_and_values_stay_numbers(
    hostile_client,
):
    rows = list(
        csv.DictReader(io.StringIO(_export(hostile_client, "-loss", "csv")))
    )
    assert {r["tag"] for r in rows} == {"'-loss"}
    assert sorted(
        float(r["value"]) for r in rows if r["run"] == "plain"
    ) == sorted(F32)


def test_json_export_keeps_names_as_they_are(hostile_client):
    body = json.loads(_export(hostile_client, HOSTILE_TAG, "json"))
    run_col = body["columns"].index("run")
    tag_col = body["columns"].index("tag")
    assert {row[run_col] for row in body["rows"]} == {*HOSTILE_RUNS, "plain"}
    assert {row[tag_col] for row in body["rows"]} == {HOSTILE_TAG}


def _is_number(cell):
    try:
        return not math.isnan(float(cell)) or cell == "nan"
    except ValueError:
        return False
