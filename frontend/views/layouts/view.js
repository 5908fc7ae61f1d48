// The Layouts view: the layout list and the shared run picker on the left,
// the open layout on the right, as a dashboard or in the editor. Which
// layout is open, edit mode and the dashboard-wide overrides live in the
// URL (keys starting with `l`), so a link reopens the same dashboard.
//
// Unsaved edits: a change of layout or the editor's Close asks first; the
// draft is also kept in sessionStorage while it differs from the saved
// layout, so switching to another view (which cannot be refused) or a
// reload brings it back, and the page asks before it unloads.

import { h } from "../../dom.js";
import { errorText, LatestRequest } from "../../model.js";
import { KEYS as SHELL_KEYS } from "../../state.js";
import { PINNED_COLORS_KEY } from "../../colors.js";
import { RUN_FILTER_KEYS } from "../../filter.js";
import { RunPicker } from "../compare/runpicker.js";
import {
  deleteLayout,
  indexMetrics,
  loadLayouts,
  loadMetrics,
  previewLayout,
  saveLayout,
} from "./api.js";
import { Dashboard } from "./dashboard.js";
import { confirmDialog, showDialog } from "./dialog.js";
import { Editor } from "./editor.js";
import { icon } from "./icons.js";
import { LayoutList } from "./list.js";
import {
  AXIS_IDS,
  blankDraft,
  draftFromLayout,
  exportableLayout,
  exportFileName,
  MAX_IMPORT_BYTES,
  parseLayoutFile,
  serializeLayout,
  uniqueName,
} from "./schema.js";

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./schema.js").Layout} Layout
 * @typedef {import("./api.js").LayoutsPayload} LayoutsPayload
 * @typedef {import("./api.js").MetricIndex} MetricIndex
 * @typedef {import("./dashboard.js").DashboardSettings} DashboardSettings
 * @typedef {import("./dashboard.js").DashboardAction} DashboardAction
 *
 * @typedef {Object} Target what the main area shows
 * @property {'imported' | 'user' | 'new' | 'none'} kind
 * @property {string | null} name a user layout's name
 * @property {boolean} edit
 * @property {string} id identity: the same id needs no rebuild
 */

/** State keys of this view. */
export const LAYOUT_KEYS = Object.freeze({
  name: "ln", // a user layout's name
  imported: "li", // "1": the layout logged in the runs
  edit: "le", // "1": edit the open layout; "new": a new layout
  axis: "lx", // one x axis for every chart
  smoothing: "ls", // one smoothing weight for every chart
  baseline: "lb", // baseline run of the difference charts
});
/** sessionStorage key of the unsaved draft. */
const DRAFT_KEY = "tbmf.layouts.draft";
/** Name a new layout starts with. */
const NEW_NAME = "Untitled layout";
/** Milliseconds before an exported file's object URL is released. */
const REVOKE_DELAY_MS = 10000;

