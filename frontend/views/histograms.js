// Histograms view: two runs' weight or gradient histograms compared at
// aligned positions (side by side, overlaid, difference), their distances,
// the distance over training, and each run's histograms over time.
// The work lives in histograms/ (view.js is the entry).

import { ensureStylesheet } from "../dom.js";
import { HistogramsView } from "./histograms/view.js";

/**
 * @param {HTMLElement} root
 * @param {import("../app.js").ViewContext} ctx
 * @returns {() => void}
 */
export function mount(root, ctx) {
  ensureStylesheet(new URL("./histograms.css", import.meta.url));
  const view = new HistogramsView(root, ctx);
  return () => view.destroy();
}
