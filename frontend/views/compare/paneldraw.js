// How a comparison panel draws an answer: its elements, the series of the
// main and difference charts, the charts created or updated, the
// difference chart's title, the points badge, difference tooltips.

import { createChart } from "../../components/chart.js";
import { lowerBound } from "../../components/chartmarks.js";
import { h, icon } from "../../dom.js";
import { formatDifference, formatInt, formatValue } from "../../format.js";
import { colorScope } from "../../colors.js";
import { t } from "../../i18n.js";
import { colorFor, styleFor } from "./colors.js";
import {
  AGGREGATES,
  BANDS,
  groupChartSeries,
  groupColor,
  groupDiffSeries,
} from "./groups.js";
import { diffChartSeries, mainChartSeries, pointCounts } from "./series.js";

/**
 * @typedef {import("./series.js").ScalarsResponse} ScalarsResponse
 * @typedef {import("./panel.js").PanelOptions} PanelOptions
 * @typedef {import("../../model.js").Catalog} Catalog
 * @typedef {import("../../components/chart.js").Chart} Chart
 * @typedef {import("../../components/chart.js").ChartOptions} ChartOptions
 * @typedef {import("../../components/chart.js").ChartSeries} ChartSeries
 */

/** Drawn series up to which min/max bands are drawn: past it they cost a
 * third of the drawing and add nothing the line (which passes through
 * every bucket's min and max) does not show. */
export const MAX_BANDED_SERIES = 12;

/**
 * @typedef {Object} PanelElements
 * @property {HTMLElement} element the panel (`.tbmf-cmp-panel`)
 * @property {HTMLElement} title
 * @property {HTMLElement} subtitle
 * @property {HTMLElement} badge "N of M points"
 * @property {HTMLButtonElement} zoomChip the zoom window; a click resets it
 * @property {HTMLAnchorElement} csv
 * @property {HTMLAnchorElement} json
 * @property {HTMLElement} exports
 * @property {HTMLElement} notes
 * @property {HTMLElement} error
 * @property {HTMLElement} message
 * @property {HTMLElement} progress
 * @property {HTMLElement} mainHost
 * @property {HTMLElement} diffTitle
 * @property {HTMLElement} diffHost
 * @property {HTMLElement} diffEmpty
 * @property {HTMLElement} diffBox
 */

/**
 * The panel's elements: header (title, zoom chip, badge, exports), the
 * loading bar, notes, error and message boxes, the main chart's host and
 * the difference chart's box.
 * @param {() => void} onZoomReset a click on the zoom chip
 * @returns {PanelElements}
 */
export function panelElements(onZoomReset) {
  const title = h("h3", { className: "tbmf-cmp-panel__title" });
  const subtitle = h("span", { className: "tbmf-cmp-panel__subtitle" });
  const badge = h("span", {
    className: "tbmf-cmp-badge",
    attrs: { "aria-live": "polite" },
  });
  const zoomChip = h(
    "button",
    {
      className: "tbmf-cmp-zoom",
      title: t("cmp.zoom.reset"),
      attrs: { type: "button", hidden: true },
      on: { click: onZoomReset },
    },
    h("span", { className: "tbmf-cmp-zoom__text" }),
    icon("close", { size: 14 }),
  );
  const csv = exportLink("CSV");
  const json = exportLink("JSON");
  const exports = h("span", { className: "tbmf-cmp-exports" }, csv, json);
  const notes = h("div", {
    className: "tbmf-cmp-notes",
    attrs: { hidden: true },
  });
  const error = h("div", {
    className: "tbmf-cmp-panel__error",
    attrs: { role: "alert", hidden: true },
  });
  const message = h("div", {
    className: "tbmf-cmp-panel__message",
    attrs: { hidden: true },
  });
  const progress = h("div", {
    className: "tbmf-cmp-panel__progress",
    attrs: { hidden: true, "aria-hidden": "true" },
  });
  const mainHost = h("div", { className: "tbmf-cmp-panel__chart" });
  const diffTitle = h("div", { className: "tbmf-cmp-panel__diff-title" });
  const diffHost = h("div", { className: "tbmf-cmp-panel__chart" });
  const diffEmpty = h("div", {
    className: "tbmf-cmp-panel__diff-empty",
    text: t("cmp.diff.empty"),
    attrs: { hidden: true },
  });
  const diffBox = h(
    "div",
    {
      className: "tbmf-cmp-panel__diff",
      attrs: { hidden: true },
    },
    diffTitle,
    diffEmpty,
    diffHost,
  );
  const element = h(
    "section",
    {
      className: "tbmf-cmp-panel",
      dataset: { state: "empty" },
    },
    h(
      "header",
      { className: "tbmf-cmp-panel__head" },
      h("div", { className: "tbmf-cmp-panel__heading" }, title, subtitle),
      h("div", { className: "tbmf-cmp-panel__meta" }, zoomChip, badge, exports),
    ),
    progress,
    notes,
    error,
    message,
    mainHost,
    diffBox,
  );
  return {
    title,
    subtitle,
    badge,
    zoomChip,
    csv,
    json,
    exports,
    notes,
    error,
    message,
    progress,
    mainHost,
    diffTitle,
    diffHost,
    diffEmpty,
    diffBox,
    element,
  };
}

