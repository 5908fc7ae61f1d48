// The Runs view: every run TensorBoard's logdir holds, which framework and
// writer produced it, how much data it has, and what went wrong reading it.
// Its checkboxes are the run selection every other view uses.

import { frameworkColor, frameworkLabel, FRAMEWORK_LABELS } from "../colors.js";
import { append, frameworkBadge, h, icon } from "../dom.js";
import {
  formatDuration,
  formatInt,
  formatSteps,
  formatTimestamp,
  plural,
} from "../format.js";
import { encodeList, decodeList } from "../state.js";
import { runMatcher } from "../filter.js";
import { ConfigDiffPanel, MAX_DIFF_RUNS } from "./runs/configdiff.js";
import {
  clauseMatches,
  ExperimentData,
  experimentColumns,
  filterValue,
  hparamText,
  KEY_METRIC,
  parseFilter,
} from "./runs/experiment.js";
import {
  anomalyBadge,
  anomalyFilterButton,
  anomalyStore,
  KEY_ANOMALY_FILTER,
  passesAnomalyFilter,
} from "../anomalies.js";

/** @typedef {import("../model.js").RunInfo} RunInfo */
/** @typedef {import("../app.js").ViewContext} ViewContext */

/** State keys of this view. */
const KEY_FILTER = "q";
const KEY_SORT = "sort";
const KEY_FRAMEWORKS = "fw";
/** Milliseconds of typing quiet before the filter applies. */
const FILTER_DEBOUNCE_MS = 120;
/** Longest filter text accepted, in characters. */
const MAX_FILTER_LENGTH = 200;
/** Skeleton rows shown before the first answer. */
const SKELETON_ROWS = 6;

/**
 * @typedef {Object} Column
 * @property {string} id
 * @property {string} label
 * @property {string} [title] header tooltip
 * @property {boolean} [numeric] right-aligned, sorts descending first
 * @property {(run: RunInfo) => string | number} sortKey
 */

/** @type {Column[]} */
const COLUMNS = [
  { id: "run", label: "Run", sortKey: (r) => runLabel(r).toLowerCase() },
  { id: "group", label: "Group", sortKey: (r) => r.group.toLowerCase() },
  { id: "framework", label: "Framework", sortKey: (r) => r.framework },
  { id: "writer", label: "Writer", sortKey: (r) => r.writer.toLowerCase() },
  {
    id: "scalars",
    label: "Scalars",
    title: "Number of scalar tags",
    numeric: true,
    sortKey: (r) => r.scalarTags.length,
  },
  {
    id: "histograms",
    label: "Histograms",
    title: "Number of histogram tags",
    numeric: true,
    sortKey: (r) => r.histogramTags.length,
  },
  {
    id: "points",
    label: "Points",
    title: "Scalar points read: every logged point, nothing sampled away",
    numeric: true,
    sortKey: (r) => r.numPoints,
  },
  {
    id: "steps",
    label: "Steps",
    title: "First and last step logged",
    numeric: true,
    sortKey: (r) => r.lastStep ?? -Infinity,
  },
  {
    id: "duration",
    label: "Duration",
    title: "Time between the first and the last event",
    numeric: true,
    sortKey: (r) => duration(r) ?? -Infinity,
  },
  {
    id: "warnings",
    label: "Warnings",
    title: "Problems met while reading the files",
    numeric: true,
    sortKey: (r) => r.warnings.length,
  },
];
/** Columns before the data columns: checkbox and expander. */
const LEAD_COLUMNS = 2;
const TOTAL_COLUMNS = LEAD_COLUMNS + COLUMNS.length;
/** Columns a full-width row spans (grows with the experiment columns). */
let spanColumns = TOTAL_COLUMNS;
/** State key: "1" shows the config diff of the selected runs. */
const KEY_DIFF = "rd";

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 * @returns {() => void}
 */
export function mount(root, ctx) {
  const view = new RunsView(root, ctx);
  return () => view.destroy();
}

