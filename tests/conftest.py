"""Shared fixtures: the plugin over a logdir, behind TensorBoard's WSGI app."""

import argparse
import atexit
import os
import shutil
import tempfile

import pytest
from tensorboard.backend import application
from tensorboard.plugins import base_plugin
from werkzeug import test as werkzeug_test

from tb_multiframework.plugin import MultiframeworkLoader

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The checkout itself, for tests that build the package from it: under
# scripts/test.sh, ROOT is a tree of links to the checkout that leaves the
# package out (so that what runs is the installed wheel); SOURCE follows the
# links back.
SOURCE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# The plugin's persistent cache goes to $XDG_CACHE_HOME: one fresh directory
# per test session (TensorBoard processes the tests start inherit it), never
# the user's own cache.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="tbmf_test_cache_")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)
DEMO_LOGS = os.path.join(ROOT, "demo_logs")


def make_client(logdir, **flag_values):
    """A werkzeug client for TensorBoard serving only this plugin."""
    parser = argparse.ArgumentParser()
    loader = MultiframeworkLoader()
    loader.define_flags(parser)
    flags = parser.parse_args([])
    flags.logdir = logdir
    flags.reload_interval = 0
    flags.reload_task = "blocking"
    for key, value in flag_values.items():
        setattr(flags, key, value)
    context = base_plugin.TBContext(logdir=logdir, flags=flags)
    plugin = loader.load(context)
    app = application.TensorBoardWSGI([plugin])
    return werkzeug_test.Client(app), plugin


@pytest.fixture
def demo_copy(tmp_path):
    """A private copy of demo_logs (saving layouts writes into the logdir)."""
    target = tmp_path / "demo_logs"
    shutil.copytree(DEMO_LOGS, target)
    return str(target)


@pytest.fixture
def demo_client(demo_copy):
    client, _ = make_client(demo_copy)
    return client


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from /usr/bin/chromium through Playwright, for the
    browser tests of tests/e2e and tests/cli. One a process: Playwright's
    sync API runs one instance at a time, and an xdist worker may get a
    file of either after one of the other. Missing Chromium is a failure,
    never a skip. (Imported here, not above: the floors leg runs the ingest
    tests without Playwright.)"""
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests need Debian's Chromium "
            "(apt-get install -y chromium)",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def pytest_configure(config):
    """With TBMF_TEST_WHEEL=1 (scripts/test.sh), the package under test must
    be the installed wheel, not the source tree: anything else stops the run
    before a test."""
    if os.environ.get("TBMF_TEST_WHEEL") != "1":
        return
    import sysconfig

    import tb_multiframework

    installed = os.path.realpath(sysconfig.get_path("purelib"))
    found = os.path.realpath(tb_multiframework.__file__)
    if not found.startswith(installed + os.sep):
        raise pytest.UsageError(
            f"TBMF_TEST_WHEEL=1 but tb_multiframework is {found}, "
            f"not the wheel installed in {installed}"
        )


def pytest_collection_modifyitems(config, items):
    """Every test under tests/e2e is an e2e test (a real TensorBoard and
    Chromium), marked or not: scripts/test.sh runs them one at a time,
    after the other tests."""
    e2e = os.path.join(os.path.dirname(os.path.realpath(__file__)), "e2e")
    for item in items:
        if os.path.realpath(item.path).startswith(e2e + os.sep):
            item.add_marker(pytest.mark.e2e)


def pytest_sessionfinish(session, exitstatus):
    """With TBMF_FORBID_SKIPS=1 (CI), a skipped test fails the run."""
    if os.environ.get("TBMF_FORBID_SKIPS") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if skipped and session.exitstatus == 0:
        reporter.write_line(
            f"{skipped} test(s) skipped; TBMF_FORBID_SKIPS=1 makes that a failure",
            red=True,
        )
        session.exitstatus = 1