/**
 * The main and difference charts' series of an answer (after the groups
 * took their colours, as the styles depend on them).
 * @param {ScalarsResponse} response
 * @param {PanelOptions} o
 * @param {Catalog} catalog
 * @returns {{main: ChartSeries[], diffs: ChartSeries[]}}
 */
export function panelSeries(response, o, catalog) {
  // Raw-tag mode: every series has the same tag, the run names suffice.
  const showTag = !o.tag;
  const grouped = Array.isArray(/** @type {any} */ (response).aggregates);
  const colorOf = (/** @type {string} */ run) => styleFor(run).color;
  const dashOf = (/** @type {string} */ run) => styleFor(run).dash;
  const bands = drawnCount(response) <= MAX_BANDED_SERIES;
  const main = grouped
    ? groupChartSeries(response, {
        catalog,
        showMembers: Boolean(o.showMembers),
      })
    : mainChartSeries(response, { showTag, colorOf, dashOf, bands });
  const diffs = grouped
    ? groupDiffSeries(response, { catalog })
    : response.baseline
      ? diffChartSeries(response, {
          showTag,
          colorOf,
          dashOf,
          bands,
          format: (diff) => differenceFormatter(response, diff),
        })
      : [];
  return { main, diffs };
}

/**
 * Creates a chart in `host`, or updates `chart`: with every option when its
 * look (the options other than the data) changed, else with the data only.
 * @param {Chart | null} chart
 * @param {HTMLElement} host
 * @param {boolean} lookChanged
 * @param {Partial<ChartOptions>} look
 * @param {Partial<ChartOptions>} data series, xRange, ignoreOutliers
 * @returns {Chart}
 */
export function placeChart(chart, host, lookChanged, look, data) {
  if (!chart) {
    return createChart(
      host,
      /** @type {ChartOptions} */ ({ ...look, ...data }),
    );
  }
  chart.update(lookChanged ? { ...look, ...data } : data);
  return chart;
}

/**
 * The difference chart's title: what is drawn, and the baseline.
 * @param {ScalarsResponse} response
 * @param {Catalog} catalog
 * @returns {HTMLElement[]}
 */
export function diffTitleParts(response, catalog) {
  const group = /** @type {any} */ (response).baselineGroup;
  const ratio = !group && response.diffMode === "ratio";
  const baseline = /** @type {string} */ (group ?? response.baseline);
  const dot = group ? groupColor(catalog, group) : colorFor(baseline);
  return [
    h("span", {
      className: "tbmf-cmp-panel__diff-kind",
      text: ratio ? t("cmp.diff.ratioTitle") : t("cmp.diff.differenceTitle"),
    }),
    h("span", {
      className: "tbmf-cmp-panel__diff-formula",
      text: group
        ? t("cmp.diff.groupFormula", {
            aggregate: choiceText(AGGREGATES, /** @type {any} */ (response).aggregate),
            band: choiceText(BANDS, /** @type {any} */ (response).band),
          })
        : ratio
          ? t("cmp.diff.ratioFormula")
          : t("cmp.diff.differenceFormula"),
    }),
    h(
      "span",
      { className: "tbmf-cmp-panel__diff-baseline" },
      h("span", {
        className: "tbmf-dot",
        style: { "--dot": dot },
      }),
      h("span", { text: baseline }),
    ),
  ];
}

/**
 * The "N of M points" badge.
 * @param {HTMLElement} badge
 * @param {ScalarsResponse} response
 * @param {boolean} windowed a zoom window is loaded
 */
