// Turns a `GET scalars` answer into chart series, point counts and notes.
// No DOM here: the panel draws what these functions return.

import { formatInt } from "../../format.js";
import { serverText, t } from "../../i18n.js";

/**
 * @typedef {number | string | null} Value a number, or the server's
 *     "NaN" / "Infinity" / "-Infinity", or null (no finite value); arrays
 *     of them arrive as typed arrays (`fetchScalars`), whose NaN and
 *     ±Infinity are plain numbers
 *
 * @typedef {ArrayLike<Value>} Values plain arrays, or typed arrays when
 *     model.js decodes a compact payload (NaN for gaps and NaN alike)
 *
 * @typedef {Object} ScalarSeries One entry of `series` in `GET scalars`.
 * @property {string} run
 * @property {string} tag
 * @property {ArrayLike<number>} x
 * @property {Values} y
 * @property {Values} yMin
 * @property {Values} yMax
 * @property {Values} smoothed
 * @property {ArrayLike<number | bigint>} [steps] BigInt64Array beyond 2^53
 * @property {number} total points logged
 * @property {number} returned points sent
 * @property {string} [excluded] why it has no place on the axis
 * @property {boolean} [superseded] points a resumed run's later attempt
 *     (or a later point at the same step) replaced (`attempts=all`)
 * @property {number} [attempt] the attempt they were logged in
 * @property {{superseded: number, repeated: number}} [hidden] points of
 *     this series not drawn by default
 * @property {string} [aggregation] per_batch | running_mean | epoch_mean | …
 * @property {string} [batchValues] how the values were converted, if at all
 *
 * @typedef {ScalarSeries & {baseline: string, baselineTag: string}} DiffSeries
 *
 * @typedef {Object} ScalarsResponse The body of `GET scalars`.
 * @property {string} x
 * @property {number} smoothing
 * @property {string} smoothingMode
 * @property {number} points
 * @property {string | null} baseline
 * @property {string} diffMode
 * @property {ScalarSeries[]} series
 * @property {DiffSeries[]} diffs
 * @property {{run: string, reason: string}[]} missing
 * @property {Record<string, string>} [epochSources]
 * @property {number} [dataVersion]
 *
 * @typedef {import("../../components/chart.js").ChartSeries} ChartSeries
 */

/** Dash of the baseline run's curves. */
export const BASELINE_DASH = Object.freeze([7, 4]);
/** Dash of a run's second (third, ...) tag in one metric. */
export const EXTRA_TAG_DASH = Object.freeze([2, 3]);
/** Dash and opacity of superseded points (an earlier attempt). */
export const SUPERSEDED_DASH = Object.freeze([4, 4]);
const SUPERSEDED_ALPHA = 0.35;
/** Opacity of the raw line under a smoothed one (TensorBoard draws it faint). */
const RAW_ALPHA = 0.3;
/** Line widths in CSS pixels. */
const LINE_WIDTH = 1.5;
const SMOOTHED_WIDTH = 2;
/** Key of the reference line (0 or 1) in the difference chart. */
export const REFERENCE_KEY = "__baseline__";

/**
 * @typedef {Object} SeriesOptions
 * @property {boolean} [showTag] label `run · tag` (default true; false when
 *     every series has the same tag)
 * @property {(run: string) => string} [colorOf] a run's colour (default: the
 *     chart's)
 * @property {(run: string) => (readonly number[] | null)} [dashOf] a run's
 *     own dash (runs past the palette's colours); the baseline's and a
 *     second tag's dashes win
 * @property {boolean} [bands] draw min/max bands (default true; the line
 *     already passes through every bucket's min and max, so many runs can
 *     do without)
 */

/**
 * The key of a (run, tag) series, unique in a chart.
 * @param {string} run
 * @param {string} tag
 * @returns {string}
 */
export function seriesKey(run, tag) {
  return `${run} · ${tag}`;
}

/**
 * `175 of 400 points`, or `all 400 points`.
 * @param {number} returned
 * @param {number} total
 * @returns {string}
 */
export function pointsNote(returned, total) {
  return returned >= total
    ? t("cmp.points.all", { n: formatInt(total) })
    : t("cmp.points.some", {
        n: formatInt(returned),
        total: formatInt(total),
      });
}

/**
 * What a series does not draw by default, e.g. `80 superseded hidden`.
 * @param {ScalarSeries} series
 * @returns {string} "" when nothing is hidden
 */
export function hiddenNote(series) {
  const hidden = series.hidden;
  if (!hidden) return "";
  const parts = [];
  if (hidden.superseded) {
    parts.push(t("cmp.hidden.superseded", { n: formatInt(hidden.superseded) }));
  }
  if (hidden.repeated) {
    parts.push(t("cmp.hidden.repeated", { n: formatInt(hidden.repeated) }));
  }
  return parts.length
    ? t("cmp.hidden.notDrawn", { parts: parts.join(t("cmp.list.comma")) })
    : "";
}

/**
 * @param {ScalarsResponse} response
 * @returns {ScalarSeries[]} the series drawn (not excluded)
 */
export function drawnSeries(response) {
  return response.series.filter((s) => !s.excluded);
}

