// The cards of the layout editor's form: one per category, holding one per
// chart. Typing edits the draft in place and calls `host.changed()`;
// adding, removing or moving calls `host.restructure()`, which rebuilds
// the form.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import {
  addButton,
  segmented,
  textInput,
  toolButton,
} from "./editor_controls.js";
import {
  displayField,
  marginField,
  patternsField,
  runsField,
} from "./editor_fields.js";
import {
  blankChart,
  MAX_CHARTS_PER_CATEGORY,
  MAX_TITLE_CHARS,
} from "./schema.js";

/**
 * @typedef {import("./schema.js").DraftChart} DraftChart
 *
 * @typedef {Object} FormHost what the form needs from the editor
 * @property {() => void} changed text changed: preview, indicator, owner
 * @property {(focus?: string | null) => void} restructure the draft's shape
 *     changed: rebuild the form (then focus `data-focus` = focus)
 * @property {<T>(list: T[], index: number, step: number) => void} move
 *     swaps an item with its neighbour (-1 up, +1 down) and rebuilds
 * @property {(ci: number) => Promise<void>} deleteCategory asks first when
 *     the category has charts
 * @property {(key: string, refs: ChartRefs) => void} addRefs records a
 *     chart card's elements under "category:chart"
 * @property {string} tagListId the tag suggestions' `<datalist>` id
 * @property {string} metricListId the metric name suggestions' id
 */

/**
 * @typedef {Object} ChartRefs the elements of one chart card
 * @property {HTMLElement} element
 * @property {({input: HTMLInputElement, count: HTMLElement,
 *     result: HTMLElement} | undefined)[]} rows
 * @property {({count: HTMLElement, result: HTMLElement} | undefined)[]} series
 * @property {HTMLElement} runsResult
 * @property {HTMLInputElement} [runsInput]
 * @property {HTMLElement} summary
 * @property {HTMLElement} chartHost the chart drawn from the preview
 * @property {HTMLElement} problem the validation problem in user words
 */

/**
 * A category's card: title, collapsed, move / delete, its charts.
 * @param {FormHost} host
 * @param {import("./schema.js").DraftCategory[]} categories the draft's
 * @param {number} ci
 * @returns {HTMLElement}
 */
export function categoryCard(host, categories, ci) {
  const category = categories[ci];
  const title = textInput({
    value: category.title,
    label: t("layouts.ecat.title"),
    placeholder: t("layouts.ecat.title.placeholder"),
    maxLength: MAX_TITLE_CHARS,
    field: "category-title",
    focus: `category-${ci}`,
    onInput: (value) => {
      category.title = value;
      host.changed();
    },
  });
  const closed = h("input", {
    attrs: { type: "checkbox" },
    dataset: { field: "closed" },
    on: {
      change: () => {
        category.closed = closed.checked;
        host.changed();
      },
    },
  });
  closed.checked = category.closed;
  return h(
    "section",
    { className: "tbmf-lay-ecat", dataset: { category: String(ci) } },
    h(
      "header",
      { className: "tbmf-lay-ecat__head" },
      h("span", { className: "tbmf-lay-ecat__index", text: String(ci + 1) }),
      title,
      h(
        "label",
        {
          className: "tbmf-lay-check",
          title: t("layouts.ecat.collapsed.title"),
        },
        closed,
        h("span", { text: t("layouts.ecat.collapsed") }),
      ),
      h(
        "span",
        { className: "tbmf-lay-tools" },
        toolButton(
          "arrowUp",
          t("layouts.ecat.up"),
          "move-up",
          ci === 0,
          () => host.move(categories, ci, -1),
        ),
        toolButton(
          "arrowDown",
          t("layouts.ecat.down"),
          "move-down",
          ci === categories.length - 1,
          () => host.move(categories, ci, 1),
        ),
        toolButton(
          "delete",
          t("layouts.ecat.delete"),
          "delete-category",
          false,
          () => void host.deleteCategory(ci),
        ),
      ),
    ),
    h(
      "div",
      { className: "tbmf-lay-ecat__charts" },
      category.charts.map((_chart, hi) =>
        chartCard(host, category.charts, ci, hi),
      ),
    ),
    addButton(
      t("layouts.ecat.addChart"),
      "add-chart",
      category.charts.length >= MAX_CHARTS_PER_CATEGORY,
      () => {
        category.charts.push(blankChart());
        host.restructure(`chart-${ci}-${category.charts.length - 1}`);
      },
    ),
  );
}

/**
 * A chart's card: title, kind, move / delete, its fields, the preview's
 * summary and chart.
 * @param {FormHost} host
 * @param {DraftChart[]} charts the category's
 * @param {number} ci
 * @param {number} hi
 * @returns {HTMLElement}
 */
export function chartCard(host, charts, ci, hi) {
  const chart = charts[hi];
  /** @type {ChartRefs} */
  const refs = {
    element: h("article", {
      className: "tbmf-lay-echart",
      dataset: { category: String(ci), chart: String(hi), kind: chart.kind },
    }),
    rows: [],
    series: [],
    runsResult: h("div", { className: "tbmf-lay-field__result" }),
    summary: h("div", {
      className: "tbmf-lay-echart__summary",
      attrs: { "aria-live": "polite" },
    }),
    chartHost: h("div", {
      className: "tbmf-lay-echart__chart",
      attrs: { hidden: true },
    }),
    problem: h("div", {
      className: "tbmf-lay-field-problem",
      attrs: { hidden: true, role: "status" },
      dataset: { problem: "chart" },
    }),
  };
  host.addRefs(`${ci}:${hi}`, refs);

  const title = textInput({
    value: chart.title,
    label: t("layouts.echart.title"),
    placeholder: t("layouts.echart.title"),
    maxLength: MAX_TITLE_CHARS,
    field: "chart-title",
    focus: `chart-${ci}-${hi}`,
    onInput: (value) => {
      chart.title = value;
      host.changed();
    },
  });
  const kind = segmented(
    t("layouts.echart.kind"),
    [
      {
        value: "multiline",
        label: t("layouts.echart.multiline"),
        title: t("layouts.echart.multiline.title"),
      },
      {
        value: "margin",
        label: t("layouts.echart.margin"),
        title: t("layouts.echart.margin.title"),
      },
    ],
    chart.kind,
    "kind",
    (value) => {
      chart.kind = /** @type {'multiline' | 'margin'} */ (value);
      host.restructure();
    },
  );
  refs.element.append(
    h(
      "header",
      { className: "tbmf-lay-echart__head" },
      title,
      kind,
      h(
        "span",
        { className: "tbmf-lay-tools" },
        toolButton("arrowUp", t("layouts.echart.up"), "move-up", hi === 0, () =>
          host.move(charts, hi, -1),
        ),
        toolButton(
          "arrowDown",
          t("layouts.echart.down"),
          "move-down",
          hi === charts.length - 1,
          () => host.move(charts, hi, 1),
        ),
        toolButton("delete", t("layouts.echart.delete"), "delete-chart", false, () => {
          charts.splice(hi, 1);
          host.restructure();
        }),
      ),
    ),
    refs.problem,
    h(
      "div",
      { className: "tbmf-lay-echart__body" },
      h(
        "div",
        { className: "tbmf-lay-echart__select" },
        chart.kind === "multiline"
          ? patternsField(host, chart, ci, hi, refs)
          : marginField(host, chart, ci, hi, refs),
        runsField(host, chart, refs),
      ),
      displayField(host, chart),
    ),
    refs.summary,
    refs.chartHost,
  );
  return refs.element;
}
