// The distances at the current position (a small table) and one distance
// over training (a line chart with the current position marked; a click on
// it moves the slider there).

import { createChart } from "../../components/chart.js";
import { h, setChildren } from "../../dom.js";
import { formatValue } from "../../format.js";
import { t } from "../../i18n.js";
import { cssVar } from "../../theme.js";
import { DISTANCES, toNumber } from "./model.js";

/** @typedef {import("./model.js").DiffPayload} DiffPayload */
/** @typedef {import("./model.js").DistancesPayload} DistancesPayload */
/** @typedef {import("./model.js").DistanceKey} DistanceKey */

/** Height of the distance-over-training plot, CSS pixels. */
const TREND_HEIGHT = 190;
/** Pointer travel between press and release that still counts as a click. */
const CLICK_SLOP_PX = 4;

export class DistanceTable {
  /**
   * @param {(key: DistanceKey) => void} onSelect a row was chosen for the
   *     chart
   */
  constructor(onSelect) {
    /** @type {Map<DistanceKey, {row: HTMLTableRowElement, value: HTMLElement, detail: HTMLElement}>} */
    this._rows = new Map();
    const body = h("tbody");
    for (const d of DISTANCES) {
      const value = h("span", { className: "tbmf-hist-dist__value" });
      const detail = h("span", { className: "tbmf-hist-dist__detail" });
      const row = h(
        "tr",
        {
          className: "tbmf-hist-dist__row",
          attrs: { tabindex: 0, "aria-selected": "false" },
          dataset: { distance: d.key },
          on: {
            click: () => onSelect(d.key),
            keydown: (event) => {
              const key = /** @type {KeyboardEvent} */ (event).key;
              if (key === "Enter" || key === " ") {
                event.preventDefault();
                onSelect(d.key);
              }
            },
          },
        },
        h(
          "th",
          { attrs: { scope: "row" } },
          h("span", { className: "tbmf-hist-dist__name", text: d.label }),
          h("span", { className: "tbmf-hist-dist__help", text: d.help }),
        ),
        h("td", { className: "is-numeric" }, value, detail),
      );
      this._rows.set(d.key, { row, value, detail });
      body.appendChild(row);
    }
    this._caption = h("div", { className: "tbmf-hist-dist__caption" });
    this.table = h(
      "table",
      {
        className: "tbmf-hist-dist",
        dataset: { role: "distances" },
      },
      body,
    );
    this.element = h(
      "div",
      { className: "tbmf-hist-dist__wrap" },
      this.table,
      this._caption,
    );
  }

  /**
   * @param {DiffPayload | null} diff null: nothing to show
   * @param {DistanceKey} selected the distance charted
   * @param {{bins: number}} details
   */
  render(diff, selected, { bins }) {
    for (const [key, { row, value, detail }] of this._rows) {
      const on = key === selected;
      row.classList.toggle("is-selected", on);
      row.setAttribute("aria-selected", String(on));
      if (!diff) {
        value.textContent = "—";
        delete value.dataset.value;
        detail.textContent = "";
        continue;
      }
      const raw = diff.distances[key];
      const number = toNumber(raw);
      value.textContent = Number.isNaN(number) ? "—" : formatValue(number);
      value.title = Number.isNaN(number)
        ? t("hist.distance.undefined")
        : String(raw);
      // Full precision for scripts and tests; the text is rounded.
      value.dataset.value = String(raw);
      detail.textContent = momentDetail(key, diff);
    }
    if (diff) {
      this.table.dataset.at = String(diff.at);
      this.table.dataset.runA = diff.a.run;
      this.table.dataset.tagA = diff.a.tag;
      this.table.dataset.runB = diff.b.run;
      this.table.dataset.tagB = diff.b.tag;
      this.table.dataset.axis = diff.x;
      this.table.dataset.bins = String(bins);
    } else {
      for (const key of ["at", "runA", "tagA", "runB", "tagB", "axis"]) {
        delete this.table.dataset[key];
      }
    }
    this._caption.textContent = diff
      ? t("hist.distance.caption", { bins })
      : "";
  }
}

/**
 * The A and B values behind a delta row.
 * @param {DistanceKey} key
 * @param {DiffPayload} diff
 * @returns {string}
 */
function momentDetail(key, diff) {
  const field = key === "meanDelta" ? "mean" : key === "stdDelta" ? "std" : "";
  if (!field) return "";
  const a = toNumber(diff.momentsA[field]);
  const b = toNumber(diff.momentsB[field]);
  return `A ${formatValue(a)} · B ${formatValue(b)}`;
}

