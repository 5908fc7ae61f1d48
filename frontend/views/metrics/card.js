// One card of the Metrics grid: a metric's comparison chart (the Compare
// panel, mounted when the card first scrolls into view), its buttons (pin,
// enlarge, open in Compare), its own settings (y range, log y, tooltip
// order, fit to data, downloads) and the step table under it.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { apiUrl } from "../../model.js";
import { markInput } from "../../perf.js";
import { mountComparisonChart } from "../compare/panel.js";
import { scalarsParams } from "../compare/panelrequest.js";
import { StepTable } from "./steptable.js";
import { nearestPosition, pickablePositions } from "./stepvalues.js";
import { TOOLTIP_SORTS, togglePin, updateCard } from "./viewstate.js";

/**
 * What a card draws; the view hands a new one on every change.
 * @typedef {Object} CardModel
 * @property {import("../compare/metricpicker.js").MetricEntry} entry
 * @property {string[]} runs the selected runs that have the metric
 * @property {string} axis
 * @property {number} smoothing
 * @property {'ema' | 'time'} smoothingMode
 * @property {boolean} logY Compare's log y (a card may turn it on)
 * @property {string | null} baseline a run of `runs`, or null
 * @property {'difference' | 'ratio'} diffMode
 * @property {boolean} pinned
 * @property {boolean} enlarged
 * @property {number} height plot height, CSS pixels
 * @property {import("./viewstate.js").CardSettings} settings
 */

export class MetricCard {
  /**
   * @param {import("../../app.js").ViewContext} ctx
   * @param {CardModel} model
   * @param {{enlarge: (key: string | null) => void,
   *     openInCompare: (key: string) => void}} hooks
   */
  constructor(ctx, model, hooks) {
    this.ctx = ctx;
    this.model = model;
    this.hooks = hooks;
    /** @type {import("../compare/panel.js").ComparisonChart | null} */
    this.panel = null;
    /** @type {number[]} x positions the step selector snaps to */
    this._positions = [];
    /** The chart options last given to the panel (JSON). */
    this._panelSignature = "";
    // Buttons are named by the metric and its level: loss/train has a
    // batch-level and an epoch-level card.
    const name = `${model.entry.name} (${levelText(model.entry.level)})`;
    const key = model.entry.key;

    this._pin = cardButton(
      "pin",
      name,
      "tbmf-cmp-toggle tbmf-met-card__pin",
      () => togglePin(ctx.state, key),
      true,
    );
    this._enlarge = cardButton(
      "enlarge",
      name,
      "tbmf-cmp-toggle tbmf-met-card__enlarge",
      () => hooks.enlarge(this.model.enlarged ? null : key),
      true,
    );
    const compare = cardButton(
      "openInCompare",
      name,
      "tbmf-button tbmf-button--text tbmf-met-card__compare",
      () => hooks.openInCompare(key),
    );
    this._title = h("h3", {
      className: "tbmf-met-card__title",
      text: model.entry.name,
    });
    this._level = h("span", {
      className: "tbmf-met-card__level tbmf-muted",
      text: levelText(model.entry.level),
    });

    this._tools = this._buildTools(name, key);
    this._host = h("div", { className: "tbmf-met-card__chart" });
    this._marker = h("div", {
      className: "tbmf-met-card__marker",
      attrs: { hidden: true, "aria-hidden": "true" },
    });
    this._placeholder = h("div", {
      className: "tbmf-met-card__placeholder tbmf-muted",
      text: t("common.loading"),
    });
    this._host.append(this._placeholder, this._marker);
    this.table = new StepTable(ctx, {
      clear: () => updateCard(ctx.state, key, { x: null, xa: null }),
    });

    this.element = h(
      "section",
      {
        className: "tbmf-met-card",
        dataset: { metric: key },
        attrs: { "aria-label": name },
      },
      h(
        "div",
        { className: "tbmf-met-card__head" },
        this._title,
        this._level,
        h(
          "div",
          { className: "tbmf-met-card__actions" },
          this._pin,
          this._enlarge,
          compare,
        ),
      ),
      this._tools.element,
      this._host,
      this.table.element,
    );
    /** Where the last press on the chart began (a drag is no pick). */
    this._down = { x: 0, y: 0 };
    this._host.addEventListener("pointerdown", (event) => {
      this._down = { x: event.clientX, y: event.clientY };
    });
    this._host.addEventListener("click", (event) => this._onClick(event));
    this._host.addEventListener("keydown", (event) => this._onKey(event));
    this.update(model);
  }

