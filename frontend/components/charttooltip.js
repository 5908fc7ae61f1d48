// The chart's tooltip: every visible series at the cursor, the one under the
// cursor first and shown large, the others by their distance to the cursor,
// capped at a number of rows (a preference), kept inside the window.
//
// "Under the cursor": among the points of a series within HOVER_PX of the
// cursor on x (its raw line too when smoothed), the one closest to it in
// pixels, with points off the plot (clipped outliers) counted at the edge
// they went past.
// So the spike the user points at leads the list even when 49 other runs
// have a point at that x and the y range leaves the spike out.

import { h, setChildren } from "../dom.js";
import { t } from "../i18n.js";
import { MARKER_TEXT, lowerBound, rowWindow } from "./chartmarks.js";

/** Points this close to the cursor on x (CSS pixels) may be the hovered one. */
export const HOVER_PX = 6;
/** The nearest series is "hovered" (shown large) within this many pixels. */
export const HIGHLIGHT_PX = 28;
/** Gap between cursor and tooltip, and margin to the window's edge, px. */
const GAP_PX = 14;
const EDGE_PX = 4;

/**
 * @typedef {import("./chartmarks.js").Marker} Marker
 *
 * @typedef {Object} TooltipSlot what the tooltip needs of a series
 * @property {string} key
 * @property {string} label
 * @property {string} color
 * @property {readonly number[] | null | undefined} dash
 * @property {number} index its column in uPlot's data
 * @property {Marker[]} markers
 * @property {TooltipSlot | null} linked its raw line (drawn faint), if any
 * @property {((value: number, x: number) => string) | undefined} format
 *
 * @typedef {Object} TooltipInput
 * @property {any} u the uPlot instance
 * @property {TooltipSlot[]} slots visible series listed in the tooltip
 * @property {string} xLabel
 * @property {(x: number) => string} formatX
 * @property {(y: number) => string} formatY
 * @property {number} maxRows rows before "+N more" (Infinity: all)
 * @property {TooltipSort} [sort] row order (default `near`)
 *
 * @typedef {'near' | 'desc' | 'asc' | 'name' | 'drawn'} TooltipSort nearest
 *     to the cursor first, by value (high or low first), by label, or in
 *     the order the series are drawn
 *
 * @typedef {Object} Hovered the series under the cursor
 * @property {TooltipSlot} slot
 * @property {number} row its point's row in uPlot's data
 */

export class ChartTooltip {
  constructor() {
    this.element = h("div", {
      className: "tbmf-chart__tooltip",
      attrs: { role: "tooltip", hidden: true },
    });
  }

  hide() {
    this.element.hidden = true;
  }

