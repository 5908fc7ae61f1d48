// A line chart on uPlot that every view uses: one declarative options
// object in, a handle out.
//
//   const chart = createChart(container, {
//     title: "loss/train", xLabel: "step", syncKey: "compare",
//     series: [{run: "pytorch_sgd", label: "pytorch_sgd", x, y, yMin, yMax}],
//   });
//   chart.update({series: next});   // new data (same or other series)
//   chart.setLogY(true);
//   chart.destroy();
//
// Series keep the colour of their run (colors.js), `null` in `y` is a gap,
// `yMin`/`yMax` draw a min/max band, charts with the same `syncKey` share the
// cursor (give it only to charts with the same x axis), and the chart
// follows its container's width and the theme. Non-finite values (the
// server's "NaN"/"Infinity" strings) are gaps with a marker at the plot's
// edge. With `onZoom`, a drag asks the owner for the window's data (at full
// resolution) instead of only stretching what is drawn; `xRange` then holds
// the window across data updates. The element carries the instance as
// `element.tbmfChart` (browser tests and devtools read uPlot's data there).
// With many series: the tooltip lists the series under the cursor first
// (charttooltip.js), "ignore outliers" fits y to the bulk of the values and
// marks what it leaves out at the edge (chartmarks.js), the legend scrolls.

import uPlot from "../vendor/uplot/uPlot.esm.js";
import { styleFor, withAlpha } from "../colors.js";
import { ensureStylesheet, h, icon } from "../dom.js";
import { formatValue } from "../format.js";
import { markInput } from "../perf.js";
import { tooltipRows } from "../prefs.js";
import {
  drawClipped,
  drawMarkers,
  findClipped,
  findMarkers,
  robustRange,
  rowWindow,
} from "./chartmarks.js";
import {
  cleanValues,
  DATA_OPTIONS,
  defaultFormatX,
  ownPoints,
  sameKeys,
  seriesKey,
  sparse,
} from "./chartseries.js";
import { ChartTooltip, swatchStyle } from "./charttooltip.js";
import {
  axisStyle,
  fitAxisSize,
  fitWidth,
  watchSizeAndTheme,
} from "./plotkit.js";

ensureStylesheet(new URL("../vendor/uplot/uPlot.min.css", import.meta.url));

/** Plot height in CSS pixels when the options give none. */
export const DEFAULT_HEIGHT = 240;
/** Most series rows a tooltip lists when the options cap it (compat). */
export const MAX_TOOLTIP_ROWS = 20;
/** Series beyond which uPlot draws no cursor dots (the hovered one gets
 * its own) and the legend turns compact. */
const MANY_SERIES = 12;
/** Line width cap with many series, in CSS pixels. Chromium's software
 * rasteriser (no GPU) draws 1-pixel lines on a fast path: 50 series of
 * ~1,000 points took 190–240 ms to rasterise at width 1.5 and 25–40 ms at
 * width 1 on the 2-core development machine. The hovered series is drawn
 * bold on its own overlay, so nothing is lost. */
const MANY_SERIES_WIDTH = 1;
/** Opacity of a min/max band's fill. */
const BAND_ALPHA = 0.18;
/** Class of the hidden series that carry band edges (no cursor points). */
const BAND_CLASS = "tbmf-band-edge";
/** Narrowest drag, in CSS pixels, taken as a zoom (not a stray click). */
const MIN_ZOOM_DRAG_PX = 3;

