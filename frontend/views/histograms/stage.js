// Why the Histograms view shows what it shows at a position: the stage card
// (the pair's charts at the current position, or a message saying why there
// are none: an error, no common position on this axis, still loading) and
// the notice under the controls that names the reason (a run without
// epochs, or where each run logged its histograms) with buttons to switch
// to an axis that works.

import { h, setChildren } from "../../dom.js";
import { formatValue } from "../../format.js";
import { t } from "../../i18n.js";
import { hasEpochAxis } from "./choices.js";
import { PairCharts } from "./pair_charts.js";

/**
 * @typedef {import("../../model.js").RunInfo} RunInfo
 * @typedef {import("./model.js").DistancesPayload} DistancesPayload
 * @typedef {import("./model.js").DiffPayload} DiffPayload
 * @typedef {import("./model.js").HistogramsPayload} HistogramsPayload
 */

/** The pair's charts at the current position, or why there are none. */
export class Stage {
  constructor() {
    this._charts = new PairCharts();
    this._message = h("div", { className: "tbmf-hist-message" });
    this.element = h(
      "section",
      { className: "tbmf-hist-card tbmf-hist-stage" },
      this._charts.element,
      this._message,
    );
  }

  destroy() {
    this._charts.destroy();
  }

  /**
   * @param {Object} spec
   * @param {import("./slot.js").Slot<DiffPayload>} spec.diff
   * @param {import("./slot.js").Slot<DistancesPayload>} spec.distances
   * @param {string} spec.mode
   * @param {{a: string, b: string}} spec.colors
   * @param {string} spec.problem why the pair has no place on the axis, or ""
   * @param {number} spec.positionCount aligned positions on the axis
   */
  render({ diff: slot, distances, mode, colors, problem, positionCount }) {
    const diff = slot.shown;
    const usable = diff !== null && !problem && positionCount > 0;
    this.element.classList.toggle("is-stale", usable && slot.loading);
    if (usable) {
      this._charts.element.hidden = false;
      this._charts.render({ diff, mode, colors });
    } else {
      this._charts.element.hidden = true;
    }
    /** @type {string} */
    let message = "";
    let kind = "";
    const error = distances.error ?? slot.error;
    if (error && !problem) {
      message = t("hist.stage.error", { error });
      kind = "error";
    } else if (problem || (distances.shown && positionCount === 0)) {
      message = t("hist.stage.nothing");
    } else if (!usable) {
      message = t("hist.stage.loading");
      kind = "loading";
    }
    this._message.hidden = message === "" || (usable && !error);
    this._message.dataset.kind = kind;
    setChildren(
      this._message,
      kind === "loading" ? h("span", { className: "tbmf-spinner" }) : null,
      message,
    );
  }
}

/** Why there is nothing to compare on this axis, and the way out. */
export class AxisNotice {
  /** @param {(axis: string) => void} onAxis a "Use ..." button was clicked */
  constructor(onAxis) {
    this._onAxis = onAxis;
    this.element = h("div", {
      className: "tbmf-hist-notice",
      attrs: { role: "status" },
    });
  }

  /**
   * @param {Object} spec
   * @param {string} spec.axis
   * @param {string} spec.problem why the pair has no place on the axis, or ""
   * @param {number[]} spec.positions aligned positions on the axis
   * @param {import("./slot.js").Slot<DistancesPayload>} spec.distances
   * @param {HistogramsPayload | null} spec.ridgeA A's histograms on the axis
   * @param {HistogramsPayload | null} spec.ridgeB B's
   * @param {RunInfo | undefined} spec.infoA
   * @param {RunInfo | undefined} spec.infoB
   */
  render({
    axis,
    problem,
    positions,
    distances,
    ridgeA,
    ridgeB,
    infoA,
    infoB,
  }) {
    /** @type {(string | Node)[]} */
    let content = [];
    let kind = "info";
    const switchTo = (/** @type {string} */ id, /** @type {string} */ label) =>
      h("button", {
        className: "tbmf-button tbmf-button--text",
        text: label,
        attrs: { type: "button" },
        dataset: { switchAxis: id },
        on: { click: () => this._onAxis(id) },
      });
    if (problem) {
      kind = "warning";
      content = [
        t("hist.notice.notOnEpoch", { problem }),
        switchTo("progress", t("hist.notice.use.progress")),
        switchTo("step", t("hist.notice.use.step")),
      ];
    } else if (
      distances.shown &&
      positions.length === 0 &&
      !distances.loading
    ) {
      kind = "warning";
      const rangeA = loggedRange(ridgeA);
      const rangeB = loggedRange(ridgeB);
      content = [
        rangeA && rangeB
          ? t("hist.notice.noCommonRanges", {
              axis: t(`axis.${axis}`),
              a: rangeA,
              b: rangeB,
            })
          : t("hist.notice.noCommon", { axis: t(`axis.${axis}`) }),
        axis !== "epoch" && hasEpochAxis(infoA) && hasEpochAxis(infoB)
          ? switchTo("epoch", t("hist.notice.use.epoch"))
          : null,
        axis !== "progress"
          ? switchTo("progress", t("hist.notice.use.progress"))
          : null,
      ].filter((c) => c !== null);
    }
    this.element.hidden = content.length === 0;
    this.element.dataset.kind = kind;
    setChildren(this.element, ...content);
  }
}

/**
 * Where a run logged its histograms on the payload's axis, e.g. `49–399`.
 * @param {HistogramsPayload | null} payload
 * @returns {string} "" when unknown
 */
function loggedRange(payload) {
  if (!payload || payload.excluded) return "";
  const xs = payload.steps
    .map((s) => s.x)
    .filter((x) => typeof x === "number" && Number.isFinite(x));
  if (xs.length === 0) return "";
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? formatValue(lo) : `${formatValue(lo)}–${formatValue(hi)}`;
}
