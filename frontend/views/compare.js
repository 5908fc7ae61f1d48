// The Compare view: one metric from every selected run on a shared x axis,
// whatever framework logged it, with a difference chart against a baseline.
//
// Left: the run picker (the shared selection) and the metric picker. Right:
// the controls (axis, smoothing, log y, baseline, resolution), the selected
// runs, and the comparison panel (compare/panel.js), which fetches and
// draws. Every choice lives in the URL under keys starting with `c`, so a
// copied link reopens the same view.

import { ensureStylesheet, h, icon, setChildren } from "../dom.js";
import { runsOnScreen } from "../filter.js";
import { formatInt, plural } from "../format.js";
import { markInput } from "../perf.js";
import {
  getPref,
  setPref,
  TOOLTIP_ROW_CHOICES,
  TOOLTIP_ROWS_PREF,
  DEFAULT_TOOLTIP_ROWS,
} from "../prefs.js";
import { KEYS as SHELL_KEYS } from "../state.js";
import { AXES, axisInfo, DEFAULT_AXIS } from "./compare/axes.js";
import { styleFor } from "./compare/colors.js";
import { GroupControls, readGroupState } from "./compare/groupcontrols.js";
import { defaultMetric, MetricPicker } from "./compare/metricpicker.js";
import {
  clampPoints,
  DEFAULT_POINTS,
  MAX_POINTS,
  mountComparisonChart,
} from "./compare/panel.js";
import { setBaselineOptions } from "./compare/baselineselect.js";
import { RunPicker } from "./compare/runpicker.js";

/** @typedef {import("../app.js").ViewContext} ViewContext */
/** @typedef {import("./compare/metricpicker.js").MetricEntry} MetricEntry */

/** State keys of this view. */
export const COMPARE_KEYS = Object.freeze({
  metric: "cm", // metric key, e.g. loss/train@batch
  tag: "ct", // raw tag (instead of a metric)
  axis: "cx", // step | epoch | relative | wall | progress
  smoothing: "cs", // 0 ≤ w ≤ MAX_SMOOTHING
  smoothingMode: "csm", // ema | time
  logY: "cl", // "1" for a logarithmic y axis
  baseline: "cb", // run
  diffMode: "cd", // difference | ratio
  zoom: "cz", // "min,max" on the axis
  points: "cp", // buckets a series
  outliers: "co", // "0": y range over every value (default: ignore outliers)
  attempts: "ca", // "all": also a resumed run's superseded points
  batchValues: "cbv", // per_batch | running_mean (default: as logged)
});
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
/** Highest smoothing weight the slider offers. */
export const MAX_SMOOTHING = 0.99;
/** Resolutions offered (buckets a series); the URL may ask for others. */
const POINT_CHOICES = [100, 250, 500, 1000, 2000, 5000, 10000, MAX_POINTS];
/** Milliseconds of slider quiet before the smoothing is applied. */
const SMOOTHING_DEBOUNCE_MS = 150;
/** Most selected runs shown as chips before summarising the rest. */
const MAX_LISTED_RUNS = 60;

const TIME_SMOOTHING_HELP =
  "Time-weighted: an EMA that decays with distance on the x axis instead " +
  "of with the number of points. A point one median gap back weighs w, ten " +
  "gaps back w¹⁰, however many points lie between. Use it on the relative " +
  "or wall axis, or when runs log at different rates. With evenly spaced " +
  "points it equals TensorBoard's EMA.";
const EMA_SMOOTHING_HELP =
  "TensorBoard's debiased EMA over point index, computed on the server over " +
  "every point before downsampling.";

/**
 * @typedef {Object} CompareState
 * @property {string | null} metric
 * @property {string | null} tag
 * @property {string} axis
 * @property {number} smoothing
 * @property {'ema' | 'time'} smoothingMode
 * @property {boolean} logY
 * @property {string | null} baseline
 * @property {'difference' | 'ratio'} diffMode
 * @property {[number, number] | null} zoom
 * @property {number} points
 * @property {boolean} ignoreOutliers
 * @property {boolean} allAttempts
 * @property {'logged' | 'per_batch' | 'running_mean'} batchValues
 */