/**
 * The main chart's series: one a (run, tag); with smoothing, the smoothed
 * line bold over the raw one drawn faint with its min/max band.
 * @param {ScalarsResponse} response
 * @param {SeriesOptions} [options]
 * @returns {ChartSeries[]}
 */
export function mainChartSeries(
  response,
  { showTag = true, colorOf, dashOf, bands = true } = {},
) {
  const smoothing = response.smoothing > 0;
  /** @type {Map<string, number>} */
  const tagsSeen = new Map();
  /** @type {ChartSeries[]} */
  const out = [];
  for (const series of drawnSeries(response)) {
    if (series.superseded) {
      out.push(supersededSeries(series, showTag, colorOf));
      continue;
    }
    const nth = tagsSeen.get(series.run) ?? 0;
    tagsSeen.set(series.run, nth + 1);
    const key = seriesKey(series.run, series.tag);
    const label = showTag ? key : series.run;
    const isBaseline = response.baseline === series.run;
    const own = dashOf?.(series.run);
    const dash = isBaseline
      ? [...BASELINE_DASH]
      : nth > 0
        ? [...EXTRA_TAG_DASH]
        : own
          ? [...own]
          : undefined;
    const band = bands
      ? {
          yMin: /** @type {any} */ (series.yMin),
          yMax: /** @type {any} */ (series.yMax),
        }
      : {};
    // On the step axis x is the step: its exact digits for the tooltip.
    const exactSteps = response.x === "step" ? series.steps : undefined;
    const note =
      (isBaseline ? t("cmp.series.baseline") : "") +
      pointsNote(series.returned, series.total) +
      hiddenNote(series) +
      (series.batchValues ? ` · ${series.batchValues}` : "");
    if (smoothing) {
      out.push({
        key: `${key} (raw)`,
        run: series.run,
        color: colorOf?.(series.run),
        label: t("cmp.series.raw", { label }),
        linkedTo: key,
        legend: false,
        markers: false,
        alpha: RAW_ALPHA,
        width: 1,
        dash,
        x: series.x,
        y: /** @type {any} */ (series.y),
        ...band,
      });
      out.push({
        key,
        run: series.run,
        color: colorOf?.(series.run),
        label,
        note,
        width: SMOOTHED_WIDTH,
        dash,
        x: series.x,
        xExact: exactSteps,
        y: /** @type {any} */ (series.smoothed),
      });
    } else {
      out.push({
        key,
        run: series.run,
        color: colorOf?.(series.run),
        label,
        note,
        width: LINE_WIDTH,
        dash,
        x: series.x,
        xExact: exactSteps,
        y: /** @type {any} */ (series.y),
        ...band,
      });
    }
  }
  return out;
}

/**
 * An earlier attempt's superseded points: faint and dashed, in the run's
 * colour, never smoothed over (they are shown as logged).
 * @param {ScalarSeries} series
 * @param {boolean} showTag
 * @param {((run: string) => string) | undefined} colorOf
 * @returns {ChartSeries}
 */
function supersededSeries(series, showTag, colorOf) {
  const base = showTag ? seriesKey(series.run, series.tag) : series.run;
  const label = t("cmp.series.superseded", {
    name: base,
    attempt: series.attempt ?? 0,
  });
  return {
    key: `${seriesKey(series.run, series.tag)} · attempt ${series.attempt}`,
    run: series.run,
    color: colorOf?.(series.run),
    label,
    note: t("cmp.series.replaced", {
      points: pointsNote(series.returned, series.total),
    }),
    alpha: SUPERSEDED_ALPHA,
    width: 1,
    dash: [...SUPERSEDED_DASH],
    x: series.x,
    y: /** @type {any} */ (series.y),
  };
}

/**
 * The difference chart's series: each run's A − B (or A / B) against the
 * baseline, plus the baseline itself as a dashed reference line at 0 (1).
 * In a diff, NaN means "no value here" (a gap), not a logged NaN, so it is
 * drawn as a gap without a marker; ±Inf keeps its marker.
 * @param {ScalarsResponse} response
 * @param {SeriesOptions & {format?: (diff: DiffSeries) =>
 *     ((value: number, x: number) => string) | undefined}} [options]
 *     as for mainChartSeries; `format` gives each diff's tooltip text
 * @returns {ChartSeries[]}
 */
