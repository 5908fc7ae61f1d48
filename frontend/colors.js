// Colours shared by every view: framework badges and the runs' colours.

import { decodeList, encodeList } from "./state.js";

/** @typedef {'pytorch' | 'tensorflow' | 'paddle' | 'unknown'} Framework */

/** Brand colours of the frameworks; `unknown` is a neutral grey. */
export const FRAMEWORK_COLORS = Object.freeze({
  pytorch: "#EE4C2C",
  tensorflow: "#FF6F00",
  paddle: "#2932E1",
  unknown: "#8A8F98",
});

/** Display names of the frameworks. */
export const FRAMEWORK_LABELS = Object.freeze({
  pytorch: "PyTorch",
  tensorflow: "TensorFlow",
  paddle: "Paddle",
  unknown: "Unknown",
});

/**
 * Run colours, handed out in this order to the runs on screen. 24 hues
 * chosen by scripts/make_run_palette.py: each readable as a line on the
 * light and the dark background, and every prefix as far apart as possible
 * in CIEDE2000 for normal vision and for deuteranopia and protanopia (the
 * first eight at least 19 apart, all 24 at least 9.6).
 */
export const RUN_PALETTE = Object.freeze([
  "#1f77b4",
  "#8db600",
  "#be4c58",
  "#009988",
  "#b783f5",
  "#b45903",
  "#e68fac",
  "#d01ba2",
  "#b0995c",
  "#0f8423",
  "#24a8ca",
  "#e84b89",
  "#bc7361",
  "#729036",
  "#c49c94",
  "#f99379",
  "#ef6bc4",
  "#635fe9",
  "#ac74a5",
  "#ee6677",
  "#f83e45",
  "#875692",
  "#559367",
  "#a85a73",
]);

/**
 * Line dashes that tell runs apart once every colour is in use: the first
 * 24 runs on screen are solid, the next 24 dashed, and so on (96 distinct
 * styles). `null` is a solid line.
 */
export const RUN_DASHES = Object.freeze([
  null,
  Object.freeze([8, 4]),
  Object.freeze([2, 3]),
  Object.freeze([10, 3, 2, 3]),
]);

/**
 * The framework's badge colour; anything unrecognised is `unknown`.
 * @param {string} framework
 * @returns {string}
 */
export function frameworkColor(framework) {
  return (
    FRAMEWORK_COLORS[/** @type {Framework} */ (framework)] ??
    FRAMEWORK_COLORS.unknown
  );
}

/**
 * @param {string} framework
 * @returns {string}
 */
export function frameworkLabel(framework) {
  return FRAMEWORK_LABELS[/** @type {Framework} */ (framework)] ?? framework;
}

/**
 * 32-bit FNV-1a over the UTF-16 code units of `text`.
 * @param {string} text
 * @returns {number} an unsigned 32-bit integer
 */
export function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * A colour from the run's name alone: the colour of a run that is not on
 * screen (see `colorFor` for the runs that are).
 * @param {string} run
 * @returns {string}
 */
export function colorForRun(run) {
  return RUN_PALETTE[fnv1a(run) % RUN_PALETTE.length];
}

/**
 * `#rrggbb` plus alpha as an `rgba()` string.
 * @param {string} hex
 * @param {number} alpha 0..1
 * @returns {string}
 */
