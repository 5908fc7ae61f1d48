// What a chart draws at its plot's edges: non-finite values (▲ +Inf, ▼ −Inf,
// ○ NaN) and, with "ignore outliers", the points the y range leaves out
// (a chevron at the edge they went past), plus the robust y range itself.
// A spike never disappears: either the y range holds it or a mark shows it.

/** Size of a non-finite value's marker, in CSS pixels. */
const MARKER_SIZE = 5;
/** Half width of a clipped point's chevron, in CSS pixels. */
const CLIP_SIZE = 4;
/** Percentiles of the drawn values that bound the robust y range. */
export const OUTLIER_QUANTILES = Object.freeze([0.005, 0.995]);
/** Room added on both sides of the percentile range, as a fraction of it. */
export const OUTLIER_MARGIN = 0.1;
/** Fewer drawn values than this: no percentile is meaningful, no clipping. */
const MIN_VALUES_TO_CLIP = 50;

/**
 * @typedef {Object} Marker a non-finite value, drawn at the plot's edge
 * @property {number} x
 * @property {'nan' | 'inf' | '-inf'} kind
 *
 * @typedef {Object} ClippedPoint a point outside the y range
 * @property {string} key the series it belongs to
 * @property {number} x
 * @property {number} y its value
 * @property {'top' | 'bottom'} edge
 */

/** Tooltip text of a non-finite value. */
export const MARKER_TEXT = Object.freeze({
  nan: "NaN",
  inf: "+Inf",
  "-inf": "−Inf",
});

/**
 * The non-finite values of a series: numbers (NaN, ±Infinity) or the
 * server's strings ("NaN", "Infinity", "-Infinity").
 * @param {ArrayLike<number>} x
 * @param {ArrayLike<number | string | null>} y
 * @returns {Marker[]}
 */
