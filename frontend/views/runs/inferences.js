// What the tab inferred about a run, with the evidence, in its detail row;
// and the corrections a user can make (saved in the config file by
// `POST run_settings`, shown as "set by you").

import { h } from "../../dom.js";
import { errorText, fetchJson } from "../../model.js";
import { trainerLabel } from "./columns.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */

/**
 * @typedef {Object} Inference one claim of `GET runs` `inferences`
 * @property {any} value
 * @property {"evidence" | "unknown" | "set by you"} status
 * @property {string[]} evidence
 * @property {string} reason why unknown
 * @property {string} howToSet
 */

/** How a status reads in the table. */
const STATUS_TEXT = Object.freeze({
  evidence: "from the files",
  unknown: "unknown",
  "set by you": "set by you",
});

/** Trainers a user can name (`none`: no trainer wrote the run). */
const TRAINER_CHOICES = [
  "lightning",
  "transformers",
  "keras_fit",
  "paddle_hapi",
  "mmengine",
  "none",
];

/**
 * Saves corrections of one run in the config file.
 * @param {string} run
 * @param {Record<string, unknown>} set null removes a setting
 * @returns {Promise<any>}
 */
export async function saveRunSettings(run, set) {
  return fetchJson("run_settings", {}, { method: "POST", body: { run, set } });
}

/**
 * The "What the tab inferred" section of a run's detail row.
 * @param {RunInfo} run
 * @param {() => void} [onSaved] called after a correction was saved
 * @returns {HTMLElement | null}
 */
export function inferenceSection(run, onSaved) {
  /** @type {Record<string, Inference> | undefined} */
  const found = /** @type {any} */ (run).inferences;
  if (!found) return null;
  const status = h("p", {
    className: "tbmf-muted tbmf-infer__status",
    attrs: { role: "status" },
  });
  /** @param {Record<string, unknown>} set */
  const save = async (set) => {
    status.textContent = "Saving…";
    try {
      const answer = await saveRunSettings(run.run, set);
      status.textContent = `Saved in ${answer.path}.`;
      onSaved?.();
    } catch (error) {
      status.textContent = `Not saved: ${errorText(error)}`;
    }
  };
  const rows = [
    claimRow("Framework", found.framework, String(found.framework?.value)),
    claimRow(
      "Trainer",
      found.trainer,
      found.trainer?.value ? trainerLabel(found.trainer.value) : "unknown",
      trainerControl(run, save),
    ),
    claimRow(
      "Epoch axis",
      found.epochAxis,
      epochText(found.epochAxis),
      epochControl(found.epochAxis, save),
    ),
    claimRow(
      "Resumed",
      found.resume,
      found.resume?.value ? "yes: steps logged again" : "no",
      resumeControl(found.resume, save),
    ),
    claimRow("Loops", found.loops, loopsText(found.loops)),
    claimRow(
      "Sub-run of",
      found.parent,
      found.parent?.value ? String(found.parent.value) : "—",
    ),
  ].filter(Boolean);
  return h(
    "section",
    { className: "tbmf-detail__section tbmf-infer" },
    h("h3", { text: "What the tab inferred" }),
    h(
      "table",
      { className: "tbmf-infer__table" },
      h("tbody", {}, rows),
    ),
    splitControl(run, save),
    status,
  );
}

/**
 * @param {string} label
 * @param {Inference | undefined} claim
 * @param {string} text
 * @param {HTMLElement | null} [control]
 * @returns {HTMLTableRowElement | null}
 */
function claimRow(label, claim, text, control = null) {
  if (!claim) return null;
  const lines = [...claim.evidence];
  if (claim.reason) lines.push(`Why unknown: ${claim.reason}`);
  if (claim.howToSet) lines.push(`To set it: ${claim.howToSet}`);
  const badge = h("span", {
    className: `tbmf-infer__badge is-${claim.status.replace(/ /g, "-")}`,
    text: STATUS_TEXT[claim.status] ?? claim.status,
  });
  return h(
    "tr",
    { dataset: { inference: label } },
    h("th", { attrs: { scope: "row" }, text: label }),
    h("td", {}, h("span", { className: "tbmf-infer__value", text }), badge),
    h(
      "td",
      {},
      lines.length
        ? h(
            "details",
            { className: "tbmf-infer__evidence" },
            h("summary", {
              text: claim.status === "unknown" ? "why" : "evidence",
            }),
            h(
              "ul",
              {},
              lines.map((line) => h("li", { text: line })),
            ),
          )
        : null,
    ),
    h("td", {}, control),
  );
}

