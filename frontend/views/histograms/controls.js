// The toolbar (axis, bins, rendering) and the position slider over the
// aligned positions where both runs have histograms.

import { h, icon, setChildren } from "../../dom.js";
import { formatValue } from "../../format.js";
import { t } from "../../i18n.js";
import { formatInteger as formatInt } from "../../intl.js";
import { AXES, BIN_CHOICES, MODES } from "./model.js";

/** Most tick marks drawn under the slider; more positions get none. */
const MAX_SLIDER_TICKS = 80;

/**
 * @typedef {Object} ToolbarModel
 * @property {string} axis
 * @property {number} bins
 * @property {string} mode
 * @property {Record<string, string>} axisProblems axis id → why a run of
 *     the pair has no place on it
 */

/**
 * @typedef {Object} PositionModel
 * @property {string} axis
 * @property {number[]} positions
 * @property {number[]} positionsB
 * @property {number[]} stepsA
 * @property {number[]} stepsB
 * @property {number} index the current position (-1: none)
 * @property {{a: string, b: string}} colors
 */

export class Toolbar {
  /**
   * @param {(patch: Record<string, string | null>) => void} onChange patch
   *     with keys `axis`, `bins`, `mode`
   */
  constructor(onChange) {
    this._axis = segmented(t("hist.toolbar.axis"), "axis", AXES, (id) =>
      onChange({ axis: id }),
    );
    this._bins = segmented(
      t("hist.toolbar.bins"),
      "bins",
      BIN_CHOICES.map((n) => ({
        id: String(n),
        label: String(n),
        title: t("hist.toolbar.bins.title", { n }),
      })),
      (id) => onChange({ bins: id }),
    );
    this._mode = segmented(
      t("hist.toolbar.show"),
      "mode",
      MODES.map((m) => ({
        ...m,
        title: t("hist.toolbar.show.title", { mode: m.label.toLowerCase() }),
      })),
      (id) => onChange({ mode: id }),
    );
    this.element = h(
      "div",
      { className: "tbmf-hist-toolbar" },
      this._axis.element,
      this._bins.element,
      this._mode.element,
    );
  }

  /** @param {ToolbarModel} model */
  render(model) {
    this._axis.select(model.axis);
    for (const [id, button] of this._axis.buttons) {
      const problem = model.axisProblems[id];
      button.classList.toggle("is-unavailable", Boolean(problem));
      const base = AXES.find((a) => a.id === id)?.title ?? "";
      button.title = problem
        ? t("hist.toolbar.axisUnavailable", { title: base, problem })
        : base;
    }
    this._bins.select(String(model.bins));
    this._mode.select(model.mode);
  }
}

export class PositionBar {
  /**
   * @param {(index: number) => void} onPick the user moved to a position
   */
  constructor(onPick) {
    this._onPick = onPick;
    /** @type {PositionModel | null} */
    this._model = null;
    this._slider = h("input", {
      className: "tbmf-hist-slider",
      attrs: {
        type: "range",
        min: 0,
        max: 0,
        step: 1,
        value: 0,
        "aria-label": t("hist.position"),
      },
      dataset: { role: "position" },
      on: {
        input: () => this._onPick(Number(this._slider.value)),
      },
    });
    this._ticks = h("div", {
      className: "tbmf-hist-slider__ticks",
      attrs: { "aria-hidden": "true" },
    });
    this._prev = h(
      "button",
      {
        className: "tbmf-icon-button tbmf-hist-step",
        title: t("hist.position.previous"),
        attrs: { type: "button", "aria-label": t("hist.position.previous") },
        on: { click: () => this._move(-1) },
      },
      icon("chevronRight", { size: 20, className: "tbmf-flip" }),
    );
    this._next = h(
      "button",
      {
        className: "tbmf-icon-button tbmf-hist-step",
        title: t("hist.position.next"),
        attrs: { type: "button", "aria-label": t("hist.position.next") },
        on: { click: () => this._move(1) },
      },
      icon("chevronRight", { size: 20 }),
    );
    this._readout = h("div", {
      className: "tbmf-hist-readout",
      attrs: { "aria-live": "polite" },
      dataset: { role: "readout" },
    });
    this.element = h(
      "div",
      { className: "tbmf-hist-position" },
      this._readout,
      h(
        "div",
        { className: "tbmf-hist-position__track" },
        this._prev,
        h(
          "div",
          { className: "tbmf-hist-slider__wrap" },
          this._slider,
          this._ticks,
        ),
        this._next,
      ),
    );
  }

