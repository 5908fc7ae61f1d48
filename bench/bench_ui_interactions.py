"""Compare view interactions at 50 runs: input to redrawn chart, two trees.

Starts one real TensorBoard per contender on the same 50-run sweep logdir
(scripts/make_sweep_logs.py: 50 x 20,000 steps, seeded): this checkout, and
optionally another checkout of the plugin (``--baseline PATH``, e.g. the
main branch before the 50-run work). Each contender's plugin and frontend
come from its own tree (PYTHONPATH). One Chromium drives both tabs,
interleaved (A, B, A, B, ...) so load swings hit both alike, and times
every interaction the same way from outside the app: from the click (in the
page) until the comparison panel is no longer loading, plus one animation
frame (the redrawn chart is on screen). The server's answers are warmed
once first, so the figures are the browser's part plus a cached answer.

Prints medians per interaction and the ratio this tree / baseline, and the
machine's load average (the machine is shared: read ratios, not absolutes).

Users train while they look: ``--load N`` (default 2) runs N CPU-bound
processes (busy loops, not niced) beside the browser for the timed part
only, and stops them after; ``--load 0`` measures a quiet machine.

Besides the toolbar's interactions it times a hover (pointer moved over
the main chart: input to the frame after the tooltip and the bold overlay
are drawn, nothing fetched), a zoom (a drag on the chart) and its reset (a
double-click), and a legend toggle.

Usage:
  python bench/bench_ui_interactions.py [--baseline /work/main]
      [--logdir DIR] [--repeat 5] [--load 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import Iterator

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from playwright.sync_api import Frame, Page, sync_playwright  # noqa: E402

from scripts.make_sweep_logs import write_sweep  # noqa: E402
from tests.e2e.conftest import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    TensorBoardServer,
    start_tensorboard,
)

VIEWPORT = {"width": 1440, "height": 900}
PANEL = ".tbmf-cmp-panel"
MAIN = ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart"

# Clicks the element in the page and resolves with the interaction's time:
# the tab's own measure (`tbmf:<kind>`, frontend/perf.js: input to the
# frame after the redraw) when it has one, else (older trees) from the
# click until the panel is idle plus one animation frame.
_CLICK_AND_WAIT = """async ([sel, value]) => {
  performance.clearMeasures();
  const el = document.querySelector(sel);
  const t0 = performance.now();
  if (value === null) el.click();
  else {
    el.value = value;
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
  }
  const panel = document.querySelector('.tbmf-cmp-panel');
  await new Promise((r) => setTimeout(r, 0));
  while (panel.classList.contains('is-loading')) {
    await new Promise((r) => setTimeout(r, 1));
  }
  await new Promise((r) => requestAnimationFrame(() => r()));
  const idle = performance.now() - t0;
  const measured = () => performance.getEntriesByType('measure')
    .find((m) => m.name.startsWith('tbmf:'));
  for (let waited = 0; !measured() && waited < 500; waited += 5) {
    await new Promise((r) => setTimeout(r, 5));
  }
  return measured() ? measured().duration : idle;
}"""


# Moves the pointer over the main chart to the x of a fraction of its width
# (and the y of the first series there) and resolves with the time from
# the input to the frame after it (the tooltip is synchronous with the
# move; uPlot draws the cursor and the overlay in that frame).
_HOVER = """async ([sel, fraction]) => {
  const u = document.querySelector(sel).tbmfChart.uplot;
  const r = u.over.getBoundingClientRect();
  const x = r.left + r.width * fraction;
  const y = r.top + r.height / 2;
  const t0 = performance.now();
  const init = {bubbles: true, clientX: x, clientY: y, view: window};
  u.over.dispatchEvent(new MouseEvent('mouseenter', init));
  u.over.dispatchEvent(new MouseEvent('mousemove', init));
  await new Promise((r) => requestAnimationFrame(() => r()));
  const ms = performance.now() - t0;
  const tip = document.querySelector(sel + ' .tbmf-chart__tooltip');
  if (!tip || tip.hidden || !tip.textContent) throw new Error('no tooltip');
  return ms;
}"""

# The x positions (in page pixels of the frame) of a data window on the
# main chart, and its vertical middle.
_DRAG_BOX = """([sel, lo, hi]) => {
  const u = document.querySelector(sel).tbmfChart.uplot;
  const r = u.over.getBoundingClientRect();
  const xs = u.data[0];
  const x0 = xs[0] + (xs[xs.length - 1] - xs[0]) * lo;
  const x1 = xs[0] + (xs[xs.length - 1] - xs[0]) * hi;
  return [r.left + u.valToPos(x0, 'x'), r.left + u.valToPos(x1, 'x'),
          r.top + r.height / 2];
}"""

# Resolves with the duration of the tab's zoom measure once it is there.
_ZOOM_MEASURE = """async () => {
  const panel = document.querySelector('.tbmf-cmp-panel');
  for (let waited = 0; waited < 20000; waited += 5) {
    const m = performance.getEntriesByType('measure')
      .find((e) => e.name === 'tbmf:zoom');
    if (m && !panel.classList.contains('is-loading')) return m.duration;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('no tbmf:zoom measure');
}"""


@contextmanager
def _load(n: int) -> Iterator[None]:
    """N busy-loop processes (the CPU-bound work beside the browser)."""
    procs = [
        subprocess.Popen([sys.executable, "-c", "while 1: pass"])
        for _ in range(n)
    ]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


@contextmanager
def _server(tree: str, logdir: str) -> Iterator[TensorBoardServer]:
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = tree
    try:
        server = start_tensorboard(logdir)
    finally:
        if previous is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = previous
    try:
        yield server
    finally:
        server.stop()


def _open(page: Page, server: TensorBoardServer) -> Frame:
    page.goto(
        server.url("#tb_multiframework&tbmf.view=compare&tbmf.cm=loss/train")
    )
    page.locator('.plugin-name[data-plugin-id="tb_multiframework"]').click()
    handle = page.wait_for_selector('iframe[src*="plugin_entry.html"]')
    frame = handle.content_frame() if handle else None
    assert frame is not None
    frame.wait_for_selector(f'{PANEL}[data-state="ready"]', timeout=120_000)
    return frame


def _interactions(first_run: str) -> list[tuple[str, str, str | None]]:
    """(name, selector, value or None for a click), in order; each pair
    leaves the view as it found it. Selectors starting with `hover:` or
    `zoom:` are pointer gestures on the main chart (see `_run`)."""
    run_box = f'.tbmf-cmp-run[data-run="{first_run}"] input'
    return [
        ("log y on", '[data-control="log-y"]', None),
        ("log y off", '[data-control="log-y"]', None),
        ("axis relative", '[data-axis="relative"]', None),
        ("axis step", '[data-axis="step"]', None),
        ("smoothing 0.6", '[data-control="smoothing"]', "0.6"),
        ("smoothing 0", '[data-control="smoothing"]', "0"),
        ("baseline set", '[data-control="baseline"]', first_run),
        ("baseline none", '[data-control="baseline"]', ""),
        ("run off", run_box, None),
        ("run on", run_box, None),
        ("legend off", f"{MAIN} .tbmf-chart__legend-item", None),
        ("legend on", f"{MAIN} .tbmf-chart__legend-item", None),
        ("hover", "hover:", "0.37"),
        ("hover again", "hover:", "0.63"),
        ("zoom", "zoom:", "0.25:0.55"),
        ("zoom reset", "zoom:", None),
    ]


def _run(page: Page, frame: Frame, selector: str, value: str | None) -> float:
    """One interaction; its time in ms (see the module's docstring)."""
    if selector == "hover:":
        return float(frame.evaluate(_HOVER, [MAIN, float(value or 0.5)]))
    if selector == "zoom:":
        frame.evaluate("() => performance.clearMeasures()")
        handle = frame.frame_element()
        box = handle.bounding_box()
        assert box is not None
        dx, dy = box["x"], box["y"]
        if value is None:
            over = frame.locator(f"{MAIN} .u-over")
            over.dblclick()
        else:
            lo, hi = (float(v) for v in value.split(":"))
            x0, x1, y = frame.evaluate(_DRAG_BOX, [MAIN, lo, hi])
            page.mouse.move(dx + x0, dy + y)
            page.mouse.down()
            page.mouse.move(dx + x1, dy + y, steps=4)
            page.mouse.up()
        return float(frame.evaluate(_ZOOM_MEASURE))
    return float(frame.evaluate(_CLICK_AND_WAIT, [selector, value]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", help="another checkout to compare with")
    parser.add_argument("--logdir", help="a sweep logdir (default: generate)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--load",
        type=int,
        default=2,
        help="CPU-bound processes beside the browser while timing "
        "(default 2; 0: none)",
    )
    args = parser.parse_args()
    contenders = [("this tree", REPO)]
    if args.baseline:
        contenders.insert(0, ("baseline", os.path.abspath(args.baseline)))

    with tempfile.TemporaryDirectory() as tmp:
        logdir = args.logdir
        if not logdir:
            logdir = os.path.join(tmp, "sweep")
            began = time.perf_counter()
            truths = write_sweep(logdir)
            print(
                f"sweep: {len(truths)} runs x 20,000 steps written in "
                f"{time.perf_counter() - began:.1f} s"
            )
        first_run = sorted(
            name
            for name in os.listdir(logdir)
            if os.path.isdir(os.path.join(logdir, name))
            and not name.startswith(".")
        )[0]
        with _contenders(contenders, logdir) as servers, sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
            )
            frames = {}
            for name, server in servers.items():
                page = browser.new_context(viewport=VIEWPORT).new_page()
                frames[name] = (page, _open(page, server))
            steps = _interactions(first_run)
            # Warm every server answer once (not timed).
            for name, (page, frame) in frames.items():
                for label, selector, value in steps:
                    if (
                        not selector.endswith(":")
                        and frame.query_selector(selector) is None
                    ):
                        raise SystemExit(f"{name}: no {selector} ({label})")
                    _run(page, frame, selector, value)
            times: dict[str, dict[str, list[float]]] = {
                name: {step[0]: [] for step in steps} for name in frames
            }
            with _load(args.load):
                # Let the load average see the busy processes.
                time.sleep(2 if args.load else 0)
                for _ in range(args.repeat):
                    for label, selector, value in steps:
                        for name, (page, frame) in frames.items():
                            ms = _run(page, frame, selector, value)
                            times[name][label].append(ms)
                loadavg = os.getloadavg()[0]
            browser.close()
    print(f"\nbusy processes beside the browser: {args.load}")
    _report(times, [step[0] for step in steps], loadavg)
    return 0


@contextmanager
def _contenders(
    contenders: list[tuple[str, str]], logdir: str
) -> Iterator[dict[str, TensorBoardServer]]:
    servers: dict[str, TensorBoardServer] = {}
    managers = []
    try:
        for name, tree in contenders:
            manager = _server(tree, logdir)
            servers[name] = manager.__enter__()
            managers.append(manager)
        yield servers
    finally:
        for manager in reversed(managers):
            manager.__exit__(None, None, None)


def _report(
    times: dict[str, dict[str, list[float]]],
    labels: list[str],
    loadavg: float,
) -> None:
    names = list(times)
    print(
        f"load average (1 min, at the end of the timed part): {loadavg:.1f}"
        f" on {os.cpu_count()} CPUs"
    )
    print(
        "ms from input to redrawn chart (50 runs x 20,000 steps), "
        "min / median of the repeats:"
    )
    header = f"{'interaction':16s}" + "".join(f"{n:>18s}" for n in names)
    if len(names) == 2:
        header += f"{'ratio (min)':>13s}{'(median)':>10s}"
    print(header)
    for label in labels:
        cells = [
            (min(times[n][label]), statistics.median(times[n][label]))
            for n in names
        ]
        row = f"{label:16s}" + "".join(
            f"{lo:9.0f} /{mid:7.0f}" for lo, mid in cells
        )
        if len(names) == 2:
            (a_lo, a_mid), (b_lo, b_mid) = cells
            row += f"{b_lo / a_lo:13.2f}{b_mid / a_mid:10.2f}"
        print(row)
    if len(names) == 2:
        sums = [
            (
                sum(min(times[n][label]) for label in labels),
                sum(statistics.median(times[n][label]) for label in labels),
            )
            for n in names
        ]
        (a_lo, a_mid), (b_lo, b_mid) = sums
        print(
            f"{'all (sum)':16s}"
            + "".join(f"{lo:9.0f} /{mid:7.0f}" for lo, mid in sums)
            + f"{b_lo / a_lo:13.2f}{b_mid / a_mid:10.2f}"
        )


if __name__ == "__main__":
    sys.exit(main())
