// The Compare view's toolbar: x axis, smoothing (slider debounced, mode),
// log y and ignore outliers, baseline and difference mode, the groups
// controls, and under "More" resolution, tooltip rows, batch values and
// superseded attempts. Every control writes the URL state; `render`
// shows the state.

import { h, icon, setChildren } from "../../dom.js";
import { formatInt } from "../../format.js";
import {
  DENSE_MARKERS,
  MARKER_MODES,
  MARKERS_ALL_UP_TO,
} from "../../anomalylayer.js";
import { markInput } from "../../perf.js";
import {
  getPref,
  setPref,
  TOOLTIP_ROW_CHOICES,
  TOOLTIP_ROWS_PREF,
  DEFAULT_TOOLTIP_ROWS,
} from "../../prefs.js";
import { AXES, DEFAULT_AXIS } from "./axes.js";
import { setBaselineOptions } from "./baselineselect.js";
import { movedLegacyCenter } from "./groupcontrols.js";
import { DEFAULT_POINTS, MAX_POINTS } from "./panelrequest.js";
import { COMPARE_KEYS, MAX_SMOOTHING, readCompareState } from "./viewstate.js";

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./viewstate.js").CompareState} CompareState
 */

/** Ways to show batch-level series (`batchValues` of `GET scalars`). */
const BATCH_VALUE_CHOICES = [
  ["logged", "as logged"],
  ["per_batch", "per-batch values"],
  ["running_mean", "running means"],
];
const BATCH_VALUES_HELP =
  "Keras logs batch_* as running means since the epoch began; PyTorch and " +
  "Paddle loops log each batch's value. Show running means as per-batch " +
  "values (v_b = b·m_b − (b−1)·m_(b−1)) or per-batch values as running " +
  "means, so both are compared like for like. Other series are unchanged.";
const ATTEMPTS_HELP =
  "A resumed run logs steps again: by default each step shows the latest " +
  "point. Also draw the points an earlier attempt logged there, faint and " +
  "dashed.";
/** Resolutions offered (buckets a series); the URL may ask for others. */
const POINT_CHOICES = [100, 250, 500, 1000, 2000, 5000, 10000, MAX_POINTS];
/** Milliseconds of slider quiet before the smoothing is applied. */
const SMOOTHING_DEBOUNCE_MS = 150;
const TIME_SMOOTHING_HELP =
  "Time-weighted: an EMA that decays with distance on the x axis instead " +
  "of with the number of points. A point one median gap back weighs w, ten " +
  "gaps back w¹⁰, however many points lie between. Use it on the relative " +
  "or wall axis, or when runs log at different rates. With evenly spaced " +
  "points it equals TensorBoard's EMA.";
const EMA_SMOOTHING_HELP =
  "TensorBoard's debiased EMA over point index, computed on the server over " +
  "every point before downsampling.";

