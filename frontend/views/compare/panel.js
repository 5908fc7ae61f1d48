// One comparison chart, without controls: fetches `GET scalars` for some
// runs and a metric (or raw tag) and draws it, with the linked difference
// chart when a baseline is set, the "N of M points" badge, the runs it could
// not draw and why, and export links. Used by the Compare view and the
// Layouts view.
//
//   const panel = mountComparisonChart(container, ctx, {
//     runs: ["pytorch_sgd", "keras_fit/train"], metric: "loss/train@batch",
//     x: "epoch", smoothing: 0.6, baseline: "pytorch_sgd",
//   });
//   panel.update({ logY: true });   // merged; re-fetches only when needed
//   panel.destroy();
//
// Zoom: a drag on either chart loads that x window at full resolution
// (`xMin`/`xMax`), a double-click loads everything again. The panel
// re-fetches by itself when the catalog reports new data (zoom kept).

import { AnomalyLayer } from "../../anomalylayer.js";
import { ensureStylesheet, h, icon, setChildren } from "../../dom.js";
import { t } from "../../i18n.js";

import { apiUrl, fetchScalars, LatestRequest } from "../../model.js";
import { chartDrawn, fetchDone, fetchStarted, markInput } from "../../perf.js";
import { axisInfo } from "./axes.js";
import { colorScope } from "../../colors.js";
import { renderNotes } from "./notes.js";
import {
  dataExtent,
  diffTitleParts,
  formatX,
  panelElements,
  panelSeries,
  placeChart,
  renderBadge,
  scopeGroups,
} from "./paneldraw.js";
import { RecentAnswers, roundRange, scalarsParams } from "./panelrequest.js";

export { MAX_BANDED_SERIES } from "./paneldraw.js";
export {
  clampPoints,
  DEFAULT_POINTS,
  MAX_POINTS,
  roundRange,
} from "./panelrequest.js";
export { differenceFormatter } from "./paneldraw.js";

ensureStylesheet(new URL("../compare.css", import.meta.url));

/** Plot heights in CSS pixels. */
export const DEFAULT_HEIGHT = 320;
export const DEFAULT_DIFF_HEIGHT = 170;
/** Y axis width of both charts, CSS pixels (wider labels widen one). */
const Y_AXIS_SIZE = 52;
/** Milliseconds a request may run before the loading bar shows. */
const LOADING_DELAY_MS = 120;

/** Recent answers a panel keeps to draw again without a request. */
const ANSWERS_KEPT = 6;
let panelCount = 0;

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./series.js").ScalarsResponse} ScalarsResponse
 * @typedef {import("./paneloptions.js").PanelOptions} PanelOptions
 */

/**
 * Mounts a comparison chart at the end of `container`.
 * @param {HTMLElement} container
 * @param {ViewContext} ctx uses `ctx.catalog` to refresh on new data
 * @param {PanelOptions} options
 * @returns {ComparisonChart}
 */
export function mountComparisonChart(container, ctx, options) {
  return new ComparisonChart(container, ctx, options);
}

export class ComparisonChart {
  /**
   * @param {HTMLElement} container
   * @param {ViewContext} ctx
   * @param {PanelOptions} options
   */
  constructor(container, ctx, options) {
    this.ctx = ctx;
    /** @type {PanelOptions} */
    this.options = { ...options };
    this._id = ++panelCount;
    this._request = new LatestRequest();
    /** @type {ScalarsResponse | null} the last answer drawn */
    this.response = null;
    /** @type {string | null} URL of the last request sent */
    this._requested = null;
    /** @type {string | null} URL whose answer is drawn */
    this._drawn = null;
    /** @type {import("../../components/chart.js").Chart | null} */
    this.mainChart = null;
    /** @type {import("../../components/chart.js").Chart | null} */
    this.diffChart = null;
    /** Options of the drawn charts other than series, to spot rebuilds. */
    this._mainLook = "";
    this._diffLook = "";
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._loadingTimer = null;
    this._destroyed = false;
    /** Marks the flagged ranges (anomalies.js) on the main chart. */
    this._anomalies = new AnomalyLayer(this);
    /** The grouping this panel gave the colour scope ("[]": none). */
    this._groupSignature = "[]";
    /** Recent answers, until the data changes: going back to a view
     * (smoothing off, the zoom reset, a run on again) needs no request. */
    /** @type {RecentAnswers<ScalarsResponse[]>} */
    this._answers = new RecentAnswers(ANSWERS_KEPT);

    const parts = panelElements(() => this._zoom(null));
    this._title = parts.title;
    this._subtitle = parts.subtitle;
    this._badge = parts.badge;
    this._zoomChip = parts.zoomChip;
    this._csv = parts.csv;
    this._json = parts.json;
    this._exports = parts.exports;
    this._notes = parts.notes;
    this._error = parts.error;
    this._message = parts.message;
    this._progress = parts.progress;
    this._mainHost = parts.mainHost;
    this._diffTitle = parts.diffTitle;
    this._diffHost = parts.diffHost;
    this._diffEmpty = parts.diffEmpty;
    this._diffBox = parts.diffBox;
    this.element = parts.element;
    container.appendChild(this.element);

    // The catalog calls back at once when it has data: that first load is
    // the one below.
    let subscribing = true;
    this._unsubscribe = ctx.catalog.subscribe((_catalog, change) => {
      if (!subscribing && change.dataChanged) void this.refresh();
    });
    subscribing = false;
    void this._load(false);
  }

