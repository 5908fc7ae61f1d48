// What the uPlot charts and the ridge canvas share: fonts, the axis look,
// a y axis sized to its labels, and watching size and theme.

import { cssVar } from "../theme.js";

export const AXIS_FONT = '11px Roboto, "Helvetica Neue", Arial, sans-serif';
export const LABEL_FONT =
  '500 11px Roboto, "Helvetica Neue", Arial, sans-serif';

/**
 * The look every axis shares; colours are read from CSS variables at draw
 * time, so a theme switch only needs a redraw.
 * @returns {import("../vendor/uplot/uPlot.js").default.Axis}
 */
export function axisStyle() {
  const gridStroke = () => cssVar("--chart-grid", "rgba(0,0,0,0.08)");
  return {
    stroke: () => cssVar("--chart-axis", "#666"),
    font: AXIS_FONT,
    labelFont: LABEL_FONT,
    grid: { stroke: gridStroke, width: 1 },
    ticks: { stroke: gridStroke, width: 1, size: 4 },
    border: { show: false },
  };
}

/**
 * A y axis just wide enough for its longest tick label (uPlot `size`).
 * @param {any} u the uPlot instance
 * @param {string[]} values
 * @param {number} axisIdx
 * @param {number} cycleNum
 * @returns {number}
 */
export function fitAxisSize(u, values, axisIdx, cycleNum) {
  const axis = u.axes[axisIdx];
  // uPlot calls this repeatedly while axes settle; keep the first answer.
  if (cycleNum > 1) return axis._size;
  let size = (axis.ticks?.size ?? 4) + (axis.gap ?? 5) + 4;
  const longest = (values ?? []).reduce(
    (acc, value) => (String(value).length > acc.length ? String(value) : acc),
    "",
  );
  if (longest) size += axisTextWidth(longest);
  return Math.ceil(size);
}

/** @type {CanvasRenderingContext2D | null} */
let measuring = null;
/** @type {Map<string, number>} */
const textWidths = new Map();

/**
 * The width of a tick label in the axis font, measured once per text on a
 * detached canvas (setting the font on a plot's own canvas made the
 * browser bring the page's styles up to date on every redraw).
 * @param {string} text
 * @returns {number} CSS pixels
 */
function axisTextWidth(text) {
  let width = textWidths.get(text);
  if (width === undefined) {
    measuring ??= document.createElement("canvas").getContext("2d");
    if (!measuring) return 0;
    measuring.font = AXIS_FONT;
    width = measuring.measureText(text).width;
    if (textWidths.size > 2000) textWidths.clear();
    textWidths.set(text, width);
  }
  return width;
}

/**
 * Calls `onResize` when `element` changes size and `onTheme` when the theme
 * flips (axis colours come from CSS variables).
 * @param {Element} element
 * @param {(entries: ResizeObserverEntry[]) => void} onResize
 * @param {() => void} onTheme
 * @returns {() => void} stops watching
 */
export function watchSizeAndTheme(element, onResize, onTheme) {
  const resize = new ResizeObserver(onResize);
  resize.observe(element);
  const theme = new MutationObserver(onTheme);
  theme.observe(document.documentElement, {
    attributes: true,
    attributeFilter: ["data-theme"],
  });
  return () => {
    resize.disconnect();
    theme.disconnect();
  };
}

/**
 * Resizes a uPlot to its container's width (at least 100 px) and `height`.
 * @param {any} u the uPlot instance
 * @param {HTMLElement} container
 * @param {number} height
 */
export function fitWidth(u, container, height) {
  const width = Math.max(container.clientWidth, 100);
  if (width !== u.width || height !== u.height) u.setSize({ width, height });
}
