// Histogram charts: buckets on explicit edges (bars, filled steps, signed
// difference bars) on uPlot, and a TensorBoard-style ridge ("offset") chart
// of one run's histograms over training on a canvas.
//
//   const chart = createHistChart(container, {
//     title: "A", edges, yRange: [0, 120], syncKey: "hist",
//     series: [{key: "a", label: "pytorch_sgd", color, values, kind: "bars"}],
//   });
//   chart.update({series, edges});  chart.destroy();
//
//   const ridge = createRidgeChart(container, {
//     color, entries: [{step, x, edges, counts}], offsetLabel: "epoch",
//     highlight: 3, onPick: (entry, index) => ...,
//   });
//
// Bars are drawn from the edges themselves (a custom uPlot path), so uneven
// buckets and the ends of the range are exact. What a chart draws is
// readable from its element (`element.histChartData`, `element.ridgeData`)
// for tests and for anyone scripting the page.

import uPlot from "../vendor/uplot/uPlot.esm.js";
import { withAlpha } from "../colors.js";
import { ensureStylesheet, h, setChildren } from "../dom.js";
import { formatValue } from "../format.js";
import { cssVar } from "../theme.js";
import {
  AXIS_FONT,
  axisStyle,
  fitAxisSize,
  fitWidth,
  LABEL_FONT,
  watchSizeAndTheme,
} from "./plotkit.js";

ensureStylesheet(new URL("../vendor/uplot/uPlot.min.css", import.meta.url));

/** Plot height in CSS pixels when the options give none. */
export const DEFAULT_HIST_HEIGHT = 200;
/** Buckets a ridge line is resampled onto (TensorBoard's offset view: 30). */
export const RIDGE_BUCKETS = 40;
/** Most histograms a ridge chart draws; more are thinned evenly. */
export const MAX_RIDGE_LINES = 120;
/** Least vertical distance between two ridge labels, CSS pixels. */
const LABEL_SPACING_PX = 13;
/** Gap between neighbouring bars, in CSS pixels. */
const BAR_GAP_PX = 1;
/** Opacity of a `bars` series' fill. */
const BAR_ALPHA = 0.82;
/** Opacity of an `area` series' fill (two overlap: both stay readable). */
const AREA_ALPHA = 0.2;

/**
 * @typedef {Object} HistSeries
 * @property {string} key unique within the chart
 * @property {string} label tooltip text
 * @property {string} color `#rrggbb`
 * @property {ArrayLike<number | null>} values one per bucket; `null` = none
 * @property {'bars' | 'area'} [kind] separate bars (default), or a filled
 *     step outline that can overlap another series
 *
 * @typedef {Object} TooltipRow
 * @property {string} label
 * @property {string} value
 * @property {string} [color]
 *
 * @typedef {Object} HistChartOptions
 * @property {ArrayLike<number>} edges bucket edges, ascending, buckets + 1
 * @property {HistSeries[]} series
 * @property {string | Node} [title] header content
 * @property {string} [xLabel]
 * @property {string} [yLabel]
 * @property {[number, number] | null} [yRange] fixed y range (shared scales)
 * @property {(y: number) => string} [formatY]
 * @property {(x: number) => string} [formatX]
 * @property {string | null} [syncKey] same key = shared cursor
 * @property {number} [height] plot height in CSS pixels
 * @property {boolean} [zeroLine] draw y = 0 (for signed values)
 * @property {(index: number) => TooltipRow[]} [describe] tooltip rows of a
 *     bucket (default: one row a series)
 * @property {string} [emptyText]
 */

/**
 * @param {HTMLElement} container
 * @param {HistChartOptions} options
 * @returns {HistChart}
 */
export function createHistChart(container, options) {
  return new HistChart(container, options);
}

