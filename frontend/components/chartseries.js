// Pure helpers of the chart component (components/chart.js): series keys,
// which option changes keep the uPlot instance, values as uPlot draws them,
// and the path builder that draws a series from its own points.

import { rowWindow } from "./chartmarks.js";
import { formatValue } from "../format.js";

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
 * @property {ArrayLike<number | bigint>} [xExact] `x` with every digit
 *     (e.g. steps beyond 2^53 as a BigInt64Array): the tooltip's header
 *     shows them instead of the rounded double (default number x only)
 */

/** @typedef {import("./chartuplot.js").SeriesSlot} SeriesSlot */

/** Options an update may change while keeping the uPlot instance. */
export const DATA_OPTIONS = new Set([
  "series",
  "label",
  "xRange",
  "ignoreOutliers",
  "tooltipRows",
  "onDraw",
]);

/**
 * @param {ChartSeries} spec
 * @returns {string}
 */
export function seriesKey(spec) {
  return spec.key ?? spec.label;
}

/**
 * @param {ChartSeries[]} a
 * @param {ChartSeries[]} b
 * @returns {boolean} whether both list the same series keys and bands
 */
export function sameKeys(a, b) {
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
export function cleanValues(values, length, logY) {
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
 * Point markers only for sparse series (e.g. one value an epoch): more than
 * 12 CSS pixels a point in the x window (counted on the series' own x).
 * @param {SeriesSlot} slot
 * @param {uPlot} u
 * @returns {boolean}
 */
export function sparse(slot, u) {
  const { min, max } = u.scales.x;
  if (min == null || max == null) return false;
  const [first, last] = rowWindow(slot.ownX, min, max);
  const count = last - first + 1;
  return count > 0 && u.bbox.width / devicePixelRatio / count > 12;
}

/**
 * A uPlot path builder that strokes a series from its own points instead of
 * the joined rows: with 50 runs the joined table has ~15 times more rows
 * than any series has points, and uPlot's builder walks them all.
 * @param {SeriesSlot} slot
 * @returns {uPlot.Series.PathBuilder}
 */
export function ownPoints(slot) {
  return (u) => {
    const xs = slot.ownX;
    const ys = slot.ownY;
    const { min, max } = u.scales.x;
    const stroke = new Path2D();
    if (min != null && max != null && xs.length > 0) {
      // One point beyond each edge, so the line reaches the plot's edges.
      const [first, last] = rowWindow(xs, min, max);
      const from = Math.max(0, first - 1);
      const to = Math.min(xs.length - 1, last + 1);
      let pen = false;
      for (let i = from; i <= to; i++) {
        const v = ys[i];
        if (v === null) {
          pen = false;
          continue;
        }
        const px = u.valToPos(xs[i], "x", true);
        const py = u.valToPos(v, "y", true);
        if (pen) stroke.lineTo(px, py);
        else stroke.moveTo(px, py);
        pen = true;
      }
    }
    return /** @type {any} */ ({
      stroke,
      fill: null,
      clip: null,
      band: null,
      gaps: null,
      flags: 0,
    });
  };
}

/**
 * @param {'number' | 'time' | undefined} xType
 * @returns {(x: number) => string}
 */
export function defaultFormatX(xType) {
  if (xType === "time") {
    return (x) => new Date(x * 1000).toLocaleString("en-GB");
  }
  return formatValue;
}

/**
 * The exact x of the points whose double x is beyond 2^53 and that carry
 * a BigInt in `xExact`: double → BigInt, or null when two different
 * BigInts share that double (the cursor cannot tell them apart).
 * @param {ChartSeries[]} series
 * @returns {Map<number, bigint | null>}
 */
export function exactXs(series) {
  /** @type {Map<number, bigint | null>} */
  const exact = new Map();
  for (const spec of series) {
    const digits = spec.xExact;
    // Only int64 arrays hold values a double may not: skip the rest fast.
    if (!(digits instanceof BigInt64Array)) continue;
    const n = Math.min(digits.length, spec.x.length);
    for (let i = 0; i < n; i++) {
      const x = Number(spec.x[i]);
      if (Math.abs(x) <= Number.MAX_SAFE_INTEGER) continue;
      const had = exact.get(x);
      if (had === undefined) exact.set(x, digits[i]);
      else if (had !== null && had !== digits[i]) exact.set(x, null);
    }
  }
  return exact;
}

/** @type {WeakMap<ChartSeries[], Map<number, bigint | null>>} */
const exactOf = new WeakMap();

/**
 * The tooltip's x text: the chart's `formatX`, but with the default format
 * a double beyond 2^53 that stands for an exact x (`xExact`) shows every
 * digit instead of "≈…".
 * @param {{series: ChartSeries[], formatX?: (x: number) => string,
 *     xType?: string}} options the chart's
 * @returns {(x: number) => string}
 */
export function exactFormatX(options) {
  const formatX = options.formatX ?? defaultFormatX(options.xType);
  if (options.formatX || options.xType === "time") return formatX;
  let map = exactOf.get(options.series);
  if (!map) {
    map = exactXs(options.series);
    exactOf.set(options.series, map);
  }
  if (map.size === 0) return formatX;
  const exact = map;
  return (x) => {
    const digits = exact.get(x);
    return digits != null ? formatValue(digits) : formatX(x);
  };
}
