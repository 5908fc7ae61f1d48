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

import { AnomalyLayer } from "../../anomalies.js";
import { createChart } from "../../components/chart.js";
import { lowerBound } from "../../components/chartmarks.js";
import { ensureStylesheet, h, icon, setChildren } from "../../dom.js";
import {
  formatDifference,
  formatInt,
  formatValue,
} from "../../format.js";
import { apiUrl, fetchScalars, LatestRequest } from "../../model.js";
import { chartDrawn, fetchDone, fetchStarted, markInput } from "../../perf.js";
import { axisInfo } from "./axes.js";
import { colorScope } from "../../colors.js";
import { colorFor, styleFor } from "./colors.js";
import { groupChartSeries, groupColor, groupDiffSeries } from "./groups.js";
import { renderNotes } from "./notes.js";
import {
  diffChartSeries,
  mainChartSeries,
  pointCounts,
} from "./series.js";

ensureStylesheet(new URL("../compare.css", import.meta.url));

/** Buckets a series is downsampled to when the options give none. */
export const DEFAULT_POINTS = 1000;
/** Most buckets the scalars route accepts (its cap). */
export const MAX_POINTS = 20000;
/** Plot heights in CSS pixels. */
export const DEFAULT_HEIGHT = 320;
export const DEFAULT_DIFF_HEIGHT = 170;
/** Y axis width of both charts, CSS pixels (wider labels widen one). */
const Y_AXIS_SIZE = 52;
/** Milliseconds a request may run before the loading bar shows. */
const LOADING_DELAY_MS = 120;
/** Drawn series up to which min/max bands are drawn: past it they cost a
 * third of the drawing and add nothing the line (which passes through
 * every bucket's min and max) does not show. */
export const MAX_BANDED_SERIES = 12;

