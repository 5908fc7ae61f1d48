"""Packaging: the frontend ships inside the wheel, so no Node.js is needed."""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithFrontend(build_py):
    """Copies frontend/ into the package as tb_multiframework/static/."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "tb_multiframework", "static")
        if os.path.isdir(target):
            shutil.rmtree(target)
        shutil.copytree(
            os.path.join(HERE, "frontend"),
            target,
            ignore=shutil.ignore_patterns("*.md", "node_modules", "test*"),
        )


# Static metadata (name, version from tb_multiframework.__version__,
# description, license, classifiers, URLs) is in pyproject.toml's [project];
# what is here is listed there as `dynamic`.
setup(
    # The message catalogs the server, `tbmf` and the tab read (not Python
    # files, so the packages alone would leave them out of the wheel;
    # setuptools also puts package_data into the sdist).
    package_data={"tb_multiframework.i18n": ["catalogs/*.json"]},
    # The floors are exactly those .ci/floors.txt installs and tests.
    install_requires=[
        "tensorboard>=2.12.0",
        "numpy>=1.22.4",
        "protobuf>=3.20.3",
        "werkzeug>=2.1.2",
        # TensorBoard 2.12-2.15 import six without declaring it (2.16
        # does): with the wheel alone under the floors TensorBoard would
        # not start (.ci/run's floors leg).
        "six",
    ],
    extras_require={
        # Linear-time matching of user regexes (layouts, metric aliases).
        # Optional: its wheels need glibc >= 2.27, macOS >= 13 or Windows,
        # and elsewhere pip would try (and fail) to build it from source.
        # Without it, Python's re runs in a worker with a time budget.
        "re2": ["google-re2>=1.1"],
        "test": [
            "google-re2>=1.1",
            "pytest>=7",
            # scripts/test.sh: the non-browser tests on two workers.
            "pytest-xdist>=3",
            # tests/test_packaging.py builds the sdist and the wheel, and
            # checks the classifiers against the official list.
            "build>=1",
            "trove-classifiers",
            "scipy>=1.9",
            "fsspec",
            "playwright>=1.40",
            "pyyaml>=5.1",
            # A real S3 API for the s3:// logdir test; boto3 is what
            # TensorBoard's S3 filesystem uses.
            "moto[server]>=5",
            "boto3",
            # The Python API (tests/frames): pandas frames, the tbparse
            # differential test, the worked notebook run on a real kernel,
            # compare(...).plot().
            "pandas>=1.5",
            "tbparse>=0.0.9",
            "nbclient>=0.7",
            "nbformat>=5.7",
            "ipykernel>=6",
            "matplotlib>=3.5",
        ],
        # DataFrames from the Python API (`tb_multiframework.read`);
        # without pandas its frames are numpy `Table`s.
        "pandas": ["pandas>=1.5"],
        # Lightning's hparams.yaml and config.yaml beside the logs.
        "yaml": ["pyyaml>=5.1"],
    },
    entry_points={
        "tensorboard_plugins": [
            "tb_multiframework = tb_multiframework.entry:MultiframeworkLoader",
        ],
        "console_scripts": [
            "tbmf = tb_multiframework.cli.main:entry_point",
        ],
    },
    cmdclass={"build_py": BuildWithFrontend},
)