/**
 * Reads this view's state, replacing anything malformed by its default.
 * @param {import("../state.js").AppState} state
 * @returns {CompareState}
 */
export function readCompareState(state) {
  const tag = state.get(COMPARE_KEYS.tag) || null;
  const metric = tag ? null : state.get(COMPARE_KEYS.metric) || null;
  const smoothing = Number(state.get(COMPARE_KEYS.smoothing, "0"));
  const points = Number(state.get(COMPARE_KEYS.points, ""));
  const zoomParts = state
    .get(COMPARE_KEYS.zoom)
    .split(",")
    .map((v) => (v.trim() === "" ? NaN : Number(v)));
  const zoom =
    zoomParts.length === 2 &&
    zoomParts.every(Number.isFinite) &&
    zoomParts[0] < zoomParts[1]
      ? /** @type {[number, number]} */ (zoomParts)
      : null;
  return {
    metric,
    tag,
    axis: axisInfo(state.get(COMPARE_KEYS.axis, DEFAULT_AXIS)).id,
    smoothing:
      Number.isFinite(smoothing) && smoothing > 0
        ? Math.min(smoothing, MAX_SMOOTHING)
        : 0,
    smoothingMode:
      state.get(COMPARE_KEYS.smoothingMode) === "time" ? "time" : "ema",
    logY: state.get(COMPARE_KEYS.logY) === "1",
    baseline: state.get(COMPARE_KEYS.baseline) || null,
    diffMode:
      state.get(COMPARE_KEYS.diffMode) === "ratio" ? "ratio" : "difference",
    zoom,
    points:
      Number.isFinite(points) && points > 0
        ? clampPoints(points)
        : DEFAULT_POINTS,
    ignoreOutliers: state.get(COMPARE_KEYS.outliers) !== "0",
    allAttempts: state.get(COMPARE_KEYS.attempts) === "all",
    batchValues: readBatchValues(state.get(COMPARE_KEYS.batchValues)),
  };
}

/**
 * @param {string} value
 * @returns {'logged' | 'per_batch' | 'running_mean'}
 */
function readBatchValues(value) {
  return value === "per_batch" || value === "running_mean" ? value : "logged";
}

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

