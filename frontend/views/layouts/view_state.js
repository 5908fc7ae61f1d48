// The Layouts view's URL state: its keys, which layout the URL asks for (a
// Target), the URL state that shows a target, and the dashboard-wide
// overrides (one x axis, one smoothing weight, a baseline run).

import { AXIS_IDS } from "./schema.js";

/**
 * @typedef {import("../../state.js").AppState} AppState
 * @typedef {import("./api.js").LayoutsPayload} LayoutsPayload
 * @typedef {import("./dashboard.js").DashboardSettings} DashboardSettings
 *
 * @typedef {Object} Target what the main area shows
 * @property {'imported' | 'user' | 'new' | 'none'} kind
 * @property {string | null} name a user layout's name
 * @property {boolean} edit
 * @property {string} id identity: the same id needs no rebuild
 */

/** State keys of this view. */
export const LAYOUT_KEYS = Object.freeze({
  name: "ln", // a user layout's name
  imported: "li", // "1": the layout logged in the runs
  edit: "le", // "1": edit the open layout; "new": a new layout
  axis: "lx", // one x axis for every chart
  smoothing: "ls", // one smoothing weight for every chart
  baseline: "lb", // baseline run of the difference charts
});

/**
 * What the URL asks for.
 * @param {AppState} state
 * @param {LayoutsPayload | null} payload
 * @returns {Target | null} null: the layouts are not loaded yet
 */
export function readTarget(state, payload) {
  const edit = state.get(LAYOUT_KEYS.edit);
  if (edit === "new") return target("new", null, true);
  const name = state.get(LAYOUT_KEYS.name);
  if (name) return target("user", name, edit === "1");
  if (state.get(LAYOUT_KEYS.imported) === "1") {
    return target("imported", null, false);
  }
  if (!payload) return null;
  // No layout in the URL: the logged one, else the first of the user's.
  if (payload.imported) return target("imported", null, false);
  if (payload.layouts.length) {
    return target("user", payload.layouts[0].name, edit === "1");
  }
  return target("none", null, false);
}

/**
 * The URL state that shows `where` (to put the URL back on it).
 * @param {Target} where
 * @returns {Record<string, string | null>}
 */
export function targetState(where) {
  return {
    [LAYOUT_KEYS.name]: where.kind === "user" ? where.name : null,
    [LAYOUT_KEYS.imported]: where.kind === "imported" ? "1" : null,
    [LAYOUT_KEYS.edit]: where.kind === "new" ? "new" : where.edit ? "1" : null,
  };
}

/**
 * @param {Target['kind']} kind
 * @param {string | null} name
 * @param {boolean} edit
 * @returns {Target}
 */
export function target(kind, name, edit) {
  return {
    kind,
    name,
    edit,
    id: `${kind}:${name ?? ""}:${edit ? "edit" : "view"}`,
  };
}

/**
 * @param {AppState} state
 * @returns {DashboardSettings} the overrides in the URL (null: none)
 */
export function readSettings(state) {
  const axis = state.get(LAYOUT_KEYS.axis);
  const raw = state.get(LAYOUT_KEYS.smoothing);
  const smoothing = raw === "" ? NaN : Number(raw);
  return {
    axis: AXIS_IDS.includes(axis) ? axis : null,
    smoothing:
      Number.isFinite(smoothing) && smoothing >= 0 && smoothing < 1
        ? smoothing
        : null,
    baseline: state.get(LAYOUT_KEYS.baseline) || null,
  };
}

/**
 * @param {Partial<DashboardSettings>} patch
 * @returns {Record<string, string | null>} the URL state that sets it
 */
export function settingsState(patch) {
  /** @type {Record<string, string | null>} */
  const update = {};
  if ("axis" in patch) update[LAYOUT_KEYS.axis] = patch.axis ?? null;
  if ("smoothing" in patch) {
    update[LAYOUT_KEYS.smoothing] =
      patch.smoothing === null || patch.smoothing === undefined
        ? null
        : String(patch.smoothing);
  }
  if ("baseline" in patch) {
    update[LAYOUT_KEYS.baseline] = patch.baseline ?? null;
  }
  return update;
}
