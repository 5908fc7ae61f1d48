// The run picker of the Compare view: the shared run selection as a
// searchable list, Keras sub-runs under their group, each run with its
// chart colour (click it to pin another) and framework badge.
//
// The filter (state key `rq`, shared with the Layouts view) narrows the
// list; with a filter, "Select N" adds the matching runs and "Only" selects
// exactly them ("None" still clears everything), and "Charts:
// matching only" (`rqn`) makes the charts follow the filter as
// TensorBoard's run filter does.

import {
  colorScope,
  frameworkLabel,
  parsePinnedColors,
  pinColor,
  PINNED_COLORS_KEY,
  styleFor,
} from "../../colors.js";
import { frameworkBadge, h, icon } from "../../dom.js";
import { compileFilter, runMatcher, RUN_FILTER_KEYS } from "../../filter.js";
import { formatInt } from "../../format.js";
import { serverText, t } from "../../i18n.js";
import { countText } from "../../intl.js";
import { markInput } from "../../perf.js";
import { openColorPicker } from "./colorpicker.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */
/** @typedef {import("../../app.js").ViewContext} ViewContext */

/** Longest search text accepted, in characters. */
const MAX_SEARCH_LENGTH = 200;
/** Milliseconds of typing quiet before the filter applies. */
const SEARCH_DEBOUNCE_MS = 120;

export class RunPicker {
  /**
   * @param {ViewContext} ctx
   */
  constructor(ctx) {
    this.ctx = ctx;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._searchTimer = null;
    /** The rows drawn, by run or group, with what each shows. */
    /** @type {Map<string, {look: string, element: HTMLElement}>} */
    this._rows = new Map();
    /** Pinned colours as of the last render. */
    /** @type {Map<string, string>} */
    this._pins = new Map();
    this._search = h("input", {
      className: "tbmf-cmp-search__input",
      attrs: {
        type: "search",
        placeholder: t("cmp.runs.filter.placeholder"),
        "aria-label": t("cmp.runs.filter"),
        spellcheck: "false",
        autocomplete: "off",
        maxlength: MAX_SEARCH_LENGTH,
      },
      dataset: { control: "run-search" },
      on: { input: () => this._onSearchInput() },
    });
    this._search.value = this._query();
    this._count = h("span", { className: "tbmf-cmp-card__count" });
    this._filterNote = h("div", {
      className: "tbmf-cmp-search__note",
      attrs: { hidden: true, "aria-live": "polite" },
    });
    this._narrow = h("input", {
      attrs: { type: "checkbox" },
      dataset: { control: "run-filter-narrows" },
      on: {
        change: (event) => {
          markInput("filter-narrows", event);
          ctx.state.update({
            [RUN_FILTER_KEYS.narrow]: this._narrow.checked ? "1" : null,
          });
        },
      },
    });
    this._narrowBox = h(
      "label",
      {
        className: "tbmf-cmp-search__narrow",
        title: t("cmp.runs.narrow.help"),
      },
      this._narrow,
      h("span", { text: t("cmp.runs.narrow") }),
    );
    this._actions = h("span", { className: "tbmf-cmp-card__actions" });
    this._list = h("ul", {
      className: "tbmf-cmp-runs",
      attrs: { "aria-label": t("cmp.runs") },
    });
    this.element = h(
      "section",
      { className: "tbmf-cmp-card tbmf-cmp-card--runs" },
      h(
        "header",
        { className: "tbmf-cmp-card__head" },
        h("h2", { className: "tbmf-cmp-card__title", text: t("cmp.runs") }),
        this._count,
        this._actions,
      ),
      h(
        "label",
        { className: "tbmf-cmp-search" },
        icon("search", { size: 16 }),
        this._search,
      ),
      this._filterNote,
      this._narrowBox,
      this._list,
    );
  }

  /** @returns {string} the filter text in the state */
  _query() {
    return this.ctx.state.get(RUN_FILTER_KEYS.query);
  }

