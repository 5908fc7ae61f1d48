// A TensorBoard-style ridge ("offset") chart on a canvas: one run's logged
// histograms over training, each a line offset by its step (or position on
// another axis), newest in front; hovering names a line, a click picks it.
//
//   const ridge = createRidgeChart(container, {
//     color, entries: [{step, x, edges, counts}], offsetLabel: "epoch",
//     highlight: 3, onPick: (entry, index) => ...,
//   });
//   ridge.update({highlight: 4});  ridge.destroy();
//
// The lines are resampled in ridgedata.js. What is drawn is readable from
// the element (`element.ridgeData`) for tests and for anyone scripting the
// page.

import { withAlpha } from "../colors.js";
import { h, setChildren } from "../dom.js";
import { formatValue } from "../format.js";
import { hasMessage, t } from "../i18n.js";
import { cssVar } from "../theme.js";
import { placeTooltip } from "./charttooltip.js";
import { AXIS_FONT, LABEL_FONT, watchSizeAndTheme } from "./plotkit.js";
import {
  MAX_RIDGE_LINES,
  niceTicks,
  prepareRidge,
  RIDGE_BUCKETS,
} from "./ridgedata.js";

/** Least vertical distance between two ridge labels, CSS pixels. */
const LABEL_SPACING_PX = 13;

/**
 * @typedef {import("./ridgedata.js").RidgeEntry} RidgeEntry
 * @typedef {import("./ridgedata.js").RidgeLine} RidgeLine
 *
 * @typedef {Object} RidgeOptions
 * @property {RidgeEntry[]} entries in any order
 * @property {string} color `#rrggbb` of the run
 * @property {string | Node} [title]
 * @property {string} [offsetLabel] what the vertical offset is (`step`,
 *     `epoch`, ...); entries are placed by `x` when every entry has one,
 *     else by step
 * @property {[number, number] | null} [xRange] value range to draw
 *     (default: the entries' own)
 * @property {number | null} [highlight] index into `entries` drawn in front
 * @property {(entry: RidgeEntry, index: number) => void} [onPick] click
 * @property {(x: number) => string} [formatX]
 * @property {number} [height] canvas height in CSS pixels
 * @property {string} [emptyText]
 */

/**
 * @param {HTMLElement} container
 * @param {RidgeOptions} options
 * @returns {RidgeChart}
 */
export function createRidgeChart(container, options) {
  return new RidgeChart(container, options);
}

export class RidgeChart {
  /**
   * @param {HTMLElement} container
   * @param {RidgeOptions} options
   */
  constructor(container, options) {
    /** @type {RidgeOptions} */
    this._options = { ...options };
    this._destroyed = false;
    /** @type {RidgeLine[]} */
    this._lines = [];
    /** @type {[number, number]} */
    this._range = [0, 1];
    /** @type {[number, number]} */
    this._offsetRange = [0, 1];
    /** @type {number | null} */
    this._hoverLine = null;
    /** Plot geometry of the last draw, CSS pixels. */
    this._geom = { left: 0, top: 0, width: 0, height: 0, ridge: 0 };

    this._title = h("div", { className: "tbmf-chart__title" });
    this._header = h("div", { className: "tbmf-chart__header" }, this._title);
    // Focusable and named after its title, so keyboard users reach it.
    this._canvas = h("canvas", {
      className: "tbmf-ridge__canvas",
      attrs: { tabindex: "0", role: "img" },
    });
    this._empty = h("div", { className: "tbmf-chart__empty" });
    this._tooltip = h("div", {
      className: "tbmf-chart__tooltip",
      attrs: { role: "tooltip", hidden: true },
    });
    this._body = h(
      "div",
      { className: "tbmf-chart__body tbmf-ridge__body" },
      this._canvas,
      this._empty,
    );
    this.element = h(
      "div",
      { className: "tbmf-chart tbmf-ridge" },
      this._header,
      this._body,
      this._tooltip,
    );
    /** @type {{lines: number, steps: number[], highlight: number | null}} */
    this.element.ridgeData = { lines: 0, steps: [], highlight: null };
    container.appendChild(this.element);

    this._canvas.addEventListener("mousemove", (event) => this._onMove(event));
    this._canvas.addEventListener("mouseleave", () => this._onLeave());
    this._canvas.addEventListener("click", () => this._onClick());

    /** @type {number | null} */
    this._frame = null;
    this._unwatch = watchSizeAndTheme(
      this._body,
      () => this._schedule(),
      () => this._schedule(),
    );
    this._prepare();
    this._draw();
  }

