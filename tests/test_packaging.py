"""The wheel ships the frontend and the entry point, and serves from them.

Builds a real wheel (no editable install), installs it into a fresh virtual
environment (which sees this interpreter's packages for tensorboard and
numpy), and checks, from outside the source tree, that the plugin finds its
frontend inside the installed package and TensorBoard finds the plugin.

The suite may itself run inside a virtualenv: `venv --system-site-packages`
would then see the *base* interpreter's packages, not the ones this
interpreter imports (tensorboard missing). So the helper venv is linked to
the site directories this interpreter actually uses, through a `.pth` file.
"""

import os
import site
import subprocess
import sys
import textwrap
import zipfile

from tests.conftest import ROOT


def test_wheel_ships_frontend_and_serves_it(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            ROOT,
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path / "dist"),
        ],
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
        "tb_multiframework/static/i18n.js",
        "tb_multiframework/i18n/catalogs/en.json",
        "tb_multiframework/i18n/catalogs/zh-CN.json",
    ):
        assert needed in names, needed
    entry_points = [n for n in names if n.endswith("entry_points.txt")]
    (entry,) = entry_points
    text = zipfile.ZipFile(wheel).read(entry).decode()
    assert "[tensorboard_plugins]" in text
    assert "tb_multiframework.plugin:MultiframeworkLoader" in text

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
        env=_without_pythonpath(),
    )
    # Linked after installing: pip would otherwise take the editable install
    # of the checkout it now sees for this very version and skip the wheel.
    link_site_dirs(python)
    check = textwrap.dedent("""
        import importlib.metadata, json, sys
        import tb_multiframework.plugin as plugin
        from tb_multiframework import i18n
        eps = [e.value for e in importlib.metadata.entry_points(
            group="tensorboard_plugins") if e.name == "tb_multiframework"]
        print(json.dumps({"file": plugin.__file__,
                          "static": plugin.static_dir(), "eps": eps,
                          "zh": i18n.t("shell.tab.histograms", lang="zh-CN")}))
        """)
    # Run outside the checkout so the source tree cannot be imported.
    out = subprocess.run(
        [python, "-c", check],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_without_pythonpath(),
    ).stdout
    import json

    found = json.loads(out)
    site = str(venv)
    assert found["file"].startswith(site), found
    assert found["static"] == os.path.join(
        os.path.dirname(found["file"]), "static"
    )
    assert found["eps"] == ["tb_multiframework.plugin:MultiframeworkLoader"]
    # The catalogs are read from the installed package.
    assert found["zh"] == "直方图"


def _without_pythonpath():
    """The environment minus PYTHONPATH: the checkout (and the egg-info a
    wheel build leaves in it) must be invisible to the helper venv's pip and
    Python."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def our_site_dirs():
    """The site directories this interpreter imports packages from.

    In a virtualenv these are the venv's own (and, with
    --system-site-packages, the base interpreter's after them); system-wide
    the interpreter's site-packages and the user site.
    """
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    dirs += [
        p for p in sys.path if p.endswith(("site-packages", "dist-packages"))
    ]
    seen = []
    for path in dirs:
        if os.path.isdir(path) and path not in seen:
            seen.append(path)
    return seen


def link_site_dirs(python):
    """Makes the helper venv see our site directories after its own.

    `site.addsitedir` also runs their `.pth` files (as a system site
    directory would), so packages installed in any way stay importable; the
    venv's own site-packages stays first, so the wheel installed there wins
    over an editable install of the checkout.
    """
    purelib = subprocess.run(
        [
            python,
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    lines = [
        f"import site; site.addsitedir({path!r})" for path in our_site_dirs()
    ]
    with open(
        os.path.join(purelib, "tbmf_test_parent_site.pth"), "w"
    ) as handle:
        handle.write("\n".join(lines) + "\n")


def test_helper_venv_imports_what_this_interpreter_imports(tmp_path):
    """The check that failed inside a virtualenv: tensorboard and numpy."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    link_site_dirs(python)
    import numpy
    import tensorboard

    out = subprocess.run(
        [
            python,
            "-c",
            "import numpy, tensorboard, sys; "
            "print(numpy.__file__); print(tensorboard.__file__); print(sys.prefix)",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_without_pythonpath(),
    ).stdout.split("\n")
    assert out[0] == numpy.__file__
    assert out[1] == tensorboard.__file__
    assert out[2] == str(venv)
