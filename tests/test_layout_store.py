"""Tests for tb_multiframework.settings.layouts: persistence, atomicity, locking.

Layout directory used by most tests::

    tmp_path/
      store/
        layouts.json        the file under test
        layouts.json.lock   flock target, created by the first change
"""

from __future__ import annotations

import glob
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tb_multiframework.settings import layouts as S
from tb_multiframework.settings.layouts import LayoutStore

_REPO = Path(__file__).resolve().parents[1]


def _layout(name: str, tag: str = "loss") -> dict[str, Any]:
    return {
        "name": name,
        "categories": [
            {
                "title": "Losses",
                "charts": [{"title": tag, "kind": "multiline", "tags": [tag]}],
            }
        ],
    }


def _big_layout(name: str, seed: int) -> dict[str, Any]:
    """A layout of about 200 KB as saved (within the 256 KiB cap)."""
    title = f"{seed:06d}" + "t" * 190
    chart = {"title": title, "kind": "multiline", "tags": ["a"]}
    return {
        "name": name,
        "categories": [
            {"title": str(i), "charts": [chart] * 12} for i in range(50)
        ],
    }


def _store(tmp_path: Path) -> LayoutStore:
    return LayoutStore(str(tmp_path / "store" / "layouts.json"))


def _temp_files(store: LayoutStore) -> list[str]:
    directory = os.path.dirname(store.path)
    return glob.glob(os.path.join(directory, ".layouts.json.*.tmp"))


def _names(store: LayoutStore) -> list[str]:
    return [layout["name"] for layout in store.list()]


def _run_python(code: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(_REPO))
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    """Waits until the child creates path (or fails)."""
    deadline = time.monotonic() + 60
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(process.stderr.read().decode())  # type: ignore[union-attr]
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"child never created {path}")
        time.sleep(0.01)


# ---------------------------------------------------------------------------
# Round trips


