// Layouts view (placeholder until the layouts route lands).
import { mountPlaceholder } from "./placeholder.js";

/**
 * @param {HTMLElement} root
 * @param {import("../app.js").ViewContext} ctx
 * @returns {() => void}
 */
export function mount(root, ctx) {
  return mountPlaceholder(root, ctx, {
    title: "Layouts",
    description:
      "Dashboards of charts grouped in categories: the custom-scalar " +
      "layouts your runs logged, and your own, saved from here.",
  });
}
