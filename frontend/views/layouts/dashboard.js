// A layout opened as a dashboard: its categories as collapsible sections,
// each chart a comparison panel (chart_adapter.js) of the (run, tag) pairs
// its regexes match among the selected runs. `POST layout_preview` says
// which pairs each chart matches; the dashboard-wide controls (one axis for
// every chart, smoothing, baseline) override the charts' own settings.

import { runColor } from "../../colors.js";
import { runsOnScreen } from "../../filter.js";
import { h, setChildren } from "../../dom.js";
import { plural } from "../../format.js";
import { LatestRequest } from "../../model.js";
import { AXES, axisInfo } from "../compare/axes.js";
import { previewLayout } from "./api.js";
import { setBaselineOptions } from "../compare/baselineselect.js";
import { mountLayoutChart } from "./chart_adapter.js";
import { icon } from "./icons.js";
import { chartCount } from "./schema.js";

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./schema.js").Layout} Layout
 * @typedef {import("./api.js").ChartPreview} ChartPreview
 * @typedef {import("./api.js").MetricIndex} MetricIndex
 * @typedef {import("./chart_adapter.js").LayoutChartPanel} LayoutChartPanel
 *
 * @typedef {Object} DashboardSettings dashboard-wide overrides
 * @property {string | null} axis one x axis for every chart, or null
 * @property {number | null} smoothing one weight for every chart, or null
 * @property {string | null} baseline run for difference charts
 *
 * @typedef {Object} DashboardAction a button in the dashboard's header
 * @property {string} id `data-action`
 * @property {string} label
 * @property {import("./icons.js").LayoutIcon} icon
 * @property {() => void} run
 * @property {string} [title]
 * @property {string | null} [disabled] why it is disabled
 * @property {boolean} [primary]
 * @property {boolean} [danger]
 */

/** Smoothing weights the dashboard-wide control offers. */
const SMOOTHING_CHOICES = [0, 0.3, 0.6, 0.8, 0.9, 0.95, 0.99];
/** Plot heights of a dashboard chart, CSS pixels. */
const CHART_HEIGHT = 220;
const DIFF_HEIGHT = 110;
/** Buckets a series; the panel's default. */
const POINTS = 1000;

export class Dashboard {
  /**
   * @param {ViewContext} ctx
   * @param {Object} spec
   * @param {Layout} spec.layout
   * @param {boolean} spec.imported the layout logged in the runs
   * @param {MetricIndex | null | undefined} spec.metricIndex undefined:
   *     not loaded yet (charts wait), null: unavailable (fetch by tag)
   * @param {DashboardSettings} spec.settings
   * @param {(patch: Partial<DashboardSettings>) => void} spec.onSettings
   * @param {DashboardAction[]} spec.actions
   */
  constructor(ctx, spec) {
    this.ctx = ctx;
    this.layout = spec.layout;
    this.imported = spec.imported;
    this.metricIndex = spec.metricIndex;
    this.settings = spec.settings;
    this._onSettings = spec.onSettings;
    /** @type {Map<string, ChartPreview>} "category:chart" → preview */
    this._previews = new Map();
    /** @type {string | null} */
    this._previewError = null;
    this._previewed = false;
    this._request = new LatestRequest();
    /** @type {Map<string, LayoutChartPanel>} */
    this._panels = new Map();
    /** Categories the user opened or closed, by index. */
    /** @type {Map<number, boolean>} */
    this._open = new Map(this.layout.categories.map((c, i) => [i, !c.closed]));

    /** @type {HTMLButtonElement[]} */
    this._axisButtons = [];
    this._toolbar = this._buildToolbar();
    this._categories = h("div", { className: "tbmf-lay-cats" });
    this._notice = h("div", {
      className: "tbmf-lay-notice",
      attrs: { role: "alert", hidden: true },
    });
    this.element = h(
      "section",
      {
        className: "tbmf-lay-dash",
        dataset: { layout: this.layout.name, imported: String(this.imported) },
      },
      this._header(spec.actions),
      this._warnings(),
      this._toolbar,
      this._notice,
      this._categories,
    );
    this._buildCategories();
    this._renderToolbar();
    void this.refresh();
  }