export class HistChart {
  /**
   * @param {HTMLElement} container
   * @param {HistChartOptions} options
   */
  constructor(container, options) {
    /** @type {HistChartOptions} */
    this._options = { ...options };
    /** @type {uPlot | null} */
    this._uplot = null;
    /** @type {number[]} */
    this._edges = [];
    this._destroyed = false;
    /** @type {number | null} */
    this._hoverIndex = null;

    this._title = h("div", { className: "tbmf-chart__title" });
    this._header = h("div", { className: "tbmf-chart__header" }, this._title);
    this._plot = h("div", { className: "tbmf-chart__plot" });
    this._empty = h("div", { className: "tbmf-chart__empty" });
    this._hover = h("div", { className: "tbmf-histchart__hover" });
    this._tooltip = h("div", {
      className: "tbmf-chart__tooltip",
      attrs: { role: "tooltip", hidden: true },
    });
    this.element = h(
      "div",
      { className: "tbmf-chart tbmf-histchart" },
      this._header,
      h("div", { className: "tbmf-chart__body" }, this._plot, this._empty),
      this._tooltip,
    );
    /** What is drawn, for tests and scripting. */
    /** @type {{edges: number[], series: {key: string, values: (number | null)[]}[]}} */
    this.element.histChartData = { edges: [], series: [] };
    container.appendChild(this.element);

    /** @type {number | null} */
    this._resizeFrame = null;
    this._unwatch = watchSizeAndTheme(
      this._plot,
      () => this._scheduleResize(),
      () => this._uplot?.redraw(false, true),
    );
    this._build();
  }

  /** @returns {uPlot | null} */
  get uplot() {
    return this._uplot;
  }

  /**
   * Merges new options. New values for the same series and bucket count keep
   * the uPlot instance; anything else rebuilds it.
   * @param {Partial<HistChartOptions>} options
   */
  update(options) {
    if (this._destroyed) return;
    const previous = this._options;
    this._options = { ...previous, ...options };
    const dataOnly = Object.keys(options).every((key) =>
      ["series", "edges", "yRange", "title", "describe"].includes(key),
    );
    const sameShape =
      this._options.series.length === previous.series.length &&
      this._options.series.every(
        (s, i) =>
          s.key === previous.series[i].key &&
          s.color === previous.series[i].color &&
          (s.kind ?? "bars") === (previous.series[i].kind ?? "bars"),
      );
    if (dataOnly && sameShape && this._uplot) {
      this._renderTitle();
      this._uplot.setData(this._data(), true);
      this._publish();
      this._renderEmpty();
      this._hideHover();
    } else {
      this._build();
    }
  }

  /** Removes the chart and its observers. Safe to call twice. */
  destroy() {
    if (this._destroyed) return;
    this._destroyed = true;
    this._unwatch();
    if (this._resizeFrame !== null) cancelAnimationFrame(this._resizeFrame);
    this._uplot?.destroy();
    this._uplot = null;
    this.element.remove();
  }

  _renderTitle() {
    const { title } = this._options;
    setChildren(this._title, title ?? null);
    this._header.hidden = title == null || title === "";
  }

  /** @returns {uPlot.AlignedData} centres, then one column per series */
  _data() {
    const edges = Array.from(this._options.edges, Number);
    this._edges = edges;
    const buckets = Math.max(edges.length - 1, 0);
    const centres = new Array(buckets);
    for (let i = 0; i < buckets; i++)
      centres[i] = (edges[i] + edges[i + 1]) / 2;
    const columns = this._options.series.map((s) => {
      const out = new Array(buckets);
      for (let i = 0; i < buckets; i++) {
        const v = s.values[i];
        out[i] = typeof v === "number" && Number.isFinite(v) ? v : null;
      }
      return out;
    });
    return /** @type {uPlot.AlignedData} */ ([centres, ...columns]);
  }

  _publish() {
    const u = this._uplot;
    if (!u) return;
    this.element.histChartData = {
      edges: [...this._edges],
      series: this._options.series.map((s, i) => ({
        key: s.key,
        values: Array.from(/** @type {(number | null)[]} */ (u.data[i + 1])),
      })),
    };
  }