export class LayoutsView {
  /**
   * @param {HTMLElement} root
   * @param {ViewContext} ctx
   */
  constructor(root, ctx) {
    this.ctx = ctx;
    /** @type {LayoutsPayload | null} */
    this.payload = null;
    /** @type {string | null} */
    this.loadError = null;
    /** @type {string | null} */
    this.importError = null;
    /** undefined while loading; null when unavailable (group by tag). */
    /** @type {MetricIndex | null | undefined} */
    this.metricIndex = undefined;
    /** @type {string[]} */
    this.metricNames = [];
    this._layoutsRequest = new LatestRequest();
    this._metricsRequest = new LatestRequest();
    /** @type {Target | null} */
    this._current = null;
    /** @type {Dashboard | null} */
    this.dashboard = null;
    /** @type {Editor | null} */
    this.editor = null;
    this._discarded = false;
    this._routing = false;
    this._destroyed = false;

    this.list = new LayoutList({
      onOpen: (ref) =>
        void this._navigate({
          [LAYOUT_KEYS.name]: ref.kind === "user" ? ref.name : null,
          [LAYOUT_KEYS.imported]: ref.kind === "imported" ? "1" : null,
          [LAYOUT_KEYS.edit]: null,
        }),
      onNew: () =>
        void this._navigate({
          [LAYOUT_KEYS.name]: null,
          [LAYOUT_KEYS.imported]: null,
          [LAYOUT_KEYS.edit]: "new",
        }),
      onImport: (file) => void this._import(file),
      onRetry: () => void this.reload(),
    });
    this.runPicker = new RunPicker(ctx);
    this._main = h("div", { className: "tbmf-lay__main" });
    root.append(
      h(
        "div",
        { className: "tbmf-cmp tbmf-lay" },
        h(
          "aside",
          { className: "tbmf-cmp__side tbmf-lay__side" },
          this.list.element,
          this.runPicker.element,
        ),
        this._main,
      ),
    );

    this._onBeforeUnload = (/** @type {BeforeUnloadEvent} */ event) => {
      if (this._hasUnsaved()) {
        event.preventDefault();
        event.returnValue = "";
      }
    };
    window.addEventListener("beforeunload", this._onBeforeUnload);
    this._unsubscribe = [
      ctx.catalog.subscribe((_catalog, change) => {
        this.runPicker.render();
        if (!change.dataChanged) return;
        void this.reload();
        void this._loadMetrics();
        this.dashboard?.refresh();
        this.editor?.renderSuggestions();
        this.editor?.refresh();
      }),
      ctx.state.subscribe((changed) => this._onState(changed)),
    ];
    this.runPicker.render();
    this._renderList();
    this._showLoading();
    if (ctx.catalog.pending) void this.reload();
  }

  destroy() {
    this._destroyed = true;
    window.removeEventListener("beforeunload", this._onBeforeUnload);
    for (const unsubscribe of this._unsubscribe) unsubscribe();
    this._layoutsRequest.cancel();
    this._metricsRequest.cancel();
    this._teardown();
  }

  // Data.

  /** Fetches the layouts and shows what the URL asks for. */
  async reload() {
    const outcome = await this._layoutsRequest.run((signal) =>
      loadLayouts(signal),
    );
    if (outcome.stale || this._destroyed) return;
    if (outcome.error) {
      this.loadError = outcome.error.message;
      this._renderList();
      if (!this.payload) this._showMessage("error", this.loadError);
      return;
    }
    const previous = this.payload;
    this.payload = outcome.value;
    this.loadError = null;
    this._renderList();
    // The open dashboard is rebuilt only when its layout changed.
    if (this.dashboard && this._current && previous) {
      const before = this._layoutOf(this._current, previous);
      const after = this._layoutOf(this._current, this.payload);
      if (JSON.stringify(before) !== JSON.stringify(after)) {
        this._current = null;
      }
    }
    await this._route();
  }

  async _loadMetrics() {
    const outcome = await this._metricsRequest.run((signal) =>
      loadMetrics(signal),
    );
    if (outcome.stale || this._destroyed) return;
    if (outcome.error) {
      this.metricIndex = null;
      this.metricNames = [];
    } else {
      this.metricIndex = indexMetrics(outcome.value);
      this.metricNames = [...new Set(outcome.value.map((m) => m.name))].sort();
    }
    this.dashboard?.setMetricIndex(this.metricIndex);
    this.editor?.renderSuggestions();
  }

  /** @returns {string[]} names of the saved layouts */
  _names() {
    return (this.payload?.layouts ?? []).map((l) => l.name);
  }

  /**
   * @param {Target} target
   * @param {LayoutsPayload | null} payload
   * @returns {Layout | null}
   */
  _layoutOf(target, payload) {
    if (!payload) return null;
    if (target.kind === "imported") return payload.imported;
    if (target.kind === "user") {
      return payload.layouts.find((l) => l.name === target.name) ?? null;
    }
    return null;
  }

  // Routing.

