// Anomalies in the tab: the findings of `GET anomalies`, shared by every
// view, as a badge per run (Runs table), a "runs with anomalies" filter,
// and marked ranges on comparison charts (Compare, Layouts) with the
// message and the usual cause on hover.
//
//   const store = anomalyStore(ctx);          // one per app
//   store.subscribe(() => rerender());        // an answer arrived
//   store.forRun("pytorch_sgd");              // step-axis findings
//   const layer = new AnomalyLayer(panel);    // anomalylayer.js: markers
//   layer.update(scalarsResponse); layer.draw(uplot); layer.destroy();
//
// The store asks the server once per data version and axis (the server
// keeps every series' result, so a live logdir costs only what changed).

import { ensureStylesheet, h } from "./dom.js";
import { serverText, t } from "./i18n.js";
import { countText } from "./intl.js";
import { fetchJson } from "./model.js";

ensureStylesheet(new URL("./anomalies.css", import.meta.url));

/** State key of the Runs view's "runs with anomalies" filter. */
export const KEY_ANOMALY_FILTER = "an";

const KINDS = [
  "nonfinite",
  "spike",
  "cliff",
  "plateau",
  "oscillation",
  "stepwise_rise",
  "overfitting",
  "drift",
  "explosion",
  "rank_desync",
];
/** What each kind is called on screen (in the tab's language). */
export const KIND_LABELS = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(
      KINDS.map((kind) => [
        kind,
        { enumerable: true, get: () => t(`anomaly.kind.${kind}`) },
      ]),
    ),
  ),
);

/**
 * A finding's message in the tab's language (the server's English when
 * the catalog lacks its id).
 * @param {Finding} finding
 * @returns {string}
 */
export function findingMessage(finding) {
  return serverText(finding.i18n?.message, finding.message);
}

/**
 * A finding's usual cause in the tab's language.
 * @param {Finding} finding
 * @returns {string}
 */
export function findingCause(finding) {
  return serverText(finding.i18n?.cause, finding.cause);
}

/**
 * @typedef {Object} Finding one entry of `GET anomalies`
 * @property {string} run
 * @property {string} tag
 * @property {string | null} metric
 * @property {string} kind
 * @property {number} step
 * @property {number} endStep
 * @property {[number, number] | null} x the range on the answer's axis
 * @property {number} severity 0..1
 * @property {string} message
 * @property {string} cause the usual cause
 * @property {{message?: {id: string, params: Record<string, unknown>},
 *     cause?: {id: string, params: Record<string, unknown>}}} [i18n]
 *     the message and cause as catalog messages
 *
 * @typedef {Object} AnomaliesPayload
 * @property {string} x
 * @property {Finding[]} anomalies
 * @property {Record<string, number>} counts findings per run
 * @property {number} total
 * @property {number} dataVersion
 * @property {number} [pending] series not looked at yet (the server's work
 *     budget ran out); asked again after PENDING_RETRY_MS
 */

/** Milliseconds before asking again for series the server left pending. */
const PENDING_RETRY_MS = 1500;

/** @type {WeakMap<object, AnomalyStore>} */
const stores = new WeakMap();

/**
 * The app's store (one per catalog).
 * @param {import("./app.js").ViewContext} ctx
 * @returns {AnomalyStore}
 */
export function anomalyStore(ctx) {
  let store = stores.get(ctx.catalog);
  if (!store) {
    store = new AnomalyStore(ctx.catalog);
    stores.set(ctx.catalog, store);
  }
  return store;
}

/** `GET anomalies` answers by axis, for the catalog's data version. */
export class AnomalyStore {
  /** @param {import("./model.js").Catalog} catalog */
  constructor(catalog) {
    this._catalog = catalog;
    /** @type {Map<string, Promise<AnomaliesPayload | null>>} */
    this._requests = new Map();
    /** @type {Map<string, AnomaliesPayload>} by axis */
    this._answers = new Map();
    /** @type {Set<() => void>} */
    this._listeners = new Set();
    /** @type {number | null} */
    this._version = null;
    /** @type {string | null} the last error, for a status line */
    this.error = null;
    catalog.subscribe((_catalog, change) => {
      if (change.dataChanged) void this.load("step");
    });
  }

