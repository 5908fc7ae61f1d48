// The Runs view's experiment bar: which metric the last / best columns
// summarise, the config diff toggle, and the hyper-parameters every shown
// run shares.

import { h } from "../../dom.js";
import { formatInt } from "../../format.js";
import { t } from "../../i18n.js";
import { MAX_DIFF_RUNS } from "./configdiff.js";
import { hparamText, KEY_METRIC } from "./experiment.js";

/** @typedef {import("../../app.js").ViewContext} ViewContext */
/** @typedef {import("./experiment.js").ExperimentData} ExperimentData */

/** State key: "1" shows the config diff of the selected runs. */
export const KEY_DIFF = "rd";

export class ExperimentBar {
  /** @param {ViewContext} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.metricSelect = h("select", {
      className: "tbmf-select",
      title: t("runs.exp.metric.help"),
      attrs: { "aria-label": t("runs.exp.metric") },
      dataset: { control: "metric" },
      on: {
        change: () =>
          this.ctx.state.update({
            [KEY_METRIC]: this.metricSelect.value || "-",
          }),
      },
    });
    this.diffButton = h("button", {
      className: "tbmf-button",
      attrs: { type: "button", "aria-pressed": "false" },
      dataset: { action: "config-diff" },
      on: {
        click: () => {
          if (this.diffButton.getAttribute("aria-disabled") === "true") return;
          this.ctx.state.update({
            [KEY_DIFF]: this.ctx.state.get(KEY_DIFF) === "1" ? null : "1",
          });
        },
      },
    });
    this.sameForAll = h("div", { className: "tbmf-same-for-all" });
    this.element = h(
      "div",
      { className: "tbmf-experiment-bar" },
      h(
        "label",
        { className: "tbmf-experiment-bar__metric" },
        h("span", { text: t("runs.exp.metric") }),
        this.metricSelect,
      ),
      this.diffButton,
      this.sameForAll,
    );
  }

  /**
   * @param {ExperimentData} experiment
   * @param {ReturnType<typeof import("./experiment.js").experimentColumns>} exp
   *     the shown experiment columns
   */
  render(experiment, exp) {
    const state = this.ctx.state;
    const key = experiment.metricKey(state.get(KEY_METRIC));
    const options = [
      h("option", { text: t("runs.infer.epoch.none"), attrs: { value: "" } }),
      ...experiment.metrics.map((m) =>
        h("option", { text: m.key, attrs: { value: m.key } }),
      ),
    ];
    if (key && !experiment.metrics.some((m) => m.key === key)) {
      options.push(h("option", { text: key, attrs: { value: key } }));
    }
    this.metricSelect.replaceChildren(...options);
    this.metricSelect.value = key ?? "";
    const all = this.ctx.catalog.runs.map((r) => r.run);
    const selected = state.selectedRuns(all).length;
    const open = state.get(KEY_DIFF) === "1";
    this.diffButton.textContent = open
      ? t("runs.diff.hide")
      : t("runs.diff.of", { n: formatInt(selected) });
    // aria-disabled, not disabled: the button stays focusable and its
    // title (why it is unavailable) shows on hover and to screen readers.
    const unavailable = !open && (selected < 2 || selected > MAX_DIFF_RUNS);
    this.diffButton.setAttribute("aria-disabled", String(unavailable));
    this.diffButton.title = !unavailable
      ? t("runs.diff.help")
      : t(selected < 2 ? "runs.diff.tooFew" : "runs.diff.tooMany", {
          n: formatInt(selected),
          most: MAX_DIFF_RUNS,
        });
    this.diffButton.setAttribute("aria-pressed", String(open));
    const { constant, hidden } = exp;
    const parts = constant.map(([k, v]) => `${k}=${hparamText(v)}`);
    this.sameForAll.hidden = parts.length === 0 && hidden === 0;
    this.sameForAll.replaceChildren(
      parts.length
        ? h("span", {
            className: "tbmf-same-for-all__label",
            text: t("runs.exp.same"),
          })
        : "",
      h("span", {
        className: "tbmf-same-for-all__values",
        text: parts.join(" · "),
      }),
      hidden
        ? h("span", {
            className: "tbmf-muted",
            text: t("runs.exp.hidden", { n: formatInt(hidden) }),

          })
        : "",
    );
  }
}