  _onSearchInput() {
    if (this._searchTimer !== null) clearTimeout(this._searchTimer);
    this._searchTimer = setTimeout(() => {
      this._searchTimer = null;
      this.ctx.state.update({
        [RUN_FILTER_KEYS.query]: this._search.value.trim() || null,
      });
    }, SEARCH_DEBOUNCE_MS);
  }

  /**
   * The header's buttons: All / None, or with a filter the same acting on
   * the matching runs.
   * @param {string[]} matching names of the runs the filter keeps
   * @param {boolean} filtered
   */
  _renderActions(matching, filtered) {
    const state = this.ctx.state;
    const button = (
      /** @type {string} */ text,
      /** @type {string} */ title,
      /** @type {string} */ action,
      /** @type {() => void} */ run,
    ) =>
      h("button", {
        className: "tbmf-button tbmf-button--text",
        text,
        title,
        attrs: { type: "button" },
        dataset: { action },
        on: {
          click: (event) => {
            markInput("selection", event);
            run();
          },
        },
      });
    if (!filtered) {
      this._actions.replaceChildren(
        button(
          t("cmp.runs.all"),
          t("cmp.runs.all.help"),
          "runs-all",
          () => state.setSelection(null),
        ),
        button(t("cmp.runs.none"), t("cmp.runs.none.help"), "runs-none", () =>
          state.setSelection([]),
        ),
      );
      return;
    }
    const n = formatInt(matching.length);
    this._actions.replaceChildren(
      button(
        t("cmp.runs.selectN", { n }),
        t("cmp.runs.selectN.help", { n }),
        "runs-all",
        () => this._setSelected(matching, true),
      ),
      button(
        t("cmp.runs.only"),
        t("cmp.runs.only.help", { n }),
        "runs-only",
        () => state.setSelection(matching),
      ),
      button(
        t("cmp.runs.none"),
        t("cmp.runs.none.filtered.help"),
        "runs-none",
        () => state.setSelection([]),
      ),
    );
  }

