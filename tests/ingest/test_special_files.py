"""Names that are not regular files never stall a reload (issue 20, point 2).

Directory trees used here::

    logdir/
      good/events.out.tfevents.<ts>.host.123.0     (a real run)
      fifo/events.out.tfevents.<ts>.host.123.0     (a FIFO: open() would wait)
      zero/events.out.tfevents.<ts>.host.123.0     (a symlink to /dev/zero)
      mixed/events.out...0 (real), events.out...1 (a FIFO), hparams.yaml (FIFO)
      locked/ (mode 000, with a real run inside)

Each test runs the reload in a thread and fails if it does not end within a
bound (a FIFO blocks for ever, /dev/zero reads for ever): before the fix the
thread never ended.
"""

import os
import subprocess
import sys
import threading

import pytest

from tb_multiframework.ingest.loader import Loader
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import Store
from tests import eventfiles
from tests.conftest import ROOT, make_client

_BOUND_S = 30  # seconds a reload may take here (it takes milliseconds)


def _write_run(directory, name=eventfiles.TORCH_NAME, n=20):
    payloads = [eventfiles.file_version_event()] + [
        eventfiles.scalar_event("loss", i, 100.0 + i, i * 0.25)
        for i in range(n)
    ]
    return eventfiles.write(
        os.path.join(directory, name), eventfiles.record_bytes(payloads)
    )


def _reload_within_bound(loader):
    done = threading.Event()
    failure = []

    def run():
        try:
            loader.reload()
        except Exception as error:  # noqa: BLE001 - reported below
            failure.append(error)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(_BOUND_S), "the reload blocked"
    assert failure == []


def _unblock(path):
    """Lets a reader stuck on a FIFO go (so a failing test leaves no thread)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass


@pytest.fixture
def tricky_logdir(tmp_path):
    _write_run(tmp_path / "good")
    fifo = tmp_path / "fifo" / eventfiles.TORCH_NAME
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    zero = tmp_path / "zero" / eventfiles.TORCH_NAME
    zero.parent.mkdir()
    os.symlink("/dev/zero", zero)
    _write_run(tmp_path / "mixed")
    os.mkfifo(tmp_path / "mixed" / (eventfiles.TORCH_NAME[:-1] + "1"))
    os.mkfifo(tmp_path / "mixed" / "hparams.yaml")
    yield tmp_path
    for path in (fifo, tmp_path / "mixed" / "hparams.yaml"):
        _unblock(path)


def test_fifo_and_device_names_are_skipped_with_a_warning(tricky_logdir):
    store = Store()
    loader = Loader(str(tricky_logdir), store, config=Config)
    _reload_within_bound(loader)
    assert store.runs() == ["good", "mixed"]
    assert store.scalars("good", "loss").steps.tolist() == list(range(20))
    assert store.scalars("mixed", "loss").values.tolist() == [
        i * 0.25 for i in range(20)
    ]
    warnings = "\n".join(store.meta("mixed").warnings)
    assert "not a regular file (a FIFO): not read" in warnings
    assert "hparams.yaml: cannot read: not a regular file (a FIFO)" in warnings
    problems = "\n".join(loader.problems)
    assert "run 'fifo': skipped" in problems and "(a FIFO)" in problems
    assert "run 'zero': skipped" in problems
    assert "(a character device)" in problems
    # Reloads go on (the loader is not stuck) and stay quiet.
    _reload_within_bound(loader)
    assert len(store.scalars("good", "loss")) == 20


def test_the_tab_reports_them_and_keeps_loading(tricky_logdir):
    made = []
    thread = threading.Thread(
        target=lambda: made.append(make_client(str(tricky_logdir))),
        daemon=True,
    )
    thread.start()
    thread.join(_BOUND_S)
    assert made, "building the plugin (its first, blocking reload) hung"
    client, _ = made[0]
    payload = client.get("/data/plugin/tb_multiframework/runs").get_json()
    assert payload["loading"] is False
    assert [r["run"] for r in payload["runs"]] == ["good", "mixed"]
    assert any("run 'fifo'" in e for e in payload["errors"])


def test_tbmf_list_does_not_hang_on_a_fifo(tricky_logdir):
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tb_multiframework.cli.main",
            "list",
            str(tricky_logdir),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert '"good"' in done.stdout and '"mixed"' in done.stdout


def test_a_fifo_replacing_a_file_after_discovery_is_not_opened(tmp_path):
    path = _write_run(tmp_path / "run")
    store = Store()
    loader = Loader(str(tmp_path), store, config=Config)
    loader.reload()
    os.unlink(path)
    os.mkfifo(path)  # same name: the loader's next read must not block
    try:
        _reload_within_bound(loader)
    finally:
        _unblock(path)


_CHILD = """
import sys
from tb_multiframework.ingest.loader import Loader
from tb_multiframework.settings.config import Config
from tb_multiframework.store.store import Store
store = Store()
loader = Loader(sys.argv[1], store, config=Config)
loader.reload()
print(store.runs())
print("\\n".join(loader.problems))
"""


def test_an_unlistable_directory_is_warned(tmp_path):
    _write_run(tmp_path / "open")
    _write_run(tmp_path / "locked" / "inner")
    os.chmod(tmp_path / "locked", 0)
    command = [sys.executable, "-c", _CHILD, str(tmp_path)]
    if os.geteuid() == 0:
        # Root reads any directory: the child drops the two capabilities
        # that let it (CI runs as root), as an ordinary user would lack them.
        drop = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--inh-caps={drop}", f"--bounding-set={drop}"]
        command += [sys.executable, "-c", _CHILD, str(tmp_path)]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            env=dict(os.environ, PYTHONPATH=ROOT),
        )
    finally:
        os.chmod(tmp_path / "locked", 0o755)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "['open']"
    assert any(
        f"cannot list {tmp_path / 'locked'}: Permission denied" in line
        for line in lines[1:]
    ), done.stdout
