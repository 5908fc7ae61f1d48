// Compare view (placeholder until the scalars route lands).
import { mountPlaceholder } from "./placeholder.js";

/**
 * @param {HTMLElement} root
 * @param {import("../app.js").ViewContext} ctx
 * @returns {() => void}
 */
export function mount(root, ctx) {
  return mountPlaceholder(root, ctx, {
    title: "Compare",
    description:
      "The same metric from every selected run on one chart, whatever the " +
      "framework: shared x axis (step, epoch, relative or wall time, " +
      "progress), smoothing, min/max bands and difference curves against " +
      "a baseline run.",
  });
}
