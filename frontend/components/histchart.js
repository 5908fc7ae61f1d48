// Histogram charts on uPlot: buckets on explicit edges drawn as bars, as
// filled steps (two may overlap) or as signed difference bars, with the
// bucket under the cursor outlined and a tooltip of its rows.
//
//   const chart = createHistChart(container, {
//     title: "A", edges, yRange: [0, 120], syncKey: "hist",
//     series: [{key: "a", label: "pytorch_sgd", color, values, kind: "bars"}],
//   });
//   chart.update({series, edges});  chart.destroy();
//
// Bars are drawn from the edges themselves (histdraw.js), so uneven buckets
// and the ends of the range are exact. What a chart draws is readable from
// its element (`element.histChartData`) for tests and for anyone scripting
// the page. The ridge chart of one run's histograms over training is
// ridgechart.js.

import uPlot from "../vendor/uplot/uPlot.esm.js";
import { withAlpha } from "../colors.js";
import { ensureStylesheet, h, setChildren } from "../dom.js";
import { formatValue } from "../format.js";
import { t } from "../i18n.js";
import { placeTooltip } from "./charttooltip.js";
import { barPath, drawZeroLine, stepPath } from "./histdraw.js";
import {
  axisStyle,
  fitAxisSize,
  fitWidth,
  watchSizeAndTheme,
} from "./plotkit.js";

ensureStylesheet(new URL("../vendor/uplot/uPlot.min.css", import.meta.url));

/** Plot height in CSS pixels when the options give none. */
export const DEFAULT_HIST_HEIGHT = 200;
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
    // Focusable and named after its title, so keyboard users reach it.
    this._plot = h("div", {
      className: "tbmf-chart__plot",
      attrs: { tabindex: "0", role: "figure" },
    });
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
    const name = this._title.textContent || "Histogram";
    this._plot.setAttribute("aria-label", t("hist.chart.aria", { name }));
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
    const getEdges = () => this._edges;
    /** @type {uPlot.Series[]} */
    const series = [{ label: options.xLabel ?? "x" }];
    for (const spec of options.series) {
      const area = spec.kind === "area";
      series.push({
        label: spec.label,
        stroke: area ? spec.color : "rgba(0,0,0,0)",
        fill: withAlpha(spec.color, area ? AREA_ALPHA : BAR_ALPHA),
        width: area ? 1.5 : 0,
        paths: area ? stepPath(getEdges) : barPath(getEdges),
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

  /** @param {uPlot} u */
  _drawZeroLine(u) {
    if (!this._options.zeroLine) return;
    drawZeroLine(u);
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
      : (this._options.emptyText ?? t("histchart.noData"));
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
        text: t("histchart.range", {
          from: formatX(edges[index]),
          to: formatX(edges[index + 1]),
        }),
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
    // The tooltip is `position: fixed`: window coordinates (the chart's
    // own put it off by the chart's place on a scrolled page).
    const over = u.over.getBoundingClientRect();
    placeTooltip(
      this._tooltip,
      over.left + (u.cursor.left ?? 0),
      over.top + (u.cursor.top ?? 0),
    );
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
