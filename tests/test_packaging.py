"""The wheel ships the frontend and the entry point, and serves from them.

Builds a real wheel (no editable install), installs it into a fresh virtual
environment (with this interpreter's packages for tensorboard and numpy),
and checks, from outside the source tree, that the plugin finds its frontend
inside the installed package and TensorBoard finds the plugin.
"""

import os
import subprocess
import sys
import textwrap
import zipfile

from tests.conftest import ROOT


def test_wheel_ships_frontend_and_serves_it(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps",
         "-q", "-w", str(tmp_path / "dist")],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = (tmp_path / "dist").glob("tb_multiframework-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "tb_multiframework/static/index.js",
        "tb_multiframework/static/app.js",
        "tb_multiframework/static/vendor/uplot/uPlot.esm.js",
        "tb_multiframework/static/vendor/uplot/LICENSE",
        "tb_multiframework/plugin.py",
    ):
        assert needed in names, needed
    entry_points = [n for n in names if n.endswith("entry_points.txt")]
    (entry,) = entry_points
    text = zipfile.ZipFile(wheel).read(entry).decode()
    assert "[tensorboard_plugins]" in text
    assert "tb_multiframework.plugin:MultiframeworkLoader" in text

    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
        check=True,
    )
    python = str(venv / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
    )
    check = textwrap.dedent(
        """
        import importlib.metadata, json, sys
        import tb_multiframework.plugin as plugin
        eps = [e.value for e in importlib.metadata.entry_points(
            group="tensorboard_plugins") if e.name == "tb_multiframework"]
        print(json.dumps({"file": plugin.__file__,
                          "static": plugin.static_dir(), "eps": eps}))
        """
    )
    # Run outside the checkout so the source tree cannot be imported.
    out = subprocess.run(
        [python, "-c", check],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    ).stdout
    import json

    found = json.loads(out)
    site = str(venv)
    assert found["file"].startswith(site), found
    assert found["static"] == os.path.join(
        os.path.dirname(found["file"]), "static"
    )
    assert found["eps"] == ["tb_multiframework.plugin:MultiframeworkLoader"]