  /** @param {Partial<RidgeOptions>} options */
  update(options) {
    if (this._destroyed) return;
    const previous = this._options;
    const next = { ...previous, ...options };
    const range = (/** @type {RidgeOptions} */ o) => String(o.xRange ?? "");
    const dataChanged =
      next.entries !== previous.entries ||
      range(next) !== range(previous) ||
      // Thinning keeps the highlighted line: redo it when that moves.
      (next.highlight !== previous.highlight &&
        next.entries.length > MAX_RIDGE_LINES);
    this._options = next;
    if (dataChanged) this._prepare();
    this._draw();
  }

  destroy() {
    if (this._destroyed) return;
    this._destroyed = true;
    this._unwatch();
    if (this._frame !== null) cancelAnimationFrame(this._frame);
    this.element.remove();
  }

  _schedule() {
    if (this._frame !== null || this._destroyed) return;
    this._frame = requestAnimationFrame(() => {
      this._frame = null;
      if (!this._destroyed) this._draw();
    });
  }

  /** Resamples every entry onto one grid over the value range. */
  _prepare() {
    const entries = this._options.entries ?? [];
    const prepared = prepareRidge(
      entries,
      this._options.xRange,
      this._options.highlight,
    );
    this._lines = prepared.lines;
    this._range = prepared.range;
    this._byX = prepared.byX;
    this._offsetRange = prepared.offsetRange;
    this.element.ridgeData = {
      lines: this._lines.length,
      steps: this._lines.map((l) => entries[l.index].step),
      highlight: this._options.highlight ?? null,
    };
  }

  _draw() {
    const options = this._options;
    setChildren(this._title, options.title ?? null);
    this._header.hidden = options.title == null || options.title === "";
    this._canvas.setAttribute(
      "aria-label",
      t("hist.ridge.aria", {
        name: this._title.textContent || t("shell.tab.histograms"),
      }),
    );
    const width = Math.max(this._body.clientWidth, 100);
    const height = options.height ?? 240;
    const ratio = window.devicePixelRatio || 1;
    const canvas = this._canvas;
    if (canvas.width !== Math.round(width * ratio)) {
      canvas.width = Math.round(width * ratio);
    }
    if (canvas.height !== Math.round(height * ratio)) {
      canvas.height = Math.round(height * ratio);
    }
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    const ctx = /** @type {CanvasRenderingContext2D} */ (
      canvas.getContext("2d")
    );
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);

    const lines = this._lines;
    this._empty.hidden = lines.length > 0;
    this._empty.textContent =
      lines.length > 0 ? "" : (options.emptyText ?? t("hist.ridges.none"));
    this.element.ridgeData = {
      ...this.element.ridgeData,
      highlight: options.highlight ?? null,
    };
    if (lines.length === 0) return;

    const formatX = options.formatX ?? formatValue;
    const axisColor = cssVar("--chart-axis", "#666");
    const gridColor = cssVar("--chart-grid", "rgba(0,0,0,0.08)");
    const surface = cssVar("--surface", "#fff");
    const color = options.color;
    ctx.font = AXIS_FONT;
    const offsetTexts = lines.map((l) => this._offsetText(l.offset));
    const labelWidth = Math.max(
      ...offsetTexts.map((t) => ctx.measureText(t).width),
      24,
    );
    const geom = {
      left: 10,
      top: 6,
      width: Math.max(width - 10 - (labelWidth + 14), 40),
      height: Math.max(height - 6 - 26, 40),
      ridge: 0,
    };
    // A ridge rises over the rows behind it, as in TensorBoard's view.
    geom.ridge = Math.min(
      Math.max(geom.height * 0.34, 28),
      lines.length > 1 ? geom.height * 0.6 : geom.height - 4,
    );
    this._geom = geom;
    const [lo, hi] = this._range;
    const xPos = (/** @type {number} */ v) =>
      geom.left + ((v - lo) / (hi - lo)) * geom.width;

