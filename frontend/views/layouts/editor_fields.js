// The fields of a layout editor chart card: the regex rows of a multiline
// chart, the value / lower / upper rows of a margin chart, the run regex,
// and the display settings (x axis, smoothing, log y).

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { AXES } from "../compare/axes.js";
import { addButton, segmented, toolButton } from "./editor_controls.js";
import {
  MAX_PATTERNS_PER_CHART,
  MAX_REGEX_CHARS,
  MAX_SMOOTHING,
} from "./schema.js";

/**
 * @typedef {import("./schema.js").DraftChart} DraftChart
 * @typedef {import("./editor_cards.js").FormHost} FormHost
 * @typedef {import("./editor_cards.js").ChartRefs} ChartRefs
 */

/**
 * The regex rows of a multiline chart.
 * @param {FormHost} host
 * @param {DraftChart} chart
 * @param {number} ci
 * @param {number} hi
 * @param {ChartRefs} refs
 * @returns {HTMLElement}
 */
export function patternsField(host, chart, ci, hi, refs) {
  const byMetric = chart.mode === "metrics";
  const mode = segmented(
    t("layouts.field.match"),
    [
      {
        value: "tags",
        label: t("layouts.field.rawTags"),
        title: t("layouts.field.rawTags.title"),
      },
      {
        value: "metrics",
        label: t("layouts.field.metricNames"),
        title: t("layouts.field.metricNames.title"),
      },
    ],
    chart.mode,
    "mode",
    (value) => {
      chart.mode = /** @type {'tags' | 'metrics'} */ (value);
      host.restructure();
    },
  );
  const rows = chart.patterns.map((pattern, k) => {
    const input = h("input", {
      className: "tbmf-lay-input tbmf-lay-input--mono",
      attrs: {
        type: "text",
        maxlength: MAX_REGEX_CHARS,
        spellcheck: "false",
        autocomplete: "off",
        list: byMetric ? host.metricListId : host.tagListId,
        placeholder: byMetric ? "loss/.*" : "Loss/.*",
        "aria-label": byMetric
          ? t("layouts.field.metricRegex", { k: k + 1 })
          : t("layouts.field.tagRegex", { k: k + 1 }),
      },
      dataset: { field: "pattern", focus: `pattern-${ci}-${hi}-${k}` },
      on: {
        input: () => {
          chart.patterns[k] = input.value;
          host.changed();
        },
      },
    });
    input.value = pattern;
    const count = h("span", { className: "tbmf-lay-count" });
    const result = h("div", { className: "tbmf-lay-field__result" });
    refs.rows[k] = { input, count, result };
    return h(
      "div",
      { className: "tbmf-lay-rx", dataset: { row: String(k) } },
      h(
        "div",
        { className: "tbmf-lay-rx__line" },
        input,
        count,
        toolButton(
          "close",
          t("layouts.field.removeRegex"),
          "remove-pattern",
          chart.patterns.length === 1 && pattern === "",
          () => {
            chart.patterns.splice(k, 1);
            if (chart.patterns.length === 0) chart.patterns.push("");
            host.restructure();
          },
        ),
      ),
      result,
    );
  });
  return h(
    "div",
    { className: "tbmf-lay-field" },
    h(
      "div",
      { className: "tbmf-lay-field__label" },
      h("span", { text: t("layouts.field.series") }),
      mode,
    ),
    h("p", {
      className: "tbmf-lay-hint",
      text: byMetric
        ? t("layouts.field.metricHint")
        : t("layouts.field.tagHint"),
    }),
    rows,
    addButton(
      t("layouts.field.addRegex"),
      "add-pattern",
      chart.patterns.length >= MAX_PATTERNS_PER_CHART,
      () => {
        chart.patterns.push("");
        host.restructure(`pattern-${ci}-${hi}-${chart.patterns.length - 1}`);
      },
    ),
  );
}

/**
 * The value/lower/upper rows of a margin chart.
 * @param {FormHost} host
 * @param {DraftChart} chart
 * @param {number} ci
 * @param {number} hi
 * @param {ChartRefs} refs
 * @returns {HTMLElement}
 */
