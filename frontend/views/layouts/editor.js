// The layout editor: name, categories (add, rename, reorder, delete,
// collapsed by default) and charts (title, kind, tag or metric regexes,
// run regex, margin series, x axis, smoothing, log y), with a live preview
// of what every regex matches and why an invalid one is invalid.
//
// Typing edits the draft in place (no re-render, so focus stays); adding,
// removing or moving rebuilds the form. Every change schedules a preview
// (debounced) and updates the unsaved-changes indicator.

import { runColor } from "../../colors.js";
import { describeProblem, emptyDraftProblem } from "./messages.js";
import { h, setChildren } from "../../dom.js";
import { plural } from "../../format.js";
import { LatestRequest } from "../../model.js";
import { AXES } from "../compare/axes.js";
import { saveLayout } from "./api.js";
import { mountLayoutChart } from "./chart_adapter.js";
import { actionButton } from "./dashboard.js";
import { showDialog } from "./dialog.js";
import { icon } from "./icons.js";
import { pairList, previewDraft, regexErrorBox } from "./preview.js";
import {
  blankCategory,
  blankChart,
  clone,
  draftFromLayout,
  MAX_CATEGORIES,
  MAX_CHARTS_PER_CATEGORY,
  MAX_NAME_CHARS,
  MAX_PATTERNS_PER_CHART,
  MAX_REGEX_CHARS,
  MAX_SMOOTHING,
  MAX_TITLE_CHARS,
  sameLayout,
  serializeLayout,
  uniqueName,
} from "./schema.js";

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./schema.js").Draft} Draft
 * @typedef {import("./schema.js").DraftChart} DraftChart
 * @typedef {import("./schema.js").Layout} Layout
 * @typedef {import("./preview.js").DraftPreview} DraftPreview
 *
 * @typedef {Object} EditorSpec
 * @property {Layout | null} base the saved layout, or null for a new one
 * @property {Draft} draft what to edit (a copy is taken)
 * @property {boolean} [restored] the draft came back from an earlier visit
 * @property {() => string[]} takenNames names of the saved layouts
 * @property {() => string[]} tagNames every scalar tag (suggestions)
 * @property {() => string[]} metricNames every canonical metric name
 * @property {() => import("./api.js").MetricIndex | null} metricIndex how
 *     chart previews group their requests (null: by tag)
 * @property {(saved: Layout, previousName: string | null) => void} onSaved
 * @property {() => void} onChange the draft or its saved state changed
 * @property {import("./dashboard.js").DashboardAction[]} actions more
 *     header buttons (export, delete, close)
 */

/** Milliseconds of typing quiet before the preview is asked for. */
const PREVIEW_DEBOUNCE_MS = 250;
/** Plot height of a chart previewed in the editor, CSS pixels. */
const PREVIEW_CHART_HEIGHT = 200;
let editorCount = 0;

