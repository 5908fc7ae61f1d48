"""A request is never held up while another builds the runs' context.

Regression (issue 20, "Load"): after every data change the first request
rebuilt the context (run facts, epoch maps, the metric index: all of a
logdir) under the lock that every request takes, so a writer appending
stalled every light request for the build's length (p99 of 4.7-5.2 s).
Here the build is made slow on purpose (3 s); a light request in the
meantime must be answered from the previous context at once.
"""

import threading
import time

import numpy as np

from tb_multiframework.api.service import Api
from tb_multiframework.settings.config import ConfigFile
from tb_multiframework.store.store import RunMeta, Store


def test_light_requests_do_not_wait_for_a_context_build(tmp_path):
    store = Store()
    store.set_meta(RunMeta("run", "run", "pytorch", "", "tfevents"))
    store.append_scalars(
        "run", "loss", np.arange(10), 1e9 + np.arange(10), np.ones(10)
    )
    api = Api(
        store,
        None,
        ConfigFile(str(tmp_path / "absent.json"), optional=True),
        None,
        "none",
    )
    assert api.runs()["runs"][0]["numPoints"] == 10
    real = api._contexts.build
    started = threading.Event()

    def slow_build(config):
        started.set()
        time.sleep(3.0)
        return real(config)

    api._contexts.build = slow_build
    store.append_scalars(
        "run", "loss", np.arange(10, 15), 1e9 + np.arange(10, 15), np.ones(5)
    )
    builder = threading.Thread(target=api.metrics)
    builder.start()
    assert started.wait(10)
    begun = time.monotonic()
    answer = api.runs()  # the previous context: 10 points
    waited = time.monotonic() - begun
    builder.join(30)
    assert waited < 1.0, waited
    assert answer["runs"][0]["numPoints"] == 10
    api._contexts.build = real
    assert api.runs()["runs"][0]["numPoints"] == 15
