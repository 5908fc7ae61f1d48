"""The export download is named after metric, axis and date, safely.

The expected names are written out by hand; the hostile tags are logged
into real event files and exported through the real route, and the header
is parsed back with the standard library's email parser (what a browser
does with ``Content-Disposition``).
"""

from __future__ import annotations

import datetime
import email.message
import os
import re

import pytest

from tb_multiframework.core.filenames import (
    MAX_PART_CHARS,
    export_filename,
    safe_filename_part,
)
from tests import eventfiles
from tests.conftest import make_client

BASE = "/data/plugin/tb_multiframework"
DAY = datetime.date(2026, 11, 30)
SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
HOSTILE_TAGS = [
    '"; filename="evil.exe',
    "../../etc/passwd",
    "a\r\nSet-Cookie: x=1",
    "CON",
    "nul.txt",
    "<script>alert(1)</script>",
    '=HYPERLINK("http://x")',
    "....",
    "loss/\u00e9t\u00e9/\u4e2d\u6587",
    "x" * 900,
    "\u202etxt.exe",
]


@pytest.mark.parametrize(
    ("metric", "tag", "x", "expected"),
    [
        (
            "loss/train@batch",
            None,
            "step",
            "loss_train-batch_step_2026-11-30.csv",
        ),
        ("accuracy/val", None, "epoch", "accuracy_val_epoch_2026-11-30.csv"),
        (None, "Loss/train", "wall", "Loss_train_wall_2026-11-30.csv"),
        (None, "", "step", "export_step_2026-11-30.csv"),
    ],
)
def test_names_say_what_where_when(metric, tag, x, expected) -> None:
    name = export_filename(metric=metric, tag=tag, x=x, fmt="csv", date=DAY)
    assert name == expected


@pytest.mark.parametrize("text", HOSTILE_TAGS)
def test_hostile_parts_become_safe(text: str) -> None:
    part = safe_filename_part(text, fallback="export")
    assert SAFE.match(part), part
    assert len(part) <= MAX_PART_CHARS + 1  # +1: a reserved name's "_"
    assert part.split(".")[0].upper() not in {"CON", "NUL", "PRN", "AUX"}
    assert "/" not in part and "\\" not in part


def test_the_route_names_the_download_and_survives_hostile_tags(
    tmp_path,
) -> None:
    """Real event files whose tags are hostile, exported by the route."""
    run_dir = tmp_path / "run"
    events = [eventfiles.file_version_event()]
    for i, tag in enumerate(HOSTILE_TAGS):
        events.append(eventfiles.scalar_event(tag, 0, 1.0 + i, 0.5))
    eventfiles.write(
        os.path.join(run_dir, "events.out.tfevents.1.host.1.1"),
        eventfiles.record_bytes(events),
    )
    client, _ = make_client(str(tmp_path))
    for tag in HOSTILE_TAGS:
        response = client.get(
            BASE + "/export",
            query_string={"run": "run", "tag": tag, "x": "step"},
        )
        assert response.status_code == 200, response.get_data(as_text=True)
        header = response.headers["Content-Disposition"]
        assert "\r" not in header and "\n" not in header
        message = email.message.Message()
        message["Content-Disposition"] = header
        name = message.get_filename()
        assert name is not None and SAFE.match(name), header
        today = datetime.date.today().isoformat()
        assert name.endswith(f"_step_{today}.csv"), name
    # A plain metric reads as it is.
    response = client.get(
        BASE + "/export",
        query_string={
            "run": "run",
            "tag": "....",
            "x": "step",
            "format": "json",
        },
    )
    message = email.message.Message()
    message["Content-Disposition"] = response.headers["Content-Disposition"]
    assert message.get_filename() == (
        f"export_step_{datetime.date.today().isoformat()}.json"
    )
