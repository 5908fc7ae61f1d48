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


# The focused element's ring: computed outline (or, for a control drawn
# with `outline: none`, the border + box-shadow ring of it or of the box it
# sits in, `:focus-within`), the colour behind it (the ancestors'
# backgrounds composited) and the first ancestor whose overflow clips part
# of it. Offsets are CSS pixels.
_FOCUS_RING_JS = """() => {
  const focused = document.activeElement;
  if (!focused || focused === document.body) return null;
  const parse = c => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  let el = focused;
  let style = getComputedStyle(el);
  let kind = 'outline';
  let width = parseFloat(style.outlineWidth) || 0;
  let offset = parseFloat(style.outlineOffset) || 0;
  let color = style.outlineColor;
  if (style.outlineStyle === 'none') {
    for (const candidate of [focused, focused.parentElement]) {
      const s = getComputedStyle(candidate);
      const shadow = s.boxShadow.match(
        /^(rgba?\\([^)]*\\)) 0px 0px 0px (\\d+(?:\\.\\d+)?)px/);
      if (!shadow) continue;
      el = candidate;
      style = s;
      kind = 'box-shadow';
      color = shadow[1];
      const border = s.borderTopColor === color
        ? parseFloat(s.borderTopWidth) : 0;
      width = parseFloat(shadow[2]) + border;
      offset = -border;
      break;
    }
  }
  const grow = kind === 'outline' && style.outlineStyle === 'none'
    ? 0 : width + offset;
  const r = el.getBoundingClientRect();
  const ring = {left: r.left - grow, top: r.top - grow,
                right: r.right + grow, bottom: r.bottom + grow};
  // An outline outside the box is drawn over the parent's background.
  const layers = [];
  let node = offset >= 0 || kind === 'box-shadow' ? el.parentElement : el;
  for (; node; node = node.parentElement) {
    const c = parse(getComputedStyle(node).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] >= 1) break;
  }
  let back = [255, 255, 255];
  for (const [r0, g0, b0, a] of layers.reverse()) {
    back = [r0 * a + back[0] * (1 - a), g0 * a + back[1] * (1 - a),
            b0 * a + back[2] * (1 - a)];
  }
  let clippedBy = null;
  let clipBox = null;
  for (let a = el.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    const clipsX = s.overflowX !== 'visible';
    const clipsY = s.overflowY !== 'visible';
    if (!clipsX && !clipsY) continue;
    const b = a.getBoundingClientRect();
    const box = {left: b.left + a.clientLeft, top: b.top + a.clientTop,
                 right: b.left + a.clientLeft + a.clientWidth,
                 bottom: b.top + a.clientTop + a.clientHeight};
    const out = (clipsX && (ring.left < box.left - 0.5
                             || ring.right > box.right + 0.5))
             || (clipsY && (ring.top < box.top - 0.5
                             || ring.bottom > box.bottom + 0.5));
    if (out) {
      clippedBy = a.className || a.tagName;
      clipBox = box;
      break;
    }
  }
  return {
    element: focused.className || focused.tagName,
    kind,
    style: kind === 'outline' ? style.outlineStyle : 'solid',
    width,
    offset,
    color: parse(color),
    background: back.map(Math.round),
    clippedBy,
    clipBox,
    ring,
  };
}"""


def focus_ring(frame: Frame) -> dict[str, Any] | None:
    """The ring of the element that has focus in ``frame`` (None: nothing)."""
    return frame.evaluate(_FOCUS_RING_JS)


def contrast(rgb_a: list[float], rgb_b: list[float]) -> float:
    """WCAG 2.1 contrast ratio of two sRGB colours (0..255 channels)."""

    def luminance(rgb: list[float]) -> float:
        def channel(value: float) -> float:
            c = value / 255
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(v) for v in rgb[:3])
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(rgb_a), luminance(rgb_b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
