"""TensorBoard's header shows the tab's whole name at 1000 and 1440 px
(issue 22: "MULTIFRAMEWORK" was cut to "MULTIFRAMEWOR" next to "INACTIVE").

Once the header's tabs overflow, TensorBoard scrolls the last one (ours)
about 36 px under its INACTIVE menu whatever its length, so the name is
short ("Frameworks") and padded with no-break spaces that take the cut.
Screenshots: tests/e2e/screenshots/tab_name_<width>.png."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

PLUGIN = "tb_multiframework"


@pytest.mark.parametrize("width", [1000, 1440])
def test_tab_name_fits_the_header(
    tb_server, tb_page, save_screenshot, width
) -> None:
    server = tb_server()
    page = tb_page.page
    page.set_viewport_size({"width": width, "height": 700})
    # The tab selected (as a link to it opens): the header scrolls it in.
    page.goto(server.url(f"#{PLUGIN}"))
    label = page.locator(f'.plugin-name[data-plugin-id="{PLUGIN}"]')
    label.wait_for(state="attached")
    page.wait_for_selector(f'iframe[src*="plugin_entry.html?name={PLUGIN}"]')
    page.wait_for_timeout(1000)
    found = label.evaluate(
        """el => {
          // Cut: the name's glyphs reach past an ancestor that clips
          // (the header's scrolled tab list).
          const clips = [];
          let node = el;
          while (node.firstElementChild) node = node.firstElementChild;
          // The name's glyphs (not the no-break spaces padding it).
          const text = [...node.childNodes].find((n) => n.nodeType === 3);
          const range = document.createRange();
          const name = text.data.trim();
          range.setStart(text, text.data.indexOf(name));
          range.setEnd(text, text.data.indexOf(name) + name.length);
          let cut = false;
          const r = range.getBoundingClientRect();
          for (let a = el.parentElement; a; a = a.parentElement) {
            if (getComputedStyle(a).overflowX === 'visible') continue;
            const c = a.getBoundingClientRect();
            if (r.left < c.left - 0.5 || r.right > c.right + 0.5) {
              cut = true;
              clips.push(`${a.tagName}.${a.className} ${c.left}-${c.right}`);
            }
          }
          // Nothing of TensorBoard's drawn over the label's right end.
          const top = document.elementFromPoint(r.right - 2, r.top + r.height / 2);
          return {text: el.textContent.trim(), cut, clips, r: [r.left, r.right],
                  node: node.tagName, top: top && (top.tagName + '.' + top.className),
                  covered: !el.contains(top), right: r.right,
                  view: window.innerWidth};
        }"""
    )
    assert found["text"].upper() == "FRAMEWORKS"
    assert not found["cut"] and not found["covered"], found
    save_screenshot(tb_page, f"tab_name_{width}.png")