  /**
   * Calls back whenever an answer arrives (any axis).
   * @param {() => void} listener
   * @returns {() => void} unsubscribes
   */
  subscribe(listener) {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  /**
   * The answer for an axis at the current data version (fetched once).
   * @param {string} axis
   * @returns {Promise<AnomaliesPayload | null>} null when it failed
   */
  load(axis) {
    const version = this._catalog.payload?.dataVersion ?? null;
    if (version !== this._version) {
      this._version = version;
      this._requests.clear();
    }
    const key = String(axis);
    let request = this._requests.get(key);
    if (!request) {
      request = fetchJson("anomalies", { x: axis }).then(
        (/** @type {AnomaliesPayload} */ payload) => {
          if (version !== this._version) return null;
          if (payload.pending > 0) {
            // The server's work budget ran out: ask again for the rest
            // (what it computed is kept, so each answer gets further).
            setTimeout(() => {
              if (version !== this._version) return;
              if (this._requests.get(key) === request) {
                this._requests.delete(key);
                void this.load(axis);
              }
            }, PENDING_RETRY_MS);
          }
          this._answers.set(key, payload);
          this.error = null;
          this._notify();
          return payload;
        },
        (/** @type {Error} */ error) => {
          this._requests.delete(key);
          this.error = error.message;
          console.warn("tb_multiframework: anomalies", error);
          return null;
        },
      );
      this._requests.set(key, request);
    }
    return request;
  }

  /**
   * The last answer for an axis (possibly of an older data version).
   * @param {string} [axis]
   * @returns {AnomaliesPayload | null}
   */
  answer(axis = "step") {
    return this._answers.get(axis) ?? null;
  }

  /**
   * A run's findings on the step axis.
   * @param {string} run
   * @returns {Finding[]}
   */
  forRun(run) {
    return (this.answer()?.anomalies ?? []).filter((f) => f.run === run);
  }

  /** @returns {boolean} whether the step-axis answer has arrived */
  get ready() {
    return this._answers.has("step");
  }

  _notify() {
    for (const listener of [...this._listeners]) {
      try {
        listener();
      } catch (error) {
        console.warn("tb_multiframework: an anomaly listener failed", error);
      }
    }
  }
}

/**
 * "2 anomalies" for a run, with the kinds and steps in its tooltip; null
 * when the run has none.
 * @param {Finding[]} findings the run's
 * @returns {HTMLElement | null}
 */
export function anomalyBadge(findings) {
  if (findings.length === 0) return null;
  const kinds = [
    ...new Set(findings.map((f) => KIND_LABELS[f.kind] ?? f.kind)),
  ];
  const lines = findings
    .slice(0, 12)
    .map((f) => `${KIND_LABELS[f.kind] ?? f.kind} · ${f.tag}: ${findingMessage(f)}`);
  if (findings.length > 12) {
    lines.push(t("anomaly.badge.more", { n: findings.length - 12 }));
  }
  // Compact (a warning sign and the count) so that the run column stays
  // narrow at 50 runs; the words are in the label and the tooltip.
  const label = countText(findings.length, "anomaly.count.");
  return h("span", {
    className: "tbmf-anomaly-badge",
    text: `⚠ ${findings.length}`,
    title: `${label}: ${kinds.join(", ")}\n\n${lines.join("\n")}`,
    dataset: { kinds: findings.map((f) => f.kind).join(" ") },
    attrs: { role: "note", "aria-label": label },
  });
}

/**
 * The Runs toolbar's "runs with anomalies" toggle.
 * @param {import("./app.js").ViewContext} ctx
 * @returns {HTMLButtonElement}
 */
export function anomalyFilterButton(ctx) {
  const on = ctx.state.get(KEY_ANOMALY_FILTER) === "1";
  const store = anomalyStore(ctx);
  const count = Object.keys(store.answer()?.counts ?? {}).length;
  return h("button", {
    className: `tbmf-chip tbmf-anomaly-filter${on ? " is-on" : ""}`,
    text: store.ready
      ? t("anomaly.filter.count", { n: count })
      : t("anomaly.filter"),
    title: on ? t("anomaly.filter.off") : t("anomaly.filter.help"),

    attrs: { type: "button", "aria-pressed": String(on) },
    dataset: { action: "anomaly-filter" },
    on: {
      click: () => ctx.state.update({ [KEY_ANOMALY_FILTER]: on ? null : "1" }),
    },
  });
}

/**
 * Whether a run passes the "runs with anomalies" filter.
 * @param {import("./app.js").ViewContext} ctx
 * @param {string} run
 * @returns {boolean}
 */
export function passesAnomalyFilter(ctx, run) {
  if (ctx.state.get(KEY_ANOMALY_FILTER) !== "1") return true;
  return (anomalyStore(ctx).answer()?.counts?.[run] ?? 0) > 0;
}