  /** @param {Set<string>} changed */
  _onState(changed) {
    if (changed.has(SHELL_KEYS.view)) return;
    const narrowing = changed.has(RUN_FILTER_KEYS.narrow) ||
      (changed.has(RUN_FILTER_KEYS.query) &&
        this.ctx.state.get(RUN_FILTER_KEYS.narrow) === "1");
    if (changed.has(SHELL_KEYS.selection) || narrowing) {
      this.runPicker.render();
      this.dashboard?.selectionChanged();
      this.editor?.refresh();
    } else if (
      changed.has(RUN_FILTER_KEYS.query) ||
      changed.has(PINNED_COLORS_KEY)
    ) {
      this.runPicker.render();
      if (changed.has(PINNED_COLORS_KEY)) this.dashboard?.selectionChanged();
    }
    if (
      changed.has(LAYOUT_KEYS.name) ||
      changed.has(LAYOUT_KEYS.imported) ||
      changed.has(LAYOUT_KEYS.edit)
    ) {
      void this._route();
    }
    if (
      changed.has(LAYOUT_KEYS.axis) ||
      changed.has(LAYOUT_KEYS.smoothing) ||
      changed.has(LAYOUT_KEYS.baseline)
    ) {
      this.dashboard?.setSettings(this._settings());
    }
  }

  /** @returns {Target | null} what the URL asks for (null: not loaded) */
  _target() {
    const state = this.ctx.state;
    const edit = state.get(LAYOUT_KEYS.edit);
    if (edit === "new") return target("new", null, true);
    const name = state.get(LAYOUT_KEYS.name);
    if (name) return target("user", name, edit === "1");
    if (state.get(LAYOUT_KEYS.imported) === "1") {
      return target("imported", null, false);
    }
    const payload = this.payload;
    if (!payload) return null;
    // No layout in the URL: the logged one, else the first of the user's.
    if (payload.imported) return target("imported", null, false);
    if (payload.layouts.length) {
      return target("user", payload.layouts[0].name, edit === "1");
    }
    return target("none", null, false);
  }

  /** Shows what the URL asks for, asking first when edits would be lost. */
  async _route() {
    if (this._routing || this._destroyed) return;
    if (!this.payload) {
      if (!this.loadError) this._showLoading();
      return;
    }
    const next = this._target();
    if (!next || (this._current && next.id === this._current.id)) return;
    if (this._hasUnsaved()) {
      // Back/Forward or a pasted link while editing.
      this._routing = true;
      const discard = await this._askDiscard();
      this._routing = false;
      if (!discard) {
        this._restoreUrl();
        return;
      }
    }
    this._show(next);
  }

  /**
   * Changes the URL (which shows the layout) after asking about unsaved
   * edits.
   * @param {Record<string, string | null>} patch
   */
  async _navigate(patch) {
    if (this._hasUnsaved() && !(await this._askDiscard())) return;
    this.importError = null;
    this.ctx.state.update(patch);
    // Same URL (e.g. the layout shown by default): show it anyway.
    await this._route();
  }

  /** Puts the URL back on what is shown (a refused navigation). */
  _restoreUrl() {
    const current = this._current;
    if (!current) return;
    this.ctx.state.update({
      [LAYOUT_KEYS.name]: current.kind === "user" ? current.name : null,
      [LAYOUT_KEYS.imported]: current.kind === "imported" ? "1" : null,
      [LAYOUT_KEYS.edit]:
        current.kind === "new" ? "new" : current.edit ? "1" : null,
    });
  }

  /** @returns {boolean} */
  _hasUnsaved() {
    return Boolean(this.editor && !this._discarded && this.editor.dirty);
  }

  /** @returns {Promise<boolean>} the user agreed to drop the edits */
  async _askDiscard() {
    const name = this.editor?.draft.name || "this layout";
    const ok = await confirmDialog({
      title: "Discard unsaved changes?",
      message: `Your changes to "${name}" are not saved.`,
      confirm: "Discard changes",
      cancel: "Keep editing",
      danger: true,
    });
    if (ok) {
      this._discarded = true;
      stashDraft(null);
    }
    return ok;
  }

  // Showing.

  _teardown() {
    this.dashboard?.destroy();
    this.dashboard = null;
    this.editor?.destroy();
    this.editor = null;
    this._discarded = false;
    this._main.replaceChildren();
  }

