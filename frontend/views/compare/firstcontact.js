// First contact with the Compare view: the axis it opens on, and one line
// saying why (or what to do first when nothing is chosen yet).

import { frameworkLabel } from "../../colors.js";
import { formatInt } from "../../format.js";

/** Runs named in a line before "and N more". */
const NAMED = 2;

/**
 * The axis that makes the runs comparable when the user chose none: epoch
 * when runs of different frameworks (whose steps count different things:
 * a Keras epoch-level value sits at step 7, a PyTorch batch at step 350)
 * all have an epoch axis; else step. With the reason, in one line.
 * @param {import("../../model.js").RunInfo[]} runs the runs drawn
 * @returns {{axis: string, reason: string}}
 */
export function comparableAxis(runs) {
  const frameworks = [...new Set(runs.map((r) => r.framework))].sort();
  if (frameworks.length < 2) {
    // One framework: steps mean the same thing, nothing to explain (and
    // the line would push the chart down).
    return { axis: "step", reason: "" };
  }
  const names = frameworks.map(frameworkLabel);
  const listed = `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  const without = runs.filter((r) => !r.hasEpochAxis).map((r) => r.run);
  if (without.length === 0) {
    return {
      axis: "epoch",
      reason:
        `Epoch axis: these runs come from ${listed}, whose steps count ` +
        "different things; every one has epochs, so epochs line them up.",
    };
  }
  const named = without.slice(0, NAMED).join(", ");
  const more =
    without.length > NAMED ? ` and ${formatInt(without.length - NAMED)} more` : "";
  return {
    axis: "step",
    reason:
      `Step axis: these runs come from ${listed}, but ${named}${more} ` +
      `${without.length === 1 ? "has" : "have"} no epoch axis (set ` +
      "stepsPerEpoch in the Runs table to compare by epoch).",
  };
}

/**
 * The line under the toolbar: what to do first on an empty view, else why
 * the axis is the one shown (nothing once the user picked an axis).
 * @param {import("../../model.js").RunInfo[]} runs the runs drawn
 * @param {{chosen: boolean, totalRuns: number}} context whether the user
 *     picked the axis, and how many runs the logdir has
 * @returns {string}
 */
export function firstContactLine(runs, { chosen, totalRuns }) {
  if (totalRuns === 0) {
    return "No runs yet: point TensorBoard's --logdir at a folder of event files; runs appear here as they are read.";
  }
  if (runs.length === 0) {
    return "Start here: tick runs on the left (All selects every run), then pick a metric below them.";
  }
  return chosen ? "" : comparableAxis(runs).reason;
}
