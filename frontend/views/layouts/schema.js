// Layouts as the editor holds them, and the JSON the server takes. No DOM.
//
// The server's schema (tb_multiframework/core/layouts/schema.py, docs/api.md):
//   {name, categories: [{title, closed, charts: [{title, kind, tags,
//    metrics, series: [{value, lower, upper}], runs, x, smoothing, logY}]}]}
// The editor keeps a draft of the same shape plus blank rows the user has
// not filled in yet; `serializeLayout` drops those before anything is sent.

import { t } from "../../i18n.js";

/** Caps mirrored from core/layouts/schema.py (the server enforces them). */
export const MAX_NAME_CHARS = 100; // characters in a layout name
export const MAX_TITLE_CHARS = 200; // characters in a category/chart title
export const MAX_CATEGORIES = 50; // categories a layout
export const MAX_CHARTS_PER_CATEGORY = 50; // charts a category
export const MAX_PATTERNS_PER_CHART = 20; // regexes or margin series a chart
export const MAX_REGEX_CHARS = 500; // characters in one regex or tag name
/** Largest import file read, bytes (the server caps a layout at 256 KiB). */
export const MAX_IMPORT_BYTES = 1024 * 1024;
/** Highest smoothing weight offered (the server takes [0, 1)). */
export const MAX_SMOOTHING = 0.99;
export const DEFAULT_SMOOTHING = 0.6; // TensorBoard's default weight
export const DEFAULT_X = "step";
export const AXIS_IDS = Object.freeze([
  "step",
  "epoch",
  "relative",
  "wall",
  "progress",
]);

/**
 * @typedef {{value: string, lower: string, upper: string}} MarginSeries
 *
 * @typedef {Object} LayoutChart
 * @property {string} title
 * @property {'multiline' | 'margin'} kind
 * @property {string[]} tags regexes over raw tags (re.match)
 * @property {string[]} metrics regexes over canonical metric names
 * @property {MarginSeries[]} series margin: exact tag names
 * @property {string | null} runs regex searched in run names
 * @property {string} x
 * @property {number} smoothing
 * @property {boolean} logY
 * @property {string[]} [source] imported: runs it was logged in
 *
 * @typedef {Object} LayoutCategory
 * @property {string} title
 * @property {boolean} closed
 * @property {LayoutChart[]} charts
 * @property {string[]} [source]
 *
 * @typedef {Object} Layout
 * @property {string} name
 * @property {LayoutCategory[]} categories
 * @property {boolean} [readOnly]
 * @property {string[]} [warnings]
 *
 * @typedef {Object} DraftChart a chart being edited
 * @property {string} title
 * @property {'multiline' | 'margin'} kind
 * @property {'tags' | 'metrics'} mode which list a multiline chart uses
 * @property {string[]} patterns its regexes, blank rows included
 * @property {MarginSeries[]} series margin rows, blank ones included
 * @property {string} runs "" = every run
 * @property {string} x
 * @property {number} smoothing
 * @property {boolean} logY
 *
 * @typedef {Object} DraftCategory
 * @property {string} title
 * @property {boolean} closed
 * @property {DraftChart[]} charts
 *
 * @typedef {Object} Draft
 * @property {string} name
 * @property {DraftCategory[]} categories
 */

/**
 * @param {'multiline' | 'margin'} [kind]
 * @returns {DraftChart}
 */
export function blankChart(kind = "multiline") {
  return {
    title: "",
    kind,
    mode: "tags",
    patterns: [""],
    series: [{ value: "", lower: "", upper: "" }],
    runs: "",
    x: DEFAULT_X,
    smoothing: DEFAULT_SMOOTHING,
    logY: false,
  };
}

/**
 * @param {string} [title]
 * @returns {DraftCategory}
 */
export function blankCategory(title = "") {
  return { title, closed: false, charts: [] };
}

/**
 * @param {string} name
 * @returns {Draft}
 */
export function blankDraft(name) {
  return { name, categories: [] };
}

/**
 * A draft of a layout from the server (or a file), defaults filled in.
 * @param {Partial<Layout>} layout
 * @returns {Draft}
 */
export function draftFromLayout(layout) {
  const categories = Array.isArray(layout.categories) ? layout.categories : [];
  return {
    name: typeof layout.name === "string" ? layout.name : "",
    categories: categories.map((category) => ({
      title: stringOr(category?.title, ""),
      closed: Boolean(category?.closed),
      charts: (Array.isArray(category?.charts) ? category.charts : []).map(
        draftChart,
      ),
    })),
  };
}

/**
 * @param {Partial<LayoutChart>} chart
 * @returns {DraftChart}
 */