  /** @param {Target} next */
  _show(next) {
    this._teardown();
    this._current = next;
    this._renderList();
    const payload = /** @type {LayoutsPayload} */ (this.payload);
    if (next.kind === "none") {
      this._showEmpty();
      return;
    }
    if (next.kind === "new") {
      if (!payload.writable) {
        this._showMessage(
          "warning",
          `Layouts cannot be saved: ${payload.pathReason ?? ""}`,
        );
        return;
      }
      this._openEditor(null, next);
      return;
    }
    const layout = this._layoutOf(next, payload);
    if (!layout) {
      this._showMissing(next);
      return;
    }
    if (next.edit && next.kind === "user" && payload.writable) {
      this._openEditor(layout, next);
      return;
    }
    this._openDashboard(layout, next);
    if (next.edit) {
      this._main.prepend(
        notice(
          "warning",
          `Editing is off: layouts cannot be saved (${payload.pathReason ?? "no writable place"}).`,
        ),
      );
    }
  }

  /**
   * @param {Layout} layout
   * @param {Target} where
   */
  _openDashboard(layout, where) {
    const imported = where.kind === "imported";
    this.dashboard = new Dashboard(this.ctx, {
      layout,
      imported,
      // undefined holds the charts until the index is here: it decides
      // how their series are fetched (_loadMetrics hands it over).
      metricIndex: this.metricIndex,
      settings: this._settings(),
      onSettings: (patch) => this._updateSettings(patch),
      actions: this._dashboardActions(layout, imported),
    });
    this._main.append(this.dashboard.element);
  }

  /**
   * @param {Layout} layout
   * @param {boolean} imported
   * @returns {DashboardAction[]}
   */
  _dashboardActions(layout, imported) {
    const payload = /** @type {LayoutsPayload} */ (this.payload);
    const locked = payload.writable
      ? null
      : `Layouts cannot be saved: ${payload.pathReason ?? ""}`;
    /** @type {DashboardAction[]} */
    const actions = [];
    if (imported) {
      actions.push({
        id: "duplicate",
        label: "Duplicate to edit",
        icon: "copy",
        primary: true,
        title: "Save a copy of this layout as your own and edit it",
        disabled: locked,
        run: () => void this._duplicate(layout),
      });
    } else {
      actions.push(
        {
          id: "edit",
          label: "Edit",
          icon: "edit",
          primary: true,
          title: "Edit this layout",
          disabled: locked,
          run: () => void this._navigate({ [LAYOUT_KEYS.edit]: "1" }),
        },
        {
          id: "duplicate",
          label: "Duplicate",
          icon: "copy",
          title: "Save a copy under a new name and edit it",
          disabled: locked,
          run: () => void this._duplicate(layout),
        },
      );
    }
    actions.push({
      id: "export",
      label: "Export",
      icon: "download",
      title: "Download this layout as a .json file",
      run: () => this._export(layout),
    });
    if (!imported) {
      actions.push({
        id: "delete",
        label: "Delete",
        icon: "delete",
        danger: true,
        title: "Delete this layout",
        disabled: locked,
        run: () => void this._delete(layout.name),
      });
    }
    return actions;
  }

