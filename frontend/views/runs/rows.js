// The Runs table's rows: a group header, a run's row (its detail row comes
// from details.js), and the message, skeleton and cell pieces they use.

import { frameworkBadge, h, icon } from "../../dom.js";
import { formatInt, formatSteps } from "../../format.js";
import { serverText, serverTexts, t } from "../../i18n.js";
import { countText, durationText } from "../../intl.js";
import { anomalyBadge } from "../../anomalies.js";
import {
  duration,
  formatStepTime,
  isNumber,
  LEAD_COLUMNS,
  stepTimeCell,
  TOTAL_COLUMNS,
  trainerLabel,
} from "./columns.js";
import { detailRow } from "./details.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */
/** @typedef {import("./columns.js").Column} Column */

/** Skeleton rows shown before the first answer. */
const SKELETON_ROWS = 6;

/**
 * What the rows need from the view.
 * @typedef {Object} RowHost
 * @property {import("../../state.js").AppState} state
 * @property {import("../../anomalies.js").AnomalyStore} anomalies
 * @property {(Column & {text?: (run: RunInfo) => string})[]} columns the
 *     experiment columns, after the fixed ones
 * @property {number} span columns a full-width row spans
 * @property {Set<string>} expanded runs whose detail row is open
 * @property {Set<string>} collapsedGroups groups folded shut
 * @property {(runs: string[], select: boolean) => void} setSelected
 * @property {(group: string) => void} toggleGroup
 * @property {(run: string) => void} toggleExpanded
 * @property {(run: string) => void} showWarnings opens the run's detail row
 *     and scrolls its warning list into view
 * @property {() => void} [refresh] reloads the runs (after a correction)
 */

/**
 * A group header: the logical run (e.g. Keras `fit/train` + `fit/validation`).
 * @param {string} group
 * @param {RunInfo[]} members
 * @param {RowHost} host
 * @returns {HTMLTableRowElement}
 */
export function groupRow(group, members, host) {
  const state = host.state;
  const selected = members.filter((r) => state.isSelected(r.run)).length;
  const collapsed = host.collapsedGroups.has(group);
  const checkbox = h("input", {
    attrs: {
      type: "checkbox",
      "aria-label": t("cmp.runs.selectGroup", { group }),
    },
    dataset: { focusKey: `group:${group}` },
    on: {
      change: () =>
        host.setSelected(
          members.map((r) => r.run),
          selected < members.length,
        ),
    },
  });
  checkbox.checked = selected === members.length;
  checkbox.indeterminate = selected > 0 && selected < members.length;

  const frameworks = [...new Set(members.map((r) => r.framework))];
  const writers = [...new Set(members.map((r) => r.writer))];
  const starts = members.map((r) => r.startTime).filter(isNumber);
  const ends = members.map((r) => r.endTime).filter(isNumber);
  // Steps beyond 2^53 arrive as BigInts (model.js parseJson).
  const isStep = (/** @type {unknown} */ v) =>
    typeof v === "bigint" || isNumber(v);
  const firsts = members.map((r) => r.firstStep).filter(isStep);
  const lasts = members.map((r) => r.lastStep).filter(isStep);
  const warnings = members.reduce((n, r) => n + r.warnings.length, 0);
  const scalarTags = new Set(members.flatMap((r) => r.scalarTags)).size;
  const histogramTags = new Set(members.flatMap((r) => r.histogramTags)).size;

  return h(
    "tr",
    { className: "tbmf-group-row", dataset: { group } },
    h("td", { className: "tbmf-col-check" }, checkbox),
    h(
      "td",
      { className: "tbmf-col-expand" },
      expander(
        !collapsed,
        `group:${group}`,
        t("runs.row.foldGroup", { group }),
        () => host.toggleGroup(group),
      ),
    ),
    h(
      "td",
      { attrs: { colspan: 2 }, dataset: { col: "run" } },
      h("span", { className: "tbmf-group-name", text: group }),
      h("span", {
        className: "tbmf-muted tbmf-group-count",
        text: countText(members.length, "count.run."),
      }),
    ),
    h(
      "td",
      { dataset: { col: "framework" } },
      frameworks.map((f) => frameworkBadge(f, "tbmf-badge")),
    ),
    h("td", {
      className: "tbmf-muted",
      text: writers.join(", "),
      dataset: { col: "writer" },
    }),
    numericCell("scalars", formatInt(scalarTags), t("runs.row.distinctTags")),
    numericCell(
      "histograms",
      formatInt(histogramTags),
      t("runs.row.distinctTags"),
    ),
    numericCell(
      "points",
      formatInt(members.reduce((n, r) => n + (r.numPoints || 0), 0)),
    ),
    numericCell(
      "steps",
      formatSteps(
        firsts.length ? firsts.reduce((a, b) => (b < a ? b : a)) : null,
        lasts.length ? lasts.reduce((a, b) => (b > a ? b : a)) : null,
      ),
    ),
    numericCell(
      "duration",
      durationText(
        starts.length && ends.length
          ? Math.max(...ends) - Math.min(...starts)
          : null,
      ),
    ),
    h(
      "td",
      { className: "is-numeric", dataset: { col: "warnings" } },
      warningCount(warnings, null),
    ),
    numericCell(
      "steptime",
      formatStepTime(densest(members)?.speed?.medianStepTime),
      t("runs.row.densest", {
        run: densest(members)?.run ?? t("runs.infer.epoch.none"),
      }),
    ),
    numericCell(
      "traintime",
      durationText(densest(members)?.speed?.trainingSeconds),
      t("runs.row.derived"),
    ),
    host.columns.map((column) =>
      h("td", {
        className: column.numeric ? "is-numeric" : "",
        // A DDP job's rank spread is the same for every rank: shown once.
        text:
          column.id === "spread" && column.text ? column.text(members[0]) : "",
        dataset: { col: column.id },
      }),
    ),
  );
}