export function withAlpha(hex, alpha) {
  const value = parseInt(hex.slice(1), 16);
  const r = (value >> 16) & 255;
  const g = (value >> 8) & 255;
  const b = value & 255;
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

// Colours of the runs on screen.
//
// The runs on screen (the selection, or every run when nothing is chosen)
// take RUN_PALETTE in run-name order, then the same colours dashed, so no
// two of them look alike until 96 runs; a colour the user pinned is theirs
// and is skipped for the others. `colorFor(run)` is the one function views
// call; with `{group}` (or a grouping set with `colorScope.setGroupOf`) the
// members of a group share its style. The app shell binds the scope to the
// URL state and the catalog once (`colorScope.bind`), so every view, chart
// and list agrees. A run off screen keeps a colour hashed from its name.

/** State key of the pinned colours: `run=#rrggbb` items, encodeList'ed. */
export const PINNED_COLORS_KEY = "rc";
const HEX_COLOR = /^#[0-9a-f]{6}$/i;

/**
 * @typedef {Object} RunStyle
 * @property {string} color `#rrggbb`
 * @property {readonly number[] | null} dash null for a solid line
 *
 * @typedef {Object} ScopeSource
 * @property {() => string} signature changes whenever keys or pins change
 * @property {() => string[]} runs the runs on screen
 * @property {() => Map<string, string>} pins key -> pinned `#rrggbb`
 */

/**
 * Styles for keys on screen: palette order by key, pinned colours kept.
 * @param {string[]} keys
 * @param {Map<string, string>} [pins]
 * @returns {Map<string, RunStyle>}
 */
export function assignStyles(keys, pins = new Map()) {
  const sorted = [...new Set(keys)].sort();
  /** @type {Map<string, RunStyle>} */
  const styles = new Map();
  const pinnedHexes = new Set();
  for (const key of sorted) {
    const pinned = pins.get(key);
    if (pinned) {
      styles.set(key, { color: pinned, dash: null });
      pinnedHexes.add(pinned.toLowerCase());
    }
  }
  const free = RUN_PALETTE.filter((c) => !pinnedHexes.has(c.toLowerCase()));
  const colors = free.length ? free : RUN_PALETTE;
  let next = 0;
  for (const key of sorted) {
    if (styles.has(key)) continue;
    const round = Math.floor(next / colors.length);
    styles.set(key, {
      color: colors[next % colors.length],
      dash: RUN_DASHES[round % RUN_DASHES.length],
    });
    next++;
  }
  return styles;
}

export class ColorScope {
  constructor() {
    /** @type {ScopeSource | null} */
    this._source = null;
    /** @type {((run: string) => string | null) | null} */
    this._groupOf = null;
    /** @type {{signature: string, styles: Map<string, RunStyle>} | null} */
    this._memo = null;
    this._groupVersion = 0;
  }

  /**
   * Where the runs on screen and the pins come from (the app shell).
   * @param {ScopeSource | null} source
   */
  bind(source) {
    this._source = source;
    this._memo = null;
  }

  /**
   * Makes groups share a style: `groupOf(run)` names the run's group (a
   * key of its own, e.g. `group:lr=1e-3`) or null for a run on its own.
   * @param {((run: string) => string | null) | null} groupOf
   */
  setGroupOf(groupOf) {
    this._groupOf = groupOf;
    this._groupVersion++;
    this._memo = null;
  }

  /** @returns {Map<string, RunStyle>} the styles of the keys on screen */
  styles() {
    const source = this._source;
    if (!source) return new Map();
    const signature = `${this._groupVersion}\n${source.signature()}`;
    if (this._memo?.signature !== signature) {
      const keys = source.runs().map((run) => this._keyOf(run));
      this._memo = { signature, styles: assignStyles(keys, source.pins()) };
    }
    return this._memo.styles;
  }

  /**
   * @param {string} run
   * @param {string | null} [group]
   * @returns {string} the key whose style the run takes
   */
  _keyOf(run, group = null) {
    return group ?? this._groupOf?.(run) ?? run;
  }

  /**
   * @param {string} run
   * @param {{group?: string | null}} [options]
   * @returns {RunStyle}
   */
  styleFor(run, { group = null } = {}) {
    const key = this._keyOf(run, group);
    const style = this.styles().get(key);
    if (style) return style;
    const pinned = this._source?.pins().get(key);
    return { color: pinned ?? colorForRun(key), dash: null };
  }

  /**
   * @param {string} run
   * @returns {boolean} whether the run is on screen (has a scoped style)
   */
  onScreen(run) {
    return this.styles().has(this._keyOf(run));
  }
}

/** The one scope every view shares. */
export const colorScope = new ColorScope();

/**
 * The colour of a run as every chart, list and legend shows it.
 * @param {string} run
 * @param {{group?: string | null}} [options] a group's members share its
 *     colour
 * @returns {string} `#rrggbb`
 */
export function colorFor(run, options) {
  return colorScope.styleFor(run, options).color;
}

/**
 * Colour and dash of a run (dashes start past the palette's 24 colours).
 * @param {string} run
 * @param {{group?: string | null}} [options]
 * @returns {RunStyle}
 */
export function styleFor(run, options) {
  return colorScope.styleFor(run, options);
}

/**
 * Pinned colours from the state value: `run=#rrggbb` items; anything
 * malformed is ignored.
 * @param {string} value
 * @returns {Map<string, string>}
 */
export function parsePinnedColors(value) {
  /** @type {Map<string, string>} */
  const pins = new Map();
  for (const item of decodeList(value)) {
    const at = item.lastIndexOf("=");
    if (at <= 0) continue;
    const color = item.slice(at + 1);
    if (HEX_COLOR.test(color)) pins.set(item.slice(0, at), color.toLowerCase());
  }
  return pins;
}

/**
 * The state value of a set of pins (sorted, so equal sets are equal text).
 * @param {Map<string, string>} pins
 * @returns {string | null} null when there are none
 */
export function formatPinnedColors(pins) {
  const items = [...pins]
    .filter(([run, color]) => run && HEX_COLOR.test(color))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([run, color]) => `${run}=${color.toLowerCase()}`);
  return items.length ? encodeList(items) : null;
}

/**
 * Binds `colorScope` to the app's state and catalog: the runs on screen are
 * the selected ones; pins live in the URL (`rc`), so links keep them.
 * @param {import("./state.js").AppState} state
 * @param {import("./model.js").Catalog} catalog
 */
export function bindColorScope(state, catalog) {
  colorScope.bind({
    signature: () =>
      `${state.has("sel") ? state.get("sel") : "*"}\n${state.get(
        PINNED_COLORS_KEY,
      )}\n${catalog.runs.length}:${catalog.payload?.dataVersion ?? ""}`,
    runs: () => state.selectedRuns(catalog.runs.map((r) => r.run)),
    pins: () => parsePinnedColors(state.get(PINNED_COLORS_KEY)),
  });
}

/**
 * Pins `run`'s colour (null unpins it).
 * @param {import("./state.js").AppState} state
 * @param {string} run
 * @param {string | null} color `#rrggbb`
 */
export function pinColor(state, run, color) {
  const pins = parsePinnedColors(state.get(PINNED_COLORS_KEY));
  if (color && HEX_COLOR.test(color)) pins.set(run, color.toLowerCase());
  else pins.delete(run);
  state.update({ [PINNED_COLORS_KEY]: formatPinnedColors(pins) });
}

/**
 * Colours for a list of runs, in palette order by name (kept for callers
 * that colour a list of their own).
 * @param {string[]} runs
 * @returns {Map<string, string>}
 */
export function assignRunColors(runs) {
  return new Map(
    [...assignStyles(runs)].map(([run, style]) => [run, style.color]),
  );
}

/**
 * The colour of `run` as on screen (kept for existing callers; the catalog
 * is no longer needed: the scope knows the runs on screen).
 * @param {unknown} _catalog
 * @param {string} run
 * @returns {string}
 */
export function runColor(_catalog, run) {
  return colorFor(run);
}
