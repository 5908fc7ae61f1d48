// The config diff of 2+ selected runs (GET config_diff), side by side:
// one column a run, the keys that differ first (highlighted), the keys
// every run shares folded under one line.

import { fetchJson, LatestRequest } from "../../model.js";
import { h, setChildren } from "../../dom.js";
import { t } from "../../i18n.js";
import { countText } from "../../intl.js";
import { hparamText } from "./experiment.js";

/** Most runs in one diff (the route's cap). */
export const MAX_DIFF_RUNS = 20;

export class ConfigDiffPanel {
  constructor() {
    this._request = new LatestRequest();
    /** @type {string} */
    this._shown = "";
    this._showSame = false;
    /** @type {any} */
    this._last = null;
    this.element = h("section", {
      className: "tbmf-config-diff",
      attrs: { "aria-label": t("runs.diff") },
      dataset: { state: "empty" },
    });
    this.element.hidden = true;
  }

  /**
   * Shows the diff of `runs`, or hides the panel (null).
   * @param {string[] | null} runs
   * @param {boolean} force fetch again (the data changed)
   */
  async show(runs, force = false) {
    if (!runs) {
      this._request.cancel();
      this._shown = "";
      this.element.hidden = true;
      return;
    }
    this.element.hidden = false;
    if (runs.length < 2 || runs.length > MAX_DIFF_RUNS) {
      this._request.cancel();
      this._shown = "";
      this.element.dataset.state = "empty";
      setChildren(
        this.element,
        h("p", {
          className: "tbmf-muted",
          text:
            runs.length < 2
              ? t("runs.diff.selectTwo")
              : t("runs.diff.selectAtMost", { most: MAX_DIFF_RUNS }),
        }),
      );
      return;
    }
    const signature = runs.join("\n");
    if (!force && signature === this._shown) return;
    this._shown = signature;
    this.element.dataset.state = "loading";
    const outcome = await this._request.run((signal) =>
      fetchJson("config_diff", { run: runs }, { signal }),
    );
    if (outcome.stale) return;
    if (outcome.error) {
      this.element.dataset.state = "error";
      setChildren(
        this.element,
        h("p", { className: "tbmf-error-text", text: outcome.error.message }),
      );
      return;
    }
    this._last = outcome.value;
    this._render();
  }

  _render() {
    const body = this._last;
    const runs = /** @type {string[]} */ (body.runs);
    const differing = body.keys.filter((/** @type {any} */ k) => k.differs);
    const same = body.keys.filter((/** @type {any} */ k) => !k.differs);
    const rows = [];
    for (const key of differing) rows.push(this._row(key, runs, true));
    if (same.length) {
      rows.push(
        h(
          "tr",
          { className: "tbmf-config-diff__fold" },
          h(
            "td",
            { attrs: { colspan: runs.length + 1 } },
            h("button", {
              className: "tbmf-button tbmf-button--text",
              text: countText(
                same.length,
                this._showSame ? "runs.diff.hideSame." : "runs.diff.showSame.",
              ),
              attrs: {
                type: "button",
                "aria-expanded": String(this._showSame),
              },
              dataset: { action: "toggle-same" },
              on: {
                click: () => {
                  this._showSame = !this._showSame;
                  this._render();
                },
              },
            }),
          ),
        ),
      );
      if (this._showSame)
        for (const key of same) rows.push(this._row(key, runs, false));
    }
    this.element.dataset.state = "ready";
    setChildren(
      this.element,
      h(
        "header",
        { className: "tbmf-config-diff__head" },
        h("h3", { text: t("runs.diff") }),
        h("span", {
          className: "tbmf-muted",
          text: body.keys.length
            ? t("runs.diff.counts", {
                differ: countText(differing.length, "count.key."),
                same: countText(same.length, "count.key."),
              })
            : t("runs.diff.noHparams"),
        }),
      ),
      h(
        "div",
        { className: "tbmf-table-wrap" },
        h(
          "table",
          { className: "tbmf-table tbmf-config-diff__table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { text: t("runs.diff.key"), attrs: { scope: "col" } }),
              runs.map((run) =>
                h(
                  "th",
                  { attrs: { scope: "col" }, title: run },
                  h("span", { text: run }),
                  h("span", {
                    className: "tbmf-muted tbmf-config-diff__hash",
                    text: body.configHashes?.[run] || "",
                  }),
                ),
              ),
            ),
          ),
          h("tbody", {}, rows),
        ),
      ),
    );
  }

  /**
   * @param {any} key
   * @param {string[]} runs
   * @param {boolean} differs
   * @returns {HTMLTableRowElement}
   */
  _row(key, runs, differs) {
    const missing = new Set(key.missing ?? []);
    return h(
      "tr",
      {
        className: differs ? "is-different" : "",
        dataset: { key: key.key },
      },
      h("th", { text: key.key, attrs: { scope: "row" } }),
      runs.map((run) =>
        h("td", {
          className: missing.has(run) ? "tbmf-muted" : "",
          text: missing.has(run)
            ? t("runs.diff.notSet")
            : hparamText(key.values[run]),

          dataset: { run },
        }),
      ),
    );
  }

  destroy() {
    this._request.cancel();
  }
}
