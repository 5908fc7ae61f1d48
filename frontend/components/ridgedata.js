// What a ridge chart draws, worked out without the DOM: each logged
// histogram resampled onto one grid over the value range (its shares of the
// total, scaled so the tallest bucket of all is 1), at most MAX_RIDGE_LINES
// of them, and round tick values for the value axis.

/** Buckets a ridge line is resampled onto (TensorBoard's offset view: 30). */
export const RIDGE_BUCKETS = 40;
/** Most histograms a ridge chart draws; more are thinned evenly. */
export const MAX_RIDGE_LINES = 120;

/**
 * @typedef {Object} RidgeEntry one logged histogram
 * @property {number} step
 * @property {number | null} x position on the chosen axis (null: none)
 * @property {ArrayLike<number>} edges
 * @property {ArrayLike<number>} counts
 *
 * @typedef {Object} RidgeLine a histogram resampled for drawing
 * @property {number} index into the entries
 * @property {number} offset vertical position value
 * @property {number[]} density per bucket of the ridge grid, 0..1
 *
 * @typedef {Object} PreparedRidge
 * @property {RidgeLine[]} lines ordered by offset, oldest first
 * @property {[number, number]} range value range drawn
 * @property {boolean} byX lines are placed by `x` (else by step)
 * @property {[number, number]} offsetRange smallest and largest offset
 */

/**
 * Resamples every entry onto one grid over the value range.
 * @param {RidgeEntry[]} entries in any order
 * @param {[number, number] | null | undefined} xRange value range to draw
 *     (default: the entries' own)
 * @param {number | null | undefined} highlight an entry index that thinning
 *     keeps
 * @returns {PreparedRidge}
 */
export function prepareRidge(entries, xRange, highlight) {
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
    byX ? /** @type {number} */ (entries[i].x) : Number(entries[i].step);
  usable.sort((a, b) => offsetOf(a.index) - offsetOf(b.index));
  const thinned = thin(usable, MAX_RIDGE_LINES, highlight);

  let lo = Infinity;
  let hi = -Infinity;
  for (const u of thinned) {
    lo = Math.min(lo, u.edges[0]);
    hi = Math.max(hi, u.edges[u.edges.length - 1]);
  }
  if (xRange && xRange[1] > xRange[0]) [lo, hi] = xRange;
  if (!(hi > lo)) {
    const mid = Number.isFinite(lo) ? lo : 0;
    [lo, hi] = [mid - 0.5, mid + 0.5];
  }
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
  const offsets = lines.map((l) => l.offset);
  /** @type {[number, number]} */
  const offsetRange =
    offsets.length > 0 ? [Math.min(...offsets), Math.max(...offsets)] : [0, 1];
  return { lines, range: [lo, hi], byX, offsetRange };
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
 * @param {unknown} value
 * @returns {value is number}
 */
function isFiniteNumber(value) {
  return typeof value === "number" && Number.isFinite(value);
}
