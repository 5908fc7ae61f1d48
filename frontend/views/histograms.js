// Histograms view (placeholder until the histogram routes land).
import { mountPlaceholder } from "./placeholder.js";

/**
 * @param {HTMLElement} root
 * @param {import("../app.js").ViewContext} ctx
 * @returns {() => void}
 */
export function mount(root, ctx) {
  return mountPlaceholder(root, ctx, {
    title: "Histograms",
    description:
      "Two runs' weight or activation histograms side by side, rebinned " +
      "onto common edges, with their difference and distances " +
      "(Wasserstein, Jensen–Shannon, Kolmogorov–Smirnov).",
  });
}