export function findMarkers(x, y) {
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
 * Draws the non-finite markers of the visible series.
 * @param {any} u the uPlot instance
 * @param {{color: string, markers: Marker[]}[]} slots visible series
 */
export function drawMarkers(u, slots) {
  const { ctx } = u;
  const { left, top, width, height } = u.bbox;
  const size = MARKER_SIZE * devicePixelRatio;
  const xScale = u.scales.x;
  if (xScale.min == null || xScale.max == null) return;
  ctx.save();
  ctx.lineWidth = 1.5 * devicePixelRatio;
  for (const slot of slots) {
    if (slot.markers.length === 0) continue;
    ctx.fillStyle = slot.color;
    ctx.strokeStyle = slot.color;
    for (const marker of slot.markers) {
      if (marker.x < xScale.min || marker.x > xScale.max) continue;
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
 * The q-quantile of sorted values (linear between neighbours, as numpy's
 * default).
 * @param {Float64Array} sorted
 * @param {number} q 0..1
 * @returns {number}
 */
export function quantile(sorted, q) {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

/**
 * The y range that follows the bulk of the values: the 0.5–99.5 percentile
 * range widened by 10 % on each side, but never wider than the data. Null
 * when nothing needs clipping (the caller keeps its usual range).
 * @param {Float64Array} values finite values drawn (log10 of them on log y)
 * @param {number} dataMin
 * @param {number} dataMax
 * @returns {[number, number] | null}
 */
export function robustRange(values, dataMin, dataMax) {
  if (values.length < MIN_VALUES_TO_CLIP) return null;
  const sorted = values.slice().sort();
  const lo = quantile(sorted, OUTLIER_QUANTILES[0]);
  const hi = quantile(sorted, OUTLIER_QUANTILES[1]);
  const span = hi - lo || Math.abs(hi) * 0.1 || 1;
  const min = Math.max(dataMin, lo - OUTLIER_MARGIN * span);
  const max = Math.min(dataMax, hi + OUTLIER_MARGIN * span);
  if (min <= dataMin && max >= dataMax) return null;
  return [min, max];
}

/**
 * The points of the visible series outside the y scale, within the x
 * window, read from each series' own points.
 * @param {any} u the uPlot instance
 * @param {{key: string, xs: ArrayLike<number>,
 *     ys: ArrayLike<number | null>}[]} slots
 * @returns {ClippedPoint[]}
 */
export function findClipped(u, slots) {
  const { min: yMin, max: yMax } = u.scales.y;
  const { min: xMin, max: xMax } = u.scales.x;
  if (yMin == null || yMax == null || xMin == null || xMax == null) return [];
  /** @type {ClippedPoint[]} */
  const clipped = [];
  for (const slot of slots) {
    const [first, last] = rowWindow(slot.xs, xMin, xMax);
    for (let i = first; i <= last; i++) {
      const v = slot.ys[i];
      if (v == null) continue;
      if (v > yMax) {
        clipped.push({ key: slot.key, x: slot.xs[i], y: v, edge: "top" });
      } else if (v < yMin) {
        clipped.push({ key: slot.key, x: slot.xs[i], y: v, edge: "bottom" });
      }
    }
  }
  return clipped;
}

/**
 * Draws a chevron at the plot's edge for each clipped point (one a pixel
 * column and series), in the series' colour.
 * @param {any} u the uPlot instance
 * @param {ClippedPoint[]} clipped
 * @param {Map<string, string>} colors series key -> colour
 */
export function drawClipped(u, clipped, colors) {
  if (clipped.length === 0) return;
  const { ctx } = u;
  const { top, height } = u.bbox;
  const size = CLIP_SIZE * devicePixelRatio;
  // One path a colour (one stroke each: strokes are what costs).
  /** @type {Map<string, Path2D>} */
  const paths = new Map();
  const seen = new Set();
  for (const point of clipped) {
    const cx = Math.round(u.valToPos(point.x, "x", true));
    const id = `${point.key}\n${point.edge}\n${cx}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const color = colors.get(point.key) ?? "#888";
    let path = paths.get(color);
    if (!path) {
      path = new Path2D();
      paths.set(color, path);
    }
    if (point.edge === "top") {
      const y = top + 1.5 * devicePixelRatio;
      path.moveTo(cx - size, y + size);
      path.lineTo(cx, y);
      path.lineTo(cx + size, y + size);
    } else {
      const y = top + height - 1.5 * devicePixelRatio;
      path.moveTo(cx - size, y - size);
      path.lineTo(cx, y);
      path.lineTo(cx + size, y - size);
    }
  }
  ctx.save();
  ctx.lineWidth = 1.75 * devicePixelRatio;
  ctx.lineJoin = "round";
  for (const [color, path] of paths) {
    ctx.strokeStyle = color;
    ctx.stroke(path);
  }
  ctx.restore();
}

/**
 * First and last row whose x lies in [min, max] (binary search on the
 * ascending x column).
 * @param {ArrayLike<number>} xs
 * @param {number} min
 * @param {number} max
 * @returns {[number, number]} last < first when none
 */
export function rowWindow(xs, min, max) {
  return [lowerBound(xs, min), lowerBound(xs, max, true) - 1];
}

/**
 * @param {ArrayLike<number>} xs ascending
 * @param {number} value
 * @param {boolean} [after] first index with x > value (else x >= value)
 * @returns {number}
 */
export function lowerBound(xs, value, after = false) {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (after ? xs[mid] <= value : xs[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The robust y range ("ignore outliers") of the values the series draw in
 * the x window, or null when there is none.
 * @param {{ownX: number[], ownY: (number | null)[]}[]} series
 * @param {number} xMin
 * @param {number} xMax
 * @param {number} min uPlot's y data range
 * @param {number} max
 * @param {boolean} log y is logarithmic: the range is taken on log10
 * @returns {[number, number] | null}
 */
export function windowRobustRange(series, xMin, xMax, min, max, log) {
  /** @type {number[]} */
  const values = [];
  for (const slot of series) {
    const [first, last] = rowWindow(slot.ownX, xMin, xMax);
    for (let i = first; i <= last; i++) {
      const v = slot.ownY[i];
      if (v != null) values.push(log ? Math.log10(v) : v);
    }
  }
  const lo = log ? Math.log10(min) : min;
  const hi = log ? Math.log10(max) : max;
  const robust = robustRange(Float64Array.from(values), lo, hi);
  return robust && (log ? [10 ** robust[0], 10 ** robust[1]] : robust);
}
