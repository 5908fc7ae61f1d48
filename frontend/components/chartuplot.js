// What a chart (components/chart.js) hands to uPlot: its series joined on x
// into columns (one slot per input series), uPlot's series and min/max
// bands, and uPlot's options (cursor, sync, scales, axes, hooks).

import uPlot from "../vendor/uplot/uPlot.esm.js";
import { styleFor, withAlpha } from "../colors.js";
import { findMarkers, windowRobustRange } from "./chartmarks.js";
import { cleanValues, ownPoints, seriesKey, sparse } from "./chartseries.js";
import { axisStyle, fitAxisSize } from "./plotkit.js";

/**
 * @typedef {import("./chartseries.js").ChartSeries} ChartSeries
 * @typedef {import("./chart.js").ChartOptions} ChartOptions
 * @typedef {import("./chartmarks.js").Marker} Marker
 */

/** Plot height in CSS pixels when the options give none. */
export const DEFAULT_HEIGHT = 240;
/** Series beyond which uPlot draws no cursor dots (the hovered one gets
 * its own) and the legend turns compact. */
export const MANY_SERIES = 12;
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
 * Joins the series on x into uPlot's columnar data.
 * @param {ChartSeries[]} input
 * @param {boolean} logY non-positive values are gaps
 * @returns {{data: uPlot.AlignedData, slots: SeriesSlot[]}}
 */