  destroy() {
    this._request.cancel();
    for (const panel of this._panels.values()) panel.destroy();
    this._panels.clear();
    this.element.remove();
  }

  /**
   * New overrides (from the URL).
   * @param {DashboardSettings} settings
   */
  setSettings(settings) {
    this.settings = settings;
    this._renderToolbar();
    this._renderCharts();
  }

  /** @param {MetricIndex | null | undefined} index */
  setMetricIndex(index) {
    this.metricIndex = index;
    this._renderCharts();
  }

  /** The selection changed: redraw with the selected runs' pairs. */
  selectionChanged() {
    this._renderToolbar();
    this._renderCharts();
  }

  /** Asks the server again which pairs each chart matches (new data). */
  async refresh() {
    const outcome = await this._request.run((signal) =>
      previewLayout(this.layout, signal),
    );
    if (outcome.stale) return;
    this._previewed = true;
    if (outcome.error) {
      this._previewError = outcome.error.message;
    } else {
      this._previewError = null;
      this._previews = new Map(
        outcome.value.charts.map((c) => [`${c.category}:${c.chart}`, c]),
      );
    }
    this._notice.hidden = this._previewError === null;
    this._notice.textContent = this._previewError
      ? `Cannot match this layout's charts: ${this._previewError}`
      : "";
    this._renderToolbar();
    this._renderCharts();
  }

  // Header and toolbar.

  /**
   * @param {DashboardAction[]} actions
   * @returns {HTMLElement}
   */
  _header(actions) {
    const layout = this.layout;
    const sources = [
      ...new Set(layout.categories.flatMap((c) => c.source ?? [])),
    ];
    return h(
      "header",
      { className: "tbmf-lay-head" },
      h(
        "div",
        { className: "tbmf-lay-head__text" },
        h(
          "div",
          { className: "tbmf-lay-head__line" },
          h("h2", { className: "tbmf-lay-head__name", text: layout.name }),
          this.imported
            ? h(
                "span",
                {
                  className: "tbmf-lay-badge",
                  title:
                    "Logged into the runs with add_custom_scalars or a " +
                    "custom_scalar summary; duplicate it to edit a copy",
                },
                icon("lock", { size: 13 }),
                "Read-only",
              )
            : null,
        ),
        h("div", {
          className: "tbmf-lay-head__meta",
          text: [
            plural(layout.categories.length, "category", "categories"),
            plural(chartCount(layout), "chart"),
            this.imported && sources.length
              ? `logged in ${sources.join(", ")}`
              : "",
          ]
            .filter(Boolean)
            .join(" · "),
        }),
      ),
      h(
        "div",
        { className: "tbmf-lay-head__actions" },
        actions.map((action) => actionButton(action)),
      ),
    );
  }

  /** @returns {HTMLElement | null} the imported layout's warnings */
  _warnings() {
    const warnings = this.layout.warnings ?? [];
    if (!warnings.length) return null;
    return h(
      "details",
      { className: "tbmf-lay-warnings" },
      h(
        "summary",
        {},
        icon("warning", { size: 16 }),
        h("span", {
          text: `${plural(warnings.length, "problem")} reading the logged layouts`,
        }),
      ),
      h(
        "ul",
        {},
        warnings.map((w) => h("li", { text: w })),
      ),
    );
  }