  /**
   * @param {Layout | null} base
   * @param {Target} where
   */
  _openEditor(base, where) {
    const stashed = takeDraft(
      where.kind === "new" ? "new" : `user:${where.name}`,
    );
    const initial = base
      ? draftFromLayout(base)
      : blankDraft(uniqueName(NEW_NAME, this._names()));
    const restored =
      stashed !== null && JSON.stringify(stashed) !== JSON.stringify(initial);
    /** @type {DashboardAction[]} */
    const actions = [
      {
        id: "export",
        label: "Export",
        icon: "download",
        title: "Download the layout as it is in the editor, as .json",
        run: () => {
          if (this.editor) this._export(serializeLayout(this.editor.draft));
        },
      },
    ];
    // Always there: a new layout can be deleted as soon as it is saved
    // (_saved enables it), without reopening the editor.
    actions.push({
      id: "delete",
      label: "Delete",
      icon: "delete",
      danger: true,
      title: "Delete this layout",
      disabled: base ? undefined : "Save the layout first",
      run: () => {
        const name = this.editor?.base?.name ?? base?.name;
        if (name) void this._delete(name);
      },
    });
    actions.push({
      id: "close",
      label: "Close",
      icon: "close",
      title: "Leave the editor",
      run: () => void this._navigate({ [LAYOUT_KEYS.edit]: null }),
    });
    const editor = new Editor(this.ctx, {
      base,
      draft: restored && stashed ? stashed : initial,
      restored,
      takenNames: () => this._names(),
      tagNames: () =>
        [...new Set(this.ctx.catalog.runs.flatMap((r) => r.scalarTags))].sort(),
      metricNames: () => this.metricNames,
      metricIndex: () => this.metricIndex ?? null,
      onSaved: (saved, previousName) => void this._saved(saved, previousName),
      onChange: () => {
        if (this.editor === editor && !this._discarded) {
          stashDraft(
            editor.dirty ? { id: this._draftId(), draft: editor.draft } : null,
          );
        }
      },
      actions,
    });
    this.editor = editor;
    this._main.append(editor.element);
    if (restored) stashDraft({ id: this._draftId(), draft: editor.draft });
  }

  /** @returns {string} the stash id of the layout being edited */
  _draftId() {
    const base = this.editor?.base;
    return base ? `user:${base.name}` : "new";
  }

  /**
   * @param {Layout} saved
   * @param {string | null} previousName
   */
  async _saved(saved, previousName) {
    stashDraft(null);
    const renamed = previousName !== null && previousName !== saved.name;
    this.ctx.toast(
      renamed
        ? `Renamed "${previousName}" to "${saved.name}" and saved`
        : `Saved "${saved.name}"`,
    );
    // The editor stays: what is shown is this layout in edit mode already.
    this._current = target("user", saved.name, true);
    const remove = /** @type {HTMLButtonElement | null} */ (
      this.editor?.element.querySelector('[data-action="delete"]') ?? null
    );
    if (remove) {
      remove.disabled = false;
      remove.title = "Delete this layout";
    }
    this.ctx.state.update({
      [LAYOUT_KEYS.name]: saved.name,
      [LAYOUT_KEYS.imported]: null,
      [LAYOUT_KEYS.edit]: "1",
    });
    await this.reload();
  }

  // Actions.

  /** @param {Layout} layout */
  async _duplicate(layout) {
    if (this._hasUnsaved() && !(await this._askDiscard())) return;
    const name = uniqueName(`${layout.name} (copy)`, this._names());
    let saved;
    try {
      saved = await saveLayout(exportableLayout({ ...layout, name }), {
        overwrite: false,
      });
    } catch (error) {
      this.ctx.toast(`Cannot duplicate: ${errorText(error)}`, "error");
      return;
    }
    this.ctx.toast(`Saved a copy as "${saved.name}"`);
    await this.reload();
    await this._navigate({
      [LAYOUT_KEYS.name]: saved.name,
      [LAYOUT_KEYS.imported]: null,
      [LAYOUT_KEYS.edit]: "1",
    });
  }

  /** @param {string} name */
  async _delete(name) {
    const ok = await confirmDialog({
      title: `Delete "${name}"?`,
      message:
        `The layout is removed from ${this.payload?.path ?? "the layouts file"}. ` +
        "Export it first to keep a copy.",
      confirm: "Delete layout",
      danger: true,
    });
    if (!ok) return;
    try {
      await deleteLayout(name);
    } catch (error) {
      this.ctx.toast(`Cannot delete: ${errorText(error)}`, "error");
      return;
    }
    this._discarded = true;
    stashDraft(null);
    this.ctx.toast(`Deleted "${name}"`);
    if (this.payload) {
      // Route with the layout gone before the list comes back.
      this.payload = {
        ...this.payload,
        layouts: this.payload.layouts.filter((l) => l.name !== name),
      };
    }
    this._current = null;
    this.ctx.state.update({
      [LAYOUT_KEYS.name]: null,
      [LAYOUT_KEYS.imported]: null,
      [LAYOUT_KEYS.edit]: null,
    });
    await this.reload();
  }

