"""The browser tests of this folder use the e2e suite's fixtures: a real
TensorBoard over a copy of demo_logs/ and headless Chromium."""

from tests.e2e.conftest import (  # noqa: F401 (fixtures, found by name)
    browser,
    e2e_logdir,
    new_page,
    tb_server,
)
