// The layout routes (docs/api.md, "Layouts") and the metric index the
// charts use to group series. Every call throws ApiError with the server's
// `{"error"}` text.

import { fetchJson } from "../../model.js";

/**
 * @typedef {import("./schema.js").Layout} Layout
 *
 * @typedef {Object} LayoutsPayload The body of `GET layouts`.
 * @property {Layout[]} layouts user layouts, sorted by name
 * @property {Layout | null} imported merged from the runs, read-only
 * @property {string[]} warnings problems with the layouts file
 * @property {string | null} path where user layouts are saved
 * @property {string | null} pathReason why there (or why nowhere)
 * @property {{id: string, params: Record<string, unknown>} | null} pathReasonMessage
 *     the same as a catalog message
 * @property {boolean} writable false: nothing can be saved
 *
 * @typedef {Object} PreviewMatch
 * @property {string} run
 * @property {string} tag for margin charts the value tag
 * @property {string | null} metric canonical name
 * @property {string | null} lower margin: lower tag
 * @property {string | null} upper margin: upper tag
 *
 * @typedef {Object} RegexError
 * @property {string} path e.g. `categories[0].charts[1].tags[0]`
 * @property {string} pattern
 * @property {string} message Python's message
 * @property {number | null} position character index of the problem
 *
 * @typedef {Object} ChartPreview
 * @property {number} category
 * @property {number} chart
 * @property {string} title
 * @property {PreviewMatch[]} matches at most 200, sorted by run then tag
 * @property {number} totalMatches
 * @property {RegexError[]} regexErrors
 * @property {{run: string, tags: string[]}[]} missing margin: runs that
 *     have some of a series' tags but not all
 * @property {string} [skipped] why the chart was not matched (the
 *     preview's work budget ran out), "" when it was
 *
 * @typedef {Object} LayoutPreview The body of `POST layout_preview`.
 * @property {string | null} error why the layout cannot be saved as it is
 * @property {ChartPreview[]} charts
 *
 * @typedef {Object} MetricEntry One entry of `GET metrics`.
 * @property {string} key e.g. `loss/val@epoch`
 * @property {string} name
 * @property {string | null} level
 * @property {{run: string, tag: string}[]} members
 */

/**
 * @param {AbortSignal} [signal]
 * @returns {Promise<LayoutsPayload>}
 */
export async function loadLayouts(signal) {
  const payload = await fetchJson("layouts", {}, { signal });
  return {
    layouts: Array.isArray(payload.layouts) ? payload.layouts : [],
    imported: payload.imported ?? null,
    warnings: Array.isArray(payload.warnings) ? payload.warnings : [],
    path: payload.path ?? null,
    pathReason: payload.pathReason ?? null,
    pathReasonMessage: payload.pathReasonMessage ?? null,
    writable: payload.writable !== false,
  };
}

/**
 * Saves (or renames, with `previousName`) a layout.
 * @param {Layout} layout
 * @param {{previousName?: string | null, overwrite?: boolean}} [options]
 *     overwrite: false refuses to replace another layout of that name
 * @returns {Promise<Layout>} the layout as saved
 */
export async function saveLayout(
  layout,
  { previousName = null, overwrite = false } = {},
) {
  const answer = await fetchJson(
    "layouts",
    {},
    { method: "POST", body: { layout, previousName, overwrite } },
  );
  return answer.layout;
}

/**
 * @param {string} name
 * @returns {Promise<void>}
 */
export async function deleteLayout(name) {
  // The body only carries the JSON type and XSRF header the route requires.
  await fetchJson("layouts", { name }, { method: "DELETE", body: { name } });
}

/**
 * What each chart of a (possibly invalid) layout matches now.
 * @param {unknown} layout
 * @param {AbortSignal} [signal]
 * @returns {Promise<LayoutPreview>}
 */
export async function previewLayout(layout, signal) {
  const answer = await fetchJson(
    "layout_preview",
    {},
    { method: "POST", body: { layout }, signal },
  );
  return {
    error: answer.error ?? null,
    charts: Array.isArray(answer.charts) ? answer.charts : [],
  };
}

/**
 * @param {AbortSignal} [signal]
 * @returns {Promise<MetricEntry[]>}
 */
export async function loadMetrics(signal) {
  const answer = await fetchJson("metrics", {}, { signal });
  return Array.isArray(answer.metrics) ? answer.metrics : [];
}

/**
 * The metric index as the charts need it: which metric keys a (run, tag)
 * belongs to, and each key's members.
 * @param {MetricEntry[]} metrics
 * @returns {MetricIndex}
 */
export function indexMetrics(metrics) {
  /** @type {Map<string, string[]>} */
  const keysOf = new Map();
  /** @type {Map<string, {run: string, tag: string}[]>} */
  const members = new Map();
  for (const entry of metrics) {
    members.set(entry.key, entry.members);
    for (const member of entry.members) {
      const id = pairId(member.run, member.tag);
      const keys = keysOf.get(id);
      if (keys) keys.push(entry.key);
      else keysOf.set(id, [entry.key]);
    }
  }
  return { keysOf, members };
}

/**
 * @typedef {Object} MetricIndex
 * @property {Map<string, string[]>} keysOf pairId → metric keys
 * @property {Map<string, {run: string, tag: string}[]>} members key → members
 */

/**
 * A (run, tag) as one string (NUL cannot occur in either).
 * @param {string} run
 * @param {string} tag
 * @returns {string}
 */
export function pairId(run, tag) {
  return `${run}\u0000${tag}`;
}