  /** @param {Layout} layout */
  _export(layout) {
    const text = `${JSON.stringify(exportableLayout(layout), null, 2)}\n`;
    const url = URL.createObjectURL(
      new Blob([text], { type: "application/json" }),
    );
    const link = h("a", {
      className: "tbmf-offscreen",
      attrs: { href: url, download: exportFileName(layout.name) },
    });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), REVOKE_DELAY_MS);
  }

  /** @param {File} file */
  async _import(file) {
    if (this._hasUnsaved() && !(await this._askDiscard())) return;
    const fail = (/** @type {string} */ why) => {
      this.importError = `Cannot import ${file.name}: ${why}`;
      this._renderList();
    };
    if (file.size > MAX_IMPORT_BYTES) {
      fail(`${file.size} bytes, more than ${MAX_IMPORT_BYTES / 1024} KiB`);
      return;
    }
    /** @type {Layout} */
    let layout;
    try {
      layout = exportableLayout(parseLayoutFile(await file.text()));
    } catch (error) {
      fail(errorText(error));
      return;
    }
    // A dry run: the preview validates without saving anything.
    try {
      const preview = await previewLayout(layout);
      if (preview.error) {
        fail(preview.error);
        return;
      }
    } catch (error) {
      fail(errorText(error));
      return;
    }
    let overwrite = false;
    if (this._names().includes(layout.name)) {
      const copy = uniqueName(layout.name, this._names());
      const { value } = await showDialog({
        title: `"${layout.name}" exists`,
        message: `Replace the saved layout, or import this one as "${copy}"?`,
        buttons: [
          { value: "cancel", label: "Cancel" },
          { value: "replace", label: "Replace", kind: "danger" },
          { value: "copy", label: "Import as copy", kind: "primary" },
        ],
      });
      if (value === "cancel") return;
      if (value === "copy") layout = { ...layout, name: copy };
      overwrite = value === "replace";
    }
    let saved;
    try {
      saved = await saveLayout(layout, { overwrite });
    } catch (error) {
      fail(errorText(error));
      return;
    }
    this.importError = null;
    this.ctx.toast(`Imported "${saved.name}"`);
    this._current = null;
    await this.reload();
    await this._navigate({
      [LAYOUT_KEYS.name]: saved.name,
      [LAYOUT_KEYS.imported]: null,
      [LAYOUT_KEYS.edit]: null,
    });
  }

  // Settings.

  /** @returns {DashboardSettings} */
  _settings() {
    const state = this.ctx.state;
    const axis = state.get(LAYOUT_KEYS.axis);
    const raw = state.get(LAYOUT_KEYS.smoothing);
    const smoothing = raw === "" ? NaN : Number(raw);
    return {
      axis: AXIS_IDS.includes(axis) ? axis : null,
      smoothing:
        Number.isFinite(smoothing) && smoothing >= 0 && smoothing < 1
          ? smoothing
          : null,
      baseline: state.get(LAYOUT_KEYS.baseline) || null,
    };
  }

  /** @param {Partial<DashboardSettings>} patch */
  _updateSettings(patch) {
    /** @type {Record<string, string | null>} */
    const update = {};
    if ("axis" in patch) update[LAYOUT_KEYS.axis] = patch.axis ?? null;
    if ("smoothing" in patch) {
      update[LAYOUT_KEYS.smoothing] =
        patch.smoothing === null || patch.smoothing === undefined
          ? null
          : String(patch.smoothing);
    }
    if ("baseline" in patch) {
      update[LAYOUT_KEYS.baseline] = patch.baseline ?? null;
    }
    this.ctx.state.update(update);
  }

  // Messages.

  _renderList() {
    const current = this._current;
    this.list.render({
      payload: this.payload,
      error: this.loadError,
      current:
        current?.kind === "imported"
          ? { kind: "imported" }
          : current?.kind === "user" && current.name
            ? { kind: "user", name: current.name }
            : null,
      importError: this.importError,
    });
  }

  _showLoading() {
    this._main.replaceChildren(
      h(
        "div",
        { className: "tbmf-lay-placeholder" },
        h("span", {
          className: "tbmf-spinner",
          attrs: { "aria-hidden": "true" },
        }),
        h("span", { text: "Loading layouts…" }),
      ),
    );
  }

  /**
   * @param {'error' | 'warning'} kind
   * @param {string} text
   */
  _showMessage(kind, text) {
    this._main.replaceChildren(notice(kind, text));
  }

  _showEmpty() {
    const writable = this.payload?.writable ?? false;
    this._main.replaceChildren(
      h(
        "div",
        { className: "tbmf-lay-welcome" },
        icon("dashboard", { size: 40, className: "tbmf-lay-welcome__icon" }),
        h("h2", { text: "No layouts yet" }),
        h("p", {
          text:
            "A layout is a dashboard of charts grouped in categories, each " +
            "chart the series whose tags (or metric names) match its regexes, " +
            "from any framework. Runs that log a layout with " +
            "add_custom_scalars or a custom_scalar summary show it here too.",
        }),
        h(
          "button",
          {
            className: "tbmf-button tbmf-lay-action is-primary",
            attrs: { type: "button", disabled: !writable },
            title: writable
              ? "Create a layout"
              : `Layouts cannot be saved: ${this.payload?.pathReason ?? ""}`,
            dataset: { action: "new-layout" },
            on: {
              click: () => void this._navigate({ [LAYOUT_KEYS.edit]: "new" }),
            },
          },
          icon("add", { size: 16 }),
          "New layout",
        ),
      ),
    );
  }

  /** @param {Target} where */
  _showMissing(where) {
    this._main.replaceChildren(
      h(
        "div",
        { className: "tbmf-lay-welcome" },
        icon("warning", { size: 36, className: "tbmf-lay-welcome__icon" }),
        h("h2", {
          text:
            where.kind === "imported"
              ? "No run logged a layout"
              : `No layout named "${where.name}"`,
        }),
        h("p", {
          text: "It may have been renamed or deleted. Pick one from the list.",
        }),
      ),
    );
  }
}