class RunsView {
  /**
   * @param {HTMLElement} root
   * @param {ViewContext} ctx
   */
  constructor(root, ctx) {
    this.ctx = ctx;
    /** Runs whose detail row is open. */
    /** @type {Set<string>} */
    this.expanded = new Set();
    /** Groups folded shut. */
    /** @type {Set<string>} */
    this.collapsedGroups = new Set();
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._filterTimer = null;

    this.filterInput = h("input", {
      className: "tbmf-search__input",
      attrs: {
        type: "search",
        placeholder:
          "Filter runs (regex: run, group, framework, writer; or columns: lr<0.01 optimizer=adam)",
        "aria-label": "Filter runs",
        spellcheck: "false",
        autocomplete: "off",
        maxlength: MAX_FILTER_LENGTH,
      },
      on: { input: () => this._onFilterInput() },
    });
    this.filterInput.value = ctx.state.get(KEY_FILTER);
    this.frameworkChips = h("div", {
      className: "tbmf-chips",
      attrs: { role: "group", "aria-label": "Filter by framework" },
    });
    this.anomalies = anomalyStore(ctx);
    this.anomalyFilter = h("div", { className: "tbmf-chips" });
    this.selectionSummary = h("span", { className: "tbmf-selection__text" });
    this.selectionBox = h("div", { className: "tbmf-selection" });
    this.headerCheckbox = h("input", {
      attrs: { type: "checkbox", "aria-label": "Select all shown runs" },
      on: { change: () => this._toggleVisible() },
    });
    this.headRow = h("tr");
    this.tbody = h("tbody");
    this.summary = h("div", { className: "tbmf-runs__summary" });
    this.experiment = new ExperimentData(() => this.render());
    /** @type {ReturnType<typeof experimentColumns>} */
    this._exp = { columns: [], constant: [], hidden: 0 };
    this.configDiff = new ConfigDiffPanel();
    this.metricSelect = h("select", {
      className: "tbmf-select",
      title: "Metric summarised per run: last value, best value, step of best",
      attrs: { "aria-label": "Metric columns" },
      dataset: { control: "metric" },
      on: {
        change: () =>
          ctx.state.update({ [KEY_METRIC]: this.metricSelect.value || "-" }),
      },
    });
    this.diffButton = h("button", {
      className: "tbmf-button",
      attrs: { type: "button", "aria-pressed": "false" },
      dataset: { action: "config-diff" },
      on: {
        click: () =>
          ctx.state.update({
            [KEY_DIFF]: ctx.state.get(KEY_DIFF) === "1" ? null : "1",
          }),
      },
    });
    this.sameForAll = h("div", { className: "tbmf-same-for-all" });
    this.experimentBar = h(
      "div",
      { className: "tbmf-experiment-bar" },
      h(
        "label",
        { className: "tbmf-experiment-bar__metric" },
        h("span", { text: "Metric columns" }),
        this.metricSelect,
      ),
      this.diffButton,
      this.sameForAll,
    );

    root.append(
      h(
        "div",
        { className: "tbmf-toolbar" },
        h(
          "label",
          { className: "tbmf-search" },
          icon("search", { size: 18 }),
          this.filterInput,
        ),
        this.frameworkChips,
        this.anomalyFilter,
        append(
          this.selectionBox,
          this.selectionSummary,
          (this.selectAllButton = h("button", {
            className: "tbmf-button tbmf-button--text",
            text: "Select all",
            attrs: { type: "button" },
            dataset: { action: "select-all" },
            on: { click: () => this._selectShown(true) },
          })),
          (this.selectOnlyButton = h("button", {
            className: "tbmf-button tbmf-button--text",
            text: "Only shown",
            title: "Select exactly the runs the filter shows",
            attrs: { type: "button", hidden: true },
            dataset: { action: "select-only" },
            on: {
              click: () =>
                ctx.state.setSelection(this._visibleRuns().map((r) => r.run)),
            },
          })),
          (this.selectNoneButton = h("button", {
            className: "tbmf-button tbmf-button--text",
            text: "Select none",
            attrs: { type: "button" },
            dataset: { action: "select-none" },
            on: { click: () => ctx.state.setSelection([]) },
          })),
        ),
      ),
      this.experimentBar,
      this.configDiff.element,
      h(
        "div",
        { className: "tbmf-table-wrap" },
        (this.table = h(
          "table",
          { className: "tbmf-table runs-table" },
          h("thead", {}, this.headRow),
          this.tbody,
        )),
      ),
      this.summary,
    );

    this._unsubscribe = [
      ctx.catalog.subscribe((_catalog, change) => {
        if (change.dataChanged) {
          void this.experiment.loadMetrics();
          this._loadExperiment(true);
        }
        this.render();
      }),
      this.anomalies.subscribe(() => this.render()),
      ctx.state.subscribe((changed) => {
        if (
          changed.has(KEY_FILTER) &&
          document.activeElement !== this.filterInput
        ) {
          this.filterInput.value = ctx.state.get(KEY_FILTER);
        }
        this.render();
      }),
    ];
    this.render();
  }

  destroy() {
    for (const unsubscribe of this._unsubscribe) unsubscribe();
    if (this._filterTimer !== null) clearTimeout(this._filterTimer);
    this.experiment.destroy();
    this.configDiff.destroy();
  }

  /**
   * Fetches the chosen metric's summary and the config diff when their
   * inputs changed (or always, after new data).
   * @param {boolean} force
   */
  _loadExperiment(force) {
    const state = this.ctx.state;
    void this.experiment.loadSummary(
      this.experiment.metricKey(state.get(KEY_METRIC)),
      force,
    );
    const all = this.ctx.catalog.runs.map((r) => r.run);
    void this.configDiff.show(
      state.get(KEY_DIFF) === "1" ? state.selectedRuns(all) : null,
      force,
    );
  }

  /** @returns {Column[]} the fixed columns, then the experiment columns */
  _columns() {
    return [...COLUMNS, ...this._exp.columns];
  }

  // State.

  _onFilterInput() {
    if (this._filterTimer !== null) clearTimeout(this._filterTimer);
    this._filterTimer = setTimeout(() => {
      this._filterTimer = null;
      this.ctx.state.update({ [KEY_FILTER]: this.filterInput.value.trim() });
    }, FILTER_DEBOUNCE_MS);
  }

  /** @returns {{column: Column, descending: boolean}} */
  _sort() {
    const raw = this.ctx.state.get(KEY_SORT, "run");
    const descending = raw.startsWith("-");
    const id = descending ? raw.slice(1) : raw;
    const column =
      this._columns().find((c) => c.id === id) ??
      experimentColumns(
        this.ctx.catalog.runs,
        this.experiment.summary,
      ).columns.find((c) => c.id === id) ??
      (id.startsWith("hp:")
        ? {
            id,
            label: id.slice(3),
            sortKey: (/** @type {any} */ r) => {
              const v = r.hparams?.[id.slice(3)];
              return v === undefined || v === null
                ? Infinity
                : typeof v === "number"
                  ? v
                  : String(v);
            },
          }
        : COLUMNS[0]);
    return { column, descending };
  }

