// The layout editor: name, categories (add, rename, reorder, delete,
// collapsed by default) and charts (title, kind, tag or metric regexes,
// run regex, margin series, x axis, smoothing, log y), with a live preview
// of what every regex matches and why an invalid one is invalid.
//
// Typing edits the draft in place (no re-render, so focus stays); adding,
// removing or moving rebuilds the form. Every change schedules a preview
// (debounced) and updates the unsaved-changes indicator.

import { describeProblem, emptyDraftProblem } from "./messages.js";
import { h, setChildren } from "../../dom.js";
import { t } from "../../i18n.js";
import { LatestRequest } from "../../model.js";
import { saveLayout } from "./api.js";
import { actionButton } from "./dashboard_header.js";
import { showDialog } from "./dialog.js";
import { icon } from "./icons.js";
import { previewDraft } from "./preview.js";
import { categoryCard } from "./editor_cards.js";
import { PreviewResults } from "./editor_results.js";
import {
  blankCategory,
  clone,
  draftFromLayout,
  MAX_CATEGORIES,
  MAX_NAME_CHARS,
  sameLayout,
  serializeLayout,
  uniqueName,
} from "./schema.js";

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./schema.js").Draft} Draft
 * @typedef {import("./editor_cards.js").ChartRefs} ChartRefs
 * @typedef {import("./schema.js").Layout} Layout
 * @typedef {import("./preview.js").DraftPreview} DraftPreview
 *
 * @typedef {Object} EditorSpec
 * @property {Layout | null} base the saved layout, or null for a new one
 * @property {Draft} draft what to edit (a copy is taken)
 * @property {boolean} [restored] the draft came back from an earlier visit
 * @property {Draft} [blank] a new layout's starting draft (its default
 *     name): what discarding restored changes returns to
 * @property {() => string[]} takenNames names of the saved layouts
 * @property {() => string[]} tagNames every scalar tag (suggestions)
 * @property {() => string[]} metricNames every canonical metric name
 * @property {() => import("./api.js").MetricIndex | null} metricIndex how
 *     chart previews group their requests (null: by tag)
 * @property {(saved: Layout, previousName: string | null) => void} onSaved
 * @property {() => void} onChange the draft or its saved state changed
 * @property {import("./dashboard_header.js").DashboardAction[]} actions more
 *     header buttons (export, delete, close)
 */

/** Milliseconds of typing quiet before the preview is asked for. */
const PREVIEW_DEBOUNCE_MS = 250;
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
      : clone(
          spec.blank ??
            (spec.restored ? { name: "", categories: [] } : spec.draft),
        );
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
    this._results = new PreviewResults(ctx, () => spec.metricIndex());

    this._name = h("input", {
      className: "tbmf-lay-input tbmf-lay-name__input",
      attrs: {
        type: "text",
        maxlength: MAX_NAME_CHARS,
        spellcheck: "false",
        autocomplete: "off",
        "aria-label": t("layouts.editor.name"),
        placeholder: t("layouts.editor.name"),
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
    /** @type {import("./editor_cards.js").FormHost} */
    this._form = {
      changed: () => this._changed(),
      restructure: (focus) => this._restructure(focus),
      move: (list, index, step) => this._move(list, index, step),
      deleteCategory: (ci) => this._deleteCategory(ci),
      addRefs: (key, refs) => this._refs.set(key, refs),
      tagListId: this._tagList.id,
      metricListId: this._metricList.id,
    };
    this._saveButton = actionButton({
      id: "save",
      label: t("layouts.editor.save"),
      icon: "save",
      primary: true,
      title: t("layouts.editor.save.title"),
      run: () => void this.save(),
    });
    this._saveAsButton = actionButton({
      id: "save-as",
      label: t("layouts.editor.saveAs"),
      icon: "copy",
      title: t("layouts.editor.saveAs.title"),
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
              text: this.base ? t("layouts.editor.editing") : t("layouts.newLayout"),
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
              text: t("layouts.editor.restored"),
            }),
            h("button", {
              className: "tbmf-button tbmf-button--text",
              text: t("layouts.editor.discardRestored"),
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
    this._results.destroyPanels();
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
      this._setSaveError(
        t("layouts.editor.notSaved", {
          problem: describeProblem(message, this.draft).text,
        }),
      );
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
    if (mode) mode.textContent = t("layouts.editor.editing");
    this._renderDirty();
    this.spec.onSaved(saved, asName !== null ? null : previousName);
    return true;
  }

  /** Asks for a name and saves a copy under it; the copy is edited next. */
  async saveAs() {
    const taken = new Set(this.spec.takenNames());
    const { value, text } = await showDialog({
      title: t("layouts.saveAs.title"),
      message: this.base
        ? t("layouts.saveAs.stays", { name: this.base.name })
        : undefined,
      input: {
        label: t("layouts.saveAs.name"),
        value: uniqueName(
          t("layouts.copyName", {
            name: this.draft.name || t("layouts.saveAs.defaultName"),
          }),
          taken,
        ),
        maxLength: MAX_NAME_CHARS,
        validate: (name) =>
          !name.trim()
            ? t("layouts.saveAs.giveName")
            : name !== name.trim()
              ? t("layouts.saveAs.spaces")
              : taken.has(name)
                ? t("layouts.saveAs.taken", { name })
                : null,
      },
      buttons: [
        { value: "cancel", label: t("common.cancel") },
        { value: "save", label: t("layouts.saveAs.save"), kind: "primary" },
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
      ? t("layouts.editor.unsaved")
      : this.base
        ? t("layouts.editor.allSaved")
        : t("layouts.editor.notSavedYet");
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
      this._renderStatus(
        t("layouts.editor.previewError", { error: outcome.error.message }),
        "error",
      );
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
    this._results.destroyPanels();
    const draft = this.draft;
    setChildren(
      this._body,
      draft.categories.map((_category, ci) =>
        categoryCard(this._form, draft.categories, ci),
      ),
      draft.categories.length === 0
        ? h(
            "div",
            { className: "tbmf-lay-empty tbmf-lay-empty--editor" },
            h("p", {
              text: t("layouts.editor.empty"),
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
              ? t("layouts.editor.maxCategories", { n: MAX_CATEGORIES })
              : t("layouts.editor.addCategory.title"),
          dataset: { action: "add-category" },
          on: {
            click: () => {
              draft.categories.push(blankCategory());
              this._restructure(`category-${draft.categories.length - 1}`);
            },
          },
        },
        icon("add", { size: 16 }),
        t("layouts.editor.addCategory"),
      ),
    );
    if (this._preview) this._applyPreview();
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
        title: t("layouts.deleteCategory.title"),
        message: t("layouts.deleteCategory.message", {
          title: category.title || t("layouts.untitled.short"),
          n: category.charts.length,
        }),
        buttons: [
          { value: "cancel", label: t("common.cancel") },
          {
            value: "delete",
            label: t("layouts.deleteCategory.confirm"),
            kind: "danger",
          },
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
    this._renderValidity(preview.error);
    this._results.apply(preview, this.draft, this._refs);
  }

  /**
   * @param {string | null} error
   */
  _renderValidity(error) {
    const problem = error ? describeProblem(error, this.draft) : null;
    const empty = emptyDraftProblem(this.draft);
    if (problem) {
      this._renderStatus(
        t("layouts.editor.notReady", { problem: problem.text }),
        "warning",
      );
    } else if (empty) {
      this._renderStatus(empty, "warning");
    } else {
      this._renderStatus(t("layouts.editor.valid"), "ok");
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
