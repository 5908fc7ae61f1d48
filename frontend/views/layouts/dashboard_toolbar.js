// The dashboard-wide controls of an open layout: one x axis for every
// chart (or each chart's own), one smoothing weight, the baseline run of the
// difference charts, and Expand all / Collapse all. The values live in the
// URL (the view's `lx`, `ls`, `lb`); the toolbar shows them and reports
// changes.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
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
      {
        id: "",
        label: t("layouts.toolbar.perChart"),
        help: t("layouts.toolbar.perChart.title"),
      },
      ...AXES.map((a) => ({
        id: a.id,
        label: t(`axis.${a.id}`),
        help: t(`axis.${a.id}.help`),
      })),
    ].map((axis) =>
      h("button", {
        className: "tbmf-cmp-seg__item",
        text: axis.label,
        title: axis.id
          ? t("layouts.toolbar.everyChartOn", { help: axis.help })
          : axis.help,
        attrs: { type: "button", "aria-pressed": "false" },
        dataset: { axis: axis.id || "chart" },
        on: { click: () => onSettings({ axis: axis.id || null }) },
      }),
    );
    this._smoothing = h(
      "select",
      {
        className: "tbmf-cmp-select",
        title: t("layouts.toolbar.smoothing.title"),
        attrs: { "aria-label": t("layouts.toolbar.smoothing") },
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
      h("option", {
        text: t("layouts.toolbar.perChart"),
        attrs: { value: "" },
      }),
      SMOOTHING_CHOICES.map((w) =>
        h("option", {
          text: w === 0 ? t("layouts.toolbar.smoothingOff") : String(w),
          attrs: { value: String(w) },
        }),
      ),
    );
    this._baseline = h("select", {
      className: "tbmf-cmp-select tbmf-cmp-select--wide",
      title: t("layouts.toolbar.baseline.title"),
      attrs: { "aria-label": t("layouts.toolbar.baselineRun") },
      dataset: { control: "layout-baseline" },
      on: {
        change: () => onSettings({ baseline: this._baseline.value || null }),
      },
    });
    this.element = h(
      "div",
      { className: "tbmf-cmp-toolbar tbmf-lay-toolbar" },
      group(
        t("layouts.toolbar.xAxis"),
        h(
          "span",
          {
            className: "tbmf-cmp-seg",
            attrs: { role: "group", "aria-label": t("layouts.toolbar.xAxis") },
          },
          this._axisButtons,
        ),
      ),
      group(t("layouts.toolbar.smoothing"), this._smoothing),
      group(t("layouts.toolbar.baseline"), this._baseline),
      h(
        "div",
        { className: "tbmf-lay-toolbar__end" },
        h(
          "button",
          {
            className: "tbmf-button tbmf-button--text",
            title: t("layouts.toolbar.expandAll.title"),
            attrs: { type: "button" },
            dataset: { action: "expand-all" },
            on: { click: () => onFold(true) },
          },
          icon("unfold", { size: 16 }),
          t("layouts.toolbar.expandAll"),
        ),
        h(
          "button",
          {
            className: "tbmf-button tbmf-button--text",
            title: t("layouts.toolbar.collapseAll.title"),
            attrs: { type: "button" },
            dataset: { action: "collapse-all" },
            on: { click: () => onFold(false) },
          },
          icon("fold", { size: 16 }),
          t("layouts.toolbar.collapseAll"),
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
      t("layouts.toolbar.baselineWhyNot"),
    );
    // The Compare view's "None" (its texts are not in the catalogs yet).
    const none = this._baseline.querySelector('option[value=""]');
    if (none) none.textContent = t("layouts.toolbar.baselineNone");
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