  /**
   * Applies new options (merged over the current ones); fetches again only
   * when the request changes.
   * @param {Partial<PanelOptions>} options
   */
  update(options) {
    if (this._destroyed) return;
    this.options = { ...this.options, ...options };
    this._anomalies.optionsChanged();
    void this._load(false);
  }

  /** Fetches again with the same options (keeps zoom). */
  refresh() {
    if (this._destroyed) return Promise.resolve();
    this._answers.clear();
    return this._load(true);
  }

  /**
   * The export URL of the current view: the same arguments (window and
   * baseline included: the export then has difference columns), every
   * point.
   * @param {'csv' | 'json'} format
   * @returns {string | null} null when nothing is chosen
   */
  exportUrl(format) {
    const params = this._params();
    if (!params) return null;
    delete params.points;
    return apiUrl("export", { ...params, format }).href;
  }

  destroy() {
    if (this._destroyed) return;
    this._destroyed = true;
    this._request.cancel();
    this._unsubscribe();
    this._anomalies.destroy();
    if (this._loadingTimer !== null) clearTimeout(this._loadingTimer);
    this.mainChart?.destroy();
    this.diffChart?.destroy();
    this.element.remove();
    if (this._groupSignature !== "[]") colorScope.setGroupOf(null);
  }

  // Requests.

  /**
   * The scalars arguments of the current options, or null when there is
   * nothing to ask for.
   * @returns {Record<string, any> | null}
   */
  _params() {
    return scalarsParams(this.options);
  }

  /**
   * The scalars requests this chart is drawn from, or why there are none.
   * One request for a comparison; a subclass (the Layouts view's chart) may
   * plan several and `merge` their answers.
   * @returns {{requests: Record<string, any>[]} | {message: string}}
   */
  plan() {
    const params = this._params();
    if (!params) {
      return {
        message: !this.options.runs?.length
          ? t("cmp.panel.selectRuns")
          : t("cmp.panel.pickMetric"),
      };
    }
    return { requests: [params] };
  }

  /**
   * The answer to draw from the answers of `plan()`'s requests, in order.
   * @param {ScalarsResponse[]} responses
   * @returns {ScalarsResponse}
   */
  merge(responses) {
    return responses[0];
  }

  /** @param {boolean} force fetch even if the requests did not change */
  async _load(force) {
    const plan = this.plan();
    this._renderHeading();
    this._renderExports();
    if ("message" in plan) {
      this._request.cancel();
      this._requested = null;
      this._setLoading(false);
      this._showMessage(plan.message);
      return;
    }
    const urls = plan.requests.map((params) => apiUrl("scalars", params).href);
    const signature = urls.join("\n");
    if (!force && signature === this._requested) {
      // Same data: only the look may have changed (log y, titles). While
      // its answer is on the way there is nothing to redraw.
      if (this.response && this._drawn === signature) this._draw(this.response);
      return;
    }
    this._requested = signature;
    // Kept answers count for the data version they were asked under only.
    const kept = `${this.ctx.catalog.payload?.dataVersion ?? ""} ${signature}`;
    const known = force ? undefined : this._answers.get(kept);
    if (known) {
      this._request.cancel();
      this._setLoading(false);
      this._show(urls, signature, known);
      return;
    }
    this._setLoading(true);
    fetchStarted();
    const outcome = await this._request.run((signal) =>
      Promise.all(
        plan.requests.map((params) => fetchScalars(params, { signal })),
      ),
    );
    fetchDone();
    if (outcome.stale || this._destroyed) return;
    this._setLoading(false);
    if (outcome.error) {
      this._showError(outcome.error.message);
      return;
    }
    const answers = /** @type {ScalarsResponse[]} */ (outcome.value);
    this._answers.set(kept, answers);
    this._show(urls, signature, answers);
  }

