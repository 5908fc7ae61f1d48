// A stand-in for a view that is not built yet. It shows what the view will
// do and the current run selection (so the shared selection is visible).

import { colorForRun } from "../colors.js";
import { h, setChildren } from "../dom.js";
import { plural } from "../format.js";
import { KEYS } from "../state.js";

/** Most selected runs listed before summarising the rest. */
const MAX_LISTED_RUNS = 40;

/**
 * @typedef {Object} PlaceholderSpec
 * @property {string} title
 * @property {string} description
 */

/**
 * @param {HTMLElement} root
 * @param {import("../app.js").ViewContext} ctx
 * @param {PlaceholderSpec} spec
 * @returns {() => void}
 */
export function mountPlaceholder(root, ctx, spec) {
  const runs = h("ul", { className: "tbmf-run-chips" });
  const caption = h("p", { className: "tbmf-muted" });
  root.append(
    h(
      "div",
      { className: "tbmf-placeholder" },
      h(
        "div",
        { className: "tbmf-placeholder__card" },
        h("span", { className: "tbmf-placeholder__badge", text: "Coming" }),
        h("h2", { text: spec.title }),
        h("p", { text: spec.description }),
        caption,
        runs,
      ),
    ),
  );

  const render = () => {
    const all = ctx.catalog.runs.map((r) => r.run);
    const selected = ctx.state.selectedRuns(all);
    caption.textContent = all.length
      ? `${plural(selected.length, "run")} selected in the Runs view:`
      : "";
    setChildren(
      runs,
      ...selected.slice(0, MAX_LISTED_RUNS).map((run) =>
        h(
          "li",
          { className: "tbmf-run-chip", dataset: { run } },
          h("span", {
            className: "tbmf-dot",
            style: { "--dot": colorForRun(run) },
          }),
          h("span", { text: run }),
        ),
      ),
      selected.length > MAX_LISTED_RUNS
        ? h("li", {
            className: "tbmf-muted",
            text: `+${selected.length - MAX_LISTED_RUNS} more`,
          })
        : null,
    );
  };
  const unsubscribe = [
    ctx.catalog.subscribe(render),
    ctx.state.subscribe((changed) => {
      if (changed.has(KEYS.selection)) render();
    }),
  ];
  render();
  return () => unsubscribe.forEach((fn) => fn());
}
