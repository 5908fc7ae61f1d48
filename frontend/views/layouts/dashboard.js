// A layout opened as a dashboard: its categories as collapsible sections,
// each chart a comparison panel (chart_adapter.js) of the (run, tag) pairs
// its regexes match among the selected runs. `POST layout_preview` says
// which pairs each chart matches; the dashboard-wide controls (one axis for
// every chart, smoothing, baseline) override the charts' own settings.
// Its head is dashboard_header.js, those controls dashboard_toolbar.js.

import { runColor } from "../../colors.js";
import { runsOnScreen } from "../../filter.js";
import { h, setChildren } from "../../dom.js";
import { t } from "../../i18n.js";
import { LatestRequest } from "../../model.js";
import { axisInfo } from "../compare/axes.js";
import { previewLayout } from "./api.js";
import { mountLayoutChart } from "./chart_adapter.js";
import { dashboardHeader, layoutWarnings } from "./dashboard_header.js";
import { DashboardToolbar } from "./dashboard_toolbar.js";
import { icon } from "./icons.js";

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./schema.js").Layout} Layout
 * @typedef {import("./api.js").ChartPreview} ChartPreview
 * @typedef {import("./api.js").MetricIndex} MetricIndex
 * @typedef {import("./chart_adapter.js").LayoutChartPanel} LayoutChartPanel
 * @typedef {import("./dashboard_toolbar.js").DashboardSettings} DashboardSettings
 * @typedef {import("./dashboard_header.js").DashboardAction} DashboardAction
 */

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

    this._toolbar = new DashboardToolbar({
      onSettings: (patch) => this._onSettings(patch),
      onFold: (open) => {
        this.layout.categories.forEach((_c, i) => this._open.set(i, open));
        this._buildCategories();
        this._renderCharts();
      },
    });
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
      dashboardHeader(this.layout, this.imported, spec.actions),
      layoutWarnings(this.layout),
      this._toolbar.element,
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
      ? t("layouts.dash.previewError", { error: this._previewError })
      : "";
    this._renderToolbar();
    this._renderCharts();
  }

  _renderToolbar() {
    this._toolbar.render(this.settings, this._baselineCandidates());
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
            ? t("layouts.dash.noLoggedCharts")
            : t("layouts.dash.noCategories"),
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
              text: t("layouts.dash.noChartsInCategory"),
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
              text: category.title || t("layouts.untitledCategory"),
            }),
            h("span", {
              className: "tbmf-lay-cat__count",
              text: t("layouts.count.charts", { n: category.charts.length }),
            }),
            sources.length
              ? h(
                  "span",
                  { className: "tbmf-lay-cat__sources" },
                  h("span", { text: t("layouts.dash.loggedIn") }),
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
            reason: t("layouts.dash.lacks", { tags: m.tags.join(", ") }),
          }));
        /** @type {import("./chart_adapter.js").LayoutChartOptions} */
        const options = {
          runs: [...new Set(pairs.map((p) => p.run))],
          kind: margin ? "margin" : "multiline",
          pairs,
          missing,
          metricIndex: this.metricIndex ?? null,
          title: chart.title || t("layouts.untitledChart"),
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
  if (chart.kind === "margin") parts.push(t("layouts.dash.margin"));
  else if (chart.metrics.length) parts.push(t("layouts.dash.byMetric"));
  const total = preview?.totalMatches ?? 0;
  if (preview) {
    parts.push(
      drawn === total
        ? t("layouts.dash.series", { n: drawn })
        : t("layouts.dash.seriesOf", { n: drawn, total }),
    );
  }
  if (imported && chart.source?.length) {
    parts.push(t("layouts.list.from", { sources: chart.source.join(", ") }));
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
  if (!preview) return t("layouts.dash.matching");
  if (preview.skipped) {
    return t("layouts.dash.notMatched", { reason: preview.skipped });
  }
  if (preview.regexErrors.length) {
    return t("layouts.dash.regexInvalid", {
      error: preview.regexErrors[0].message,
    });
  }
  if (matched > 0) {
    return t("layouts.dash.noneSelected", { n: matched });
  }
  if (chart.kind === "margin") {
    return t("layouts.dash.noMarginRun");
  }
  return chart.metrics.length
    ? t("layouts.dash.noMetricMatches")
    : t("layouts.dash.noTagMatches");
}