  /**
   * Renders the tooltip for the cursor's position and places it.
   * @param {TooltipInput} input
   * @returns {Hovered | null} the series under the cursor, if one is close
   */
  render(input) {
    const { u, slots } = input;
    const idx = u.cursor.idx;
    const cx = u.cursor.left;
    const cy = u.cursor.top;
    if (idx == null || cx == null || cx < 0 || slots.length === 0) {
      this.hide();
      return null;
    }
    const xs = u.data[0];
    const hoveredX = xs[idx];
    const plotHeight = u.bbox.height / devicePixelRatio;
    const near = rowsNear(u, cx);
    const ranked = slots.map((slot) => {
      const found = nearestPoint(u, slot, near, cx, cy, plotHeight);
      const row = u.cursor.idxs?.[slot.index] ?? idx;
      return { slot, near: found, row };
    });
    ranked.sort(
      (a, b) =>
        (a.near?.distance ?? Infinity) - (b.near?.distance ?? Infinity) ||
        (a.slot.label < b.slot.label
          ? -1
          : a.slot.label > b.slot.label
            ? 1
            : 0),
    );
    const first = ranked[0];
    const hovered =
      first.near && first.near.distance <= HIGHLIGHT_PX
        ? { slot: first.slot, row: first.near.row }
        : null;
    sortRows(u, ranked, input.sort);

    const text = (/** @type {TooltipSlot} */ slot, /** @type {number} */ row) =>
      valueText(u, slot, row, input.formatY);
    const rows = [];
    const shown = ranked.slice(0, input.maxRows);
    for (const [i, entry] of shown.entries()) {
      const isHovered = entry === first && hovered !== null;
      // Each row shows the point that ranked it: its nearest to the
      // cursor (a spike reads as the spike, with its own x).
      const row = entry.near?.row ?? entry.row;
      const atX = row == null ? null : xs[row];
      rows.push(
        h(
          "div",
          {
            className: `tbmf-chart__tooltip-row${isHovered ? " is-hovered" : ""}`,
            dataset: { key: entry.slot.key },
          },
          h("span", {
            className: "tbmf-chart__swatch",
            style: swatchStyle(entry.slot.color, entry.slot.dash),
          }),
          h("span", { className: "tbmf-chart__label", text: entry.slot.label }),
          h("span", {
            className: "tbmf-chart__value",
            text: text(entry.slot, row),
          }),
          entry.slot.linked
            ? h("span", {
                className: "tbmf-chart__raw",
                title: t("chartui.tooltip.raw"),
                text: text(entry.slot.linked, row),
              })
            : null,
          atX != null && atX !== hoveredX
            ? h("span", {
                className: "tbmf-chart__at",
                text: `@ ${input.formatX(atX)}`,
              })
            : null,
        ),
      );
    }
    const extra = ranked.length - shown.length;
    setChildren(
      this.element,
      h("div", {
        className: "tbmf-chart__tooltip-head",
        text: `${input.xLabel} ${input.formatX(hoveredX)}`,
      }),
      ...rows,
      extra > 0
        ? h("div", {
            className: "tbmf-chart__more",
            text: t("cmp.selected.more", { n: extra }),
            title: t("chartui.tooltip.more"),

          })
        : null,
    );
    this.element.hidden = false;
    this._place(u);
    return hovered;
  }

  /**
   * Next to the cursor, flipped to its other side and clamped so it stays
   * inside the window (the tooltip is `position: fixed`).
   * @param {any} u
   */
  _place(u) {
    // uPlot's own cached box of the plot (what the cursor position is
    // relative to): reading the element's box here forced a layout of
    // the page after every redraw under the pointer.
    const over = u.rect ?? u.over.getBoundingClientRect();
    placeTooltip(
      this.element,
      over.left + (u.cursor.left ?? 0),
      over.top + (u.cursor.top ?? 0),
    );
  }
}

/**
 * Places a `position: fixed` tooltip (`.tbmf-chart__tooltip`) next to a
 * point given in window coordinates (e.g. `clientX`/`clientY`, or a
 * `getBoundingClientRect()` plus an offset), flipped to the point's other
 * side and clamped so it stays inside the window, however the page is
 * scrolled. Every chart's tooltip uses it.
 * @param {HTMLElement} element shown (its size is read)
 * @param {number} left
 * @param {number} top
 */
export function placeTooltip(element, left, top) {
  const width = element.offsetWidth;
  const height = element.offsetHeight;
  const viewWidth = document.documentElement.clientWidth;
  const viewHeight = document.documentElement.clientHeight;
  let x = left + GAP_PX;
  if (x + width > viewWidth - EDGE_PX) x = left - GAP_PX - width;
  x = clamp(x, EDGE_PX, viewWidth - width - EDGE_PX);
  let y = top + GAP_PX;
  if (y + height > viewHeight - EDGE_PX) y = top - GAP_PX - height;
  y = clamp(y, EDGE_PX, viewHeight - height - EDGE_PX);
  element.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
}

/**
 * @param {number} value
 * @param {number} lo
 * @param {number} hi
 * @returns {number} lo wins when hi < lo (a tooltip taller than the window)
 */
function clamp(value, lo, hi) {
  return Math.max(lo, Math.min(value, hi));
}

