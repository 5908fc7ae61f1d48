// The fields of a layout editor chart card: the regex rows of a multiline
// chart, the value / lower / upper rows of a margin chart, the run regex,
// and the display settings (x axis, smoothing, log y).

import { h } from "../../dom.js";
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
    "Match",
    [
      {
        value: "tags",
        label: "Raw tags",
        title: "Regexes over each run's tag names, matched from the start",
      },
      {
        value: "metrics",
        label: "Metric names",
        title:
          "Regexes over canonical metric names (loss/train, accuracy/val): " +
          "one regex finds the same metric in every framework",
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
        "aria-label": `${byMetric ? "Metric" : "Tag"} regex ${k + 1}`,
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
          "Remove this regex",
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
      h("span", { text: "Series" }),
      mode,
    ),
    h("p", {
      className: "tbmf-lay-hint",
      text: byMetric
        ? "Python regexes over canonical names, matched from the start (re.match), in linear time (no backreferences or lookarounds)."
        : "Python regexes over raw tags, matched from the start (re.match), as TensorBoard does, in linear time (no backreferences or lookarounds); end with $ to match whole tags.",
    }),
    rows,
    addButton(
      "Add regex",
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
            placeholder: part === "value" ? "value tag" : `${part} tag`,
            "aria-label": `Margin series ${k + 1}: ${part} tag`,
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
          h("span", { text: part }),
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
          "Remove this series",
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
      h("span", { text: "Series (exact tag names)" }),
    ),
    h("p", {
      className: "tbmf-lay-hint",
      text: "A run is drawn when it logged all three tags: the value as a line, a band from lower to upper.",
    }),
    rows,
    addButton(
      "Add series",
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
      placeholder: "every run",
      "aria-label": "Run regex",
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
      h("span", { text: "Runs (optional regex, searched in run names)" }),
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
      attrs: { "aria-label": "X axis" },
      dataset: { field: "x" },
      on: {
        change: () => {
          chart.x = axis.value;
          host.changed();
        },
      },
    },
    AXES.map((a) =>
      h("option", { text: a.label, title: a.help, attrs: { value: a.id } }),
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
      "aria-label": "Smoothing",
    },
    title: margin
      ? "Margin charts are drawn as logged, without smoothing"
      : "TensorBoard's EMA weight, 0 (off) to 0.99",
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
      h("span", { text: "X axis" }),
      axis,
    ),
    h(
      "label",
      { className: "tbmf-lay-setting" },
      h("span", { text: "Smoothing" }),
      smoothing,
    ),
    h(
      "label",
      { className: "tbmf-lay-check" },
      logY,
      h("span", { text: "Log y" }),
    ),
  );
}