  _build() {
    this._uplot?.destroy();
    this._uplot = null;
    this._renderTitle();
    const options = this._options;
    const data = this._data();
    const formatX = options.formatX ?? formatValue;
    const formatY = options.formatY ?? formatValue;
    const axisBase = axisStyle();
    /** @type {uPlot.Series[]} */
    const series = [{ label: options.xLabel ?? "x" }];
    for (const spec of options.series) {
      const area = spec.kind === "area";
      series.push({
        label: spec.label,
        stroke: area ? spec.color : "rgba(0,0,0,0)",
        fill: withAlpha(spec.color, area ? AREA_ALPHA : BAR_ALPHA),
        width: area ? 1.5 : 0,
        paths: area ? this._stepPath() : this._barPath(),
        points: { show: false },
      });
    }
    /** @type {uPlot.Options} */
    const opts = {
      width: Math.max(this._plot.clientWidth, 100),
      height: options.height ?? DEFAULT_HIST_HEIGHT,
      class: "tbmf-uplot",
      legend: { show: false },
      padding: [8, 12, 0, 0],
      cursor: {
        y: false,
        drag: { x: false, y: false, setScale: false },
        points: { show: false },
        ...(options.syncKey
          ? { sync: { key: options.syncKey, setSeries: false } }
          : {}),
      },
      scales: {
        x: {
          time: false,
          range: () => {
            const e = this._edges;
            return e.length > 1 && e[e.length - 1] > e[0]
              ? [e[0], e[e.length - 1]]
              : [0, 1];
          },
        },
        y: { range: (_u, min, max) => this._yRange(min, max) },
      },
      axes: [
        {
          ...axisBase,
          label: options.xLabel,
          labelSize: options.xLabel ? 16 : 0,
          labelGap: 0,
          size: 26,
          values: (_u, splits) => splits.map((v) => formatX(v)),
        },
        {
          ...axisBase,
          label: options.yLabel,
          labelSize: options.yLabel ? 16 : 0,
          labelGap: 0,
          size: fitAxisSize,
          values: (_u, splits) =>
            splits.map((v) => (v == null ? "" : formatY(v))),
        },
      ],
      series,
      hooks: {
        setCursor: [(u) => this._onCursor(u)],
        setSize: [() => this._hideHover()],
        draw: [(u) => this._drawZeroLine(u)],
      },
    };
    this._uplot = new uPlot(opts, data, this._plot);
    this._uplot.over.appendChild(this._hover);
    this._uplot.over.addEventListener("mouseleave", () => this._hideHover());
    this._hideHover();
    this._publish();
    this._renderEmpty();
  }

  /**
   * @param {number | null} min
   * @param {number | null} max
   * @returns {uPlot.Range.MinMax}
   */
  _yRange(min, max) {
    const fixed = this._options.yRange;
    if (fixed && fixed[1] > fixed[0]) return [fixed[0], fixed[1]];
    // Bars grow from zero, so zero is always in range.
    const lo = Math.min(0, min ?? 0);
    const hi = Math.max(0, max ?? 0);
    if (hi === lo) return [lo, lo + 1];
    const pad = (hi - lo) * 0.06;
    return [lo < 0 ? lo - pad : 0, hi > 0 ? hi + pad : 0];
  }

  /** @returns {uPlot.Series.PathBuilder} bars spanning their own edges */
  _barPath() {
    return (u, seriesIdx, idx0, idx1) => {
      const values = u.data[seriesIdx];
      const edges = this._edges;
      const fill = new Path2D();
      const base = u.valToPos(0, "y", true);
      const gap = BAR_GAP_PX * devicePixelRatio;
      for (let i = idx0; i <= idx1; i++) {
        const v = values[i];
        if (v == null || v === 0) continue;
        const left = u.valToPos(edges[i], "x", true);
        const right = u.valToPos(edges[i + 1], "x", true);
        const width = right - left;
        // Thin buckets lose their gap rather than vanish.
        const g = width > 4 * gap ? gap : 0;
        const top = u.valToPos(v, "y", true);
        const y = Math.min(top, base);
        const height = Math.max(Math.abs(base - top), 1);
        fill.rect(left + g / 2, y, Math.max(width - g, 1), height);
      }
      return {
        stroke: null,
        fill,
        clip: null,
        band: null,
        gaps: null,
        flags: 0,
      };
    };
  }