  render() {
    const { catalog, state } = this.ctx;
    const all = catalog.runs;
    const selected = state.selectedRuns(all.map((r) => r.run));
    const query = this._query();
    if (this._searchTimer === null && document.activeElement !== this._search) {
      this._search.value = query;
    }
    const filter = compileFilter(query);
    this._filterNote.hidden = !filter.note;
    this._filterNote.textContent = filter.note;
    this._narrowBox.hidden = !query;
    this._narrow.checked = state.get(RUN_FILTER_KEYS.narrow) === "1";
    this._count.textContent = all.length
      ? t("cmp.runs.count", {
          n: formatInt(selected.length),
          total: formatInt(all.length),
        })
      : "";
    const matches = runMatcher(query);
    const visible = all.filter(matches);
    this._renderActions(
      visible.map((r) => r.run),
      Boolean(query),
    );
    if (catalog.pending) {
      this._list.replaceChildren(
        h("li", {
          className: "tbmf-cmp-runs__empty",
          text: t("shell.loadingRuns"),
        }),
      );
      return;
    }
    if (visible.length === 0) {
      this._list.replaceChildren(
        h("li", {
          className: "tbmf-cmp-runs__empty",
          text: all.length ? t("cmp.runs.noMatch") : t("cmp.runs.noRuns"),
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
    this._pins = parsePinnedColors(state.get(PINNED_COLORS_KEY));
    /** @type {HTMLElement[]} */
    const items = [];
    /** @type {Map<string, {look: string, element: HTMLElement}>} */
    const rows = new Map();
    // A row is built again only when what it shows changed (a selection
    // change rebuilt all 50 rows, and the page's layout with them).
    const row = (
      /** @type {string} */ key,
      /** @type {unknown[]} */ shows,
      /** @type {() => HTMLElement} */ build,
    ) => {
      const look = JSON.stringify(shows);
      const before = this._rows.get(key);
      const element = before?.look === look ? before.element : build();
      rows.set(key, { look, element });
      items.push(element);
    };
    for (const [group, members] of groups) {
      const grouped = members.length > 1 || members[0].group !== members[0].run;
      if (!grouped) {
        row(`run:${members[0].run}`, this._runLook(members[0], false), () =>
          this._runItem(members[0], false),
        );
        continue;
      }
      const count = members.filter((r) => state.isSelected(r.run)).length;
      const names = members.map((r) => [r.run, r.framework]);
      row(`group:${group}`, [group, count, names], () =>
        this._groupItem(group, members),
      );
      for (const run of members) {
        row(`run:${run.run}`, this._runLook(run, true), () =>
          this._runItem(run, true),
        );
      }
    }
    this._rows = rows;
    const shown = this._list.children;
    if (shown.length !== items.length) {
      this._list.replaceChildren(...items);
      return;
    }
    items.forEach((element, i) => {
      if (shown[i] !== element) shown[i].replaceWith(element);
    });
  }

  /**
   * Everything a run's row shows (`_runItem`), to tell when to rebuild it.
   * @param {RunInfo} run
   * @param {boolean} inGroup
   * @returns {unknown[]}
   */
  _runLook(run, inGroup) {
    const style = styleFor(run.run);
    return [
      run.run,
      run.group,
      run.displayName,
      run.framework,
      run.writer,
      run.numPoints,
      run.epochSource,
      inGroup,
      this.ctx.state.isSelected(run.run),
      style.color,
      style.dash ?? null,
      colorScope.onScreen(run.run),
      this._pins.has(run.run),
    ];
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
      attrs: {
        type: "checkbox",
        "aria-label": t("cmp.runs.selectGroup", { group }),
      },
      dataset: { group },
      on: {
        change: (event) => {
          markInput("selection", event);
          this._setSelected(
            members.map((r) => r.run),
            count < members.length,
          );
        },
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
          text: countText(members.length, "count.run."),
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
      attrs: {
        type: "checkbox",
        "aria-label": t("cmp.runs.selectRun", { run: run.run }),
      },
      dataset: { run: run.run },
      on: {
        change: (event) => {
          markInput("selection", event);
          this._setSelected([run.run], !selected);
        },
      },
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
          `${frameworkLabel(run.framework)} · ${
            run.writer || t("cmp.runs.unknownWriter")
          }`,
          t("cmp.runs.scalarPoints", { n: formatInt(run.numPoints) }),
          run.epochSource
            ? t("cmp.runs.epochsFrom", {
                source: serverText(
                  /** @type {any} */ (run).epochSourceMessage,
                  run.epochSource,
                ),
              })
            : "",

        ]
          .filter(Boolean)
          .join("\n"),
      },
      h(
        "label",
        { className: "tbmf-cmp-run__label" },
        checkbox,
        this._swatch(run.run),
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

  /**
   * The run's colour as drawn (hollow when the run is not on screen); a
   * click opens the picker that pins another.
   * @param {string} run
   * @returns {HTMLElement}
   */
  _swatch(run) {
    const style = styleFor(run);
    const onScreen = colorScope.onScreen(run);
    const pinned = this._pins.has(run);
    const button = h("button", {
      className: `tbmf-cmp-run__swatch${onScreen ? "" : " is-off"}${
        pinned ? " is-pinned" : ""
      }${style.dash ? " is-dashed" : ""}`,
      title: pinned
        ? t("cmp.color.pinned", { color: style.color })
        : t("cmp.color.pin"),
      style: { "--swatch": style.color },
      attrs: { type: "button", "aria-label": t("cmp.color.of", { run }) },

      dataset: { colorOf: run, color: style.color },
      on: {
        click: (event) => {
          event.preventDefault();
          openColorPicker(button, {
            run,
            color: style.color,
            pinned,
            onPick: (color) => {
              markInput("color", event);
              pinColor(this.ctx.state, run, color);
            },
          });
        },
      },
    });
    return button;
  }
}
