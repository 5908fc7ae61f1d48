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
import { ensureStylesheet, h, icon } from "../dom.js";
import { formatValue } from "../format.js";
import { t } from "../i18n.js";
import { markInput } from "../perf.js";
import { tooltipRows } from "../prefs.js";
import {
  labelPlot,
  legendSignature,
  renderLegend,
  updateLegendItem,
} from "./chartlegend.js";
import {
  drawClipped,
  drawMarkers,
  findClipped,
} from "./chartmarks.js";
import {
  DATA_OPTIONS,
  defaultFormatX,
  exactFormatX,
  sameKeys,
  seriesKey,
} from "./chartseries.js";
import { ChartTooltip, drawHighlight, tooltipSlots } from "./charttooltip.js";
import {
  dataId,
  DEFAULT_HEIGHT,
  fitX,
  fixedRange,
  layoutSeries,
  MANY_SERIES,
  uplotOptions,
  uplotSeries,
  yRangeOf,
} from "./chartuplot.js";
import { fitWidth, watchSizeAndTheme } from "./plotkit.js";

ensureStylesheet(new URL("../vendor/uplot/uPlot.min.css", import.meta.url));

export { DEFAULT_HEIGHT } from "./chartuplot.js";
/** Most series rows a tooltip lists when the options cap it (compat). */
export const MAX_TOOLTIP_ROWS = 20;
/** Narrowest drag, in CSS pixels, taken as a zoom (not a stray click). */
const MIN_ZOOM_DRAG_PX = 3;

/**
 * @typedef {import("./chartseries.js").ChartSeries} ChartSeries
 * @typedef {import("./chartoptions.js").ChartOptions} ChartOptions
 */

/**
 * @typedef {import("./chartmarks.js").Marker} Marker
 * @typedef {import("./chartmarks.js").ClippedPoint} ClippedPoint
 */