export function diffChartSeries(
  response,
  { showTag = true, colorOf, dashOf, bands = true, format } = {},
) {
  const smoothing = response.smoothing > 0;
  const diffs = (response.diffs ?? []).filter((d) => !d.excluded);
  if (diffs.length === 0 || !response.baseline) return [];
  /** @type {ChartSeries[]} */
  const out = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const diff of diffs) {
    if (diff.x.length) {
      lo = Math.min(lo, diff.x[0]);
      hi = Math.max(hi, diff.x[diff.x.length - 1]);
    }
    const key = seriesKey(diff.run, diff.tag);
    const label = showTag ? key : diff.run;
    const note = pointsNote(diff.returned, diff.total);
    const y = gapsForNaN(diff.y);
    const own = dashOf?.(diff.run);
    const dash = own ? [...own] : undefined;
    const formatDiff = format?.(diff);
    const band = bands
      ? { yMin: gapsForNaN(diff.yMin), yMax: gapsForNaN(diff.yMax) }
      : {};
    if (smoothing) {
      out.push({
        key: `${key} (raw)`,
        run: diff.run,
        color: colorOf?.(diff.run),
        label: t("cmp.series.raw", { label }),

        linkedTo: key,
        legend: false,
        markers: false,
        alpha: RAW_ALPHA,
        width: 1,
        dash,
        format: formatDiff,
        x: diff.x,
        y,
        ...band,
      });
      out.push({
        key,
        run: diff.run,
        color: colorOf?.(diff.run),
        label,
        note,
        width: SMOOTHED_WIDTH,
        dash,
        format: formatDiff,
        x: diff.x,
        y: gapsForNaN(diff.smoothed),
      });
    } else {
      out.push({
        key,
        run: diff.run,
        color: colorOf?.(diff.run),
        label,
        note,
        width: LINE_WIDTH,
        dash,
        format: formatDiff,
        x: diff.x,
        y,
        ...band,
      });
    }
  }
  if (lo <= hi) {
    const level = response.diffMode === "ratio" ? 1 : 0;
    const baselineTag = diffs[0].baselineTag;
    // At every x of the diffs, so the tooltip reads the baseline's own 0
    // (or 1) wherever the cursor is.
    const xs = [...new Set(diffs.flatMap((d) => Array.from(d.x)))].sort(
      (a, b) => a - b,
    );
    out.push({
      key: REFERENCE_KEY,
      run: response.baseline,
      color: colorOf?.(response.baseline),
      label: t("cmp.series.baselineLabel", {
        name: showTag
          ? seriesKey(response.baseline, baselineTag)
          : response.baseline,
      }),

      dash: [...BASELINE_DASH],
      width: LINE_WIDTH,
      markers: false,
      x: xs,
      y: xs.map(() => level),
    });
  }
  return out;
}

/**
 * @param {Values} values a plain or typed array
 * @returns {Value[]} the values with "NaN" (and NaN) as null
 */
function gapsForNaN(values) {
  if (values == null) return values;
  // Once per array: the same answer drawn again (a cached one, log y)
  // gives the chart the same arrays, whose layout it keeps.
  let gaps = gapsOf.get(values);
  if (!gaps) {
    // Array.from: a typed array's own map() would turn null back into 0.
    gaps = Array.from(values, (v) =>
      v === "NaN" || (typeof v === "number" && Number.isNaN(v)) ? null : v,
    );
    gapsOf.set(values, gaps);
  }
  return gaps;
}

/** @type {WeakMap<object, Value[]>} */
const gapsOf = new WeakMap();

/**
 * @typedef {Object} PointCounts
 * @property {number} returned points sent, summed over drawn series
 * @property {number} total points logged, summed over drawn series
 * @property {number} series drawn series
 * @property {boolean} complete every logged point was sent
 */

/**
 * @param {ScalarsResponse} response
 * @returns {PointCounts}
 */
export function pointCounts(response) {
  const drawn = drawnSeries(response);
  const returned = drawn.reduce((sum, s) => sum + s.returned, 0);
  const total = drawn.reduce((sum, s) => sum + s.total, 0);
  return {
    returned,
    total,
    series: drawn.length,
    complete: drawn.every((s) => s.returned >= s.total),
  };
}

/**
 * @typedef {Object} Note something the chart does not show, and why
 * @property {'excluded' | 'missing' | 'diff'} kind
 * @property {string} run
 * @property {string} [tag]
 * @property {string} reason the server's English
 * @property {string} text the reason in the tab's language
 * @property {boolean} configHint the run's epochs can be set in the config
 */

/**
 * Why some selected runs are not drawn: excluded from the axis, without a
 * tag of the metric, or without a difference curve.
 * @param {ScalarsResponse} response
 * @returns {Note[]}
 */
export function responseNotes(response) {
  /** @type {Note[]} */
  const notes = [];
  for (const series of response.series) {
    if (!series.excluded) continue;
    notes.push({
      kind: "excluded",
      run: series.run,
      tag: series.tag,
      reason: series.excluded,
      text: serverText(series.excludedMessage, series.excluded),
      configHint: /stepsPerEpoch|no epoch information/.test(series.excluded),
    });
  }
  for (const missing of response.missing ?? []) {
    notes.push({
      kind: "missing",
      run: missing.run,
      reason: missing.reason,
      text: serverText(missing.reasonMessage, missing.reason),
      configHint: false,
    });
  }
  const excludedRuns = new Set(notes.map((n) => n.run));
  for (const diff of response.diffs ?? []) {
    // A run excluded from the axis has no difference either: said once.
    if (!diff.excluded || excludedRuns.has(diff.run)) continue;
    notes.push({
      kind: "diff",
      run: diff.run,
      tag: diff.tag,
      reason: diff.excluded,
      text: serverText(diff.excludedMessage, diff.excluded),
      configHint: false,

    });
  }
  return notes;
}
