// The pair picker: run A / tag A, run B / tag B (with framework badges,
// element counts and gradient marks), a swap button, and the pairs the
// server suggests (`histogram_pairs`), one click to use.

import { frameworkColor, frameworkLabel } from "../../colors.js";
import { h, setChildren } from "../../dom.js";
import { formatValue } from "../../format.js";
import { serverText, t } from "../../i18n.js";
import { formatInteger as formatInt } from "../../intl.js";
import { isGradientTag } from "./model.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */
/** @typedef {import("./model.js").PairsPayload} PairsPayload */
/** @typedef {import("./model.js").TagInfo} TagInfo */

/** Suggested pairs listed before "show all". */
const MAX_SUGGESTIONS_SHOWN = 6;

/**
 * @typedef {Object} PickerModel
 * @property {RunInfo[]} runs runs that have histograms
 * @property {string} runA
 * @property {string} tagA
 * @property {string} runB
 * @property {string} tagB
 * @property {{a: string, b: string}} colors
 * @property {PairsPayload | null} pairs for runA/runB, when loaded
 * @property {boolean} pairsLoading
 * @property {string | null} pairsError
 */

export class PairPicker {
  /**
   * @param {(patch: Record<string, string | null>) => void} onChange state
   *     patch with the keys `runA`, `tagA`, `runB`, `tagB`
   */
  constructor(onChange) {
    this._onChange = onChange;
    this._showAll = false;
    /** @type {PickerModel | null} */
    this._model = null;
    this._sideA = new Side("a", (patch) => this._onChange(patch));
    this._sideB = new Side("b", (patch) => this._onChange(patch));
    this._swap = h(
      "button",
      {
        className: "tbmf-icon-button tbmf-hist-swap",
        title: t("hist.pair.swap"),
        attrs: { type: "button", "aria-label": t("hist.pair.swap") },
        dataset: { role: "swap" },
        on: { click: () => this._swapSides() },
      },
      swapIcon(),
    );
    this._list = h("ul", {
      className: "tbmf-hist-suggest__list",
      dataset: { role: "suggestions" },
    });
    this._suggestNote = h("span", { className: "tbmf-muted" });
    this._more = h("button", {
      className: "tbmf-button tbmf-button--text",
      attrs: { type: "button" },
      on: {
        click: () => {
          this._showAll = !this._showAll;
          if (this._model) this.render(this._model);
        },
      },
    });
    this.element = h(
      "section",
      { className: "tbmf-hist-card tbmf-hist-pair" },
      h(
        "div",
        { className: "tbmf-hist-pair__sides" },
        this._sideA.element,
        this._swap,
        this._sideB.element,
      ),
      h(
        "div",
        { className: "tbmf-hist-suggest" },
        h(
          "div",
          { className: "tbmf-hist-suggest__head" },
          h("h3", { className: "tbmf-hist-heading", text: t("hist.pair.suggested") }),
          this._suggestNote,
        ),
        this._list,
        this._more,
      ),
    );
  }

  /** @param {PickerModel} model */
  render(model) {
    this._model = model;
    const { pairs } = model;
    const ready = pairs !== null && pairs.runA === model.runA;
    this._sideA.render(model.runs, model.runA, model.tagA, model.colors.a, {
      tags: ready ? pairs.tagsA : null,
    });
    this._sideB.render(model.runs, model.runB, model.tagB, model.colors.b, {
      tags: ready ? pairs.tagsB : null,
    });
    this._renderSuggestions(model);
  }