  /** @returns {HTMLElement} */
  _buildToolbar() {
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
        on: { click: () => this._onSettings({ axis: axis.id || null }) },
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
            this._onSettings({
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
        change: () =>
          this._onSettings({ baseline: this._baseline.value || null }),
      },
    });
    const foldAll = (/** @type {boolean} */ open) => {
      this.layout.categories.forEach((_c, i) => this._open.set(i, open));
      this._buildCategories();
      this._renderCharts();
    };
    return h(
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
            on: { click: () => foldAll(true) },
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
            on: { click: () => foldAll(false) },
          },
          icon("fold", { size: 16 }),
          "Collapse all",
        ),
      ),
    );
  }

  _renderToolbar() {
    const s = this.settings;
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
    const candidates = this._baselineCandidates();
    setBaselineOptions(
      this._baseline,
      candidates,
      s.baseline,
      "not selected or in no chart",
    );
  }

  /** @returns {string[]} selected runs that some chart draws */
  _baselineCandidates() {
    const runs = new Set();
    for (const preview of this._previews.values()) {
      for (const match of preview.matches) runs.add(match.run);
    }
    return runsOnScreen(this.ctx.state, this.ctx.catalog.runs).filter((run) =>
      runs.has(run),
    );
  }

  // Categories and charts.

  _buildCategories() {
    for (const panel of this._panels.values()) panel.destroy();
    this._panels.clear();
    /** @type {Map<string, HTMLElement>} */
    this._hosts = new Map();
    if (this.layout.categories.length === 0) {
      setChildren(
        this._categories,
        h("div", {
          className: "tbmf-lay-empty",
          text: this.imported
            ? "The runs logged no charts."
            : "This layout has no categories yet. Edit it to add charts.",
        }),
      );
      return;
    }
    setChildren(
      this._categories,
      this.layout.categories.map((category, i) => {
        const open = this._open.get(i) ?? true;
        const grid = h("div", {
          className: "tbmf-lay-cat__grid",
          attrs: { hidden: !open },
        });
        category.charts.forEach((_chart, j) => {
          const host = h("div", {
            className: "tbmf-lay-chart",
            dataset: { category: String(i), chart: String(j) },
          });
          this._hosts?.set(`${i}:${j}`, host);
          grid.append(host);
        });
        if (category.charts.length === 0) {
          grid.append(
            h("div", {
              className: "tbmf-lay-empty",
              text: "No charts in this category.",
            }),
          );
        }
        const sources = category.source ?? [];
        return h(
          "section",
          {
            className: `tbmf-lay-cat${open ? " is-open" : ""}`,
            dataset: { category: String(i), title: category.title },
          },
          h(
            "button",
            {
              className: "tbmf-lay-cat__head",
              attrs: { type: "button", "aria-expanded": String(open) },
              on: { click: () => this._toggle(i) },
            },
            icon("chevronRight", {
              size: 18,
              className: "tbmf-lay-cat__chevron",
            }),
            h("h3", {
              className: "tbmf-lay-cat__title",
              text: category.title || "(untitled category)",
            }),
            h("span", {
              className: "tbmf-lay-cat__count",
              text: plural(category.charts.length, "chart"),
            }),
            sources.length
              ? h(
                  "span",
                  { className: "tbmf-lay-cat__sources" },
                  h("span", { text: "logged in" }),
                  sources.map((run) =>
                    h(
                      "span",
                      { className: "tbmf-lay-source", dataset: { run } },
                      h("span", {
                        className: "tbmf-dot",
                        style: { "--dot": runColor(this.ctx.catalog, run) },
                      }),
                      h("span", { text: run }),
                    ),
                  ),
                )
              : null,
          ),
          grid,
        );
      }),
    );
  }

  /** @param {number} index */
  _toggle(index) {
    const open = !(this._open.get(index) ?? true);
    this._open.set(index, open);
    const section = this._categories.querySelector(
      `.tbmf-lay-cat[data-category="${index}"]`,
    );
    if (section) {
      section.classList.toggle("is-open", open);
      section
        .querySelector(".tbmf-lay-cat__head")
        ?.setAttribute("aria-expanded", String(open));
      const grid = /** @type {HTMLElement | null} */ (
        section.querySelector(".tbmf-lay-cat__grid")
      );
      if (grid) grid.hidden = !open;
    }
    this._renderCharts();
  }

  /** Mounts or updates the charts of open categories; closed ones wait. */
  _renderCharts() {
    if (
      !this._previewed ||
      this.ctx.catalog.pending ||
      this.metricIndex === undefined
    ) {
      return;
    }
    const selected = new Set(
      runsOnScreen(this.ctx.state, this.ctx.catalog.runs),
    );
    const baseline = this.settings.baseline;
    const useBaseline =
      baseline && this._baselineCandidates().includes(baseline)
        ? baseline
        : null;
    this.layout.categories.forEach((category, i) => {
      category.charts.forEach((chart, j) => {
        const key = `${i}:${j}`;
        const host = this._hosts?.get(key);
        if (!host) return;
        const open = this._open.get(i) ?? true;
        let panel = this._panels.get(key);
        if (!open) return;
        const preview = this._previews.get(key);
        const all = preview?.matches ?? [];
        const pairs = all.filter((m) => selected.has(m.run));
        const margin = chart.kind === "margin";
        const missing = (preview?.missing ?? [])
          .filter((m) => selected.has(m.run))
          .map((m) => ({
            run: m.run,
            reason: `lacks ${m.tags.join(", ")}`,
          }));
        /** @type {import("./chart_adapter.js").LayoutChartOptions} */
        const options = {
          runs: [...new Set(pairs.map((p) => p.run))],
          kind: margin ? "margin" : "multiline",
          pairs,
          missing,
          metricIndex: this.metricIndex ?? null,
          title: chart.title || "(untitled chart)",
          subtitle: chartSubtitle(chart, preview, pairs.length, this.imported),
          x: axisInfo(this.settings.axis ?? chart.x).id,
          smoothing: margin ? 0 : (this.settings.smoothing ?? chart.smoothing),
          logY: chart.logY,
          baseline: useBaseline,
          points: POINTS,
          height: CHART_HEIGHT,
          diffHeight: DIFF_HEIGHT,
          emptyText: emptyText(preview, all.length, chart),
        };
        if (!panel) {
          panel = mountLayoutChart(host, this.ctx, options);
          this._panels.set(key, panel);
        } else {
          panel.update(options);
        }
        host.dataset.matches = String(pairs.length);
      });
    });
  }
}

