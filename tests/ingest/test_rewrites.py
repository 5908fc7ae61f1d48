"""Files rewritten in place are never served stale (issue 20, point 8).

Each file here starts with the same first 256 bytes as the one it replaces
(same `file_version` wall time, same first points), so the old first-bytes
check saw no change:

- a same-size rewrite with other values (live, and with the modification
  time put back as it was);
- a longer rewrite, which was read from the old offset on: 1,000 old points
  plus the new file's tail, a mix never on disk;
- the same-size rewrite while TensorBoard is down, the persistent cache
  holding the old values (restart).

Expected values are those written, computed here.
"""

import os

import numpy as np

from tb_multiframework.ingest.loader import Loader
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import Store
from tests import eventfiles
from tests.conftest import make_client

_SAME_HEAD = 20  # leading points shared by old and new file (> 256 bytes)


def _file(n, values):
    """`n` points of `loss`, steps 0..n-1; the first _SAME_HEAD are 0.5."""
    payloads = [eventfiles.file_version_event(wall=7.0)] + [
        eventfiles.scalar_event(
            "loss", i, 1000.0 + i, 0.5 if i < _SAME_HEAD else float(values[i])
        )
        for i in range(n)
    ]
    return eventfiles.record_bytes(payloads)


def _expected(n, values):
    return [
        0.5 if i < _SAME_HEAD else float(np.float32(values[i]))
        for i in range(n)
    ]


OLD = np.arange(2000) * 0.25 + 1.0
NEW = np.arange(2000) * -0.5 - 3.0


def _rewrite_in_place(path, data, *, keep_times=False):
    before = os.stat(path)
    with open(path, "r+b") as handle:  # same inode, as `open(..., "w")`
        handle.truncate(0)
        handle.write(data)
    if keep_times:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _setup(tmp_path):
    path = tmp_path / "run" / eventfiles.TORCH_NAME
    eventfiles.write(str(path), _file(1000, OLD))
    assert _file(1000, OLD)[:256] == _file(1000, NEW)[:256]
    assert len(_file(1000, OLD)) == len(_file(1000, NEW))
    return path


def test_same_size_rewrite_is_read_again_live(tmp_path):
    path = _setup(tmp_path)
    store = Store()
    loader = Loader(str(tmp_path), store, config=Config)
    loader.reload()
    assert store.scalars("run", "loss").values.tolist() == _expected(1000, OLD)
    _rewrite_in_place(path, _file(1000, NEW))
    loader.reload()
    assert store.scalars("run", "loss").values.tolist() == _expected(1000, NEW)
    assert "rewritten in place" in store.meta("run").warnings[0]


def test_same_size_rewrite_with_restored_time_is_read_again(tmp_path):
    path = _setup(tmp_path)
    store = Store()
    loader = Loader(str(tmp_path), store, config=Config)
    loader.reload()
    _rewrite_in_place(path, _file(1000, NEW), keep_times=True)
    loader.reload()
    assert store.scalars("run", "loss").values.tolist() == _expected(1000, NEW)


def test_longer_rewrite_serves_the_new_file_not_a_mix(tmp_path):
    path = _setup(tmp_path)
    store = Store()
    loader = Loader(str(tmp_path), store, config=Config)
    loader.reload()
    _rewrite_in_place(path, _file(1500, NEW))
    loader.reload()
    series = store.scalars("run", "loss")
    assert series.steps.tolist() == list(range(1500))
    assert series.values.tolist() == _expected(1500, NEW)


def test_rewrite_while_down_is_not_served_from_the_cache(tmp_path):
    logdir = tmp_path / "logs"
    path = _setup(logdir)
    cache = str(tmp_path / "cache")
    client, plugin = make_client(str(logdir), tbmf_cache_dir=cache)
    url = "/data/plugin/tb_multiframework/export?run=run&tag=loss&format=json"
    rows = client.get(url).get_json()["rows"]
    assert [r[5] for r in rows] == _expected(1000, OLD)
    _rewrite_in_place(path, _file(1000, NEW), keep_times=True)
    client, plugin = make_client(str(logdir), tbmf_cache_dir=cache)
    runs = client.get("/data/plugin/tb_multiframework/runs").get_json()
    assert runs["source"]["cache"]["restoredRuns"] == 1  # the entry was used
    rows = client.get(url).get_json()["rows"]
    assert [r[5] for r in rows] == _expected(1000, NEW)