export function layoutSeries(input, logY) {
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
    const x = numbersOf(spec.x);
    const columns = [cleaned(spec.y, x.length, logY)];
    const hasBand = spec.yMin != null && spec.yMax != null;
    if (hasBand) {
      columns.push(cleaned(/** @type {any} */ (spec.yMax), x.length, logY));
      columns.push(cleaned(/** @type {any} */ (spec.yMin), x.length, logY));
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
        : joined(tables, nullModes);
  return { data, slots };
}

// The same answer drawn again (log y flipped back, a cached answer, new
// options around the same data) reuses its columns and their join: with
// 50 series joining is most of a redraw. Keyed by the arrays themselves,
// which nobody changes in place (new data comes as new arrays).

/** @type {WeakMap<object, number[]>} */
const numbersCache = new WeakMap();
/** @type {WeakMap<object, Record<string, (number | null)[]>>} */
const cleanedCache = new WeakMap();
/** @type {{tables: uPlot.AlignedData[], data: uPlot.AlignedData}[]} */
const joins = [];
/** Joins kept (shared by every chart on the page). */
const JOINS_KEPT = 4;

/**
 * @param {ArrayLike<number>} xs
 * @returns {number[]}
 */
function numbersOf(xs) {
  let numbers = numbersCache.get(xs);
  if (!numbers || numbers.length !== xs.length) {
    numbers = Array.from(xs, Number);
    numbersCache.set(xs, numbers);
  }
  return numbers;
}

/**
 * `cleanValues`, once per array, length and scale.
 * @param {ArrayLike<any>} values
 * @param {number} length
 * @param {boolean} logY
 * @returns {(number | null)[]}
 */
function cleaned(values, length, logY) {
  let kept = cleanedCache.get(values);
  if (!kept) {
    kept = {};
    cleanedCache.set(values, kept);
  }
  const key = `${logY}:${length}`;
  return (kept[key] ??= cleanValues(values, length, logY));
}

/**
 * `uPlot.join` of these tables, reused while they are the same arrays.
 * @param {uPlot.AlignedData[]} tables
 * @param {number[][]} nullModes
 * @returns {uPlot.AlignedData}
 */
function joined(tables, nullModes) {
  const same = (/** @type {uPlot.AlignedData[]} */ other) =>
    other.length === tables.length &&
    other.every(
      (table, i) =>
        table.length === tables[i].length &&
        table.every((column, j) => column === tables[i][j]),
    );
  const at = joins.findIndex((entry) => same(entry.tables));
  const entry =
    at >= 0
      ? joins.splice(at, 1)[0]
      : { tables, data: uPlot.join(tables, /** @type {any} */ (nullModes)) };
  joins.push(entry);
  if (joins.length > JOINS_KEPT) joins.shift();
  return entry.data;
}

/**
 * uPlot's series and bands for the slots: a line per series, two hidden
 * edge series and a band per min/max band.
 * @param {SeriesSlot[]} slots
 * @param {{xLabel: string | undefined, formatY: (y: number) => string,
 *     many: boolean, isVisible: (slot: SeriesSlot) => boolean}} how
 * @returns {{series: uPlot.Series[], bands: uPlot.Band[]}}
 */
export function uplotSeries(slots, { xLabel, formatY, many, isVisible }) {
  /** @type {uPlot.Series[]} */
  const series = [{ label: xLabel ?? "x" }];
  /** @type {uPlot.Band[]} */
  const bands = [];
  for (const slot of slots) {
    const visible = isVisible(slot);
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
  return { series, bands };
}

/**
 * uPlot's options for a chart.
 * @param {ChartOptions} options the chart's
 * @param {{width: number, logY: boolean, many: boolean,
 *     series: uPlot.Series[], bands: uPlot.Band[],
 *     formatX: (x: number) => string, formatY: (y: number) => string,
 *     yRange: uPlot.Range.Function, onZoomReset: () => void,
 *     hooks: uPlot.Hooks.Arrays}} parts
 * @returns {uPlot.Options}
 */
export function uplotOptions(options, parts) {
  const { width, logY, many, series, bands, formatX, formatY } = parts;
  const { yRange, onZoomReset, hooks } = parts;
  const axisBase = axisStyle();
  return {
    width,
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
          onZoomReset();
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
        ...(logY ? { distr: 3, log: 10 } : { distr: 1 }),
        range: yRange,
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
    hooks,
  };
}

/** @typedef {Map<string, [number, number] | null>} RangeMemo */

/** Robust ranges a chart keeps (log y on and off, a zoom and its reset). */
const RANGES_KEPT = 4;
/** @type {WeakMap<object, number>} */
const dataIds = new WeakMap();
let lastDataId = 0;

/**
 * A number for this data table, the same as long as it is the same table.
 * @param {object} data
 * @returns {number}
 */
export function dataId(data) {
  let id = dataIds.get(data);
  if (id === undefined) {
    id = ++lastDataId;
    dataIds.set(data, id);
  }
  return id;
}

/**
 * A chart's y range: uPlot's own, or (`robust`, "ignore outliers") the
 * robust range of the visible values in the x window with a little room
 * so the bulk does not touch the edges (log y: in decades' proportion),
 * memoised per `version` (the data and the series shown), window and
 * scale.
 * @param {uPlot} u
 * @param {number} min
 * @param {number} max
 * @param {{log: boolean, robust: boolean, memo: RangeMemo,
 *     version: string, visible: () => SeriesSlot[]}} how
 * @returns {uPlot.Range.MinMax}
 */
export function yRangeOf(u, min, max, { log, robust, memo, version, visible }) {
  const own = () =>
    log ? uPlot.rangeLog(min, max, 10, true) : uPlot.rangeNum(min, max, 0.1, true);
  if (!robust || min == null || max == null) return own();
  const xs = /** @type {number[]} */ (u.data[0]);
  const xMin = u.scales.x.min ?? xs[0];
  const xMax = u.scales.x.max ?? xs[xs.length - 1];
  const key = `${version}:${xMin}:${xMax}:${log}:${min}:${max}`;
  let range = memo.get(key);
  if (range === undefined) {
    range = windowRobustRange(visible(), xMin, xMax, min, max, log);
  }
  memo.delete(key);
  memo.set(key, range);
  for (const oldest of memo.keys()) {
    if (memo.size <= RANGES_KEPT) break;
    memo.delete(oldest);
  }
  if (!range) return own();
  if (log) return [range[0] / 1.05, range[1] * 1.05];
  const pad = (range[1] - range[0]) * 0.02;
  return [range[0] - pad, range[1] + pad];
}

/**
 * Fits the x scale to the data (a window taken away without new data).
 * @param {uPlot} u
 */
export function fitX(u) {
  const xs = u.data[0];
  if (!xs || xs.length === 0) return;
  const min = /** @type {number} */ (xs[0]);
  const max = /** @type {number} */ (xs[xs.length - 1]);
  if (min < max) u.setScale("x", { min, max });
}

/**
 * A y range with the user's ends where given (usable on this scale).
 * @param {[number | null, number | null]} fixed
 * @param {any} fitted [min, max] uPlot would use
 * @param {boolean} log
 * @returns {uPlot.Range.MinMax}
 */
export function fixedRange([lo, hi], fitted, log) {
  const usable = (/** @type {number | null} */ v) =>
    v != null && Number.isFinite(v) && (!log || v > 0);
  const range = [usable(lo) ? lo : fitted[0], usable(hi) ? hi : fitted[1]];
  return range[0] < range[1] ? range : fitted;
}
