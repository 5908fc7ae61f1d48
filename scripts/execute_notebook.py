"""Runs a notebook on a real IPython kernel and saves it with its outputs.

    python scripts/execute_notebook.py docs/python_api.ipynb

The notebook runs in its own folder (as Jupyter runs it). The test suite
runs docs/python_api.ipynb the same way (tests/frames/test_notebook.py) and
requires the saved outputs to be what it computes now; after a change to
the demo logs or the API, run this and commit the notebook.
Needs nbclient, nbformat and ipykernel (the `test` extra).
"""

from __future__ import annotations

import argparse
import os

import nbclient
import nbformat

TIMEOUT_S = 300  # per cell


def execute(path: str) -> nbformat.NotebookNode:
    """The notebook at `path`, executed in its folder (raises on an error)."""
    notebook = nbformat.read(path, as_version=4)
    folder = os.path.dirname(os.path.abspath(path))
    client = nbclient.NotebookClient(
        notebook,
        timeout=TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": folder}},
    )
    client.execute()
    return notebook


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    args = parser.parse_args()
    nbformat.write(execute(args.notebook), args.notebook)


if __name__ == "__main__":
    main()