/** @param {Inference | undefined} claim */
function epochText(claim) {
  if (!claim) return "";
  if (!claim.value) return "none";
  const spe = claim.value.stepsPerEpoch;
  return spe
    ? `${claim.value.source}`
    : `${claim.value.source} (epoch-level tags only)`;
}

/** @param {Inference | undefined} claim */
function loopsText(claim) {
  const tags = Object.keys(claim?.value ?? {});
  return tags.length
    ? tags.map((t) => `${t}: ${claim?.value[t].length} loops`).join(", ")
    : "one loop per tag";
}

/**
 * @param {RunInfo} run
 * @param {(set: Record<string, unknown>) => Promise<void>} save
 */
function trainerControl(run, save) {
  const select = h(
    "select",
    { attrs: { "aria-label": `Trainer of ${run.run}` } },
    h("option", { text: "correct…", attrs: { value: "" } }),
    TRAINER_CHOICES.map((t) =>
      h("option", {
        text: t === "none" ? "no trainer" : trainerLabel(t),
        attrs: { value: t },
      }),
    ),
    h("option", { text: "as detected", attrs: { value: "__clear" } }),
  );
  select.addEventListener("change", () => {
    const value = select.value;
    if (!value) return;
    void save({ trainer: value === "__clear" ? null : value });
  });
  return select;
}

/**
 * @param {Inference | undefined} claim
 * @param {(set: Record<string, unknown>) => Promise<void>} save
 */
function epochControl(claim, save) {
  const steps = h("input", {
    attrs: {
      type: "number",
      min: "1",
      step: "any",
      placeholder: "steps/epoch",
      "aria-label": "Steps per epoch",
    },
    className: "tbmf-infer__number",
  });
  const base = h(
    "select",
    { attrs: { "aria-label": "Epoch counts from" } },
    h("option", { text: "base: from evidence", attrs: { value: "" } }),
    h("option", { text: "counts from 0", attrs: { value: "0" } }),
    h("option", { text: "counts from 1", attrs: { value: "1" } }),
  );
  const apply = h("button", {
    text: "Set",
    attrs: { type: "button" },
    on: {
      click: () => {
        const spe = Number(steps.value);
        void save({
          stepsPerEpoch: steps.value && spe > 0 ? spe : null,
          epochBase: base.value === "" ? null : Number(base.value),
          epochAxis: null,
        });
      },
    },
  });
  const off = h("button", {
    text: claim?.status === "set by you" ? "As inferred" : "No epoch axis",
    attrs: { type: "button" },
    on: {
      click: () =>
        void save(
          claim?.status === "set by you"
            ? { epochAxis: null, stepsPerEpoch: null, epochBase: null }
            : { epochAxis: false },
        ),
    },
  });
  return h("span", { className: "tbmf-infer__controls" }, steps, base, apply, off);
}

/**
 * @param {Inference | undefined} claim
 * @param {(set: Record<string, unknown>) => Promise<void>} save
 */
function resumeControl(claim, save) {
  if (!claim) return null;
  if (claim.status === "set by you") {
    return h("button", {
      text: "As inferred",
      attrs: { type: "button" },
      on: { click: () => void save({ notResumed: null }) },
    });
  }
  if (!claim.value) return null;
  return h("button", {
    text: "Not a resume",
    title: "Show every point: the steps logged again are not a restart",
    attrs: { type: "button" },
    on: { click: () => void save({ notResumed: true }) },
  });
}

/**
 * A tag's split, as the user says it.
 * @param {RunInfo} run
 * @param {(set: Record<string, unknown>) => Promise<void>} save
 */
function splitControl(run, save) {
  const tags = run.scalarTags.filter((t) => !t.includes(" \u27e8loop "));
  if (!tags.length) return null;
  const tag = h(
    "select",
    { attrs: { "aria-label": "Tag" } },
    tags.map((t) => h("option", { text: t, attrs: { value: t } })),
  );
  const split = h(
    "select",
    { attrs: { "aria-label": "Split" } },
    ["train", "val", "test", "none"].map((s) =>
      h("option", { text: s === "none" ? "no split" : s, attrs: { value: s } }),
    ),
    h("option", { text: "as inferred", attrs: { value: "__clear" } }),
  );
  const apply = h("button", {
    text: "Set split",
    attrs: { type: "button" },
    on: {
      click: () =>
        void save({
          splits: {
            [tag.value]: split.value === "__clear" ? null : split.value,
          },
        }),
    },
  });
  return h(
    "p",
    { className: "tbmf-infer__controls" },
    h("span", { className: "tbmf-muted", text: "A tag's split: " }),
    tag,
    split,
    apply,
  );
}