/**
 * @param {import("./schema.js").LayoutChart} chart
 * @param {ChartPreview | undefined} preview
 * @param {number} drawn pairs among the selected runs
 * @param {boolean} imported
 * @returns {string}
 */
function chartSubtitle(chart, preview, drawn, imported) {
  const parts = [];
  if (chart.kind === "margin") parts.push("margin");
  else if (chart.metrics.length) parts.push("by metric");
  const total = preview?.totalMatches ?? 0;
  if (preview) {
    parts.push(
      drawn === total
        ? plural(drawn, "series", "series")
        : `${drawn} of ${plural(total, "series", "series")} (selected runs)`,
    );
  }
  if (imported && chart.source?.length) {
    parts.push(`from ${chart.source.join(", ")}`);
  }
  return parts.join(" · ");
}

/**
 * Why a chart has nothing to draw.
 * @param {ChartPreview | undefined} preview
 * @param {number} matched pairs among every run
 * @param {import("./schema.js").LayoutChart} chart
 * @returns {string}
 */
function emptyText(preview, matched, chart) {
  if (!preview) return "Matching…";
  if (preview.regexErrors.length) {
    return `A regex of this chart is invalid: ${preview.regexErrors[0].message}`;
  }
  if (matched > 0) {
    return `None of the ${plural(matched, "matching series", "matching series")} is in a selected run.`;
  }
  if (chart.kind === "margin") {
    return "No run logged all three tags of a margin series.";
  }
  return chart.metrics.length
    ? "No metric name matches this chart's regexes."
    : "No tag matches this chart's regexes.";
}

/**
 * @param {DashboardAction} action
 * @returns {HTMLButtonElement}
 */
export function actionButton(action) {
  const kind = action.primary
    ? " is-primary"
    : action.danger
      ? " is-danger"
      : "";
  return h(
    "button",
    {
      className: `tbmf-button tbmf-lay-action${kind}`,
      title: action.disabled ?? action.title ?? action.label,
      attrs: { type: "button", disabled: Boolean(action.disabled) },
      dataset: { action: action.id },
      on: { click: () => action.run() },
    },
    icon(action.icon, { size: 16 }),
    h("span", { text: action.label }),
  );
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
