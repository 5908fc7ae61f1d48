"""axe-core on every view of the tab, light and dark: no critical or serious
WCAG 2.1 AA finding (issue 22).

Each view is opened on the bundled demo as a user lands on it (Runs with a
run's details open, Compare with the anomaly markers drawn, Metrics with a
card's step table open, Histograms with its pair shown, Layouts on the
logged layout's dashboard) and axe-core
(tests/e2e/vendor/axe-core) checks the plugin's whole iframe, contrast
included. Before the fixes of issue 22 it found (failing elements, light /
dark): Runs 46 / 42, Compare 40 / 30, Histograms 12 / 10, Layouts 75 / 69;
critical: legend buttons with role=listitem + aria-pressed (22 on Compare,
31 on Layouts); serious: text contrast (44 / 40 on Runs), no lang, no title.
"""

from __future__ import annotations

from typing import Callable

import pytest
from playwright.sync_api import Frame

from tests.e2e.a11y import A11Y_CONTEXT, axe_violations, count_nodes, describe

pytestmark = pytest.mark.e2e

_TIMEOUT_MS = 60_000
THEMES = {"light": "", "dark": "?darkMode=true"}


def _idle_panels(frame: Frame) -> None:
    frame.wait_for_function(
        """() => {
          const panels = [...document.querySelectorAll('.tbmf-cmp-panel')];
          return panels.length > 0 && panels.every(p =>
            p.dataset.state !== 'loading' && !p.classList.contains('is-loading'));
        }""",
        timeout=_TIMEOUT_MS,
    )


def _runs(frame: Frame) -> None:
    frame.wait_for_selector("tr.tbmf-run-row", timeout=_TIMEOUT_MS)
    # A run's detail row (inferences, evidence, tags) is part of the view.
    frame.click('tr.tbmf-run-row[data-run="pytorch_sgd"] td[data-col="group"]')
    frame.wait_for_selector(".tbmf-detail-row", timeout=_TIMEOUT_MS)


def _compare(frame: Frame) -> None:
    frame.wait_for_selector(
        '.tbmf-cmp-panel[data-state="ready"]', timeout=_TIMEOUT_MS
    )
    _idle_panels(frame)


def _histograms(frame: Frame) -> None:
    frame.wait_for_function(
        """() => document.querySelector('.tbmf-hist')?.dataset.status
                  === 'ready'""",
        timeout=_TIMEOUT_MS,
    )


def _layouts(frame: Frame) -> None:
    frame.wait_for_selector(
        ".tbmf-lay-chart .tbmf-cmp-panel", timeout=_TIMEOUT_MS
    )
    _idle_panels(frame)


def _metrics(frame: Frame) -> None:
    # The cards in view drawn, and one card's step table open (keyboard).
    frame.wait_for_selector(
        '.tbmf-met-card .tbmf-cmp-panel[data-state="ready"]',
        timeout=_TIMEOUT_MS,
    )
    _idle_panels(frame)
    frame.locator(".tbmf-met-card [role=figure]").first.focus()
    frame.page.keyboard.press("End")
    frame.wait_for_selector(
        '.tbmf-met-table[data-state="ready"]', timeout=_TIMEOUT_MS
    )


VIEWS: dict[str, Callable[[Frame], None]] = {
    "runs": _runs,
    "compare": _compare,
    "metrics": _metrics,
    "histograms": _histograms,
    "layouts": _layouts,
}


def _config_diff(frame: Frame) -> None:
    frame.wait_for_selector(
        ".tbmf-config-diff .tbmf-config-diff__head", timeout=_TIMEOUT_MS
    )


def _editor(frame: Frame) -> None:
    frame.wait_for_selector(".tbmf-lay-editor", timeout=_TIMEOUT_MS)
    frame.wait_for_timeout(600)  # the debounced preview


# More states a user reaches in a click or two: (view, URL state, wait).
STATES: dict[str, tuple[str, str, Callable[[Frame], None]]] = {
    "compare-baseline-groups": (
        "compare",
        "tbmf.cm=loss%2Ftrain%40batch&tbmf.cb=pytorch_sgd&tbmf.cg=framework",
        _compare,
    ),
    "runs-config-diff": (
        "runs",
        "tbmf.rd=1&tbmf.sel=pytorch_sgd,keras_fit%2Ftrain,paddle_vdl",
        _config_diff,
    ),
    "layouts-editor": ("layouts", "tbmf.le=new", _editor),
}


