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

import uPlot from "../vendor/uplot/uPlot.esm.js";
import { colorForRun, withAlpha } from "../colors.js";
import { ensureStylesheet, h, icon, setChildren } from "../dom.js";
import { formatValue } from "../format.js";
import {
  axisStyle,
  fitAxisSize,
  fitWidth,
  watchSizeAndTheme,
} from "./plotkit.js";

ensureStylesheet(new URL("../vendor/uplot/uPlot.min.css", import.meta.url));

/** Plot height in CSS pixels when the options give none. */
export const DEFAULT_HEIGHT = 240;
/** Most series rows a tooltip lists before summarising the rest. */
export const MAX_TOOLTIP_ROWS = 20;
/** Opacity of a min/max band's fill. */
const BAND_ALPHA = 0.18;
/** Class of the hidden series that carry band edges (no cursor points). */
const BAND_CLASS = "tbmf-band-edge";
/** Size of a non-finite value's marker, in CSS pixels. */
const MARKER_SIZE = 5;
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
 * @property {(u: uPlot) => void} [onDraw] called after every redraw (zoom,
 *     resize, new data), to draw over the plot (e.g. anomaly markers)
 */

/**
 * @typedef {Object} Marker a non-finite value, drawn at the plot's edge
 * @property {number} x
 * @property {'nan' | 'inf' | '-inf'} kind

/**
 * @typedef {Object} SeriesSlot where an input series lives in uPlot's data
 * @property {ChartSeries} spec
 * @property {string} key
 * @property {string} color
 * @property {number} index its line
 * @property {number | null} upper band upper edge
 * @property {number | null} lower band lower edge
 * @property {Marker[]} markers
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
    this._tooltip = h("div", {
      className: "tbmf-chart__tooltip",
      attrs: { role: "tooltip", hidden: true },
    });
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
      index: slot.index,
      upper: slot.upper,
      lower: slot.lower,
      markers: slot.markers,
    }));
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
      Object.keys(options).every(
        (key) => key === "series" || key === "xRange",
      ) && sameKeys(previous.series, this._options.series);
    if (onlyData && this._uplot) {
      const { data, slots } = this._layout(this._options.series);
      // Same keys, so the same columns: only the specs (labels, notes) and
      // markers move.
      this._slots = slots;
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
    const u = this._uplot;
    if (u) {
      for (const slot of this._slots) {
        if (slot.key !== key && slot.spec.linkedTo !== key) continue;
        const visible = this._isVisible(slot);
        for (const index of [slot.index, slot.upper, slot.lower]) {
          if (index !== null) u.setSeries(index, { show: visible });
        }
      }
    }
    this._renderLegend();
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

    /** @type {uPlot.Series[]} */
    const series = [{ label: options.xLabel ?? "x" }];
    /** @type {uPlot.Band[]} */
    const bands = [];
    for (const slot of slots) {
      const visible = this._isVisible(slot);
      series[slot.index] = {
        label: slot.spec.label,
        stroke: slot.color,
        width: slot.spec.width ?? 1.5,
        dash: slot.spec.dash,
        alpha: slot.spec.alpha,
        show: visible,
        spanGaps: false,
        points: {
          show: pointsShow,
          size: 5,
          width: 1,
          fill: slot.color,
        },
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
      focus: { alpha: 0.35 },
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
        focus: { prox: 24 },
        points: { size: 7, width: 2 },
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
        y: this.logY ? { distr: 3, log: 10 } : { distr: 1 },
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
        draw: [
          (u) => {
            this._drawMarkers(u);
            this._options.onDraw?.(u);
          },
        ],
      },
    };
    this._uplot = new uPlot(opts, data, this._plot);
    this._uplot.over.addEventListener("mouseleave", () => this._hideTooltip());
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
   * Marks non-finite values: ▲ at the top for +Inf, ▼ at the bottom for
   * −Inf, a hollow circle at the top for NaN, in the series' colour.
   * @param {uPlot} u
   */
  _drawMarkers(u) {
    const { ctx } = u;
    const { left, top, width, height } = u.bbox;
    const size = MARKER_SIZE * devicePixelRatio;
    const xScale = u.scales.x;
    ctx.save();
    ctx.lineWidth = 1.5 * devicePixelRatio;
    for (const slot of this._slots) {
      if (slot.markers.length === 0 || !this._isVisible(slot)) continue;
      ctx.fillStyle = slot.color;
      ctx.strokeStyle = slot.color;
      for (const marker of slot.markers) {
        if (
          xScale.min == null ||
          xScale.max == null ||
          marker.x < xScale.min ||
          marker.x > xScale.max
        ) {
          continue;
        }
        const cx = u.valToPos(marker.x, "x", true);
        if (cx < left - 1 || cx > left + width + 1) continue;
        ctx.beginPath();
        if (marker.kind === "inf") {
          const y = top + 1;
          ctx.moveTo(cx, y);
          ctx.lineTo(cx - size, y + 1.6 * size);
          ctx.lineTo(cx + size, y + 1.6 * size);
          ctx.closePath();
          ctx.fill();
        } else if (marker.kind === "-inf") {
          const y = top + height - 1;
          ctx.moveTo(cx, y);
          ctx.lineTo(cx - size, y - 1.6 * size);
          ctx.lineTo(cx + size, y - 1.6 * size);
          ctx.closePath();
          ctx.fill();
        } else {
          ctx.arc(cx, top + size + 2, size * 0.8, 0, 2 * Math.PI);
          ctx.stroke();
        }
      }
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
      slots.push({
        spec,
        key: seriesKey(spec),
        color: spec.color ?? colorForRun(spec.run ?? spec.label),
        index: column,
        upper: hasBand ? column + 1 : null,
        lower: hasBand ? column + 2 : null,
        markers: spec.markers === false ? [] : findMarkers(x, spec.y),
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
    this._legend.replaceChildren(
      ...this._slots
        .filter((slot) => slot.spec.legend !== false)
        .map((slot) => {
          const hidden = this._hidden.has(slot.key);
          return h(
            "button",
            {
              className: `tbmf-chart__legend-item${hidden ? " is-off" : ""}`,
              title: hidden ? "Show this series" : "Hide this series",
              attrs: {
                type: "button",
                role: "listitem",
                "aria-pressed": String(!hidden),
              },
              dataset: { key: slot.key },
              on: { click: () => this.setSeriesVisible(slot.key, hidden) },
            },
            h("span", {
              className: "tbmf-chart__swatch",
              style: swatchStyle(slot),
            }),
            h("span", {
              className: "tbmf-chart__label",
              text: slot.spec.label,
            }),
            slot.spec.note
              ? h("span", {
                  className: "tbmf-chart__note",
                  text: slot.spec.note,
                })
              : null,
          );
        }),
    );
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
    this._tooltip.hidden = true;
  }

  _renderTooltip() {
    const u = this._uplot;
    if (!u || this._options.tooltip === false) return;
    const idx = u.cursor.idx;
    if (idx == null || u.cursor.left == null || u.cursor.left < 0) {
      this._hideTooltip();
      return;
    }
    const formatX =
      this._options.formatX ?? defaultFormatX(this._options.xType);
    const formatY = this._options.formatY ?? formatValue;
    const xs = /** @type {number[]} */ (u.data[0]);
    const hoveredX = xs[idx];
    const rows = [];
    /** @param {SeriesSlot} slot @param {number | null} seriesIdx */
    const valueText = (slot, seriesIdx) => {
      if (seriesIdx == null) return "—";
      const value = u.data[slot.index][seriesIdx];
      if (value != null) return formatY(value);
      const marker = slot.markers.find((m) => m.x === xs[seriesIdx]);
      return marker ? MARKER_TEXT[marker.kind] : "—";
    };
    for (const slot of this._slots) {
      if (slot.spec.legend === false || !this._isVisible(slot)) continue;
      const seriesIdx = u.cursor.idxs?.[slot.index] ?? idx;
      const atX = seriesIdx == null ? null : xs[seriesIdx];
      const linked = this._slots.find(
        (other) => other.spec.linkedTo === slot.key && other !== slot,
      );
      const linkedIdx = linked ? (u.cursor.idxs?.[linked.index] ?? idx) : null;
      rows.push(
        h(
          "div",
          {
            className: "tbmf-chart__tooltip-row",
            dataset: { key: slot.key },
          },
          h("span", {
            className: "tbmf-chart__swatch",
            style: { "--swatch": slot.color },
          }),
          h("span", { className: "tbmf-chart__label", text: slot.spec.label }),
          h("span", {
            className: "tbmf-chart__value",
            text: valueText(slot, seriesIdx),
          }),
          linked
            ? h("span", {
                className: "tbmf-chart__raw",
                title: "Value as logged (before smoothing)",
                text: valueText(linked, linkedIdx),
              })
            : null,
          atX != null && atX !== hoveredX
            ? h("span", {
                className: "tbmf-chart__at",
                text: `@ ${formatX(atX)}`,
              })
            : null,
        ),
      );
    }
    if (rows.length === 0) {
      this._hideTooltip();
      return;
    }
    const extra = rows.length - MAX_TOOLTIP_ROWS;
    setChildren(
      this._tooltip,
      h("div", {
        className: "tbmf-chart__tooltip-head",
        text: `${this._options.xLabel ?? "x"} ${formatX(hoveredX)}`,
      }),
      ...rows.slice(0, MAX_TOOLTIP_ROWS),
      extra > 0
        ? h("div", { className: "tbmf-chart__more", text: `+${extra} more` })
        : null,
    );
    this._tooltip.hidden = false;
    this._placeTooltip(u);
  }

  /** @param {uPlot} u */
  _placeTooltip(u) {
    const box = this.element.getBoundingClientRect();
    const over = u.over.getBoundingClientRect();
    const left = over.left - box.left + (u.cursor.left ?? 0);
    const top = over.top - box.top + (u.cursor.top ?? 0);
    const width = this._tooltip.offsetWidth;
    const height = this._tooltip.offsetHeight;
    const gap = 14;
    let x = left + gap;
    if (x + width > box.width) x = Math.max(0, left - gap - width);
    let y = top + gap;
    if (y + height > box.height) y = Math.max(0, top - gap - height);
    this._tooltip.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
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

/**
 * A legend swatch in the series' colour, dashed like its line.
 * @param {SeriesSlot} slot
 * @returns {Record<string, string>}
 */
function swatchStyle(slot) {
  /** @type {Record<string, string>} */
  const style = { "--swatch": slot.color };
  const dash = slot.spec.dash;
  if (dash && dash.length >= 2) {
    const on = Math.max(1, Math.min(dash[0], 5));
    const off = Math.max(1, Math.min(dash[1], 3));
    style.background = `repeating-linear-gradient(90deg, ${slot.color} 0 ${on}px, transparent ${on}px ${on + off}px)`;
  }
  return style;
}

/** Tooltip text of a non-finite value. */
const MARKER_TEXT = Object.freeze({ nan: "NaN", inf: "+Inf", "-inf": "−Inf" });

/**
 * The non-finite values of a series: numbers (NaN, ±Infinity) or the
 * server's strings ("NaN", "Infinity", "-Infinity").
 * @param {number[]} x
 * @param {ArrayLike<number | string | null>} y
 * @returns {Marker[]}
 */
function findMarkers(x, y) {
  /** @type {Marker[]} */
  const markers = [];
  for (let i = 0; i < x.length; i++) {
    const v = y[i];
    if (v == null || (typeof v === "number" && Number.isFinite(v))) continue;
    const n = Number(v);
    if (Number.isNaN(n)) markers.push({ x: x[i], kind: "nan" });
    else if (n === Infinity) markers.push({ x: x[i], kind: "inf" });
    else if (n === -Infinity) markers.push({ x: x[i], kind: "-inf" });
  }
  return markers;
}

/**
 * @param {ChartSeries} spec
 * @returns {string}
 */
function seriesKey(spec) {
  return spec.key ?? spec.label;
}

/**
 * @param {ChartSeries[]} a
 * @param {ChartSeries[]} b
 * @returns {boolean} whether both list the same series keys and bands
 */
function sameKeys(a, b) {
  if (a.length !== b.length) return false;
  return a.every(
    (spec, i) =>
      seriesKey(spec) === seriesKey(b[i]) &&
      (spec.yMin != null) === (b[i].yMin != null) &&
      spec.color === b[i].color &&
      spec.run === b[i].run &&
      spec.label === b[i].label &&
      spec.linkedTo === b[i].linkedTo &&
      spec.legend === b[i].legend &&
      spec.width === b[i].width &&
      spec.alpha === b[i].alpha &&
      String(spec.dash ?? "") === String(b[i].dash ?? ""),
  );
}

/**
 * Copies values as numbers: anything not finite (NaN, the server's "NaN"
 * strings, ±Infinity) and, on log y, anything not positive becomes `null`.
 * @param {ArrayLike<number | null>} values
 * @param {number} length the x length (missing trailing values are gaps)
 * @param {boolean} logY
 * @returns {(number | null)[]}
 */
function cleanValues(values, length, logY) {
  const out = new Array(length);
  for (let i = 0; i < length; i++) {
    const v = values[i];
    out[i] =
      typeof v === "number" && Number.isFinite(v) && (!logY || v > 0)
        ? v
        : null;
  }
  return out;
}

/**
 * Draws point markers only for sparse series (e.g. one value an epoch).
 * @param {uPlot} u
 * @param {number} seriesIdx
 * @param {number} idx0
 * @param {number} idx1
 * @returns {boolean}
 */
function pointsShow(u, seriesIdx, idx0, idx1) {
  const values = u.data[seriesIdx];
  let count = 0;
  for (let i = idx0; i <= idx1; i++) if (values[i] != null) count++;
  return count > 0 && u.bbox.width / devicePixelRatio / count > 12;
}

/**
 * @param {'number' | 'time' | undefined} xType
 * @returns {(x: number) => string}
 */
function defaultFormatX(xType) {
  if (xType === "time") {
    return (x) => new Date(x * 1000).toLocaleString("en-GB");
  }
  return formatValue;
}
