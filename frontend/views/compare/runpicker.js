// The run picker of the Compare view: the shared run selection as a
// searchable list, Keras sub-runs under their group, each run with its
// chart colour and framework badge.

import { frameworkLabel } from "../../colors.js";
import { frameworkBadge, h, icon } from "../../dom.js";
import { formatInt } from "../../format.js";
import { runColor } from "./colors.js";
import { runMatcher } from "../../filter.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */
/** @typedef {import("../../app.js").ViewContext} ViewContext */

/** Longest search text accepted, in characters. */
const MAX_SEARCH_LENGTH = 200;

export class RunPicker {
  /**
   * @param {ViewContext} ctx
   */
  constructor(ctx) {
    this.ctx = ctx;
    this._query = "";
    this._search = h("input", {
      className: "tbmf-cmp-search__input",
      attrs: {
        type: "search",
        placeholder: "Search runs",
        "aria-label": "Search runs",
        spellcheck: "false",
        autocomplete: "off",
        maxlength: MAX_SEARCH_LENGTH,
      },
      dataset: { control: "run-search" },
      on: {
        input: () => {
          this._query = this._search.value.trim();
          this.render();
        },
      },
    });
    this._count = h("span", { className: "tbmf-cmp-card__count" });
    this._list = h("ul", {
      className: "tbmf-cmp-runs",
      attrs: { "aria-label": "Runs" },
    });
    this.element = h(
      "section",
      { className: "tbmf-cmp-card tbmf-cmp-card--runs" },
      h(
        "header",
        { className: "tbmf-cmp-card__head" },
        h("h2", { className: "tbmf-cmp-card__title", text: "Runs" }),
        this._count,
        h(
          "span",
          { className: "tbmf-cmp-card__actions" },
          h("button", {
            className: "tbmf-button tbmf-button--text",
            text: "All",
            title: "Select every run (runs that appear later too)",
            attrs: { type: "button" },
            dataset: { action: "runs-all" },
            on: { click: () => ctx.state.setSelection(null) },
          }),
          h("button", {
            className: "tbmf-button tbmf-button--text",
            text: "None",
            title: "Clear the selection",
            attrs: { type: "button" },
            dataset: { action: "runs-none" },
            on: { click: () => ctx.state.setSelection([]) },
          }),
        ),
      ),
      h(
        "label",
        { className: "tbmf-cmp-search" },
        icon("search", { size: 16 }),
        this._search,
      ),
      this._list,
    );
  }

  render() {
    const { catalog, state } = this.ctx;
    const all = catalog.runs;
    const selected = state.selectedRuns(all.map((r) => r.run));
    this._count.textContent = all.length
      ? `${formatInt(selected.length)} of ${formatInt(all.length)}`
      : "";
    if (catalog.pending) {
      this._list.replaceChildren(
        h("li", { className: "tbmf-cmp-runs__empty", text: "Loading runs…" }),
      );
      return;
    }
    const matches = runMatcher(this._query);
    const visible = all.filter(matches);
    if (visible.length === 0) {
      this._list.replaceChildren(
        h("li", {
          className: "tbmf-cmp-runs__empty",
          text: all.length ? "No run matches." : "No runs yet.",
        }),
      );
      return;
    }
    /** @type {Map<string, RunInfo[]>} */
    const groups = new Map();
    for (const run of [...visible].sort((a, b) =>
      a.run < b.run ? -1 : a.run > b.run ? 1 : 0,
    )) {
      const members = groups.get(run.group);
      if (members) members.push(run);
      else groups.set(run.group, [run]);
    }
    /** @type {HTMLElement[]} */
    const items = [];
    for (const [group, members] of groups) {
      const grouped = members.length > 1 || members[0].group !== members[0].run;
      if (!grouped) {
        items.push(this._runItem(members[0], false));
        continue;
      }
      items.push(this._groupItem(group, members));
      for (const run of members) items.push(this._runItem(run, true));
    }
    this._list.replaceChildren(...items);
  }

  /**
   * @param {string[]} runs
   * @param {boolean} select
   */
  _setSelected(runs, select) {
    const all = this.ctx.catalog.runs.map((r) => r.run);
    this.ctx.state.changeSelection(all, runs, select);
  }

  /**
   * @param {string} group
   * @param {RunInfo[]} members
   * @returns {HTMLElement}
   */
  _groupItem(group, members) {
    const state = this.ctx.state;
    const count = members.filter((r) => state.isSelected(r.run)).length;
    const checkbox = h("input", {
      attrs: { type: "checkbox", "aria-label": `Select group ${group}` },
      dataset: { group },
      on: {
        change: () =>
          this._setSelected(
            members.map((r) => r.run),
            count < members.length,
          ),
      },
    });
    checkbox.checked = count === members.length;
    checkbox.indeterminate = count > 0 && count < members.length;
    const frameworks = [...new Set(members.map((r) => r.framework))];
    return h(
      "li",
      { className: "tbmf-cmp-run tbmf-cmp-run--group" },
      h(
        "label",
        { className: "tbmf-cmp-run__label" },
        checkbox,
        h("span", { className: "tbmf-cmp-run__name", text: group }),
        h("span", {
          className: "tbmf-cmp-run__sub",
          text: `${members.length} runs`,
        }),
        h(
          "span",
          { className: "tbmf-cmp-run__end" },
          frameworks.map((f) => frameworkBadge(f, "tbmf-cmp-fw")),
        ),
      ),
    );
  }

  /**
   * @param {RunInfo} run
   * @param {boolean} inGroup
   * @returns {HTMLElement}
   */
  _runItem(run, inGroup) {
    const selected = this.ctx.state.isSelected(run.run);
    const checkbox = h("input", {
      attrs: { type: "checkbox", "aria-label": `Select run ${run.run}` },
      dataset: { run: run.run },
      on: { change: () => this._setSelected([run.run], !selected) },
    });
    checkbox.checked = selected;
    const prefix = `${run.group}/`;
    const short =
      inGroup && run.run.startsWith(prefix)
        ? run.run.slice(prefix.length)
        : run.run;
    return h(
      "li",
      {
        className: `tbmf-cmp-run${selected ? " is-selected" : ""}${
          inGroup ? " is-member" : ""
        }`,
        dataset: { run: run.run },
        title: [
          run.run,
          `${frameworkLabel(run.framework)} · ${run.writer || "unknown writer"}`,
          `${formatInt(run.numPoints)} scalar points`,
          run.epochSource ? `epochs from: ${run.epochSource}` : "",
        ]
          .filter(Boolean)
          .join("\n"),
      },
      h(
        "label",
        { className: "tbmf-cmp-run__label" },
        checkbox,
        h("span", {
          className: "tbmf-cmp-run__swatch",
          style: { "--swatch": runColor(this.ctx.catalog, run.run) },
        }),
        h("span", {
          className: "tbmf-cmp-run__name",
          text: run.displayName || short,
        }),
        inGroup
          ? null
          : h(
              "span",
              { className: "tbmf-cmp-run__end" },
              frameworkBadge(run.framework, "tbmf-cmp-fw"),
            ),
      ),
    );
  }
}
