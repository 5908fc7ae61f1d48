// The Runs table as an experiment table: columns for the hyper-parameters
// that differ between the shown runs (the constant ones folded into one
// "same for all" line), a chosen metric's last / best / step of best per
// run (GET metric_summary), the DDP rank spread, and column filters typed
// into the filter box (`lr<0.01 optimizer=adam`), parsed here, never eval'd.

import { fetchJson, LatestRequest } from "../../model.js";
import { formatPosition, formatValue } from "../../format.js";
import { t } from "../../i18n.js";

/** @typedef {import("../../model.js").RunInfo & {hparams?: Record<string, unknown>, configHash?: string, groupSource?: string}} Run */

/** Most hyper-parameter columns shown; the rest are counted. */
export const MAX_HPARAM_COLUMNS = 12;
/** State key of the chosen metric. */
export const KEY_METRIC = "rm";

/**
 * @typedef {Object} Column
 * @property {string} id
 * @property {string} label
 * @property {string} [title]
 * @property {boolean} [numeric]
 * @property {(run: Run) => string | number} sortKey
 * @property {(run: Run) => string} [text] cell text
 * @property {(run: Run) => unknown} [value] the value filters compare
 */

/**
 * @typedef {Object} Clause
 * @property {string} key
 * @property {'<' | '<=' | '>' | '>=' | '=' | '!=' | '~'} op
 * @property {string} value
 */

const CLAUSE =
  /([A-Za-z_][\w.\-/:]*)\s*(<=|>=|!=|==|=|<|>|~)\s*("[^"]*"|'[^']*'|[^\s,]+)/g;

/**
 * Splits the filter text into column clauses and the rest (a regex/text
 * for the name filter). `lr<0.01 optimizer=adam keras` gives two clauses
 * and the rest `keras`.
 * @param {string} text
 * @returns {{clauses: Clause[], rest: string}}
 */
