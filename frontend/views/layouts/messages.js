// The layout schema's errors ("categories[0].charts[1].tags[2]: must not be
// an empty regex") in the words of the editor's form: which category and
// chart (by title), which field, and what to do. The server's text stays
// the fallback, so a rule added there is never hidden.

import { t } from "../../i18n.js";

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
    () => t("layouts.problem.needPattern"),
  ],
  [/must not be an empty regex/, () => t("layouts.problem.emptyPattern")],
  [
    /regex of \d+ characters, more than (\d+)/,
    (/** @type {string[]} */ m) => t("layouts.problem.longPattern", { n: m[1] }),
  ],
  [
    /^(.*) in regex ['"].*['"]$/s,
    (/** @type {string[]} */ m) =>
      t("layouts.problem.invalidPattern", { error: m[1] }),
  ],
  [/a margin chart needs a series/, () => t("layouts.problem.needSeries")],
  [
    /a margin chart names exact tags in 'series'/,
    () => t("layouts.problem.marginPatterns"),
  ],
  [/must name a tag, got ''/, () => t("layouts.problem.nameTag")],
  [
    /tag of \d+ characters, more than (\d+)/,
    (/** @type {string[]} */ m) => t("layouts.problem.longTag", { n: m[1] }),
  ],
  [/must be in \[0, 1\)/, () => t("layouts.problem.smoothing")],
  [/^must not be empty$/, () => t("layouts.problem.giveName")],
  [
    /^(\d+) characters, more than (\d+)/,
    (/** @type {string[]} */ m) =>
      t("layouts.problem.tooLong", { n: m[1], max: m[2] }),
  ],
  [/must not be only whitespace/, () => t("layouts.problem.onlySpaces")],
  [
    /must not start or end with whitespace/,
    () => t("layouts.problem.edgeSpaces"),
  ],
  [
    /control or invisible character (U\+[0-9A-F]+) at position (\d+)/,
    (/** @type {string[]} */ m) =>
      t("layouts.problem.invisible", {
        char: m[1],
        position: Number(m[2]) + 1,
      }),
  ],
  [
    /(\d+) entries, more than (\d+)/,
    (/** @type {string[]} */ m) =>
      t("layouts.problem.tooMany", { n: m[1], max: m[2] }),
  ],
  [
    /(\d+) bytes of JSON.*more than the (\d+) KiB allowed/,
    (/** @type {string[]} */ m) => t("layouts.problem.tooLarge", { kib: m[2] }),
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
      text: t("layouts.problem.name", { fix }),
      fix: sentence(fix),
      chart: null,
      scope: "name",
    };
  }
  if (!where) {
    return {
      text: sentence(fix),
      fix: sentence(fix),
      chart: null,
      scope: "layout",
    };
  }
  const ci = Number(where[1]);
  const category = draft.categories[ci];
  const categoryName = t("layouts.problem.categoryName", {
    title: quoted(category?.title, ci),
  });
  if (where[2] === undefined) {
    const field = path.slice(where[0].length);
    const what = field.startsWith(".charts") ? "charts" : "";
    const text = what
      ? t("layouts.problem.categoryTooMany", { category: categoryName, fix })
      : t("layouts.problem.category", { category: categoryName, fix });
    return { text, fix: sentence(fix), chart: null, scope: "category" };
  }
  const hi = Number(where[2]);
  const chart = category?.charts[hi];
  return {
    text: t("layouts.problem.chart", {
      category: categoryName,
      chart: quoted(chart?.title, hi),
      fix,
    }),
    fix: sentence(fix),
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
    return t("layouts.problem.nothingToSave");
  }
  if (draft.categories.every((category) => category.charts.length === 0)) {
    return t("layouts.problem.nothingToShow");
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
 * @param {string} fix
 * @returns {string} the fix as a sentence: capitalised, with its full stop
 */
function sentence(fix) {
  const text = t("layouts.problem.sentence", { fix });
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