  /**
   * The card's settings row: fit, log y, y range, tooltip order, downloads.
   * @param {string} name
   * @param {string} key
   */
  _buildTools(name, key) {
    const state = this.ctx.state;
    const fit = cardButton("fit", name, TEXT_BUTTON, () => {
      markInput("zoom");
      updateCard(state, key, { lo: null, hi: null });
      this.panel?.update({ xRange: null });
    });
    const log = cardButton(
      "logY",
      name,
      "tbmf-cmp-toggle",
      () =>
        updateCard(state, key, {
          log: log.getAttribute("aria-pressed") !== "true",
        }),
      true,
    );
    const bound = (/** @type {'lo' | 'hi'} */ field) => {
      const input = h("input", {
        className: "tbmf-met-card__bound",
        attrs: {
          type: "number",
          step: "any",
          placeholder: t(
            field === "lo" ? "metrics.card.yMin" : "metrics.card.yMax",
          ),
          "aria-label": t(
            field === "lo"
              ? "metrics.card.yMinNamed"
              : "metrics.card.yMaxNamed",
            { metric: name },
          ),
        },
        dataset: { bound: field },
        on: {
          change: () => {
            const text = /** @type {HTMLInputElement} */ (input).value.trim();
            const value = text === "" ? null : Number(text);
            updateCard(state, key, {
              [field]: value !== null && Number.isFinite(value) ? value : null,
            });
          },
        },
      });
      return /** @type {HTMLInputElement} */ (input);
    };
    const lo = bound("lo");
    const hi = bound("hi");
    const sort = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        {
          className: "tbmf-cmp-select tbmf-met-card__sort",
          attrs: {
            "aria-label": t("metrics.card.sortNamed", { metric: name }),
            title: t("metrics.card.sort"),
          },
          on: {
            change: () => updateCard(state, key, { sort: sort.value }),
          },
        },
        TOOLTIP_SORTS.map((id) =>
          h("option", { text: t(`metrics.sort.${id}`), attrs: { value: id } }),
        ),
      )
    );
    const csv = h("a", {
      className: TEXT_BUTTON,
      text: t("metrics.card.csv"),
      attrs: {
        download: "",
        "aria-label": t("metrics.card.csvNamed", { metric: name }),
      },
    });
    const png = cardButton("png", name, TEXT_BUTTON, () =>
      this._downloadPng(),
    );
    const element = h(
      "div",
      { className: "tbmf-met-card__tools" },
      fit,
      log,
      h("span", { className: "tbmf-met-card__range" }, lo, "–", hi),
      sort,
      csv,
      png,
    );
    return { element, log, lo, hi, sort, csv };
  }

  /** @param {CardModel} model */
  update(model) {
    this.model = model;
    const s = model.settings;
    this._pin.setAttribute("aria-pressed", String(model.pinned));
    this._enlarge.setAttribute("aria-pressed", String(model.enlarged));
    this.element.classList.toggle("is-pinned", model.pinned);
    const logY = Boolean(s.log) || model.logY;
    this._tools.log.setAttribute("aria-pressed", String(logY));
    syncInput(this._tools.lo, s.lo);
    syncInput(this._tools.hi, s.hi);
    this._tools.sort.value = s.sort ?? "near";
    const exportUrl = this._exportUrl();
    if (exportUrl) this._tools.csv.setAttribute("href", exportUrl);
    else this._tools.csv.removeAttribute("href");
    // Every state change re-renders the grid: only a card whose chart
    // options changed redraws (the panel redraws on any update).
    const options = this._panelOptions();
    const signature = JSON.stringify(options);
    if (this.panel && signature !== this._panelSignature) {
      this.panel.update(options);
    }
    this._panelSignature = signature;
    const enlarged = this.element.classList.contains("is-enlarged");
    this.element.classList.toggle("is-enlarged", model.enlarged);
    if (model.enlarged && !enlarged) {
      this.element.scrollIntoView({ block: "nearest" });
    }
    this._renderTable();
  }

  /** Mounts the chart (the first time the card is near the viewport). */
  activate() {
    if (this.panel) return;
    this._placeholder.remove();
    this.panel = mountComparisonChart(this._host, this.ctx, {
      ...this._panelOptions(),
      onData: (response) => {
        this._positions = pickablePositions(response);
        this._renderTable();
      },
      onDraw: () => this._placeMarker(),
    });
    this._host.append(this._marker);
  }

  /** @returns {HTMLButtonElement} */
  get enlargeButton() {
    return /** @type {HTMLButtonElement} */ (this._enlarge);
  }

  /** @returns {Partial<import("../compare/panel.js").PanelOptions> & {runs: string[]}} */
  _panelOptions() {
    const m = this.model;
    const s = m.settings;
    return {
      runs: m.runs,
      metric: m.entry.key,
      x: m.axis,
      smoothing: m.smoothing,
      smoothingMode: m.smoothingMode,
      logY: Boolean(s.log) || m.logY,
      yRange:
        s.lo != null || s.hi != null ? [s.lo ?? null, s.hi ?? null] : null,
      tooltipSort: /** @type {any} */ (s.sort ?? "near"),
      height: m.height,
      title: m.entry.name,
      showExport: false,
      anomalyMarkers: "off",
    };
  }

  /** @returns {string | null} this card's CSV (with diff columns against
   * the baseline when one is set) */
  _exportUrl() {
    const m = this.model;
    const params = scalarsParams({
      ...this._panelOptions(),
      baseline: m.baseline,
      diffMode: m.diffMode,
      xRange: this.panel?.options.xRange ?? null,
    });
    if (!params) return null;
    delete params.points;
    return apiUrl("export", { ...params, format: "csv" }).href;
  }

  _renderTable() {
    const m = this.model;
    this.table.show({
      entry: m.entry,
      runs: m.runs,
      axis: m.axis,
      x: this._pickedX(),
      baseline: m.baseline,
      diffMode: m.diffMode,
    });
    this._placeMarker();
  }

  /** The picked x as a vertical line over the plot. */
  _placeMarker() {
    const x = this._pickedX();
    const u = this.panel?.mainChart?.uplot;
    if (x == null || !u) {
      this._marker.hidden = true;
      return;
    }
    const left = u.valToPos(x, "x");
    const over = /** @type {HTMLElement} */ (u.over);
    const hostBox = this._host.getBoundingClientRect();
    const overBox = over.getBoundingClientRect();
    const inside = left >= 0 && left <= overBox.width;
    this._marker.hidden = !inside;
    if (!inside) return;
    this._marker.style.left = `${overBox.left - hostBox.left + left}px`;
    this._marker.style.top = `${overBox.top - hostBox.top}px`;
    this._marker.style.height = `${overBox.height}px`;
  }

  /** @returns {number | null} the picked x, if it was picked on this axis
   * (a link may leave the axis out: then it applies to any) */
  _pickedX() {
    const { x, xa } = this.model.settings;
    if (x == null || (xa && xa !== this.model.axis)) return null;
    return x;
  }

  /** @param {number | null} x */
  _pick(x) {
    if (x === null) return;
    updateCard(this.ctx.state, this.model.entry.key, {
      x,
      xa: this.model.axis,
    });
  }

  /** @param {MouseEvent} event a click on the plot picks the nearest x */
  _onClick(event) {
    const u = this.panel?.mainChart?.uplot;
    if (!u || !(event.target instanceof Element)) return;
    if (!u.over.contains(event.target)) return;
    // A drag (zoom) ends in a click too: only a still click picks.
    const moved = Math.hypot(
      event.clientX - this._down.x,
      event.clientY - this._down.y,
    );
    if (moved > 3) return;
    const box = u.over.getBoundingClientRect();
    const value = u.posToVal(event.clientX - box.left, "x");
    this._pick(nearestPosition(this._positions, value));
  }

  /** @param {KeyboardEvent} event arrows on the focused chart move the x */
  _onKey(event) {
    const target = /** @type {HTMLElement} */ (event.target);
    if (target.getAttribute("role") !== "figure") return;
    const positions = this._positions;
    if (positions.length === 0) return;
    const current = this._pickedX();
    let index = current == null ? -1 : positions.indexOf(current);
    if (event.key === "ArrowRight" || event.key === "ArrowUp") {
      index = index < 0 ? 0 : Math.min(positions.length - 1, index + 1);
    } else if (event.key === "ArrowLeft" || event.key === "ArrowDown") {
      index = index < 0 ? positions.length - 1 : Math.max(0, index - 1);
    } else if (event.key === "Home") {
      index = 0;
    } else if (event.key === "End") {
      index = positions.length - 1;
    } else {
      return;
    }
    event.preventDefault();
    this._pick(positions[index]);
  }

  /** Downloads the plot (axes included: uPlot draws them) as a PNG. */
  _downloadPng() {
    const u = this.panel?.mainChart?.uplot;
    if (!u) return;
    const source = /** @type {HTMLCanvasElement} */ (u.ctx.canvas);
    const canvas = document.createElement("canvas");
    canvas.width = source.width;
    canvas.height = source.height;
    const context = /** @type {CanvasRenderingContext2D} */ (
      canvas.getContext("2d")
    );
    context.fillStyle = getComputedStyle(this.element).backgroundColor;
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(source, 0, 0);
    const link = document.createElement("a");
    link.download = `${this.model.entry.key.replace(/[^A-Za-z0-9._-]+/g, "_")}.png`;
    link.href = canvas.toDataURL("image/png");
    link.click();
  }

  destroy() {
    this.panel?.destroy();
    this.panel = null;
    this.table.destroy();
    this.element.remove();
  }
}