let panelCount = 0;

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./series.js").ScalarsResponse} ScalarsResponse
 *
 * @typedef {Object} PanelOptions
 * @property {string[]} runs runs to draw (order kept)
 * @property {string | null} [metric] a metric key (`loss/train@batch`)
 * @property {string | null} [tag] a raw tag (instead of `metric`)
 * @property {string} [x] axis: step | epoch | relative | wall | progress
 * @property {number} [smoothing] 0 ≤ w < 1
 * @property {'ema' | 'time'} [smoothingMode]
 * @property {boolean} [logY]
 * @property {string | null} [baseline] a run of `runs`: adds the diff chart
 * @property {'difference' | 'ratio'} [diffMode]
 * @property {number} [points] buckets a series (1..MAX_POINTS)
 * @property {[number, number] | null} [xRange] zoom window on `x`
 * @property {boolean} [allAttempts] add the points a resumed run's later
 *     attempt superseded, as faint dashed series
 * @property {'logged' | 'per_batch' | 'running_mean'} [batchValues] show
 *     batch-level series as logged, as per-batch values or as running means
 * @property {string} [title] default: the metric name or tag
 * @property {string} [subtitle] e.g. the metric's level
 * @property {number} [height] main plot height, CSS pixels
 * @property {number} [diffHeight] difference plot height, CSS pixels
 * @property {boolean} [showExport] CSV/JSON links in the header (default true)
 * @property {boolean} [ignoreOutliers] fit y to the bulk of the values and
 *     mark clipped points at the edge (default true)
 * @property {(range: [number, number] | null) => void} [onZoomChange] the
 *     user zoomed (drag) or reset (double-click)
 * @property {(response: ScalarsResponse) => void} [onData] each answer
 * @property {string | null} [groupBy] draw groups of runs (`group`,
 *     `framework`, `writer`, `trainer`, `hparam:<key>`): each group's
 *     center line with its band (compare/groups.js); null draws runs
 * @property {'mean' | 'median'} [aggregate] the center line (default mean)
 * @property {'std' | 'ci95' | 'minmax' | 'none'} [band] (default std)
 * @property {boolean} [showMembers] also draw each member, faint
 * @property {string | null} [baselineGroup] a group: adds the difference
 *     of centers with its band
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

    this._title = h("h3", { className: "tbmf-cmp-panel__title" });
    this._subtitle = h("span", { className: "tbmf-cmp-panel__subtitle" });
    this._badge = h("span", {
      className: "tbmf-cmp-badge",
      attrs: { "aria-live": "polite" },
    });
    this._zoomChip = h(
      "button",
      {
        className: "tbmf-cmp-zoom",
        title: "Show the whole x range (or double-click the chart)",
        attrs: { type: "button", hidden: true },
        on: { click: () => this._zoom(null) },
      },
      h("span", { className: "tbmf-cmp-zoom__text" }),
      icon("close", { size: 14 }),
    );
    this._csv = exportLink("CSV");
    this._json = exportLink("JSON");
    this._exports = h(
      "span",
      { className: "tbmf-cmp-exports" },
      this._csv,
      this._json,
    );
    this._notes = h("div", {
      className: "tbmf-cmp-notes",
      attrs: { hidden: true },
    });
    this._error = h("div", {
      className: "tbmf-cmp-panel__error",
      attrs: { role: "alert", hidden: true },
    });
    this._message = h("div", {
      className: "tbmf-cmp-panel__message",
      attrs: { hidden: true },
    });
    this._progress = h("div", {
      className: "tbmf-cmp-panel__progress",
      attrs: { hidden: true, "aria-hidden": "true" },
    });
    this._mainHost = h("div", { className: "tbmf-cmp-panel__chart" });
    this._diffTitle = h("div", { className: "tbmf-cmp-panel__diff-title" });
    this._diffHost = h("div", { className: "tbmf-cmp-panel__chart" });
    this._diffEmpty = h("div", {
      className: "tbmf-cmp-panel__diff-empty",
      text:
        "No run overlaps the baseline on this axis, so there is no " +
        "difference to draw. Try another axis (step, epoch or progress).",
      attrs: { hidden: true },
    });
    this._diffBox = h(
      "div",
      {
        className: "tbmf-cmp-panel__diff",
        attrs: { hidden: true },
      },
      this._diffTitle,
      this._diffEmpty,
      this._diffHost,
    );
    this.element = h(
      "section",
      {
        className: "tbmf-cmp-panel",
        dataset: { state: "empty" },
      },
      h(
        "header",
        { className: "tbmf-cmp-panel__head" },
        h(
          "div",
          { className: "tbmf-cmp-panel__heading" },
          this._title,
          this._subtitle,
        ),
        h(
          "div",
          { className: "tbmf-cmp-panel__meta" },
          this._zoomChip,
          this._badge,
          this._exports,
        ),
      ),
      this._progress,
      this._notes,
      this._error,
      this._message,
      this._mainHost,
      this._diffBox,
    );
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
    void this._load(false);
  }

  /** Fetches again with the same options (keeps zoom). */
  refresh() {
    if (this._destroyed) return Promise.resolve();
    return this._load(true);
  }

  /**
   * The export URL of the current view: the same arguments (window
   * included), every point.
   * @param {'csv' | 'json'} format
   * @returns {string | null} null when nothing is chosen
   */
  exportUrl(format) {
    const params = this._params();
    if (!params) return null;
    delete params.points;
    delete params.baseline;
    delete params.diffMode;
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
    const o = this.options;
    if (!o.runs?.length || (!o.metric && !o.tag)) return null;
    /** @type {Record<string, any>} */
    const params = { run: o.runs };
    if (o.metric) params.metric = o.metric;
    else params.tag = o.tag;
    params.x = axisInfo(o.x ?? "step").id;
    if (o.smoothing && o.smoothing > 0) params.smoothing = o.smoothing;
    if (o.smoothing && o.smoothingMode === "time") {
      params.smoothingMode = "time";
    }
    params.points = clampPoints(o.points);
    if (o.groupBy) {
      params.groupBy = o.groupBy;
      params.aggregate = o.aggregate ?? "mean";
      params.band = o.band ?? "std";
      params.includeSeries = o.showMembers ? "1" : "0";
      if (o.baselineGroup) params.baselineGroup = o.baselineGroup;
    } else if (o.baseline && o.runs.includes(o.baseline)) {
      params.baseline = o.baseline;
      if (o.diffMode === "ratio") params.diffMode = "ratio";
    }
    if (o.xRange) {
      params.xMin = o.xRange[0];
      params.xMax = o.xRange[1];
    }
    if (o.allAttempts) params.attempts = "all";
    if (o.batchValues && o.batchValues !== "logged") {
      params.batchValues = o.batchValues;
    }
    return params;
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
          ? "Select runs to compare."
          : "Pick a metric or a tag.",
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
    this.response = this.merge(
      /** @type {ScalarsResponse[]} */ (outcome.value),
    );
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
        text: "Retry",
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

  /** @param {ScalarsResponse} response */
  _renderDiffTitle(response) {
    const group = /** @type {any} */ (response).baselineGroup;
    const ratio = !group && response.diffMode === "ratio";
    const baseline = /** @type {string} */ (group ?? response.baseline);
    const dot = group
      ? groupColor(this.ctx.catalog, group)
      : colorFor(baseline);
    setChildren(
      this._diffTitle,
      h("span", {
        className: "tbmf-cmp-panel__diff-kind",
        text: ratio ? "Ratio to baseline" : "Difference from baseline",
      }),
      h("span", {
        className: "tbmf-cmp-panel__diff-formula",
        text: group
          ? `group ${/** @type {any} */ (response).aggregate} − baseline group's, band: ${/** @type {any} */ (response).band}`
          : ratio
            ? "run ÷ baseline"
            : "run − baseline",
      }),
      h(
        "span",
        { className: "tbmf-cmp-panel__diff-baseline" },
        h("span", {
          className: "tbmf-dot",
          style: { "--dot": dot },
        }),
        h("span", { text: baseline }),
      ),
    );
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

  /**
   * The groups on screen take the run colours' places (colors.js scope),
   * so no two groups share a colour and members take their group's.
   * @param {{group: string, members: {run: string}[]}[] | null} aggregates
   */
  _scopeGroups(aggregates) {
    const groupOf = new Map();
    for (const entry of aggregates ?? []) {
      for (const member of entry.members) groupOf.set(member.run, entry.group);
    }
    const signature = JSON.stringify([...groupOf]);
    if (signature === this._groupSignature) return;
    this._groupSignature = signature;
    colorScope.setGroupOf(
      groupOf.size ? (run) => groupOf.get(run) ?? null : null,
    );
  }

  /** @param {ScalarsResponse} response */
  _draw(response) {
    const o = this.options;
    this.element.dataset.state = "ready";
    this._message.hidden = true;
    const axis = axisInfo(response.x);
    // Raw-tag mode: every series has the same tag, the run names suffice.
    const showTag = !o.tag;
    const anyResponse = /** @type {any} */ (response);
    const grouped = Array.isArray(anyResponse.aggregates);
    this._scopeGroups(grouped ? anyResponse.aggregates : null);
    const colorOf = (/** @type {string} */ run) => styleFor(run).color;
    const dashOf = (/** @type {string} */ run) => styleFor(run).dash;
    const bands = drawnCount(response) <= MAX_BANDED_SERIES;
    const catalog = this.ctx.catalog;
    const main = grouped
      ? groupChartSeries(response, {
          catalog,
          showMembers: Boolean(o.showMembers),
        })
      : mainChartSeries(response, { showTag, colorOf, dashOf, bands });
    const diffs = grouped
      ? groupDiffSeries(response, { catalog })
      : response.baseline
        ? diffChartSeries(response, {
            showTag,
            colorOf,
            dashOf,
            bands,
            format: (diff) => differenceFormatter(response, diff),
          })
        : [];
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
      },
    };

    const mainLook = JSON.stringify([
      axis.id,
      Boolean(o.logY),
      o.height ?? DEFAULT_HEIGHT,
    ]);
    const emptyText =
      response.series.length === 0 && !grouped
        ? "No run has this metric."
        : "Nothing to draw on this axis.";
    if (!this.mainChart) {
      this.mainChart = createChart(this._mainHost, {
        ...common,
        ...mainOnly,
        logY: Boolean(o.logY),
        height: o.height ?? DEFAULT_HEIGHT,
        emptyText,
        series: main,
        xRange,
        ignoreOutliers,
      });
    } else if (mainLook !== this._mainLook) {
      this.mainChart.update({
        ...common,
        ...mainOnly,
        logY: Boolean(o.logY),
        height: o.height ?? DEFAULT_HEIGHT,
        emptyText,
        series: main,
        xRange,
        ignoreOutliers,
      });
    } else {
      this.mainChart.update({ series: main, xRange, ignoreOutliers });
    }
    this._mainLook = mainLook;

    const placed = grouped
      ? (anyResponse.groupDiffs ?? [])
      : (response.diffs ?? []).filter((d) => !d.excluded);
    const hasBaseline = grouped
      ? Boolean(anyResponse.baselineGroup)
      : Boolean(response.baseline);
    if (hasBaseline && placed.length > 0) {
      this._diffBox.hidden = false;
      this._renderDiffTitle(response);
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
        if (!this.diffChart) {
          this.diffChart = createChart(this._diffHost, {
            ...common,
            height: o.diffHeight ?? DEFAULT_DIFF_HEIGHT,
            series: diffs,
            xRange: diffRange,
            ignoreOutliers,
          });
          this.diffChart.element.classList.add("tbmf-chart--diff");
        } else if (diffLook !== this._diffLook) {
          this.diffChart.update({
            ...common,
            height: o.diffHeight ?? DEFAULT_DIFF_HEIGHT,
            series: diffs,
            xRange: diffRange,
            ignoreOutliers,
          });
        } else {
          this.diffChart.update({
            series: diffs,
            xRange: diffRange,
            ignoreOutliers,
          });
        }
        this._diffLook = diffLook;
      }
    } else {
      // No baseline, or no run can be compared with it (the notes say why).
      this._destroyDiffChart();
      this._diffBox.hidden = true;
    }

    this._renderBadge(response);
    this._renderNotes(response);
    this._anomalies.update(response);
  }

  /** @param {ScalarsResponse} response */
  _renderBadge(response) {
    const counts = pointCounts(response);
    const badge = this._badge;
    badge.hidden = counts.series === 0;
    badge.dataset.returned = String(counts.returned);
    badge.dataset.total = String(counts.total);
    badge.classList.toggle("is-complete", counts.complete);
    const windowed = Boolean(this.options.xRange);
    if (counts.complete) {
      badge.textContent = `All ${formatInt(counts.total)} points shown`;
      badge.title = "Every logged point is drawn: nothing was sampled away.";
    } else {
      badge.textContent = `${formatInt(counts.returned)} of ${formatInt(
        counts.total,
      )} points`;
      badge.title =
        (windowed
          ? "Points drawn in the zoomed window, of all points logged. "
          : "") +
        `Each series is cut into ${formatInt(response.points)} buckets on x; ` +
        "each bucket keeps its first, last, smallest and largest point, and " +
        "the band shows every bucket's min and max, so no spike is lost. " +
        "Drag across the chart to load a window at full resolution.";
    }
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

/**
 * @param {string} label
 * @returns {HTMLAnchorElement}
 */
function exportLink(label) {
  return h("a", {
    className: "tbmf-cmp-export",
    text: label,
    title: `Download every point of this view as ${label} (full resolution)`,
    dataset: { format: label.toLowerCase() },
    attrs: { download: "" },
  });
}

/**
 * @param {ScalarsResponse} response
 * @returns {number} series the main chart draws
 */
function drawnCount(response) {
  return response.series.filter((s) => !s.excluded).length;
}

/**
 * The tooltip text of a difference curve's values: to the precision of the
 * two values it subtracts (format.js formatDifference), whose larger
 * magnitude at x is read from the run's and the baseline's own series.
 * Ratios need nothing: five significant digits already hide float noise.
 * @param {ScalarsResponse} response
 * @param {import("./series.js").DiffSeries} diff
 * @returns {((value: number, x: number) => string) | undefined}
 */
export function differenceFormatter(response, diff) {
  if (response.diffMode === "ratio") return undefined;
  const smoothed = response.smoothing > 0;
  const find = (/** @type {string} */ run, /** @type {string} */ tag) =>
    response.series.find((s) => s.run === run && s.tag === tag && !s.excluded);
  const own = find(diff.run, diff.tag);
  const base = find(diff.baseline, diff.baselineTag);
  return (value, x) => {
    const scale = Math.max(
      magnitudeAt(own, x, smoothed),
      magnitudeAt(base, x, smoothed),
      // The operands are at least as large as the difference.
      Math.abs(value),
    );
    return formatDifference(value, scale);
  };
}

/**
 * |value| of a series at its point nearest to x (0 when unknown).
 * @param {import("./series.js").ScalarSeries | undefined} series
 * @param {number} x
 * @param {boolean} smoothed read the smoothed values
 * @returns {number}
 */
function magnitudeAt(series, x, smoothed) {
  if (!series || series.x.length === 0) return 0;
  const i = lowerBound(series.x, x);
  const candidates = [i - 1, i].filter((j) => j >= 0 && j < series.x.length);
  let best = 0;
  for (const j of candidates) {
    for (const values of smoothed ? [series.smoothed, series.y] : [series.y]) {
      const v = Number(values[j]);
      if (Number.isFinite(v)) best = Math.max(best, Math.abs(v));
    }
  }
  return best;
}

/**
 * The x extent of the drawn series.
 * @param {ScalarsResponse} response
 * @returns {[number, number] | null}
 */
function dataExtent(response) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const series of response.series) {
    if (series.excluded || series.x.length === 0) continue;
    lo = Math.min(lo, series.x[0]);
    hi = Math.max(hi, series.x[series.x.length - 1]);
  }
  return lo < hi ? [lo, hi] : null;
}

