// Keyboard access shared by every view (WCAG 2.1.1 and 2.4.1): skip links
// at the top of the tab, and segmented controls (x axis, modes) that Tab
// enters once, on the chosen item, and the arrow keys move through
// (a roving tabindex, as WAI-ARIA's radio group pattern does).

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Segmented controls: `role=group` boxes of `aria-pressed` buttons. */
const SEGMENTED = ".tbmf-cmp-seg, .tbmf-seg";
const SEGMENT = `:is(${SEGMENTED}) > button`;

/**
 * The skip links, in order, and where each goes in a view: the first
 * element matching its selector (Runs, Compare, Histograms, Layouts).
 */
const SKIP_TARGETS = [
  {
    key: "shell.skip.controls",
    selector:
      ".tbmf-cmp-toolbar, .tbmf-met-toolbar, .tbmf-hist-controls, .tbmf-view > .tbmf-toolbar",
  },
  {
    key: "shell.skip.chart",
    selector:
      ".tbmf-cmp__panel, .tbmf-met-grid, .tbmf-lay-cats, .tbmf-hist-main",
  },
  {
    key: "shell.skip.runs",
    selector: ".tbmf-cmp-runs, .tbmf-table-wrap, .tbmf-hist-pair",
  },
];

/**
 * The skip links' box, visible while one of them has focus. A link whose
 * target the view lacks is hidden (checked as the box takes focus); the
 * first one always shows and falls back to the view itself.
 * @param {HTMLElement} main the element views render into
 * @returns {HTMLElement}
 */
export function skipLinks(main) {
  const find = (/** @type {string} */ selector) =>
    /** @type {HTMLElement | null} */ (main.querySelector(selector));
  const links = SKIP_TARGETS.map(({ key, selector }) =>
    h("button", {
      className: "tbmf-skip__link",
      text: t(key),
      attrs: { type: "button" },
      on: { click: () => focusRegion(find(selector) ?? main) },
    }),
  );
  return h(
    "nav",
    {
      className: "tbmf-skip",
      attrs: { "aria-label": t("shell.skip.nav") },
      on: {
        focusin: (event) => {
          SKIP_TARGETS.forEach(({ selector }, index) => {
            const link = links[index];
            if (index === 0 || link === event.target) return;
            link.hidden = !find(selector);
          });
        },
      },
    },
    links,
  );
}

/**
 * Moves focus to a region so the next Tab lands on its first control.
 * @param {HTMLElement} region
 */
function focusRegion(region) {
  if (!region.hasAttribute("tabindex")) region.tabIndex = -1;
  region.focus({ preventScroll: true });
  region.scrollIntoView({ block: "nearest" });
}

/**
 * Gives every segmented control under `root` a roving tabindex (kept up to
 * date as items are pressed or added) and arrow-key navigation, and
 * scrolls a control focused from the keyboard fully into its scrolling box.
 * @param {HTMLElement} root
 * @returns {() => void} stops
 */
export function installKeyboard(root) {
  root.addEventListener("keydown", onSegmentKey);
  root.addEventListener("focusin", revealFocus);
  const observer = new MutationObserver((records) => {
    /** @type {Set<Element>} */
    const groups = new Set();
    for (const record of records) {
      if (record.type === "attributes") {
        const parent = record.target.parentElement;
        if (parent?.matches(SEGMENTED)) groups.add(parent);
        continue;
      }
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue;
        if (node.matches(SEGMENTED)) groups.add(node);
        else if (node.matches(SEGMENT) && node.parentElement) {
          groups.add(node.parentElement);
        }
        for (const group of node.querySelectorAll(SEGMENTED)) groups.add(group);
      }
    }
    for (const group of groups) syncTabStops(group);
  });
  observer.observe(root, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["aria-pressed", "disabled"],
  });
  for (const group of root.querySelectorAll(SEGMENTED)) syncTabStops(group);
  return () => {
    observer.disconnect();
    root.removeEventListener("keydown", onSegmentKey);
    root.removeEventListener("focusin", revealFocus);
  };
}

/**
 * Chromium leaves a control that is partly inside a scrolling box (a sort
 * button at the table's right edge) where it is; "nearest" brings it and,
 * with the boxes' scroll-padding, its ring in, and moves nothing otherwise.
 * @param {FocusEvent} event
 */
function revealFocus(event) {
  const target = /** @type {HTMLElement} */ (event.target);
  if (!target.matches?.(":focus-visible")) return;
  target.scrollIntoView({ block: "nearest", inline: "nearest" });
}

/**
 * @param {Element} group
 * @returns {HTMLButtonElement[]} its items a user can pick
 */
function segments(group) {
  return /** @type {HTMLButtonElement[]} */ ([
    ...group.querySelectorAll(":scope > button"),
  ]).filter((button) => !button.disabled && !button.hidden);
}

/** @param {Element} group one Tab stop: the pressed item, else the first */
function syncTabStops(group) {
  const items = segments(group);
  const current =
    items.find((b) => b.getAttribute("aria-pressed") === "true") ?? items[0];
  for (const button of group.querySelectorAll(":scope > button")) {
    /** @type {HTMLElement} */ (button).tabIndex = button === current ? 0 : -1;
  }
}

/** @param {KeyboardEvent} event */
function onSegmentKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = /** @type {Element} */ (event.target);
  if (!target.matches?.(SEGMENT) || !target.parentElement) return;
  const items = segments(target.parentElement);
  const at = items.indexOf(/** @type {HTMLButtonElement} */ (target));
  if (at < 0) return;
  const last = items.length - 1;
  /** @type {Record<string, number>} */
  const moves = {
    ArrowLeft: at === 0 ? last : at - 1,
    ArrowUp: at === 0 ? last : at - 1,
    ArrowRight: at === last ? 0 : at + 1,
    ArrowDown: at === last ? 0 : at + 1,
    Home: 0,
    End: last,
  };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const next = items[moves[event.key]];
  next.focus();
  // Choosing follows focus, as in a radio group.
  if (next.getAttribute("aria-pressed") !== "true") next.click();
}
