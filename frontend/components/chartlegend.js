// The chart's legend: a button per series that hides or shows it (with its
// note, or in a compact scrolling box when there are many).

import { h } from "../dom.js";
import { language, t } from "../i18n.js";
import { MANY_SERIES } from "./chartuplot.js";
import { swatchStyle } from "./charttooltip.js";

/** @typedef {import("./chartuplot.js").SeriesSlot} SeriesSlot */

/**
 * Fills the legend: a button per listed series that hides or shows it.
 * @param {HTMLElement} legend
 * @param {SeriesSlot[]} slots
 * @param {Set<string>} hidden keys of the series the user hid
 * @param {(key: string, event: Event) => void} onToggle
 */
export function renderLegend(legend, slots, hidden, onToggle) {
  const listed = slots.filter((slot) => slot.spec.legend !== false);
  // Many entries: columns in a box of a few lines that scrolls, notes in
  // the entry's tooltip, so the legend never pushes the chart away.
  const compact = listed.length > MANY_SERIES;
  legend.classList.toggle("is-compact", compact);
  legend.replaceChildren(
    ...listed.map((slot) => {
      const off = hidden.has(slot.key);
      return h(
        "button",
        {
          className: `tbmf-chart__legend-item${off ? " is-off" : ""}`,
          title:
            (compact
              ? `${slot.spec.label}${slot.spec.note ? ` (${slot.spec.note})` : ""}\n`
              : "") + (off ? t("chartui.legend.show") : t("chartui.legend.hide")),
          // A toggle button: pressed = drawn (the legend is its group).
          attrs: { type: "button", "aria-pressed": String(!off) },
          dataset: { key: slot.key },
          on: {
            click: (event) => onToggle(slot.key, event),
          },
        },
        h("span", {
          className: "tbmf-chart__swatch",
          style: swatchStyle(slot.color, slot.dash),
        }),
        h("span", {
          className: "tbmf-chart__label",
          text: slot.spec.label,
        }),
        slot.spec.note && !compact
          ? h("span", {
              className: "tbmf-chart__note",
              text: slot.spec.note,
            })
          : null,
      );
    }),
  );
}

/**
 * Everything the legend's entries show, as one string: equal strings,
 * equal entries.
 * @param {SeriesSlot[]} slots
 * @param {Set<string>} hidden
 * @returns {string}
 */
export function legendSignature(slots, hidden) {
  return JSON.stringify([
    language(),
    slots
      .filter((slot) => slot.spec.legend !== false)
      .map((slot) => [
        slot.key,
        slot.spec.label,
        slot.spec.note ?? "",
        slot.color,
        slot.dash ?? null,
        hidden.has(slot.key),
      ]),
  ]);
}

/**
 * Flips one legend entry in place (rebuilding 50 entries for one click
 * costs a layout of all of them).
 * @param {HTMLElement} legend
 * @param {string} key
 * @param {boolean} hidden
 * @returns {boolean} false when the legend has no such entry
 */
export function updateLegendItem(legend, key, hidden) {
  const item = [...legend.children].find(
    (child) => /** @type {HTMLElement} */ (child).dataset.key === key,
  );
  if (!item) return false;
  item.classList.toggle("is-off", hidden);
  item.setAttribute("aria-pressed", String(!hidden));
  const action = hidden ? t("chartui.legend.show") : t("chartui.legend.hide");

  const title = /** @type {HTMLElement} */ (item).title;
  /** @type {HTMLElement} */ (item).title = title.includes("\n")
    ? `${title.slice(0, title.lastIndexOf("\n"))}\n${action}`
    : action;
  return true;
}

/** Series a plot's accessible name lists before "and N more". */
const NAMED_SERIES = 4;

/**
 * Names the plot for keyboard and screen-reader users (it takes focus):
 * what it draws, against what, and its first series.
 * @param {HTMLElement} plot
 * @param {{label?: string, title?: string, xAxisLabel?: string, xLabel?: string}} options
 * @param {SeriesSlot[]} slots
 */
export function labelPlot(plot, options, slots) {
  const listed = slots.filter((slot) => slot.spec.legend !== false);
  const names = listed.slice(0, NAMED_SERIES).map((slot) => slot.spec.label);
  if (listed.length > NAMED_SERIES) {
    names.push(t("a11y.chart.more", { n: listed.length - NAMED_SERIES }));
  }
  const params = {
    what: options.label || options.title || t("a11y.chart.chart"),
    n: listed.length,
    x: options.xAxisLabel || options.xLabel || "x",
    names: names.join(", "),
  };
  plot.setAttribute(
    "aria-label",
    t(names.length ? "a11y.chart.named" : "a11y.chart.plain", params),
  );
}
