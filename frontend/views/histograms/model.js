// What the Histograms view knows about tags, axes and distances, and the
// payload types of the histogram routes (docs/api.md).

import { t } from "../../i18n.js";

/**
 * @typedef {Object} TagInfo one entry of `histogram_pairs`' tagsA/tagsB
 * @property {string} tag
 * @property {number | null} elementCount the histogram's total count
 * @property {number} order first-seen position in the run
 *
 * @typedef {Object} PairSuggestion
 * @property {string} tagA
 * @property {string} tagB
 * @property {number} score 0..1
 * @property {string[]} reasons
 * @property {{id: string, params: Record<string, unknown>}[]} [reasonMessages]
 *     the reasons as message ids (docs/api.md, Messages)
 *
 * @typedef {Object} PairsPayload `GET histogram_pairs`
 * @property {string} runA
 * @property {string} runB
 * @property {TagInfo[]} tagsA
 * @property {TagInfo[]} tagsB
 * @property {PairSuggestion[]} pairs
 *
 * @typedef {Object} DistancesPayload `GET histogram_distances`
 * @property {string} x
 * @property {number[]} positions A's positions within B's range
 * @property {number[]} positionsB B's nearest
 * @property {number[]} stepsA
 * @property {number[]} stepsB
 * @property {(number | string)[]} wasserstein
 * @property {(number | string)[]} jensenShannon
 * @property {(number | string)[]} ks
 * @property {(number | string)[]} meanDelta
 * @property {(number | string)[]} stdDelta
 *
 * @typedef {Object} DiffSide
 * @property {string} run
 * @property {string} tag
 * @property {number} step
 * @property {number} wallTime
 * @property {number | null} x
 *
 * @typedef {Object} DiffPayload `GET histogram_diff`
 * @property {string} x
 * @property {number} at
 * @property {DiffSide} a
 * @property {DiffSide} b
 * @property {number[]} edges
 * @property {number[]} countsA
 * @property {number[]} countsB
 * @property {number[]} diff
 * @property {boolean} normalized
 * @property {number} totalA
 * @property {number} totalB
 * @property {{mean: number | string, std: number | string}} momentsA
 * @property {{mean: number | string, std: number | string}} momentsB
 * @property {Record<DistanceKey, number | string>} distances
 *
 * @typedef {Object} HistogramStep
 * @property {number} step
 * @property {number} wallTime
 * @property {number | null} x
 * @property {number[]} edges
 * @property {number[]} counts
 *
 * @typedef {Object} HistogramsPayload `GET histograms`
 * @property {string} run
 * @property {string} tag
 * @property {string} x
 * @property {string | null} excluded
 * @property {HistogramStep[]} steps
 *
 * @typedef {'wasserstein' | 'jensenShannon' | 'ks' | 'meanDelta' | 'stdDelta'} DistanceKey
 */

/** State keys of this view (all prefixed `h`). */
export const KEYS = Object.freeze({
  runA: "ha",
  tagA: "hta",
  runB: "hb",
  tagB: "htb",
  axis: "hx",
  at: "hat",
  bins: "hn",
  mode: "hm",
  distance: "hd",
});

/** Axes offered, in order (`wall` adds nothing `relative` does not show). */
export const AXES = Object.freeze([
  axis("step"),
  axis("epoch"),
  axis("relative"),
  axis("progress"),
]);

/**
 * An axis choice whose texts follow the language (read when drawn).
 * @param {string} id
 * @returns {{id: string, label: string, title: string}}
 */
function axis(id) {
  return {
    id,
    get label() {
      return t(`hist.axis.${id}`);
    },
    get title() {
      return t(`hist.axis.${id}.title`);
    },
  };
}

/** Bucket counts offered for the common edges. */
export const BIN_CHOICES = Object.freeze([30, 60, 120]);
/** The server's default bucket count. */
export const DEFAULT_BINS = 60;
/** Largest bucket count the server accepts (core MAX_BINS). */
export const MAX_BINS = 1000;

/** Renderings of the pair at one position. */
export const MODES = Object.freeze([
  mode("all"),
  mode("side"),
  mode("overlay"),
  mode("diff"),
]);

/**
 * @param {string} id
 * @returns {{id: string, label: string}}
 */
function mode(id) {
  return {
    id,
    get label() {
      return t(`hist.mode.${id}`);
    },
  };
}

/**
 * The distances, in table order, with a one-line explanation each.
 * @type {readonly {key: DistanceKey, label: string, short: string, signed: boolean, help: string}[]}
 */
export const DISTANCES = Object.freeze([
  distance("wasserstein", "W₁", false),
  distance("jensenShannon", "JS", false),
  distance("ks", "KS", false),
  distance("meanDelta", "Δμ", true),
  distance("stdDelta", "Δσ", true),
]);

/**
 * A distance whose label and help follow the language.
 * @param {DistanceKey} key
 * @param {string} short
 * @param {boolean} signed
 * @returns {{key: DistanceKey, label: string, short: string, signed: boolean, help: string}}
 */
function distance(key, short, signed) {
  return {
    key,
    short,
    signed,
    get label() {
      return t(`hist.distance.${key}`);
    },
    get help() {
      return t(`hist.distance.${key}.help`);
    },
  };
}

/** Splits a tag into name tokens, as the server's pairing does. */
const TOKEN_SPLIT = /[/.:]+/;
const GRAD_TOKEN = /^(grads?|gradients?)$/i;
const GRAD_AFFIX = /^grads?_|_grads?$|_gradients?$/i;

/**
 * @param {string} tag
 * @returns {boolean} whether the tag holds gradients rather than values
 */
export function isGradientTag(tag) {
  return tag
    .split(TOKEN_SPLIT)
    .some((token) => GRAD_TOKEN.test(token) || GRAD_AFFIX.test(token));
}

/**
 * A number from the API: the server sends non-finite values as strings.
 * @param {unknown} value
 * @returns {number} NaN for anything that is not a finite number
 */
export function toNumber(value) {
  if (typeof value === "number") return value;
  if (value === "Infinity") return Infinity;
  if (value === "-Infinity") return -Infinity;
  return NaN;
}

/**
 * The index of the position nearest to `at` (the last one when `at` is
 * null); -1 when there are no positions.
 * @param {number[]} positions
 * @param {number | null} at
 * @returns {number}
 */
export function nearestIndex(positions, at) {
  if (positions.length === 0) return -1;
  if (at === null || !Number.isFinite(at)) return positions.length - 1;
  let best = 0;
  for (let i = 1; i < positions.length; i++) {
    if (Math.abs(positions[i] - at) < Math.abs(positions[best] - at)) best = i;
  }
  return best;
}