  /** @returns {uPlot.Series.PathBuilder} a filled step outline on the edges */
  _stepPath() {
    return (u, seriesIdx, idx0, idx1) => {
      const values = u.data[seriesIdx];
      const edges = this._edges;
      const stroke = new Path2D();
      const fill = new Path2D();
      const base = u.valToPos(0, "y", true);
      let open = false;
      let lastX = 0;
      const close = () => {
        if (!open) return;
        stroke.lineTo(lastX, base);
        fill.lineTo(lastX, base);
        fill.closePath();
        open = false;
      };
      for (let i = idx0; i <= idx1; i++) {
        const v = values[i];
        if (v == null) {
          close();
          continue;
        }
        const left = u.valToPos(edges[i], "x", true);
        const right = u.valToPos(edges[i + 1], "x", true);
        const y = u.valToPos(v, "y", true);
        if (!open) {
          stroke.moveTo(left, base);
          fill.moveTo(left, base);
          open = true;
        }
        stroke.lineTo(left, y);
        stroke.lineTo(right, y);
        fill.lineTo(left, y);
        fill.lineTo(right, y);
        lastX = right;
      }
      close();
      return { stroke, fill, clip: null, band: null, gaps: null, flags: 0 };
    };
  }

  /** @param {uPlot} u */
  _drawZeroLine(u) {
    if (!this._options.zeroLine) return;
    const y = Math.round(u.valToPos(0, "y", true)) + 0.5;
    const { ctx } = u;
    ctx.save();
    ctx.strokeStyle = cssVar("--chart-axis", "#666");
    ctx.globalAlpha = 0.6;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(u.bbox.left, y);
    ctx.lineTo(u.bbox.left + u.bbox.width, y);
    ctx.stroke();
    ctx.restore();
  }

  _renderEmpty() {
    const u = this._uplot;
    const hasData =
      u !== null &&
      this._edges.length > 1 &&
      u.data.slice(1).some((column) => column.some((v) => v != null));
    this._empty.hidden = hasData;
    this._empty.textContent = hasData
      ? ""
      : (this._options.emptyText ?? "No data");
  }

  _hideHover() {
    this._hover.hidden = true;
    this._tooltip.hidden = true;
    this._hoverIndex = null;
  }

  /** @param {uPlot} u */
  _onCursor(u) {
    const left = u.cursor.left;
    if (left == null || left < 0 || this._edges.length < 2) {
      this._hideHover();
      return;
    }
    // The bucket under the cursor, from the edges (centres can mislead when
    // buckets are uneven).
    const x = u.posToVal(left, "x");
    const edges = this._edges;
    let index = -1;
    for (let i = 0; i < edges.length - 1; i++) {
      if (x >= edges[i] && x <= edges[i + 1]) {
        index = i;
        break;
      }
    }
    if (index < 0) {
      this._hideHover();
      return;
    }
    const l = u.valToPos(edges[index], "x");
    const r = u.valToPos(edges[index + 1], "x");
    this._hover.style.left = `${l}px`;
    this._hover.style.width = `${Math.max(r - l, 1)}px`;
    this._hover.hidden = false;
    this._hoverIndex = index;
    this._renderTooltip(u, index);
  }

  /**
   * @param {uPlot} u
   * @param {number} index bucket
   */
  _renderTooltip(u, index) {
    // A cursor moved by another chart (sync) shows the bucket, not a tooltip.
    if (!this.element.matches(":hover")) {
      this._tooltip.hidden = true;
      return;
    }
    const formatX = this._options.formatX ?? formatValue;
    const formatY = this._options.formatY ?? formatValue;
    const rows = this._options.describe
      ? this._options.describe(index)
      : this._options.series.map((s, i) => {
          const v = u.data[i + 1][index];
          return {
            label: s.label,
            value: v == null ? "—" : formatY(v),
            color: s.color,
          };
        });
    const edges = this._edges;
    setChildren(
      this._tooltip,
      h("div", {
        className: "tbmf-chart__tooltip-head",
        text: `${formatX(edges[index])} to ${formatX(edges[index + 1])}`,
      }),
      rows.map((row) =>
        h(
          "div",
          { className: "tbmf-chart__tooltip-row" },
          h("span", {
            className: "tbmf-chart__swatch",
            style: { "--swatch": row.color ?? "transparent" },
          }),
          h("span", { className: "tbmf-chart__label", text: row.label }),
          h("span", { className: "tbmf-chart__value", text: row.value }),
        ),
      ),
    );
    this._tooltip.hidden = false;
    const box = this.element.getBoundingClientRect();
    const over = u.over.getBoundingClientRect();
    const x0 = over.left - box.left + (u.cursor.left ?? 0);
    const y0 = over.top - box.top + (u.cursor.top ?? 0);
    const width = this._tooltip.offsetWidth;
    const height = this._tooltip.offsetHeight;
    let x = x0 + 14;
    if (x + width > box.width) x = Math.max(0, x0 - 14 - width);
    let y = y0 + 14;
    if (y + height > box.height) y = Math.max(0, y0 - 14 - height);
    this._tooltip.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
  }