/**
 * @param {Target['kind']} kind
 * @param {string | null} name
 * @param {boolean} edit
 * @returns {Target}
 */
function target(kind, name, edit) {
  return {
    kind,
    name,
    edit,
    id: `${kind}:${name ?? ""}:${edit ? "edit" : "view"}`,
  };
}

/**
 * @param {'error' | 'warning'} kind
 * @param {string} text
 * @returns {HTMLElement}
 */
function notice(kind, text) {
  return h(
    "div",
    {
      className: `tbmf-lay-message tbmf-lay-message--${kind} tbmf-lay-message--wide`,
      attrs: { role: kind === "error" ? "alert" : "status" },
    },
    icon(kind, { size: 16 }),
    h("span", { className: "tbmf-lay-message__text", text }),
  );
}

/**
 * Keeps (or clears, with null) the unsaved draft for this browser tab.
 * @param {{id: string, draft: import("./schema.js").Draft} | null} entry
 */
function stashDraft(entry) {
  try {
    if (entry === null) sessionStorage.removeItem(DRAFT_KEY);
    else sessionStorage.setItem(DRAFT_KEY, JSON.stringify(entry));
  } catch {
    // Storage disabled or full: the confirm dialogs still guard the edits.
  }
}

/**
 * The stashed draft of layout `id`, if any.
 * @param {string} id
 * @returns {import("./schema.js").Draft | null}
 */
function takeDraft(id) {
  try {
    const raw = sessionStorage.getItem(DRAFT_KEY);
    if (!raw) return null;
    const entry = JSON.parse(raw);
    return entry && entry.id === id && entry.draft ? entry.draft : null;
  } catch {
    return null;
  }
}