  /** @param {Column} column */
  _sortBy(column) {
    const current = this._sort();
    const descending =
      current.column.id === column.id
        ? !current.descending
        : Boolean(column.numeric);
    const value = `${descending ? "-" : ""}${column.id}`;
    this.ctx.state.update({ [KEY_SORT]: value === "run" ? null : value });
  }

  /** @returns {Set<string>} frameworks the chips keep; empty keeps all */
  _frameworkFilter() {
    return new Set(decodeList(this.ctx.state.get(KEY_FRAMEWORKS)));
  }

  /** @param {string} framework */
  _toggleFramework(framework) {
    const kept = this._frameworkFilter();
    if (kept.has(framework)) kept.delete(framework);
    else kept.add(framework);
    this.ctx.state.update({
      [KEY_FRAMEWORKS]: kept.size ? encodeList([...kept].sort()) : null,
    });
  }

  /** @returns {RunInfo[]} the runs passing the filter box and chips, sorted */
  _visibleRuns() {
    const { clauses, rest } = parseFilter(this.ctx.state.get(KEY_FILTER));
    const matches = runMatcher(rest);
    const all = this.ctx.catalog.runs;
    const columns = clauses.length
      ? experimentColumns(all, this.experiment.summary).columns
      : [];
    const keys = [
      ...new Set(
        all.flatMap((r) => Object.keys(/** @type {any} */ (r).hparams ?? {})),
      ),
    ];
    const passes = (/** @type {RunInfo} */ run) =>
      clauses.every((c) =>
        clauseMatches(filterValue(run, c, columns, keys), c),
      );
    const frameworks = this._frameworkFilter();
    const { column, descending } = this._sort();
    const direction = descending ? -1 : 1;
    return this.ctx.catalog.runs
      .filter(
        (run) =>
          (frameworks.size === 0 || frameworks.has(run.framework)) &&
          matches(run) &&
          passes(run) &&
          passesAnomalyFilter(this.ctx, run.run),
      )
      .sort((a, b) => {
        const ka = column.sortKey(a);
        const kb = column.sortKey(b);
        const order = ka < kb ? -1 : ka > kb ? 1 : 0;
        // Ties keep run-name order, so equal rows never jump around.
        return (
          order * direction || (a.run < b.run ? -1 : a.run > b.run ? 1 : 0)
        );
      });
  }

  /** @param {string[]} runs @param {boolean} select */
  _setSelected(runs, select) {
    const all = this.ctx.catalog.runs.map((r) => r.run);
    this.ctx.state.changeSelection(all, runs, select);
  }

  /** @returns {boolean} a filter box text or framework chip is active */
  _filtered() {
    return Boolean(
      this.ctx.state.get(KEY_FILTER) || this._frameworkFilter().size,
    );
  }

  /**
   * "Select all": every run without a filter; with one, the runs it shows
   * join the selection (the others keep their state).
   * @param {boolean} select
   */
  _selectShown(select) {
    if (!this._filtered()) {
      this.ctx.state.setSelection(select ? null : []);
      return;
    }
    this._setSelected(
      this._visibleRuns().map((r) => r.run),
      select,
    );
  }

  _toggleVisible() {
    const visible = this._visibleRuns().map((r) => r.run);
    const state = this.ctx.state;
    const allSelected = visible.every((run) => state.isSelected(run));
    this._setSelected(visible, !allSelected);
  }

  /** @param {string} run */
  _toggleExpanded(run) {
    if (this.expanded.has(run)) this.expanded.delete(run);
    else this.expanded.add(run);
    this.render();
  }

  /** @param {string} group */
  _toggleGroup(group) {
    if (this.collapsedGroups.has(group)) this.collapsedGroups.delete(group);
    else this.collapsedGroups.add(group);
    this.render();
  }

  // Rendering.

  render() {
    const focusKey = /** @type {HTMLElement | null} */ (document.activeElement)
      ?.dataset?.focusKey;
    this._loadExperiment(false);
    this._exp = experimentColumns(
      this._visibleRunsFixed(),
      this.experiment.summary,
    );
    spanColumns = TOTAL_COLUMNS + this._exp.columns.length;
    this._renderExperimentBar();
    this._renderHead();
    this._renderChips();
    this.anomalyFilter.replaceChildren(anomalyFilterButton(this.ctx));
    this._renderBody();
    this._renderSelection();
    if (focusKey) {
      const again = this.tbody.querySelector(
        `[data-focus-key="${CSS.escape(focusKey)}"]`,
      );
      /** @type {HTMLElement | null} */ (again)?.focus();
    }
  }

  /** @returns {RunInfo[]} visible runs before the experiment columns exist */
  _visibleRunsFixed() {
    return this.ctx.catalog.pending ? [] : this._visibleRuns();
  }