  _scheduleResize() {
    if (this._resizeFrame !== null) return;
    this._resizeFrame = requestAnimationFrame(() => {
      this._resizeFrame = null;
      const u = this._uplot;
      if (!u || this._destroyed) return;
      fitWidth(u, this._plot, this._options.height ?? DEFAULT_HIST_HEIGHT);
    });
  }
}

// Ridge chart.

/**
 * @typedef {Object} RidgeEntry one logged histogram
 * @property {number} step
 * @property {number | null} x position on the chosen axis (null: none)
 * @property {ArrayLike<number>} edges
 * @property {ArrayLike<number>} counts
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

/**
 * @typedef {Object} RidgeLine a histogram resampled for drawing
 * @property {number} index into the entries
 * @property {number} offset vertical position value
 * @property {number[]} density per bucket of the ridge grid, 0..1
 */

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
    this._canvas = h("canvas", { className: "tbmf-ridge__canvas" });
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
    const usable = [];
    for (let i = 0; i < entries.length; i++) {
      const edges = Array.from(entries[i].edges, Number);
      const counts = Array.from(entries[i].counts, Number);
      if (edges.length !== counts.length + 1 || counts.length === 0) continue;
      if (!edges.every(Number.isFinite) || !counts.every(Number.isFinite)) {
        continue;
      }
      usable.push({ index: i, edges, counts });
    }
    const byX = usable.every((u) => isFiniteNumber(entries[u.index].x));
    const offsetOf = (/** @type {number} */ i) =>
      byX ? /** @type {number} */ (entries[i].x) : entries[i].step;
    usable.sort((a, b) => offsetOf(a.index) - offsetOf(b.index));
    const thinned = thin(usable, MAX_RIDGE_LINES, this._options.highlight);

    let lo = Infinity;
    let hi = -Infinity;
    for (const u of thinned) {
      lo = Math.min(lo, u.edges[0]);
      hi = Math.max(hi, u.edges[u.edges.length - 1]);
    }
    const fixed = this._options.xRange;
    if (fixed && fixed[1] > fixed[0]) [lo, hi] = fixed;
    if (!(hi > lo)) {
      const mid = Number.isFinite(lo) ? lo : 0;
      [lo, hi] = [mid - 0.5, mid + 0.5];
    }
    this._range = [lo, hi];
    const grid = new Float64Array(RIDGE_BUCKETS + 1);
    for (let k = 0; k <= RIDGE_BUCKETS; k++) {
      grid[k] = lo + ((hi - lo) * k) / RIDGE_BUCKETS;
    }
    /** @type {RidgeLine[]} */
    const lines = thinned.map((u) => {
      const mass = rebinMass(u.edges, u.counts, grid);
      const total = mass.reduce((acc, v) => acc + v, 0);
      // Shares of the total: lines of runs with other element counts and
      // lines of one run at different times keep comparable heights.
      return {
        index: u.index,
        offset: offsetOf(u.index),
        density: mass.map((v) => (total > 0 ? v / total : 0)),
      };
    });
    let peak = 0;
    for (const line of lines) {
      for (const v of line.density) peak = Math.max(peak, v);
    }
    for (const line of lines) {
      if (peak > 0) line.density = line.density.map((v) => v / peak);
    }
    this._lines = lines;
    this._byX = byX;
    const offsets = lines.map((l) => l.offset);
    this._offsetRange =
      offsets.length > 0
        ? [Math.min(...offsets), Math.max(...offsets)]
        : [0, 1];
    this.element.ridgeData = {
      lines: lines.length,
      steps: lines.map((l) => entries[l.index].step),
      highlight: this._options.highlight ?? null,
    };
  }

  _draw() {
    const options = this._options;
    setChildren(this._title, options.title ?? null);
    this._header.hidden = options.title == null || options.title === "";
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
      lines.length > 0 ? "" : (options.emptyText ?? "No histograms");
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
    return `${label} ${formatValue(offset)}`;
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
    const rows = [`step ${formatValue(entry.step)}`];
    if (this._byX && this._options.offsetLabel !== "step") {
      rows.push(
        `${this._options.offsetLabel ?? "x"} ${formatValue(best.offset)}`,
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
        text: `${formatValue(total)} values`,
      }),
      this._options.onPick
        ? h("div", {
            className: "tbmf-chart__tooltip-row tbmf-muted",
            text: "Click to compare here",
          })
        : null,
    );
    this._tooltip.hidden = false;
    const outer = this.element.getBoundingClientRect();
    const left = box.left - outer.left + x + 14;
    const top = box.top - outer.top + y + 14;
    const width = this._tooltip.offsetWidth;
    const tx = left + width > outer.width ? left - 28 - width : left;
    this._tooltip.style.transform = `translate(${Math.round(Math.max(0, tx))}px, ${Math.round(top)}px)`;
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
 * Mass of a histogram falling in each bucket of `grid`, reading a bucket as
 * a uniform density (a zero-width bucket is a point mass).
 * @param {number[]} edges
 * @param {number[]} counts
 * @param {ArrayLike<number>} grid ascending, buckets + 1
 * @returns {number[]}
 */
