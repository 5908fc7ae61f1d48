// The Metrics view: every metric of the selected runs at a glance, a card
// each (views/metrics/), with a step table per card.

import { ensureStylesheet } from "../dom.js";
import { MetricsView } from "./metrics/view.js";

/**
 * @param {HTMLElement} root
 * @param {import("../app.js").ViewContext} ctx
 * @returns {() => void}
 */
export function mount(root, ctx) {
  ensureStylesheet(new URL("./compare.css", import.meta.url));
  ensureStylesheet(new URL("./metrics.css", import.meta.url));
  const view = new MetricsView(root, ctx);
  return () => view.destroy();
}