  _renderExperimentBar() {
    const state = this.ctx.state;
    const key = this.experiment.metricKey(state.get(KEY_METRIC));
    const options = [
      h("option", { text: "none", attrs: { value: "" } }),
      ...this.experiment.metrics.map((m) =>
        h("option", { text: m.key, attrs: { value: m.key } }),
      ),
    ];
    if (key && !this.experiment.metrics.some((m) => m.key === key)) {
      options.push(h("option", { text: key, attrs: { value: key } }));
    }
    this.metricSelect.replaceChildren(...options);
    this.metricSelect.value = key ?? "";
    const all = this.ctx.catalog.runs.map((r) => r.run);
    const selected = state.selectedRuns(all).length;
    const open = state.get(KEY_DIFF) === "1";
    this.diffButton.textContent = open
      ? "Hide config diff"
      : `Config diff of ${formatInt(selected)} selected`;
    this.diffButton.disabled =
      !open && (selected < 2 || selected > MAX_DIFF_RUNS);
    this.diffButton.title =
      selected < 2 || selected > MAX_DIFF_RUNS
        ? `Select 2 to ${MAX_DIFF_RUNS} runs to compare their hyper-parameters`
        : "The selected runs' hyper-parameters side by side, differing keys first";
    this.diffButton.setAttribute("aria-pressed", String(open));
    const { constant, hidden } = this._exp;
    const parts = constant.map(([k, v]) => `${k}=${hparamText(v)}`);
    this.sameForAll.hidden = parts.length === 0 && hidden === 0;
    this.sameForAll.replaceChildren(
      parts.length
        ? h("span", {
            className: "tbmf-same-for-all__label",
            text: "Same for all shown: ",
          })
        : "",
      h("span", {
        className: "tbmf-same-for-all__values",
        text: parts.join(" · "),
      }),
      hidden
        ? h("span", {
            className: "tbmf-muted",
            text: ` (+${formatInt(hidden)} differing keys not shown as columns; see a config diff)`,
          })
        : "",
    );
  }

  _renderHead() {
    const { column: sorted, descending } = this._sort();
    const cells = this._columns().map((column) => {
      const active = column.id === sorted.id;
      return h(
        "th",
        {
          className: column.numeric ? "is-numeric" : "",
          attrs: {
            scope: "col",
            "aria-sort": active
              ? descending
                ? "descending"
                : "ascending"
              : "none",
          },
          dataset: { col: column.id },
        },
        h(
          "button",
          {
            className: `tbmf-sort${active ? " is-active" : ""}`,
            title: column.title ?? `Sort by ${column.label.toLowerCase()}`,
            attrs: { type: "button" },
            on: { click: () => this._sortBy(column) },
          },
          h("span", { text: column.label }),
          icon(active && descending ? "arrowDown" : "arrowUp", {
            size: 14,
            className: "tbmf-sort__icon",
          }),
        ),
      );
    });
    this.headRow.replaceChildren(
      h("th", { className: "tbmf-col-check" }, this.headerCheckbox),
      h("th", {
        className: "tbmf-col-expand",
        attrs: { "aria-label": "Details" },
      }),
      ...cells,
    );
  }