export function rebinMass(edges, counts, grid) {
  const buckets = grid.length - 1;
  const out = new Array(buckets).fill(0);
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i];
    if (!(count > 0)) continue;
    const left = edges[i];
    const right = edges[i + 1];
    if (right <= left) {
      const k = bucketOf(grid, left);
      if (k >= 0) out[k] += count;
      continue;
    }
    for (let k = Math.max(bucketOf(grid, left), 0); k < buckets; k++) {
      if (grid[k] >= right) break;
      const overlap = Math.min(right, grid[k + 1]) - Math.max(left, grid[k]);
      if (overlap > 0) out[k] += (count * overlap) / (right - left);
    }
  }
  return out;
}

/**
 * @param {ArrayLike<number>} grid
 * @param {number} value
 * @returns {number} the bucket holding `value`, -1 outside the grid
 */
function bucketOf(grid, value) {
  const last = grid.length - 1;
  if (value < grid[0] || value > grid[last]) return -1;
  let lo = 0;
  let hi = last;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (grid[mid] <= value) lo = mid;
    else hi = mid;
  }
  return Math.min(lo, last - 1);
}

/**
 * Keeps at most `limit` items, evenly spread, always with the first, the
 * last and the highlighted one.
 * @template {{index: number}} T
 * @param {T[]} items
 * @param {number} limit
 * @param {number | null | undefined} keep an entry index to keep
 * @returns {T[]}
 */
function thin(items, limit, keep) {
  if (items.length <= limit) return items;
  const chosen = new Set();
  for (let i = 0; i < limit; i++) {
    chosen.add(Math.round((i * (items.length - 1)) / (limit - 1)));
  }
  const keepAt = items.findIndex((item) => item.index === keep);
  if (keepAt >= 0) chosen.add(keepAt);
  return [...chosen].sort((a, b) => a - b).map((i) => items[i]);
}

/**
 * About `count` round tick values within [lo, hi].
 * @param {number} lo
 * @param {number} hi
 * @param {number} count
 * @returns {number[]}
 */
export function niceTicks(lo, hi, count) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / Math.max(count, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit =
    [1, 2, 2.5, 5, 10].map((m) => m * power).find((m) => m >= raw) ??
    10 * power;
  const ticks = [];
  for (let t = Math.ceil(lo / unit) * unit; t <= hi + unit * 1e-9; t += unit) {
    // Snap away float residue such as 0.30000000000000004.
    ticks.push(Number(t.toPrecision(12)));
  }
  return ticks;
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
 * @param {unknown} value
 * @returns {value is number}
 */
function isFiniteNumber(value) {
  return typeof value === "number" && Number.isFinite(value);
}