export class CompareToolbar {
  /**
   * @param {ViewContext} ctx
   * @param {import("./groupcontrols.js").GroupControls} groupControls
   */
  constructor(ctx, groupControls) {
    this.ctx = ctx;
    this.groupControls = groupControls;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._smoothingTimer = null;
    /** The last smoothing input, where its timing starts. */
    /** @type {Event | null} */
    this._smoothingEvent = null;
    const state = ctx.state;
    this._axisButtons = AXES.map((axis) =>
      h("button", {
        className: "tbmf-cmp-seg__item",
        text: axis.label,
        title: axis.help,
        attrs: { type: "button", "aria-pressed": "false" },
        dataset: { axis: axis.id },
        on: {
          click: (event) => {
            markInput("axis", event);
            state.update({
              [COMPARE_KEYS.axis]: axis.id === DEFAULT_AXIS ? null : axis.id,
              // A window on one axis means nothing on another.
              [COMPARE_KEYS.zoom]: null,
            });
          },
        },
      }),
    );
    this._smoothing = h("input", {
      className: "tbmf-cmp-slider",
      attrs: {
        type: "range",
        min: 0,
        max: MAX_SMOOTHING,
        step: 0.01,
        "aria-label": "Smoothing",
      },
      dataset: { control: "smoothing" },
      on: {
        input: (event) => this._onSmoothingInput(event),
        change: (event) => this._commitSmoothing(event),
      },
    });
    this._smoothingValue = h("output", {
      className: "tbmf-cmp-slider__value",
    });
    this._smoothingMode = h(
      "select",
      {
        className: "tbmf-cmp-select tbmf-cmp-select--mode",
        title: EMA_SMOOTHING_HELP,
        attrs: { "aria-label": "Smoothing mode" },
        dataset: { control: "smoothing-mode" },
        on: {
          change: (event) => {
            markInput("smoothing-mode", event);
            state.update({
              [COMPARE_KEYS.smoothingMode]:
                this._smoothingMode.value === "time" ? "time" : null,
            });
          },
        },
      },
      h("option", {
        text: "EMA",
        title: EMA_SMOOTHING_HELP,
        attrs: { value: "ema" },
      }),
      h("option", {
        text: "time-weighted",
        title: TIME_SMOOTHING_HELP,
        attrs: { value: "time" },
      }),
    );
    this._logY = h(
      "button",
      {
        className: "tbmf-cmp-toggle",
        title: "Logarithmic y axis (values ≤ 0 are not drawn)",
        attrs: { type: "button", "aria-pressed": "false" },
        dataset: { control: "log-y" },
        on: {
          click: (event) => {
            markInput("log-y", event);
            state.update({
              [COMPARE_KEYS.logY]: readCompareState(state).logY ? null : "1",
            });
          },
        },
      },
      icon("logScale", { size: 16 }),
      h("span", { text: "log y" }),
    );
    this._outliers = h("button", {
      className: "tbmf-cmp-toggle",
      text: "ignore outliers",
      title:
        "Fit the y axis to the bulk of the curves (0.5–99.5 percentile of " +
        "the drawn values, plus a margin). Points outside are marked with a " +
        "chevron at the top or bottom edge and listed in the tooltip: no " +
        "spike disappears.",
      attrs: { type: "button", "aria-pressed": "true" },
      dataset: { control: "outliers" },
      on: {
        click: (event) => {
          markInput("outliers", event);
          state.update({
            [COMPARE_KEYS.outliers]: readCompareState(state).ignoreOutliers
              ? "0"
              : null,
          });
        },
      },
    });
    this._markers = h("select", {
      className: "tbmf-cmp-select",
      title:
        "Anomaly markers on the chart: off, the hovered run's, or all. " +
        `Auto: all, or the hovered run's once the chart draws more than ` +
        `${MARKERS_ALL_UP_TO} runs with more than ${DENSE_MARKERS} ` +
        `findings; more than ${DENSE_MARKERS} in view are summarised, one ` +
        "mark per run and kind. Click a marker for what was found.",
      attrs: { "aria-label": "Anomaly markers" },
      dataset: { control: "anomaly-markers" },
      on: {
        change: (event) => {
          markInput("anomaly-markers", event);
          state.update({ [COMPARE_KEYS.markers]: this._markers.value || null });
        },
      },
    });
    this._baseline = h("select", {
      className: "tbmf-cmp-select tbmf-cmp-select--wide",
      title: "Draw each run's difference from this run",
      attrs: { "aria-label": "Baseline run" },
      dataset: { control: "baseline" },
      on: {
        change: (event) => {
          markInput("baseline", event);
          state.update({
            [COMPARE_KEYS.baseline]: this._baseline.value || null,
          });
        },
      },
    });
    this._diffButtons = /** @type {const} */ (["difference", "ratio"]).map(
      (mode) =>
        h("button", {
          className: "tbmf-cmp-seg__item",
          text: mode === "difference" ? "A − B" : "A ÷ B",
          title:
            mode === "difference"
              ? "Difference: run − baseline"
              : "Ratio: run ÷ baseline (gap where the baseline is 0)",
          attrs: { type: "button", "aria-pressed": "false" },
          dataset: { diffMode: mode },
          on: {
            click: (event) => {
              markInput("diff-mode", event);
              state.update({
                [COMPARE_KEYS.diffMode]: mode === "ratio" ? "ratio" : null,
              });
            },
          },
        }),
    );
    this._points = h("select", {
      className: "tbmf-cmp-select",
      title:
        "Buckets a series is cut into on x; each keeps its first, last, min " +
        "and max point, so spikes survive at any resolution",
      attrs: { "aria-label": "Points a series" },
      dataset: { control: "points" },
      on: {
        change: (event) => {
          markInput("points", event);
          const points = Number(this._points.value);
          state.update({
            [COMPARE_KEYS.points]:
              points === DEFAULT_POINTS ? null : String(points),
          });
        },
      },
    });

    this._attempts = h(
      "button",
      {
        className: "tbmf-cmp-toggle",
        title: ATTEMPTS_HELP,
        attrs: { type: "button", "aria-pressed": "false" },
        dataset: { control: "attempts" },
        on: {
          click: () =>
            state.update({
              // `ca` was the group center too: keep an old link's median.
              ...movedLegacyCenter(state),
              [COMPARE_KEYS.attempts]: readCompareState(state).allAttempts
                ? null
                : "all",
            }),
        },
      },
      h("span", { text: "superseded" }),
    );
    this._batchValues = h(
      "select",
      {
        className: "tbmf-cmp-select",
        title: BATCH_VALUES_HELP,
        attrs: { "aria-label": "Batch values" },
        dataset: { control: "batch-values" },
        on: {
          change: () =>
            state.update({
              [COMPARE_KEYS.batchValues]:
                this._batchValues.value === "logged"
                  ? null
                  : this._batchValues.value,
            }),
        },
      },
      BATCH_VALUE_CHOICES.map(([value, text]) =>
        h("option", { text, attrs: { value } }),
      ),
    );

    this.element = h(
      "div",
      { className: "tbmf-cmp-toolbar" },
      group(
        "X axis",
        h(
          "span",
          {
            className: "tbmf-cmp-seg",
            attrs: { role: "group", "aria-label": "X axis" },
          },
          this._axisButtons,
        ),
      ),
      group(
        "Smoothing",
        h(
          "span",
          { className: "tbmf-cmp-smoothing" },
          this._smoothing,
          this._smoothingValue,
          this._smoothingMode,
          h(
            "span",
            {
              className: "tbmf-cmp-help",
              title: `${EMA_SMOOTHING_HELP}\n\n${TIME_SMOOTHING_HELP}`,
              attrs: {
                tabindex: "0",
                role: "img",
                "aria-label": `${EMA_SMOOTHING_HELP} ${TIME_SMOOTHING_HELP}`,
              },
            },
            icon("info", { size: 16 }),
          ),
        ),
      ),
      group(
        "Y axis",
        h(
          "span",
          { className: "tbmf-cmp-yaxis" },
          this._logY,
          this._outliers,
          this._markers,
        ),
      ),
      group(
        "Baseline",
        h(
          "span",
          { className: "tbmf-cmp-baseline" },
          this._baseline,
          h(
            "span",
            {
              className: "tbmf-cmp-seg",
              attrs: { role: "group", "aria-label": "Difference mode" },
            },
            this._diffButtons,
          ),
        ),
      ),
      h(
        "details",
        { className: "tbmf-cmp-more", dataset: { control: "more" } },
        h(
          "summary",
          {
            className: "tbmf-cmp-toggle tbmf-cmp-more__button",
            title: "Resolution, tooltip, batch values, attempts",
          },
          icon("tune", { size: 16 }),
          h("span", { text: "More" }),
        ),
        h(
          "div",
          { className: "tbmf-cmp-more__panel" },
          group("Points / series", this._points),
          group("Tooltip", this._tooltipRows()),
          group("Batch values", this._batchValues),
          group("Attempts", this._attempts),
        ),
      ),
      group("Groups", this.groupControls.element),
    );
  }