export function parseFilter(text) {
  /** @type {Clause[]} */
  const clauses = [];
  const rest = text.replace(CLAUSE, (_m, key, op, raw) => {
    const quoted = /^(["']).*\1$/.test(raw);
    clauses.push({
      key,
      op: op === "==" ? "=" : op,
      value: quoted ? raw.slice(1, -1) : raw,
    });
    return " ";
  });
  return { clauses, rest: rest.replace(/[\s,]+/g, " ").trim() };
}

/**
 * Whether a cell value passes a clause: numbers compare as numbers, the
 * rest as case-insensitive text (`~`: contains).
 * @param {unknown} cell
 * @param {Clause} clause
 * @returns {boolean}
 */
export function clauseMatches(cell, clause) {
  if (cell === undefined) return clause.op === "!=";
  const wanted = Number(clause.value);
  const numeric =
    (typeof cell === "number" || typeof cell === "bigint") &&
    clause.value.trim() !== "" &&
    Number.isFinite(wanted);
  if (numeric) {
    const v = /** @type {number} */ (cell);
    switch (clause.op) {
      case "<":
        return v < wanted;
      case "<=":
        return v <= wanted;
      case ">":
        return v > wanted;
      case ">=":
        return v >= wanted;
      case "=":
        return v == wanted; // a BigInt equals its number
      case "!=":
        return v != wanted;
      default:
        return String(v).includes(clause.value);
    }
  }
  const a = cell === null ? "null" : String(cell).toLowerCase();
  const b = clause.value.toLowerCase();
  switch (clause.op) {
    case "=":
      return a === b;
    case "!=":
      return a !== b;
    case "~":
      return a.includes(b);
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    default:
      return a >= b;
  }
}

/**
 * A hyper-parameter's key for a filter key: exact, else the only key that
 * ends with `.<key>` (`lr` finds `train.lr`).
 * @param {string[]} keys
 * @param {string} key
 * @returns {string | null}
 */
export function resolveKey(keys, key) {
  if (keys.includes(key)) return key;
  const found = keys.filter((k) => k.endsWith(`.${key}`));
  return found.length === 1 ? found[0] : null;
}

/**
 * Hyper-parameter keys that differ between runs (value or presence), the
 * keys most runs have first, and those the same in all of them.
 * @param {Run[]} runs
 * @returns {{differing: string[], constant: [string, unknown][]}}
 */
export function splitHparams(runs) {
  const keys = new Set();
  for (const run of runs)
    for (const key of Object.keys(run.hparams ?? {})) keys.add(key);
  /** @type {string[]} */
  const differing = [];
  /** @type {[string, unknown][]} */
  const constant = [];
  for (const key of [...keys].sort()) {
    const seen = new Set(
      runs.map((r) =>
        r.hparams && key in r.hparams
          ? JSON.stringify(r.hparams[key], exactText)
          : "\u0000",
      ),
    );
    if (seen.size > 1) differing.push(key);
    else constant.push([key, runs[0].hparams?.[key]]);
  }
  // Keys most runs have first (lr, seed, ...): a key only one run has (an
  // HF Trainer's hundred `args`) differs from nothing but its absence.
  /** @type {Map<string, number>} */
  const present = new Map(
    differing.map((key) => [
      key,
      runs.filter((r) => r.hparams && key in r.hparams).length,
    ]),
  );
  differing.sort(
    (a, b) =>
      /** @type {number} */ (present.get(b)) -
        /** @type {number} */ (present.get(a)) || (a < b ? -1 : a > b ? 1 : 0),
  );
  return { differing, constant };
}

/**
 * Where a metric's best value was logged, every position with its unit:
 * `epoch 8` for an epoch-level tag (its step is the epoch index: Keras'
 * epoch_* at step 7 is the 8th epoch, at 8 on the epoch axis), `step 350 ·
 * epoch 3.5` for a step-counted one (with its epoch when the run has an
 * epoch axis).
 * @param {any} row a `GET metric_summary` run entry
 * @returns {string}
 */
export function bestAtText(row) {
  if (row?.bestStep == null) return "—";
  if (row.stepUnit === "epoch") {
    return row.bestEpoch != null
      ? formatPosition("epoch", row.bestEpoch)
      : formatPosition("epochIndex", row.bestStep);
  }
  const step = formatPosition("step", row.bestStep);
  return row.bestEpoch != null
    ? `${step} · ${formatPosition("epoch", row.bestEpoch)}`
    : step;
}

/**
 * A hyper-parameter value as cell text.
 * @param {unknown} value
 * @returns {string}
 */
export function hparamText(value) {
  if (value === undefined) return "—";
  if (value === null) return "null";
  if (typeof value === "number" || typeof value === "bigint") {
    return formatValue(value);
  }
  return String(value);
}

/**
 * Loads the metric list and one metric's per-run summary; tells the view
 * when either arrived.
 */
export class ExperimentData {
  /**
   * @param {() => void} onChange
   */
  constructor(onChange) {
    this._onChange = onChange;
    /** @type {{key: string, name: string}[]} */
    this.metrics = [];
    /** @type {any} */
    this.summary = null;
    this._metricsRequest = new LatestRequest();
    this._summaryRequest = new LatestRequest();
    /** @type {string | null} */
    this._summaryKey = null;
  }

  async loadMetrics() {
    const outcome = await this._metricsRequest.run((signal) =>
      fetchJson("metrics", {}, { signal }),
    );
    if (outcome.stale || outcome.error) return;
    this.metrics = outcome.value.metrics.map((/** @type {any} */ m) => ({
      key: m.key,
      name: m.name,
    }));
    this._onChange();
  }

  /**
   * @param {string | null} key
   * @param {boolean} force fetch again (the data changed)
   */
  async loadSummary(key, force) {
    if (!key) {
      this._summaryRequest.cancel();
      this._summaryKey = null;
      if (this.summary !== null) {
        this.summary = null;
        this._onChange();
      }
      return;
    }
    if (!force && key === this._summaryKey) return;
    this._summaryKey = key;
    const outcome = await this._summaryRequest.run((signal) =>
      fetchJson("metric_summary", { metric: key }, { signal }),
    );
    if (outcome.stale) return;
    this.summary = outcome.error
      ? { error: outcome.error.message }
      : outcome.value;
    this._onChange();
  }

  /**
   * The metric the table summarises: the URL's, else validation loss, else
   * training loss (epoch level first), else none.
   * @param {string} fromState
  ' * @returns {string | null}
   */
  metricKey(fromState) {
    if (fromState === "-") return null;
    if (fromState) return fromState;
    for (const name of [
      "loss/val@epoch",
      "loss/val",
      "loss/train@epoch",
      "loss/train",
    ]) {
      if (this.metrics.some((m) => m.key === name)) return name;
    }
    return null;
  }

  destroy() {
    this._metricsRequest.cancel();
    this._summaryRequest.cancel();
  }
}

/**
 * The experiment columns for the shown runs.
 * @param {Run[]} runs
 * @param {any} summary a `GET metric_summary` answer, or null
 * @returns {{columns: Column[], constant: [string, unknown][], hidden: number}}
 */
export function experimentColumns(runs, summary) {
  const { differing, constant } = splitHparams(runs);
  /** @type {Column[]} */
  const columns = differing.slice(0, MAX_HPARAM_COLUMNS).map((key) => ({
    id: `hp:${key}`,
    label: key,
    title: t("runs.exp.hparam.help", { key }),
    numeric: runs.every((r) => {
      const v = r.hparams?.[key];
      return v === undefined || typeof v === "number";
    }),
    sortKey: (run) => sortable(run.hparams?.[key]),
    text: (run) => hparamText(run.hparams?.[key]),
    value: (run) => run.hparams?.[key],
  }));
  if (summary && !summary.error) {
    /** @type {Map<string, any>} */
    const rows = new Map(
      summary.runs.map((/** @type {any} */ r) => [r.run, r]),
    );
    /** @type {Map<string, any>} */
    const spreads = new Map();
    for (const s of summary.rankSpread ?? []) {
      for (const run of s.members) spreads.set(run, s);
    }
    const name = summary.name;
    const best =
      summary.direction === "min"
        ? t("runs.exp.best.lowest")
        : summary.direction === "max"
          ? t("runs.exp.best.highest")
          : t("runs.exp.best.unknown");
    /** @param {string} field */
    const num = (field) => (/** @type {Run} */ run) => {
      const v = rows.get(run.run)?.[field];
      return typeof v === "number" || typeof v === "bigint" ? v : undefined;
    };
    const metricColumns = [
      [
        "last",
        t("runs.exp.last", { name }),
        t("runs.exp.last.help"),
        num("last"),
      ],
      ["best", t("runs.exp.best", { name }), best, num("best")],
      [
        "bestStep",
        t("runs.exp.bestAt"),
        t("runs.exp.bestAt.help"),
        num("bestStep"),
      ],
    ];
    for (const [id, label, title, get] of metricColumns) {
      columns.push({
        id: /** @type {string} */ (id),
        label: /** @type {string} */ (label),
        title: /** @type {string} */ (title),
        numeric: true,
        sortKey: (run) =>
          id === "bestStep"
            ? sortable(rows.get(run.run)?.bestEpoch ?? get(run))
            : sortable(/** @type {any} */ (get)(run)),
        text: (run) => {
          const v = /** @type {any} */ (get)(run);
          if (v === undefined) return "—";
          return id === "bestStep"
            ? bestAtText(rows.get(run.run))
            : formatValue(v);
        },
        value: /** @type {any} */ (get),
      });
    }
    if (spreads.size > 0) {
      columns.push({
        id: "spread",
        label: t("runs.exp.spread"),
        title: t("runs.exp.spread.help"),

        numeric: true,
        sortKey: (run) => sortable(spreads.get(run.run)?.spread ?? undefined),
        text: (run) => {
          const s = spreads.get(run.run);
          if (!s) return "";
          if (typeof s.spread !== "number") return "—";
          return `${(100 * s.spread).toFixed(s.spread < 0.01 ? 2 : 1)}%`;
        },
        value: (run) => spreads.get(run.run)?.spread ?? undefined,
      });
    }
  }
  return {
    columns,
    constant,
    hidden: Math.max(0, differing.length - MAX_HPARAM_COLUMNS),
  };
}

/**
 * A sort key that puts missing values last in ascending order.
 * @param {unknown} value
 * @returns {string | number}
 */
function sortable(value) {
  if (value === undefined || value === null) return Infinity;
  if (typeof value === "number" || typeof value === "bigint") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return String(value).toLowerCase();
}

/**
 * The value a filter clause compares for a run, or undefined.
 * @param {Run} run
 * @param {Clause} clause
 * @param {Column[]} columns the experiment columns
 * @param {string[]} keys every hyper-parameter key
 * @returns {unknown}
 */
export function filterValue(run, clause, columns, keys) {
  const key = clause.key;
  const plain = {
    run: run.run,
    group: run.group,
    framework: run.framework,
    writer: run.writer,
    format: run.format,
    confighash: run.configHash ?? "",
    points: run.numPoints,
    steps: run.lastStep,
  };
  const lower = key.toLowerCase();
  if (lower in plain) return plain[/** @type {keyof typeof plain} */ (lower)];
  const column = columns.find((c) => c.id.toLowerCase() === lower && c.value);
  if (column?.value) return column.value(run);
  const hp = resolveKey(keys, key);
  return hp === null ? undefined : run.hparams?.[hp];
}

/**
 * JSON.stringify's replacer for values that may hold BigInts (integers
 * beyond 2^53, `parseJson`): their digits.
 * @param {string} _key
 * @param {unknown} value
 * @returns {unknown}
 */
function exactText(_key, value) {
  return typeof value === "bigint" ? `${value}n` : value;
}