  /** @param {PositionModel} model */
  render(model) {
    const previous = this._model;
    this._model = model;
    const n = model.positions.length;
    this.element.hidden = n === 0;
    if (n === 0) return;
    this._slider.max = String(Math.max(n - 1, 0));
    this._slider.disabled = n < 2;
    if (Number(this._slider.value) !== model.index) {
      this._slider.value = String(model.index);
    }
    this._slider.setAttribute(
      "aria-valuetext",
      `${t(`axis.${model.axis}`)} ${formatValue(model.positions[model.index])}`,
    );
    this._prev.disabled = model.index <= 0;
    this._next.disabled = model.index >= n - 1;
    if (
      !previous ||
      previous.positions !== model.positions ||
      previous.axis !== model.axis
    ) {
      this._renderTicks(model);
    }
    for (const [i, tick] of [...this._ticks.children].entries()) {
      tick.classList.toggle("is-current", i === model.index);
    }
    this._renderReadout(model);
  }

  /** @param {number} delta */
  _move(delta) {
    const model = this._model;
    if (!model) return;
    const index = Math.min(
      Math.max(model.index + delta, 0),
      model.positions.length - 1,
    );
    if (index !== model.index) this._onPick(index);
  }

  /** @param {PositionModel} model */
  _renderTicks(model) {
    const n = model.positions.length;
    if (n < 2 || n > MAX_SLIDER_TICKS) {
      this._ticks.replaceChildren();
      return;
    }
    setChildren(
      this._ticks,
      model.positions.map((_, i) =>
        h("span", {
          className: "tbmf-hist-slider__tick",
          style: { "--f": String(i / (n - 1)) },
        }),
      ),
    );
  }

  /** @param {PositionModel} model */
  _renderReadout(model) {
    const i = model.index;
    const x = model.positions[i];
    const xB = model.positionsB[i];
    const mismatch = xB !== x;
    setChildren(
      this._readout,
      h(
        "span",
        { className: "tbmf-hist-readout__at" },
        h("span", { className: "tbmf-muted", text: t(`axis.${model.axis}`) }),
        h("strong", { text: formatValue(x), dataset: { role: "at" } }),
      ),
      sideChip("A", model.colors.a, model.stepsA[i], null),
      sideChip(
        "B",
        model.colors.b,
        model.stepsB[i],
        mismatch
          ? model.axis === "step"
            ? t("hist.position.nearest")
            : t("hist.position.nearestAt", {
                axis: t(`axis.${model.axis}`),
                x: formatValue(xB),
              })
          : null,
      ),
      h("span", {
        className: "tbmf-hist-readout__count",
        text: t("hist.position.count", {
          i: formatInt(i + 1),
          n: formatInt(model.positions.length),
        }),
      }),
    );
  }
}

/**
 * @param {string} letter
 * @param {string} color
 * @param {number} step
 * @param {string | null} note
 * @returns {HTMLElement}
 */
function sideChip(letter, color, step, note) {
  return h(
    "span",
    {
      className: "tbmf-hist-chip",
      style: { "--run": color },
      dataset: { side: letter.toLowerCase(), step: String(step) },
    },
    h("span", { className: "tbmf-hist-chip__letter", text: letter }),
    h("span", { text: t("hist.position.step", { step: formatInt(step) }) }),
    note ? h("span", { className: "tbmf-hist-chip__note", text: note }) : null,
  );
}

/**
 * A labelled group of toggle buttons, one pressed.
 * @param {string} label
 * @param {string} name data-role of the group
 * @param {readonly {id: string, label: string, title?: string}[]} choices
 * @param {(id: string) => void} onPick
 * @returns {{element: HTMLElement, buttons: Map<string, HTMLButtonElement>, select: (id: string) => void}}
 */
function segmented(label, name, choices, onPick) {
  /** @type {Map<string, HTMLButtonElement>} */
  const buttons = new Map(
    choices.map((choice) => [
      choice.id,
      h("button", {
        className: "tbmf-seg__button",
        text: choice.label,
        title: choice.title,
        attrs: { type: "button", "aria-pressed": "false" },
        dataset: { [name]: choice.id },
        on: { click: () => onPick(choice.id) },
      }),
    ]),
  );
  const element = h(
    "div",
    { className: "tbmf-seg-group" },
    h("span", { className: "tbmf-seg-group__label", text: label }),
    h(
      "div",
      {
        className: "tbmf-seg",
        attrs: { role: "group", "aria-label": label },
        dataset: { role: name },
      },
      [...buttons.values()],
    ),
  );
  return {
    element,
    buttons,
    select(id) {
      for (const [key, button] of buttons) {
        const on = key === id;
        button.classList.toggle("is-on", on);
        button.setAttribute("aria-pressed", String(on));
      }
    },
  };
}
