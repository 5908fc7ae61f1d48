// The Compare view: one metric from every selected run on a shared x axis,
// whatever framework logged it, with a difference chart against a baseline.
//
// Left: the run picker (the shared selection) and the metric picker. Right:
// the controls (axis, smoothing, log y, baseline, resolution), the selected
// runs, and the comparison panel (compare/panel.js), which fetches and
// draws. Every choice lives in the URL under keys starting with `c`, so a
// copied link reopens the same view.

import { ensureStylesheet, h } from "../dom.js";
import { t } from "../i18n.js";
import { runsOnScreen } from "../filter.js";
import { markInput } from "../perf.js";
import { KEYS as SHELL_KEYS } from "../state.js";
import { GroupControls, readGroupState } from "./compare/groupcontrols.js";
import { defaultMetric, MetricPicker } from "./compare/metricpicker.js";
import { mountComparisonChart } from "./compare/panel.js";
import { RunPicker } from "./compare/runpicker.js";
import { SelectedRuns } from "./compare/selectedruns.js";
import { comparableAxis, firstContactLine } from "./compare/firstcontact.js";
import { CompareToolbar } from "./compare/toolbar.js";
import { COMPARE_KEYS, readCompareState } from "./compare/viewstate.js";

/** @typedef {import("../app.js").ViewContext} ViewContext */
/** @typedef {import("./compare/metricpicker.js").MetricEntry} MetricEntry */
/** @typedef {import("./compare/viewstate.js").CompareState} CompareState */

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 * @returns {() => void}
 */
export function mount(root, ctx) {
  ensureStylesheet(new URL("./compare.css", import.meta.url));
  const view = new CompareView(root, ctx);
  return () => view.destroy();
}

/** State keys that only change how the chart is drawn (no list shows them). */
const CHART_ONLY_KEYS = new Set([
  COMPARE_KEYS.axis,
  COMPARE_KEYS.smoothing,
  COMPARE_KEYS.smoothingMode,
  COMPARE_KEYS.logY,
  COMPARE_KEYS.baseline,
  COMPARE_KEYS.diffMode,
  COMPARE_KEYS.zoom,
  COMPARE_KEYS.points,
  COMPARE_KEYS.outliers,
  COMPARE_KEYS.markers,
]);

class CompareView {
  /**
   * @param {HTMLElement} root
   * @param {ViewContext} ctx
   */
  constructor(root, ctx) {
    this.ctx = ctx;
    /** @type {import("./compare/panel.js").ComparisonChart | null} */
    this.panel = null;
    /** Groups of the last grouped answer (baseline group choices). */
    /** @type {string[]} */
    this._groups = [];
    this.groupControls = new GroupControls(ctx);

    this.runPicker = new RunPicker(ctx);
    this.metricPicker = new MetricPicker(ctx, {
      current: () => {
        const s = readCompareState(ctx.state);
        return { metric: s.metric, tag: s.tag };
      },
      onPick: (choice) => this._pick(choice),
      onLoad: () => this.render(),
    });

    this.toolbar = new CompareToolbar(ctx, this.groupControls);
    this.selectedRuns = new SelectedRuns(ctx, () => this._selectedRuns());
    this._panelHost = h("div", { className: "tbmf-cmp__panel" });
    /** One line: what to do first, or why this axis (firstcontact.js). */
    this._guide = h("p", {
      className: "tbmf-cmp__guide tbmf-muted",
      attrs: { hidden: true },
    });
    root.append(
      h(
        "div",
        { className: "tbmf-cmp" },
        h(
          "aside",
          { className: "tbmf-cmp__side" },
          this.runPicker.element,
          this.metricPicker.element,
        ),
        h(
          "div",
          { className: "tbmf-cmp__main" },
          this.toolbar.element,
          this._guide,
          this.selectedRuns.element,
          this._panelHost,
        ),
      ),
    );

    this._unsubscribe = [
      ctx.catalog.subscribe((_catalog, change) => {
        if (change.dataChanged) void this.metricPicker.load();
        this.render();
      }),
      ctx.state.subscribe((changed) => {
        if (changed.has(SHELL_KEYS.view)) return;
        // A change of the chart's look (log y, axis, smoothing, ...) leaves
        // the run and metric lists as they are: not rebuilding their 50+
        // rows keeps such an interaction's work to the chart.
        const chartOnly = [...changed].every((key) => CHART_ONLY_KEYS.has(key));
        this.render({ lists: !chartOnly });
      }),
    ];
    if (ctx.catalog.pending) void this.metricPicker.load();
    this.render();
  }

  destroy() {
    for (const unsubscribe of this._unsubscribe) unsubscribe();
    this.toolbar.destroy();
    this.metricPicker.destroy();
    this.panel?.destroy();
    this.panel = null;
  }

  // Controls.

  /** @param {import("./compare/metricpicker.js").Choice} choice */
  _pick(choice) {
    const s = readCompareState(this.ctx.state);
    if (choice.metric === s.metric && choice.tag === s.tag) return;
    markInput("metric");
    this.ctx.state.update({
      [COMPARE_KEYS.metric]: choice.metric,
      [COMPARE_KEYS.tag]: choice.tag,
      [COMPARE_KEYS.zoom]: null,
    });
  }

  // Rendering.

  /** @returns {string[]} the runs the charts draw, in catalog order: the
   * selected ones (matching the run filter when it narrows the charts) */
  _selectedRuns() {
    return runsOnScreen(this.ctx.state, this.ctx.catalog.runs);
  }