  /** @returns {HTMLSelectElement} rows a tooltip lists (a preference) */
  _tooltipRows() {
    const select = h(
      "select",
      {
        className: "tbmf-cmp-select",
        title:
          "Rows a chart's tooltip lists: the series under the cursor first, " +
          "then the nearest ones",
        attrs: { "aria-label": "Tooltip rows" },
        dataset: { control: "tooltip-rows" },
        on: {
          change: () =>
            setPref(
              TOOLTIP_ROWS_PREF,
              Number(select.value) === DEFAULT_TOOLTIP_ROWS
                ? null
                : select.value,
            ),
        },
      },
      TOOLTIP_ROW_CHOICES.map((rows) =>
        h("option", {
          text: rows === 0 ? "all rows" : `${rows} rows`,
          attrs: { value: rows },
        }),
      ),
    );
    select.value = getPref(TOOLTIP_ROWS_PREF, String(DEFAULT_TOOLTIP_ROWS));
    if (select.selectedIndex < 0) select.value = String(DEFAULT_TOOLTIP_ROWS);
    return select;
  }

  /** @param {Event} event */
  _onSmoothingInput(event) {
    this._smoothingValue.textContent = Number(this._smoothing.value).toFixed(2);
    this._smoothingEvent = event;
    if (this._smoothingTimer !== null) clearTimeout(this._smoothingTimer);
    this._smoothingTimer = setTimeout(
      () => this._commitSmoothing(event),
      SMOOTHING_DEBOUNCE_MS,
    );
  }

