"""The shared wiring: the tab under `--logdir_spec` (which `tbmf open`
uses), named as TensorBoard names runs, with the same data as `--logdir`."""

from __future__ import annotations

import os

from tests.cli.conftest import BASE
from tests.conftest import make_client


def _runs(client) -> dict[str, dict]:
    import json

    response = client.get(f"{BASE}/runs")
    assert response.status_code == 200
    return {
        r["run"]: r for r in json.loads(response.get_data(as_text=True))["runs"]
    }


def test_logdir_spec_names_runs_as_tensorboard(
    demo_logdir, demo_routes
) -> None:
    spec = (
        f"torch:{os.path.join(demo_logdir, 'pytorch_sgd')},"
        f"k:{os.path.join(demo_logdir, 'keras_fit')},"
        f"{os.path.join(demo_logdir, 'paddle_vdl')}"
    )
    client, plugin = make_client("", logdir_spec=spec)
    assert plugin.is_active()
    runs = _runs(client)
    # name:path prefixes the run paths under path; a directory holding
    # event files itself is `name`; a bare path names runs from it (".")
    assert sorted(runs) == [".", "k/train", "k/validation", "torch"]
    full = {r["run"]: r for r in demo_routes.get("runs")["runs"]}
    for name, original in [
        ("torch", "pytorch_sgd"),
        ("k/train", "keras_fit/train"),
        ("k/validation", "keras_fit/validation"),
        (".", "paddle_vdl"),
    ]:
        for field in ("framework", "writer", "numPoints", "lastStep"):
            assert runs[name][field] == full[original][field], (name, field)
    # Keras' train/validation still form one group with an epoch axis
    assert runs["k/train"]["group"] == "k"
    assert runs["k/train"]["hasEpochAxis"]


def test_no_logdir_and_no_spec_is_inactive() -> None:
    _, plugin = make_client("")
    assert not plugin.is_active()
