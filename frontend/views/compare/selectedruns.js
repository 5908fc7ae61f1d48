// The Compare view's "Comparing N runs" line: a chip per run drawn (colour,
// name, remove button), on one line or in full.

import { h, icon, setChildren } from "../../dom.js";
import { formatInt } from "../../format.js";
import { t } from "../../i18n.js";
import { countText } from "../../intl.js";
import { markInput } from "../../perf.js";
import { styleFor } from "./colors.js";

/** @typedef {import("../../app.js").ViewContext} ViewContext */

/** Most selected runs shown as chips before summarising the rest. */
const MAX_LISTED_RUNS = 60;

export class SelectedRuns {
  /**
   * @param {ViewContext} ctx
   * @param {() => string[]} selectedRuns the runs the charts draw
   */
  constructor(ctx, selectedRuns) {
    this.ctx = ctx;
    this._selectedRuns = selectedRuns;
    /** The chips are shown in full (else one line). */
    this._open = false;
    this._chips = h("ul", {
      className: "tbmf-run-chips tbmf-cmp-chips",
      attrs: { "aria-label": t("cmp.selected") },
    });
    this._toggle = h("button", {
      className: "tbmf-cmp-selected__toggle",
      attrs: { type: "button", "aria-expanded": "false" },
      dataset: { action: "chips-toggle" },
      on: {
        click: () => {
          this._open = !this._open;
          this.render();
        },
      },
    });
    this.element = h(
      "div",
      { className: "tbmf-cmp__selected" },
      h("span", {
        className: "tbmf-cmp__selected-label",
        text: t("cmp.selected.comparing"),
      }),
      this._toggle,
      this._chips,
    );
  }

  render() {
    const runs = this._selectedRuns();
    const selection = this.ctx.state.selection;
    const total =
      selection === null ? this.ctx.catalog.runs.length : selection.size;
    const open = this._open;
    const summary =
      runs.length === total
        ? countText(runs.length, "count.run.")
        : countText(runs.length, "count.runOfSelected.", {
            total: formatInt(total),
          });
    this._toggle.textContent = `${summary} · ${
      open ? t("cmp.selected.less") : t("cmp.selected.edit")
    }`;
    this._toggle.title = open
      ? t("cmp.selected.less.help")
      : t("cmp.selected.edit.help");
    this._toggle.setAttribute("aria-expanded", String(open));
    this._toggle.hidden = runs.length === 0;
    this.element.classList.toggle("is-open", open);
    const items = runs.slice(0, MAX_LISTED_RUNS).map((run) => {
      const style = styleFor(run);
      return h(
        "li",
        { className: "tbmf-run-chip", dataset: { run } },
        h("span", {
          className: `tbmf-dot${style.dash ? " is-dashed" : ""}`,
          style: { "--dot": style.color },
        }),
        h("span", { className: "tbmf-cmp-chip__name", text: run }),
        h(
          "button",
          {
            className: "tbmf-cmp-chip__remove",
            title: t("cmp.selected.remove.help", { run }),
            attrs: {
              type: "button",
              "aria-label": t("cmp.selected.remove", { run }),
            },
            on: {
              click: (event) => {
                markInput("selection", event);
                this._deselect(run);
              },
            },
          },
          icon("close", { size: 12 }),
        ),
      );
    });
    if (runs.length > MAX_LISTED_RUNS) {
      items.push(
        h("li", {
          className: "tbmf-muted",
          text: t("cmp.selected.more", {
            n: formatInt(runs.length - MAX_LISTED_RUNS),
          }),
        }),
      );
    }
    if (runs.length === 0) {
      items.push(
        h("li", {
          className: "tbmf-muted",
          text: t("cmp.selected.none"),

        }),
      );
    }
    setChildren(this._chips, items);
  }

  /** @param {string} run */
  _deselect(run) {
    const all = this.ctx.catalog.runs.map((r) => r.run);
    const current = new Set(this.ctx.state.selectedRuns(all));
    current.delete(run);
    this.ctx.state.setSelection(current);
  }
}