  /** @param {Event} [event] the last input (the debounce counts too) */
  _commitSmoothing(event) {
    if (this._smoothingTimer !== null) clearTimeout(this._smoothingTimer);
    this._smoothingTimer = null;
    const value = Math.min(Number(this._smoothing.value), MAX_SMOOTHING);
    const current = readCompareState(this.ctx.state).smoothing;
    if (Number(value.toFixed(2)) !== current) {
      markInput("smoothing", this._smoothingEvent ?? event);
    }
    this._smoothingEvent = null;
    this.ctx.state.update({
      [COMPARE_KEYS.smoothing]: value > 0 ? value.toFixed(2) : null,
    });
  }

  destroy() {
    if (this._smoothingTimer !== null) clearTimeout(this._smoothingTimer);
  }

  /**
   * @param {CompareState} s
   * @param {string[]} candidates runs that may serve as baseline
   * @param {string[]} groups groups of the last grouped answer (baseline
   *     group choices)
   */
  render(s, candidates, groups) {
    this.groupControls.render(groups);
    for (const button of this._axisButtons) {
      const on = button.dataset.axis === s.axis;
      button.classList.toggle("is-on", on);
      button.setAttribute("aria-pressed", String(on));
    }
    if (
      this._smoothingTimer === null &&
      document.activeElement !== this._smoothing
    ) {
      this._smoothing.value = String(s.smoothing);
    }
    this._smoothingValue.textContent = Number(this._smoothing.value).toFixed(2);
    this._smoothingMode.value = s.smoothingMode;
    this._smoothingMode.title =
      s.smoothingMode === "time" ? TIME_SMOOTHING_HELP : EMA_SMOOTHING_HELP;
    this._logY.classList.toggle("is-on", s.logY);
    this._logY.setAttribute("aria-pressed", String(s.logY));
    this._outliers.classList.toggle("is-on", s.ignoreOutliers);
    this._outliers.setAttribute("aria-pressed", String(s.ignoreOutliers));
    const auto = "anomalies: auto";
    if (this._markers.options[0]?.text !== auto) {
      this._markers.replaceChildren(
        h("option", { text: auto, attrs: { value: "" } }),
        ...Object.entries(MARKER_MODES).map(([value, text]) =>
          h("option", { text: `anomalies: ${text}`, attrs: { value } }),
        ),
      );
    }
    this._markers.value = s.markers ?? "";
    this._attempts.classList.toggle("is-on", s.allAttempts);
    this._attempts.setAttribute("aria-pressed", String(s.allAttempts));
    this._batchValues.value = s.batchValues;

    setBaselineOptions(
      this._baseline,
      candidates,
      s.baseline,
      "not selected or no such series",
    );
    const hasBaseline = this._baseline.value !== "";
    for (const button of this._diffButtons) {
      const on = button.dataset.diffMode === s.diffMode;
      button.classList.toggle("is-on", on);
      button.setAttribute("aria-pressed", String(on));
      button.disabled = !hasBaseline;
    }

    const choices = POINT_CHOICES.includes(s.points)
      ? POINT_CHOICES
      : [...POINT_CHOICES, s.points].sort((a, b) => a - b);
    setChildren(
      this._points,
      choices.map((points) =>
        h("option", {
          text: formatInt(points),
          attrs: { value: points },
        }),
      ),
    );
    this._points.value = String(s.points);
  }
}

/**
 * A labelled group of controls in the toolbar.
 * @param {string} label
 * @param {HTMLElement} control
 * @returns {HTMLElement}
 */
function group(label, control) {
  return h(
    "div",
    { className: "tbmf-cmp-toolbar__group" },
    h("span", { className: "tbmf-cmp-toolbar__label", text: label }),
    control,
  );
}