  _renderChips() {
    const runs = this.ctx.catalog.runs;
    const kept = this._frameworkFilter();
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const run of runs) {
      counts.set(run.framework, (counts.get(run.framework) ?? 0) + 1);
    }
    const order = Object.keys(FRAMEWORK_LABELS);
    const frameworks = [...counts.keys()].sort(
      (a, b) => order.indexOf(a) - order.indexOf(b),
    );
    this.frameworkChips.replaceChildren(
      ...frameworks.map((framework) =>
        h(
          "button",
          {
            className: `tbmf-chip${kept.has(framework) ? " is-on" : ""}`,
            title: kept.has(framework)
              ? `Stop filtering by ${frameworkLabel(framework)}`
              : `Show only ${frameworkLabel(framework)} runs`,
            attrs: {
              type: "button",
              "aria-pressed": String(kept.has(framework)),
            },
            dataset: { framework },
            on: { click: () => this._toggleFramework(framework) },
          },
          h("span", {
            className: "tbmf-dot",
            style: { "--dot": frameworkColor(framework) },
          }),
          h("span", { text: frameworkLabel(framework) }),
          h("span", {
            className: "tbmf-chip__count",
            text: formatInt(counts.get(framework) ?? 0),
          }),
        ),
      ),
    );
  }

  _renderBody() {
    const catalog = this.ctx.catalog;
    if (catalog.pending) {
      this.tbody.replaceChildren(...skeletonRows());
      this.summary.textContent = "";
      return;
    }
    const all = catalog.runs;
    if (all.length === 0) {
      const message = catalog.error
        ? "The runs could not be loaded."
        : catalog.payload?.loading
          ? "TensorBoard is reading the logdir…"
          : "No runs found. The logdir holds no tfevents or VisualDL (vdlrecords) files yet.";
      this.tbody.replaceChildren(messageRow(message));
      this.summary.textContent = "";
      return;
    }
    const visible = this._visibleRuns();
    this._renderSummary(all, visible);
    // A Group column of empty cells only takes width from the others.
    this.table.classList.toggle(
      "is-ungrouped",
      visible.every((run) => run.group === run.run),
    );
    if (visible.length === 0) {
      this.tbody.replaceChildren(
        messageRow(
          "No run matches the filter.",
          h("button", {
            className: "tbmf-button tbmf-button--text",
            text: "Clear filters",
            attrs: { type: "button" },
            on: {
              click: () => {
                this.filterInput.value = "";
                this.ctx.state.update({
                  [KEY_FILTER]: null,
                  [KEY_FRAMEWORKS]: null,
                  [KEY_ANOMALY_FILTER]: null,
                });
              },
            },
          }),
        ),
      );
      return;
    }
    /** @type {HTMLTableRowElement[]} */
    const rows = [];
    for (const [group, members] of groupRuns(visible)) {
      const grouped = members.length > 1 || members[0].group !== members[0].run;
      if (!grouped) {
        rows.push(...this._runRows(members[0], false));
        continue;
      }
      rows.push(this._groupRow(group, members));
      if (this.collapsedGroups.has(group)) continue;
      for (const run of members) rows.push(...this._runRows(run, true));
    }
    this.tbody.replaceChildren(...rows);
  }

  /**
   * @param {RunInfo[]} all
   * @param {RunInfo[]} visible
   */
  _renderSummary(all, visible) {
    const groups = new Set(all.map((r) => r.group)).size;
    const points = all.reduce((sum, r) => sum + (r.numPoints || 0), 0);
    const shown =
      visible.length === all.length
        ? ""
        : ` · ${formatInt(visible.length)} shown`;
    this.summary.textContent =
      `${plural(all.length, "run")} in ${plural(groups, "group")} · ` +
      `${plural(points, "scalar point")}${shown}`;
  }

  _renderSelection() {
    const state = this.ctx.state;
    const all = this.ctx.catalog.runs.map((r) => r.run);
    const selected = state.selectedRuns(all).length;
    this.selectionBox.hidden = all.length === 0;
    this.selectionSummary.textContent = all.length
      ? `${formatInt(selected)} of ${plural(all.length, "run")} selected`
      : "";
    const visible = this._visibleRuns().map((r) => r.run);
    const filtered = this._filtered();
    this.selectAllButton.textContent = filtered
      ? `Select ${formatInt(visible.length)} shown`
      : "Select all";
    this.selectAllButton.title = filtered
      ? "Add the runs the filter shows to the selection"
      : "Select every run (runs that appear later too)";
    this.selectNoneButton.title = "Clear the selection (every run)";
    this.selectOnlyButton.hidden = !filtered;
    const count = visible.filter((run) => state.isSelected(run)).length;
    this.headerCheckbox.checked =
      visible.length > 0 && count === visible.length;
    this.headerCheckbox.indeterminate = count > 0 && count < visible.length;
    this.headerCheckbox.disabled = visible.length === 0;
  }

  /**
   * A group header: the logical run (e.g. Keras `fit/train` + `fit/validation`).
   * @param {string} group
   * @param {RunInfo[]} members
   * @returns {HTMLTableRowElement}
   */
  _groupRow(group, members) {
    const state = this.ctx.state;
    const selected = members.filter((r) => state.isSelected(r.run)).length;
    const collapsed = this.collapsedGroups.has(group);
    const checkbox = h("input", {
      attrs: {
        type: "checkbox",
        "aria-label": `Select group ${group}`,
      },
      dataset: { focusKey: `group:${group}` },
      on: {
        change: () =>
          this._setSelected(
            members.map((r) => r.run),
            selected < members.length,
          ),
      },
    });
    checkbox.checked = selected === members.length;
    checkbox.indeterminate = selected > 0 && selected < members.length;

    const frameworks = [...new Set(members.map((r) => r.framework))];
    const writers = [...new Set(members.map((r) => r.writer))];
    const starts = members.map((r) => r.startTime).filter(isNumber);
    const ends = members.map((r) => r.endTime).filter(isNumber);
    const firsts = members.map((r) => r.firstStep).filter(isNumber);
    const lasts = members.map((r) => r.lastStep).filter(isNumber);
    const warnings = members.reduce((n, r) => n + r.warnings.length, 0);
    const scalarTags = new Set(members.flatMap((r) => r.scalarTags)).size;
    const histogramTags = new Set(members.flatMap((r) => r.histogramTags)).size;

    return h(
      "tr",
      { className: "tbmf-group-row", dataset: { group } },
      h("td", { className: "tbmf-col-check" }, checkbox),
      h(
        "td",
        { className: "tbmf-col-expand" },
        expander(!collapsed, `group:${group}`, `Fold group ${group}`, () =>
          this._toggleGroup(group),
        ),
      ),
      h(
        "td",
        { attrs: { colspan: 2 }, dataset: { col: "run" } },
        h("span", { className: "tbmf-group-name", text: group }),
        h("span", {
          className: "tbmf-muted tbmf-group-count",
          text: plural(members.length, "run"),
        }),
      ),
      h(
        "td",
        { dataset: { col: "framework" } },
        frameworks.map((f) => frameworkBadge(f, "tbmf-badge")),
      ),
      h("td", {
        className: "tbmf-muted",
        text: writers.join(", "),
        dataset: { col: "writer" },
      }),
      numericCell("scalars", formatInt(scalarTags), "distinct tags"),
      numericCell("histograms", formatInt(histogramTags), "distinct tags"),
      numericCell(
        "points",
        formatInt(members.reduce((n, r) => n + (r.numPoints || 0), 0)),
      ),
      numericCell(
        "steps",
        formatSteps(
          firsts.length ? Math.min(...firsts) : null,
          lasts.length ? Math.max(...lasts) : null,
        ),
      ),
      numericCell(
        "duration",
        formatDuration(
          starts.length && ends.length
            ? Math.max(...ends) - Math.min(...starts)
            : null,
        ),
      ),
      h(
        "td",
        { className: "is-numeric", dataset: { col: "warnings" } },
        warningCount(warnings, null),
      ),
      this._exp.columns.map((column) =>
        h("td", {
          className: column.numeric ? "is-numeric" : "",
          // A DDP job's rank spread is the same for every rank: shown once.
          text:
            column.id === "spread" && column.text
              ? column.text(members[0])
              : "",
          dataset: { col: column.id },
        }),
      ),
    );
  }

  /**
   * A run's row, plus its detail row when expanded.
   * @param {RunInfo} run
   * @param {boolean} inGroup
   * @returns {HTMLTableRowElement[]}
   */
  _runRows(run, inGroup) {
    const state = this.ctx.state;
    const selected = state.isSelected(run.run);
    const open = this.expanded.has(run.run);
    const checkbox = h("input", {
      attrs: { type: "checkbox", "aria-label": `Select run ${run.run}` },
      dataset: { focusKey: `run:${run.run}` },
      on: { change: () => this._setSelected([run.run], !selected) },
    });
    checkbox.checked = selected;

    const nameCell = h(
      "td",
      { className: "tbmf-run-cell", dataset: { col: "run" }, title: run.run },
      h(
        "div",
        { className: `tbmf-run-name${inGroup ? " is-member" : ""}` },
        runNameParts(run, inGroup),
        anomalyBadge(this.anomalies.forRun(run.run)),
      ),
      run.resumeNote
        ? h("div", {
            className: "tbmf-run-note",
            text: run.resumeNote,
            title:
              "The run was resumed: each step shows the latest attempt's " +
              "point; the superseded ones are kept (Compare › Attempts)",
          })
        : null,
    );
    const row = h(
      "tr",
      {
        className: `tbmf-run-row${selected ? " is-selected" : ""}${open ? " is-open" : ""}${inGroup ? " is-member" : ""}`,
        dataset: { run: run.run, framework: run.framework },
        on: {
          click: (event) => {
            // Clicks on controls do their own thing; the rest of the row
            // opens the details.
            const target = /** @type {HTMLElement} */ (event.target);
            if (target.closest("input, button, a")) return;
            this._toggleExpanded(run.run);
          },
        },
      },
      h("td", { className: "tbmf-col-check" }, checkbox),
      h(
        "td",
        { className: "tbmf-col-expand" },
        expander(open, `expand:${run.run}`, `Details of ${run.run}`, () =>
          this._toggleExpanded(run.run),
        ),
      ),
      nameCell,
      // A run on its own is its own group: the cell stays empty rather
      // than repeat the name.
      h("td", {
        className: "tbmf-group-cell",
        text: run.group === run.run ? "" : run.group,
        title: run.group === run.run ? "Not grouped" : run.group,
        dataset: { col: "group" },
      }),
      h(
        "td",
        { dataset: { col: "framework" } },
        frameworkBadge(run.framework, "tbmf-badge"),
      ),
      h(
        "td",
        {
          className: "tbmf-writer",
          title: run.writer || "",
          dataset: { col: "writer" },
        },
        h("span", { text: run.writer || "—" }),
        run.trainer
          ? h("span", {
              className: "tbmf-trainer",
              text: trainerLabel(run.trainer),
              title: (run.trainerEvidence ?? []).join("\n"),
              dataset: { trainer: run.trainer },
            })
          : null,
      ),
      numericCell("scalars", formatInt(run.scalarTags.length)),
      numericCell("histograms", formatInt(run.histogramTags.length)),
      numericCell("points", formatInt(run.numPoints)),
      numericCell("steps", formatSteps(run.firstStep, run.lastStep)),
      numericCell("duration", formatDuration(duration(run))),
      h(
        "td",
        { className: "is-numeric", dataset: { col: "warnings" } },
        warningCount(run.warnings.length, () => {
          this.expanded.add(run.run);
          this.render();
          this.tbody
            .querySelector(
              `tr.tbmf-detail-row[data-run="${CSS.escape(run.run)}"] .tbmf-warnings`,
            )
            ?.scrollIntoView({ block: "nearest" });
        }),
      ),
      this._exp.columns.map((column) =>
        h("td", {
          className: column.numeric ? "is-numeric" : "",
          text: column.text ? column.text(run) : "",
          dataset: { col: column.id },
        }),
      ),
    );
    return open ? [row, detailRow(run)] : [row];
  }
}

