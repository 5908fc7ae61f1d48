// The Runs view: every run TensorBoard's logdir holds, which framework and
// writer produced it, how much data it has, and what went wrong reading it.
// Its checkboxes are the run selection every other view uses.

import { append, h, icon } from "../dom.js";
import { formatInt } from "../format.js";
import { t } from "../i18n.js";
import { countText } from "../intl.js";
import { encodeList, decodeList } from "../state.js";
import { ConfigDiffPanel } from "./runs/configdiff.js";
import { ExperimentBar, KEY_DIFF } from "./runs/experimentbar.js";
import {
  ExperimentData,
  experimentColumns,
  KEY_METRIC,
} from "./runs/experiment.js";
import {
  COLUMNS,
  fallbackSortColumn,
  headerCells,
  sortRuns,
  TOTAL_COLUMNS,
} from "./runs/columns.js";
import { filterRuns, frameworkChips } from "./runs/filtering.js";
import {
  groupRow,
  groupRuns,
  messageRow,
  runRows,
  skeletonRows,
} from "./runs/rows.js";
import {
  anomalyFilterButton,
  anomalyStore,
  KEY_ANOMALY_FILTER,
} from "../anomalies.js";

/** @typedef {import("../model.js").RunInfo} RunInfo */
/** @typedef {import("../app.js").ViewContext} ViewContext */
/** @typedef {import("./runs/columns.js").Column} Column */

