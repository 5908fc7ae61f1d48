// The Metrics view's URL state: its keys (all starting with `m`, so a copied
// link reopens the same grid) and how they are read, malformed values
// replaced by their defaults. The run selection, the axis, smoothing,
// baseline and difference mode are Compare's (`sel`, `cx`, `cs`, `cb`,
// `cd`): the two views show the same comparison.

import { decodeList, encodeList } from "../../state.js";

/** State keys of this view. */
export const METRICS_KEYS = Object.freeze({
  filter: "mq", // the metric filter (regex or text, as GET metrics reads it)
  pins: "mp", // pinned metric keys, listed as `sel` is
  width: "mw", // card width: s | m | l (default m)
  enlarged: "me", // the metric key of the enlarged card
  cards: "mc", // per-card settings, JSON: {key: CardSettings}
});

/** Card widths: the narrowest a grid column may be, CSS pixels. */
export const CARD_WIDTHS = Object.freeze({ s: 300, m: 420, l: 640 });
/** Plot heights, CSS pixels: a card by its width, and enlarged. */
export const CARD_HEIGHTS = Object.freeze({ s: 160, m: 200, l: 260 });
export const ENLARGED_HEIGHT = 460;
/** Tooltip orders a card offers (components/charttooltip.js). */
export const TOOLTIP_SORTS = Object.freeze([
  "near",
  "desc",
  "asc",
  "name",
  "drawn",
]);

/**
 * One card's own settings; every field optional (absent = default).
 * @typedef {Object} CardSettings
 * @property {number | null} [lo] y axis minimum
 * @property {number | null} [hi] y axis maximum
 * @property {boolean} [log] logarithmic y
 * @property {string} [sort] tooltip order (TOOLTIP_SORTS)
 * @property {number} [x] the x of the step table, in the axis' unit
 * @property {string} [xa] the axis `x` was picked on (absent: any)
 */

/**
 * @typedef {Object} MetricsState
 * @property {string} filter
 * @property {string[]} pins
 * @property {'s' | 'm' | 'l'} width
 * @property {string | null} enlarged
 * @property {Record<string, CardSettings>} cards
 */

/**
 * @param {import("../../state.js").AppState} state
 * @returns {MetricsState}
 */
export function readMetricsState(state) {
  const width = state.get(METRICS_KEYS.width);
  return {
    filter: state.get(METRICS_KEYS.filter),
    pins: decodeList(state.get(METRICS_KEYS.pins)),
    width: width === "s" || width === "l" ? width : "m",
    enlarged: state.get(METRICS_KEYS.enlarged) || null,
    cards: parseCards(state.get(METRICS_KEYS.cards)),
  };
}

/**
 * The per-card settings of a state value; anything malformed is dropped.
 * @param {string} text
 * @returns {Record<string, CardSettings>}
 */
export function parseCards(text) {
  /** @type {Record<string, CardSettings>} */
  const cards = {};
  if (!text) return cards;
  let raw;
  try {
    raw = JSON.parse(text);
  } catch {
    return cards;
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return cards;
  const finite = (/** @type {unknown} */ v) =>
    typeof v === "number" && Number.isFinite(v) ? v : null;
  for (const [key, value] of Object.entries(raw)) {
    if (!value || typeof value !== "object") continue;
    /** @type {CardSettings} */
    const card = {};
    if (finite(value.lo) !== null) card.lo = finite(value.lo);
    if (finite(value.hi) !== null) card.hi = finite(value.hi);
    if (value.log === true) card.log = true;
    if (TOOLTIP_SORTS.includes(value.sort) && value.sort !== "near") {
      card.sort = value.sort;
    }
    if (typeof value.xa === "string" && value.xa) card.xa = value.xa;
    if (finite(value.x) !== null)
      card.x = /** @type {number} */ (finite(value.x));
    if (Object.keys(card).length > 0) cards[key] = card;
  }
  return cards;
}

/**
 * Writes one card's settings (merged over its current ones; `undefined`
 * or null removes a field) into the state.
 * @param {import("../../state.js").AppState} state
 * @param {string} key the metric key
 * @param {Partial<Record<keyof CardSettings, any>>} change
 */
export function updateCard(state, key, change) {
  const cards = parseCards(state.get(METRICS_KEYS.cards));
  /** @type {Record<string, any>} */
  const card = { ...(cards[key] ?? {}), ...change };
  for (const field of Object.keys(card)) {
    if (card[field] == null || card[field] === false) delete card[field];
  }
  if (card.sort === "near") delete card.sort;
  if (Object.keys(card).length > 0) cards[key] = card;
  else delete cards[key];
  state.update({
    [METRICS_KEYS.cards]:
      Object.keys(cards).length > 0 ? JSON.stringify(cards) : null,
  });
}

/**
 * Pins or unpins a metric (pinned cards come first, in pinning order).
 * @param {import("../../state.js").AppState} state
 * @param {string} key
 */
export function togglePin(state, key) {
  const pins = decodeList(state.get(METRICS_KEYS.pins));
  const next = pins.includes(key)
    ? pins.filter((k) => k !== key)
    : [...pins, key];
  state.update({ [METRICS_KEYS.pins]: next.length ? encodeList(next) : null });
}