// Helpers that build pieces of the table.

/** How trainers are named in the table. */
const TRAINER_LABELS = Object.freeze({
  lightning: "Lightning",
  transformers: "HF Trainer",
  keras_fit: "Keras fit",
  paddle_hapi: "Paddle hapi",
});

/**
 * @param {string} trainer
 * @returns {string}
 */
function trainerLabel(trainer) {
  return (
    TRAINER_LABELS[/** @type {keyof typeof TRAINER_LABELS} */ (trainer)] ??
    trainer
  );
}

/**
 * @param {RunInfo} run
 * @returns {string} the name users see: the config's display name, else run
 */
function runLabel(run) {
  return run.displayName || run.run;
}

/**
 * @param {RunInfo} run
 * @returns {number | null} seconds between first and last event
 */
function duration(run) {
  return isNumber(run.startTime) && isNumber(run.endTime)
    ? run.endTime - run.startTime
    : null;
}

/**
 * @param {unknown} value
 * @returns {value is number}
 */
function isNumber(value) {
  return typeof value === "number" && Number.isFinite(value);
}

/**
 * Groups sorted runs by `group`, groups ordered by their first member.
 * @param {RunInfo[]} runs
 * @returns {Map<string, RunInfo[]>}
 */
function groupRuns(runs) {
  /** @type {Map<string, RunInfo[]>} */
  const groups = new Map();
  for (const run of runs) {
    const members = groups.get(run.group);
    if (members) members.push(run);
    else groups.set(run.group, [run]);
  }
  return groups;
}

