"""axe-core in the plugin's iframe: the accessibility findings of a page.

axe-core (tests/e2e/vendor/axe-core, MPL-2.0) is injected into the frame with
Playwright's ``add_script_tag``; TensorBoard's Content-Security-Policy
forbids inline scripts, so pages that use it are opened with
``bypass_csp=True`` (``A11Y_CONTEXT``). Only the test pages get it: the
other browser tests keep TensorBoard's policy and fail on its violations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Frame

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
# The context options of a page axe can be injected into.
A11Y_CONTEXT: dict[str, object] = {"bypass_csp": True}
# WCAG 2.0/2.1 A and AA rules (axe's tags), the level the issue asks for.
WCAG_AA_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("critical", "serious")


def axe_violations(
    frame: Frame, *, impacts: tuple[str, ...] = BLOCKING
) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.1 AA violations in ``frame`` of these impacts.

    Returns:
        One dict a rule: ``id``, ``impact``, ``help`` and ``nodes``, each
        node ``{"target": css selector, "summary": axe's failure summary}``.
    """
    if not frame.evaluate("() => typeof window.axe === 'object'"):
        frame.add_script_tag(path=str(AXE_JS))
    results = frame.evaluate(
        """async (tags) => {
          const r = await axe.run(document, {
            runOnly: {type: 'tag', values: tags},
            resultTypes: ['violations'],
          });
          return r.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => ({
              target: n.target.join(' '),
              summary: n.failureSummary || '',
            })),
          }));
        }""",
        WCAG_AA_TAGS,
    )
    return [v for v in results if v["impact"] in impacts]


def describe(violations: list[dict[str, Any]], *, nodes: int = 4) -> str:
    """A readable listing for an assertion message."""
    lines = []
    for v in violations:
        lines.append(
            f"{v['impact']} {v['id']} ({len(v['nodes'])}): {v['help']}"
        )
        for node in v["nodes"][:nodes]:
            summary = " ".join(node["summary"].split())[:220]
            lines.append(f"    {node['target']}: {summary}")
    return "\n".join(lines)


def count_nodes(violations: list[dict[str, Any]]) -> int:
    """Failing elements over every rule."""
    return sum(len(v["nodes"]) for v in violations)