function draftChart(chart) {
  const tags = stringList(chart?.tags);
  const metrics = stringList(chart?.metrics);
  const kind = chart?.kind === "margin" ? "margin" : "multiline";
  const mode = metrics.length > 0 && tags.length === 0 ? "metrics" : "tags";
  const series = (Array.isArray(chart?.series) ? chart.series : []).map(
    (s) => ({
      value: stringOr(s?.value, ""),
      lower: stringOr(s?.lower, ""),
      upper: stringOr(s?.upper, ""),
    }),
  );
  const smoothing = Number(chart?.smoothing);
  return {
    title: stringOr(chart?.title, ""),
    kind,
    mode,
    patterns: mode === "metrics" ? metrics : tags.length ? tags : [""],
    series: series.length ? series : [{ value: "", lower: "", upper: "" }],
    runs: stringOr(chart?.runs, ""),
    x: AXIS_IDS.includes(String(chart?.x)) ? String(chart?.x) : DEFAULT_X,
    smoothing:
      Number.isFinite(smoothing) && smoothing >= 0 && smoothing < 1
        ? smoothing
        : DEFAULT_SMOOTHING,
    logY: Boolean(chart?.logY),
  };
}

/**
 * The layout JSON of a draft: blank regex rows and empty margin rows are
 * left out, the list the chart does not use is sent empty.
 * @param {Draft} draft
 * @returns {Layout}
 */
export function serializeLayout(draft) {
  return {
    name: draft.name,
    categories: draft.categories.map((category) => ({
      title: category.title,
      closed: category.closed,
      charts: category.charts.map(serializeChart),
    })),
  };
}

/**
 * @param {DraftChart} chart
 * @returns {LayoutChart}
 */
export function serializeChart(chart) {
  const patterns = chart.patterns.filter((p) => p !== "");
  const multiline = chart.kind === "multiline";
  return {
    title: chart.title,
    kind: chart.kind,
    tags: multiline && chart.mode === "tags" ? patterns : [],
    metrics: multiline && chart.mode === "metrics" ? patterns : [],
    series: multiline
      ? []
      : chart.series
          .filter((s) => s.value || s.lower || s.upper)
          .map((s) => ({ value: s.value, lower: s.lower, upper: s.upper })),
    runs: chart.runs === "" ? null : chart.runs,
    x: chart.x,
    smoothing: chart.smoothing,
    logY: chart.logY,
  };
}

/**
 * The layout as a user keeps it in a file: no output-only keys.
 * @param {Layout} layout
 * @returns {Layout}
 */
export function exportableLayout(layout) {
  return serializeLayout(draftFromLayout(layout));
}

/**
 * Whether two drafts would save the same layout.
 * @param {Draft} a
 * @param {Draft} b
 * @returns {boolean}
 */
export function sameLayout(a, b) {
  return (
    JSON.stringify(serializeLayout(a)) === JSON.stringify(serializeLayout(b))
  );
}

/**
 * @template T
 * @param {T} value plain JSON
 * @returns {T}
 */
export function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

/**
 * `base`, or `base (2)`, `base (3)`, ... whichever is not taken.
 * @param {string} base
 * @param {Iterable<string>} taken
 * @returns {string}
 */
export function uniqueName(base, taken) {
  const names = new Set(taken);
  const stem =
    base.trim().slice(0, MAX_NAME_CHARS - 5) || t("layouts.untitled");
  if (!names.has(stem)) return stem;
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})`;
    if (!names.has(candidate)) return candidate;
  }
}

/**
 * A file name for an exported layout: `<name>.layout.json`, with anything
 * a file system might refuse replaced by `_`.
 * @param {string} name
 * @returns {string}
 */
export function exportFileName(name) {
  const safe = name
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/g, "_")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 80);
  return `${safe || "layout"}.layout.json`;
}

/**
 * Reads a layout file: a layout object, or `{"layout": {...}}` as the
 * save route takes it.
 * @param {string} text
 * @returns {Layout}
 * @throws {Error} with a message fit to show
 */
export function parseLayoutFile(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(
      t("layouts.file.notJson", {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }
  if (data && typeof data === "object" && !Array.isArray(data)) {
    if (data.layout && typeof data.layout === "object") data = data.layout;
    if (typeof data.name === "string") return data;
    if (data.layouts) {
      throw new Error(
        t("layouts.file.wholeFile"),
      );
    }
  }
  throw new Error(t("layouts.file.expected"));
}

/**
 * Counts a layout's charts.
 * @param {{categories: {charts: unknown[]}[]}} layout
 * @returns {number}
 */
export function chartCount(layout) {
  return layout.categories.reduce((n, c) => n + c.charts.length, 0);
}

/**
 * @param {unknown} value
 * @param {string} fallback
 * @returns {string}
 */
function stringOr(value, fallback) {
  return typeof value === "string" ? value : fallback;
}

/**
 * @param {unknown} value
 * @returns {string[]}
 */
function stringList(value) {
  return Array.isArray(value) ? value.filter((v) => typeof v === "string") : [];
}