/**
 * Rows of uPlot's data within HOVER_PX of the cursor on x.
 * @param {any} u
 * @param {number} cx cursor x, CSS pixels in the plot
 * @returns {[number, number]} first and last row (last < first: none)
 */
function rowsNear(u, cx) {
  const xs = u.data[0];
  const lo = u.posToVal(cx - HOVER_PX, "x");
  const hi = u.posToVal(cx + HOVER_PX, "x");
  return [
    lowerBound(xs, Math.min(lo, hi)),
    lowerBound(xs, Math.max(lo, hi), true) - 1,
  ];
}

/**
 * The point of a series (or its raw line) closest to the cursor in pixels,
 * among the rows near it on x; else its nearest point on x.
 * @param {any} u
 * @param {TooltipSlot} slot
 * @param {[number, number]} window rows near the cursor
 * @param {number} cx cursor x, CSS pixels in the plot
 * @param {number} cy cursor y, CSS pixels in the plot
 * @param {number} plotHeight CSS pixels
 * @returns {{distance: number, row: number} | null}
 */
function nearestPoint(u, slot, [first, last], cx, cy, plotHeight) {
  const columns = [slot.index];
  if (slot.linked) columns.push(slot.linked.index);
  /** @type {{distance: number, row: number} | null} */
  let best = null;
  const consider = (/** @type {number} */ row) => {
    const dx = u.valToPos(u.data[0][row], "x") - cx;
    for (const column of columns) {
      const v = u.data[column][row];
      if (v == null) continue;
      const y = clamp(u.valToPos(v, "y"), 0, plotHeight);
      const distance = Math.hypot(dx, y - cy);
      if (best === null || distance < best.distance) best = { distance, row };
    }
  };
  for (let row = first; row <= last; row++) consider(row);
  if (best === null) {
    const row = u.cursor.idxs?.[slot.index];
    if (row != null) consider(row);
  }
  return best;
}

/**
 * @param {any} u
 * @param {TooltipSlot} slot
 * @param {number | null} row
 * @param {(y: number) => string} formatY
 * @returns {string}
 */
function valueText(u, slot, row, formatY) {
  if (row == null) return "—";
  const value = u.data[slot.index][row];
  if (value != null) {
    return slot.format ? slot.format(value, u.data[0][row]) : formatY(value);
  }
  const marker = slot.markers.find((m) => m.x === u.data[0][row]);
  return marker ? MARKER_TEXT[marker.kind] : "—";
}

/**
 * A legend or tooltip swatch in the series' colour, dashed like its line.
 * @param {string} color
 * @param {readonly number[] | null | undefined} dash
 * @returns {Record<string, string>}
 */
export function swatchStyle(color, dash) {
  /** @type {Record<string, string>} */
  const style = { "--swatch": color };
  if (dash && dash.length >= 2) {
    const on = Math.max(1, Math.min(dash[0], 5));
    const off = Math.max(1, Math.min(dash[1], 3));
    style.background = `repeating-linear-gradient(90deg, ${color} 0 ${on}px, transparent ${on}px ${on + off}px)`;
  }
  return style;
}

/** @typedef {import("./chartuplot.js").SeriesSlot} SeriesSlot */
/** @typedef {import("../vendor/uplot/uPlot.esm.js").default} uPlot */

/**
 * Draws the hovered series bold on the overlay canvas, with a dot at its
 * hovered point (or clears and hides the canvas).
 * @param {uPlot} u
 * @param {HTMLCanvasElement} canvas
 * @param {SeriesSlot | null} slot the hovered series, null when none
 * @param {number} row its hovered row in uPlot's data
 */
