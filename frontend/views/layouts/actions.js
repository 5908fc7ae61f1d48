// The buttons in the head of an open layout, with their labels, icons,
// titles and why one is disabled: on its dashboard (Edit, or Duplicate to
// edit for the logged layout; Duplicate, Export, Delete) and in its editor
// (Export, Delete, Close). What they do is the Layouts view's, handed in.

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
      label: "Duplicate to edit",
      icon: "copy",
      primary: true,
      title: "Save a copy of this layout as your own and edit it",
      disabled: locked,
      run: on.duplicate,
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
        run: on.edit,
      },
      {
        id: "duplicate",
        label: "Duplicate",
        icon: "copy",
        title: "Save a copy under a new name and edit it",
        disabled: locked,
        run: on.duplicate,
      },
    );
  }
  actions.push({
    id: "export",
    label: "Export",
    icon: "download",
    title: "Download this layout as a .json file",
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
      label: "Export",
      icon: "download",
      title: "Download the layout as it is in the editor, as .json",
      run: on.exportDraft,
    },
  ];
  // Always there: a new layout can be deleted as soon as it is saved
  // (the view's _saved enables it), without reopening the editor.
  actions.push(
    deleteAction(saved ? undefined : "Save the layout first", on.remove),
  );
  actions.push({
    id: "close",
    label: "Close",
    icon: "close",
    title: "Leave the editor",
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
    label: "Delete",
    icon: "delete",
    danger: true,
    title: "Delete this layout",
    disabled,
    run,
  };
}