/**
 * @typedef {Object} ChartSeries
 * @property {string} [key] unique within the chart (default: label)
 * @property {string} label legend and tooltip text
 * @property {string} [run] run name: picks the colour
 * @property {string} [color] explicit colour, overrides `run`
 * @property {ArrayLike<number>} x ascending
 * @property {ArrayLike<number | null>} y `null` leaves a gap
 * @property {ArrayLike<number | null>} [yMin] lower band edge, same length
 * @property {ArrayLike<number | null>} [yMax] upper band edge, same length
 * @property {number} [width] line width in CSS pixels (default 1.5)
 * @property {number[]} [dash] e.g. `[4, 3]`
 * @property {number} [alpha] line opacity, 0..1
 * @property {boolean} [show] initially visible (default true)
 * @property {boolean} [legend] listed in legend and tooltip (default true)
 * @property {string} [linkedTo] key of the series this one belongs to (e.g.
 *     the faint raw line under a smoothed one): shown and hidden with it, and
 *     its value is listed in that series' tooltip row
 * @property {string} [note] short muted text after the legend label, e.g.
 *     `175 of 400 points`
 * @property {boolean} [markers] mark non-finite values (default true)
 * @property {(value: number, x: number) => string} [format] the tooltip's
 *     text for a value of this series (default: the chart's `formatY`)
 *
 * @typedef {Object} ChartOptions
 * @property {ChartSeries[]} series
 * @property {string} [title]
 * @property {string} [xLabel] axis title and tooltip header, e.g. `step`
 * @property {string} [xAxisLabel] axis title when it should differ from the
 *     tooltip header (e.g. with a unit)
 * @property {string} [yLabel]
 * @property {'number' | 'time'} [xType] `time`: x in epoch seconds
 * @property {boolean} [logY] logarithmic y (non-positive values are hidden)
 * @property {boolean} [logYToggle] show the log-y button (default true)
 * @property {string | null} [syncKey] charts with the same key share cursor
 * @property {number} [height] plot height in CSS pixels
 * @property {boolean} [legend] default true
 * @property {boolean} [tooltip] default true
 * @property {number} [yAxisMinSize] narrowest y axis in CSS pixels: linked
 *     charts with the same value keep their plot areas aligned
 * @property {(x: number) => string} [formatX]
 * @property {(y: number) => string} [formatY]
 * @property {string} [emptyText] shown when there is nothing to draw
 * @property {[number, number] | null} [xRange] fixed x window (zoom); null
 *     fits the data
 * @property {(min: number, max: number) => void} [onZoom] called when the
 *     user drags a window on this chart (not on a synced one)
 * @property {() => void} [onZoomReset] called on a double-click
 * @property {boolean} [ignoreOutliers] fit y to the 0.5–99.5 percentile
 *     range of the drawn values (plus a margin) and mark the points it
 *     leaves out at the plot's edge (default false)
 * @property {number} [tooltipRows] rows the tooltip lists (default: the
 *     user's preference, prefs.js)
 * @property {(chart: Chart) => void} [onDraw] called after every redraw
 *     (zoom, resize, new data), to draw over the plot (e.g. anomaly
 *     markers: `chart.uplot`)
 */

/**
 * @typedef {import("./chartmarks.js").Marker} Marker
 * @typedef {import("./chartmarks.js").ClippedPoint} ClippedPoint
 */

/**
 * @typedef {Object} SeriesSlot where an input series lives in uPlot's data
 * @property {ChartSeries} spec
 * @property {string} key
 * @property {string} color
 * @property {readonly number[] | null | undefined} dash
 * @property {number} index its line
 * @property {number | null} upper band upper edge
 * @property {number | null} lower band lower edge
 * @property {Marker[]} markers
 * @property {number[]} ownX the series' own x (not the joined rows)
 * @property {(number | null)[]} ownY its drawable values on ownX
 */

/**
 * Creates a chart inside `container` (appended as its last child).
 * @param {HTMLElement} container
 * @param {ChartOptions} options
 * @returns {Chart}
 */
export function createChart(container, options) {
  return new Chart(container, options);
}

