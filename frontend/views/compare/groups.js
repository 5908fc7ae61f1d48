// Run groups in the Compare view: a `GET scalars` answer with `aggregates`
// (groupBy + aggregate + band) turned into chart series. Each group is its
// center line (mean or median over its members) with the band drawn as the
// chart's min/max band, the member count in the legend, the members as faint
// lines in the group's colour when asked for, and against a baseline group
// the difference of centers with its band, the stretches where the two
// groups' own bands do not overlap drawn bold.

import { formatInt } from "../../format.js";
import { t } from "../../i18n.js";
import { countText } from "../../intl.js";
import { colorFor } from "./colors.js";

/**
 * @typedef {number | string | null} Value
 *
 * @typedef {Object} Aggregate One entry of `aggregates` in `GET scalars`.
 * @property {string} group
 * @property {{run: string, tag: string}[]} members
 * @property {{run: string, reason: string}[]} excluded
 * @property {number[]} x
 * @property {Value[]} y
 * @property {Value[]} yMin
 * @property {Value[]} yMax
 * @property {Value[] | null} lower
 * @property {Value[] | null} upper
 * @property {number[]} count
 * @property {number} total
 * @property {number} returned
 *
 * @typedef {Aggregate & {baselineGroup: string, countBaseline: number[],
 *     separated: boolean[] | null}} GroupDiff
 *
 * @typedef {import("../../components/chart.js").ChartSeries} ChartSeries
 */

/** Choices of the Compare toolbar (value → label's catalog key). */
export const GROUP_BY = Object.freeze([
  ["", "cmp.groupBy.none"],
  ["group", "cmp.groupBy.group"],
  ["framework", "cmp.groupBy.framework"],
  ["writer", "cmp.groupBy.writer"],
  ["trainer", "cmp.groupBy.trainer"],
]);
export const AGGREGATES = Object.freeze([
  ["mean", "cmp.aggregate.mean"],
  ["median", "cmp.aggregate.median"],
]);
export const BANDS = Object.freeze([
  ["std", "cmp.band.std"],
  ["ci95", "cmp.band.ci95"],
  ["minmax", "cmp.band.minmax"],
  ["none", "cmp.band.none"],
]);
/** Opacity and width of member lines under their group's line. */
const MEMBER_ALPHA = 0.25;
const CENTER_WIDTH = 2.25;
const SEPARATED_WIDTH = 5;

/**
 * The colour of a group. One call, so the colour scheme can change in one
 * place (members are drawn in their group's colour).
 * @param {{runs: {run: string}[]}} catalog
 * @param {string} group
 * @returns {string}
 */
export function groupColor(catalog, group) {
  // A group on screen takes a run colour's place (colors.js assigns over
  // the groups the panel put in the scope).
  return colorFor(group, { group });
}

/**
 * `mean ± std · 3 runs`, the legend note of a group.
 * @param {Aggregate} aggregate
 * @param {string} center
 * @param {string} band
 * @returns {string}
 */
export function groupNote(aggregate, center, band) {
  const key = BANDS.find(([value]) => value === band)?.[1];
  const label = key ? t(key) : band;
  const centerKey = AGGREGATES.find(([value]) => value === center)?.[1];
  const n = aggregate.members.length;
  const most = aggregate.count.length ? Math.max(...aggregate.count) : 0;
  const present =
    most < n ? t("cmp.group.atMost", { n: formatInt(most) }) : "";
  return `${centerKey ? t(centerKey) : center}${
    band === "none" ? "" : ` ${label}`
  } · ${countText(n, "count.run.")}${present}`;
}

/**
 * @param {ArrayLike<Value> | null | undefined} values
 * @returns {(number | null)[] | undefined}
 */
function numbers(values) {
  if (!values) return undefined;
  // Array.from, not map: a typed array's map would turn null into 0.
  return Array.from(values, (v) =>
    typeof v === "number" && Number.isFinite(v) ? v : null,
  );
}

/**
 * The main chart's series in group mode.
 * @param {any} response a `GET scalars` answer with `aggregates`
 * @param {{catalog: {runs: {run: string}[]}, showMembers: boolean}} options
 * @returns {ChartSeries[]}
 */
