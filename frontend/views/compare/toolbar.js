// The Compare view's toolbar: x axis, smoothing (slider debounced, mode),
// log y and ignore outliers, baseline and difference mode, the groups
// controls, and under "More" resolution, tooltip rows, batch values and
// superseded attempts. Every control writes the URL state; `render`
// shows the state.

import { h, icon, setChildren } from "../../dom.js";
import { formatInt } from "../../format.js";
import { t } from "../../i18n.js";
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
  ["logged", "cmp.batch.logged"],
  ["per_batch", "cmp.batch.perBatch"],
  ["running_mean", "cmp.batch.runningMean"],
];
/** Resolutions offered (buckets a series); the URL may ask for others. */
const POINT_CHOICES = [100, 250, 500, 1000, 2000, 5000, 10000, MAX_POINTS];
/** Milliseconds of slider quiet before the smoothing is applied. */
const SMOOTHING_DEBOUNCE_MS = 150;

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
    const emaHelp = t("cmp.smoothing.ema.help");
    const timeHelp = t("cmp.smoothing.time.help");
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
        "aria-label": t("cmp.smoothing"),
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
        title: emaHelp,
        attrs: { "aria-label": t("cmp.smoothing.mode") },
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
        text: t("cmp.smoothing.ema"),
        title: emaHelp,
        attrs: { value: "ema" },
      }),
      h("option", {
        text: t("cmp.smoothing.time"),
        title: timeHelp,
        attrs: { value: "time" },
      }),
    );
    this._logY = h(
      "button",
      {
        className: "tbmf-cmp-toggle",
        title: t("cmp.logY.help"),
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
      h("span", { text: t("cmp.logY") }),
    );
    this._outliers = h("button", {
      className: "tbmf-cmp-toggle",
      text: t("cmp.outliers"),
      title: t("cmp.outliers.help"),
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
      title: t("cmp.markers.help", {
        runs: MARKERS_ALL_UP_TO,
        findings: DENSE_MARKERS,
      }),
      attrs: { "aria-label": t("cmp.markers") },
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
      title: t("cmp.baseline.help"),
      attrs: { "aria-label": t("cmp.baseline.run") },
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
              ? t("cmp.diff.difference")
              : t("cmp.diff.ratio"),
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
      title: t("cmp.points.help"),
      attrs: { "aria-label": t("cmp.points.label") },
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
        title: t("cmp.attempts.help"),
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
      h("span", { text: t("cmp.attempts.superseded") }),
    );
    this._batchValues = h(
      "select",
      {
        className: "tbmf-cmp-select",
        title: t("cmp.batch.help"),
        attrs: { "aria-label": t("cmp.batch") },
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
      BATCH_VALUE_CHOICES.map(([value, key]) =>
        h("option", { text: t(key), attrs: { value } }),
      ),
    );

    this.element = h(
      "div",
      { className: "tbmf-cmp-toolbar" },
      group(
        t("cmp.xAxis"),
        h(
          "span",
          {
            className: "tbmf-cmp-seg",
            attrs: { role: "group", "aria-label": t("cmp.xAxis") },
          },
          this._axisButtons,
        ),
      ),
      group(
        t("cmp.smoothing"),
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
              title: `${emaHelp}\n\n${timeHelp}`,
              attrs: {
                tabindex: "0",
                role: "img",
                "aria-label": `${emaHelp} ${timeHelp}`,
              },
            },
            icon("info", { size: 16 }),
          ),
        ),
      ),
      group(
        t("cmp.yAxis"),
        h(
          "span",
          { className: "tbmf-cmp-yaxis" },
          this._logY,
          this._outliers,
          this._markers,
        ),
      ),
      group(
        t("cmp.baseline"),
        h(
          "span",
          { className: "tbmf-cmp-baseline" },
          this._baseline,
          h(
            "span",
            {
              className: "tbmf-cmp-seg",
              attrs: { role: "group", "aria-label": t("cmp.diff.mode") },
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
            title: t("cmp.more.help"),
          },
          icon("tune", { size: 16 }),
          h("span", { text: t("cmp.more") }),
        ),
        h(
          "div",
          { className: "tbmf-cmp-more__panel" },
          group(t("cmp.points"), this._points),
          group(t("cmp.tooltip"), this._tooltipRows()),
          group(t("cmp.batch"), this._batchValues),
          group(t("cmp.attempts"), this._attempts),
        ),
      ),
      group(t("cmp.groups"), this.groupControls.element),
    );
  }

  /** @returns {HTMLSelectElement} rows a tooltip lists (a preference) */
  _tooltipRows() {
    const select = h(
      "select",
      {
        className: "tbmf-cmp-select",
        title: t("cmp.tooltip.help"),
        attrs: { "aria-label": t("cmp.tooltip.rows") },
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
          text:
            rows === 0
              ? t("cmp.tooltip.allRows")
              : t("cmp.tooltip.nRows", { n: rows }),
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
      s.smoothingMode === "time"
        ? t("cmp.smoothing.time.help")
        : t("cmp.smoothing.ema.help");
    this._logY.classList.toggle("is-on", s.logY);
    this._logY.setAttribute("aria-pressed", String(s.logY));
    this._outliers.classList.toggle("is-on", s.ignoreOutliers);
    this._outliers.setAttribute("aria-pressed", String(s.ignoreOutliers));
    const auto = t("cmp.markers.auto");
    if (this._markers.options[0]?.text !== auto) {
      this._markers.replaceChildren(
        h("option", { text: auto, attrs: { value: "" } }),
        ...Object.entries(MARKER_MODES).map(([value, key]) =>
          h("option", {
            text: t("cmp.markers.mode", { mode: t(key) }),
            attrs: { value },
          }),
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
      t("cmp.baseline.missing"),

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
