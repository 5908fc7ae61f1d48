"""The cache serves only its own logdir's runs (issue 20, point 9).

Trees::

    a/run1/events...   loss = 1.0 at every step       b/run1/events...  loss = 2.0
    a/run2/events...   loss = 10.0                     b/run2/events...  loss = 20.0

Regressions: the cache directory of `a` copied to where `b`'s belongs made
`b` serve `a`'s values (and keep reading `a`'s files); swapping two runs'
segment lists in `index.json` made them serve each other's data.
"""

import hashlib
import json
import os
import shutil

from tests import eventfiles
from tests.conftest import make_client

URL = "/data/plugin/tb_multiframework/export?run={}&tag=loss&format=json"


def _logdir(path, values):
    for run, value in values.items():
        payloads = [eventfiles.file_version_event(wall=3.0)] + [
            eventfiles.scalar_event("loss", i, 100.0 + i, value)
            for i in range(50)
        ]
        eventfiles.write(
            str(path / run / eventfiles.TORCH_NAME),
            eventfiles.record_bytes(payloads),
        )
    return str(path)


def _values(client, run):
    return {row[5] for row in client.get(URL.format(run)).get_json()["rows"]}


def _cache_dir(root, logdir):
    digest = hashlib.sha256(os.path.realpath(logdir).encode()).hexdigest()
    return os.path.join(root, digest[:16])


def test_a_cache_copied_from_another_logdir_is_not_used(tmp_path):
    a = _logdir(tmp_path / "a", {"run1": 1.0, "run2": 10.0})
    b = _logdir(tmp_path / "b", {"run1": 2.0, "run2": 20.0})
    cache = str(tmp_path / "cache")
    client, _ = make_client(a, tbmf_cache_dir=cache)
    assert _values(client, "run1") == {1.0}
    shutil.copytree(_cache_dir(cache, a), _cache_dir(cache, b))
    client, _ = make_client(b, tbmf_cache_dir=cache)
    assert _values(client, "run1") == {2.0}
    assert _values(client, "run2") == {20.0}
    payload = client.get("/data/plugin/tb_multiframework/runs").get_json()
    assert payload["source"]["cache"]["restoredRuns"] == 0
    assert any("written for the logdir" in d for d in payload["source"]["cache"]["dropped"])
    for run in payload["runs"]:
        assert all(not f.startswith("/") for f in run["files"])
    # Its own cache, written now, is used at the next start.
    client, _ = make_client(b, tbmf_cache_dir=cache)
    payload = client.get("/data/plugin/tb_multiframework/runs").get_json()
    assert payload["source"]["cache"]["restoredRuns"] == 2
    assert _values(client, "run1") == {2.0}


def test_a_cache_whose_logdir_field_was_edited_is_still_refused(tmp_path):
    a = _logdir(tmp_path / "a", {"run1": 1.0, "run2": 10.0})
    b = _logdir(tmp_path / "b", {"run1": 2.0, "run2": 20.0})
    cache = str(tmp_path / "cache")
    make_client(a, tbmf_cache_dir=cache)
    shutil.copytree(_cache_dir(cache, a), _cache_dir(cache, b))
    index_path = os.path.join(_cache_dir(cache, b), "index.json")
    with open(index_path) as handle:
        index = json.load(handle)
    index["logdir"] = os.path.realpath(b)
    with open(index_path, "w") as handle:
        json.dump(index, handle)
    client, _ = make_client(b, tbmf_cache_dir=cache)
    assert _values(client, "run1") == {2.0}
    assert _values(client, "run2") == {20.0}


def test_swapped_segment_lists_do_not_swap_the_runs(tmp_path):
    a = _logdir(tmp_path / "a", {"run1": 1.0, "run2": 10.0})
    cache = str(tmp_path / "cache")
    make_client(a, tbmf_cache_dir=cache)
    index_path = os.path.join(_cache_dir(cache, a), "index.json")
    with open(index_path) as handle:
        index = json.load(handle)
    runs = index["runs"]
    runs["run1"]["segments"], runs["run2"]["segments"] = (
        runs["run2"]["segments"],
        runs["run1"]["segments"],
    )
    with open(index_path, "w") as handle:
        json.dump(index, handle)
    client, _ = make_client(a, tbmf_cache_dir=cache)
    assert _values(client, "run1") == {1.0}
    assert _values(client, "run2") == {10.0}
    dropped = client.get("/data/plugin/tb_multiframework/runs").get_json()[
        "source"
    ]["cache"]["dropped"]
    assert len([d for d in dropped if "not this run" in d]) == 2


def test_swapped_reader_states_are_not_used(tmp_path):
    a = _logdir(tmp_path / "a", {"run1": 1.0, "run2": 10.0})
    cache = str(tmp_path / "cache")
    make_client(a, tbmf_cache_dir=cache)
    index_path = os.path.join(_cache_dir(cache, a), "index.json")
    with open(index_path) as handle:
        index = json.load(handle)
    runs = index["runs"]
    runs["run1"]["state"], runs["run2"]["state"] = (
        runs["run2"]["state"],
        runs["run1"]["state"],
    )
    with open(index_path, "w") as handle:
        json.dump(index, handle)
    client, _ = make_client(a, tbmf_cache_dir=cache)
    assert _values(client, "run1") == {1.0}
    assert _values(client, "run2") == {10.0}
