"""Packaging: the frontend ships inside the wheel, so no Node.js is needed."""

import os
import shutil

from setuptools import find_packages, setup
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


def _version():
    scope = {}
    with open(os.path.join(HERE, "tb_multiframework", "__init__.py")) as f:
        exec(f.read(), scope)
    return scope["__version__"]


setup(
    name="tb-multiframework",
    version=_version(),
    description=(
        "TensorBoard tab comparing PyTorch, TensorFlow/Keras and PaddlePaddle "
        "runs: aligned axes, matched metrics, difference curves, layouts and "
        "histogram diffs, with every logged point."
    ),
    long_description=(
        open(os.path.join(HERE, "README.md")).read()
        if os.path.exists(os.path.join(HERE, "README.md"))
        else ""
    ),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=find_packages(
        include=["tb_multiframework", "tb_multiframework.*"]
    ),
    # The message catalogs the server, `tbmf` and the tab read (not Python
    # files, so find_packages alone would leave them out of the wheel;
    # setuptools also puts package_data into the sdist).
    package_data={"tb_multiframework.i18n": ["catalogs/*.json"]},
    install_requires=[
        "tensorboard>=2.12",
        "numpy>=1.22",
        "protobuf>=3.20",
        "werkzeug>=1.0.1",
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
            "tb_multiframework = tb_multiframework.plugin:MultiframeworkLoader",
        ],
        "console_scripts": [
            "tbmf = tb_multiframework.cli.main:entry_point",
        ],
    },
    cmdclass={"build_py": BuildWithFrontend},
    classifiers=[
        "Programming Language :: Python :: 3",
        "License :: OSI Approved :: Apache Software License",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
