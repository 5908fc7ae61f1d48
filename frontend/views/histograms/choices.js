// What the Histograms view chooses when the URL does not say, and what it
// can offer: the URL state read with its defaults (axis, bins, rendering,
// distance, position), the runs with histograms, the default pair of runs
// and tags, whether a run has an epoch axis (and why not), why a pair has
// no place on an axis, and the colours of A and B.

import { RUN_PALETTE, runColor } from "../../colors.js";
import { t } from "../../i18n.js";
import {
  AXES,
  DEFAULT_BINS,
  DISTANCES,
  isGradientTag,
  KEYS,
  MAX_BINS,
  MODES,
} from "./model.js";

/** @typedef {import("../../app.js").ViewContext} ViewContext */
/** @typedef {import("../../model.js").RunInfo} RunInfo */
/** @typedef {import("./model.js").PairsPayload} PairsPayload */
/** @typedef {import("./model.js").DistanceKey} DistanceKey */

/**
 * The axis in the URL, else epoch when both runs have one, else step.
 * @param {ViewContext} ctx
 * @returns {string}
 */
export function readAxis(ctx) {
  const axis = ctx.state.get(KEYS.axis);
  if (AXES.some((a) => a.id === axis)) return axis;
  // Epochs mean the same in every framework: the default when both have
  // them (not written to the URL, so a link follows the same rule).
  const a = ctx.catalog.run(ctx.state.get(KEYS.runA));
  const b = ctx.catalog.run(ctx.state.get(KEYS.runB));
  return hasEpochAxis(a) && hasEpochAxis(b) ? "epoch" : "step";
}

/**
 * @param {ViewContext} ctx
 * @returns {number}
 */
export function readBins(ctx) {
  const bins = Number(ctx.state.get(KEYS.bins));
  return Number.isInteger(bins) && bins >= 1 && bins <= MAX_BINS
    ? bins
    : DEFAULT_BINS;
}

/**
 * @param {ViewContext} ctx
 * @returns {string}
 */
export function readMode(ctx) {
  const mode = ctx.state.get(KEYS.mode);
  return MODES.some((m) => m.id === mode) ? mode : "all";
}

/**
 * @param {ViewContext} ctx
 * @returns {DistanceKey}
 */
export function readDistance(ctx) {
  const key = ctx.state.get(KEYS.distance);
  const found = DISTANCES.find((d) => d.key === key);
  return found ? found.key : "wasserstein";
}

/**
 * @param {ViewContext} ctx
 * @returns {number | null} the position in the URL
 */
export function readAt(ctx) {
  const raw = ctx.state.get(KEYS.at);
  const at = raw === "" ? NaN : Number(raw);
  return Number.isFinite(at) ? at : null;
}

/**
 * @param {ViewContext} ctx
 * @returns {RunInfo[]} runs with histograms, selected runs first
 */
export function histogramRuns(ctx) {
  const runs = ctx.catalog.runs.filter(
    (r) => (r.histogramTags ?? []).length > 0,
  );
  const selected = runs.filter((r) => ctx.state.isSelected(r.run));
  const others = runs.filter((r) => !ctx.state.isSelected(r.run));
  return [...selected, ...others];
}

/**
 * The default pair of runs: keep a valid one, then prefer two frameworks.
 * @param {RunInfo[]} runs
 * @param {string} runA
 * @param {string} runB
 * @returns {[string, string]}
 */
export function defaultRuns(runs, runA, runB) {
  const names = runs.map((r) => r.run);
  const a = names.includes(runA) ? runA : names[0];
  if (names.includes(runB)) return [a, runB];
  const framework = runs.find((r) => r.run === a)?.framework;
  const other =
    runs.find((r) => r.run !== a && r.framework !== framework) ??
    runs.find((r) => r.run !== a);
  return [a, other ? other.run : a];
}

/**
 * The default tags: keep a valid one and take its suggested partner, else
 * the best suggested pair, else the first value (non-gradient) tags.
 * @param {RunInfo} infoA
 * @param {RunInfo} infoB
 * @param {string} tagA
 * @param {string} tagB
 * @param {PairsPayload | null} pairs
 * @returns {[string, string]}
 */
export function defaultTags(infoA, infoB, tagA, tagB, pairs) {
  const validA = infoA.histogramTags.includes(tagA);
  const validB = infoB.histogramTags.includes(tagB);
  // Suggestions may predate the catalog: only tags the runs list now.
  const suggestions = (pairs?.pairs ?? []).filter(
    (p) =>
      infoA.histogramTags.includes(p.tagA) &&
      infoB.histogramTags.includes(p.tagB),
  );
  if (validA) {
    const partner = suggestions.find((p) => p.tagA === tagA);
    return [tagA, partner ? partner.tagB : firstValueTag(infoB)];
  }
  if (validB) {
    const partner = suggestions.find((p) => p.tagB === tagB);
    return [partner ? partner.tagA : firstValueTag(infoA), tagB];
  }
  if (suggestions.length > 0) return [suggestions[0].tagA, suggestions[0].tagB];
  return [firstValueTag(infoA), firstValueTag(infoB)];
}

/**
 * @param {RunInfo} info
 * @returns {string}
 */
function firstValueTag(info) {
  return (
    info.histogramTags.find((t) => !isGradientTag(t)) ?? info.histogramTags[0]
  );
}

/**
 * @param {RunInfo | undefined} info
 * @returns {boolean}
 */
export function hasEpochAxis(info) {
  if (!info) return false;
  const flag = /** @type {any} */ (info).hasEpochAxis;
  if (typeof flag === "boolean") return flag;
  return (
    Boolean(info.epochSource) && !String(info.epochSource).startsWith("none")
  );
}

/**
 * @param {RunInfo} info
 * @returns {string}
 */
function epochReason(info) {
  const source = String(info.epochSource ?? "");
  return (
    source.replace(/^none:\s*/, "").replace(/^no epoch information:\s*/, "") ||
    t("hist.noEpochInformation")
  );
}

/**
 * Run colours of A and B, the same as in every other view; when A = B, B
 * takes the palette's colour furthest along from A's.
 * @param {{runs: {run: string}[]}} catalog
 * @param {string} runA
 * @param {string} runB
 * @returns {{a: string, b: string}}
 */
export function pairColors(catalog, runA, runB) {
  const a = runColor(catalog, runA);
  let b = runColor(catalog, runB);
  if (b === a) {
    const index = RUN_PALETTE.indexOf(a);
    b = RUN_PALETTE[(index + RUN_PALETTE.length / 2) % RUN_PALETTE.length];
  }
  return { a, b };
}

/**
 * Why the pair has no place on `axis`, or "".
 * @param {string} axis
 * @param {RunInfo} a
 * @param {RunInfo} b
 * @returns {string}
 */
export function axisProblem(axis, a, b) {
  if (axis !== "epoch") return "";
  const missing = [a, b].filter((r) => !hasEpochAxis(r));
  return [...new Set(missing)]
    .map((r) => t("hist.noEpochAxis", { run: r.run, reason: epochReason(r) }))
    .join(t("common.listSeparator"));
}