export class Chart {
  /**
   * @param {HTMLElement} container
   * @param {ChartOptions} options
   */
  constructor(container, options) {
    /** @type {ChartOptions} */
    this._options = { ...options, series: options.series ?? [] };
    /** @type {uPlot | null} */
    this._uplot = null;
    /** @type {SeriesSlot[]} */
    this._slots = [];
    /** Keys of series the user hid from the legend; kept across updates. */
    /** @type {Set<string>} */
    this._hidden = new Set(
      this._options.series
        .filter((s) => s.show === false)
        .map((s) => seriesKey(s)),
    );
    this._destroyed = false;
    /** Set while applying `xRange`, so the resulting scale change is not
     * taken for the user's zoom. */
    this._applyingRange = false;

    this._title = h("div", { className: "tbmf-chart__title" });
    this._logButton = h(
      "button",
      {
        className: "tbmf-chart__tool",
        title: "Logarithmic y axis",
        attrs: { type: "button", "aria-pressed": "false" },
        on: { click: () => this.setLogY(!this.logY) },
      },
      icon("logScale", { size: 16 }),
      h("span", { text: "log y" }),
    );
    this._header = h(
      "div",
      { className: "tbmf-chart__header" },
      this._title,
      h("div", { className: "tbmf-chart__tools" }, this._logButton),
    );
    this._plot = h("div", { className: "tbmf-chart__plot" });
    this._empty = h("div", { className: "tbmf-chart__empty" });
    this._tip = new ChartTooltip();
    this._tooltip = this._tip.element;
    /** The pointer is over this chart's plot (synced charts move their
     * hairline but show no tooltip: one tooltip at a time). */
    this._pointerIn = false;
    /** @type {import("./charttooltip.js").Hovered | null} */
    this._hovered = null;
    /** @type {ClippedPoint[]} */
    this._clipped = [];
    /** @type {{key: string, range: [number, number] | null} | null} */
    this._rangeMemo = null;
    this._dataVersion = 0;
    this._legend = h("div", {
      className: "tbmf-chart__legend",
      attrs: { role: "list" },
    });
    this.element = h(
      "div",
      { className: "tbmf-chart" },
      this._header,
      h("div", { className: "tbmf-chart__body" }, this._plot, this._empty),
      this._tooltip,
      this._legend,
    );
    container.appendChild(this.element);
    /** @type {any} */ (this.element).tbmfChart = this;

    /** @type {number | null} */
    this._resizeFrame = null;
    this._unwatch = watchSizeAndTheme(
      this._plot,
      () => this._scheduleResize(),
      () => this._uplot?.redraw(false, true),
    );

    this._build();
  }

  /** @returns {uPlot | null} the uPlot instance (null when destroyed) */
  get uplot() {
    return this._uplot;
  }

  /**
   * Where each series lives in `uplot.data`: `index` is its line, `upper`
   * and `lower` its band edges (null without a band).
   * @returns {{key: string, label: string, run: string | undefined,
   *     color: string, index: number, upper: number | null,
   *     lower: number | null, markers: Marker[]}[]}
   */
  get slots() {
    return this._slots.map((slot) => ({
      key: slot.key,
      label: slot.spec.label,
      run: slot.spec.run,
      color: slot.color,
      dash: slot.dash ?? null,
      index: slot.index,
      upper: slot.upper,
      lower: slot.lower,
      markers: slot.markers,
    }));
  }

  /**
   * Points left out of the y range by "ignore outliers" (drawn as marks at
   * the plot's edge), as of the last draw.
   * @returns {ClippedPoint[]}
   */
  get clipped() {
    return this._clipped;
  }

  /** @returns {string | null} key of the series under the cursor */
  get hoveredKey() {
    return this._hovered?.slot.key ?? null;
  }

  /** @returns {boolean} */
  get logY() {
    return Boolean(this._options.logY);
  }

  /**
   * Applies new options (merged over the current ones). New data for the same
   * series keeps the chart and its zoom-out state; anything else rebuilds.
   * @param {Partial<ChartOptions>} options
   */
  update(options) {
    if (this._destroyed) return;
    const previous = this._options;
    this._options = { ...previous, ...options };
    const onlyData =
      Object.keys(options).every((key) => DATA_OPTIONS.has(key)) &&
      sameKeys(previous.series, this._options.series);
    if (onlyData && this._uplot) {
      const { data, slots } = this._layout(this._options.series);
      // Same keys, so the same columns: only the specs (labels, notes) and
      // markers move. setData ranges y again (outliers on or off).
      this._slots = slots;
      this._dataVersion++;
      this._uplot.setData(data);
      this._applyXRange();
      this._renderLegend();
      this._renderEmpty();
    } else {
      this._build();
    }
  }

  /** @param {boolean} on */
  setLogY(on) {
    if (Boolean(on) === this.logY) return;
    this.update({ logY: Boolean(on) });
  }

  /**
   * Shows or hides a series by key, as a click on its legend entry does.
   * @param {string} key
   * @param {boolean} show
   */
  setSeriesVisible(key, show) {
    if (show) this._hidden.delete(key);
    else this._hidden.add(key);
    this._dataVersion++;
    const u = this._uplot;
    if (u) {
      // One redraw for all of it; uPlot ranges y again over the series
      // shown (the robust range too: _dataVersion moved).
      u.batch(() => {
        for (const slot of this._slots) {
          if (slot.key !== key && slot.spec.linkedTo !== key) continue;
          const visible = this._isVisible(slot);
          for (const index of [slot.index, slot.upper, slot.lower]) {
            if (index !== null) u.setSeries(index, { show: visible });
          }
        }
      });
    }
    this._updateLegendItem(key);
  }