  /**
   * Draws the answers to the requests `urls`.
   * @param {string[]} urls
   * @param {string} signature
   * @param {ScalarsResponse[]} answers
   */
  _show(urls, signature, answers) {
    this.response = this.merge(answers);
    this._drawn = signature;
    // The arguments of the answers drawn, space-separated (tests and bug
    // reports read it).
    this.element.dataset.query = urls.map((u) => new URL(u).search).join(" ");
    this._error.hidden = true;
    this._message.hidden = true;
    this._draw(this.response);
    this.options.onData?.(this.response);
  }

  /**
   * @param {[number, number] | null} range
   */
  _zoom(range) {
    range = range && roundRange(range);
    const current = this.options.xRange ?? null;
    if (range === null && current === null) {
      // A double-click on an unzoomed chart fits it to its own data: put
      // both charts back on the shared window.
      if (this.response && this._drawn === this._requested) {
        this._draw(this.response);
      }
      return;
    }
    if (
      range &&
      current &&
      range[0] === current[0] &&
      range[1] === current[1]
    ) {
      return;
    }
    markInput("zoom");
    this.options = { ...this.options, xRange: range };
    const main = this.mainChart;
    if (range && main && this.response && this._drawn === this._requested) {
      // The window at once from the points already here (this frame ends
      // the interaction), then its full detail from the server.
      main.update({ xRange: range });
      this.diffChart?.update({ xRange: range });
      setTimeout(() => {
        if (this._destroyed || this.options.xRange !== range) return;
        markInput("zoom-detail");
        this.options.onZoomChange?.(range);
        void this._load(false);
      }, 0);
      return;
    }
    this.options.onZoomChange?.(range);
    void this._load(false);
  }

  // Drawing.

  /** @param {boolean} on */
  _setLoading(on) {
    if (this._loadingTimer !== null) clearTimeout(this._loadingTimer);
    this._loadingTimer = null;
    this.element.classList.toggle("is-loading", on);
    if (!on) {
      this._progress.hidden = true;
      if (this.element.dataset.state === "loading") {
        this.element.dataset.state = this.response ? "ready" : "empty";
      }
      return;
    }
    if (!this.response) this.element.dataset.state = "loading";
    // Short requests finish before the bar would flash.
    this._loadingTimer = setTimeout(() => {
      this._loadingTimer = null;
      this._progress.hidden = false;
    }, LOADING_DELAY_MS);
  }

  /** @param {string} text */
  _showMessage(text) {
    this.response = null;
    this._drawn = null;
    this.element.dataset.state = "empty";
    this._message.textContent = text;
    this._message.hidden = false;
    this._error.hidden = true;
    this._notes.hidden = true;
    this._badge.hidden = true;
    this._destroyCharts();
  }

  /** @param {string} text the server's error text */
  _showError(text) {
    this.response = null;
    this._drawn = null;
    this.element.dataset.state = "error";
    setChildren(
      this._error,
      icon("error", { size: 18 }),
      h("span", { className: "tbmf-cmp-panel__error-text", text }),
      h("button", {
        className: "tbmf-button tbmf-button--text",
        text: t("common.retry"),
        attrs: { type: "button" },
        on: { click: () => void this.refresh() },
      }),
    );
    this._error.hidden = false;
    this._message.hidden = true;
    this._notes.hidden = true;
    this._badge.hidden = true;
    this._destroyCharts();
  }

  _destroyDiffChart() {
    this.diffChart?.destroy();
    this.diffChart = null;
    this._diffLook = "";
  }

  _destroyCharts() {
    this.mainChart?.destroy();
    this.mainChart = null;
    this.diffChart?.destroy();
    this.diffChart = null;
    this._mainLook = "";
    this._diffLook = "";
    this._diffBox.hidden = true;
  }

  _renderHeading() {
    const o = this.options;
    this._title.textContent = o.title ?? o.metric ?? o.tag ?? "";
    this._subtitle.textContent = o.subtitle ?? "";
    this._subtitle.hidden = !o.subtitle;
    const range = o.xRange;
    this._zoomChip.hidden = !range;
    if (range) {
      const axis = axisInfo(o.x ?? "step");
      const format = axis.formatX ?? formatX(axis.xType);
      /** @type {HTMLElement} */ (this._zoomChip.firstChild).textContent =
        `${axis.label} ${format(range[0])} – ${format(range[1])}`;
    }
  }