  /**
   * Runs that may serve as baseline: selected and having the metric/tag.
   * @param {CompareState} s
   * @param {string[]} selected
   * @returns {string[]}
   */
  _baselineCandidates(s, selected) {
    if (s.tag) {
      return selected.filter((run) => {
        const info = this.ctx.catalog.run(run);
        if (!info) return false;
        // `runs` lists a bounded number of tags a run (scalarTagCount says
        // how many it has): past the list, the server decides.
        const listedAll =
          (info.scalarTagCount ?? info.scalarTags.length) <=
          info.scalarTags.length;
        return (
          info.scalarTags.includes(/** @type {string} */ (s.tag)) ||
          !listedAll
        );
      });
    }
    const entry = this.metricPicker.metrics?.find((m) => m.key === s.metric);
    if (!entry) return [];
    const members = new Set(entry.members.map((m) => m.run));
    return selected.filter((run) => members.has(run));
  }

  /**
   * @param {{lists?: boolean}} [what] `lists: false` leaves the run and
   *     metric pickers and the selected runs as they are (default: all)
   */
  render({ lists = true } = {}) {
    const { catalog, state } = this.ctx;
    const s = readCompareState(state);
    const selected = this._selectedRuns();
    // No axis chosen: the one that makes these runs comparable (not kept in
    // the URL, so it follows the selection until the user picks one).
    const chosen = state.has(COMPARE_KEYS.axis);
    const shown = s.metric
      ? this.metricPicker.metrics?.find((m) => m.key === s.metric)
      : null;
    const members = shown ? new Set(shown.members.map((m) => m.run)) : null;
    const infos = selected
      .filter((run) => !members || members.has(run))
      .map((run) => catalog.run(run))
      .filter((r) => r !== undefined && r !== null);
    if (!chosen && !catalog.pending) s.axis = comparableAxis(infos).axis;
    const guide = catalog.pending
      ? ""
      : firstContactLine(infos, { chosen, totalRuns: catalog.runs.length });
    this._guide.textContent = guide;
    this._guide.hidden = guide === "";

    // A fresh view is never empty: open on the metric most runs share.
    if (!s.metric && !s.tag && !catalog.pending && this.metricPicker.metrics) {
      const key = defaultMetric(this.metricPicker.metrics, new Set(selected));
      if (key) {
        // Re-renders through the state listener.
        state.update({ [COMPARE_KEYS.metric]: key });
        return;
      }
    }

    if (lists) {
      this.metricPicker.followChoice({ metric: s.metric, tag: s.tag });
      this.runPicker.render();
      this.metricPicker.render();
    }
    this.toolbar.render(s, this._baselineCandidates(s, selected), this._groups);
    if (lists) this.selectedRuns.render();

    if (catalog.pending) return;
    // The baseline is checked against the metric index: wait for it rather
    // than draw once without the difference chart.
    const picker = this.metricPicker;
    if (s.metric && picker.metrics === null && picker.error === null) return;
    const candidates = this._baselineCandidates(s, selected);
    const baseline =
      s.baseline && candidates.includes(s.baseline) ? s.baseline : null;
    const entry = this.metricPicker.metrics?.find((m) => m.key === s.metric);
    /** @type {Partial<import("./compare/panel.js").PanelOptions>} */
    const options = {
      runs: selected,
      metric: s.metric,
      tag: s.tag,
      x: s.axis,
      smoothing: s.smoothing,
      smoothingMode: s.smoothingMode,
      logY: s.logY,
      baseline,
      diffMode: s.diffMode,
      points: s.points,
      xRange: s.zoom,
      ignoreOutliers: s.ignoreOutliers,
      allAttempts: s.allAttempts,
      batchValues: s.batchValues,
      anomalyMarkers: s.markers,
      ...this._groupOptions(),
      title: s.tag ?? entry?.name ?? s.metric ?? "",
      subtitle: s.tag
        ? t("cmp.rawTag")
        : entry
          ? entry.level
            ? t(`cmp.level.${entry.level === "epoch" ? "epoch" : "batch"}`)
            : t("cmp.level.any")
          : "",

    };
    if (!this.panel) {
      this.panel = mountComparisonChart(this._panelHost, this.ctx, {
        runs: [],
        ...options,
        onData: (response) => {
          const aggregates = /** @type {any} */ (response).aggregates;
          const groups = Array.isArray(aggregates)
            ? aggregates.map((/** @type {any} */ a) => a.group)
            : [];
          if (groups.join("\n") !== this._groups.join("\n")) {
            this._groups = groups;
            this.render();
          }
        },
        onZoomChange: (range) =>
          this.ctx.state.update({
            [COMPARE_KEYS.zoom]: range ? `${range[0]},${range[1]}` : null,
          }),
      });
    } else {
      this.panel.update(options);
    }
  }

  /**
   * The panel's group options (compare/groupcontrols.js); a baseline group
   * is sent once the last answer showed it exists.
   * @returns {Partial<import("./compare/panel.js").PanelOptions>}
   */
  _groupOptions() {
    const g = readGroupState(this.ctx.state);
    return {
      groupBy: g.groupBy,
      aggregate: g.aggregate,
      band: g.band,
      showMembers: g.showMembers,
      baselineGroup:
        g.baselineGroup && this._groups.includes(g.baselineGroup)
          ? g.baselineGroup
          : null,
    };
  }
}
