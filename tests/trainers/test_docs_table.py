"""Every cell of docs/trainers.md is what the routes say for its run.

The doc's table names, per row, a logdir (`trainers`: tests/data/trainers,
`demo_logs`) and a run; its framework, trainer, epoch axis and resumes
cells, and every `tag` split · level · aggregation item, are read back from
the routes (tests/trainers/table.py) and compared. Whether those answers
are right is test_matrix.py's job (against the ground truth).
"""

from __future__ import annotations

import os
import re

import pytest

from tests.conftest import DEMO_LOGS, ROOT, make_client
from tests.trainers.table import epoch_cell, resume_cell, run_facts, tag_cell

DOC = os.path.join(ROOT, "docs", "trainers.md")
LOGDIRS = {
    "trainers": os.path.join(ROOT, "tests", "data", "trainers"),
    "demo_logs": DEMO_LOGS,
}
_TAG_ITEM = re.compile(r"^`(?P<tag>[^`]+)` (?P<split>[^·]+) · (?P<level>[^·]+) · (?P<agg>.+)$")


def doc_rows() -> list[dict[str, str]]:
    with open(DOC, encoding="utf-8") as handle:
        lines = [line.rstrip("\n") for line in handle if line.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split(" | ")]
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == len(header), line[:80]
        rows.append(dict(zip(header, cells)))
    return rows


ROWS = doc_rows()


@pytest.fixture(scope="module")
def facts():
    return {
        name: run_facts(make_client(path)[0]) for name, path in LOGDIRS.items()
    }


def test_the_table_has_every_trainer_of_the_matrix():
    runs = {row["run"].strip("`") for row in ROWS}
    for needed in (
        "mmengine_epoch/20261201_222720/vis_data",
        "mmengine_iter/20261201_222726/vis_data",
        "sb3_ppo/PPO_1",
        "ignite",
        "accelerate/tracking",
        "vdl_det_style",
        "vdl_ocr_style",
        "keras_freq/train",
        "tbx_subruns/acc/val",
        "tbx_subruns/trial_a",
        "restart",
        "lightning_mlp/version_0",
        "hf_trainer",
        "keras_fit/train",
        "paddle_hapi",
        "pytorch_sgd",
        "paddle_tbx",
        "tf2_loop",
        "paddle_vdl",
        "pytorch_resumed",
    ):
        assert needed in runs, needed


@pytest.mark.parametrize("row", ROWS, ids=[r["run"] for r in ROWS])
def test_each_cell_is_what_the_tab_infers(facts, row):
    runs, members = facts[row["logdir"]]
    name = row["run"].strip("`")
    run = runs[name]
    assert row["framework"] == run["framework"]
    assert row["trainer"] == (run["trainer"] or "unknown")
    assert row["epoch axis"] == epoch_cell(run)
    assert row["resumes"] == resume_cell(run)
    items = row["tags: split · level · aggregation"].split("<br>")
    listed = set()
    for item in items:
        found = _TAG_ITEM.match(item)
        assert found, item
        tag = found["tag"]
        listed.add(tag)
        assert found["split"].strip() == tag_cell(members, name, tag, "split")
        assert found["level"].strip() == tag_cell(members, name, tag, "level")
        assert found["agg"].strip() == tag_cell(
            members, name, tag, "aggregation"
        )
    assert listed == set(run["scalarTags"])
