// The Runs table's fixed columns, their sortable headers, how a column sorts, and the per-run
// values (label, duration, trainer name) the table and its details show.

import { h, icon } from "../../dom.js";
import { t } from "../../i18n.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */

/**
 * @typedef {Object} Column
 * @property {string} id
 * @property {string} label
 * @property {string} [title] header tooltip
 * @property {boolean} [numeric] right-aligned, sorts descending first
 * @property {(run: RunInfo) => string | number} sortKey
 */

/**
 * A fixed column; its label and header tooltip are the catalog's
 * `runs.col.<id>` and `runs.col.<id>.help`, read in the tab's language.
 * @param {string} id
 * @param {(run: RunInfo) => string | number} sortKey
 * @param {{numeric?: boolean, help?: boolean}} [options]
 * @returns {Column}
 */
function fixedColumn(id, sortKey, { numeric = false, help = true } = {}) {
  return {
    id,
    get label() {
      return t(`runs.col.${id}`);
    },
    get title() {
      return help ? t(`runs.col.${id}.help`) : undefined;
    },
    ...(numeric ? { numeric } : {}),
    sortKey,
  };
}

/** @type {Column[]} */
export const COLUMNS = [
  fixedColumn("run", (r) => runLabel(r).toLowerCase(), { help: false }),
  fixedColumn("group", (r) => r.group.toLowerCase(), { help: false }),
  fixedColumn("framework", (r) => r.framework, { help: false }),
  fixedColumn("writer", (r) => r.writer.toLowerCase(), { help: false }),
  fixedColumn("scalars", (r) => r.scalarTags.length, { numeric: true }),
  fixedColumn("histograms", (r) => r.histogramTags.length, { numeric: true }),
  fixedColumn("points", (r) => r.numPoints, { numeric: true }),
  fixedColumn("steps", (r) => r.lastStep ?? -Infinity, { numeric: true }),
  fixedColumn("duration", (r) => duration(r) ?? -Infinity, { numeric: true }),
  fixedColumn("warnings", (r) => r.warnings.length, { numeric: true }),
  fixedColumn("steptime", (r) => r.speed?.medianStepTime ?? -Infinity, {
    numeric: true,
  }),
  fixedColumn("traintime", (r) => r.speed?.trainingSeconds ?? -Infinity, {
    numeric: true,
  }),
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
          title:
            column.title ??
            t("runs.sortBy", { column: column.label.toLowerCase() }),
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
      title: speed?.stream === "" ? t("runs.speed.noStream") : "",
    };
  }
  const lines = [
    t("runs.speed.median", {
      time: formatStepTime(speed.medianStepTime),
      tag: speed.stream,
    }),
  ];
  if (speed.stepsPerSecond != null) {
    lines.push(
      t("runs.speed.steps", { n: speed.stepsPerSecond.toPrecision(4) }),
    );
  }
  if (speed.samplesPerSecond != null) {
    lines.push(
      t("runs.speed.samples", { n: speed.samplesPerSecond.toPrecision(4) }),
    );
  }
  if (speed.stalls) lines.push(t("runs.speed.stalls", { n: speed.stalls }));
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
