// A layout chart on the Compare view's comparison panel. A panel draws one
// tag or one metric; a layout chart draws a list of (run, tag) pairs that
// its regexes matched, possibly with a different tag in every run, and a
// margin chart draws a value line with a band between two more tags. This
// adapter plans the `GET scalars` requests such a chart needs, sends them
// together, merges the answers into one scalars answer and lets the panel
// draw it (title, badge, notes, zoom, baseline difference chart: all the
// panel's).
//
// Grouping (planRequests):
// - multiline: pairs that belong to one canonical metric are fetched with
//   `metric=`, so a baseline in another framework (another tag) still gets
//   its difference curves from the server's alignment engine; other pairs
//   with `tag=` per tag. A metric is only used when every series of the
//   baseline run in it is drawn here (the server diffs against the
//   baseline's first series of the request).
// - margin: the value tags with `tag=` (with the baseline), the lower and
//   upper tags at the most points the route allows, so the band's edges
//   are read at the value's x without resampling error.

import { clampPoints, ComparisonChart, MAX_POINTS } from "../compare/panel.js";
import { t } from "../../i18n.js";
import { pairId } from "./api.js";

/**
 * @typedef {import("../compare/panel.js").PanelOptions} PanelOptions
 * @typedef {import("../compare/series.js").ScalarsResponse} ScalarsResponse
 * @typedef {import("../compare/series.js").ScalarSeries} ScalarSeries
 * @typedef {import("./api.js").PreviewMatch} PreviewMatch
 * @typedef {import("./api.js").MetricIndex} MetricIndex
 *
 * @typedef {Object} LayoutChartExtras
 * @property {'multiline' | 'margin'} kind
 * @property {PreviewMatch[]} pairs what to draw, in legend order
 * @property {MetricIndex | null} [metricIndex] null: group by tag only
 * @property {{run: string, reason: string}[]} [missing] runs not drawn
 * @property {string} [emptyText] shown when `pairs` is empty
 *
 * @typedef {PanelOptions & LayoutChartExtras} LayoutChartOptions
 *
 * @typedef {Object} PlannedRequest
 * @property {'main' | 'lower' | 'upper'} role
 * @property {Record<string, any>} params the scalars arguments
 * @property {Set<string>} wanted pairIds of the series kept from it
 */

/**
 * Mounts a layout chart at the end of `container`.
 * @param {HTMLElement} container
 * @param {import("../../app.js").ViewContext} ctx
 * @param {LayoutChartOptions} options
 * @returns {LayoutChartPanel}
 */
export function mountLayoutChart(container, ctx, options) {
  return new LayoutChartPanel(container, ctx, options);
}

export class LayoutChartPanel extends ComparisonChart {
  /** @returns {LayoutChartOptions} */
  get layoutOptions() {
    return /** @type {LayoutChartOptions} */ (this.options);
  }

  /**
   * The scalars arguments when one tag request draws the whole chart (the
   * export links use them); null otherwise.
   * @returns {Record<string, any> | null}
   */
  _params() {
    const plan = planRequests(this.layoutOptions);
    if (plan.length !== 1 || !plan[0].params.tag) return null;
    return { ...plan[0].params };
  }

  /**
   * One request per group of matched pairs (see `planRequests`).
   * @returns {{requests: Record<string, any>[]} | {message: string}}
   */
  plan() {
    const options = this.layoutOptions;
    this._plan = planRequests(options);
    options.showExport = this._params() !== null;
    if (this._plan.length === 0) {
      return { message: options.emptyText ?? t("layouts.chart.nothing") };
    }
    return { requests: this._plan.map((r) => r.params) };
  }

  /**
   * @param {import("../compare/series.js").ScalarsResponse[]} responses
   * @returns {import("../compare/series.js").ScalarsResponse}
   */
  merge(responses) {
    return mergeResponses(this.layoutOptions, this._plan ?? [], responses);
  }
}

/**
 * The scalars requests a layout chart needs.
 * @param {LayoutChartOptions} options
 * @returns {PlannedRequest[]}
 */