/**
 * A run's row, plus its detail row when expanded.
 * @param {RunInfo} run
 * @param {boolean} inGroup
 * @param {RowHost} host
 * @returns {HTMLTableRowElement[]}
 */
export function runRows(run, inGroup, host) {
  const state = host.state;
  const selected = state.isSelected(run.run);
  const open = host.expanded.has(run.run);
  const checkbox = h("input", {
    attrs: {
      type: "checkbox",
      "aria-label": t("cmp.runs.selectRun", { run: run.run }),
    },
    dataset: { focusKey: `run:${run.run}` },
    on: { change: () => host.setSelected([run.run], !selected) },
  });
  checkbox.checked = selected;

  const nameCell = h(
    "td",
    { className: "tbmf-run-cell", dataset: { col: "run" }, title: run.run },
    h(
      "div",
      { className: `tbmf-run-name${inGroup ? " is-member" : ""}` },
      runNameParts(run, inGroup),
      anomalyBadge(host.anomalies.forRun(run.run)),
    ),
    run.resumeNote
      ? h("div", {
          className: "tbmf-run-note",
          text: serverText(
            /** @type {any} */ (run).resumeNoteMessage,
            run.resumeNote,
          ),
          title: t("runs.row.resumed.help"),
        })
      : null,
  );
  const row = h(
    "tr",
    {
      className: `tbmf-run-row${selected ? " is-selected" : ""}${open ? " is-open" : ""}${inGroup ? " is-member" : ""}`,
      dataset: { run: run.run, framework: run.framework },
      on: {
        click: (event) => {
          // Clicks on controls do their own thing; the rest of the row
          // opens the details.
          const target = /** @type {HTMLElement} */ (event.target);
          if (target.closest("input, button, a")) return;
          host.toggleExpanded(run.run);
        },
      },
    },
    h("td", { className: "tbmf-col-check" }, checkbox),
    h(
      "td",
      { className: "tbmf-col-expand" },
      expander(
        open,
        `expand:${run.run}`,
        t("runs.row.detailsOf", { run: run.run }),
        () => host.toggleExpanded(run.run),
      ),
    ),
    nameCell,
    // A run on its own is its own group: the cell stays empty rather
    // than repeat the name.
    h("td", {
      className: "tbmf-group-cell",
      text: run.group === run.run ? "" : run.group,
      title: run.group === run.run ? t("runs.row.notGrouped") : run.group,
      dataset: { col: "group" },
    }),
    h(
      "td",
      { dataset: { col: "framework" } },
      frameworkBadge(run.framework, "tbmf-badge"),
    ),
    h(
      "td",
      {
        className: "tbmf-writer",
        title: run.writer || "",
        dataset: { col: "writer" },
      },
      h("span", { text: run.writer || "—" }),
      run.trainer
        ? h("span", {
            className: "tbmf-trainer",
            text: trainerLabel(run.trainer),
            title: serverTexts(
              run.trainerEvidence,
              /** @type {any} */ (run).trainerEvidenceMessages,
            ).join("\n"),
            dataset: { trainer: run.trainer },
          })
        : null,
    ),
    numericCell("scalars", formatInt(run.scalarTags.length)),
    numericCell("histograms", formatInt(run.histogramTags.length)),
    numericCell("points", formatInt(run.numPoints)),
    numericCell("steps", formatSteps(run.firstStep, run.lastStep)),
    numericCell("duration", durationText(duration(run))),
    h(
      "td",
      { className: "is-numeric", dataset: { col: "warnings" } },
      warningCount(run.warnings.length, () => host.showWarnings(run.run)),
    ),
    numericCell("steptime", stepTimeCell(run).text, stepTimeCell(run).title),
    numericCell(
      "traintime",
      durationText(run.speed?.trainingSeconds),
      t("runs.row.derived"),
    ),
    host.columns.map((column) =>
      h("td", {
        className: column.numeric ? "is-numeric" : "",
        text: column.text ? column.text(run) : "",
        dataset: { col: column.id },
      }),
    ),
  );
  return open ? [row, detailRow(run, host.span, host.refresh)] : [row];
}