/**
 * A zoom window rounded to 4 significant digits of its width, so URLs stay
 * short (`2.004,2.996`) while the window moves by under 0.1 %.
 * @param {[number, number]} range
 * @returns {[number, number]}
 */
export function roundRange([min, max]) {
  const width = max - min;
  if (!(width > 0)) return [min, max];
  const decimals = Math.min(15, Math.max(0, 3 - Math.floor(Math.log10(width))));
  const factor = 10 ** decimals;
  const lo = Math.floor(min * factor) / factor;
  const hi = Math.ceil(max * factor) / factor;
  return [Number(lo.toFixed(decimals)), Number(hi.toFixed(decimals))];
}

/**
 * @param {number | undefined} points
 * @returns {number} a bucket count the route accepts
 */
export function clampPoints(points) {
  if (points == null || !Number.isFinite(points)) return DEFAULT_POINTS;
  return Math.min(MAX_POINTS, Math.max(1, Math.round(points)));
}

/**
 * @param {'number' | 'time'} xType
 * @returns {(x: number) => string}
 */
function formatX(xType) {
  if (xType === "time") {
    return (x) => new Date(x * 1000).toLocaleTimeString("en-GB");
  }
  return formatValue;
}

/**
 * Fills a baseline `<select>`: "None", then each candidate run; a baseline
 * from the URL that is not a candidate stays listed, disabled, so the link
 * keeps it for when its run comes back.
 * @param {HTMLSelectElement} select
 * @param {string[]} candidates
 * @param {string | null} baseline
 * @param {string} whyNot shown after a baseline that is not a candidate
 */
export function setBaselineOptions(select, candidates, baseline, whyNot) {
  const options = [
    h("option", { text: "None", attrs: { value: "" } }),
    ...candidates.map((run) =>
      h("option", { text: run, attrs: { value: run } }),
    ),
  ];
  if (baseline && !candidates.includes(baseline)) {
    options.push(
      h("option", {
        text: `${baseline} (${whyNot})`,
        attrs: { value: baseline, disabled: true },
      }),
    );
  }
  setChildren(select, options);
  select.value = baseline && candidates.includes(baseline) ? baseline : "";
}