class CompareView {
  /**
   * @param {HTMLElement} root
   * @param {ViewContext} ctx
   */
  constructor(root, ctx) {
    this.ctx = ctx;
    /** @type {import("./compare/panel.js").ComparisonChart | null} */
    this.panel = null;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._smoothingTimer = null;
    /** The last smoothing input, where its timing starts. */
    /** @type {Event | null} */
    this._smoothingEvent = null;
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

    this._buildControls();
    /** The chips are shown in full (else one line). */
    this._chipsOpen = false;
    this._chips = h("ul", {
      className: "tbmf-run-chips tbmf-cmp-chips",
      attrs: { "aria-label": "Selected runs" },
    });
    this._chipsToggle = h("button", {
      className: "tbmf-cmp-selected__toggle",
      attrs: { type: "button", "aria-expanded": "false" },
      dataset: { action: "chips-toggle" },
      on: {
        click: () => {
          this._chipsOpen = !this._chipsOpen;
          this._renderChips();
        },
      },
    });
    this._panelHost = h("div", { className: "tbmf-cmp__panel" });
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
          this._toolbar,
          (this._selectedBox = h(
            "div",
            { className: "tbmf-cmp__selected" },
            h("span", {
              className: "tbmf-cmp__selected-label",
              text: "Comparing",
            }),
            this._chipsToggle,
            this._chips,
          )),
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
        this.render();
      }),
    ];
    if (ctx.catalog.pending) void this.metricPicker.load();
    this.render();
  }

  destroy() {
    for (const unsubscribe of this._unsubscribe) unsubscribe();
    if (this._smoothingTimer !== null) clearTimeout(this._smoothingTimer);
    this.metricPicker.destroy();
    this.panel?.destroy();
    this.panel = null;
  }

  // Controls.

  _buildControls() {
    const state = this.ctx.state;
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

    this._toolbar = h(
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
              attrs: { tabindex: "0", "aria-label": TIME_SMOOTHING_HELP },
            },
            icon("info", { size: 16 }),
          ),
        ),
      ),
      group(
        "Y axis",
        h("span", { className: "tbmf-cmp-yaxis" }, this._logY, this._outliers),
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
      return selected.filter((run) =>
        this.ctx.catalog
          .run(run)
          ?.scalarTags.includes(/** @type {string} */ (s.tag)),
      );
    }
    const entry = this.metricPicker.metrics?.find((m) => m.key === s.metric);
    if (!entry) return [];
    const members = new Set(entry.members.map((m) => m.run));
    return selected.filter((run) => members.has(run));
  }

  render() {
    const { catalog, state } = this.ctx;
    const s = readCompareState(state);
    const selected = this._selectedRuns();

    // A fresh view is never empty: open on the metric most runs share.
    if (!s.metric && !s.tag && !catalog.pending && this.metricPicker.metrics) {
      const key = defaultMetric(this.metricPicker.metrics, new Set(selected));
      if (key) {
        // Re-renders through the state listener.
        state.update({ [COMPARE_KEYS.metric]: key });
        return;
      }
    }

    this.metricPicker.followChoice({ metric: s.metric, tag: s.tag });
    this.runPicker.render();
    this.metricPicker.render();
    this._renderControls(s, selected);
    this._renderChips();

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
      ...this._groupOptions(),
      title: s.tag ?? entry?.name ?? s.metric ?? "",
      subtitle: s.tag
        ? "raw tag"
        : entry
          ? entry.level
            ? `${entry.level} level`
            : "any level"
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

  /**
   * @param {CompareState} s
   * @param {string[]} selected
   */
  _renderControls(s, selected) {
    this.groupControls.render(this._groups);
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
    this._attempts.classList.toggle("is-on", s.allAttempts);
    this._attempts.setAttribute("aria-pressed", String(s.allAttempts));
    this._batchValues.value = s.batchValues;

    const candidates = this._baselineCandidates(s, selected);
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

  _renderChips() {
    const runs = this._selectedRuns();
    const selection = this.ctx.state.selection;
    const total =
      selection === null ? this.ctx.catalog.runs.length : selection.size;
    const open = this._chipsOpen;
    const summary =
      runs.length === total
        ? plural(runs.length, "run")
        : `${plural(runs.length, "run")} of ${formatInt(total)} selected`;
    this._chipsToggle.textContent = `${summary} · ${open ? "less" : "edit"}`;
    this._chipsToggle.title = open
      ? "Show the runs on one line"
      : "Show every run compared (remove runs here)";
    this._chipsToggle.setAttribute("aria-expanded", String(open));
    this._chipsToggle.hidden = runs.length === 0;
    this._selectedBox.classList.toggle("is-open", open);
    const items = runs.slice(0, MAX_LISTED_RUNS).map((run) => {
      const style = styleFor(run);
      return h(
        "li",
        { className: "tbmf-run-chip", dataset: { run } },
        h("span", {
          className: `tbmf-dot${style.dash ? " is-dashed" : ""}`,
          style: { "--dot": style.color },
        }),
        h("span", { className: "tbmf-cmp-chip__name", text: run }),
        h(
          "button",
          {
            className: "tbmf-cmp-chip__remove",
            title: `Remove ${run} from the comparison`,
            attrs: { type: "button", "aria-label": `Remove ${run}` },
            on: {
              click: (event) => {
                markInput("selection", event);
                this._deselect(run);
              },
            },
          },
          icon("close", { size: 12 }),
        ),
      );
    });
    if (runs.length > MAX_LISTED_RUNS) {
      items.push(
        h("li", {
          className: "tbmf-muted",
          text: `+${formatInt(runs.length - MAX_LISTED_RUNS)} more`,
        }),
      );
    }
    if (runs.length === 0) {
      items.push(
        h("li", {
          className: "tbmf-muted",
          text: "no run selected: pick runs on the left",
        }),
      );
    }
    setChildren(this._chips, items);
  }

  /** @param {string} run */
  _deselect(run) {
    const all = this.ctx.catalog.runs.map((r) => r.run);
    const current = new Set(this.ctx.state.selectedRuns(all));
    current.delete(run);
    this.ctx.state.setSelection(current);
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