def test_save_get_list_delete_round_trip(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.list() == [] and store.get("a") is None
    saved = store.save(_layout("a"))
    assert saved["name"] == "a"
    assert saved["categories"][0]["charts"][0]["tags"] == ["loss"]
    assert saved["categories"][0]["charts"][0]["smoothing"] == 0.6
    store.save(_layout("b", "acc"))

    reopened = LayoutStore(store.path)
    assert _names(reopened) == ["a", "b"]
    assert reopened.get("a") == saved
    assert reopened.get("b")["categories"][0]["charts"][0]["tags"] == ["acc"]  # type: ignore[index]

    assert reopened.delete("a") is True
    assert reopened.delete("a") is False
    assert _names(store) == ["b"]
    assert store.warnings() == []


def test_file_format(tmp_path: Path) -> None:
    store = _store(tmp_path)
    saved = store.save(_layout("a"))
    content = json.loads(Path(store.path).read_text(encoding="utf-8"))
    assert content == {"version": 1, "layouts": {"a": saved}}


def test_list_is_sorted_by_name_ignoring_case(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for name in ["b", "a", "C", "A"]:
        store.save(_layout(name))
    assert _names(store) == ["A", "a", "b", "C"]


def test_last_writer_wins_per_layout(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_layout("a", "first"))
    store.save(_layout("other"))
    LayoutStore(store.path).save(_layout("a", "second"))
    assert store.get("a")["categories"][0]["charts"][0]["tags"] == ["second"]  # type: ignore[index]
    assert _names(store) == ["a", "other"]


def test_overwrite_false_refuses_an_existing_name(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_layout("a"))
    before = Path(store.path).read_bytes()
    with pytest.raises(S.LayoutExistsError, match="'a' already exists"):
        store.save(_layout("a", "new"), overwrite=False)
    assert Path(store.path).read_bytes() == before


def test_delete_of_missing_layout_creates_no_file(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.delete("nothing") is False
    assert not os.path.exists(store.path)


# ---------------------------------------------------------------------------
# Rename


def test_rename_is_one_atomic_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path)
    store.save(_layout("old"))
    store.save(_layout("keep"))
    replaced = []
    real_replace = os.replace

    def counting_replace(src: Any, dst: Any) -> None:
        replaced.append(dst)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", counting_replace)
    store.save(_layout("new", "renamed"), previous_name="old")
    assert replaced == [store.path]
    assert _names(store) == ["keep", "new"]


def test_rename_onto_another_layout_is_refused(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_layout("a"))
    store.save(_layout("b"))
    before = Path(store.path).read_bytes()
    with pytest.raises(S.LayoutExistsError, match="'b' already exists"):
        store.save(_layout("b"), previous_name="a")
    assert Path(store.path).read_bytes() == before


def test_saving_under_the_same_previous_name_is_an_edit(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_layout("a"))
    store.save(_layout("a", "edited"), previous_name="a", overwrite=False)
    assert store.get("a")["categories"][0]["charts"][0]["tags"] == ["edited"]  # type: ignore[index]


# ---------------------------------------------------------------------------
# Validation before anything is touched


def test_invalid_layout_leaves_the_file_unchanged(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_layout("a"))
    path = Path(store.path)
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    bad = _layout("b")
    bad["categories"][0]["charts"][0]["tags"] = ["loss/[x"]
    with pytest.raises(ValueError, match="position 5"):
        store.save(bad)
    with pytest.raises(ValueError, match="must not be empty"):
        store.save(_layout(""))
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == mtime
    assert _temp_files(store) == []


def test_layout_count_cap(tmp_path: Path) -> None:
    store = _store(tmp_path)
    os.makedirs(os.path.dirname(store.path))
    layouts = {f"l{i:03d}": _layout(f"l{i:03d}") for i in range(200)}
    Path(store.path).write_text(
        json.dumps({"version": 1, "layouts": layouts}), encoding="utf-8"
    )
    before = Path(store.path).read_bytes()
    with pytest.raises(ValueError, match="200 layouts are saved"):
        store.save(_layout("one more"))
    assert Path(store.path).read_bytes() == before
    # Replacing one of the 200 is still allowed.
    store.save(_layout("l000", "changed"))
    assert len(store.list()) == 200


# ---------------------------------------------------------------------------
# Atomicity


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_failed_write_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    store = _store(tmp_path)
    store.save(_layout("a"))
    before = Path(store.path).read_bytes()

    def boom(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(S.LayoutStoreError, match="No space left on device"):
        store.save(_big_layout("b", 1))
    monkeypatch.undo()
    assert Path(store.path).read_bytes() == before
    assert _temp_files(store) == []
    assert _names(store) == ["a"]


def test_writer_killed_before_rename_leaves_old_file(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_layout("a"))
    before = Path(store.path).read_bytes()
    ready = tmp_path / "ready"
    child = _run_python(f"""
        import os, time
        from tb_multiframework.settings.layouts import LayoutStore

        def stall(fd):
            # The big temp file is written but not yet renamed.
            open({str(ready)!r}, "w").close()
            time.sleep(600)

        os.fsync = stall
        title = "t" * 200
        chart = {{"title": title, "kind": "multiline", "tags": ["a"]}}
        big = {{"name": "big", "categories": [
            {{"title": str(i), "charts": [chart] * 12}} for i in range(50)]}}
        LayoutStore({store.path!r}).save(big)
        """)
    try:
        _wait_for(ready, child)
        (temp,) = _temp_files(store)
        assert os.path.getsize(temp) > 100_000
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert Path(store.path).read_bytes() == before
    # The lock died with the writer; the next save cleans up its temp file.
    store.save(_layout("c"))
    assert _names(store) == ["a", "c"]
    assert _temp_files(store) == []


def test_writer_killed_at_random_moments(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_layout("keep"))
    rng = random.Random(20240601)
    for round_ in range(3):
        started = tmp_path / f"started-{round_}"
        child = _run_python(f"""
            from tb_multiframework.settings.layouts import LayoutStore

            store = LayoutStore({store.path!r})
            title = "t" * 190
            for i in range(10_000):
                chart = {{"title": f"{{i:06d}}" + title, "kind": "multiline",
                          "tags": ["a"]}}
                store.save({{"name": "big", "categories": [
                    {{"title": str(k), "charts": [chart] * 12}}
                    for k in range(50)]}})
                if i == 0:
                    open({str(started)!r}, "w").close()
            """)
        try:
            _wait_for(started, child)
            time.sleep(rng.uniform(0.0, 0.2))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
        content = json.loads(Path(store.path).read_bytes())
        assert content["version"] == 1
        assert set(content["layouts"]) == {"keep", "big"}
        assert _names(store) == ["big", "keep"]
        assert store.warnings() == []
    store.save(_layout("after"))
    assert _temp_files(store) == []


# ---------------------------------------------------------------------------
# Concurrency


def test_concurrent_saves_from_threads(tmp_path: Path) -> None:
    path = str(tmp_path / "store" / "layouts.json")
    LayoutStore(path).save(_layout("existing"))
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def work(worker: int) -> None:
        store = LayoutStore(path)  # one store per tab
        barrier.wait()
        try:
            for i in range(3):
                store.save(_layout(f"t{worker}-{i}", f"tag{worker}"))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    expected = {"existing"} | {f"t{w}-{i}" for w in range(8) for i in range(3)}
    content = json.loads(Path(path).read_text(encoding="utf-8"))
    assert set(content["layouts"]) == expected
    assert set(_names(LayoutStore(path))) == expected


def test_concurrent_saves_from_processes(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_layout("existing"))
    go = tmp_path / "go"
    children = [_run_python(f"""
            import os, time
            from tb_multiframework.settings.layouts import LayoutStore

            while not os.path.exists({str(go)!r}):
                time.sleep(0.005)
            store = LayoutStore({store.path!r})
            for i in range(20):
                store.save({{"name": f"p{worker}-{{i}}", "categories": [
                    {{"title": "c", "charts": [{{"title": "t",
                      "kind": "multiline", "tags": ["x{worker}"]}}]}}]}})
            """) for worker in range(3)]
    go.touch()
    for child in children:
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err.decode()
    expected = {"existing"} | {f"p{w}-{i}" for w in range(3) for i in range(20)}
    content = json.loads(Path(store.path).read_text(encoding="utf-8"))
    assert set(content["layouts"]) == expected
    assert store.get("p2-19")["categories"][0]["charts"][0]["tags"] == ["x2"]  # type: ignore[index]


# ---------------------------------------------------------------------------
# Damaged files


def test_corrupt_file_is_preserved_not_silently_replaced(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    os.makedirs(os.path.dirname(store.path))
    garbage = b'{"version": 1, "layouts": {"a": '  # a torn write by hand
    Path(store.path).write_bytes(garbage)

    assert store.list() == []
    (warning,) = store.warnings()
    assert "is damaged (not JSON" in warning
    assert Path(store.path).read_bytes() == garbage  # reading changes nothing
    assert store.delete("a") is False
    assert Path(store.path).read_bytes() == garbage

    store.save(_layout("fresh"))
    (copy,) = glob.glob(store.path + ".corrupt-*")
    assert Path(copy).read_bytes() == garbage
    assert _names(store) == ["fresh"]
    (warning,) = store.warnings()
    assert warning.startswith(f"a damaged layouts file was kept as {copy}")


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe not utf-8",
        b"[1, 2]",
        b'{"layouts": {}}',
        b'{"version": true, "layouts": {}}',
        b'{"version": 1, "layouts": []}',
    ],
)
def test_other_damage_is_preserved_too(tmp_path: Path, content: bytes) -> None:
    store = _store(tmp_path)
    os.makedirs(os.path.dirname(store.path))
    Path(store.path).write_bytes(content)
    assert "is damaged" in store.warnings()[0]
    store.save(_layout("fresh"))
    (copy,) = glob.glob(store.path + ".corrupt-*")
    assert Path(copy).read_bytes() == content


def test_invalid_entries_are_hidden_but_kept(tmp_path: Path) -> None:
    store = _store(tmp_path)
    os.makedirs(os.path.dirname(store.path))
    bad_entry = {"name": "bad", "categories": "oops"}
    Path(store.path).write_text(
        json.dumps(
            {
                "version": 1,
                "layouts": {
                    "good": _layout("good"),
                    "bad": bad_entry,
                    "mislabelled": _layout("other name"),
                },
            }
        ),
        encoding="utf-8",
    )
    assert _names(store) == ["good"]
    warnings = store.warnings()
    assert len(warnings) == 2
    assert (
        "'bad' is not valid and is hidden: categories: expected an array"
        in (warnings[0])
    )
    assert "'mislabelled' is hidden: it is named 'other name'" in warnings[1]
    store.save(_layout("new"))
    content = json.loads(Path(store.path).read_text(encoding="utf-8"))
    assert content["layouts"]["bad"] == bad_entry
    assert set(content["layouts"]) == {"good", "bad", "mislabelled", "new"}


def test_newer_format_is_never_overwritten(tmp_path: Path) -> None:
    store = _store(tmp_path)
    os.makedirs(os.path.dirname(store.path))
    newer = b'{"version": 2, "layouts": {"a": {"whatever": 1}}}'
    Path(store.path).write_bytes(newer)
    assert "format version 2" in store.warnings()[0]
    with pytest.raises(S.LayoutStoreError, match="format version 2"):
        store.save(_layout("b"))
    with pytest.raises(S.LayoutStoreError):
        store.delete("a")
    assert Path(store.path).read_bytes() == newer
    assert glob.glob(store.path + ".corrupt-*") == []


def test_unreadable_file_is_reported_and_not_overwritten(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    os.makedirs(store.path)  # a directory where the file should be
    assert "cannot read the layouts file" in store.warnings()[0]
    assert store.list() == []
    with pytest.raises(S.LayoutStoreError, match="cannot read"):
        store.save(_layout("a"))
    assert os.path.isdir(store.path)


# ---------------------------------------------------------------------------
# Where the file lives


def test_flag_dir_wins(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    logdir.mkdir()
    path, reason = S.resolve_layouts_path(
        str(logdir), flag_dir=str(tmp_path / "mine")
    )
    assert path == str(tmp_path / "mine" / "layouts.json")
    assert "flag" in reason
    assert not (logdir / ".tb_multiframework").exists()


def test_local_writable_logdir(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    logdir.mkdir()
    path, reason = S.resolve_layouts_path(str(logdir) + "/", flag_dir=None)
    assert path == str(logdir / ".tb_multiframework" / "layouts.json")
    assert (logdir / ".tb_multiframework").is_dir()
    assert "inside the logdir" in reason
    assert os.listdir(logdir / ".tb_multiframework") == []  # probe removed


@pytest.mark.parametrize(
    ("logdir", "stem"),
    [
        ("gs://bucket/exp/run_1/", "run_1"),
        ("s3://b/my logs", "my_logs"),
    ],
)
def test_remote_logdir_uses_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, logdir: str, stem: str
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    path, reason = S.resolve_layouts_path(logdir, flag_dir=None)
    folder = tmp_path / "cfg" / "tb_multiframework" / "layouts"
    assert os.path.dirname(path) == str(folder)
    name = os.path.basename(path)
    assert name.startswith(stem + "-") and name.endswith(".json")
    assert len(name) == len(stem) + 1 + 12 + len(".json")
    assert "not local" in reason


def test_missing_logdir_uses_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path, reason = S.resolve_layouts_path(
        str(tmp_path / "nope" / "logs"), flag_dir=None
    )
    folder = tmp_path / "home" / ".config" / "tb_multiframework" / "layouts"
    assert os.path.dirname(path) == str(folder)
    assert os.path.basename(path).startswith("logs-")
    assert "is not a directory" in reason
    assert not (tmp_path / "nope").exists()


def test_unwritable_logdir_uses_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests run as root, for whom chmod does not deny writes: fail the
    # probe file instead.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    logdir = tmp_path / "logs"
    logdir.mkdir()

    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    path, reason = S.resolve_layouts_path(str(logdir), flag_dir=None)
    assert path.startswith(str(tmp_path / "cfg"))
    assert "Permission denied" in reason
    assert not (logdir / ".tb_multiframework").exists()


def test_different_logdirs_get_different_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    first, _ = S.resolve_layouts_path("gs://a/logs", flag_dir=None)
    second, _ = S.resolve_layouts_path("gs://b/logs", flag_dir=None)
    again, _ = S.resolve_layouts_path("gs://a/logs", flag_dir=None)
    assert first != second and first == again


def test_store_creates_config_dir_on_first_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    path, _ = S.resolve_layouts_path("gs://a/logs", flag_dir=None)
    store = LayoutStore(path)
    assert store.list() == []
    store.save(_layout("a"))
    assert _names(LayoutStore(path)) == ["a"]