export function drawHighlight(u, canvas, slot, row) {
  const ratio = devicePixelRatio;
  const width = Math.round(u.bbox.width);
  const height = Math.round(u.bbox.height);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    canvas.style.width = `${width / ratio}px`;
    canvas.style.height = `${height / ratio}px`;
  }
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.clearRect(0, 0, width, height);
  // Out of the layout tree when unused: nothing to composite.
  canvas.hidden = !slot;
  if (!slot) return;
  const xs = slot.ownX;
  const ys = slot.ownY;
  const { min: xMin, max: xMax } = u.scales.x;
  if (xMin == null || xMax == null) return;
  const [first, last] = rowWindow(xs, xMin, xMax);
  const left = u.bbox.left;
  const top = u.bbox.top;
  ctx.save();
  ctx.strokeStyle = slot.color;
  ctx.lineWidth = 2.5 * ratio;
  ctx.lineJoin = "round";
  if (slot.dash) ctx.setLineDash(slot.dash.map((d) => d * ratio));
  ctx.beginPath();
  let drawing = false;
  const from = Math.max(0, first - 1);
  const to = Math.min(xs.length - 1, last + 1);
  for (let i = from; i <= to; i++) {
    const v = ys[i];
    if (v === null) {
      drawing = false;
      continue;
    }
    const px = u.valToPos(xs[i], "x", true) - left;
    const py = u.valToPos(v, "y", true) - top;
    if (drawing) ctx.lineTo(px, py);
    else ctx.moveTo(px, py);
    drawing = true;
  }
  ctx.stroke();
  const v = u.data[slot.index][row];
  if (v != null) {
    const px = u.valToPos(u.data[0][row], "x", true) - left;
    const py = Math.min(Math.max(u.valToPos(v, "y", true) - top, 0), height);
    ctx.setLineDash([]);
    ctx.fillStyle = slot.color;
    ctx.beginPath();
    ctx.arc(px, py, 4 * ratio, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

/**
 * The tooltip's rows: each visible series listed in the legend, with the
 * visible series linked to it (its raw line) as `linked`.
 * @param {SeriesSlot[]} chartSlots
 * @param {(slot: SeriesSlot) => boolean} isVisible
 * @returns {TooltipSlot[]}
 */
export function tooltipSlots(chartSlots, isVisible) {
  /** @type {Map<string, SeriesSlot>} */
  const linked = new Map();
  for (const slot of chartSlots) {
    if (slot.spec.linkedTo && isVisible(slot)) {
      linked.set(slot.spec.linkedTo, slot);
    }
  }
  const tipSlot = (/** @type {SeriesSlot} */ slot) => ({
    key: slot.key,
    label: slot.spec.label,
    color: slot.color,
    dash: slot.dash,
    index: slot.index,
    markers: slot.markers,
    format: slot.spec.format,
    linked: null,
  });
  const slots = chartSlots
    .filter((slot) => slot.spec.legend !== false && isVisible(slot))
    .map((slot) => {
      const raw = linked.get(slot.key);
      return { ...tipSlot(slot), linked: raw ? tipSlot(raw) : null };
    });
  return slots;
}

/**
 * Puts the tooltip's rows (ranked nearest first) in the chosen order; rows
 * without a finite value go last when sorting by value.
 * @param {any} u
 * @param {{slot: TooltipSlot, near: any, row: number}[]} ranked
 * @param {TooltipSort | undefined} sort
 */
function sortRows(u, ranked, sort) {
  if (!sort || sort === "near") return;
  if (sort === "name") {
    ranked.sort((a, b) => a.slot.label.localeCompare(b.slot.label));
    return;
  }
  if (sort === "drawn") {
    ranked.sort((a, b) => a.slot.index - b.slot.index);
    return;
  }
  const sign = sort === "desc" ? -1 : 1;
  const value = new Map(
    ranked.map((entry) => {
      const row = entry.near?.row ?? entry.row;
      const v = row == null ? null : u.data[entry.slot.index][row];
      return [entry, typeof v === "number" && Number.isFinite(v) ? v : null];
    }),
  );
  ranked.sort((a, b) => {
    const va = value.get(a) ?? null;
    const vb = value.get(b) ?? null;
    if (va === null || vb === null) {
      return Number(va === null) - Number(vb === null);
    }
    return sign * (va - vb);
  });
}
