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
import subprocess
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


def test_reading_shows_a_progress_bar_in_a_kernel_and_on_a_terminal(tmp_path):
    """In Jupyter an HTML bar (one display, updated in place, ending with
    the seconds it took); elsewhere a text bar on stderr when asked for.
    The bar shows after SHOW_AFTER_S; here it is set to 0 so the demo's
    small logdir shows it."""
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "import tb_multiframework as tbmf\n"
                "from tb_multiframework.frames import progress\n"
                "progress.SHOW_AFTER_S = 0.0\n"
                f"exp = tbmf.read({os.path.join(ROOT, 'demo_logs')!r})"
            )
        ],
        metadata={
            "kernelspec": {
                "name": "python3",
                "language": "python",
                "display_name": "Python 3",
            }
        },
    )
    path = tmp_path / "bar.ipynb"
    nbformat.write(notebook, str(path))
    outputs = execute(str(path)).cells[0].outputs
    bars = [o for o in outputs if "text/html" in o.get("data", {})]
    assert len(bars) == 1, outputs
    html = bars[0]["data"]["text/html"]
    assert "<progress" in html and "demo_logs" in html
    assert 'value="100"' in html and " s</div>" in html  # final state
    code = (
        "import tb_multiframework as tbmf\n"
        "from tb_multiframework.frames import progress\n"
        "progress.SHOW_AFTER_S = 0.0\n"
        f"tbmf.read({os.path.join(ROOT, 'demo_logs')!r}, progress_bar=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert (
        "reading" in done.stderr and "MB" in done.stderr and "[" in done.stderr
    )
