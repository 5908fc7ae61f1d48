// The pair at one position, drawn on the common edges: A and B side by side
// (same y scale), both overlaid, and the difference A − B.

import { createHistChart } from "../../components/histchart.js";
import { h, setChildren } from "../../dom.js";
import { formatValue } from "../../format.js";
import { t } from "../../i18n.js";
import { formatInteger as formatInt } from "../../intl.js";

/** @typedef {import("./model.js").DiffPayload} DiffPayload */
/** @typedef {import("../../components/histchart.js").HistChart} HistChart */
/** @typedef {import("../../components/histchart.js").HistChartOptions} HistChartOptions */

/** Plot heights (CSS pixels) by how many charts share the space. */
const HEIGHT_GRID = 180;
const HEIGHT_PAIR = 250;
const HEIGHT_SINGLE = 320;
/** Headroom over the tallest bar, as a fraction of it. */
const HEADROOM = 0.06;
/** Cursor sync key of the pair charts (they share the edges). */
const SYNC_KEY = "tbmf-hist-pair";

/** Which charts each rendering shows, in order. */
const LAYOUTS = Object.freeze({
  all: ["a", "b", "overlay", "diff"],
  side: ["a", "b"],
  overlay: ["overlay"],
  diff: ["diff"],
});

/**
 * @typedef {Object} PairChartsModel
 * @property {DiffPayload} diff
 * @property {string} mode one of LAYOUTS
 * @property {{a: string, b: string}} colors
 */

export class PairCharts {
  constructor() {
    this._caption = h("div", {
      className: "tbmf-hist-charts__caption",
      dataset: { role: "caption" },
    });
    this._grid = h("div", { className: "tbmf-hist-charts__grid" });
    this.element = h(
      "div",
      { className: "tbmf-hist-charts" },
      this._caption,
      this._grid,
    );
    /** @type {Map<string, HistChart>} */
    this._charts = new Map();
    this._layout = "";
    /** @type {DiffPayload | null} the payload drawn */
    this._diff = null;
  }

  /** @param {PairChartsModel} model */
  render(model) {
    const { diff, colors } = model;
    const mode = model.mode in LAYOUTS ? model.mode : "all";
    const ids = LAYOUTS[/** @type {keyof typeof LAYOUTS} */ (mode)];
    const height =
      ids.length === 4
        ? HEIGHT_GRID
        : ids.length === 2
          ? HEIGHT_PAIR
          : HEIGHT_SINGLE;
    const layout = `${mode}|${colors.a}|${colors.b}`;
    if (layout === this._layout && diff === this._diff) return;
    this._diff = diff;
    if (layout !== this._layout) {
      this._layout = layout;
      for (const chart of this._charts.values()) chart.destroy();
      this._charts.clear();
      this._grid.dataset.mode = mode;
      this._grid.replaceChildren();
      for (const id of ids) {
        const cell = h("div", {
          className: "tbmf-hist-charts__cell",
          dataset: { chart: id },
        });
        this._grid.appendChild(cell);
        this._charts.set(
          id,
          createHistChart(cell, { ...this._options(id, model), height }),
        );
      }
    } else {
      for (const id of ids) {
        /** @type {HistChart} */ (this._charts.get(id)).update(
          this._options(id, model),
        );
      }
    }
    this._renderCaption(diff);
  }

  destroy() {
    for (const chart of this._charts.values()) chart.destroy();
    this._charts.clear();
  }

