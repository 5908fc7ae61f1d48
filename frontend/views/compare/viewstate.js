// The Compare view's URL state: its keys (all starting with `c`, so a
// copied link reopens the same view) and how they are read, malformed values
// replaced by their defaults. compare.js and compare/toolbar.js share it.

import { axisInfo, DEFAULT_AXIS } from "./axes.js";
import { clampPoints, DEFAULT_POINTS } from "./panelrequest.js";

/** State keys of this view. */
export const COMPARE_KEYS = Object.freeze({
  metric: "cm", // metric key, e.g. loss/train@batch
  tag: "ct", // raw tag (instead of a metric)
  axis: "cx", // step | epoch | relative | wall | progress
  smoothing: "cs", // 0 ≤ w ≤ MAX_SMOOTHING
  smoothingMode: "csm", // ema | time
  logY: "cl", // "1" for a logarithmic y axis
  baseline: "cb", // run
  diffMode: "cd", // difference | ratio
  zoom: "cz", // "min,max" on the axis
  points: "cp", // buckets a series
  outliers: "co", // "0": y range over every value (default: ignore outliers)
  attempts: "ca", // "all": also a resumed run's superseded points
  batchValues: "cbv", // per_batch | running_mean (default: as logged)
  markers: "cmk", // anomaly markers: off | hovered | all (default: by runs)
});
/** Highest smoothing weight the slider offers. */
export const MAX_SMOOTHING = 0.99;

/**
 * @typedef {Object} CompareState
 * @property {string | null} metric
 * @property {string | null} tag
 * @property {string} axis
 * @property {number} smoothing
 * @property {'ema' | 'time'} smoothingMode
 * @property {boolean} logY
 * @property {string | null} baseline
 * @property {'difference' | 'ratio'} diffMode
 * @property {[number, number] | null} zoom
 * @property {number} points
 * @property {boolean} ignoreOutliers
 * @property {boolean} allAttempts
 * @property {'logged' | 'per_batch' | 'running_mean'} batchValues
 * @property {'off' | 'hovered' | 'all' | null} markers anomaly markers
 *     (null: the default, anomalies.js `markerMode`)
 */

/**
 * Reads this view's state, replacing anything malformed by its default.
 * @param {import("../state.js").AppState} state
 * @returns {CompareState}
 */
export function readCompareState(state) {
  const tag = state.get(COMPARE_KEYS.tag) || null;
  const metric = tag ? null : state.get(COMPARE_KEYS.metric) || null;
  const smoothing = Number(state.get(COMPARE_KEYS.smoothing, "0"));
  const points = Number(state.get(COMPARE_KEYS.points, ""));
  const zoomParts = state
    .get(COMPARE_KEYS.zoom)
    .split(",")
    .map((v) => (v.trim() === "" ? NaN : Number(v)));
  const zoom =
    zoomParts.length === 2 &&
    zoomParts.every(Number.isFinite) &&
    zoomParts[0] < zoomParts[1]
      ? /** @type {[number, number]} */ (zoomParts)
      : null;
  return {
    metric,
    tag,
    axis: axisInfo(state.get(COMPARE_KEYS.axis, DEFAULT_AXIS)).id,
    smoothing:
      Number.isFinite(smoothing) && smoothing > 0
        ? Math.min(smoothing, MAX_SMOOTHING)
        : 0,
    smoothingMode:
      state.get(COMPARE_KEYS.smoothingMode) === "time" ? "time" : "ema",
    logY: state.get(COMPARE_KEYS.logY) === "1",
    baseline: state.get(COMPARE_KEYS.baseline) || null,
    diffMode:
      state.get(COMPARE_KEYS.diffMode) === "ratio" ? "ratio" : "difference",
    zoom,
    points:
      Number.isFinite(points) && points > 0
        ? clampPoints(points)
        : DEFAULT_POINTS,
    ignoreOutliers: state.get(COMPARE_KEYS.outliers) !== "0",
    allAttempts: state.get(COMPARE_KEYS.attempts) === "all",
    batchValues: readBatchValues(state.get(COMPARE_KEYS.batchValues)),
    markers: readMarkers(state.get(COMPARE_KEYS.markers)),
  };
}

/**
 * @param {string} value
 * @returns {'logged' | 'per_batch' | 'running_mean'}
 */
function readBatchValues(value) {
  return value === "per_batch" || value === "running_mean" ? value : "logged";
}

/**
 * @param {string} value
 * @returns {'off' | 'hovered' | 'all' | null}
 */
function readMarkers(value) {
  return value === "off" || value === "hovered" || value === "all"
    ? value
    : null;
}
