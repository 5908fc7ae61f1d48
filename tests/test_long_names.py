"""Every tag the plugin lists can be asked for (issue 20, point 7).

A 6,000-character tag was listed in `runs` while `scalars` and `export`
answered 400 "argument 'tag' is too long". Tags up to the ingest cap are
served through a real HTTP server (TensorBoard's werkzeug server limits a
request line to 64 KiB); a longer tag is not read, and its run says so
with the number of points skipped.

Tree::

    logdir/run/events...   tags: "t" * 6000 (ASCII), "é" * 4000 (8,000
                           UTF-8 bytes), "x" * 9000 (over the cap): 30
                           points each
"""

import json
import threading
import urllib.parse
import urllib.request

from tensorboard.backend import application
from werkzeug import serving

from tb_multiframework.ingest.loader import MAX_TAG_BYTES
from tests import eventfiles
from tests.conftest import make_client

LONG = "t" * 6000
WIDE = "é" * 4000
TOO_LONG = "x" * 9000


def test_every_listed_tag_is_queryable_over_http(tmp_path):
    payloads = [eventfiles.file_version_event()]
    for k, tag in enumerate((LONG, WIDE, TOO_LONG)):
        payloads += [
            eventfiles.scalar_event(tag, i, 10.0 + i, i + k * 100.0)
            for i in range(30)
        ]
    eventfiles.write(
        str(tmp_path / "run" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes(payloads),
    )
    assert len(TOO_LONG.encode()) > MAX_TAG_BYTES >= len(WIDE.encode())
    _, plugin = make_client(str(tmp_path))
    app = application.TensorBoardWSGI([plugin])
    server = serving.make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}/data/plugin/tb_multiframework"

    def get(route, **params):
        url = f"{base}/{route}?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.status, answer.read()

    try:
        status, body = get("runs")
        (run,) = json.loads(body)["runs"]
        assert sorted(run["scalarTags"]) == sorted([LONG, WIDE])
        (warning,) = run["warnings"]
        assert "of 9,000 bytes not read" in warning
        assert "30 points skipped" in warning
        for k, tag in enumerate((LONG, WIDE)):
            status, body = get("scalars", run="run", tag=tag)
            (series,) = json.loads(body)["series"]
            assert series["y"] == [i + k * 100.0 for i in range(30)]
            status, body = get("export", run="run", tag=tag, format="json")
            rows = json.loads(body)["rows"]
            assert [r[5] for r in rows] == [i + k * 100.0 for i in range(30)]
            assert {r[2] for r in rows} == {tag}
            status, body = get("anomalies", run="run", tag=tag)
            assert status == 200
    finally:
        server.shutdown()