export function marginField(host, chart, ci, hi, refs) {
  const rows = chart.series.map((series, k) => {
    const inputs = /** @type {const} */ (["value", "lower", "upper"]).map(
      (part) => {
        const input = h("input", {
          className: "tbmf-lay-input tbmf-lay-input--mono",
          attrs: {
            type: "text",
            maxlength: MAX_REGEX_CHARS,
            spellcheck: "false",
            autocomplete: "off",
            list: host.tagListId,
            placeholder: t(`layouts.margin.${part}Tag`),
            "aria-label": t("layouts.margin.partLabel", {
              k: k + 1,
              part: t(`layouts.margin.${part}Tag`),
            }),
          },
          dataset: {
            field: `series-${part}`,
            focus: `series-${ci}-${hi}-${k}-${part}`,
          },
          on: {
            input: () => {
              series[part] = input.value;
              host.changed();
            },
          },
        });
        input.value = series[part];
        return h(
          "label",
          { className: "tbmf-lay-margin__part" },
          h("span", { text: t(`layouts.margin.${part}`) }),
          input,
        );
      },
    );
    const result = h("div", { className: "tbmf-lay-field__result" });
    const count = h("span", { className: "tbmf-lay-count" });
    refs.series[k] = { count, result };
    return h(
      "div",
      { className: "tbmf-lay-margin", dataset: { row: String(k) } },
      h(
        "div",
        { className: "tbmf-lay-margin__line" },
        inputs,
        count,
        toolButton(
          "close",
          t("layouts.margin.remove"),
          "remove-series",
          chart.series.length === 1,
          () => {
            chart.series.splice(k, 1);
            host.restructure();
          },
        ),
      ),
      result,
    );
  });
  return h(
    "div",
    { className: "tbmf-lay-field" },
    h(
      "div",
      { className: "tbmf-lay-field__label" },
      h("span", { text: t("layouts.margin.series") }),
    ),
    h("p", {
      className: "tbmf-lay-hint",
      text: t("layouts.margin.hint"),
    }),
    rows,
    addButton(
      t("layouts.margin.add"),
      "add-series",
      chart.series.length >= MAX_PATTERNS_PER_CHART,
      () => {
        chart.series.push({ value: "", lower: "", upper: "" });
        host.restructure(`series-${ci}-${hi}-${chart.series.length - 1}-value`);
      },
    ),
  );
}

/**
 * @param {FormHost} host
 * @param {DraftChart} chart
 * @param {ChartRefs} refs
 * @returns {HTMLElement}
 */
export function runsField(host, chart, refs) {
  const input = h("input", {
    className: "tbmf-lay-input tbmf-lay-input--mono",
    attrs: {
      type: "text",
      maxlength: MAX_REGEX_CHARS,
      spellcheck: "false",
      autocomplete: "off",
      placeholder: t("layouts.runs.placeholder"),
      "aria-label": t("layouts.runs.regex"),
    },
    dataset: { field: "runs" },
    on: {
      input: () => {
        chart.runs = input.value;
        host.changed();
      },
    },
  });
  input.value = chart.runs;
  refs.runsInput = input;
  return h(
    "div",
    { className: "tbmf-lay-field" },
    h(
      "label",
      { className: "tbmf-lay-field__label" },
      h("span", { text: t("layouts.runs.label") }),
    ),
    input,
    refs.runsResult,
  );
}

/**
 * X axis, smoothing, log y.
 * @param {FormHost} host
 * @param {DraftChart} chart
 * @returns {HTMLElement}
 */
export function displayField(host, chart) {
  const axis = h(
    "select",
    {
      className: "tbmf-cmp-select",
      attrs: { "aria-label": t("layouts.toolbar.xAxis") },
      dataset: { field: "x" },
      on: {
        change: () => {
          chart.x = axis.value;
          host.changed();
        },
      },
    },
    AXES.map((a) =>
      h("option", {
        text: t(`axis.${a.id}`),
        title: t(`axis.${a.id}.help`),
        attrs: { value: a.id },
      }),
    ),
  );
  axis.value = chart.x;
  const margin = chart.kind === "margin";
  const smoothing = h("input", {
    className: "tbmf-lay-input tbmf-lay-input--number",
    attrs: {
      type: "number",
      min: 0,
      max: MAX_SMOOTHING,
      step: 0.05,
      disabled: margin,
      "aria-label": t("layouts.toolbar.smoothing"),
    },
    title: margin
      ? t("layouts.display.smoothing.margin")
      : t("layouts.display.smoothing.title"),
    dataset: { field: "smoothing" },
    on: {
      input: () => {
        const value = Number(smoothing.value);
        if (smoothing.value !== "" && value >= 0 && value <= MAX_SMOOTHING) {
          chart.smoothing = value;
          smoothing.classList.remove("is-invalid");
          host.changed();
        } else {
          smoothing.classList.add("is-invalid");
        }
      },
    },
  });
  smoothing.value = String(chart.smoothing);
  const logY = h("input", {
    attrs: { type: "checkbox" },
    dataset: { field: "logY" },
    on: {
      change: () => {
        chart.logY = logY.checked;
        host.changed();
      },
    },
  });
  logY.checked = chart.logY;
  return h(
    "div",
    { className: "tbmf-lay-echart__display" },
    h(
      "label",
      { className: "tbmf-lay-setting" },
      h("span", { text: t("layouts.toolbar.xAxis") }),
      axis,
    ),
    h(
      "label",
      { className: "tbmf-lay-setting" },
      h("span", { text: t("layouts.toolbar.smoothing") }),
      smoothing,
    ),
    h(
      "label",
      { className: "tbmf-lay-check" },
      logY,
      h("span", { text: t("layouts.display.logY") }),
    ),
  );
}