  /**
   * Turns "ignore outliers" on or off without fetching or rebuilding.
   * @param {boolean} on
   */
  setIgnoreOutliers(on) {
    if (Boolean(on) === Boolean(this._options.ignoreOutliers)) return;
    this.update({ ignoreOutliers: Boolean(on) });
  }

  /**
   * @param {SeriesSlot} slot
   * @returns {boolean} shown: neither it nor the series it belongs to hidden
   */
  _isVisible(slot) {
    return (
      !this._hidden.has(slot.key) &&
      !(slot.spec.linkedTo && this._hidden.has(slot.spec.linkedTo))
    );
  }

  /** Removes the chart, its observers and its DOM. Safe to call twice. */
  destroy() {
    if (this._destroyed) return;
    this._destroyed = true;
    this._unwatch();
    if (this._resizeFrame !== null) cancelAnimationFrame(this._resizeFrame);
    this._uplot?.destroy();
    this._uplot = null;
    this.element.remove();
  }

  // Building.

  _build() {
    this._uplot?.destroy();
    this._uplot = null;
    const options = this._options;
    const { data, slots } = this._layout(options.series);
    this._slots = slots;

    this._title.textContent = options.title ?? "";
    const showLogToggle = options.logYToggle !== false;
    this._logButton.hidden = !showLogToggle;
    this._logButton.setAttribute("aria-pressed", String(this.logY));
    this._logButton.classList.toggle("is-on", this.logY);
    this._header.hidden = !options.title && !showLogToggle;

    const formatX = options.formatX ?? defaultFormatX(options.xType);
    const formatY = options.formatY ?? formatValue;
    const axisBase = axisStyle();
    const many = slots.length > MANY_SERIES;
    this._dataVersion++;

    /** @type {uPlot.Series[]} */
    const series = [{ label: options.xLabel ?? "x" }];
    /** @type {uPlot.Band[]} */
    const bands = [];
    for (const slot of slots) {
      const visible = this._isVisible(slot);
      series[slot.index] = {
        label: slot.spec.label,
        stroke: slot.color,
        width: many
          ? Math.min(slot.spec.width ?? 1.5, MANY_SERIES_WIDTH)
          : (slot.spec.width ?? 1.5),
        dash: slot.dash ? [...slot.dash] : undefined,
        alpha: slot.spec.alpha,
        show: visible,
        spanGaps: false,
        points: {
          show: (/** @type {uPlot} */ u) => sparse(slot, u),
          size: 5,
          width: 1,
          fill: slot.color,
        },
        // With many series one cursor dot (the hovered series') is drawn
        // by the chart instead of a column of dots, and lines are built
        // from each series' own points.
        ...(many ? { cursor: { show: false } } : {}),
        ...(many && slot.upper === null ? { paths: ownPoints(slot) } : {}),
        value: (_u, v) => (v == null ? "—" : formatY(v)),
      };
      if (slot.upper !== null && slot.lower !== null) {
        for (const edge of [slot.upper, slot.lower]) {
          series[edge] = {
            label: `${slot.spec.label} ${edge === slot.upper ? "max" : "min"}`,
            class: BAND_CLASS,
            stroke: "rgba(0,0,0,0)",
            width: 1,
            show: visible,
            points: { show: false },
          };
        }
        bands.push({
          series: [slot.upper, slot.lower],
          fill: withAlpha(slot.color, BAND_ALPHA),
        });
      }
    }

    /** @type {uPlot.Options} */
    const opts = {
      width: Math.max(this._plot.clientWidth, 100),
      height: options.height ?? DEFAULT_HEIGHT,
      class: "tbmf-uplot",
      legend: { show: false },
      // Room on the right for the last x tick's label.
      padding: [8, 16, 0, 0],
      cursor: {
        // A vertical hairline only, as in TensorBoard's own charts.
        y: false,
        drag: { x: true, y: false },
        bind: {
          dblclick: (_u, _target, handler) => (event) => {
            if (event.button !== 0) return null;
            handler(event);
            // Only the chart the user double-clicked tells its owner;
            // synced charts reset through their owner's new data.
            this._options.onZoomReset?.();
            return null;
          },
        },
        // No focus dimming: it redraws every series whenever the nearest
        // one changes (slow at 50 runs); the hovered series is drawn bold
        // on an overlay instead.
        focus: { prox: -1 },
        points: { show: !many, size: 7, width: 2 },
        ...(options.syncKey
          ? {
              sync: {
                key: options.syncKey,
                setSeries: false,
                scales: ["x", null],
              },
            }
          : {}),
      },
      scales: {
        x: { time: options.xType === "time" },
        y: {
          ...(this.logY ? { distr: 3, log: 10 } : { distr: 1 }),
          range: (u, min, max) => this._yRange(u, min, max),
        },
      },
      axes: [
        {
          ...axisBase,
          label: options.xAxisLabel ?? options.xLabel,
          labelSize: (options.xAxisLabel ?? options.xLabel) ? 16 : 0,
          labelGap: 0,
          // uPlot's time ticks take two lines (time, then date).
          size: options.xType === "time" ? 44 : 26,
          ...(options.xType === "time"
            ? {}
            : { values: (_u, splits) => splits.map((v) => formatX(v)) }),
        },
        {
          ...axisBase,
          label: options.yLabel,
          labelSize: options.yLabel ? 16 : 0,
          labelGap: 0,
          size: (u, values, axisIdx, cycleNum) =>
            Math.max(
              fitAxisSize(u, values, axisIdx, cycleNum),
              options.yAxisMinSize ?? 0,
            ),
          values: (_u, splits) =>
            splits.map((v) => (v == null ? "" : formatY(v))),
        },
      ],
      series,
      bands,
      hooks: {
        setCursor: [() => this._renderTooltip()],
        setSize: [() => this._hideTooltip()],
        setSelect: [(u) => this._onSelect(u)],
        draw: [(u) => this._afterDraw(u)],
      },
    };
    this._uplot = new uPlot(opts, data, this._plot);
    const over = this._uplot.over;
    this._highlight = h("canvas", { className: "tbmf-chart__highlight" });
    over.appendChild(this._highlight);
    over.addEventListener("mouseenter", () => {
      this._pointerIn = true;
    });
    over.addEventListener("mousemove", () => {
      this._pointerIn = true;
    });
    over.addEventListener("mouseleave", () => {
      this._pointerIn = false;
      this._hideTooltip();
    });
    this._applyXRange();
    this._renderLegend();
    this._renderEmpty();
  }

