"""The worked notebook (docs/python_api.ipynb) runs, and says what it saved.

It is executed on a real IPython kernel (nbclient), in docs/ as Jupyter
would run it: any error, including the notebook's own `assert`s about the
three frameworks, fails the test. Its saved outputs must be what it
computes now (every table and value; not the warnings' temporary paths or
the images' bytes), so the committed document cannot drift from the code:
`python scripts/execute_notebook.py docs/python_api.ipynb` refreshes them.
"""

from __future__ import annotations

import os
import sys

import nbformat

from tests.conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from execute_notebook import execute  # noqa: E402

NOTEBOOK = os.path.join(ROOT, "docs", "python_api.ipynb")


def _results(notebook) -> list[tuple[int, str, str]]:
    """(cell, mime type, text) of every result a cell displays."""
    found = []
    for i, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", ()):
            data = output.get("data", {})
            for mime in ("text/plain", "text/html"):
                if mime in data and output.output_type == "execute_result":
                    found.append((i, mime, data[mime]))
    return found


def test_notebook_runs_and_its_saved_outputs_are_current():
    saved = nbformat.read(NOTEBOOK, as_version=4)
    fresh = execute(NOTEBOOK)
    errors = [
        o
        for cell in fresh.cells
        for o in cell.get("outputs", ())
        if o.output_type == "error"
    ]
    assert errors == []
    images = sum(
        "image/png" in o.get("data", {})
        for cell in fresh.cells
        for o in cell.get("outputs", ())
    )
    assert images >= 3  # compare, batch losses, groups
    assert _results(fresh) == _results(saved)
    first = next(
        text for _, mime, text in _results(fresh) if mime == "text/html"
    )
    assert "tbmf-b" in first and "27 runs" in first