export function planRequests(options) {
  const pairs = options.pairs ?? [];
  if (pairs.length === 0) return [];
  /** @type {Record<string, any>} */
  const common = { x: options.x ?? "step" };
  if (options.xRange) {
    common.xMin = options.xRange[0];
    common.xMax = options.xRange[1];
  }
  const points = clampPoints(options.points);
  const baseline = options.baseline ?? null;
  /** @type {PlannedRequest[]} */
  const plan = [];
  /**
   * @param {Record<string, any>} params
   * @param {string[]} runs
   */
  const withBaseline = (params, runs) => {
    if (baseline && runs.includes(baseline)) {
      params.baseline = baseline;
      if (options.diffMode === "ratio") params.diffMode = "ratio";
    }
    return params;
  };

  if (options.kind === "margin") {
    for (const group of groupBy(pairs, (p) => p.tag)) {
      const runs = group.map((p) => p.run);
      plan.push({
        role: "main",
        params: withBaseline(
          { tag: group[0].tag, run: runs, ...common, points },
          runs,
        ),
        wanted: new Set(group.map((p) => pairId(p.run, p.tag))),
      });
    }
    for (const role of /** @type {const} */ (["lower", "upper"])) {
      const edges = pairs.filter((p) => p[role]);
      for (const group of groupBy(edges, (p) => String(p[role]))) {
        const tag = String(group[0][role]);
        plan.push({
          role,
          params: {
            tag,
            run: [...new Set(group.map((p) => p.run))],
            ...common,
            points: MAX_POINTS,
          },
          wanted: new Set(group.map((p) => pairId(p.run, tag))),
        });
      }
    }
    return plan;
  }

  /** @type {Record<string, any>} */
  const smoothing = {};
  if (options.smoothing && options.smoothing > 0) {
    smoothing.smoothing = options.smoothing;
    if (options.smoothingMode === "time") smoothing.smoothingMode = "time";
  }
  for (const group of groupMultiline(
    pairs,
    options.metricIndex ?? null,
    baseline,
  )) {
    const selector = group.metric
      ? { metric: group.metric }
      : { tag: /** @type {string} */ (group.tag) };
    plan.push({
      role: "main",
      params: withBaseline(
        { ...selector, run: group.runs, ...common, ...smoothing, points },
        group.runs,
      ),
      wanted: group.wanted,
    });
  }
  return plan;
}

/**
 * @typedef {Object} PairGroup
 * @property {string | null} metric a metric key, or null for a tag request
 * @property {string | null} tag
 * @property {string[]} runs
 * @property {Set<string>} wanted
 */

/**
 * Puts each pair in a metric request (the metric holding the baseline's
 * series first, then the one most pairs share) or else a tag request.
 * @param {PreviewMatch[]} pairs
 * @param {MetricIndex | null} index
 * @param {string | null} baseline
 * @returns {PairGroup[]}
 */
export function groupMultiline(pairs, index, baseline) {
  const wanted = new Set(pairs.map((p) => pairId(p.run, p.tag)));
  /** @param {PreviewMatch} p */
  const keysOf = (p) => index?.keysOf.get(pairId(p.run, p.tag)) ?? [];
  /** @type {Map<string, number>} */
  const shared = new Map();
  for (const pair of pairs) {
    for (const key of keysOf(pair)) shared.set(key, (shared.get(key) ?? 0) + 1);
  }
  const baselineKeys = new Set(
    pairs.filter((p) => p.run === baseline).flatMap(keysOf),
  );
  /** @param {string} key */
  const usable = (key) =>
    (index?.members.get(key) ?? [])
      .filter((m) => m.run === baseline)
      .every((m) => wanted.has(pairId(m.run, m.tag)));

  /** @type {Map<string, PairGroup>} */
  const groups = new Map();
  for (const pair of pairs) {
    /** @type {string | null} */
    let best = null;
    for (const key of keysOf(pair).filter(usable)) {
      if (best === null || better(key, best)) best = key;
    }
    const id = best ? `metric:${best}` : `tag:${pair.tag}`;
    let group = groups.get(id);
    if (!group) {
      group = {
        metric: best,
        tag: best ? null : pair.tag,
        runs: [],
        wanted: new Set(),
      };
      groups.set(id, group);
    }
    if (!group.runs.includes(pair.run)) group.runs.push(pair.run);
    group.wanted.add(pairId(pair.run, pair.tag));
  }
  return [...groups.values()];

  /**
   * @param {string} a
   * @param {string} b
   * @returns {boolean} whether metric `a` is the better request
   */
  function better(a, b) {
    const baseA = baselineKeys.has(a) ? 1 : 0;
    const baseB = baselineKeys.has(b) ? 1 : 0;
    if (baseA !== baseB) return baseA > baseB;
    const countA = shared.get(a) ?? 0;
    const countB = shared.get(b) ?? 0;
    if (countA !== countB) return countA > countB;
    return a < b;
  }
}