  /** Holds the x scale on `xRange` (after new data reset it). */
  _applyXRange() {
    const u = this._uplot;
    const range = this._options.xRange;
    if (!u || !range) return;
    const [min, max] = range;
    if (!(Number.isFinite(min) && Number.isFinite(max) && min < max)) return;
    this._applyingRange = true;
    try {
      u.setScale("x", { min, max });
    } finally {
      this._applyingRange = false;
    }
  }

  /**
   * A finished drag on this chart: tell the owner which window to load.
   * @param {uPlot} u
   */
  _onSelect(u) {
    const onZoom = this._options.onZoom;
    // cursor.event is null when a synced chart replays the drag.
    if (!onZoom || this._applyingRange || u.cursor.event == null) return;
    if (u.select.width < MIN_ZOOM_DRAG_PX) return;
    const min = u.posToVal(u.select.left, "x");
    const max = u.posToVal(u.select.left + u.select.width, "x");
    if (Number.isFinite(min) && Number.isFinite(max) && min < max) {
      onZoom(min, max);
    }
  }

  /**
   * After each draw: non-finite markers, clipped-outlier marks, the
   * hovered series' overlay, then the owner's hook.
   * @param {uPlot} u
   */
  _afterDraw(u) {
    const visible = this._slots.filter((slot) => this._isVisible(slot));
    drawMarkers(u, visible);
    this._clipped = this._options.ignoreOutliers
      ? findClipped(
          u,
          visible.map((slot) => ({
            key: slot.key,
            xs: slot.ownX,
            ys: slot.ownY,
          })),
        )
      : [];
    drawClipped(
      u,
      this._clipped,
      new Map(visible.map((slot) => [slot.key, slot.color])),
    );
    this._drawHighlight();
    this._options.onDraw?.(this);
  }

