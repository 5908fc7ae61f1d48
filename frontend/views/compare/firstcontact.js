// First contact with the Compare view: the axis it opens on, and one line
// saying why (or what to do first when nothing is chosen yet).

import { frameworkLabel } from "../../colors.js";
import { formatInt } from "../../format.js";
import { t } from "../../i18n.js";

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
  const listed = t("cmp.list.and", {
    items: names.slice(0, -1).join(t("cmp.list.comma")),
    last: names.at(-1),
  });
  const without = runs.filter((r) => !r.hasEpochAxis).map((r) => r.run);
  if (without.length === 0) {
    return {
      axis: "epoch",
      reason: t("cmp.first.epochAxis", { frameworks: listed }),
    };
  }
  const named = without.slice(0, NAMED).join(t("cmp.list.comma"));
  const more =
    without.length > NAMED
      ? t("cmp.first.more", { n: formatInt(without.length - NAMED) })
      : "";
  return {
    axis: "step",
    reason: t(
      without.length === 1 ? "cmp.first.stepAxis.one" : "cmp.first.stepAxis",
      { frameworks: listed, runs: `${named}${more}` },
    ),
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
    return t("cmp.first.noRuns");
  }
  if (runs.length === 0) {
    return t("cmp.first.start");
  }

  return chosen ? "" : comparableAxis(runs).reason;
}