export class Editor {
  /**
   * @param {ViewContext} ctx
   * @param {EditorSpec} spec
   */
  constructor(ctx, spec) {
    this.ctx = ctx;
    this.spec = spec;
    /** @type {Layout | null} */
    this.base = spec.base;
    /** @type {Draft} */
    this.draft = clone(spec.draft);
    /** What "no changes" means: the saved layout, or the blank new one. */
    this._pristine = spec.base
      ? draftFromLayout(spec.base)
      : clone(spec.restored ? { name: "", categories: [] } : spec.draft);
    this._id = ++editorCount;
    this._request = new LatestRequest();
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._timer = null;
    /** @type {DraftPreview | null} */
    this._preview = null;
    /** Bumped on every re-render: answers for older forms are dropped. */
    this._structure = 0;
    this._saving = false;
    /** @type {string | null} */
    this._saveError = null;
    /** @type {Map<string, ChartRefs>} "category:chart" → its elements */
    this._refs = new Map();
    /** Charts whose drawing is shown under their card ("category:chart"). */
    /** @type {Set<string>} */
    this._shownCharts = new Set();
    /** @type {Map<string, import("./chart_adapter.js").LayoutChartPanel>} */
    this._panels = new Map();

    this._name = h("input", {
      className: "tbmf-lay-input tbmf-lay-name__input",
      attrs: {
        type: "text",
        maxlength: MAX_NAME_CHARS,
        spellcheck: "false",
        autocomplete: "off",
        "aria-label": "Layout name",
        placeholder: "Layout name",
      },
      dataset: { field: "name" },
      on: {
        input: () => {
          this.draft.name = this._name.value;
          this._changed();
        },
      },
    });
    this._name.value = this.draft.name;
    this._nameProblem = h("div", {
      className: "tbmf-lay-field-problem",
      attrs: { hidden: true, "aria-live": "polite" },
      dataset: { problem: "name" },
    });
    this._dirty = h("span", {
      className: "tbmf-lay-dirty",
      attrs: { "aria-live": "polite" },
    });
    this._status = h("div", {
      className: "tbmf-lay-status",
      attrs: { role: "status" },
    });
    this._saveProblem = h("div", {
      className: "tbmf-lay-save-error",
      attrs: { role: "alert", hidden: true },
    });
    this._body = h("div", { className: "tbmf-lay-editor__body" });
    this._tagList = h("datalist", {
      attrs: { id: `tbmf-lay-tags-${this._id}` },
    });
    this._metricList = h("datalist", {
      attrs: { id: `tbmf-lay-metrics-${this._id}` },
    });
    this._saveButton = actionButton({
      id: "save",
      label: "Save",
      icon: "save",
      primary: true,
      title: "Save this layout (Ctrl+S)",
      run: () => void this.save(),
    });
    this._saveAsButton = actionButton({
      id: "save-as",
      label: "Save as…",
      icon: "copy",
      title: "Save a copy under another name and edit the copy",
      run: () => void this.saveAs(),
    });
    this.element = h(
      "section",
      {
        className: "tbmf-lay-editor",
        dataset: { dirty: "false" },
        on: {
          keydown: (event) => {
            const e = /** @type {KeyboardEvent} */ (event);
            if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
              e.preventDefault();
              void this.save();
            }
          },
        },
      },
      h(
        "header",
        { className: "tbmf-lay-head tbmf-lay-editor__head" },
        h(
          "div",
          { className: "tbmf-lay-head__text" },
          h(
            "div",
            { className: "tbmf-lay-head__line" },
            h("span", {
              className: "tbmf-lay-editor__mode",
              text: this.base ? "Editing" : "New layout",
            }),
            this._dirty,
          ),
          this._name,
          this._nameProblem,
        ),
        h(
          "div",
          { className: "tbmf-lay-head__actions" },
          this._saveButton,
          this._saveAsButton,
          spec.actions.map((action) => actionButton(action)),
        ),
      ),
      spec.restored
        ? h(
            "div",
            { className: "tbmf-lay-restored", attrs: { role: "status" } },
            icon("info", { size: 16 }),
            h("span", {
              text: "Your unsaved changes from before were restored.",
            }),
            h("button", {
              className: "tbmf-button tbmf-button--text",
              text: "Discard them",
              attrs: { type: "button" },
              dataset: { action: "discard-restored" },
              on: { click: (e) => this._discardRestored(e) },
            }),
          )
        : null,
      this._status,
      this._saveProblem,
      this._body,
      this._tagList,
      this._metricList,
    );
    this.renderSuggestions();
    this._render();
    this._renderDirty();
    this._schedulePreview(0);
  }

  /** @returns {boolean} whether there are changes that are not saved */
  get dirty() {
    return !sameLayout(this.draft, this._pristine);
  }

  destroy() {
    if (this._timer !== null) clearTimeout(this._timer);
    this._request.cancel();
    this._destroyPanels();
    this.element.remove();
  }

  /** Fills the tag and metric suggestions (after new data). */
  renderSuggestions() {
    setChildren(
      this._tagList,
      this.spec.tagNames().map((tag) => h("option", { attrs: { value: tag } })),
    );
    setChildren(
      this._metricList,
      this.spec
        .metricNames()
        .map((name) => h("option", { attrs: { value: name } })),
    );
  }

  /** New data or selection: the preview may match other pairs now. */
  refresh() {
    this._schedulePreview(0);
  }

  // Saving.

  /**
   * Saves the draft (renaming the saved layout when the name changed).
   * @param {string | null} [asName] save a copy under this name instead
   * @returns {Promise<boolean>} saved
   */
  async save(asName = null) {
    if (this._saving) return false;
    const layout = serializeLayout(this.draft);
    /** @type {string | null} */
    let previousName = null;
    let overwrite = false;
    if (asName !== null) {
      layout.name = asName;
    } else if (this.base) {
      previousName = this.base.name;
      overwrite = layout.name === this.base.name;
    }
    this._saving = true;
    this._setSaveError(null);
    this.element.classList.add("is-saving");
    /** @type {Layout} */
    let saved;
    try {
      saved = await saveLayout(layout, { previousName, overwrite });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this._setSaveError(`Not saved: ${describeProblem(message, this.draft).text}`);
      return false;
    } finally {
      this._saving = false;
      this.element.classList.remove("is-saving");
    }
    this.base = saved;
    this.draft.name = saved.name;
    this._name.value = saved.name;
    this._pristine = draftFromLayout(saved);
    const mode = this.element.querySelector(".tbmf-lay-editor__mode");
    if (mode) mode.textContent = "Editing";
    this._renderDirty();
    this.spec.onSaved(saved, asName !== null ? null : previousName);
    return true;
  }

  /** Asks for a name and saves a copy under it; the copy is edited next. */
  async saveAs() {
    const taken = new Set(this.spec.takenNames());
    const { value, text } = await showDialog({
      title: "Save as a new layout",
      message: this.base
        ? `"${this.base.name}" stays as it was saved.`
        : undefined,
      input: {
        label: "Name",
        value: uniqueName(`${this.draft.name || "Layout"} (copy)`, taken),
        maxLength: MAX_NAME_CHARS,
        validate: (name) =>
          !name.trim()
            ? "Give the layout a name."
            : name !== name.trim()
              ? "The name must not start or end with a space."
              : taken.has(name)
                ? `A layout named "${name}" exists; pick another name.`
                : null,
      },
      buttons: [
        { value: "cancel", label: "Cancel" },
        { value: "save", label: "Save copy", kind: "primary" },
      ],
    });
    if (value !== "save") return;
    await this.save(text);
  }

  /** @param {string | null} message */
  _setSaveError(message) {
    this._saveError = message;
    this._saveProblem.hidden = message === null;
    setChildren(
      this._saveProblem,
      message
        ? [icon("error", { size: 16 }), h("span", { text: message })]
        : [],
    );
  }

  /** @param {Event} event */
  _discardRestored(event) {
    const banner = /** @type {HTMLElement} */ (event.currentTarget).closest(
      ".tbmf-lay-restored",
    );
    banner?.remove();
    this.draft = this.base ? draftFromLayout(this.base) : clone(this._pristine);
    this._name.value = this.draft.name;
    this._render();
    this._changed();
  }

  // Changes.

  /** Text changed: preview, indicator, owner. */
  _changed() {
    this._renderDirty();
    this._schedulePreview(PREVIEW_DEBOUNCE_MS);
    this.spec.onChange();
  }

  /**
   * Structure changed: rebuild the form, preview now.
   * @param {string | null} [focus] `data-focus` of the element to focus
   */
  _restructure(focus = null) {
    this._render();
    this._renderDirty();
    this._schedulePreview(0);
    this.spec.onChange();
    if (focus) {
      const target = /** @type {HTMLElement | null} */ (
        this._body.querySelector(`[data-focus="${focus}"]`)
      );
      target?.focus();
    }
  }

  _renderDirty() {
    const dirty = this.dirty;
    this.element.dataset.dirty = String(dirty);
    this._dirty.classList.toggle("is-dirty", dirty);
    this._dirty.textContent = dirty
      ? "Unsaved changes"
      : this.base
        ? "All changes saved"
        : "Not saved yet";
    this._saveButton.disabled = !dirty && this.base !== null;
  }

  /** @param {number} delay */
  _schedulePreview(delay) {
    if (this._timer !== null) clearTimeout(this._timer);
    this._timer = setTimeout(() => {
      this._timer = null;
      void this._runPreview();
    }, delay);
  }

  async _runPreview() {
    const structure = this._structure;
    const draft = clone(this.draft);
    this.element.classList.add("is-previewing");
    const outcome = await this._request.run((signal) =>
      previewDraft(draft, signal),
    );
    if (outcome.stale) return;
    this.element.classList.remove("is-previewing");
    if (outcome.error) {
      this._renderStatus(`Cannot preview: ${outcome.error.message}`, "error");
      return;
    }
    if (structure !== this._structure) {
      // The form changed shape meanwhile; its own preview is on the way.
      return;
    }
    this._preview = outcome.value;
    this._applyPreview();
  }

  // Rendering the form.

  _render() {
    this._structure++;
    this._refs.clear();
    this._destroyPanels();
    const draft = this.draft;
    setChildren(
      this._body,
      draft.categories.map((category, ci) => this._category(category, ci)),
      draft.categories.length === 0
        ? h(
            "div",
            { className: "tbmf-lay-empty tbmf-lay-empty--editor" },
            h("p", {
              text:
                "A layout is a list of categories, each a grid of charts. " +
                "Add a category to start.",
            }),
          )
        : null,
      h(
        "button",
        {
          className: "tbmf-button tbmf-lay-add tbmf-lay-add--category",
          attrs: {
            type: "button",
            disabled: draft.categories.length >= MAX_CATEGORIES,
          },
          title:
            draft.categories.length >= MAX_CATEGORIES
              ? `At most ${MAX_CATEGORIES} categories`
              : "Add a category",
          dataset: { action: "add-category" },
          on: {
            click: () => {
              draft.categories.push(blankCategory());
              this._restructure(`category-${draft.categories.length - 1}`);
            },
          },
        },
        icon("add", { size: 16 }),
        "Add category",
      ),
    );
    if (this._preview) this._applyPreview();
  }

  /**
   * @param {import("./schema.js").DraftCategory} category
   * @param {number} ci
   * @returns {HTMLElement}
   */
  _category(category, ci) {
    const categories = this.draft.categories;
    const title = textInput({
      value: category.title,
      label: "Category title",
      placeholder: "Category title, e.g. Loss",
      maxLength: MAX_TITLE_CHARS,
      field: "category-title",
      focus: `category-${ci}`,
      onInput: (value) => {
        category.title = value;
        this._changed();
      },
    });
    const closed = h("input", {
      attrs: { type: "checkbox" },
      dataset: { field: "closed" },
      on: {
        change: () => {
          category.closed = closed.checked;
          this._changed();
        },
      },
    });
    closed.checked = category.closed;
    return h(
      "section",
      { className: "tbmf-lay-ecat", dataset: { category: String(ci) } },
      h(
        "header",
        { className: "tbmf-lay-ecat__head" },
        h("span", { className: "tbmf-lay-ecat__index", text: String(ci + 1) }),
        title,
        h(
          "label",
          {
            className: "tbmf-lay-check",
            title: "Show this category closed when the layout opens",
          },
          closed,
          h("span", { text: "Collapsed" }),
        ),
        h(
          "span",
          { className: "tbmf-lay-tools" },
          toolButton(
            "arrowUp",
            "Move the category up",
            "move-up",
            ci === 0,
            () => this._move(categories, ci, -1),
          ),
          toolButton(
            "arrowDown",
            "Move the category down",
            "move-down",
            ci === categories.length - 1,
            () => this._move(categories, ci, 1),
          ),
          toolButton(
            "delete",
            "Delete the category",
            "delete-category",
            false,
            () => void this._deleteCategory(ci),
          ),
        ),
      ),
      h(
        "div",
        { className: "tbmf-lay-ecat__charts" },
        category.charts.map((chart, hi) => this._chart(chart, ci, hi)),
      ),
      addButton(
        "Add chart",
        "add-chart",
        category.charts.length >= MAX_CHARTS_PER_CATEGORY,
        () => {
          category.charts.push(blankChart());
          this._restructure(`chart-${ci}-${category.charts.length - 1}`);
        },
      ),
    );
  }

  /**
   * @param {DraftChart} chart
   * @param {number} ci
   * @param {number} hi
   * @returns {HTMLElement}
   */
  _chart(chart, ci, hi) {
    const charts = this.draft.categories[ci].charts;
    /** @type {ChartRefs} */
    const refs = {
      element: h("article", {
        className: "tbmf-lay-echart",
        dataset: { category: String(ci), chart: String(hi), kind: chart.kind },
      }),
      rows: [],
      series: [],
      runsResult: h("div", { className: "tbmf-lay-field__result" }),
      summary: h("div", {
        className: "tbmf-lay-echart__summary",
        attrs: { "aria-live": "polite" },
      }),
      chartHost: h("div", {
        className: "tbmf-lay-echart__chart",
        attrs: { hidden: true },
      }),
      problem: h("div", {
        className: "tbmf-lay-field-problem",
        attrs: { hidden: true, role: "status" },
        dataset: { problem: "chart" },
      }),
    };
    this._refs.set(`${ci}:${hi}`, refs);

    const title = textInput({
      value: chart.title,
      label: "Chart title",
      placeholder: "Chart title",
      maxLength: MAX_TITLE_CHARS,
      field: "chart-title",
      focus: `chart-${ci}-${hi}`,
      onInput: (value) => {
        chart.title = value;
        this._changed();
      },
    });
    const kind = segmented(
      "Chart kind",
      [
        {
          value: "multiline",
          label: "Multiline",
          title: "Lines picked by regexes over tags or metric names",
        },
        {
          value: "margin",
          label: "Margin",
          title: "A value line with a band between a lower and an upper tag",
        },
      ],
      chart.kind,
      "kind",
      (value) => {
        chart.kind = /** @type {'multiline' | 'margin'} */ (value);
        this._restructure();
      },
    );
    refs.element.append(
      h(
        "header",
        { className: "tbmf-lay-echart__head" },
        title,
        kind,
        h(
          "span",
          { className: "tbmf-lay-tools" },
          toolButton("arrowUp", "Move the chart up", "move-up", hi === 0, () =>
            this._move(charts, hi, -1),
          ),
          toolButton(
            "arrowDown",
            "Move the chart down",
            "move-down",
            hi === charts.length - 1,
            () => this._move(charts, hi, 1),
          ),
          toolButton(
            "delete",
            "Delete the chart",
            "delete-chart",
            false,
            () => {
              charts.splice(hi, 1);
              this._restructure();
            },
          ),
        ),
      ),
      refs.problem,
      h(
        "div",
        { className: "tbmf-lay-echart__body" },
        h(
          "div",
          { className: "tbmf-lay-echart__select" },
          chart.kind === "multiline"
            ? this._patterns(chart, ci, hi, refs)
            : this._marginSeries(chart, ci, hi, refs),
          this._runsField(chart, refs),
        ),
        this._display(chart),
      ),
      refs.summary,
      refs.chartHost,
    );
    return refs.element;
  }

  /**
   * The regex rows of a multiline chart.
   * @param {DraftChart} chart
   * @param {number} ci
   * @param {number} hi
   * @param {ChartRefs} refs
   * @returns {HTMLElement}
   */
  _patterns(chart, ci, hi, refs) {
    const byMetric = chart.mode === "metrics";
    const mode = segmented(
      "Match",
      [
        {
          value: "tags",
          label: "Raw tags",
          title: "Regexes over each run's tag names, matched from the start",
        },
        {
          value: "metrics",
          label: "Metric names",
          title:
            "Regexes over canonical metric names (loss/train, accuracy/val): " +
            "one regex finds the same metric in every framework",
        },
      ],
      chart.mode,
      "mode",
      (value) => {
        chart.mode = /** @type {'tags' | 'metrics'} */ (value);
        this._restructure();
      },
    );
    const rows = chart.patterns.map((pattern, k) => {
      const input = h("input", {
        className: "tbmf-lay-input tbmf-lay-input--mono",
        attrs: {
          type: "text",
          maxlength: MAX_REGEX_CHARS,
          spellcheck: "false",
          autocomplete: "off",
          list: byMetric ? this._metricList.id : this._tagList.id,
          placeholder: byMetric ? "loss/.*" : "Loss/.*",
          "aria-label": `${byMetric ? "Metric" : "Tag"} regex ${k + 1}`,
        },
        dataset: { field: "pattern", focus: `pattern-${ci}-${hi}-${k}` },
        on: {
          input: () => {
            chart.patterns[k] = input.value;
            this._changed();
          },
        },
      });
      input.value = pattern;
      const count = h("span", { className: "tbmf-lay-count" });
      const result = h("div", { className: "tbmf-lay-field__result" });
      refs.rows[k] = { input, count, result };
      return h(
        "div",
        { className: "tbmf-lay-rx", dataset: { row: String(k) } },
        h(
          "div",
          { className: "tbmf-lay-rx__line" },
          input,
          count,
          toolButton(
            "close",
            "Remove this regex",
            "remove-pattern",
            chart.patterns.length === 1 && pattern === "",
            () => {
              chart.patterns.splice(k, 1);
              if (chart.patterns.length === 0) chart.patterns.push("");
              this._restructure();
            },
          ),
        ),
        result,
      );
    });
    return h(
      "div",
      { className: "tbmf-lay-field" },
      h(
        "div",
        { className: "tbmf-lay-field__label" },
        h("span", { text: "Series" }),
        mode,
      ),
      h("p", {
        className: "tbmf-lay-hint",
        text: byMetric
          ? "Python regexes over canonical names, matched from the start (re.match)."
          : "Python regexes over raw tags, matched from the start (re.match), as TensorBoard does; end with $ to match whole tags.",
      }),
      rows,
      addButton(
        "Add regex",
        "add-pattern",
        chart.patterns.length >= MAX_PATTERNS_PER_CHART,
        () => {
          chart.patterns.push("");
          this._restructure(`pattern-${ci}-${hi}-${chart.patterns.length - 1}`);
        },
      ),
    );
  }

  /**
   * The value/lower/upper rows of a margin chart.
   * @param {DraftChart} chart
   * @param {number} ci
   * @param {number} hi
   * @param {ChartRefs} refs
   * @returns {HTMLElement}
   */
  _marginSeries(chart, ci, hi, refs) {
    const rows = chart.series.map((series, k) => {
      const inputs = /** @type {const} */ (["value", "lower", "upper"]).map(
        (part) => {
          const input = h("input", {
            className: "tbmf-lay-input tbmf-lay-input--mono",
            attrs: {
              type: "text",
              maxlength: MAX_REGEX_CHARS,
              spellcheck: "false",
              autocomplete: "off",
              list: this._tagList.id,
              placeholder: part === "value" ? "value tag" : `${part} tag`,
              "aria-label": `Margin series ${k + 1}: ${part} tag`,
            },
            dataset: {
              field: `series-${part}`,
              focus: `series-${ci}-${hi}-${k}-${part}`,
            },
            on: {
              input: () => {
                series[part] = input.value;
                this._changed();
              },
            },
          });
          input.value = series[part];
          return h(
            "label",
            { className: "tbmf-lay-margin__part" },
            h("span", { text: part }),
            input,
          );
        },
      );
      const result = h("div", { className: "tbmf-lay-field__result" });
      const count = h("span", { className: "tbmf-lay-count" });
      refs.series[k] = { count, result };
      return h(
        "div",
        { className: "tbmf-lay-margin", dataset: { row: String(k) } },
        h(
          "div",
          { className: "tbmf-lay-margin__line" },
          inputs,
          count,
          toolButton(
            "close",
            "Remove this series",
            "remove-series",
            chart.series.length === 1,
            () => {
              chart.series.splice(k, 1);
              this._restructure();
            },
          ),
        ),
        result,
      );
    });
    return h(
      "div",
      { className: "tbmf-lay-field" },
      h(
        "div",
        { className: "tbmf-lay-field__label" },
        h("span", { text: "Series (exact tag names)" }),
      ),
      h("p", {
        className: "tbmf-lay-hint",
        text: "A run is drawn when it logged all three tags: the value as a line, a band from lower to upper.",
      }),
      rows,
      addButton(
        "Add series",
        "add-series",
        chart.series.length >= MAX_PATTERNS_PER_CHART,
        () => {
          chart.series.push({ value: "", lower: "", upper: "" });
          this._restructure(
            `series-${ci}-${hi}-${chart.series.length - 1}-value`,
          );
        },
      ),
    );
  }

  /**
   * @param {DraftChart} chart
   * @param {ChartRefs} refs
   * @returns {HTMLElement}
   */
  _runsField(chart, refs) {
    const input = h("input", {
      className: "tbmf-lay-input tbmf-lay-input--mono",
      attrs: {
        type: "text",
        maxlength: MAX_REGEX_CHARS,
        spellcheck: "false",
        autocomplete: "off",
        placeholder: "every run",
        "aria-label": "Run regex",
      },
      dataset: { field: "runs" },
      on: {
        input: () => {
          chart.runs = input.value;
          this._changed();
        },
      },
    });
    input.value = chart.runs;
    refs.runsInput = input;
    return h(
      "div",
      { className: "tbmf-lay-field" },
      h(
        "label",
        { className: "tbmf-lay-field__label" },
        h("span", { text: "Runs (optional regex, searched in run names)" }),
      ),
      input,
      refs.runsResult,
    );
  }

  /**
   * X axis, smoothing, log y.
   * @param {DraftChart} chart
   * @returns {HTMLElement}
   */
  _display(chart) {
    const axis = h(
      "select",
      {
        className: "tbmf-cmp-select",
        attrs: { "aria-label": "X axis" },
        dataset: { field: "x" },
        on: {
          change: () => {
            chart.x = axis.value;
            this._changed();
          },
        },
      },
      AXES.map((a) =>
        h("option", { text: a.label, title: a.help, attrs: { value: a.id } }),
      ),
    );
    axis.value = chart.x;
    const margin = chart.kind === "margin";
    const smoothing = h("input", {
      className: "tbmf-lay-input tbmf-lay-input--number",
      attrs: {
        type: "number",
        min: 0,
        max: MAX_SMOOTHING,
        step: 0.05,
        disabled: margin,
        "aria-label": "Smoothing",
      },
      title: margin
        ? "Margin charts are drawn as logged, without smoothing"
        : "TensorBoard's EMA weight, 0 (off) to 0.99",
      dataset: { field: "smoothing" },
      on: {
        input: () => {
          const value = Number(smoothing.value);
          if (smoothing.value !== "" && value >= 0 && value <= MAX_SMOOTHING) {
            chart.smoothing = value;
            smoothing.classList.remove("is-invalid");
            this._changed();
          } else {
            smoothing.classList.add("is-invalid");
          }
        },
      },
    });
    smoothing.value = String(chart.smoothing);
    const logY = h("input", {
      attrs: { type: "checkbox" },
      dataset: { field: "logY" },
      on: {
        change: () => {
          chart.logY = logY.checked;
          this._changed();
        },
      },
    });
    logY.checked = chart.logY;
    return h(
      "div",
      { className: "tbmf-lay-echart__display" },
      h(
        "label",
        { className: "tbmf-lay-setting" },
        h("span", { text: "X axis" }),
        axis,
      ),
      h(
        "label",
        { className: "tbmf-lay-setting" },
        h("span", { text: "Smoothing" }),
        smoothing,
      ),
      h(
        "label",
        { className: "tbmf-lay-check" },
        logY,
        h("span", { text: "Log y" }),
      ),
    );
  }

  /**
   * @template T
   * @param {T[]} list
   * @param {number} index
   * @param {number} step -1 up, +1 down
   */
  _move(list, index, step) {
    const target = index + step;
    if (target < 0 || target >= list.length) return;
    [list[index], list[target]] = [list[target], list[index]];
    this._restructure();
  }

  /** @param {number} ci */
  async _deleteCategory(ci) {
    const category = this.draft.categories[ci];
    if (category.charts.length > 0) {
      const { value } = await showDialog({
        title: "Delete this category?",
        message: `"${category.title || "(untitled)"}" and its ${plural(
          category.charts.length,
          "chart",
        )} leave the draft (nothing is saved until you save).`,
        buttons: [
          { value: "cancel", label: "Cancel" },
          { value: "delete", label: "Delete category", kind: "danger" },
        ],
      });
      if (value !== "delete") return;
    }
    this.draft.categories.splice(ci, 1);
    this._restructure();
  }

  // Preview results.

  _applyPreview() {
    const preview = this._preview;
    if (!preview) return;
    const { catalog, state } = this.ctx;
    this._renderValidity(preview.error);
    const problem = preview.error
      ? describeProblem(preview.error, this.draft)
      : null;
    for (const [key, refs] of this._refs) {
      const [ci, hi] = key.split(":").map(Number);
      const chart = this.draft.categories[ci]?.charts[hi];
      if (!chart) continue;
      const chartPreview = preview.charts.get(key);
      const here = problem?.chart === key;
      refs.element.classList.toggle("has-problem", here);
      // The problem in the user's words, on the chart it is about.
      refs.problem.hidden = !here;
      refs.problem.textContent = here && problem ? problem.fix : "";
      // Run regex.
      const runError = chartPreview?.regexErrors.find((e) =>
        e.path.endsWith(".runs"),
      );
      setChildren(refs.runsResult, runError ? regexErrorBox(runError) : null);
      refs.runsInput?.classList.toggle("is-invalid", Boolean(runError));
      // Regex rows.
      refs.rows.forEach((row, k) => {
        if (!row) return;
        const result = preview.patterns.get(`${key}:${k}`);
        row.input.classList.toggle("is-invalid", Boolean(result?.error));
        if (!chart.patterns[k] || !result) {
          row.count.textContent = "";
          row.count.dataset.count = "";
          setChildren(row.result);
          return;
        }
        if (runError && !result.error) {
          // An invalid run filter matches nothing: say so, not "0 matches".
          row.count.textContent = "";
          row.count.dataset.count = "";
          setChildren(
            row.result,
            h("div", {
              className: "tbmf-lay-nomatch",
              text: "Fix the run regex below to see what this matches.",
            }),
          );
          return;
        }
        row.count.textContent = result.error
          ? "invalid"
          : plural(result.total, "match", "matches");
        row.count.dataset.count = result.error ? "" : String(result.total);
        row.count.classList.toggle(
          "is-zero",
          !result.error && result.total === 0,
        );
        row.count.classList.toggle("is-error", Boolean(result.error));
        setChildren(
          row.result,
          result.error
            ? regexErrorBox(result.error)
            : result.total
              ? pairList(catalog, result.matches, result.total, state)
              : h("div", {
                  className: "tbmf-lay-nomatch",
                  text:
                    chart.mode === "metrics"
                      ? "No metric name matches (from its start)."
                      : "No tag matches (from its start): try a leading .* to match inside tags.",
                }),
        );
      });
      // Margin rows.
      refs.series.forEach((row, k) => {
        if (!row) return;
        const series = chart.series[k];
        const matches = (chartPreview?.matches ?? []).filter(
          (m) =>
            m.tag === series.value &&
            m.lower === series.lower &&
            m.upper === series.upper,
        );
        const filled = series.value && series.lower && series.upper;
        row.count.textContent = filled ? plural(matches.length, "run") : "";
        row.count.dataset.count = filled ? String(matches.length) : "";
        row.count.classList.toggle(
          "is-zero",
          Boolean(filled) && !matches.length,
        );
        const wanted = new Set([series.value, series.lower, series.upper]);
        const missing = (chartPreview?.missing ?? []).filter((m) =>
          m.tags.some((t) => wanted.has(t)),
        );
        setChildren(
          row.result,
          matches.length
            ? pairList(catalog, matches, matches.length, state)
            : null,
          missing.map((m) =>
            h(
              "div",
              {
                className: "tbmf-lay-missing",
                dataset: { run: m.run },
              },
              icon("info", { size: 14 }),
              h("span", {
                text: `${m.run} lacks ${m.tags.join(", ")}: not drawn`,
              }),
            ),
          ),
        );
      });
      // Chart summary, and the chart itself when asked for.
      this._renderSummary(refs, chart, chartPreview, key);
      this._renderChart(refs, chart, chartPreview, key);
    }
  }

  /**
   * "The chart draws N series from M runs", and the Show chart toggle.
   * @param {ChartRefs} refs
   * @param {DraftChart} chart
   * @param {import("./api.js").ChartPreview | undefined} preview
   * @param {string} key "category:chart"
   */
  _renderSummary(refs, chart, preview, key) {
    if (!preview) {
      setChildren(refs.summary);
      return;
    }
    const runs = [...new Set(preview.matches.map((m) => m.run))];
    const selected = runs.filter((run) => this.ctx.state.isSelected(run));
    const shown = this._shownCharts.has(key);
    refs.summary.dataset.total = String(preview.totalMatches);
    setChildren(
      refs.summary,
      icon("dashboard", { size: 15 }),
      h("span", {
        text:
          preview.totalMatches === 0
            ? "The chart draws nothing yet."
            : `The chart draws ${plural(
                preview.totalMatches,
                "series",
                "series",
              )} from ${plural(runs.length, "run")}` +
              (selected.length < runs.length
                ? ` (${selected.length} selected now)`
                : "") +
              ".",
      }),
      h(
        "span",
        { className: "tbmf-lay-echart__runs" },
        runs.slice(0, 10).map((run) =>
          h("span", {
            className: "tbmf-dot",
            title: run,
            style: { "--dot": runColor(this.ctx.catalog, run) },
          }),
        ),
      ),
      h(
        "button",
        {
          className: "tbmf-button tbmf-button--text tbmf-lay-echart__toggle",
          attrs: { type: "button", "aria-expanded": String(shown) },
          dataset: { action: "toggle-chart" },
          title: shown
            ? "Hide the chart"
            : "Draw the chart as the dashboard will, from the selected runs",
          on: {
            click: () => {
              if (shown) this._shownCharts.delete(key);
              else this._shownCharts.add(key);
              this._renderSummary(refs, chart, preview, key);
              this._renderChart(refs, chart, preview, key);
            },
          },
        },
        icon(shown ? "fold" : "unfold", { size: 15 }),
        shown ? "Hide chart" : "Show chart",
      ),
    );
  }

  /**
   * Draws (or updates, or removes) a chart's preview under its card.
   * @param {ChartRefs} refs
   * @param {DraftChart} chart
   * @param {import("./api.js").ChartPreview | undefined} preview
   * @param {string} key
   */
  _renderChart(refs, chart, preview, key) {
    let panel = this._panels.get(key);
    if (!this._shownCharts.has(key) || !preview) {
      panel?.destroy();
      this._panels.delete(key);
      refs.chartHost.hidden = true;
      return;
    }
    refs.chartHost.hidden = false;
    const { state } = this.ctx;
    const pairs = preview.matches.filter((m) => state.isSelected(m.run));
    const margin = chart.kind === "margin";
    /** @type {import("./chart_adapter.js").LayoutChartOptions} */
    const options = {
      runs: [...new Set(pairs.map((p) => p.run))],
      kind: chart.kind,
      pairs,
      metricIndex: this.spec.metricIndex(),
      title: chart.title || "(untitled chart)",
      subtitle: "preview",
      x: chart.x,
      smoothing: margin ? 0 : chart.smoothing,
      logY: chart.logY,
      baseline: null,
      height: PREVIEW_CHART_HEIGHT,
      showExport: false,
      emptyText: preview.totalMatches
        ? "No selected run has these series."
        : "Nothing matches yet.",
    };
    if (panel) {
      panel.update(options);
    } else {
      panel = mountLayoutChart(refs.chartHost, this.ctx, options);
      this._panels.set(key, panel);
    }
  }

  _destroyPanels() {
    for (const panel of this._panels.values()) panel.destroy();
    this._panels.clear();
  }

  /**
   * @param {string | null} error
   */
  _renderValidity(error) {
    const problem = error ? describeProblem(error, this.draft) : null;
    const empty = emptyDraftProblem(this.draft);
    if (problem) {
      this._renderStatus(`Not ready to save: ${problem.text}`, "warning");
    } else if (empty) {
      this._renderStatus(empty, "warning");
    } else {
      this._renderStatus("Valid layout: ready to save.", "ok");
    }
    const nameProblem = problem?.scope === "name";
    this._name.classList.toggle("is-invalid", nameProblem);
    this._nameProblem.hidden = !nameProblem;
    this._nameProblem.textContent = nameProblem && problem ? problem.fix : "";
  }

  /**
   * @param {string} text
   * @param {'ok' | 'warning' | 'error'} kind
   */
  _renderStatus(text, kind) {
    this._status.dataset.kind = kind;
    setChildren(
      this._status,
      icon(kind === "ok" ? "check" : kind === "error" ? "error" : "warning", {
        size: 16,
      }),
      h("span", { text }),
    );
  }
}

