// Unsaved edits in the layout editor: the guard that asks before they are
// lost (another layout, New, Import, Duplicate, Close, Back/Forward, and
// the page unloading), and the draft kept in sessionStorage while it
// differs from the saved layout, so switching to another view (which
// cannot be refused) or a reload brings it back. One draft a browser tab.

import { t } from "../../i18n.js";
import { confirmDialog } from "./dialog.js";

/**
 * @typedef {import("./editor.js").Editor} Editor
 * @typedef {import("./schema.js").Draft} Draft
 */

/** sessionStorage key of the unsaved draft. */
const DRAFT_KEY = "tbmf.layouts.draft";

/** Whether the editor shown has edits to lose, and asking about them. */
export class DraftGuard {
  /** @param {() => Editor | null} editor the editor shown, if any */
  constructor(editor) {
    this._editor = editor;
    this._discarded = false;
    this._onBeforeUnload = (/** @type {BeforeUnloadEvent} */ event) => {
      if (this.unsaved()) {
        event.preventDefault();
        event.returnValue = "";
      }
    };
    window.addEventListener("beforeunload", this._onBeforeUnload);
  }

  destroy() {
    window.removeEventListener("beforeunload", this._onBeforeUnload);
  }

  /** Another editor (or none) is shown: its edits count. */
  reset() {
    this._discarded = false;
  }

  /** @returns {boolean} */
  unsaved() {
    const editor = this._editor();
    return Boolean(editor && !this._discarded && editor.dirty);
  }

  /** @returns {Promise<boolean>} the user agreed to drop the edits */
  async askDiscard() {
    const name = this._editor()?.draft.name || t("layouts.thisLayout");
    const ok = await confirmDialog({
      title: t("layouts.discard.title"),
      message: t("layouts.discard.message", { name }),
      confirm: t("layouts.discard.confirm"),
      cancel: t("layouts.discard.cancel"),
      danger: true,
    });
    if (ok) this.discard();
    return ok;
  }

  /** Drops the edits (agreed to, or their layout was deleted). */
  discard() {
    this._discarded = true;
    stashDraft(null);
  }

  /**
   * Stashes `editor`'s draft while it differs from the saved layout.
   * @param {Editor} editor
   */
  changed(editor) {
    if (this._editor() === editor && !this._discarded) {
      stashDraft(
        editor.dirty ? { id: draftId(editor), draft: editor.draft } : null,
      );
    }
  }

  /**
   * Stashes `editor`'s draft (restored from the stash, so unsaved).
   * @param {Editor} editor
   */
  restored(editor) {
    stashDraft({ id: draftId(editor), draft: editor.draft });
  }
}

/**
 * @param {Editor} editor
 * @returns {string} the stash id of the layout being edited
 */
function draftId(editor) {
  const base = editor.base;
  return base ? `user:${base.name}` : "new";
}

/**
 * Keeps (or clears, with null) the unsaved draft for this browser tab.
 * @param {{id: string, draft: Draft} | null} entry
 */
export function stashDraft(entry) {
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
 * @returns {Draft | null}
 */
export function takeDraft(id) {
  try {
    const raw = sessionStorage.getItem(DRAFT_KEY);
    if (!raw) return null;
    const entry = JSON.parse(raw);
    return entry && entry.id === id && entry.draft ? entry.draft : null;
  } catch {
    return null;
  }
}