/** @typedef {import("./chartuplot.js").SeriesSlot} SeriesSlot */

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
        title: t("chartui.logY.help"),
        attrs: { type: "button", "aria-pressed": "false" },
        on: { click: () => this.setLogY(!this.logY) },
      },
      icon("logScale", { size: 16 }),
      h("span", { text: t("cmp.logY") }),
    );
    this._header = h(
      "div",
      { className: "tbmf-chart__header" },
      this._title,
      h("div", { className: "tbmf-chart__tools" }, this._logButton),
    );
    // Focusable and named (labelPlot), so keyboard users reach the chart.
    this._plot = h("div", {
      className: "tbmf-chart__plot",
      attrs: { tabindex: "0", role: "figure" },
    });
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
    /** @type {import("./chartuplot.js").RangeMemo} */
    this._rangeMemo = new Map();
    /** What the legend's entries show (legendSignature), as rendered. */
    this._legendSignature = "";
    this._legend = h("div", {
      className: "tbmf-chart__legend",
      attrs: { role: "group", "aria-label": t("chartui.legend") },
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
    /** @type {number | null} the plot's width as observed (a rebuild
     * reading clientWidth forced a layout after the lists changed) */
    this._plotWidth = null;
    this._unwatch = watchSizeAndTheme(
      this._plot,
      (/** @type {ResizeObserverEntry[]} */ entries) => {
        const box = entries?.[0]?.contentRect;
        if (box) this._plotWidth = Math.round(box.width);
        this._scheduleResize();
      },
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
    const keys = Object.keys(options);
    if (this._uplot && keys.length === 1 && keys[0] === "xRange") {
      // Only the window: the same data, another x scale (no new layout).
      if (this._options.xRange) this._applyXRange();
      else fitX(this._uplot);
      return;
    }
    const onlyData =
      Object.keys(options).every((key) => DATA_OPTIONS.has(key)) &&
      sameKeys(previous.series, this._options.series);
    if (onlyData && this._uplot) {
      const { data, slots } = layoutSeries(this._options.series, this.logY);
      // Same keys, so the same columns: only the specs (labels, notes) and
      // markers move. setData ranges y again (outliers on or off).
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
      // One redraw for all of it; uPlot ranges y again over the series
      // shown (the robust range too: its memo knows the hidden series).
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
    const { data, slots } = layoutSeries(options.series, this.logY);
    this._slots = slots;

    this._title.textContent = options.title ?? "";
    const showLogToggle = options.logYToggle !== false;
    this._logButton.hidden = !showLogToggle;
    this._logButton.setAttribute("aria-pressed", String(this.logY));
    this._logButton.classList.toggle("is-on", this.logY);
    this._header.hidden = !options.title && !showLogToggle;

    const formatX = options.formatX ?? defaultFormatX(options.xType);
    const formatY = options.formatY ?? formatValue;
    const many = slots.length > MANY_SERIES;

    const { series, bands } = uplotSeries(slots, {
      xLabel: options.xLabel,
      formatY,
      many,
      isVisible: (slot) => this._isVisible(slot),
    });

    const opts = uplotOptions(options, {
      width: Math.max(this._plotWidth ?? this._plot.clientWidth, 100),
      logY: this.logY,
      many,
      series,
      bands,
      formatX,
      formatY,
      yRange: (u, min, max) => this._yRange(u, min, max),
      onZoomReset: () => this._options.onZoomReset?.(),
      hooks: {
        setCursor: [() => this._renderTooltip()],
        setSize: [() => this._hideTooltip()],
        setSelect: [(u) => this._onSelect(u)],
        draw: [(u) => this._afterDraw(u)],
      },
    });
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
   * of the values drawn in the x window (chartuplot.js `yRangeOf`).
   * @param {uPlot} u
   * @param {number} min
   * @param {number} max
   * @returns {uPlot.Range.MinMax}
   */
  _yRange(u, min, max) {
    const fixed = this._options.yRange;
    if (fixed) {
      const fitted = this.logY
        ? uPlot.rangeLog(min, max, 10, true)
        : uPlot.rangeNum(min, max, 0.1, true);
      return fixedRange(fixed, fitted, this.logY);
    }
    return yRangeOf(u, min, max, {
      log: this.logY,
      robust: Boolean(this._options.ignoreOutliers),
      memo: this._rangeMemo,
      // The same table with the same series hidden: the same values.
      version: `${dataId(u.data)}:${[...this._hidden].sort().join("\n")}`,
      visible: () => this._slots.filter((slot) => this._isVisible(slot)),
    });
  }

  /** Draws the hovered series bold on the overlay canvas (or clears it). */
  _drawHighlight() {
    const u = this._uplot;
    const canvas = this._highlight;
    if (!u || !canvas) return;
    const hovered = this._hovered;
    const slot = hovered
      ? this._slots.find((s) => s.key === hovered.slot.key)
      : undefined;
    const show = Boolean(
      hovered && this._pointerIn && slot && this._isVisible(slot),
    );
    drawHighlight(u, canvas, show && slot ? slot : null, hovered?.row ?? 0);
  }

  // Legend, tooltip, empty state.

  _renderLegend() {
    labelPlot(this._plot, this._options, this._slots);
    const show = this._options.legend !== false;
    this._legend.hidden = !show;
    if (!show) return;
    // The same entries as drawn (a log-y flip, new smoothing, a zoom):
    // keep them; rebuilding 50 buttons costs a style and layout pass.
    const signature = legendSignature(this._slots, this._hidden);
    if (signature === this._legendSignature) return;
    this._legendSignature = signature;
    renderLegend(this._legend, this._slots, this._hidden, (key, event) => {
      markInput("legend", event);
      // Read now: the entry is updated in place, not rebuilt.
      this.setSeriesVisible(key, this._hidden.has(key));
    });
  }

  /** @param {string} key flips its legend entry */
  _updateLegendItem(key) {
    if (!updateLegendItem(this._legend, key, this._hidden.has(key))) {
      this._renderLegend();
    } else {
      this._legendSignature = legendSignature(this._slots, this._hidden);
    }
  }

  _renderEmpty() {
    const u = this._uplot;
    const hasData =
      u !== null &&
      this._slots.some((slot) => u.data[slot.index]?.some((v) => v != null));
    this._empty.hidden = hasData;
    this._empty.textContent = hasData
      ? ""
      : (this._options.emptyText ?? t("histchart.noData"));

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
    const slots = tooltipSlots(this._slots, (slot) => this._isVisible(slot));
    const hovered = this._tip.render({
      u,
      slots,
      xLabel: this._options.xLabel ?? "x",
      formatX: exactFormatX(this._options),
      formatY: this._options.formatY ?? formatValue,
      maxRows: this._options.tooltipRows ?? tooltipRows(),
      sort: this._options.tooltipSort,
    });
    const before = this._hovered;
    this._hovered = hovered;
    if (
      before?.slot.key !== hovered?.slot.key ||
      before?.row !== hovered?.row
    ) {
      this._drawHighlight();
    }
    if (before?.slot.key !== hovered?.slot.key) {
      this._options.onHover?.(hovered?.slot.key ?? null);
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