  /**
   * uPlot's y range: its own, or with "ignore outliers" the robust range
   * of the values drawn in the x window (memoised per data and window).
   * @param {uPlot} u
   * @param {number} min
   * @param {number} max
   * @returns {uPlot.Range.MinMax}
   */
  _yRange(u, min, max) {
    const log = this.logY;
    const fallback = () =>
      log ? uPlot.rangeLog(min, max, 10, true) : uPlot.rangeNum(min, max, 0.1, true);
    if (!this._options.ignoreOutliers || min == null || max == null) {
      return fallback();
    }
    const xs = /** @type {number[]} */ (u.data[0]);
    const xMin = u.scales.x.min ?? xs[0];
    const xMax = u.scales.x.max ?? xs[xs.length - 1];
    const key = `${this._dataVersion}:${xMin}:${xMax}:${log}`;
    if (this._rangeMemo?.key !== key) {
      /** @type {number[]} */
      const values = [];
      for (const slot of this._slots) {
        if (!this._isVisible(slot)) continue;
        const [first, last] = rowWindow(slot.ownX, xMin, xMax);
        for (let i = first; i <= last; i++) {
          const v = slot.ownY[i];
          if (v != null) values.push(log ? Math.log10(v) : v);
        }
      }
      const lo = log ? Math.log10(min) : min;
      const hi = log ? Math.log10(max) : max;
      const robust = robustRange(Float64Array.from(values), lo, hi);
      this._rangeMemo = {
        key,
        range: robust && (log ? [10 ** robust[0], 10 ** robust[1]] : robust),
      };
    }
    const range = this._rangeMemo.range;
    if (!range) return fallback();
    // A little room so the bulk does not touch the edges; log y keeps it
    // in decades' proportion.
    if (log) return [range[0] / 1.05, range[1] * 1.05];
    const pad = (range[1] - range[0]) * 0.02;
    return [range[0] - pad, range[1] + pad];
  }

