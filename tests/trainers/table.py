"""The cells of docs/trainers.md, computed from the routes.

`cells(client, run, tags)` gives, for one run, what the tab infers: its
framework, trainer, epoch axis, resumes, and per tag its split, level and
aggregation, in the words the table uses. tests/trainers/test_docs_table.py
checks every cell of the doc against it; `python -m tests.trainers.table`
prints the cells to paste.
"""

from __future__ import annotations

import json
import urllib.parse

BASE = "/data/plugin/tb_multiframework"


def _get(client, path, **args):
    query = urllib.parse.urlencode(args, doseq=True)
    response = client.get(f"{BASE}/{path}?{query}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def run_facts(client) -> tuple[dict, dict]:
    runs = {r["run"]: r for r in _get(client, "runs")["runs"]}
    members = {}
    for entry in _get(client, "metrics")["metrics"]:
        for m in entry["members"]:
            members[(m["run"], m["tag"])] = m
    return runs, members


def epoch_cell(run: dict) -> str:
    if not run["hasEpochAxis"]:
        return "none"
    return run["epochSource"]


def resume_cell(run: dict) -> str:
    starts = [str(a["startStep"]) for a in run["attempts"] if a["attempt"]]
    return "at step " + ", ".join(starts) if starts else "none"


def tag_cell(members: dict, run: str, tag: str, field: str) -> str:
    member = members.get((run, tag))
    if member is None:
        return "not a metric"
    value = member[field]
    if value is None:
        return "unknown"
    return str(value)


def main() -> None:
    import sys

    from tests.conftest import make_client

    client, _ = make_client(sys.argv[1])
    runs, members = run_facts(client)
    for name in sys.argv[2:]:
        run = runs[name]
        print(name, "|", run["framework"], "|", run["trainer"] or "unknown",
              "|", epoch_cell(run), "|", resume_cell(run))
        for tag in run["scalarTags"]:
            print("   ", tag, tag_cell(members, name, tag, "split"),
                  tag_cell(members, name, tag, "level"),
                  tag_cell(members, name, tag, "aggregation"))


if __name__ == "__main__":
    main()
