// Colours shared by every view: framework badges and the runs' colours.

import { deltaE2000, hexToLab } from "./colordistance.js";
import { t } from "./i18n.js";
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
 * @returns {string} its name (`unknown` in the tab's language)
 */
export function frameworkLabel(framework) {
  if (framework === "unknown") return t("common.framework.unknown");
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
// The runs on screen are those the charts draw (the selection, narrowed by
// the run filter when "matching runs only" is on; every run when nothing is
// chosen). A run keeps the style it was first drawn with for the session:
// its slot (palette colour and dash) is remembered in the URL state (`rst`),
// so selecting other runs never recolours it and a link shows the same
// colours. A run new to the screen takes the style that stands out most
// from those drawn (CIEDE2000, colordistance.js), solid before dashed. A
// remembered style is given up only when it would be drawn next to a
// near-identical one (closer than CLOSE_DE) and a clearly better one is free.
// A colour the user pinned (`rc`) is theirs and wins. `colorFor(run)` is the
// one function views call; with `{group}` (or a grouping set with
// `colorScope.setGroupOf`) the members of a group share its style. The app
// shell binds the scope to the URL state and the catalog once
// (`colorScope.bind`), so every view, chart and list agrees. A run off
// screen keeps a colour hashed from its name.

/** State key of the pinned colours: `run=#rrggbb` items, encodeList'ed. */
export const PINNED_COLORS_KEY = "rc";
/** State key of the session's styles: `key=slot` items, oldest first. */
export const ASSIGNED_COLORS_KEY = "rst";
const HEX_COLOR = /^#[0-9a-f]{6}$/i;

/** Styles: palette colour `slot % 24`, dash `floor(slot / 24)`. */
const SLOTS = RUN_PALETTE.length * RUN_DASHES.length;
const PALETTE_LAB = RUN_PALETTE.map(hexToLab);
const PALETTE_DE = PALETTE_LAB.map((a) => PALETTE_LAB.map((b) => deltaE2000(a, b)));
/** Closer than this (CIEDE2000) two thin lines are easily confused: the
 * palette's #ee6677 and #f83e45 are 10.4 apart. */
export const CLOSE_DE = 15;
const CLEAR_DE = 30; // farther: clearly apart, no need to look further
const DASH_DE = 10; // a dashed line next to a solid one of the same colour
const DASH_COST = 15; // a dash is harder to read: solid first
const TAKEN_COST = 5; // a slot another run of the session holds
const MAX_REMEMBERED = 400; // keys kept in `rst`
const MAX_REMEMBERED_CHARS = 7000; // of the state value (8000 at most)

/**
 * @typedef {Object} RunStyle
 * @property {string} color `#rrggbb`
 * @property {readonly number[] | null} dash null for a solid line
 *
 * @typedef {Object} ScopeSource
 * @property {() => string} signature changes whenever keys or pins change
 * @property {() => string[]} runs the runs on screen
 * @property {() => Map<string, string>} pins key -> pinned `#rrggbb`
 * @property {() => string} assigned the remembered slots (`rst` value)
 * @property {(text: string) => void} remember stores new slots
 *
 * @typedef {{color: number, lab: number[], dash: number}} Drawn a style
 *     on screen (`color`: its palette index, -1 for a pinned colour)
 */

/**
 * @param {number} slot
 * @returns {RunStyle}
 */
function slotStyle(slot) {
  return {
    color: RUN_PALETTE[slot % RUN_PALETTE.length],
    dash: RUN_DASHES[Math.floor(slot / RUN_PALETTE.length) % RUN_DASHES.length],
  };
}

/**
 * How far a slot's style is from the nearest style drawn (Infinity: none).
 * @param {number} slot
 * @param {Drawn[]} drawn
 * @returns {number}
 */
function nearest(slot, drawn) {
  const color = slot % RUN_PALETTE.length;
  const dash = Math.floor(slot / RUN_PALETTE.length);
  const table = PALETTE_DE[color];
  let best = Infinity;
  for (const d of drawn) {
    const apart =
      (d.color >= 0 ? table[d.color] : deltaE2000(PALETTE_LAB[color], d.lab)) +
      (d.dash === dash ? 0 : DASH_DE);
    if (apart < best) best = apart;
  }
  return best;
}

/**
 * The free slot that stands out most from the styles drawn: solid before
 * dashed, a slot no other run of the session holds before one it does.
 * @param {Drawn[]} drawn
 * @param {Set<number>} used slots on screen
 * @param {Set<number>} taken slots of the session's other runs
 * @returns {{slot: number, apart: number}}
 */
function bestSlot(drawn, used, taken) {
  let best = { slot: 0, apart: -Infinity, score: -Infinity };
  const everyUsed = used.size >= SLOTS;
  for (let slot = 0; slot < SLOTS; slot++) {
    if (used.has(slot) && !everyUsed) continue;
    const apart = nearest(slot, drawn);
    const score =
      Math.min(apart, CLEAR_DE) -
      Math.floor(slot / RUN_PALETTE.length) * DASH_COST -
      (taken.has(slot) ? TAKEN_COST : 0);
    if (score > best.score) best = { slot, apart, score };
  }
  return best;
}

/**
 * Styles for the keys on screen: pins first, then each remembered slot
 * (oldest first) unless it is near-identical to one already drawn and a
 * clearly better slot is free, then the new keys (by name), each the slot
 * that stands out most.
 * @param {string[]} keys
 * @param {Map<string, string>} [pins]
 * @param {Map<string, number>} [remembered] key -> slot, oldest first
 * @returns {{styles: Map<string, RunStyle>, slots: Map<string, number>}}
 *     the styles, and the session's slots after this assignment
 */
export function assignStyles(keys, pins = new Map(), remembered = new Map()) {
  const onScreen = [...new Set(keys)].sort();
  const shown = new Set(onScreen);
  /** @type {Map<string, RunStyle>} */
  const styles = new Map();
  /** @type {Drawn[]} */
  const drawn = [];
  /** @type {Set<number>} */
  const used = new Set();
  const slots = new Map(remembered);
  const taken = new Set(
    [...remembered].filter(([key]) => !shown.has(key)).map(([, s]) => s),
  );
  for (const key of onScreen) {
    const pinned = pins.get(key);
    if (!pinned) continue;
    styles.set(key, { color: pinned, dash: null });
    drawn.push({ color: -1, lab: hexToLab(pinned), dash: 0 });
  }
  const place = (/** @type {string} */ key, /** @type {number} */ slot) => {
    styles.set(key, slotStyle(slot));
    const color = slot % RUN_PALETTE.length;
    drawn.push({
      color,
      lab: PALETTE_LAB[color],
      dash: Math.floor(slot / RUN_PALETTE.length),
    });
    used.add(slot);
  };
  for (const [key, slot] of remembered) {
    if (!shown.has(key) || styles.has(key)) continue;
    const apart = used.has(slot) ? 0 : nearest(slot, drawn);
    if (apart < CLOSE_DE) {
      const better = bestSlot(drawn, used, taken);
      if (better.apart > apart && (better.apart >= CLOSE_DE || apart === 0)) {
        slots.delete(key);
        slots.set(key, better.slot);
        place(key, better.slot);
        continue;
      }
    }
    place(key, slot);
  }
  for (const key of onScreen) {
    if (styles.has(key)) continue;
    const { slot } = bestSlot(drawn, used, taken);
    slots.set(key, slot);
    place(key, slot);
  }
  return { styles, slots };
}

/**
 * Remembered slots from the state value; malformed items are ignored.
 * @param {string} value `key=slot` items, encodeList'ed
 * @returns {Map<string, number>}
 */
export function parseAssigned(value) {
  /** @type {Map<string, number>} */
  const slots = new Map();
  for (const item of decodeList(value)) {
    const at = item.lastIndexOf("=");
    const slot = Number(item.slice(at + 1));
    if (at > 0 && Number.isInteger(slot) && slot >= 0 && slot < SLOTS) {
      slots.set(item.slice(0, at), slot);
    }
  }
  return slots;
}

/**
 * The state value of the session's slots, oldest first; the oldest keys
 * off screen are forgotten first when there are too many.
 * @param {Map<string, number>} slots
 * @param {Set<string>} onScreen
 * @returns {string}
 */
export function formatAssigned(slots, onScreen) {
  const items = [...slots];
  const size = () => items.reduce((n, [k]) => n + k.length + 4, 0);
  while (items.length > MAX_REMEMBERED || size() > MAX_REMEMBERED_CHARS) {
    const off = items.findIndex(([key]) => !onScreen.has(key));
    items.splice(off >= 0 ? off : 0, 1);
  }
  return encodeList(items.map(([key, slot]) => `${key}=${slot}`));
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
    /** The session's slots (key -> slot), as last read or written. */
    this._slots = new Map();
    this._slotsText = "";
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
      const text = source.assigned();
      if (text !== this._slotsText) {
        // A pasted link, back/forward: the URL's slots win.
        this._slots = parseAssigned(text);
        this._slotsText = text;
      }
      const found = assignStyles(keys, source.pins(), this._slots);
      this._memo = { signature, styles: found.styles };
      const written = formatAssigned(found.slots, new Set(keys));
      if (written !== this._slotsText) {
        this._slots = parseAssigned(written);
        this._slotsText = written;
        source.remember(written);
      }
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
 * the selected ones (or those `onScreen` says); pins (`rc`) and the
 * remembered styles (`rst`) live in the URL, so links keep them.
 * @param {import("./state.js").AppState} state
 * @param {import("./model.js").Catalog} catalog
 * @param {{runs: () => string[], signature: () => string}} [onScreen] the
 *     runs drawn, and a text that changes whenever they may (the app shell
 *     passes the run filter's `runsOnScreen`)
 */
export function bindColorScope(state, catalog, onScreen) {
  colorScope.bind({
    signature: () =>
      [
        state.has("sel") ? state.get("sel") : "*",
        state.get(PINNED_COLORS_KEY),
        state.get(ASSIGNED_COLORS_KEY),
        onScreen?.signature() ?? "",
        `${catalog.runs.length}:${catalog.payload?.dataVersion ?? ""}`,
      ].join("\n"),
    runs: () =>
      onScreen?.runs() ?? state.selectedRuns(catalog.runs.map((r) => r.run)),
    pins: () => parsePinnedColors(state.get(PINNED_COLORS_KEY)),
    assigned: () => state.get(ASSIGNED_COLORS_KEY),
    // Only recorded (for links and reloads): the styles drawn already
    // follow it, so no view needs to hear of it.
    remember: (text) =>
      state.update({ [ASSIGNED_COLORS_KEY]: text || null }, { notify: false }),
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
    [...assignStyles(runs).styles].map(([run, style]) => [run, style.color]),
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
