// The Runs table's fixed columns, their sortable headers, how a column sorts, and the per-run
// values (label, duration, trainer name) the table and its details show.

import { h, icon } from "../../dom.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */

/**
 * @typedef {Object} Column
 * @property {string} id
 * @property {string} label
 * @property {string} [title] header tooltip
 * @property {boolean} [numeric] right-aligned, sorts descending first
 * @property {(run: RunInfo) => string | number} sortKey
 */

/** @type {Column[]} */
export const COLUMNS = [
  { id: "run", label: "Run", sortKey: (r) => runLabel(r).toLowerCase() },
  { id: "group", label: "Group", sortKey: (r) => r.group.toLowerCase() },
  { id: "framework", label: "Framework", sortKey: (r) => r.framework },
  { id: "writer", label: "Writer", sortKey: (r) => r.writer.toLowerCase() },
  {
    id: "scalars",
    label: "Scalars",
    title: "Number of scalar tags",
    numeric: true,
    sortKey: (r) => r.scalarTags.length,
  },
  {
    id: "histograms",
    label: "Histograms",
    title: "Number of histogram tags",
    numeric: true,
    sortKey: (r) => r.histogramTags.length,
  },
  {
    id: "points",
    label: "Points",
    title: "Scalar points read: every logged point, nothing sampled away",
    numeric: true,
    sortKey: (r) => r.numPoints,
  },
  {
    id: "steps",
    label: "Steps",
    title: "First and last step logged",
    numeric: true,
    sortKey: (r) => r.lastStep ?? -Infinity,
  },
  {
    id: "duration",
    label: "Duration",
    title: "Time between the first and the last event",
    numeric: true,
    sortKey: (r) => duration(r) ?? -Infinity,
  },
  {
    id: "warnings",
    label: "Warnings",
    title: "Problems met while reading the files",
    numeric: true,
    sortKey: (r) => r.warnings.length,
  },
  {
    id: "steptime",
    label: "Step time",
    title:
      "Median seconds a step, derived from wall time (the run's densest step-counted tag; logging every N steps, pauses and resumes accounted for)",
    numeric: true,
    sortKey: (r) => r.speed?.medianStepTime ?? -Infinity,
  },
  {
    id: "traintime",
    label: "Train time",
    title:
      "Training time derived from wall time: the attempts' spans, the downtime between a run and its resume left out",
    numeric: true,
    sortKey: (r) => r.speed?.trainingSeconds ?? -Infinity,
  },
];
/** Columns before the data columns: checkbox and expander. */
export const LEAD_COLUMNS = 2;
export const TOTAL_COLUMNS = LEAD_COLUMNS + COLUMNS.length;

/**
 * The column a sort key names when no shown column has that id: a
 * hyper-parameter (`hp:<key>`) not shown as a column, else the run name.
 * @param {string} id
 * @returns {Column}
 */
export function fallbackSortColumn(id) {
  return id.startsWith("hp:")
    ? {
        id,
        label: id.slice(3),
        sortKey: (/** @type {any} */ r) => {
          const v = r.hparams?.[id.slice(3)];
          return v === undefined || v === null
            ? Infinity
            : typeof v === "number"
              ? v
              : String(v);
        },
      }
    : COLUMNS[0];
}

/**
 * The sortable header cells of the data columns.
 * @param {Column[]} columns
 * @param {Column} sorted the column the rows are sorted by
 * @param {boolean} descending
 * @param {(column: Column) => void} onSort
 * @returns {HTMLTableCellElement[]}
 */
export function headerCells(columns, sorted, descending, onSort) {
  return columns.map((column) => {
    const active = column.id === sorted.id;
    return h(
      "th",
      {
        className: column.numeric ? "is-numeric" : "",
        attrs: {
          scope: "col",
          "aria-sort": active
            ? descending
              ? "descending"
              : "ascending"
            : "none",
        },
        dataset: { col: column.id },
      },
      h(
        "button",
        {
          className: `tbmf-sort${active ? " is-active" : ""}`,
          title: column.title ?? `Sort by ${column.label.toLowerCase()}`,
          attrs: { type: "button" },
          on: { click: () => onSort(column) },
        },
        h("span", { text: column.label }),
        icon(active && descending ? "arrowDown" : "arrowUp", {
          size: 14,
          className: "tbmf-sort__icon",
        }),
      ),
    );
  });
}

/**
 * Orders runs by a column; ties keep run-name order, so equal rows never
 * jump around.
 * @param {RunInfo[]} runs sorted in place
 * @param {Column} column
 * @param {boolean} descending
 * @returns {RunInfo[]}
 */
export function sortRuns(runs, column, descending) {
  const direction = descending ? -1 : 1;
  return runs.sort((a, b) => {
    const ka = column.sortKey(a);
    const kb = column.sortKey(b);
    const order = ka < kb ? -1 : ka > kb ? 1 : 0;
    return order * direction || (a.run < b.run ? -1 : a.run > b.run ? 1 : 0);
  });
}

/** How trainers are named in the table. */
const TRAINER_LABELS = Object.freeze({
  lightning: "Lightning",
  transformers: "HF Trainer",
  keras_fit: "Keras fit",
  paddle_hapi: "Paddle hapi",
});

/**
 * @param {string} trainer
 * @returns {string}
 */
export function trainerLabel(trainer) {
  return (
    TRAINER_LABELS[/** @type {keyof typeof TRAINER_LABELS} */ (trainer)] ??
    trainer
  );
}

/**
 * @param {RunInfo} run
 * @returns {string} the name users see: the config's display name, else run
 */
export function runLabel(run) {
  return run.displayName || run.run;
}

/**
 * @param {RunInfo} run
 * @returns {number | null} seconds between first and last event
 */
export function duration(run) {
  return isNumber(run.startTime) && isNumber(run.endTime)
    ? run.endTime - run.startTime
    : null;
}

/**
 * @param {unknown} value
 * @returns {value is number}
 */
export function isNumber(value) {
  return typeof value === "number" && Number.isFinite(value);
}

/**
 * A run's speed cell: its median step time, with the details as a tooltip.
 * @param {RunInfo} run
 * @returns {{text: string, title: string}}
 */
export function stepTimeCell(run) {
  const speed = run.speed;
  if (!speed || speed.medianStepTime == null) {
    return {
      text: "—",
      title: speed?.stream === "" ? "no step-counted tag to time" : "",
    };
  }
  const lines = [
    `median ${formatStepTime(speed.medianStepTime)} a step (derived from wall time, tag ${speed.stream})`,
  ];
  if (speed.stepsPerSecond != null) {
    lines.push(`${speed.stepsPerSecond.toPrecision(4)} steps/s steady`);
  }
  if (speed.samplesPerSecond != null) {
    lines.push(`${speed.samplesPerSecond.toPrecision(4)} samples/s`);
  }
  if (speed.stalls) lines.push(`${speed.stalls} stalls`);
  return { text: formatStepTime(speed.medianStepTime), title: lines.join("\n") };
}

/**
 * Seconds a step, in ms below a second.
 * @param {number | null | undefined} seconds
 * @returns {string}
 */
export function formatStepTime(seconds) {
  if (seconds == null || !Number.isFinite(seconds)) return "—";
  if (seconds < 1) return `${(seconds * 1000).toPrecision(3)} ms`;
  return `${seconds.toPrecision(3)} s`;
}