def open_view(new_page, tb_server, open_tab, view: str, theme: str):
    """The view on the demo in that theme, in a page axe can be injected in."""
    page = new_page(**A11Y_CONTEXT)
    frame = open_tab(page, tb_server(), suffix=THEMES[theme])
    assert frame.get_attribute("html", "data-theme") == theme
    if view != "runs":
        frame.click(f'.tbmf-tab[data-view="{view}"]')
    VIEWS[view](frame)
    frame.wait_for_timeout(300)  # fonts, late layout
    return page, frame


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_no_serious_axe_findings(
    new_page, tb_server, open_tab, view: str, theme: str
) -> None:
    _, frame = open_view(new_page, tb_server, open_tab, view, theme)
    violations = axe_violations(frame)
    print(
        f"\naxe {view}/{theme}: {len(violations)} rules, "
        f"{count_nodes(violations)} elements\n{describe(violations)}"
    )
    assert not violations, describe(violations, nodes=12)


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("state", list(STATES))
def test_no_serious_axe_findings_in_more_states(
    new_page, tb_server, open_tab, state: str, theme: str
) -> None:
    view, query, wait = STATES[state]
    page = new_page(**A11Y_CONTEXT)
    frame = open_tab(
        page,
        tb_server(),
        suffix=f"{THEMES[theme]}#tb_multiframework&tbmf.view={view}&{query}",
    )
    assert frame.get_attribute("html", "data-theme") == theme
    wait(frame)
    frame.wait_for_timeout(300)
    violations = axe_violations(frame)
    print(
        f"\naxe {state}/{theme}: {len(violations)} rules, "
        f"{count_nodes(violations)} elements\n{describe(violations, nodes=30)}"
    )
    assert not violations, describe(violations, nodes=12)


def test_compare_names_toggles_and_focusable_charts(
    new_page, tb_server, open_tab
) -> None:
    """The metric expanders have one name each, legend entries are toggle
    buttons (no listitem role), and the charts and anomaly chips take focus
    with a name that says what they show."""
    page = new_page(**A11Y_CONTEXT)
    frame = open_tab(
        page,
        tb_server(),
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.cb=pytorch_sgd"
        "&tbmf.cm=loss%2Ftrain%40batch",
    )
    _compare(frame)
    frame.wait_for_selector(".tbmf-cmp-panel__diff:not([hidden]) .tbmf-chart")

    toggles = frame.eval_on_selector_all(
        ".tbmf-cmp-metric",
        """rows => rows.map(r => [
          r.querySelector('.tbmf-cmp-metric__name').textContent,
          r.querySelector('.tbmf-cmp-metric__toggle').getAttribute('aria-label'),
        ])""",
    )
    assert len(toggles) >= 10, toggles
    names = [label for _, label in toggles]
    assert len(set(names)) == len(names), names
    for metric, label in toggles:
        assert metric in label, (metric, label)

    legend = frame.eval_on_selector_all(
        ".tbmf-chart__legend-item",
        """items => items.map(i => [i.tagName, i.getAttribute('role'),
          i.getAttribute('aria-pressed'),
          i.parentElement.getAttribute('role')])""",
    )
    assert legend, "no legend entries"
    assert {tuple(item) for item in legend} == {
        ("BUTTON", None, "true", "group")
    }
    entry = frame.locator(
        '.tbmf-chart__legend-item:not([data-key*="pytorch_sgd"])'
    ).first
    entry.click()
    assert entry.get_attribute("aria-pressed") == "false"
    # The entry turned off still reads at >= 4.5:1 (it was faded to 1.9:1).
    violations = axe_violations(frame)
    assert not violations, describe(violations, nodes=12)

    title = frame.text_content(".tbmf-cmp-panel__title")
    assert title
    plots = frame.eval_on_selector_all(
        ".tbmf-cmp-panel .tbmf-chart__plot",
        "ps => ps.map(p => [p.tabIndex, p.getAttribute('aria-label')])",
    )
    assert len(plots) == 2, plots  # the metric and the difference chart
    assert all(tab == 0 for tab, _ in plots), plots
    assert plots[0][1].startswith(f"{title}: "), plots
    assert "series against step" in plots[0][1], plots
    assert plots[1][1].startswith("Difference"), plots

    # Keyboard: the main plot takes focus, the next Tab reaches the anomaly
    # chip of the demo's spike (pytorch_sgd Loss/train), which says what it
    # marks and opens its card.
    main_plot = frame.locator(
        ".tbmf-cmp-panel > .tbmf-cmp-panel__chart .tbmf-chart__plot"
    )
    main_plot.focus()
    page.page.keyboard.press("Tab")
    focused = frame.evaluate(
        """() => { const a = document.activeElement;
          return [a.className, a.getAttribute('aria-label') || ''] }"""
    )
    assert focused[0] == "tbmf-anomaly-chip", focused
    assert "pytorch_sgd" in focused[1], focused
    frame.wait_for_selector(".tbmf-anomaly-card:not([hidden])")


def test_histogram_charts_are_focusable_and_named(
    new_page, tb_server, open_tab
) -> None:
    page = new_page(**A11Y_CONTEXT)
    frame = open_tab(
        page, tb_server(), suffix="#tb_multiframework&tbmf.view=histograms"
    )
    _histograms(frame)
    plots = frame.eval_on_selector_all(
        ".tbmf-hist .tbmf-chart__plot, .tbmf-hist canvas.tbmf-ridge__canvas",
        "ps => ps.map(p => [p.tabIndex, p.getAttribute('aria-label') || ''])",
    )
    assert len(plots) >= 2, plots
    for tab, label in plots:
        assert tab == 0 and len(label) > 12, plots
