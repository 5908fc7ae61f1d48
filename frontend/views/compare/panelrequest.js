// What a comparison panel asks `GET scalars` for: the arguments of its
// options, the bucket count the route accepts, and zoom windows rounded so
// URLs stay short.

import { axisInfo } from "./axes.js";

/** @typedef {import("./panel.js").PanelOptions} PanelOptions */

/** Buckets a series is downsampled to when the options give none. */
export const DEFAULT_POINTS = 1000;
/** Most buckets the scalars route accepts (its cap). */
export const MAX_POINTS = 20000;
/**
 * The scalars arguments of a panel's options, or null when there is
 * nothing to ask for.
 * @param {PanelOptions} o
 * @returns {Record<string, any> | null}
 */
export function scalarsParams(o) {
  if (!o.runs?.length || (!o.metric && !o.tag)) return null;
  /** @type {Record<string, any>} */
  const params = { run: o.runs };
  if (o.metric) params.metric = o.metric;
  else params.tag = o.tag;
  params.x = axisInfo(o.x ?? "step").id;
  if (o.smoothing && o.smoothing > 0) params.smoothing = o.smoothing;
  if (o.smoothing && o.smoothingMode === "time") {
    params.smoothingMode = "time";
  }
  params.points = clampPoints(o.points);
  if (o.groupBy) {
    params.groupBy = o.groupBy;
    params.aggregate = o.aggregate ?? "mean";
    params.band = o.band ?? "std";
    params.includeSeries = o.showMembers ? "1" : "0";
    if (o.baselineGroup) params.baselineGroup = o.baselineGroup;
  } else if (o.baseline && o.runs.includes(o.baseline)) {
    params.baseline = o.baseline;
    if (o.diffMode === "ratio") params.diffMode = "ratio";
  }
  if (o.xRange) {
    params.xMin = o.xRange[0];
    params.xMax = o.xRange[1];
  }
  if (o.allAttempts) params.attempts = "all";
  if (o.batchValues && o.batchValues !== "logged") {
    params.batchValues = o.batchValues;
  }
  return params;
}

/**
 * A zoom window rounded to 4 significant digits of its width, so URLs stay
 * short (`2.004,2.996`) while the window moves by under 0.1 %.
 * @param {[number, number]} range
 * @returns {[number, number]}
 */
export function roundRange([min, max]) {
  const width = max - min;
  if (!(width > 0)) return [min, max];
  const decimals = Math.min(15, Math.max(0, 3 - Math.floor(Math.log10(width))));
  const factor = 10 ** decimals;
  const lo = Math.floor(min * factor) / factor;
  const hi = Math.ceil(max * factor) / factor;
  return [Number(lo.toFixed(decimals)), Number(hi.toFixed(decimals))];
}

/**
 * @param {number | undefined} points
 * @returns {number} a bucket count the route accepts
 */
export function clampPoints(points) {
  if (points == null || !Number.isFinite(points)) return DEFAULT_POINTS;
  return Math.min(MAX_POINTS, Math.max(1, Math.round(points)));
}

/**
 * The last few answers by request, most recently used kept longest.
 * @template T
 */
export class RecentAnswers {
  /** @param {number} size answers kept at most */
  constructor(size) {
    this._size = size;
    /** @type {Map<string, T>} */
    this._entries = new Map();
  }

  /**
   * @param {string} key
   * @returns {T | undefined} (now the most recently used)
   */
  get(key) {
    const value = this._entries.get(key);
    if (value !== undefined) this.set(key, value);
    return value;
  }

  /**
   * @param {string} key
   * @param {T} value
   */
  set(key, value) {
    this._entries.delete(key);
    this._entries.set(key, value);
    for (const oldest of this._entries.keys()) {
      if (this._entries.size <= this._size) break;
      this._entries.delete(oldest);
    }
  }

  clear() {
    this._entries.clear();
  }
}