export class DistanceTrend {
  /**
   * @param {HTMLElement} container
   * @param {(index: number) => void} onPick a point was clicked
   */
  constructor(container, onPick) {
    this._onPick = onPick;
    /** @type {number[]} */
    this._positions = [];
    /** @type {number | null} */
    this._markerX = null;
    this._axis = "";
    /** @type {DistancesPayload | null} */
    this._drawn = null;
    this._key = "";
    this._title = h("div", { className: "tbmf-hist-trend__title" });
    this.host = h("div", {
      className: "tbmf-hist-trend",
      dataset: { role: "trend" },
    });
    this._empty = h("div", { className: "tbmf-hist-trend__empty" });
    this.element = h(
      "div",
      { className: "tbmf-hist-trend__wrap" },
      this._title,
      this.host,
      this._empty,
    );
    container.appendChild(this.element);
    /** @type {import("../../components/chart.js").Chart | null} */
    this.chart = null;
    /** @type {any} */
    this._hookedPlot = null;
    /** @type {{x: number, y: number} | null} */
    this._press = null;
    this.host.addEventListener("pointerdown", (event) => {
      this._press = { x: event.clientX, y: event.clientY };
    });
    this.host.addEventListener("click", (event) => this._onClick(event));
  }

  /**
   * @param {Object} model
   * @param {DistancesPayload | null} model.distances
   * @param {DistanceKey} model.key
   * @param {number} model.index current position
   * @param {string} model.color line colour
   * @param {string} model.axis
   */
  render({ distances, key, index, color, axis }) {
    const meta = DISTANCES.find((d) => d.key === key) ?? DISTANCES[0];
    setChildren(
      this._title,
      h("span", {
        className: "tbmf-hist-heading",
        text: t("hist.overTraining"),
      }),
      h("span", {
        className: "tbmf-hist-trend__metric",
        text: meta.label,
        title: meta.help,
      }),
    );
    const positions = distances?.positions ?? [];
    this._positions = positions;
    this._markerX =
      index >= 0 && index < positions.length ? positions[index] : null;
    if (this.chart && distances === this._drawn && key === this._key) {
      // Same data: only the marker moves (a zoom the user set stays).
      this._hookMarker();
      return;
    }
    this._drawn = distances;
    this._key = key;
    const values = (distances?.[key] ?? []).map((v) => {
      const n = toNumber(v);
      return Number.isFinite(n) ? n : null;
    });
    const series = [
      {
        // Keyed by the distance: another one rebuilds the chart's labels.
        key: key,
        label: meta.label,
        color,
        x: positions,
        y: values,
        width: 2,
      },
    ];
    this._empty.hidden = positions.length > 0;
    this._empty.textContent = distances
      ? t("hist.noCommonPositionsOnAxis")
      : "";
    if (positions.length === 0) {
      // uPlot cannot lay out axes without data: no chart until there is.
      this.chart?.destroy();
      this.chart = null;
      this._hookedPlot = null;
      /** @type {any} */ (this.host).tbmfChart = null;
      this.host.dataset.points = "0";
      return;
    }
    if (!this.chart || this._axis !== axis) {
      this.chart?.destroy();
      this.chart = createChart(this.host, {
        xLabel: t(`axis.${axis}`),
        height: TREND_HEIGHT,
        legend: false,
        logYToggle: false,
        emptyText: t("hist.noCommonPositions"),
        series,
      });
      this._axis = axis;
    } else {
      // Series only: new data for the same line keeps the chart.
      this.chart.update({ series });
    }
    // Tests and scripts read what is drawn from here.
    /** @type {any} */ (this.host).tbmfChart = this.chart;
    this._hookMarker();
    this.host.dataset.points = String(positions.length);
  }

  destroy() {
    this.chart?.destroy();
    this.chart = null;
  }

  /** Draws the slider's position on the chart (re-attached after rebuilds). */
  _hookMarker() {
    const u = this.chart?.uplot;
    if (!u) return;
    if (this._hookedPlot !== u) {
      this._hookedPlot = u;
      const hooks = /** @type {any} */ (u).hooks;
      hooks.draw = [...(hooks.draw ?? []), () => this._drawMarker(u)];
    }
    u.redraw(false, false);
  }

  /** @param {any} u uPlot */
  _drawMarker(u) {
    const x = this._markerX;
    if (x === null) return;
    const left = Math.round(u.valToPos(x, "x", true)) + 0.5;
    if (left < u.bbox.left - 1 || left > u.bbox.left + u.bbox.width + 1) return;
    const { ctx } = u;
    ctx.save();
    ctx.strokeStyle = cssVar("--accent", "#f57c00");
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
    ctx.beginPath();
    ctx.moveTo(left, u.bbox.top);
    ctx.lineTo(left, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.restore();
  }

  /** @param {MouseEvent} event */
  _onClick(event) {
    const u = this.chart?.uplot;
    const press = this._press;
    this._press = null;
    if (!u || this._positions.length === 0) return;
    if (!u.over.contains(/** @type {Node} */ (event.target))) return;
    if (
      press &&
      Math.hypot(event.clientX - press.x, event.clientY - press.y) >
        CLICK_SLOP_PX
    ) {
      return; // a drag (zoom), not a click
    }
    const box = u.over.getBoundingClientRect();
    const x = u.posToVal(event.clientX - box.left, "x");
    let best = 0;
    for (let i = 1; i < this._positions.length; i++) {
      if (
        Math.abs(this._positions[i] - x) < Math.abs(this._positions[best] - x)
      ) {
        best = i;
      }
    }
    this._onPick(best);
  }
}
