// Which runs the Runs table shows: the filter box (a name regex plus column
// clauses such as `lr<0.01`), the framework chips and the anomaly filter.

import {
  frameworkColor,
  frameworkLabel,
  FRAMEWORK_LABELS,
} from "../../colors.js";
import { h } from "../../dom.js";
import { formatInt } from "../../format.js";
import { t } from "../../i18n.js";
import { runMatcher } from "../../filter.js";
import { passesAnomalyFilter } from "../../anomalies.js";
import {
  clauseMatches,
  experimentColumns,
  filterValue,
  parseFilter,
} from "./experiment.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */
/** @typedef {import("../../app.js").ViewContext} ViewContext */

/**
 * The runs every filter keeps, in catalog order.
 * @param {ViewContext} ctx
 * @param {string} text the filter box's text
 * @param {Set<string>} frameworks frameworks the chips keep; empty keeps all
 * @param {any} summary a `GET metric_summary` answer, or null
 * @returns {RunInfo[]}
 */
export function filterRuns(ctx, text, frameworks, summary) {
  const { clauses, rest } = parseFilter(text);
  const matches = runMatcher(rest);
  const all = ctx.catalog.runs;
  const columns = clauses.length ? experimentColumns(all, summary).columns : [];
  const keys = [
    ...new Set(
      all.flatMap((r) => Object.keys(/** @type {any} */ (r).hparams ?? {})),
    ),
  ];
  const passes = (/** @type {RunInfo} */ run) =>
    clauses.every((c) => clauseMatches(filterValue(run, c, columns, keys), c));
  return all.filter(
    (run) =>
      (frameworks.size === 0 || frameworks.has(run.framework)) &&
      matches(run) &&
      passes(run) &&
      passesAnomalyFilter(ctx, run.run),
  );
}

/**
 * One chip per framework present, with its run count, in the usual order.
 * @param {RunInfo[]} runs
 * @param {Set<string>} kept frameworks the chips keep
 * @param {(framework: string) => void} onToggle
 * @returns {HTMLButtonElement[]}
 */
export function frameworkChips(runs, kept, onToggle) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const run of runs) {
    counts.set(run.framework, (counts.get(run.framework) ?? 0) + 1);
  }
  const order = Object.keys(FRAMEWORK_LABELS);
  const frameworks = [...counts.keys()].sort(
    (a, b) => order.indexOf(a) - order.indexOf(b),
  );
  return frameworks.map((framework) =>
    h(
      "button",
      {
        className: `tbmf-chip${kept.has(framework) ? " is-on" : ""}`,
        title: kept.has(framework)
          ? t("runs.filter.stop", { framework: frameworkLabel(framework) })
          : t("runs.filter.only", { framework: frameworkLabel(framework) }),

        attrs: {
          type: "button",
          "aria-pressed": String(kept.has(framework)),
        },
        dataset: { framework },
        on: { click: () => onToggle(framework) },
      },
      h("span", {
        className: "tbmf-dot",
        style: { "--dot": frameworkColor(framework) },
      }),
      h("span", { text: frameworkLabel(framework) }),
      h("span", {
        className: "tbmf-chip__count",
        text: formatInt(counts.get(framework) ?? 0),
      }),
    ),
  );
}
