// The buttons in the head of an open layout, with their labels, icons,
// titles and why one is disabled: on its dashboard (Edit, or Duplicate to
// edit for the logged layout; Duplicate, Export, Delete) and in its editor
// (Export, Delete, Close). What they do is the Layouts view's, handed in.

import { t } from "../../i18n.js";

/** @typedef {import("./dashboard_header.js").DashboardAction} DashboardAction */

/**
 * @param {boolean} imported the layout logged in the runs (read-only)
 * @param {string | null} locked why layouts cannot be saved (null: they can)
 * @param {Object} on what the buttons do
 * @param {() => void} on.edit
 * @param {() => void} on.duplicate
 * @param {() => void} on.exportLayout
 * @param {() => void} on.remove
 * @returns {DashboardAction[]}
 */
export function dashboardActions(imported, locked, on) {
  /** @type {DashboardAction[]} */
  const actions = [];
  if (imported) {
    actions.push({
      id: "duplicate",
      label: t("layouts.action.duplicateToEdit"),
      icon: "copy",
      primary: true,
      title: t("layouts.action.duplicateToEdit.title"),
      disabled: locked,
      run: on.duplicate,
    });
  } else {
    actions.push(
      {
        id: "edit",
        label: t("layouts.action.edit"),
        icon: "edit",
        primary: true,
        title: t("layouts.action.edit.title"),
        disabled: locked,
        run: on.edit,
      },
      {
        id: "duplicate",
        label: t("layouts.action.duplicate"),
        icon: "copy",
        title: t("layouts.action.duplicate.title"),
        disabled: locked,
        run: on.duplicate,
      },
    );
  }
  actions.push({
    id: "export",
    label: t("layouts.action.export"),
    icon: "download",
    title: t("layouts.action.export.title"),
    run: on.exportLayout,
  });
  if (!imported) actions.push(deleteAction(locked, on.remove));
  return actions;
}

/**
 * @param {boolean} saved the layout was saved (Delete needs a name)
 * @param {Object} on what the buttons do
 * @param {() => void} on.exportDraft
 * @param {() => void} on.remove
 * @param {() => void} on.close
 * @returns {DashboardAction[]}
 */
export function editorActions(saved, on) {
  /** @type {DashboardAction[]} */
  const actions = [
    {
      id: "export",
      label: t("layouts.action.export"),
      icon: "download",
      title: t("layouts.action.exportDraft.title"),
      run: on.exportDraft,
    },
  ];
  // Always there: a new layout can be deleted as soon as it is saved
  // (the view's _saved enables it), without reopening the editor.
  actions.push(
    deleteAction(saved ? undefined : t("layouts.action.saveFirst"), on.remove),
  );
  actions.push({
    id: "close",
    label: t("layouts.action.close"),
    icon: "close",
    title: t("layouts.action.close.title"),
    run: on.close,
  });
  return actions;
}

/**
 * @param {string | null | undefined} disabled why it is disabled
 * @param {() => void} run
 * @returns {DashboardAction}
 */
function deleteAction(disabled, run) {
  return {
    id: "delete",
    label: t("layouts.action.delete"),
    icon: "delete",
    danger: true,
    title: t("layouts.action.delete.title"),
    disabled,
    run,
  };
}