/** The class of the cards' text-like buttons. */
const TEXT_BUTTON = "tbmf-button tbmf-button--text";

/**
 * A card's button: its text, and for screen readers its name with the
 * metric's (`metrics.card.<id>` and `metrics.card.<id>Named`).
 * @param {string} id
 * @param {string} metric the metric and its level
 * @param {string} className
 * @param {() => void} onClick
 * @param {boolean} [toggle] a toggle (starts not pressed)
 * @returns {HTMLElement}
 */
function cardButton(id, metric, className, onClick, toggle = false) {
  return h("button", {
    className,
    text: t(`metrics.card.${id}`),
    attrs: {
      type: "button",
      ...(toggle ? { "aria-pressed": "false" } : {}),
      "aria-label": t(`metrics.card.${id}Named`, { metric }),
    },
    on: { click: onClick },
  });
}

/**
 * @param {HTMLInputElement} input
 * @param {number | null | undefined} value
 */
function syncInput(input, value) {
  if (document.activeElement === input) return;
  input.value = value == null ? "" : String(value);
}

/**
 * @param {string | null} level
 * @returns {string}
 */
function levelText(level) {
  return level === "batch"
    ? t("metrics.level.batch")
    : level === "epoch"
      ? t("metrics.level.epoch")
      : t("metrics.level.any");
}
