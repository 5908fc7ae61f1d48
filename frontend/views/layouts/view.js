// The Layouts view: the layout list and the shared run picker on the left,
// the open layout on the right, as a dashboard or in the editor. Which
// layout is open, edit mode and the dashboard-wide overrides live in the
// URL (keys starting with `l`), so a link reopens the same dashboard.
//
// Unsaved edits: a change of layout or the editor's Close asks first; the
// draft is also kept in sessionStorage while it differs from the saved
// layout, so switching to another view (which cannot be refused) or a
// reload brings it back, and the page asks before it unloads.
//
// Its parts: view_state.js (URL keys, targets, overrides), drafts.js (the
// unsaved-edits guard and stash), operations.js (duplicate, delete,
// import), transfer.js (export, reading a file), actions.js (the head's
// buttons), placeholders.js (loading, welcome, missing, notices).

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { LatestRequest } from "../../model.js";
import { KEYS as SHELL_KEYS } from "../../state.js";
import { PINNED_COLORS_KEY } from "../../colors.js";
import { RUN_FILTER_KEYS } from "../../filter.js";
import { RunPicker } from "../compare/runpicker.js";
import { dashboardActions, editorActions } from "./actions.js";
import { indexMetrics, loadLayouts, loadMetrics } from "./api.js";
import { Dashboard } from "./dashboard.js";
import { DraftGuard, stashDraft, takeDraft } from "./drafts.js";
import { Editor } from "./editor.js";
import { LayoutList } from "./list.js";
import { duplicateLayout, importLayout, removeLayout } from "./operations.js";
import {
  loadingPlaceholder,
  missingCard,
  notice,
  welcomeCard,
} from "./placeholders.js";
import {
  blankDraft,
  draftFromLayout,
  serializeLayout,
  uniqueName,
} from "./schema.js";
import { downloadLayout } from "./transfer.js";
import {
  LAYOUT_KEYS,
  readSettings,
  readTarget,
  settingsState,
  target,
  targetState,
} from "./view_state.js";

export { LAYOUT_KEYS } from "./view_state.js";

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./schema.js").Layout} Layout
 * @typedef {import("./api.js").LayoutsPayload} LayoutsPayload
 * @typedef {import("./api.js").MetricIndex} MetricIndex
 * @typedef {import("./dashboard.js").DashboardAction} DashboardAction
 * @typedef {import("./view_state.js").Target} Target
 * @typedef {import("./operations.js").OperationsHost} OperationsHost
 */

