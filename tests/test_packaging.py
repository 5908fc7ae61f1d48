"""The sdist and wheel: what they carry, their metadata, and serving from them.

Builds the sdist and, from it, the wheel with `python -m build` (the
standard frontend, in an isolated environment with the build-system
requirements of pyproject.toml), checks what each archive holds and the
wheel's metadata, installs the wheel into a fresh virtual environment (which
sees this interpreter's packages for tensorboard and numpy), and checks, from
outside the source tree, that the plugin finds its frontend inside the
installed package and TensorBoard finds the plugin.

The suite may itself run inside a virtualenv: `venv --system-site-packages`
would then see the *base* interpreter's packages, not the ones this
interpreter imports (tensorboard missing). So the helper venv is linked to
the site directories this interpreter actually uses, through a `.pth` file.
"""

import email.parser
import os
import re
import site
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.buildlock import building
from tests.conftest import SOURCE as CHECKOUT

SOURCE = Path(CHECKOUT)
FRONTEND = SOURCE / "frontend"
NAME = "tb_multiframework"


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel built from it, as `python -m build` makes
    them (no --sdist/--wheel: the wheel is built from the unpacked sdist,
    which proves the sdist holds all the build needs)."""
    out = tmp_path_factory.mktemp("dist")
    with building(str(SOURCE)):
        subprocess.run(
            [sys.executable, "-m", "build", "-q", "-o", str(out), str(SOURCE)],
            check=True,
            cwd=out,
            env=_without_pythonpath(),
        )
    (sdist,) = out.glob(f"{NAME}-*.tar.gz")
    (wheel,) = out.glob(f"{NAME}-*.whl")
    return sdist, wheel


def _version():
    text = (SOURCE / NAME / "__init__.py").read_text()
    (version,) = re.findall(r'^__version__ = "([^"]+)"$', text, re.M)
    return version


def _shipped_frontend():
    """Every frontend file the wheel must carry as static/<path>: all but
    the Markdown notes (setup.py leaves those out)."""
    return sorted(
        str(p.relative_to(FRONTEND))
        for p in FRONTEND.rglob("*")
        if p.is_file()
        and p.suffix != ".md"
        and "node_modules" not in p.parts
    )


def test_wheel_carries_the_frontend_and_license_and_nothing_else(dist):
    _, wheel = dist
    assert wheel.name == f"{NAME}-{_version()}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    frontend = _shipped_frontend()
    assert "index.js" in frontend and len(frontend) > 50, frontend
    missing = [f for f in frontend if f"{NAME}/static/{f}" not in names]
    assert not missing, missing
    info = f"{NAME}-{_version()}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    # The message catalogs are data, not modules (setup.py package_data).
    for catalog in ("en.json", "zh-CN.json"):
        assert f"{NAME}/i18n/catalogs/{catalog}" in names, catalog
    sources = {
        str(p.relative_to(SOURCE))
        for p in (SOURCE / NAME).rglob("*.py")
        if "static" not in p.relative_to(SOURCE / NAME).parts
    }
    assert sources <= names, sorted(sources - names)
    # Only the package and its metadata: no tests, scripts, demo logs or
    # their generators, benchmarks, caches, notes.
    tops = {n.split("/")[0] for n in names}
    assert tops == {NAME, info}, tops
    unwanted = [
        n
        for n in names
        if "__pycache__" in n
        or n.endswith((".pyc", ".pyo"))
        or (n.startswith(f"{NAME}/static/") and n.endswith(".md"))
        or re.search(r"(^|/)(tests?|scripts|bench|demo_logs|demo)/", n)
        or "/.tb_multiframework" in n
    ]
    assert not unwanted, unwanted
    static = {n for n in names if n.startswith(f"{NAME}/static/")}
    assert len(static) == len(frontend), sorted(static)


def test_wheel_metadata_is_complete(dist):
    _, wheel = dist
    archive = zipfile.ZipFile(wheel)
    info = f"{NAME}-{_version()}.dist-info"
    meta = email.parser.Parser().parsestr(
        archive.read(f"{info}/METADATA").decode()
    )
    assert meta["Name"] == "tb-multiframework"
    assert meta["Version"] == _version()
    assert meta["Requires-Python"] == ">=3.10"
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta["Summary"] and meta["Author"]
    assert meta["Description-Content-Type"] == "text/markdown"
    # The long description is the README, whole.
    assert meta.get_payload().strip() == (
        (SOURCE / "README.md").read_text().strip()
    )
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert set(urls) == {"Homepage", "Issues", "Changelog"}, urls
    classifiers = meta.get_all("Classifier")
    import trove_classifiers

    invalid = [c for c in classifiers if c not in trove_classifiers.classifiers]
    assert not invalid, invalid
    pythons = {
        c.rsplit(" ", 1)[1]
        for c in classifiers
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    assert pythons == {"3.10", "3.11", "3.12", "3.13"}
    requires = meta.get_all("Requires-Dist")
    for dependency in ("tensorboard", "numpy", "protobuf", "werkzeug"):
        assert any(r.startswith(dependency) for r in requires), requires
    text = archive.read(f"{info}/entry_points.txt").decode()
    assert "[tensorboard_plugins]" in text
    assert "tb_multiframework.entry:MultiframeworkLoader" in text
    assert "tbmf = tb_multiframework.cli.main:entry_point" in text
    # The license file is Apache-2.0's full text.
    license_text = archive.read(f"{info}/licenses/LICENSE").decode()
    assert "Apache License" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text


def test_sdist_carries_what_the_wheel_is_built_from(dist):
    sdist, _ = dist
    root = f"{NAME}-{_version()}"
    names = {
        n.split("/", 1)[1]
        for n in tarfile.open(sdist).getnames()
        if "/" in n
    }
    for needed in (
        "setup.py",
        "pyproject.toml",
        "MANIFEST.in",
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
        "PKG-INFO",
        f"{NAME}/__init__.py",
        f"{NAME}/plugin.py",
    ):
        assert needed in names, needed
    missing = [
        f for f in _shipped_frontend() if f"frontend/{f}" not in names
    ]
    assert not missing, missing
    tops = {n.split("/")[0] for n in names}
    assert not tops & {"tests", "scripts", "bench", "demo_logs", "docs"}, tops
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert sdist.name == f"{root}.tar.gz"


def test_version_has_one_source():
    """The version is written once: pyproject reads it from the package."""
    pyproject = (SOURCE / "pyproject.toml").read_text()
    assert 'version = { attr = "tb_multiframework.__version__" }' in pyproject
    assert '"version"' in pyproject.split("dynamic = [", 1)[1].split("]")[0]
    assert "version=" not in (SOURCE / "setup.py").read_text()
    changelog = (SOURCE / "CHANGELOG.md").read_text()
    assert f"## [{_version()}] - " in changelog


def test_wheel_ships_frontend_and_serves_it(tmp_path, dist):
    _, wheel = dist
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
    assert found["eps"] == ["tb_multiframework.entry:MultiframeworkLoader"]
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