/**
 * @typedef {Object} ChartRefs the elements of one chart card
 * @property {HTMLElement} element
 * @property {({input: HTMLInputElement, count: HTMLElement,
 *     result: HTMLElement} | undefined)[]} rows
 * @property {({count: HTMLElement, result: HTMLElement} | undefined)[]} series
 * @property {HTMLElement} runsResult
 * @property {HTMLInputElement} [runsInput]
 * @property {HTMLElement} summary
 * @property {HTMLElement} chartHost the chart drawn from the preview
 * @property {HTMLElement} problem the validation problem in user words
 */

/**
 * @param {{value: string, label: string, placeholder: string,
 *     maxLength: number, field: string, focus: string,
 *     onInput: (value: string) => void}} spec
 * @returns {HTMLInputElement}
 */
function textInput(spec) {
  const input = h("input", {
    className: "tbmf-lay-input",
    attrs: {
      type: "text",
      maxlength: spec.maxLength,
      spellcheck: "false",
      autocomplete: "off",
      placeholder: spec.placeholder,
      "aria-label": spec.label,
    },
    dataset: { field: spec.field, focus: spec.focus },
    on: { input: () => spec.onInput(input.value) },
  });
  input.value = spec.value;
  return input;
}

/**
 * A small icon button.
 * @param {import("./icons.js").LayoutIcon} name
 * @param {string} title
 * @param {string} action `data-action`
 * @param {boolean} disabled
 * @param {() => void} onClick
 * @returns {HTMLButtonElement}
 */