    // Value axis: grid lines and labels.
    const ticks = niceTicks(lo, hi, Math.max(2, Math.floor(geom.width / 90)));
    ctx.lineWidth = 1;
    ctx.strokeStyle = gridColor;
    ctx.fillStyle = axisColor;
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (const t of ticks) {
      const x = Math.round(xPos(t)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, geom.top);
      ctx.lineTo(x, geom.top + geom.height + 4);
      ctx.stroke();
      ctx.fillText(formatX(t), x, geom.top + geom.height + 7);
    }

    const baseline = (/** @type {number} */ offset) => this._baseline(offset);
    const step = geom.width / RIDGE_BUCKETS;
    const highlight = options.highlight ?? null;
    const hover = this._hoverLine;
    /** @type {{y: number, text: string, strong: boolean}[]} */
    const labels = [];
    // Oldest first (at the back, top), newest last (in front, bottom).
    /** @type {{path: Path2D, width: number}[]} */
    const front = [];
    // Many lines: thinner, so the shapes stay readable.
    const thinWidth = lines.length > 40 ? 0.8 : 1.1;
    lines.forEach((line, order) => {
      const t = lines.length > 1 ? order / (lines.length - 1) : 1;
      const y0 = baseline(line.offset);
      // Only where the histogram has mass: flat tails over the shared range
      // would stripe the whole chart.
      const first = Math.max(
        line.density.findIndex((v) => v > 0),
        0,
      );
      const lastIndex = line.density.length - 1;
      let end = lastIndex;
      while (end > first && !(line.density[end] > 0)) end--;
      const path = new Path2D();
      path.moveTo(geom.left + first * step, y0);
      for (let k = first; k <= end; k++) {
        const y = y0 - line.density[k] * geom.ridge;
        path.lineTo(geom.left + (k + 0.5) * step, y);
      }
      path.lineTo(geom.left + (end + 1) * step, y0);
      const isHighlight = line.index === highlight;
      const isHover = line.index === hover;
      const closed = new Path2D(path);
      closed.closePath();
      // Occlude the lines behind, then tint.
      ctx.fillStyle = surface;
      ctx.fill(closed);
      ctx.fillStyle = withAlpha(
        color,
        isHighlight ? 0.32 : isHover ? 0.2 : 0.05 + 0.1 * t,
      );
      ctx.fill(closed);
      ctx.strokeStyle = isHighlight || isHover ? color : mix(color, t);
      ctx.lineWidth = isHighlight ? 2.2 : isHover ? 1.8 : thinWidth;
      ctx.stroke(path);
      if (isHighlight || isHover) front.push({ path, width: ctx.lineWidth });
      labels.push({
        y: y0,
        text: offsetTexts[order],
        strong: isHighlight || isHover,
      });
    });

    // The compared (and hovered) line stays visible over newer ones.
    ctx.strokeStyle = color;
    for (const { path, width: lineWidth } of front) {
      ctx.lineWidth = lineWidth;
      ctx.stroke(path);
    }