/** Name a new layout starts with. */
/** A new layout's name, in the language of the tab when it was made. */
const newName = () => t("layouts.untitled");

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
      onImport: (file) => void importLayout(this._host, file),
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

    this._guard = new DraftGuard(() => this.editor);
    /** @type {OperationsHost} */
    this._host = {
      ctx,
      guard: this._guard,
      names: () => this._names(),
      path: () => this.payload?.path,
      dropLayout: (name) => {
        if (!this.payload) return;
        this.payload = {
          ...this.payload,
          layouts: this.payload.layouts.filter((l) => l.name !== name),
        };
      },
      forgetShown: () => {
        this._current = null;
      },
      setImportError: (text) => {
        this.importError = text;
      },
      renderList: () => this._renderList(),
      reload: () => this.reload(),
      navigate: (patch) => this._navigate(patch),
    };
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
    this._guard.destroy();
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
    const narrowing =
      changed.has(RUN_FILTER_KEYS.narrow) ||
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
      this.dashboard?.setSettings(readSettings(this.ctx.state));
    }
  }

  /** Shows what the URL asks for, asking first when edits would be lost. */
  async _route() {
    if (this._routing || this._destroyed) return;
    if (!this.payload) {
      if (!this.loadError) this._showLoading();
      return;
    }
    const next = readTarget(this.ctx.state, this.payload);
    if (!next || (this._current && next.id === this._current.id)) return;
    if (this._guard.unsaved()) {
      // Back/Forward or a pasted link while editing.
      this._routing = true;
      const discard = await this._guard.askDiscard();
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
    if (this._guard.unsaved() && !(await this._guard.askDiscard())) return;
    this.importError = null;
    this.ctx.state.update(patch);
    // Same URL (e.g. the layout shown by default): show it anyway.
    await this._route();
  }

  /** Puts the URL back on what is shown (a refused navigation). */
  _restoreUrl() {
    const current = this._current;
    if (!current) return;
    this.ctx.state.update(targetState(current));
  }

  // Showing.

  _teardown() {
    this.dashboard?.destroy();
    this.dashboard = null;
    this.editor?.destroy();
    this.editor = null;
    this._guard.reset();
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
          t("layouts.cannotSave", { reason: payload.pathReason ?? "" }),
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
          t("layouts.editingOff", {
            reason: payload.pathReason ?? t("layouts.noWritablePlace"),
          }),
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
      settings: readSettings(this.ctx.state),
      onSettings: (patch) => this.ctx.state.update(settingsState(patch)),
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
      : t("layouts.cannotSave", { reason: payload.pathReason ?? "" });
    return dashboardActions(imported, locked, {
      edit: () => void this._navigate({ [LAYOUT_KEYS.edit]: "1" }),
      duplicate: () => void duplicateLayout(this._host, layout),
      exportLayout: () => downloadLayout(layout),
      remove: () => void removeLayout(this._host, layout.name),
    });
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
      : blankDraft(uniqueName(newName(), this._names()));
    const restored =
      stashed !== null && JSON.stringify(stashed) !== JSON.stringify(initial);
    const actions = editorActions(base !== null, {
      exportDraft: () => {
        if (this.editor) downloadLayout(serializeLayout(this.editor.draft));
      },
      remove: () => {
        const name = this.editor?.base?.name ?? base?.name;
        if (name) void removeLayout(this._host, name);
      },
      close: () => void this._navigate({ [LAYOUT_KEYS.edit]: null }),
    });
    const editor = new Editor(this.ctx, {
      base,
      draft: restored && stashed ? stashed : initial,
      restored,
      // Discarding a new layout's restored changes keeps its default name.
      blank: base ? undefined : initial,
      takenNames: () => this._names(),
      tagNames: () =>
        [...new Set(this.ctx.catalog.runs.flatMap((r) => r.scalarTags))].sort(),
      metricNames: () => this.metricNames,
      metricIndex: () => this.metricIndex ?? null,
      onSaved: (saved, previousName) => void this._saved(saved, previousName),
      onChange: () => this._guard.changed(editor),
      actions,
    });
    this.editor = editor;
    this._main.append(editor.element);
    if (restored) this._guard.restored(editor);
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
        ? t("layouts.savedRenamed", { from: previousName, to: saved.name })
        : t("layouts.saved", { name: saved.name }),
    );
    // The editor stays: what is shown is this layout in edit mode already.
    this._current = target("user", saved.name, true);
    const remove = /** @type {HTMLButtonElement | null} */ (
      this.editor?.element.querySelector('[data-action="delete"]') ?? null
    );
    if (remove) {
      remove.disabled = false;
      remove.title = t("layouts.action.delete.title");
    }
    this.ctx.state.update({
      [LAYOUT_KEYS.name]: saved.name,
      [LAYOUT_KEYS.imported]: null,
      [LAYOUT_KEYS.edit]: "1",
    });
    await this.reload();
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
    this._main.replaceChildren(loadingPlaceholder());
  }

  /**
   * @param {'error' | 'warning'} kind
   * @param {string} text
   */
  _showMessage(kind, text) {
    this._main.replaceChildren(notice(kind, text));
  }

  _showEmpty() {
    this._main.replaceChildren(
      welcomeCard(
        this.payload,
        () => void this._navigate({ [LAYOUT_KEYS.edit]: "new" }),
      ),
    );
  }

  /** @param {Target} where */
  _showMissing(where) {
    this._main.replaceChildren(missingCard(where));
  }
}
