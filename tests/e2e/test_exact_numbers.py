"""Numbers in the tab are shown exactly (issue 22, "Numbers shown wrong").

- the HF Trainer's seed 20240611 (scripts/demo/common.py SEED) read
  "20,241,000" in the Runs table: integers keep every digit;
- steps 2**53 + 1 and 2**63 - 1 were rounded (JSON.parse and float64
  arrays): the Runs table and the decoded scalars keep every digit;
- "step of best" mixed Keras' epoch index with PyTorch's global step: each
  position now carries its unit.

Real TensorBoard, real Chromium; expected strings are written by hand or
come from the demo ground truth (tests/data/demo_truth/).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests import eventfiles

pytestmark = pytest.mark.e2e

TRUTH = Path(__file__).resolve().parents[1] / "data" / "demo_truth"
HF_SEED = "20,240,611"  # scripts/demo/common.py SEED = 20240611
HUGE = {"two53": 2**53 + 1, "two63": 2**63 - 1}


def _truth(name: str, run_dir: str, tag: str) -> tuple[list[int], list[float]]:
    with open(TRUTH / f"{name}.json") as handle:
        series = json.load(handle)["dirs"][run_dir]["scalars"][tag]
    return series["steps"], series["values"]


def _cell(frame, run: str, col: str) -> str:
    return frame.locator(
        f'tr.tbmf-run-row[data-run="{run}"] td[data-col="{col}"]'
    ).inner_text()


def test_seed_and_best_positions_with_their_units(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    frame = open_tab(tb_page, server)
    frame.wait_for_selector('td[data-col="hp:seed"]')
    assert _cell(frame, "hf_trainer", "hp:seed") == HF_SEED
    # loss/val@epoch is the default metric of the metric columns.
    frame.wait_for_selector('td[data-col="bestStep"]')
    header = frame.inner_text('th[data-col="bestStep"]')
    assert "step of best" not in header
    # Keras: epoch_loss at the 0-based epoch index k, at k + 1 on the axis.
    steps, values = _truth("keras_fit", "keras_fit/validation", "epoch_loss")
    k = steps[int(np.argmin(values))]
    assert _cell(frame, "keras_fit/validation", "bestStep") == f"epoch {k + 1}"
    # PyTorch seeds: Loss/val at each epoch's last 0-based global step s,
    # n batches an epoch: (s + 1) / n on the epoch axis.
    run = "seeds/pytorch_seed0"
    steps, values = _truth("seeds_pytorch", run, "Loss/val")
    batches = len(_truth("seeds_pytorch", run, "Loss/train")[0])
    n = batches // len(steps)
    s = steps[int(np.argmin(values))]
    epoch = (s + 1) / n
    epoch_text = f"{epoch:g}" if epoch == int(epoch) else f"{epoch:.4g}"
    assert _cell(frame, run, "bestStep") == f"step {s} · epoch {epoch_text}"


@pytest.fixture(scope="module")
def huge_logdir(tmp_path_factory) -> Path:
    """Two runs whose last step is beyond 2**53.

    huge/
      two53/events.out.tfevents...   loss at steps 0, 1, 2, 2**53 + 1
      two63/events.out.tfevents...   loss at steps 0, 1, 2, 2**63 - 1
    """
    root = tmp_path_factory.mktemp("huge") / "huge"
    for run, last in HUGE.items():
        events = [eventfiles.file_version_event()] + [
            eventfiles.scalar_event("loss", step, 1e9 + i, 1.0 / (i + 1))
            for i, step in enumerate([0, 1, 2, last])
        ]
        eventfiles.write(
            str(root / run / eventfiles.TORCH_NAME),
            eventfiles.record_bytes(events),
        )
    return root


def test_steps_beyond_two_to_the_53_keep_every_digit(
    tb_server, tb_page, open_tab, huge_logdir
) -> None:
    server = tb_server(logdir=huge_logdir)
    frame = open_tab(tb_page, server)
    frame.wait_for_selector('tr.tbmf-run-row td[data-col="steps"]')
    assert _cell(frame, "two53", "steps") == "0–9,007,199,254,740,993"
    assert _cell(frame, "two63", "steps") == "0–9,223,372,036,854,775,807"
    decoded = frame.evaluate(
        """async () => {
          const {fetchScalars} = await import(
            new URL("static/model.js", document.baseURI));
          const body = await fetchScalars({run: ["two53", "two63"],
                                           tag: "loss"});
          return body.series.map(s => [s.run, [...s.steps].map(String)]);
        }"""
    )
    assert sorted(decoded) == [
        ["two53", ["0", "1", "2", str(HUGE["two53"])]],
        ["two63", ["0", "1", "2", str(HUGE["two63"])]],
    ]


def test_value_formatting_never_changes_a_digit_silently(
    tb_server, tb_page, open_tab
) -> None:
    frame = open_tab(tb_page, tb_server())
    frame.wait_for_selector(".tbmf-app, body")
    found = frame.evaluate(
        """async () => {
          const f = await import(new URL("static/format.js", document.baseURI));
          return [
            f.formatValue(20240611),
            f.formatValue(20240611.5),
            f.formatValue(12345.6),
            f.formatValue(1234.56),
            f.formatValue(0.000012345),
            f.formatValue(-1.5e-6),
            f.formatValue(1e9 + 0.5),
            f.formatValue(9223372036854775807n),
            f.formatInt(2 ** 53 + 2),
            f.formatSteps(0, 9007199254740993n),
            f.formatPosition("epoch", 8),
          ];
        }"""
    )
    assert found == [
        "20,240,611",
        "20.241e6",  # five significant digits, in engineering notation
        "12.346e3",
        "1,234.6",
        "12.345e-6",
        "-1.5000e-6",
        "1.0000e9",
        "9,223,372,036,854,775,807",
        "≈9.007199254740994e15",  # a double beyond 2**53: marked as such
        "0–9,007,199,254,740,993",
        "epoch 8",
    ]


def test_tooltip_header_shows_huge_steps_exactly(
    tb_server, tb_page, open_tab, huge_logdir
) -> None:
    """The chart tooltip's x header at a step beyond 2**53 read
    "≈9.223372036854776e18" though the step travels exactly (i8 steps,
    BigInt): it shows every digit of the step under the cursor."""
    server = tb_server(logdir=huge_logdir)
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.ct=loss"
        "&tbmf.cx=step&tbmf.sel=two63",
    )
    chart = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"
    frame.wait_for_selector('.tbmf-cmp-panel[data-state="ready"]')
    frame.wait_for_function(
        f"""() => {{
          const u = document.querySelector('{chart}')?.tbmfChart?.uplot;
          return u && u.data[0].length === 4;
        }}"""
    )
    # The last point (step 2**63 - 1) at the plot's right edge: hover it
    # with the real mouse (uPlot reads the pointer's position).
    point = frame.evaluate(
        """sel => {
          const u = document.querySelector(sel).tbmfChart.uplot;
          const r = u.over.getBoundingClientRect();
          const x = u.data[0][3];
          return {x: r.left + u.valToPos(x, "x") - 1,
                  y: r.top + r.height / 2};
        }""",
        chart,
    )
    box = tb_page.page.locator("iframe").bounding_box()
    assert box is not None
    mouse = tb_page.page.mouse
    mouse.move(box["x"] + point["x"] - 20, box["y"] + point["y"])
    mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    head = frame.locator(f"{chart} .tbmf-chart__tooltip-head")
    head.wait_for(state="visible")
    assert head.inner_text() == f"step {HUGE['two63']:,}"
    # A step below 2**53 is exact as a double anyway: no marker either.
    first = frame.evaluate(
        """sel => {
          const u = document.querySelector(sel).tbmfChart.uplot;
          const r = u.over.getBoundingClientRect();
          return {x: r.left + u.valToPos(u.data[0][0], "x") + 1,
                  y: r.top + r.height / 2};
        }""",
        chart,
    )
    mouse.move(box["x"] + first["x"], box["y"] + first["y"])
    frame.wait_for_function(
        f"""() => document.querySelector('{chart} .tbmf-chart__tooltip-head')
                   ?.textContent === 'step 0'"""
    )
