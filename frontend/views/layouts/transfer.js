// Layouts in and out as files. Export downloads a layout without its
// output-only keys as `<name>.layout.json`; Import reads a file (a layout or
// `{"layout": ...}`), validates it with a dry run of `layout_preview` and,
// when the name is taken, asks whether to replace the saved layout or
// import a copy. Saving is the view's.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { errorText } from "../../model.js";
import { previewLayout } from "./api.js";
import { showDialog } from "./dialog.js";
import {
  exportableLayout,
  exportFileName,
  MAX_IMPORT_BYTES,
  parseLayoutFile,
  uniqueName,
} from "./schema.js";

/** @typedef {import("./schema.js").Layout} Layout */

/** Milliseconds before an exported file's object URL is released. */
const REVOKE_DELAY_MS = 10000;

/**
 * Downloads `layout` as a .json file.
 * @param {Layout} layout
 */
export function downloadLayout(layout) {
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

/**
 * Reads, checks and names a layout file to import.
 * @param {File} file
 * @param {() => string[]} takenNames the saved layouts' names
 * @returns {Promise<{layout: Layout, overwrite: boolean} | {error: string} | null>}
 *     what to save, why the file cannot be imported, or null when the user
 *     cancelled
 */
export async function readImport(file, takenNames) {
  if (file.size > MAX_IMPORT_BYTES) {
    return {
      error: t("layouts.import.tooBig", {
        bytes: file.size,
        kib: MAX_IMPORT_BYTES / 1024,
      }),
    };
  }
  /** @type {Layout} */
  let layout;
  try {
    layout = exportableLayout(parseLayoutFile(await file.text()));
  } catch (error) {
    return { error: errorText(error) };
  }
  // A dry run: the preview validates without saving anything.
  try {
    const preview = await previewLayout(layout);
    if (preview.error) return { error: preview.error };
  } catch (error) {
    return { error: errorText(error) };
  }
  let overwrite = false;
  if (takenNames().includes(layout.name)) {
    const copy = uniqueName(layout.name, takenNames());
    const { value } = await showDialog({
      title: t("layouts.import.exists", { name: layout.name }),
      message: t("layouts.import.replaceOrCopy", { copy }),
      buttons: [
        { value: "cancel", label: t("common.cancel") },
        { value: "replace", label: t("layouts.import.replace"), kind: "danger" },
        { value: "copy", label: t("layouts.import.asCopy"), kind: "primary" },
      ],
    });
    if (value === "cancel") return null;
    if (value === "copy") layout = { ...layout, name: copy };
    overwrite = value === "replace";
  }
  return { layout, overwrite };
}
