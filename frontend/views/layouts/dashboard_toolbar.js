// The dashboard-wide controls of an open layout: one x axis for every
// chart (or each chart's own), one smoothing weight, the baseline run of the
// difference charts, and Expand all / Collapse all. The values live in the
// URL (the view's `lx`, `ls`, `lb`); the toolbar shows them and reports
// changes.

import { h } from "../../dom.js";
import { AXES } from "../compare/axes.js";
import { setBaselineOptions } from "../compare/baselineselect.js";
import { icon } from "./icons.js";

/**
 * @typedef {Object} DashboardSettings dashboard-wide overrides
 * @property {string | null} axis one x axis for every chart, or null
 * @property {number | null} smoothing one weight for every chart, or null
 * @property {string | null} baseline run for difference charts
 */

/** Smoothing weights the dashboard-wide control offers. */
const SMOOTHING_CHOICES = [0, 0.3, 0.6, 0.8, 0.9, 0.95, 0.99];

export class DashboardToolbar {
  /**
   * @param {Object} spec
   * @param {(patch: Partial<DashboardSettings>) => void} spec.onSettings
   * @param {(open: boolean) => void} spec.onFold open or close every
   *     category
   */
  constructor({ onSettings, onFold }) {
    /** @type {HTMLButtonElement[]} */
    this._axisButtons = [
      { id: "", label: "per chart", help: "Each chart's own x axis" },
      ...AXES.map((a) => ({ id: a.id, label: a.label, help: a.help })),
    ].map((axis) =>
      h("button", {
        className: "tbmf-cmp-seg__item",
        text: axis.label,
        title: axis.id ? `Every chart on: ${axis.help}` : axis.help,
        attrs: { type: "button", "aria-pressed": "false" },
        dataset: { axis: axis.id || "chart" },
        on: { click: () => onSettings({ axis: axis.id || null }) },
      }),
    );
    this._smoothing = h(
      "select",
      {
        className: "tbmf-cmp-select",
        title: "One smoothing weight for every chart, or each chart's own",
        attrs: { "aria-label": "Smoothing" },
        dataset: { control: "layout-smoothing" },
        on: {
          change: () =>
            onSettings({
              smoothing:
                this._smoothing.value === ""
                  ? null
                  : Number(this._smoothing.value),
            }),
        },
      },
      h("option", { text: "per chart", attrs: { value: "" } }),
      SMOOTHING_CHOICES.map((w) =>
        h("option", {
          text: w === 0 ? "0 (off)" : String(w),
          attrs: { value: String(w) },
        }),
      ),
    );
    this._baseline = h("select", {
      className: "tbmf-cmp-select tbmf-cmp-select--wide",
      title: "Add each chart's difference from this run",
      attrs: { "aria-label": "Baseline run" },
      dataset: { control: "layout-baseline" },
      on: {
        change: () => onSettings({ baseline: this._baseline.value || null }),
      },
    });
    this.element = h(
      "div",
      { className: "tbmf-cmp-toolbar tbmf-lay-toolbar" },
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
      group("Smoothing", this._smoothing),
      group("Baseline", this._baseline),
      h(
        "div",
        { className: "tbmf-lay-toolbar__end" },
        h(
          "button",
          {
            className: "tbmf-button tbmf-button--text",
            title: "Open every category",
            attrs: { type: "button" },
            dataset: { action: "expand-all" },
            on: { click: () => onFold(true) },
          },
          icon("unfold", { size: 16 }),
          "Expand all",
        ),
        h(
          "button",
          {
            className: "tbmf-button tbmf-button--text",
            title: "Close every category",
            attrs: { type: "button" },
            dataset: { action: "collapse-all" },
            on: { click: () => onFold(false) },
          },
          icon("fold", { size: 16 }),
          "Collapse all",
        ),
      ),
    );
  }

  /**
   * @param {DashboardSettings} s
   * @param {string[]} candidates baseline runs offered
   */
  render(s, candidates) {
    for (const button of this._axisButtons) {
      const on =
        (button.dataset.axis === "chart" ? null : button.dataset.axis) ===
        (s.axis ?? null);
      button.classList.toggle("is-on", on);
      button.setAttribute("aria-pressed", String(on));
    }
    this._smoothing.value = s.smoothing === null ? "" : String(s.smoothing);
    if (s.smoothing !== null && this._smoothing.value === "") {
      // A weight from a link that the menu does not list.
      this._smoothing.append(
        h("option", {
          text: String(s.smoothing),
          attrs: { value: String(s.smoothing) },
        }),
      );
      this._smoothing.value = String(s.smoothing);
    }
    setBaselineOptions(
      this._baseline,
      candidates,
      s.baseline,
      "not selected or in no chart",
    );
  }
}

/**
 * A labelled group of controls in the toolbar (Compare's look).
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