  _renderExports() {
    const show = this.options.showExport !== false;
    this._exports.hidden = !show;
    if (!show) return;
    for (const [link, format] of /** @type {const} */ ([
      [this._csv, "csv"],
      [this._json, "json"],
    ])) {
      const url = this.exportUrl(format);
      if (url) {
        link.href = url;
        link.removeAttribute("aria-disabled");
      } else {
        link.removeAttribute("href");
        link.setAttribute("aria-disabled", "true");
      }
    }
  }

  /** @param {ScalarsResponse} response */
  _draw(response) {
    const o = this.options;
    this.element.dataset.state = "ready";
    this._message.hidden = true;
    const axis = axisInfo(response.x);
    const anyResponse = /** @type {any} */ (response);
    const grouped = Array.isArray(anyResponse.aggregates);
    this._groupSignature = scopeGroups(
      grouped ? anyResponse.aggregates : null,
      this._groupSignature,
    );
    const { main, diffs } = panelSeries(response, o, this.ctx.catalog);
    const xRange = o.xRange ?? null;
    const ignoreOutliers = o.ignoreOutliers !== false;
    const common = {
      xLabel: axis.label,
      xAxisLabel: axis.axisLabel,
      xType: axis.xType,
      formatX: axis.formatX,
      logYToggle: false,
      // Both charts share one y axis width, so their x positions line up.
      yAxisMinSize: Y_AXIS_SIZE,
      syncKey: `tbmf-cmp-${this._id}`,
      onZoom: (/** @type {number} */ min, /** @type {number} */ max) =>
        this._zoom([min, max]),
      onZoomReset: () => this._zoom(null),
      onDraw: () => chartDrawn(),
    };
    const mainOnly = {
      onDraw: (/** @type {import("../../components/chart.js").Chart} */ c) => {
        chartDrawn();
        if (c.uplot) this._anomalies.draw(c.uplot);
        this.options.onDraw?.(c);
      },
      onHover: (/** @type {string | null} */ key) => this._anomalies.hover(key),
    };

    const mainLook = JSON.stringify([
      axis.id,
      Boolean(o.logY),
      o.height ?? DEFAULT_HEIGHT,
      o.yRange ?? null,
      o.tooltipSort ?? null,
    ]);
    const emptyText =
      response.series.length === 0 && !grouped
        ? t("cmp.panel.noRunHasMetric")
        : t("cmp.panel.nothingOnAxis");
    this.mainChart = placeChart(
      this.mainChart,
      this._mainHost,
      mainLook !== this._mainLook,
      {
        ...common,
        ...mainOnly,
        logY: Boolean(o.logY),
        height: o.height ?? DEFAULT_HEIGHT,
        yRange: o.yRange ?? null,
        tooltipSort: o.tooltipSort,
        emptyText,
      },
      { series: main, xRange, ignoreOutliers, label: this._title.textContent },
    );
    this._mainLook = mainLook;

    const placed = grouped
      ? (anyResponse.groupDiffs ?? [])
      : (response.diffs ?? []).filter((d) => !d.excluded);
    const hasBaseline = grouped
      ? Boolean(anyResponse.baselineGroup)
      : Boolean(response.baseline);
    if (hasBaseline && placed.length > 0) {
      this._diffBox.hidden = false;
      setChildren(this._diffTitle, diffTitleParts(response, this.ctx.catalog));
      const overlap = placed.some((d) => d.x.length > 0);
      this._diffEmpty.hidden = overlap;
      if (!overlap) {
        this._destroyDiffChart();
      } else {
        // Same x window as the main chart, so the two read as one.
        const diffRange = xRange ?? dataExtent(response);
        const diffLook = JSON.stringify([
          axis.id,
          o.diffHeight ?? DEFAULT_DIFF_HEIGHT,
        ]);
        const created = !this.diffChart;
        this.diffChart = placeChart(
          this.diffChart,
          this._diffHost,
          diffLook !== this._diffLook,
          { ...common, height: o.diffHeight ?? DEFAULT_DIFF_HEIGHT },
          {
            series: diffs,
            xRange: diffRange,
            ignoreOutliers,
            label: this._diffTitle.textContent,
          },
        );
        if (created) this.diffChart.element.classList.add("tbmf-chart--diff");
        this._diffLook = diffLook;
      }
    } else {
      // No baseline, or no run can be compared with it (the notes say why).
      this._destroyDiffChart();
      this._diffBox.hidden = true;
    }

    renderBadge(this._badge, response, Boolean(o.xRange));
    this._renderNotes(response);
    this._anomalies.update(response);
  }

  /** @param {ScalarsResponse} response */
  _renderNotes(response) {
    renderNotes(
      this._notes,
      response,
      this.ctx.catalog.runs.map((r) => r.run),
    );
  }
}