export function renderBadge(badge, response, windowed) {
  const counts = pointCounts(response);
  badge.hidden = counts.series === 0;
  badge.dataset.returned = String(counts.returned);
  badge.dataset.total = String(counts.total);
  badge.classList.toggle("is-complete", counts.complete);
  if (counts.complete) {
    badge.textContent = t("cmp.badge.all", { n: formatInt(counts.total) });
    badge.title = t("cmp.badge.all.help");
  } else {
    badge.textContent = t("cmp.points.some", {
      n: formatInt(counts.returned),
      total: formatInt(counts.total),
    });
    badge.title =
      (windowed ? t("cmp.badge.windowed") : "") +
      t("cmp.badge.help", { n: formatInt(response.points) });
  }
}

/**
 * @param {string} label
 * @returns {HTMLAnchorElement}
 */
function exportLink(label) {
  return h("a", {
    className: "tbmf-cmp-export",
    text: label,
    title: t("cmp.export", { format: label }),

    dataset: { format: label.toLowerCase() },
    attrs: { download: "" },
  });
}

/**
 * @param {ScalarsResponse} response
 * @returns {number} series the main chart draws
 */
function drawnCount(response) {
  return response.series.filter((s) => !s.excluded).length;
}

/**
 * The tooltip text of a difference curve's values: to the precision of the
 * two values it subtracts (format.js formatDifference), whose larger
 * magnitude at x is read from the run's and the baseline's own series.
 * Ratios need nothing: five significant digits already hide float noise.
 * @param {ScalarsResponse} response
 * @param {import("./series.js").DiffSeries} diff
 * @returns {((value: number, x: number) => string) | undefined}
 */
export function differenceFormatter(response, diff) {
  if (response.diffMode === "ratio") return undefined;
  const smoothed = response.smoothing > 0;
  const find = (/** @type {string} */ run, /** @type {string} */ tag) =>
    response.series.find((s) => s.run === run && s.tag === tag && !s.excluded);
  const own = find(diff.run, diff.tag);
  const base = find(diff.baseline, diff.baselineTag);
  return (value, x) => {
    const scale = Math.max(
      magnitudeAt(own, x, smoothed),
      magnitudeAt(base, x, smoothed),
      // The operands are at least as large as the difference.
      Math.abs(value),
    );
    return formatDifference(value, scale);
  };
}

/**
 * |value| of a series at its point nearest to x (0 when unknown).
 * @param {import("./series.js").ScalarSeries | undefined} series
 * @param {number} x
 * @param {boolean} smoothed read the smoothed values
 * @returns {number}
 */
function magnitudeAt(series, x, smoothed) {
  if (!series || series.x.length === 0) return 0;
  const i = lowerBound(series.x, x);
  const candidates = [i - 1, i].filter((j) => j >= 0 && j < series.x.length);
  let best = 0;
  for (const j of candidates) {
    for (const values of smoothed ? [series.smoothed, series.y] : [series.y]) {
      const v = Number(values[j]);
      if (Number.isFinite(v)) best = Math.max(best, Math.abs(v));
    }
  }
  return best;
}

/**
 * The x extent of the drawn series.
 * @param {ScalarsResponse} response
 * @returns {[number, number] | null}
 */
export function dataExtent(response) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const series of response.series) {
    if (series.excluded || series.x.length === 0) continue;
    lo = Math.min(lo, series.x[0]);
    hi = Math.max(hi, series.x[series.x.length - 1]);
  }
  return lo < hi ? [lo, hi] : null;
}

/**
 * @param {'number' | 'time'} xType
 * @returns {(x: number) => string}
 */
export function formatX(xType) {
  if (xType === "time") {
    return (x) => new Date(x * 1000).toLocaleTimeString("en-GB");
  }
  return formatValue;
}

/**
 * The groups on screen take the run colours' places (colors.js scope),
 * so no two groups share a colour and members take their group's.
 * @param {{group: string, members: {run: string}[]}[] | null} aggregates
 * @param {string} before the grouping already in the scope (signature)
 * @returns {string} the grouping now in the scope ("[]": none)
 */
export function scopeGroups(aggregates, before) {
  const groupOf = new Map();
  for (const entry of aggregates ?? []) {
    for (const member of entry.members) groupOf.set(member.run, entry.group);
  }
  const signature = JSON.stringify([...groupOf]);
  if (signature === before) return before;
  colorScope.setGroupOf(
    groupOf.size ? (run) => groupOf.get(run) ?? null : null,
  );
  return signature;
}

/**
 * A choice's label (groups.js: value → catalog key), else the value.
 * @param {readonly (readonly string[])[]} choices
 * @param {string} value
 * @returns {string}
 */
function choiceText(choices, value) {
  const key = choices.find(([v]) => v === value)?.[1];
  return key ? t(key) : value;
}