  /** Draws the hovered series bold on the overlay canvas (or clears it). */
  _drawHighlight() {
    const u = this._uplot;
    const canvas = this._highlight;
    if (!u || !canvas) return;
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
    const hovered = this._hovered;
    const slot = hovered
      ? this._slots.find((s) => s.key === hovered.slot.key)
      : undefined;
    // Out of the layout tree when unused: nothing to composite.
    canvas.hidden = !hovered || !this._pointerIn || !slot || !this._isVisible(slot);
    if (canvas.hidden || !hovered || !slot) return;
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
    const v = u.data[slot.index][hovered.row];
    if (v != null) {
      const px = u.valToPos(u.data[0][hovered.row], "x", true) - left;
      const py = Math.min(
        Math.max(u.valToPos(v, "y", true) - top, 0),
        height,
      );
      ctx.setLineDash([]);
      ctx.fillStyle = slot.color;
      ctx.beginPath();
      ctx.arc(px, py, 4 * ratio, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.restore();
  }

  /**
   * Joins the series on x into uPlot's columnar data.
   * @param {ChartSeries[]} input
   * @returns {{data: uPlot.AlignedData, slots: SeriesSlot[]}}
   */
  _layout(input) {
    const logY = this.logY;
    /** @type {uPlot.AlignedData[]} */
    const tables = [];
    /** @type {number[][]} */
    const nullModes = [];
    /** @type {SeriesSlot[]} */
    const slots = [];
    let column = 1;
    for (const spec of input) {
      // Plain arrays or typed arrays alike (model.js may decode compact
      // payloads into Float64Array).
      const x = Array.from(spec.x, Number);
      const columns = [cleanValues(spec.y, x.length, logY)];
      const hasBand = spec.yMin != null && spec.yMax != null;
      if (hasBand) {
        columns.push(
          cleanValues(/** @type {any} */ (spec.yMax), x.length, logY),
        );
        columns.push(
          cleanValues(/** @type {any} */ (spec.yMin), x.length, logY),
        );
      }
      tables.push(/** @type {uPlot.AlignedData} */ ([x, ...columns]));
      // Retain explicit nulls as gaps; alignment holes stay undefined and
      // are spanned, so a run with sparser steps still draws one line.
      nullModes.push([0, ...columns.map(() => 1)]);
      const style = spec.color
        ? { color: spec.color, dash: null }
        : styleFor(spec.run ?? spec.label);
      slots.push({
        spec,
        key: seriesKey(spec),
        color: style.color,
        dash: spec.dash ?? style.dash,
        index: column,
        upper: hasBand ? column + 1 : null,
        lower: hasBand ? column + 2 : null,
        markers: spec.markers === false ? [] : findMarkers(x, spec.y),
        ownX: x,
        ownY: columns[0],
      });
      column += columns.length;
    }
    const data =
      tables.length === 0
        ? /** @type {uPlot.AlignedData} */ ([[]])
        : tables.length === 1
          ? tables[0]
          : uPlot.join(tables, /** @type {any} */ (nullModes));
    return { data, slots };
  }

  // Legend, tooltip, empty state.

  _renderLegend() {
    const show = this._options.legend !== false;
    this._legend.hidden = !show;
    if (!show) return;
    const listed = this._slots.filter((slot) => slot.spec.legend !== false);
    // Many entries: columns in a box of a few lines that scrolls, notes in
    // the entry's tooltip, so the legend never pushes the chart away.
    const compact = listed.length > MANY_SERIES;
    this._legend.classList.toggle("is-compact", compact);
    this._legend.replaceChildren(
      ...listed.map((slot) => {
          const hidden = this._hidden.has(slot.key);
          return h(
            "button",
            {
              className: `tbmf-chart__legend-item${hidden ? " is-off" : ""}`,
              title:
                (compact
                  ? `${slot.spec.label}${slot.spec.note ? ` (${slot.spec.note})` : ""}\n`
                  : "") + (hidden ? "Show this series" : "Hide this series"),
              attrs: {
                type: "button",
                role: "listitem",
                "aria-pressed": String(!hidden),
              },
              dataset: { key: slot.key },
              on: {
                click: (event) => {
                  markInput("legend", event);
                  // Read now: the entry is updated in place, not rebuilt.
                  this.setSeriesVisible(slot.key, this._hidden.has(slot.key));
                },
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
   * Flips one legend entry in place (rebuilding 50 entries for one click
   * costs a layout of all of them).
   * @param {string} key
   */
  _updateLegendItem(key) {
    const item = [...this._legend.children].find(
      (child) => /** @type {HTMLElement} */ (child).dataset.key === key,
    );
    if (!item) {
      this._renderLegend();
      return;
    }
    const hidden = this._hidden.has(key);
    item.classList.toggle("is-off", hidden);
    item.setAttribute("aria-pressed", String(!hidden));
    const action = hidden ? "Show this series" : "Hide this series";
    const title = /** @type {HTMLElement} */ (item).title;
    /** @type {HTMLElement} */ (item).title = title.includes("\n")
      ? `${title.slice(0, title.lastIndexOf("\n"))}\n${action}`
      : action;
  }

  _renderEmpty() {
    const u = this._uplot;
    const hasData =
      u !== null &&
      this._slots.some((slot) => u.data[slot.index]?.some((v) => v != null));
    this._empty.hidden = hasData;
    this._empty.textContent = hasData
      ? ""
      : (this._options.emptyText ?? "No data");
  }

  _hideTooltip() {
    this._tip.hide();
    if (this._hovered) {
      this._hovered = null;
      this._drawHighlight();
    }
  }

  _renderTooltip() {
    const u = this._uplot;
    if (!u || this._options.tooltip === false || !this._pointerIn) {
      this._hideTooltip();
      return;
    }
    /** @type {Map<string, SeriesSlot>} */
    const linked = new Map();
    for (const slot of this._slots) {
      if (slot.spec.linkedTo && this._isVisible(slot)) {
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
    const slots = this._slots
      .filter((slot) => slot.spec.legend !== false && this._isVisible(slot))
      .map((slot) => {
        const raw = linked.get(slot.key);
        return { ...tipSlot(slot), linked: raw ? tipSlot(raw) : null };
      });
    const hovered = this._tip.render({
      u,
      slots,
      xLabel: this._options.xLabel ?? "x",
      formatX: this._options.formatX ?? defaultFormatX(this._options.xType),
      formatY: this._options.formatY ?? formatValue,
      maxRows: this._options.tooltipRows ?? tooltipRows(),
    });
    const before = this._hovered;
    this._hovered = hovered;
    if (
      before?.slot.key !== hovered?.slot.key ||
      before?.row !== hovered?.row
    ) {
      this._drawHighlight();
    }
  }

  _scheduleResize() {
    if (this._resizeFrame !== null) return;
    this._resizeFrame = requestAnimationFrame(() => {
      this._resizeFrame = null;
      const u = this._uplot;
      if (!u || this._destroyed) return;
      fitWidth(u, this._plot, this._options.height ?? DEFAULT_HEIGHT);
    });
  }
}
