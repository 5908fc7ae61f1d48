"""Tag and metric lists are paged and searched on the server (issue 20, point 5).

A run with 200,000 tags made `GET metrics` answer 87.6 MB and `GET runs`
list every tag of every run at each poll. Here a run logs 20,000 tags (and
a second run 3 of them): pages must add up to every entry exactly once,
searches must find what Python's `re.search(..., re.I)` finds, and `runs`
lists at most 1,000 tags a run with the count.

Tree::

    logdir/big/events...    tags m00000/train ... m19999/train, 1 point each
    logdir/small/events...  tags m00001/train, m00002/train, lr
"""

import json
import re

import pytest

from tests import eventfiles
from tests.conftest import make_client

BASE = "/data/plugin/tb_multiframework"
N = 20_000
BIG = [f"m{i:05d}/train" for i in range(N)]
SMALL = ["m00001/train", "m00002/train", "lr"]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("paging")
    for run, tags in (("big", BIG), ("small", SMALL)):
        payloads = [eventfiles.file_version_event()] + [
            eventfiles.scalar_event(tag, 0, 10.0, 1.0) for tag in tags
        ]
        eventfiles.write(
            str(root / run / eventfiles.TORCH_NAME),
            eventfiles.record_bytes(payloads),
        )
    return make_client(str(root))[0]


def get(client, route, **params):
    response = client.get(f"{BASE}/{route}", query_string=params)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json(), len(response.get_data())


def test_runs_lists_a_bounded_number_of_tags_with_the_count(client):
    payload, size = get(client, "runs")
    big = next(r for r in payload["runs"] if r["run"] == "big")
    assert big["scalarTagCount"] == N and len(big["scalarTags"]) == 1000
    assert big["scalarTags"] == sorted(BIG)[:1000]
    assert size < 200_000
    everything, _ = get(client, "runs", tags="all")
    big = next(r for r in everything["runs"] if r["run"] == "big")
    assert big["scalarTags"] == sorted(BIG)


def test_tag_pages_add_up_to_every_tag_once(client):
    seen = []
    offset = 0
    while True:
        page, size = get(client, "tags", offset=offset, limit=2000, run="small")
        assert page["total"] == N + 1  # "lr" too
        assert size < 200_000
        seen += page["tags"]
        offset += 2000
        if offset >= page["total"]:
            break
    names = [t["tag"] for t in seen]
    assert len(names) == len(set(names)) == N + 1
    # The selected run's tags first, then the rest, each part by name.
    assert names[:3] == sorted(SMALL)
    assert names[3:] == sorted(set(BIG) - set(SMALL))
    counts = {t["tag"]: (t["runs"], t["selected"]) for t in seen}
    assert counts["m00001/train"] == (2, 1)
    assert counts["m00003/train"] == (1, 0)


def test_tag_search_is_a_case_insensitive_regex(client):
    page, _ = get(client, "tags", search="M1234.", limit=2000)
    expected = sorted(t for t in set(BIG + SMALL) if re.search("M1234.", t, re.I))
    assert [t["tag"] for t in page["tags"]] == expected
    assert page["total"] == len(expected) == 10
    # Not a regex: matched as text.
    page, _ = get(client, "tags", search="m0000(")
    assert page["total"] == 0
    page, _ = get(client, "tags", search="/TRAIN", limit=5)
    assert page["total"] == N and len(page["tags"]) == 5


def test_metric_pages_add_up_to_the_whole_index(client):
    whole, whole_size = get(client, "metrics")
    assert whole["total"] == len(whole["metrics"]) and whole["limit"] is None
    keys = [m["key"] for m in whole["metrics"]]
    paged = []
    for offset in range(0, whole["total"], 1500):
        page, size = get(client, "metrics", offset=offset, limit=1500)
        assert page["total"] == whole["total"]
        assert size < whole_size / 5
        paged += [m["key"] for m in page["metrics"]]
    assert sorted(paged) == sorted(keys) and len(set(paged)) == len(paged)
    # Each tag m<i>/train is one metric "m<i>/train": every one is there.
    names = {m["name"] for m in whole["metrics"]}
    assert {t.lower() for t in BIG} <= names


def test_metric_search_selected_runs_first_and_keys(client):
    page, _ = get(client, "metrics", search="^m0000[12]/", limit=50, run="small")
    found = sorted({m["name"] for m in page["metrics"]})
    assert found == ["m00001/train", "m00002/train"]
    first = page["metrics"][0]
    assert any(member["run"] == "small" for member in first["members"])
    one = page["metrics"][-1]["key"]
    exact, _ = get(client, "metrics", key=[one, "nope@epoch"])
    assert [m["key"] for m in exact["metrics"]] == [one]


@pytest.mark.parametrize(
    ("route", "params", "words"),
    [
        ("metrics", {"limit": "0"}, "limit"),
        ("metrics", {"limit": "2001"}, "limit"),
        ("metrics", {"offset": "-1"}, "offset"),
        ("tags", {"limit": "x"}, "limit"),
        ("tags", {"search": "a" * 201}, "search"),
        ("runs", {"tags": "every"}, "tags"),
    ],
)
def test_bad_paging_arguments_are_400(client, route, params, words):
    response = client.get(f"{BASE}/{route}", query_string=params)
    assert response.status_code == 400
    assert words in json.loads(response.get_data())["error"]