/**
 * Groups sorted runs by `group`, groups ordered by their first member.
 * @param {RunInfo[]} runs
 * @returns {Map<string, RunInfo[]>}
 */
export function groupRuns(runs) {
  /** @type {Map<string, RunInfo[]>} */
  const groups = new Map();
  for (const run of runs) {
    const members = groups.get(run.group);
    if (members) members.push(run);
    else groups.set(run.group, [run]);
  }
  return groups;
}

/**
 * The run name: a display name with the run below it, or within a group the
 * group prefix dimmed and the sub-run name strong.
 * @param {RunInfo} run
 * @param {boolean} inGroup
 * @returns {HTMLElement[]}
 */
function runNameParts(run, inGroup) {
  if (run.displayName) {
    return [
      h("span", { className: "tbmf-run-name__main", text: run.displayName }),
      h("span", { className: "tbmf-run-name__sub", text: run.run }),
    ];
  }
  const prefix = `${run.group}/`;
  if (inGroup && run.run.startsWith(prefix)) {
    return [
      h("span", { className: "tbmf-run-name__prefix", text: prefix }),
      h("span", {
        className: "tbmf-run-name__main",
        text: run.run.slice(prefix.length),
      }),
    ];
  }
  return [h("span", { className: "tbmf-run-name__main", text: run.run })];
}

/**
 * @param {string} col
 * @param {string} text
 * @param {string} [title]
 * @returns {HTMLTableCellElement}
 */
function numericCell(col, text, title) {
  return h("td", { className: "is-numeric", text, title, dataset: { col } });
}

/**
 * The group member whose speed was read over the most intervals (Keras'
 * `train`, not its `validation`; any rank of a DDP group), or null.
 * @param {RunInfo[]} members
 * @returns {RunInfo | null}
 */
function densest(members) {
  let best = null;
  for (const run of members) {
    const n = run.speed?.intervals ?? 0;
    if (n > 0 && (best === null || n > (best.speed?.intervals ?? 0))) {
      best = run;
    }
  }
  return best;
}

/**
 * @param {boolean} open
 * @param {string} focusKey
 * @param {string} label
 * @param {() => void} onClick
 * @returns {HTMLButtonElement}
 */
function expander(open, focusKey, label, onClick) {
  return h(
    "button",
    {
      className: `tbmf-expander${open ? " is-open" : ""}`,
      title: label,
      attrs: {
        type: "button",
        "aria-expanded": String(open),
        "aria-label": label,
      },
      dataset: { focusKey },
      on: { click: onClick },
    },
    icon("chevronRight", { size: 18 }),
  );
}

/**
 * @param {number} count
 * @param {(() => void) | null} onClick opens the run's warning list
 * @returns {HTMLElement}
 */
function warningCount(count, onClick) {
  if (count === 0) return h("span", { className: "tbmf-muted", text: "0" });
  const content = [
    icon("warning", { size: 14 }),
    h("span", { text: formatInt(count) }),
  ];
  if (!onClick) {
    return h("span", { className: "tbmf-warning-count" }, content);
  }
  return h(
    "button",
    {
      className: "tbmf-warning-count",
      title: t("runs.row.showWarnings"),

      attrs: { type: "button" },
      on: { click: onClick },
    },
    content,
  );
}

/**
 * @param {number} span columns the row spans
 * @param {string} message
 * @param {HTMLElement | null} [action]
 * @returns {HTMLTableRowElement}
 */
export function messageRow(span, message, action = null) {
  return h(
    "tr",
    { className: "tbmf-message-row" },
    h("td", { attrs: { colspan: span } }, h("span", { text: message }), action),
  );
}

/** @returns {HTMLTableRowElement[]} grey placeholder rows while loading */
export function skeletonRows() {
  return Array.from({ length: SKELETON_ROWS }, (_, i) =>
    h(
      "tr",
      { className: "tbmf-skeleton-row", attrs: { "aria-hidden": "true" } },
      Array.from({ length: TOTAL_COLUMNS }, (_, col) =>
        h(
          "td",
          {},
          col < LEAD_COLUMNS
            ? null
            : h("span", {
                className: "tbmf-skeleton",
                style: { width: `${40 + ((i * 7 + col * 13) % 45)}%` },
              }),
        ),
      ),
    ),
  );
}