  /** @param {PickerModel} model */
  _renderSuggestions(model) {
    const { pairs } = model;
    this._more.hidden = true;
    if (model.pairsError) {
      this._suggestNote.textContent = "";
      setChildren(
        this._list,
        h("li", {
          className: "tbmf-hist-suggest__message tbmf-hist-error",
          text: t("hist.pair.suggestError", { error: model.pairsError }),
        }),
      );
      return;
    }
    if (pairs === null || model.pairsLoading) {
      this._suggestNote.textContent = "";
      this._list.classList.add("is-loading");
      if (pairs === null) {
        setChildren(
          this._list,
          h("li", {
            className: "tbmf-hist-suggest__message",
            text: t("hist.pair.matching"),
          }),
        );
      }
      return;
    }
    this._list.classList.remove("is-loading");
    this._suggestNote.textContent = t("hist.pair.matchedBy");
    if (pairs.pairs.length === 0) {
      setChildren(
        this._list,
        h("li", {
          className: "tbmf-hist-suggest__message",
          text: t("hist.pair.noMatch"),
        }),
      );
      return;
    }
    /** @type {Map<string, number | null>} */
    const counts = new Map();
    for (const info of pairs.tagsA) counts.set(`a:${info.tag}`, info.elementCount);
    for (const info of pairs.tagsB) counts.set(`b:${info.tag}`, info.elementCount);
    const currentIndex = pairs.pairs.findIndex(
      (p) => p.tagA === model.tagA && p.tagB === model.tagB,
    );
    let shown = pairs.pairs;
    if (!this._showAll && shown.length > MAX_SUGGESTIONS_SHOWN) {
      shown = shown.slice(0, MAX_SUGGESTIONS_SHOWN);
      // Keep the pair in use visible even when it is further down.
      if (currentIndex >= MAX_SUGGESTIONS_SHOWN) {
        shown = [...shown.slice(0, -1), pairs.pairs[currentIndex]];
      }
    }
    if (pairs.pairs.length > MAX_SUGGESTIONS_SHOWN) {
      this._more.hidden = false;
      this._more.textContent = this._showAll
        ? t("hist.pair.showFewer")
        : t("hist.pair.showAll", { n: pairs.pairs.length });
    }
    setChildren(
      this._list,
      shown.map((pair) => {
        const current = pair.tagA === model.tagA && pair.tagB === model.tagB;
        const countA = counts.get(`a:${pair.tagA}`);
        const countB = counts.get(`b:${pair.tagB}`);
        const elements =
          countA != null && countA === countB
            ? t("hist.pair.elements", { n: formatInt(countA) })
            : t("hist.pair.elements", {
                n: `${formatInt(countA)} / ${formatInt(countB)}`,
              });
        return h(
          "li",
          {},
          h(
            "button",
            {
              className: `tbmf-hist-suggest__item${current ? " is-current" : ""}`,
              title: current ? t("hist.pair.shown") : t("hist.pair.compare"),
              attrs: { type: "button", "aria-pressed": String(current) },
              dataset: { tagA: pair.tagA, tagB: pair.tagB },
              on: {
                click: () =>
                  this._onChange({ tagA: pair.tagA, tagB: pair.tagB }),
              },
            },
            h(
              "span",
              { className: "tbmf-hist-suggest__tags" },
              tagText(pair.tagA, model.colors.a),
              h("span", { className: "tbmf-hist-suggest__arrow", text: "↔" }),
              tagText(pair.tagB, model.colors.b),
            ),
            h(
              "span",
              { className: "tbmf-hist-suggest__meta" },
              h("span", { text: elements }),
              h("span", {
                className: "tbmf-hist-score",
                title: t("hist.pair.score.title"),
                text: t("hist.pair.score", { score: formatValue(pair.score) }),
                style: { "--score": String(pair.score) },
              }),
            ),
            h("span", {
              className: "tbmf-hist-suggest__reasons",
              text: pair.reasons
                .map((english, i) =>
                  serverText(pair.reasonMessages?.[i], english),
                )
                .join(" · "),
            }),
          ),
        );
      }),
    );
  }

  _swapSides() {
    const model = this._model;
    if (!model) return;
    this._onChange({
      runA: model.runB,
      tagA: model.tagB,
      runB: model.runA,
      tagB: model.tagA,
    });
  }
}

/** One side of the pair: run picker, badge, tag picker. */
class Side {
  /**
   * @param {'a' | 'b'} side
   * @param {(patch: Record<string, string | null>) => void} onChange
   */
  constructor(side, onChange) {
    const upper = side.toUpperCase();
    this._side = side;
    this._letter = h("span", {
      className: "tbmf-hist-side__letter",
      text: upper,
      attrs: { "aria-hidden": "true" },
    });
    this._runSelect = h("select", {
      className: "tbmf-select tbmf-hist-side__run",
      attrs: { "aria-label": t("hist.side.run", { side: upper }) },
      dataset: { role: `run-${side}` },
      on: {
        change: () =>
          // A new run: its tag is chosen again (from the suggested pairs).
          onChange({
            [`run${upper}`]: this._runSelect.value,
            [`tag${upper}`]: null,
          }),
      },
    });
    this._badge = h("span", { className: "tbmf-badge" });
    this._tagSelect = h("select", {
      className: "tbmf-select tbmf-hist-side__tag",
      attrs: { "aria-label": t("hist.side.tag", { side: upper }) },
      dataset: { role: `tag-${side}` },
      on: {
        change: () => onChange({ [`tag${upper}`]: this._tagSelect.value }),
      },
    });
    this._kind = h("span", { className: "tbmf-hist-kind" });
    this._count = h("span", { className: "tbmf-hist-side__count" });
    this.element = h(
      "div",
      { className: "tbmf-hist-side", dataset: { side } },
      this._letter,
      h(
        "div",
        { className: "tbmf-hist-side__fields" },
        h(
          "label",
          { className: "tbmf-hist-field" },
          h("span", { className: "tbmf-hist-field__label", text: t("hist.field.run") }),
          this._runSelect,
          this._badge,
        ),
        h(
          "label",
          { className: "tbmf-hist-field" },
          h("span", { className: "tbmf-hist-field__label", text: t("hist.field.tag") }),
          this._tagSelect,
          this._kind,
          this._count,
        ),
      ),
    );
    this._runSignature = "";
    this._tagSignature = "";
  }