/** State keys of this view. */
const KEY_FILTER = "q";
const KEY_SORT = "sort";
const KEY_FRAMEWORKS = "fw";
/** Milliseconds of typing quiet before the filter applies. */
const FILTER_DEBOUNCE_MS = 120;
/** Longest filter text accepted, in characters. */
const MAX_FILTER_LENGTH = 200;

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
    /** Columns a full-width row spans (grows with the experiment columns). */
    this._span = TOTAL_COLUMNS;

    this.filterInput = h("input", {
      className: "tbmf-search__input",
      attrs: {
        type: "search",
        placeholder: t("runs.filter.placeholder"),
        "aria-label": t("cmp.runs.filter"),
        spellcheck: "false",
        autocomplete: "off",
        maxlength: MAX_FILTER_LENGTH,
      },
      on: { input: () => this._onFilterInput() },
    });
    this.filterInput.value = ctx.state.get(KEY_FILTER);
    this.frameworkChips = h("div", {
      className: "tbmf-chips",
      attrs: { role: "group", "aria-label": t("runs.filter.framework") },
    });
    this.anomalies = anomalyStore(ctx);
    this.anomalyFilter = h("div", { className: "tbmf-chips" });
    this.selectionSummary = h("span", { className: "tbmf-selection__text" });
    this.selectionBox = h("div", { className: "tbmf-selection" });
    this.headerCheckbox = h("input", {
      attrs: { type: "checkbox", "aria-label": t("runs.select.allShown") },
      on: { change: () => this._toggleVisible() },
    });
    this.headRow = h("tr");
    this.tbody = h("tbody");
    this.summary = h("div", { className: "tbmf-runs__summary" });
    this.experiment = new ExperimentData(() => this.render());
    /** @type {ReturnType<typeof experimentColumns>} */
    this._exp = { columns: [], constant: [], hidden: 0 };
    this.configDiff = new ConfigDiffPanel();
    this.experimentBar = new ExperimentBar(ctx);

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
            text: t("runs.select.all"),
            attrs: { type: "button" },
            dataset: { action: "select-all" },
            on: { click: () => this._selectShown(true) },
          })),
          (this.selectOnlyButton = h("button", {
            className: "tbmf-button tbmf-button--text",
            text: t("runs.select.only"),
            title: t("runs.select.only.help"),
            attrs: { type: "button", hidden: true },
            dataset: { action: "select-only" },
            on: {
              click: () =>
                ctx.state.setSelection(this._visibleRuns().map((r) => r.run)),
            },
          })),
          (this.selectNoneButton = h("button", {
            className: "tbmf-button tbmf-button--text",
            text: t("runs.select.none"),
            attrs: { type: "button" },
            dataset: { action: "select-none" },
            on: { click: () => ctx.state.setSelection([]) },
          })),
        ),
      ),
      this.experimentBar.element,
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
      fallbackSortColumn(id);
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
    const frameworks = this._frameworkFilter();
    const { column, descending } = this._sort();
    return sortRuns(
      filterRuns(
        this.ctx,
        this.ctx.state.get(KEY_FILTER),
        frameworks,
        this.experiment.summary,
      ),
      column,
      descending,
    );
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

  /** @param {string} run opens its details and shows its warnings */
  _showWarnings(run) {
    this.expanded.add(run);
    this.render();
    this.tbody
      .querySelector(
        `tr.tbmf-detail-row[data-run="${CSS.escape(run)}"] .tbmf-warnings`,
      )
      ?.scrollIntoView({ block: "nearest" });
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
    this._span = TOTAL_COLUMNS + this._exp.columns.length;
    this.experimentBar.render(this.experiment, this._exp);
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

  _renderHead() {
    const { column: sorted, descending } = this._sort();
    this.headRow.replaceChildren(
      h("th", { className: "tbmf-col-check" }, this.headerCheckbox),
      h("th", {
        className: "tbmf-col-expand",
        attrs: { "aria-label": t("runs.details") },
      }),
      ...headerCells(this._columns(), sorted, descending, (column) =>
        this._sortBy(column),
      ),
    );
  }

  _renderChips() {
    this.frameworkChips.replaceChildren(
      ...frameworkChips(this.ctx.catalog.runs, this._frameworkFilter(), (f) =>
        this._toggleFramework(f),
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
        ? t("runs.empty.error")
        : catalog.payload?.loading
          ? t("runs.empty.reading")
          : t("runs.empty.none");
      this.tbody.replaceChildren(messageRow(this._span, message));
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
          this._span,
          t("runs.empty.noMatch"),
          h("button", {
            className: "tbmf-button tbmf-button--text",
            text: t("runs.filter.clear"),
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
    /** @type {import("./runs/rows.js").RowHost} */
    const host = {
      state: this.ctx.state,
      anomalies: this.anomalies,
      columns: this._exp.columns,
      span: this._span,
      expanded: this.expanded,
      collapsedGroups: this.collapsedGroups,
      setSelected: (runs, select) => this._setSelected(runs, select),
      toggleGroup: (group) => this._toggleGroup(group),
      toggleExpanded: (run) => this._toggleExpanded(run),
      showWarnings: (run) => this._showWarnings(run),
      refresh: () => void this.ctx.catalog.refresh(),
    };
    /** @type {HTMLTableRowElement[]} */
    const rows = [];
    for (const [group, members] of groupRuns(visible)) {
      const grouped = members.length > 1 || members[0].group !== members[0].run;
      if (!grouped) {
        rows.push(...runRows(members[0], false, host));
        continue;
      }
      rows.push(groupRow(group, members, host));
      if (this.collapsedGroups.has(group)) continue;
      for (const run of members) rows.push(...runRows(run, true, host));
    }
    this.tbody.replaceChildren(...rows);
  }

  /**
   * @param {RunInfo[]} all
   * @param {RunInfo[]} visible
   */
  _renderSummary(all, visible) {
    // A run whose group is itself is not grouped: "50 runs in 50 groups"
    // would say nothing.
    const groups = new Set(
      all.filter((r) => r.group !== r.run).map((r) => r.group),
    ).size;
    const points = all.reduce((sum, r) => sum + (r.numPoints || 0), 0);
    const shown =
      visible.length === all.length
        ? ""
        : t("runs.summary.shown", { n: formatInt(visible.length) });
    const grouped = groups
      ? t("runs.summary.groups", { groups: countText(groups, "count.group.") })
      : "";
    this.summary.textContent = t("runs.summary", {
      runs: countText(all.length, "count.run."),
      grouped,
      points: countText(points, "count.scalarPoint."),
      shown,
    });
  }

  _renderSelection() {
    const state = this.ctx.state;
    const all = this.ctx.catalog.runs.map((r) => r.run);
    const selected = state.selectedRuns(all).length;
    this.selectionBox.hidden = all.length === 0;
    this.selectionSummary.textContent = all.length
      ? t("runs.selection", {
          n: formatInt(selected),
          runs: countText(all.length, "count.run."),
        })
      : "";
    const visible = this._visibleRuns().map((r) => r.run);
    const filtered = this._filtered();
    this.selectAllButton.textContent = filtered
      ? t("runs.select.shown", { n: formatInt(visible.length) })
      : t("runs.select.all");
    this.selectAllButton.title = filtered
      ? t("runs.select.shown.help")
      : t("cmp.runs.all.help");
    this.selectNoneButton.title = t("cmp.runs.none.filtered.help");

    this.selectOnlyButton.hidden = !filtered;
    const count = visible.filter((run) => state.isSelected(run)).length;
    this.headerCheckbox.checked =
      visible.length > 0 && count === visible.length;
    this.headerCheckbox.indeterminate = count > 0 && count < visible.length;
    this.headerCheckbox.disabled = visible.length === 0;
  }
}
