// Live preview for the editor: what each regex of a draft matches, and why
// a regex is invalid. `POST layout_preview` answers per chart; to answer per
// regex the editor also sends a "probe" layout with one chart per regex
// (same run filter), and reads each probe chart's matches and errors.

import { runColor } from "../../colors.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { previewLayout } from "./api.js";
import { icon } from "./icons.js";
import { MAX_CATEGORIES, serializeLayout } from "./schema.js";

/**
 * @typedef {import("./schema.js").Draft} Draft
 * @typedef {import("./api.js").ChartPreview} ChartPreview
 * @typedef {import("./api.js").PreviewMatch} PreviewMatch
 * @typedef {import("./api.js").RegexError} RegexError
 *
 * @typedef {Object} PatternResult one regex row
 * @property {PreviewMatch[]} matches
 * @property {number} total
 * @property {RegexError | null} error
 *
 * @typedef {Object} DraftPreview
 * @property {string | null} error why the draft cannot be saved yet
 * @property {Map<string, ChartPreview>} charts "category:chart" → preview
 * @property {Map<string, PatternResult>} patterns
 *     "category:chart:row" → the row's own matches
 */

/** Pairs listed under a regex before "+N more". */
export const LISTED_PAIRS = 12;

/**
 * Previews a draft: the layout as it would be saved, and each regex row.
 * @param {Draft} draft
 * @param {AbortSignal} signal
 * @returns {Promise<DraftPreview>}
 */
export async function previewDraft(draft, signal) {
  const probe = buildProbe(draft);
  const [real, rows] = await Promise.all([
    previewLayout(serializeLayout(draft), signal),
    probe.layout.categories.length
      ? previewLayout(probe.layout, signal)
      : Promise.resolve({ error: null, charts: [] }),
  ]);
  /** @type {Map<string, PatternResult>} */
  const patterns = new Map();
  for (const chart of rows.charts) {
    const where = probe.index[chart.category];
    if (!where) continue;
    const row = where.rows[chart.chart];
    if (row === undefined) continue;
    const error =
      chart.regexErrors.find((e) => /\.(tags|metrics)\[0\]$/.test(e.path)) ??
      null;
    patterns.set(`${where.category}:${where.chart}:${row}`, {
      matches: chart.matches,
      total: chart.totalMatches,
      error,
    });
  }
  return {
    error: real.error,
    charts: new Map(real.charts.map((c) => [`${c.category}:${c.chart}`, c])),
    patterns,
  };
}

/**
 * One probe chart per non-blank regex of each multiline chart, one probe
 * category per chart (the server reads at most MAX_CATEGORIES).
 * @param {Draft} draft
 * @returns {{layout: {name: string, categories: object[]},
 *     index: {category: number, chart: number, rows: number[]}[]}}
 */
export function buildProbe(draft) {
  /** @type {object[]} */
  const categories = [];
  /** @type {{category: number, chart: number, rows: number[]}[]} */
  const index = [];
  draft.categories.forEach((category, ci) => {
    category.charts.forEach((chart, hi) => {
      if (chart.kind !== "multiline" || categories.length >= MAX_CATEGORIES) {
        return;
      }
      /** @type {number[]} */
      const rows = [];
      /** @type {object[]} */
      const charts = [];
      chart.patterns.forEach((pattern, k) => {
        if (!pattern) return;
        rows.push(k);
        charts.push({
          title: "",
          kind: "multiline",
          [chart.mode]: [pattern],
          runs: chart.runs || null,
        });
      });
      if (charts.length) {
        categories.push({ title: "", charts });
        index.push({ category: ci, chart: hi, rows });
      }
    });
  });
  return { layout: { name: "preview", categories }, index };
}

/**
 * An invalid regex, explained: the server's message, and the pattern with
 * a caret under the position it names.
 * @param {RegexError} error
 * @returns {HTMLElement}
 */
export function regexErrorBox(error) {
  const caret =
    error.position === null || error.position === undefined
      ? null
      : h("pre", {
          className: "tbmf-lay-caret",
          text: `${error.pattern}\n${" ".repeat(Math.max(0, error.position))}^`,
          dataset: { position: String(error.position) },
        });
  return h(
    "div",
    {
      className: "tbmf-lay-rx-error",
      attrs: { role: "alert" },
      dataset: {
        position: error.position == null ? "" : String(error.position),
      },
    },
    h(
      "div",
      { className: "tbmf-lay-rx-error__message" },
      icon("error", { size: 15 }),
      h("span", {
        className: "tbmf-lay-rx-error__text",
        text:
          error.position == null || /position \d/.test(error.message)
            ? error.message
            : t("layouts.regex.atPosition", {
                message: error.message,
                position: error.position,
              }),
      }),
    ),
    caret,
  );
}

/**
 * The (run, tag) pairs a regex matches, as chips in the runs' colours.
 * @param {{runs: {run: string}[]}} catalog
 * @param {PreviewMatch[]} matches
 * @param {number} total
 * @param {{isSelected: (run: string) => boolean}} state
 * @returns {HTMLElement}
 */
export function pairList(catalog, matches, total, state) {
  const list = h("ul", { className: "tbmf-lay-pairs" });
  const chip = (/** @type {PreviewMatch} */ m) =>
    h(
      "li",
      {
        className: `tbmf-lay-pair${state.isSelected(m.run) ? "" : " is-unselected"}`,
        dataset: { run: m.run, tag: m.tag },
        title: state.isSelected(m.run)
          ? `${m.run} · ${m.tag}${
              m.metric ? `\n${t("layouts.pair.metric", { metric: m.metric })}` : ""
            }`
          : t("layouts.pair.notSelected", { run: m.run }),
      },
      h("span", {
        className: "tbmf-dot",
        style: { "--dot": runColor(catalog, m.run) },
      }),
      h("span", { className: "tbmf-lay-pair__run", text: m.run }),
      h("span", { className: "tbmf-lay-pair__tag", text: m.tag }),
    );
  list.append(...matches.slice(0, LISTED_PAIRS).map(chip));
  const hidden = matches.length - LISTED_PAIRS;
  if (hidden > 0) {
    const more = h("button", {
      className: "tbmf-lay-pairs__more",
      text: t("layouts.pair.more", { n: hidden }),
      attrs: { type: "button" },
      on: {
        click: () => {
          more.remove();
          list.append(...matches.slice(LISTED_PAIRS).map(chip));
        },
      },
    });
    list.append(h("li", {}, more));
  }
  if (total > matches.length) {
    list.append(
      h("li", {
        className: "tbmf-muted",
        text: t("layouts.pair.total", { n: total }),
      }),
    );
  }
  return list;
}