  /**
   * @param {RunInfo[]} runs
   * @param {string} run
   * @param {string} tag
   * @param {string} color
   * @param {{tags: TagInfo[] | null}} details element counts when known
   */
  render(runs, run, tag, color, { tags }) {
    this._letter.style.setProperty("--run", color);
    this.element.style.setProperty("--side-color", color);
    const runSignature = JSON.stringify(runs.map((r) => [r.run, r.framework]));
    if (runSignature !== this._runSignature) {
      this._runSignature = runSignature;
      setChildren(
        this._runSelect,
        runs.map((r) =>
          h("option", {
            text: `${r.run} — ${frameworkLabel(r.framework)}`,
            attrs: { value: r.run },
          }),
        ),
      );
    }
    this._runSelect.value = run;
    const info = runs.find((r) => r.run === run);
    this._badge.hidden = !info;
    if (info) {
      this._badge.textContent = frameworkLabel(info.framework);
      this._badge.dataset.framework = info.framework;
      this._badge.style.setProperty("--badge", frameworkColor(info.framework));
      this._badge.title = info.writer
        ? t("hist.side.writtenBy", { writer: info.writer })
        : "";
    }

    // Element counts come with the suggestions; until then, names only.
    /** @type {TagInfo[]} */
    const list =
      tags ??
      (info?.histogramTags ?? []).map((name, order) => ({
        tag: name,
        elementCount: null,
        order,
      }));
    const tagSignature = JSON.stringify([run, list]);
    if (tagSignature !== this._tagSignature) {
      this._tagSignature = tagSignature;
      const values = list.filter((entry) => !isGradientTag(entry.tag));
      const grads = list.filter((entry) => isGradientTag(entry.tag));
      const option = (/** @type {TagInfo} */ entry) =>
        h("option", {
          text:
            entry.elementCount != null
              ? `${entry.tag}  (${formatInt(entry.elementCount)})`
              : entry.tag,
          attrs: { value: entry.tag },
        });
      setChildren(
        this._tagSelect,
        grads.length > 0 && values.length > 0
          ? [
              h(
                "optgroup",
                { attrs: { label: t("hist.tags.values") } },
                values.map(option),
              ),
              h(
                "optgroup",
                { attrs: { label: t("hist.tags.gradients") } },
                grads.map(option),
              ),
            ]
          : list.map(option),
      );
    }
    this._tagSelect.value = tag;
    const grad = tag !== "" && isGradientTag(tag);
    this._kind.hidden = tag === "";
    this._kind.textContent = grad ? t("hist.kind.gradient") : t("hist.kind.values");
    this._kind.classList.toggle("is-gradient", grad);
    this._kind.title = grad
      ? t("hist.kind.gradient.title")
      : t("hist.kind.values.title");
    const count = list.find((entry) => entry.tag === tag)?.elementCount;
    this._count.textContent =
      count != null ? t("hist.pair.elements", { n: formatInt(count) }) : "";
  }
}

/**
 * @param {string} tag
 * @param {string} color
 * @returns {HTMLElement}
 */
function tagText(tag, color) {
  return h(
    "span",
    { className: "tbmf-hist-tag", style: { "--run": color } },
    h("span", { className: "tbmf-hist-tag__name", text: tag }),
    isGradientTag(tag)
      ? h("span", { className: "tbmf-hist-kind is-gradient", text: t("hist.kind.grad") })
      : null,
  );
}

/** @returns {SVGSVGElement} Material "swap_vert" */
function swapIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  const path = document.createElementNS(ns, "path");
  path.setAttribute(
    "d",
    "M16 17.01V10h-2v7.01h-3L15 21l4-3.99h-3zM9 3 5 6.99h3V14h2V6.99h3L9 3z",
  );
  path.setAttribute("fill", "currentColor");
  svg.appendChild(path);
  return svg;
}
