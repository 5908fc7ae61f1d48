// The "Histograms over training" card of the Histograms view: a ridge
// chart of each run's logged histograms of its tag, the one compared at the
// current position highlighted; both on one value range when their ranges
// are alike, so they can be read against each other.

import { createRidgeChart } from "../../components/ridgechart.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { chartTitle } from "./pair_charts.js";

/**
 * @typedef {import("../../components/ridgechart.js").RidgeChart} RidgeChart
 * @typedef {import("../../components/ridgedata.js").RidgeEntry} RidgeEntry
 * @typedef {import("./model.js").HistogramsPayload} HistogramsPayload
 * @typedef {import("./slot.js").Slot<HistogramsPayload>} HistogramsSlot
 */

/** Ridge charts share one value range unless one is this much wider. */
const MAX_SHARED_RANGE_RATIO = 20;
/** Height of each ridge chart, CSS pixels. */
const RIDGE_HEIGHT = 230;

export class RidgePanel {
  constructor() {
    this._note = h("span", { className: "tbmf-muted" });
    this._grid = h("div", { className: "tbmf-hist-ridges" });
    this.element = h(
      "section",
      { className: "tbmf-hist-card tbmf-hist-context" },
      h(
        "div",
        { className: "tbmf-hist-context__head" },
        h("h3", {
          className: "tbmf-hist-heading",
          text: t("hist.ridges.title"),
        }),
        this._note,
      ),
      this._grid,
    );
    /** @type {{a: RidgeChart | null, b: RidgeChart | null}} */
    this._charts = { a: null, b: null };
  }

  destroy() {
    this._charts.a?.destroy();
    this._charts.b?.destroy();
  }

  /**
   * Creates the charts on first use, updates them after.
   * @param {Object} spec
   * @param {{a: string, b: string}} spec.colors
   * @param {string} spec.axis
   * @param {{a: HistogramsSlot, b: HistogramsSlot}} spec.slots each run's
   *     histograms of its tag
   * @param {{a: string, b: string}} spec.runs
   * @param {{a: string, b: string}} spec.tags
   * @param {{a: number | null, b: number | null}} spec.highlightStep the
   *     step compared at the current position (null: none)
   * @param {(entry: RidgeEntry) => void} spec.onPick a line was clicked
   */
  render({ colors, axis, slots, runs, tags, highlightStep, onPick }) {
    const payloads = {
      a: slots.a.shown,
      b: slots.b.shown,
    };
    const ranges = {
      a: valueRange(payloads.a),
      b: valueRange(payloads.b),
    };
    const shared = sharedRange(ranges.a, ranges.b);
    /** @type {string[]} */
    const notes = [];
    for (const side of /** @type {const} */ (["a", "b"])) {
      const slot = slots[side];
      const payload = payloads[side];
      const run = runs[side];
      const tag = tags[side];
      if (payload?.excluded) {
        notes.push(
          t("hist.ridges.byStep", { run, reason: payload.excluded }),
        );
      }
      const entries = payload?.steps ?? [];
      const highlight = entries.findIndex(
        (e) => e.step === highlightStep[side],
      );
      const options = {
        title: chartTitle(side.toUpperCase(), colors[side], run, tag),
        color: colors[side],
        entries,
        offsetLabel: axis,
        xRange: shared ?? ranges[side],
        highlight: highlight >= 0 ? highlight : null,
        height: RIDGE_HEIGHT,
        emptyText: slot.error
          ? t("hist.ridges.loadError", { error: slot.error })
          : slot.loading
            ? t("common.loading")
            : t("hist.ridges.none"),
        onPick,
      };
      const chart = this._charts[side];
      if (!chart) {
        const cell = h("div", {
          className: "tbmf-hist-ridges__cell",
          dataset: { ridge: side },
        });
        this._grid.appendChild(cell);
        this._charts[side] = createRidgeChart(cell, options);
      } else {
        chart.update(options);
      }
    }
    this._note.textContent = [
      t("hist.ridges.note"),
      ...notes,
    ].join(" · ");
  }
}

/**
 * @param {HistogramsPayload | null} payload
 * @returns {[number, number] | null} smallest and largest edge
 */
function valueRange(payload) {
  if (!payload || payload.steps.length === 0) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of payload.steps) {
    const first = Number(s.edges[0]);
    const last = Number(s.edges[s.edges.length - 1]);
    if (Number.isFinite(first)) lo = Math.min(lo, first);
    if (Number.isFinite(last)) hi = Math.max(hi, last);
  }
  return hi > lo ? [lo, hi] : null;
}

/**
 * One range for both ridge charts, so they can be read against each other,
 * unless one run's values span far less (e.g. gradients against weights).
 * @param {[number, number] | null} a
 * @param {[number, number] | null} b
 * @returns {[number, number] | null}
 */
function sharedRange(a, b) {
  if (!a || !b) return null;
  const wa = a[1] - a[0];
  const wb = b[1] - b[0];
  if (Math.max(wa, wb) / Math.min(wa, wb) > MAX_SHARED_RANGE_RATIO) return null;
  return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
}