/**
 * One scalars answer from the answers of a plan: the wanted series in the
 * order of `options.pairs`, their difference curves, and for margin charts
 * each value series' band from its lower and upper series.
 * @param {LayoutChartOptions} options
 * @param {PlannedRequest[]} plan
 * @param {ScalarsResponse[]} responses one per request, same order
 * @returns {ScalarsResponse}
 */
export function mergeResponses(options, plan, responses) {
  const order = new Map(
    (options.pairs ?? []).map((p, i) => [pairId(p.run, p.tag), i]),
  );
  /** @param {{run: string, tag: string}} s */
  const rank = (s) => order.get(pairId(s.run, s.tag)) ?? order.size;
  /** @type {ScalarSeries[]} */
  let series = [];
  /** @type {import("../compare/series.js").DiffSeries[]} */
  const diffs = [];
  /** @type {Map<string, ScalarSeries>} */
  const edges = new Map();
  /** @type {Record<string, string>} */
  const epochSources = {};
  const seen = new Set();
  const seenDiffs = new Set();
  let baselineUsed = false;
  /** @type {ScalarsResponse | null} */
  let first = null;
  plan.forEach((request, i) => {
    const response = responses[i];
    Object.assign(epochSources, response.epochSources ?? {});
    if (request.role !== "main") {
      for (const s of response.series) {
        edges.set(`${request.role}\u0000${pairId(s.run, s.tag)}`, s);
      }
      return;
    }
    first = first ?? response;
    if (response.baseline) baselineUsed = true;
    for (const s of response.series) {
      const id = pairId(s.run, s.tag);
      if (request.wanted.has(id) && !seen.has(id)) {
        seen.add(id);
        series.push(s);
      }
    }
    for (const d of response.diffs ?? []) {
      const id = pairId(d.run, d.tag);
      if (request.wanted.has(id) && !seenDiffs.has(id)) {
        seenDiffs.add(id);
        diffs.push(d);
      }
    }
  });
  series.sort((a, b) => rank(a) - rank(b));
  diffs.sort((a, b) => rank(a) - rank(b));

  if (options.kind === "margin") {
    const byValue = new Map(
      (options.pairs ?? []).map((p) => [pairId(p.run, p.tag), p]),
    );
    series = series.map((s) => {
      const pair = byValue.get(pairId(s.run, s.tag));
      if (!pair || s.excluded) return s;
      const lower = edges.get(`lower\u0000${pairId(s.run, pair.lower ?? "")}`);
      const upper = edges.get(`upper\u0000${pairId(s.run, pair.upper ?? "")}`);
      return {
        ...s,
        yMin:
          lower && !lower.excluded
            ? alignEdge(lower, s.x)
            : Array.from(s.x, none),
        yMax:
          upper && !upper.excluded
            ? alignEdge(upper, s.x)
            : Array.from(s.x, none),
      };
    });
  }

  const head = /** @type {ScalarsResponse} */ (first ?? responses[0]);
  return {
    x: head.x,
    smoothing: head.smoothing ?? 0,
    smoothingMode: head.smoothingMode ?? "ema",
    points: head.points,
    baseline: baselineUsed ? (options.baseline ?? null) : null,
    diffMode: head.diffMode ?? "difference",
    series,
    diffs,
    missing: options.missing ?? [],
    epochSources,
  };
}

/**
 * A band edge read at the value series' x: its own point where it has
 * one, else the straight line between its neighbours; null outside its
 * range or next to a non-finite value.
 * @param {{x: ArrayLike<number>, y: ArrayLike<number | string | null>}} edge
 *     x ascending
 * @param {ArrayLike<number>} xs ascending
 * @returns {(number | null)[]}
 */
export function alignEdge(edge, xs) {
  const ex = edge.x;
  // Array.from, not map: a typed array's map would turn null into 0.
  const ey = Array.from(edge.y, (v) =>
    typeof v === "number" && Number.isFinite(v) ? v : null,
  );
  let j = 0;
  return Array.from(xs, (x) => {
    while (j < ex.length && ex[j] < x) j++;
    if (j < ex.length && ex[j] === x) return ey[j];
    if (j === 0 || j >= ex.length) return null;
    const a = ey[j - 1];
    const b = ey[j];
    if (a === null || b === null) return null;
    const t = (x - ex[j - 1]) / (ex[j] - ex[j - 1]);
    return a + t * (b - a);
  });
}

/** @returns {null} */
function none() {
  return null;
}

/**
 * Groups items by a key, in first-seen order.
 * @template T
 * @param {T[]} items
 * @param {(item: T) => string} keyOf
 * @returns {T[][]}
 */
function groupBy(items, keyOf) {
  /** @type {Map<string, T[]>} */
  const groups = new Map();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()];
}