    // Offset labels on the right: the highlighted ones, the oldest and the
    // newest first, then others wherever they do not overlap those.
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    const labelX = geom.left + geom.width + 8;
    const last = labels.length - 1;
    const order = labels
      .map((label, i) => ({
        label,
        rank: label.strong ? 0 : i === 0 || i === last ? 1 : 2,
      }))
      .sort((a, b) => a.rank - b.rank);
    /** @type {number[]} */
    const taken = [];
    for (const { label } of order) {
      if (taken.some((y) => Math.abs(y - label.y) < LABEL_SPACING_PX)) continue;
      taken.push(label.y);
      ctx.font = label.strong ? LABEL_FONT : AXIS_FONT;
      ctx.fillStyle = label.strong ? cssVar("--text", "#222") : axisColor;
      ctx.fillText(label.text, labelX, label.y);
    }
  }

  /**
   * @param {number} offset
   * @returns {number} y of a line's baseline, CSS pixels
   */
  _baseline(offset) {
    const geom = this._geom;
    const [first, last] = this._offsetRange;
    const span = last - first;
    const frac = span > 0 ? (offset - first) / span : 1;
    return geom.top + geom.ridge + frac * (geom.height - geom.ridge);
  }

  /**
   * @param {number} offset
   * @returns {string}
   */
  _offsetText(offset) {
    const label = this._byX ? (this._options.offsetLabel ?? "x") : "step";
    return `${axisWord(label)} ${formatValue(offset)}`;
  }

  /** @param {MouseEvent} event */
  _onMove(event) {
    const box = this._canvas.getBoundingClientRect();
    const y = event.clientY - box.top;
    const x = event.clientX - box.left;
    // The line whose baseline is nearest below the pointer (a ridge rises
    // above its baseline).
    let best = null;
    let bestDistance = Infinity;
    for (const line of this._lines) {
      const y0 = this._baseline(line.offset);
      const distance = y <= y0 + 4 ? y0 - y : Infinity;
      if (distance >= -4 && distance < bestDistance) {
        bestDistance = distance;
        best = line;
      }
    }
    const index = best?.index ?? null;
    if (index !== this._hoverLine) {
      this._hoverLine = index;
      this._draw();
    }
    this._canvas.style.cursor =
      index !== null && this._options.onPick ? "pointer" : "";
    if (best === null) {
      this._tooltip.hidden = true;
      return;
    }
    const entry = this._options.entries[best.index];
    const rows = [`${axisWord("step")} ${formatValue(entry.step)}`];
    if (this._byX && this._options.offsetLabel !== "step") {
      rows.push(
        `${axisWord(this._options.offsetLabel ?? "x")} ${formatValue(best.offset)}`,
      );
    }
    const total = Array.from(entry.counts, Number).reduce((a, v) => a + v, 0);
    setChildren(
      this._tooltip,
      h("div", {
        className: "tbmf-chart__tooltip-head",
        text: rows.join(" · "),
      }),
      h("div", {
        className: "tbmf-chart__tooltip-row",
        text: t("ridge.values", { n: formatValue(total) }),
      }),
      this._options.onPick
        ? h("div", {
            className: "tbmf-chart__tooltip-row tbmf-muted",
            text: t("ridge.clickToCompare"),
          })
        : null,
    );
    this._tooltip.hidden = false;
    // `position: fixed`: placed at the pointer in window coordinates.
    placeTooltip(this._tooltip, event.clientX, event.clientY);
  }

  _onLeave() {
    this._tooltip.hidden = true;
    if (this._hoverLine !== null) {
      this._hoverLine = null;
      this._draw();
    }
  }

  _onClick() {
    const index = this._hoverLine;
    if (index === null || !this._options.onPick) return;
    this._options.onPick(this._options.entries[index], index);
  }
}

/**
 * A run colour faded for old lines: `t` = 0 is faint, 1 is the full colour.
 * @param {string} hex
 * @param {number} t 0..1
 * @returns {string}
 */
function mix(hex, t) {
  return withAlpha(hex, 0.35 + 0.65 * t);
}

/**
 * An axis id (`step`, `epoch`, ...) in the tab's language; anything else
 * as given.
 * @param {string} id
 * @returns {string}
 */
function axisWord(id) {
  return hasMessage(`axis.${id}`) ? t(`axis.${id}`) : id;
}