function toolButton(name, title, action, disabled, onClick) {
  return h(
    "button",
    {
      className: "tbmf-lay-tool",
      title,
      attrs: { type: "button", "aria-label": title, disabled },
      dataset: { action },
      on: { click: onClick },
    },
    icon(name, { size: 16 }),
  );
}

/**
 * A segmented control (Compare's look).
 * @param {string} label
 * @param {{value: string, label: string, title: string}[]} choices
 * @param {string} current
 * @param {string} dataKey each button's `data-<dataKey>`
 * @param {(value: string) => void} onPick
 * @returns {HTMLElement}
 */
function segmented(label, choices, current, dataKey, onPick) {
  return h(
    "span",
    {
      className: "tbmf-cmp-seg tbmf-lay-seg",
      attrs: { role: "group", "aria-label": label },
    },
    choices.map((choice) =>
      h("button", {
        className: `tbmf-cmp-seg__item${choice.value === current ? " is-on" : ""}`,
        text: choice.label,
        title: choice.title,
        attrs: {
          type: "button",
          "aria-pressed": String(choice.value === current),
        },
        dataset: { [dataKey]: choice.value },
        on: {
          click: () => {
            if (choice.value !== current) onPick(choice.value);
          },
        },
      }),
    ),
  );
}

/**
 * A text button that adds an item (a chart, a regex, a margin series).
 * @param {string} label
 * @param {string} action `data-action`, for tests
 * @param {boolean} disabled at the cap
 * @param {() => void} onClick
 * @returns {HTMLButtonElement}
 */
function addButton(label, action, disabled, onClick) {
  return /** @type {HTMLButtonElement} */ (
    h(
      "button",
      {
        className: "tbmf-button tbmf-button--text tbmf-lay-add",
        attrs: { type: "button", disabled },
        dataset: { action },
        on: { click: onClick },
      },
      icon("add", { size: 16 }),
      label,
    )
  );
}
