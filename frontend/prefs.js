// Personal display preferences (not part of a shared link): kept in
// localStorage, read where they are used. A browser that refuses storage
// (private mode, a sandboxed iframe) gets the defaults.

const PREFIX = "tbmf.pref.";

/** @type {Set<(name: string) => void>} */
const listeners = new Set();

/**
 * @param {string} name
 * @param {string} fallback
 * @returns {string}
 */
export function getPref(name, fallback) {
  try {
    return window.localStorage.getItem(PREFIX + name) ?? fallback;
  } catch {
    return fallback;
  }
}

/**
 * @param {string} name
 * @param {string | null} value null removes it (back to the default)
 */
export function setPref(name, value) {
  try {
    if (value === null) window.localStorage.removeItem(PREFIX + name);
    else window.localStorage.setItem(PREFIX + name, value);
  } catch {
    // Storage refused: the preference lasts until the tab closes.
  }
  for (const listener of [...listeners]) listener(name);
}

/**
 * @param {(name: string) => void} listener called with the changed name
 * @returns {() => void} unsubscribes
 */
export function subscribePrefs(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tooltip rows a chart lists before "+N more" (a preference). */
export const TOOLTIP_ROWS_PREF = "tooltipRows";
/** Rows when the user chose none. */
export const DEFAULT_TOOLTIP_ROWS = 10;
/** Choices offered; 0 means every series. */
export const TOOLTIP_ROW_CHOICES = Object.freeze([5, 10, 20, 0]);

/** @returns {number} rows to list, Infinity for every series */
export function tooltipRows() {
  const raw = getPref(TOOLTIP_ROWS_PREF, "");
  const value = raw === "" ? NaN : Number(raw);
  if (!Number.isInteger(value) || value < 0) return DEFAULT_TOOLTIP_ROWS;
  return value === 0 ? Infinity : value;
}
