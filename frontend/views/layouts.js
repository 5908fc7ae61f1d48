// The Layouts view: custom-scalar dashboards. The layout the runs logged
// (read-only, merged across runs as TensorBoard does) and the user's own,
// created, edited, duplicated, renamed, deleted, exported and imported
// here. The code lives in views/layouts/ (see frontend/README.md).

import { ensureStylesheet } from "../dom.js";
import { LayoutsView } from "./layouts/view.js";

/**
 * @param {HTMLElement} root
 * @param {import("../app.js").ViewContext} ctx
 * @returns {() => void}
 */
export function mount(root, ctx) {
  ensureStylesheet(new URL("./compare.css", import.meta.url));
  ensureStylesheet(new URL("./layouts.css", import.meta.url));
  const view = new LayoutsView(root, ctx);
  return () => view.destroy();
}
