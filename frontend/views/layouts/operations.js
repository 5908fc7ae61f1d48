// What the Layouts view does to saved layouts on the user's word: save a
// copy (Duplicate), delete one (after asking), import one from a file
// (transfer.js reads and checks it). Each tells the user with a toast or an
// error under the list, then steers the view through an explicit host.

import { t } from "../../i18n.js";
import { errorText } from "../../model.js";
import { deleteLayout, saveLayout } from "./api.js";
import { confirmDialog } from "./dialog.js";
import { exportableLayout, uniqueName } from "./schema.js";
import { readImport } from "./transfer.js";
import { LAYOUT_KEYS } from "./view_state.js";

/**
 * @typedef {import("./schema.js").Layout} Layout
 *
 * @typedef {Object} OperationsHost what the operations need from the view
 * @property {import("../../app.js").ViewContext} ctx
 * @property {import("./drafts.js").DraftGuard} guard unsaved edits
 * @property {() => string[]} names the saved layouts' names
 * @property {() => string | null | undefined} path where layouts are saved
 * @property {(name: string) => void} dropLayout routes without `name`
 *     before the list comes back
 * @property {() => void} forgetShown the next route rebuilds what is shown
 * @property {(text: string | null) => void} setImportError
 * @property {() => void} renderList
 * @property {() => Promise<void>} reload fetches the layouts, then routes
 * @property {(patch: Record<string, string | null>) => Promise<void>}
 *     navigate changes the URL after asking about unsaved edits
 */

/**
 * Saves a copy of `layout` under a free name and opens it in the editor.
 * @param {OperationsHost} host
 * @param {Layout} layout
 */
export async function duplicateLayout(host, layout) {
  if (host.guard.unsaved() && !(await host.guard.askDiscard())) return;
  const name = uniqueName(
    t("layouts.copyName", { name: layout.name }),
    host.names(),
  );
  let saved;
  try {
    saved = await saveLayout(exportableLayout({ ...layout, name }), {
      overwrite: false,
    });
  } catch (error) {
    host.ctx.toast(
      t("layouts.duplicateError", { error: errorText(error) }),
      "error",
    );
    return;
  }
  host.ctx.toast(t("layouts.savedCopy", { name: saved.name }));
  await host.reload();
  await host.navigate({
    [LAYOUT_KEYS.name]: saved.name,
    [LAYOUT_KEYS.imported]: null,
    [LAYOUT_KEYS.edit]: "1",
  });
}

/**
 * Deletes the saved layout `name` once the user confirms.
 * @param {OperationsHost} host
 * @param {string} name
 */
export async function removeLayout(host, name) {
  const ok = await confirmDialog({
    title: t("layouts.delete.title", { name }),
    message: t("layouts.delete.message", {
      path: host.path() ?? t("layouts.delete.theFile"),
    }),
    confirm: t("layouts.delete.confirm"),
    danger: true,
  });
  if (!ok) return;
  try {
    await deleteLayout(name);
  } catch (error) {
    host.ctx.toast(
      t("layouts.deleteError", { error: errorText(error) }),
      "error",
    );
    return;
  }
  host.guard.discard();
  host.ctx.toast(t("layouts.deleted", { name }));
  host.dropLayout(name);
  host.forgetShown();
  host.ctx.state.update({
    [LAYOUT_KEYS.name]: null,
    [LAYOUT_KEYS.imported]: null,
    [LAYOUT_KEYS.edit]: null,
  });
  await host.reload();
}

/**
 * Imports a layout file and opens the saved layout.
 * @param {OperationsHost} host
 * @param {File} file
 */
export async function importLayout(host, file) {
  if (host.guard.unsaved() && !(await host.guard.askDiscard())) return;
  const fail = (/** @type {string} */ why) => {
    host.setImportError(t("layouts.importError", { file: file.name, why }));
    host.renderList();
  };
  const chosen = await readImport(file, host.names);
  if (chosen === null) return;
  if ("error" in chosen) {
    fail(chosen.error);
    return;
  }
  let saved;
  try {
    saved = await saveLayout(chosen.layout, { overwrite: chosen.overwrite });
  } catch (error) {
    fail(errorText(error));
    return;
  }
  host.setImportError(null);
  host.ctx.toast(t("layouts.imported", { name: saved.name }));
  host.forgetShown();
  await host.reload();
  await host.navigate({
    [LAYOUT_KEYS.name]: saved.name,
    [LAYOUT_KEYS.imported]: null,
    [LAYOUT_KEYS.edit]: null,
  });
}