  /**
   * @param {string} id
   * @param {PairChartsModel} model
   * @returns {HistChartOptions}
   */
  _options(id, { diff, colors }) {
    const formatY = diff.normalized ? formatShare : formatValue;
    const yLabel = diff.normalized
      ? t("hist.chart.shareOfTotal")
      : t("hist.chart.count");
    const peak = Math.max(0, ...diff.countsA, ...diff.countsB);
    /** @type {[number, number]} */
    const shared = [0, peak > 0 ? peak * (1 + HEADROOM) : 1];
    const describe = (/** @type {number} */ i) => [
      {
        label: `A ${diff.a.run}`,
        value: formatY(diff.countsA[i]),
        color: colors.a,
      },
      {
        label: `B ${diff.b.run}`,
        value: formatY(diff.countsB[i]),
        color: colors.b,
      },
      { label: "A − B", value: formatSigned(diff.diff[i], formatY) },
    ];
    const base = { edges: diff.edges, formatY, describe, syncKey: SYNC_KEY };
    if (id === "a" || id === "b") {
      const side = id === "a" ? diff.a : diff.b;
      return {
        ...base,
        title: chartTitle(
          id.toUpperCase(),
          colors[id],
          side.run,
          t("hist.chart.tagAtStep", {
            tag: side.tag,
            step: formatInt(side.step),
          }),
        ),
        yLabel,
        yRange: shared,
        series: [
          {
            key: id,
            label: side.run,
            color: colors[id],
            values: id === "a" ? diff.countsA : diff.countsB,
            kind: "bars",
          },
        ],
      };
    }
    if (id === "overlay") {
      return {
        ...base,
        title: legendTitle(t("hist.mode.overlay"), [
          ["A", colors.a, diff.a.run],
          ["B", colors.b, diff.b.run],
        ]),
        yLabel,
        yRange: shared,
        series: [
          {
            key: "a",
            label: diff.a.run,
            color: colors.a,
            values: diff.countsA,
            kind: "area",
          },
          {
            key: "b",
            label: diff.b.run,
            color: colors.b,
            values: diff.countsB,
            kind: "area",
          },
        ],
      };
    }
    const reach = Math.max(0, ...diff.diff.map((v) => Math.abs(v)));
    const half = reach > 0 ? reach * (1 + HEADROOM) : 1;
    return {
      ...base,
      title: legendTitle(t("hist.chart.difference"), [
        [t("hist.chart.aMore"), colors.a, null],
        [t("hist.chart.bMore"), colors.b, null],
      ]),
      yLabel: diff.normalized
        ? t("hist.chart.deltaShare")
        : t("hist.chart.deltaCount"),
      yRange: [-half, half],
      zeroLine: true,
      formatY: (v) => formatSigned(v, formatY),
      series: [
        {
          key: "moreA",
          label: t("hist.chart.aMore"),
          color: colors.a,
          values: diff.diff.map((v) => (v > 0 ? v : null)),
        },
        {
          key: "moreB",
          label: t("hist.chart.bMore"),
          color: colors.b,
          values: diff.diff.map((v) => (v < 0 ? v : null)),
        },
      ],
    };
  }

  /** @param {DiffPayload} diff */
  _renderCaption(diff) {
    const buckets = diff.edges.length - 1;
    const totals = t("hist.chart.totals", {
      a: formatInt(diff.totalA),
      b: formatInt(diff.totalB),
    });
    setChildren(
      this._caption,
      h("span", {
        className: `tbmf-hist-pill${diff.normalized ? " is-warn" : ""}`,
        dataset: { normalized: String(diff.normalized) },
        text: diff.normalized
          ? t("hist.chart.shares")
          : t("hist.chart.counts"),
        title: diff.normalized
          ? t("hist.chart.shares.title")
          : t("hist.chart.counts.title"),
      }),
      h("span", {
        text: t("hist.chart.buckets", {
          n: formatInt(buckets),
          from: formatValue(diff.edges[0]),
          to: formatValue(diff.edges[buckets]),
        }),
      }),
      h("span", {
        className: "tbmf-muted",
        text: totals,
        dataset: { role: "totals" },
      }),
    );
  }
}

/**
 * @param {string} letter
 * @param {string} color
 * @param {string} run
 * @param {string} detail
 * @returns {HTMLElement} "A run detail" with A in the run's colour (the
 *     pair's charts and the ridge charts)
 */
export function chartTitle(letter, color, run, detail) {
  return h(
    "span",
    { className: "tbmf-hist-title" },
    h("span", {
      className: "tbmf-hist-title__letter",
      text: letter,
      style: { "--run": color },
    }),
    h("span", { className: "tbmf-hist-title__run", text: run }),
    h("span", { className: "tbmf-hist-title__detail", text: detail }),
  );
}

/**
 * @param {string} text
 * @param {[string, string, string | null][]} keys label, colour, run
 * @returns {HTMLElement}
 */
function legendTitle(text, keys) {
  return h(
    "span",
    { className: "tbmf-hist-title" },
    h("span", { className: "tbmf-hist-title__run", text }),
    keys.map(([label, color, run]) =>
      h(
        "span",
        { className: "tbmf-hist-title__key", title: run ?? "" },
        h("span", { className: "tbmf-hist-swatch", style: { "--run": color } }),
        label,
      ),
    ),
  );
}

/**
 * @param {number} value a fraction
 * @returns {string} a percentage
 */
function formatShare(value) {
  return `${formatValue(value * 100)}%`;
}

/**
 * @param {number} value
 * @param {(v: number) => string} format
 * @returns {string} with an explicit sign
 */
function formatSigned(value, format) {
  if (value > 0) return `+${format(value)}`;
  if (value < 0) return `−${format(-value)}`;
  return format(0);
}