/**
 * The run name: a display name with the run below it, or within a group the
 * group prefix dimmed and the sub-run name strong.
 * @param {RunInfo} run
 * @param {boolean} inGroup
 * @returns {HTMLElement[]}
 */
function runNameParts(run, inGroup) {
  if (run.displayName) {
    return [
      h("span", { className: "tbmf-run-name__main", text: run.displayName }),
      h("span", { className: "tbmf-run-name__sub", text: run.run }),
    ];
  }
  const prefix = `${run.group}/`;
  if (inGroup && run.run.startsWith(prefix)) {
    return [
      h("span", { className: "tbmf-run-name__prefix", text: prefix }),
      h("span", {
        className: "tbmf-run-name__main",
        text: run.run.slice(prefix.length),
      }),
    ];
  }
  return [h("span", { className: "tbmf-run-name__main", text: run.run })];
}

/**
 * @param {string} col
 * @param {string} text
 * @param {string} [title]
 * @returns {HTMLTableCellElement}
 */
function numericCell(col, text, title) {
  return h("td", { className: "is-numeric", text, title, dataset: { col } });
}

/**
 * @param {boolean} open
 * @param {string} focusKey
 * @param {string} label
 * @param {() => void} onClick
 * @returns {HTMLButtonElement}
 */
function expander(open, focusKey, label, onClick) {
  return h(
    "button",
    {
      className: `tbmf-expander${open ? " is-open" : ""}`,
      title: label,
      attrs: {
        type: "button",
        "aria-expanded": String(open),
        "aria-label": label,
      },
      dataset: { focusKey },
      on: { click: onClick },
    },
    icon("chevronRight", { size: 18 }),
  );
}

/**
 * @param {number} count
 * @param {(() => void) | null} onClick opens the run's warning list
 * @returns {HTMLElement}
 */
function warningCount(count, onClick) {
  if (count === 0) return h("span", { className: "tbmf-muted", text: "0" });
  const content = [
    icon("warning", { size: 14 }),
    h("span", { text: formatInt(count) }),
  ];
  if (!onClick) {
    return h("span", { className: "tbmf-warning-count" }, content);
  }
  return h(
    "button",
    {
      className: "tbmf-warning-count",
      title: "Show the warnings",
      attrs: { type: "button" },
      on: { click: onClick },
    },
    content,
  );
}

/**
 * @param {string} message
 * @param {HTMLElement | null} [action]
 * @returns {HTMLTableRowElement}
 */
function messageRow(message, action = null) {
  return h(
    "tr",
    { className: "tbmf-message-row" },
    h(
      "td",
      { attrs: { colspan: spanColumns } },
      h("span", { text: message }),
      action,
    ),
  );
}

/** @returns {HTMLTableRowElement[]} grey placeholder rows while loading */
function skeletonRows() {
  return Array.from({ length: SKELETON_ROWS }, (_, i) =>
    h(
      "tr",
      { className: "tbmf-skeleton-row", attrs: { "aria-hidden": "true" } },
      Array.from({ length: TOTAL_COLUMNS }, (_, col) =>
        h(
          "td",
          {},
          col < LEAD_COLUMNS
            ? null
            : h("span", {
                className: "tbmf-skeleton",
                style: { width: `${40 + ((i * 7 + col * 13) % 45)}%` },
              }),
        ),
      ),
    ),
  );
}

/**
 * The expanded detail of a run: why this framework, tags, files, warnings.
 * @param {RunInfo} run
 * @returns {HTMLTableRowElement}
 */
function detailRow(run) {
  const otherTags = Object.entries(run.otherTags ?? {}).filter(
    ([, tags]) => tags.length > 0,
  );
  const sections = [
    section("Why this framework", [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact("Framework", frameworkBadge(run.framework, "tbmf-badge")),
        fact("Writer", run.writer || "—"),
        fact("Trainer", run.trainer ? trainerLabel(run.trainer) : "—"),
        fact("Format", run.format || "—"),
        fact("Epochs from", run.epochSource || "not known"),
        fact("Logged layout", run.hasLayout ? "yes" : "no"),
      ),
      list(
        [...(run.evidence ?? []), ...(run.trainerEvidence ?? [])],
        "No evidence recorded.",
      ),
    ]),
    section("Timeline", [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact("First event", formatTimestamp(run.startTime)),
        fact("Last event", formatTimestamp(run.endTime)),
        fact("Duration", formatDuration(duration(run))),
        fact("Steps", formatSteps(run.firstStep, run.lastStep)),
        fact("Scalar points", formatInt(run.numPoints)),
        fact("Histograms", formatInt(run.numHistograms)),
      ),
    ]),
    attemptsSection(run),
    hparamsSection(run),
    section(`Scalar tags (${formatInt(run.scalarTags.length)})`, [
      tagList(run.scalarTags),
    ]),
    section(`Histogram tags (${formatInt(run.histogramTags.length)})`, [
      tagList(run.histogramTags),
    ]),
    section("Other tags (not charted here)", [
      otherTags.length
        ? h(
            "dl",
            { className: "tbmf-detail__other" },
            otherTags.flatMap(([plugin, tags]) => [
              h("dt", { text: plugin }),
              h("dd", {}, tagList(tags)),
            ]),
          )
        : h("p", { className: "tbmf-muted", text: "None." }),
    ]),
    section(`Files (${formatInt((run.files ?? []).length)})`, [
      list(run.files ?? [], "No files.", "tbmf-mono"),
    ]),
  ];
  if (run.warnings.length) {
    sections.push(
      section(
        `Warnings (${formatInt(run.warnings.length)})`,
        [list(run.warnings, "", "tbmf-warnings")],
        "tbmf-detail__section--warn",
      ),
    );
  }
  return h(
    "tr",
    { className: "tbmf-detail-row", dataset: { run: run.run } },
    h(
      "td",
      { attrs: { colspan: spanColumns } },
      h("div", { className: "tbmf-detail" }, sections),
    ),
  );
}

