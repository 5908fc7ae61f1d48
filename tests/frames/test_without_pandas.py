"""Without pandas: the plugin works, and the Python API answers with numpy.

A real venv is made for this test (`python -m venv --without-pip`) whose
site-packages holds every package of the test environment except pandas
and tbparse (links, so nothing is downloaded). In it: `import pandas`
fails; TensorBoard's WSGI app with the plugin answers `runs`, `scalars`,
`export` and `histograms`; `tb_multiframework.read` returns numpy `Table`s
holding the same numbers as the DataFrames of this (pandas) environment;
asking for pandas frames raises an ImportError naming the extra.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig

import pytest

import tb_multiframework as tbmf
from tests.conftest import DEMO_LOGS, ROOT

_LEFT_OUT = ("pandas", "tbparse")

_SCRIPT = r"""
import json, sys
try:
    import pandas
    print(json.dumps({"pandas": pandas.__file__}))
    sys.exit(0)
except ImportError:
    pass
from tests.conftest import make_client
logdir = sys.argv[1]
client, _ = make_client(logdir)
base = "/data/plugin/tb_multiframework/"
status = {}
for route in ("runs", "metrics",
              "scalars?run=pytorch_sgd&tag=Loss/train&x=epoch",
              "export?run=pytorch_sgd&tag=Loss/train&format=csv",
              "histograms?run=pytorch_sgd&tag=weights/fc1.weight&x=step"):
    status[route] = client.get(base + route).status_code
import tb_multiframework as tbmf
exp = tbmf.read(logdir)
scalars = exp.scalar_frame(tbmf.FIXED_COLUMNS, runs="pytorch_sgd")
compare = exp.compare("loss/val", x="epoch", baseline="pytorch_sgd")
errors = {}
for name, call in (("frames", lambda: tbmf.read(logdir, frames="pandas")),
                   ("to_pandas", lambda: exp.runs.to_pandas())):
    try:
        call()
    except ImportError as error:
        errors[name] = str(error)
print(json.dumps({
    "status": status,
    "types": sorted({type(f).__name__ for f in (exp.runs, exp.scalars,
        exp.hparams, exp.histograms, compare, exp.anomalies())}),
    "columns": [str(c) for c in scalars.columns],
    "values": {c: scalars[c].tolist() for c in ("run", "tag", "step")},
    "value": scalars["value"].tolist(),
    "wall_time": scalars["wall_time"].tolist(),
    "keras": compare[("value", "keras_fit/validation")].tolist(),
    "html": "tb-multiframework[pandas]" in exp.runs._repr_html_(),
    "errors": errors,
}))
"""


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory):
    """A venv with the test environment's packages but pandas and tbparse."""
    venv = tmp_path_factory.mktemp("nopandas") / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True
    )
    python = venv / "bin" / "python"
    target = subprocess.run(
        [
            str(python),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    source = sysconfig.get_paths()["purelib"]
    for name in os.listdir(source):
        if name.lower().startswith(_LEFT_OUT):
            continue
        link = os.path.join(target, name)
        if not os.path.exists(link):
            os.symlink(os.path.join(source, name), link)
    return str(python)


def test_plugin_and_api_work_without_pandas(bare_python, tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run(
        [bare_python, "-c", _SCRIPT, DEMO_LOGS],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "pandas" not in found, f"pandas importable: {found}"
    assert set(found["status"].values()) == {200}, found["status"]
    assert found["types"] == ["Table"]
    assert found["html"]
    for name in ("frames", "to_pandas"):
        assert (
            "pip install 'tb-multiframework[pandas]'" in found["errors"][name]
        )
    # The same numbers as the DataFrames here, where pandas is installed.
    exp = tbmf.read(DEMO_LOGS)
    frame = exp.scalar_frame(tbmf.FIXED_COLUMNS, runs="pytorch_sgd")
    assert found["columns"] == list(frame.columns)
    for column in ("run", "tag", "step"):
        assert found["values"][column] == frame[column].tolist()
    assert found["value"] == frame.value.tolist()
    assert found["wall_time"] == frame.wall_time.tolist()
    compare = exp.compare("loss/val", x="epoch", baseline="pytorch_sgd")
    assert json.dumps(found["keras"]) == json.dumps(
        compare[("value", "keras_fit/validation")].tolist()
    )