export function groupChartSeries(response, { catalog, showMembers }) {
  /** @type {Aggregate[]} */
  const aggregates = response.aggregates ?? [];
  /** @type {Map<string, string>} */
  const groupOfRun = new Map();
  /** @type {ChartSeries[]} */
  const out = [];
  for (const entry of aggregates) {
    const color = groupColor(catalog, entry.group);
    for (const m of entry.members)
      groupOfRun.set(`${m.run}\u0000${m.tag}`, entry.group);
    const hasBand = entry.lower != null && entry.upper != null;
    out.push({
      key: `group:${entry.group}`,
      label: entry.group,
      color,
      note: groupNote(entry, response.aggregate, response.band),
      width: CENTER_WIDTH,
      x: entry.x,
      y: /** @type {any} */ (numbers(entry.y)),
      yMin: /** @type {any} */ (numbers(hasBand ? entry.lower : entry.yMin)),
      yMax: /** @type {any} */ (numbers(hasBand ? entry.upper : entry.yMax)),
    });
  }
  if (showMembers) {
    const smoothing = response.smoothing > 0;
    for (const series of response.series ?? []) {
      if (series.excluded) continue;
      const group = groupOfRun.get(`${series.run}\u0000${series.tag}`);
      if (group === undefined) continue;
      out.push({
        key: `member:${series.run} · ${series.tag}`,
        label: `${series.run} · ${series.tag}`,
        color: groupColor(catalog, group),
        linkedTo: `group:${group}`,
        legend: false,
        markers: false,
        alpha: MEMBER_ALPHA,
        width: 1,
        x: series.x,
        y: smoothing ? series.smoothed : series.y,
      });
    }
  }
  return out;
}

/**
 * The difference chart's series against a baseline group.
 * @param {any} response
 * @param {{catalog: {runs: {run: string}[]}}} options
 * @returns {ChartSeries[]}
 */
export function groupDiffSeries(response, { catalog }) {
  /** @type {GroupDiff[]} */
  const diffs = response.groupDiffs ?? [];
  if (!response.baselineGroup || diffs.length === 0) return [];
  /** @type {ChartSeries[]} */
  const out = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const diff of diffs) {
    if (diff.x.length) {
      lo = Math.min(lo, diff.x[0]);
      hi = Math.max(hi, diff.x[diff.x.length - 1]);
    }
    const color = groupColor(catalog, diff.group);
    const key = `groupdiff:${diff.group}`;
    const y = numbers(diff.y) ?? [];
    out.push({
      key,
      label: `${diff.group} − ${diff.baselineGroup}`,
      color,
      note: t("cmp.group.diffNote", {
        center: t(
          AGGREGATES.find(([value]) => value === response.aggregate)?.[1] ??
            "cmp.aggregate.mean",
        ),
      }),

      width: 2,
      x: diff.x,
      y: /** @type {any} */ (y),
      yMin: /** @type {any} */ (numbers(diff.lower ?? diff.yMin)),
      yMax: /** @type {any} */ (numbers(diff.upper ?? diff.yMax)),
    });
    if (diff.separated) {
      const separated = diff.separated;
      out.push({
        key: `${key}\u0000apart`,

        label: t("cmp.group.apart", { group: diff.group }),
        color,
        linkedTo: key,
        legend: false,
        markers: false,
        alpha: 0.45,
        width: SEPARATED_WIDTH,
        x: diff.x,
        y: /** @type {any} */ (y.map((v, i) => (separated[i] ? v : null))),
      });
    }
  }
  if (Number.isFinite(lo)) {
    out.push({
      key: "__group_baseline__",
      label: response.baselineGroup,
      color: groupColor(catalog, response.baselineGroup),
      dash: [7, 4],
      width: 1.5,
      legend: false,
      markers: false,
      x: [lo, hi],
      y: [0, 0],
    });
  }
  return out;
}

/**
 * Notes on a grouped answer: members left out of a group's aggregate.
 * @param {any} response
 * @returns {string[]}
 */
export function groupNotes(response) {
  /** @type {string[]} */
  const notes = [];
  for (const entry of response.aggregates ?? []) {
    for (const e of entry.excluded ?? []) {
      notes.push(
        t("cmp.group.leftOut", {
          run: e.run,
          group: entry.group,
          reason: e.reason,
        }),
      );

    }
  }
  return notes;
}