/**
 * The run's attempts when it was resumed, or steps were logged again.
 * @param {RunInfo} run
 * @returns {HTMLElement | null}
 */
function attemptsSection(run) {
  const attempts = run.attempts ?? [];
  const hidden = attempts.some((a) => a.superseded || a.repeated);
  if (attempts.length < 2 && !hidden) return null;
  const causes = {
    session_log: "SessionLog.START (e.g. torch purge_step)",
    step_decrease: "a tag went back to this step",
    step_relogged: "a new file logged this step again",
  };
  return section(`Attempts (${formatInt(attempts.length)})`, [
    h("p", {
      className: "tbmf-muted",
      text:
        "Each step shows its latest point; earlier ones are kept and " +
        "counted (Compare › Attempts draws them).",
    }),
    list(
      attempts.map((a) => {
        const start =
          a.attempt === 0
            ? `from step ${a.startStep ?? "—"}`
            : `resumed at step ${a.startStep} (${
                causes[/** @type {keyof typeof causes} */ (a.cause)] ?? a.cause
              })`;
        const extra = [
          a.superseded ? `${formatInt(a.superseded)} superseded` : "",
          a.repeated
            ? `${formatInt(a.repeated)} re-logged at the same step`
            : "",
        ]
          .filter(Boolean)
          .join(", ");
        return (
          `attempt ${a.attempt}: ${start} · ${plural(a.points, "point")}` +
          (extra ? ` · ${extra}` : "")
        );
      }),
      "",
      "tbmf-attempts",
    ),
  ]);
}

/**
 * A run's hyper-parameters with where each came from, and its group.
 * @param {RunInfo} run
 * @returns {HTMLElement}
 */
function hparamsSection(run) {
  const info = /** @type {any} */ (run);
  const hparams = Object.entries(info.hparams ?? {});
  const sources = info.hparamsSources ?? {};
  return section(
    `Hyper-parameters (${formatInt(hparams.length)})`,
    [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact("Group", `${run.group} (${info.groupSource ?? "run"})`),
        fact("Config hash", info.configHash || "—"),
      ),
      hparams.length
        ? h(
            "dl",
            { className: "tbmf-detail__hparams" },
            hparams.flatMap(([key, value]) => [
              h("dt", { text: key }),
              h(
                "dd",
                {},
                h("span", { text: hparamText(value) }),
                h("span", {
                  className: "tbmf-muted tbmf-detail__source",
                  text: sources[key] ? ` (${sources[key]})` : "",
                }),
              ),
            ]),
          )
        : h("p", {
            className: "tbmf-muted",
            text:
              "None found: no add_hparams / hparams summary, hparams.yaml, " +
              "config.json|yaml, hparams.json or args text, and none set in " +
              "the config file.",
          }),
    ],
    "tbmf-detail__section--hparams",
  );
}

/**
 * @param {string} title
 * @param {(HTMLElement | null)[]} children
 * @param {string} [className] extra class
 * @returns {HTMLElement}
 */
function section(title, children, className = "") {
  return h(
    "section",
    { className: `tbmf-detail__section ${className}`.trim() },
    h("h3", { text: title }),
    children,
  );
}

/**
 * @param {string} label
 * @param {string | HTMLElement} value
 * @returns {HTMLElement}
 */
function fact(label, value) {
  return h(
    "div",
    { className: "tbmf-fact" },
    h("span", { className: "tbmf-fact__label", text: label }),
    h("span", { className: "tbmf-fact__value" }, value),
  );
}

/**
 * @param {string[]} items
 * @param {string} emptyText
 * @param {string} [className]
 * @returns {HTMLElement}
 */
function list(items, emptyText, className = "") {
  if (items.length === 0) {
    return h("p", { className: "tbmf-muted", text: emptyText });
  }
  return h(
    "ul",
    { className: `tbmf-list ${className}`.trim() },
    items.map((item) => h("li", { text: item })),
  );
}

/**
 * @param {string[]} tags
 * @returns {HTMLElement}
 */
function tagList(tags) {
  if (tags.length === 0)
    return h("p", { className: "tbmf-muted", text: "None." });
  return h(
    "ul",
    { className: "tbmf-tags" },
    tags.map((tag) => h("li", { className: "tbmf-tag", text: tag })),
  );
}
