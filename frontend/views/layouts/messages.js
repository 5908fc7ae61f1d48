// The layout schema's errors ("categories[0].charts[1].tags[2]: must not be
// an empty regex") in the words of the editor's form: which category and
// chart (by title), which field, and what to do. The server's text stays
// the fallback, so a rule added there is never hidden.

/**
 * @typedef {Object} Problem
 * @property {string} text the whole sentence, with where it is
 * @property {string} fix the sentence without the place (shown at the field)
 * @property {string | null} chart "category:chart" of the chart, if any
 * @property {'name' | 'category' | 'chart' | 'layout'} scope
 */

/** Server reasons, as patterns, and what the user reads instead. */
const REASONS = [
  [
    /a multiline chart needs exactly one of 'tags' and 'metrics' non-empty/,
    () =>
      "add a tag or metric pattern: a line chart draws the series its " +
      "patterns match",
  ],
  [/must not be an empty regex/, () => "a pattern is empty: type one or remove the row"],
  [
    /regex of \d+ characters, more than (\d+)/,
    (/** @type {string[]} */ m) => `a pattern is longer than ${m[1]} characters`,
  ],
  [
    /^(.*) in regex ['"].*['"]$/s,
    (/** @type {string[]} */ m) => `a pattern is not a valid regex (${m[1]})`,
  ],
  [
    /a margin chart needs a series/,
    () => "add a series: the value tag with its lower and upper tags",
  ],
  [
    /a margin chart names exact tags in 'series'/,
    () => "a band chart names its tags in the series fields, not as patterns",
  ],
  [/must name a tag, got ''/, () => "name a tag in every series field"],
  [
    /tag of \d+ characters, more than (\d+)/,
    (/** @type {string[]} */ m) => `a tag is longer than ${m[1]} characters`,
  ],
  [/must be in \[0, 1\)/, () => "smoothing goes from 0 up to 0.99"],
  [/^must not be empty$/, () => "give it a name"],
  [
    /^(\d+) characters, more than (\d+)/,
    (/** @type {string[]} */ m) =>
      `it is ${m[1]} characters long; at most ${m[2]} are allowed`,
  ],
  [/must not be only whitespace/, () => "it must not be only spaces"],
  [
    /must not start or end with whitespace/,
    () => "remove the spaces at its start or end",
  ],
  [
    /control or invisible character (U\+[0-9A-F]+) at position (\d+)/,
    (/** @type {string[]} */ m) =>
      `remove the invisible character ${m[1]} at position ${Number(m[2]) + 1}`,
  ],
  [
    /(\d+) entries, more than (\d+)/,
    (/** @type {string[]} */ m) => `at most ${m[2]} are allowed (${m[1]} now)`,
  ],
  [
    /(\d+) bytes of JSON.*more than the (\d+) KiB allowed/,
    (/** @type {string[]} */ m) =>
      `the layout is too large to save (more than ${m[2]} KiB)`,
  ],
];

/**
 * @param {string} error the server's "<path>: <reason>"
 * @param {{name: string, categories: {title: string,
 *     charts: {title: string}[]}[]}} draft the editor's draft
 * @returns {Problem}
 */
export function describeProblem(error, draft) {
  const split = /^([A-Za-z_\][0-9.]*): (.*)$/s.exec(error);
  const path = split ? split[1] : "";
  const reason = split ? split[2] : error;
  let fix = reason;
  for (const [pattern, say] of REASONS) {
    const match = /** @type {RegExp} */ (pattern).exec(reason);
    if (match) {
      fix = /** @type {(m: string[]) => string} */ (say)(match);
      break;
    }
  }
  const where = /^categories\[(\d+)\](?:\.charts\[(\d+)\])?/.exec(path);
  if (path === "name") {
    return {
      text: `Layout name: ${fix}.`,
      fix: capitalise(`${fix}.`),
      chart: null,
      scope: "name",
    };
  }
  if (!where) {
    return {
      text: capitalise(`${fix}.`),
      fix: capitalise(`${fix}.`),
      chart: null,
      scope: "layout",
    };
  }
  const ci = Number(where[1]);
  const category = draft.categories[ci];
  const categoryName = `Category ${quoted(category?.title, ci)}`;
  if (where[2] === undefined) {
    const field = path.slice(where[0].length);
    const what = field.startsWith(".charts") ? "charts" : "";
    const text = what
      ? `${categoryName}: too many charts; ${fix}.`
      : `${categoryName}: ${fix}.`;
    return { text, fix: capitalise(`${fix}.`), chart: null, scope: "category" };
  }
  const hi = Number(where[2]);
  const chart = category?.charts[hi];
  return {
    text: `${categoryName}, chart ${quoted(chart?.title, hi)}: ${fix}.`,
    fix: capitalise(`${fix}.`),
    chart: `${ci}:${hi}`,
    scope: "chart",
  };
}

/**
 * @param {{categories: {charts: unknown[]}[]}} draft
 * @returns {string} why a draft without charts is not ready, or ""
 */
export function emptyDraftProblem(draft) {
  if (draft.categories.length === 0) {
    return "Nothing to save yet: add a category, then a chart in it.";
  }
  if (draft.categories.every((category) => category.charts.length === 0)) {
    return "Nothing to show yet: add a chart to a category.";
  }
  return "";
}

/**
 * @param {string | undefined} title
 * @param {number} index 0-based
 * @returns {string} “Losses”, or #2 when untitled
 */
function quoted(title, index) {
  return title && title.trim() ? `“${title.trim()}”` : `#${index + 1}`;
}

/**
 * @param {string} text
 * @returns {string}
 */
function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
