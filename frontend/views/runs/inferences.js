// What the tab inferred about a run, with the evidence, in its detail row;
// and the corrections a user can make (saved in the config file by
// `POST run_settings`, shown as "set by you").

import { h } from "../../dom.js";
import { serverText, serverTexts, t } from "../../i18n.js";
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
 * @property {({id: string, params: Record<string, unknown>} | null)[]} [evidenceMessages]
 * @property {{id: string, params: Record<string, unknown>} | null} [reasonMessage]
 * @property {{id: string, params: Record<string, unknown>} | null} [howToSetMessage]
 */

/** How a status reads in the table (catalog keys). */
const STATUS_TEXT = Object.freeze({
  evidence: "runs.infer.status.evidence",
  unknown: "runs.infer.status.unknown",
  "set by you": "runs.infer.status.setByYou",
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
    status.textContent = t("runs.infer.saving");
    try {
      const answer = await saveRunSettings(run.run, set);
      status.textContent = t("runs.infer.saved", { path: answer.path });
      onSaved?.();
    } catch (error) {
      status.textContent = t("runs.infer.notSaved", { error: errorText(error) });
    }
  };
  const rows = [
    claimRow("framework", found.framework, String(found.framework?.value)),
    claimRow(
      "trainer",
      found.trainer,
      found.trainer?.value
        ? trainerLabel(found.trainer.value)
        : t("runs.infer.status.unknown"),
      trainerControl(run, save),
    ),
    claimRow(
      "epochAxis",
      found.epochAxis,
      epochText(found.epochAxis, run),
      epochControl(found.epochAxis, save),
    ),
    claimRow(
      "resume",
      found.resume,
      found.resume?.value ? t("runs.infer.resumed.yes") : t("runs.detail.no"),
      resumeControl(found.resume, save),
    ),
    claimRow("loops", found.loops, loopsText(found.loops)),
    claimRow(
      "parent",
      found.parent,
      found.parent?.value ? String(found.parent.value) : "—",
    ),
  ].filter(Boolean);
  return h(
    "section",
    { className: "tbmf-detail__section tbmf-infer" },
    h("h3", { text: t("runs.infer.title") }),
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
 * @param {string} id the claim's name in `inferences` (`epochAxis`)
 * @param {Inference | undefined} claim
 * @param {string} text
 * @param {HTMLElement | null} [control]
 * @returns {HTMLTableRowElement | null}
 */
function claimRow(id, claim, text, control = null) {
  if (!claim) return null;
  const lines = serverTexts(claim.evidence, claim.evidenceMessages);
  if (claim.reason) {
    lines.push(
      t("runs.infer.whyUnknown", {
        reason: serverText(claim.reasonMessage, claim.reason),
      }),
    );
  }
  if (claim.howToSet) {
    lines.push(
      t("runs.infer.toSet", {
        how: serverText(claim.howToSetMessage, claim.howToSet),
      }),
    );
  }
  const status =
    STATUS_TEXT[/** @type {keyof typeof STATUS_TEXT} */ (claim.status)];
  const badge = h("span", {
    className: `tbmf-infer__badge is-${claim.status.replace(/ /g, "-")}`,
    text: status ? t(status) : claim.status,
  });
  return h(
    "tr",
    { dataset: { inference: id } },
    h("th", { attrs: { scope: "row" }, text: t(`runs.infer.claim.${id}`) }),
    h("td", {}, h("span", { className: "tbmf-infer__value", text }), badge),
    h(
      "td",
      {},
      lines.length
        ? h(
            "details",
            { className: "tbmf-infer__evidence" },
            h("summary", {
              text:
                claim.status === "unknown"
                  ? t("runs.infer.why")
                  : t("runs.infer.evidence"),
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

/**
 * @param {Inference | undefined} claim
 * @param {RunInfo} run whose `epochSource` is the claim's source, with its
 *     message
 */
function epochText(claim, run) {
  if (!claim) return "";
  if (!claim.value) return t("runs.infer.epoch.none");
  const spe = claim.value.stepsPerEpoch;
  const english = String(claim.value.source);
  const source =
    english === run.epochSource
      ? serverText(/** @type {any} */ (run).epochSourceMessage, english)
      : english;
  return spe ? source : t("runs.infer.epoch.levelOnly", { source });
}


/** @param {Inference | undefined} claim */
function loopsText(claim) {
  const tags = Object.keys(claim?.value ?? {});
  return tags.length
    ? tags
        .map((tag) =>
          t("runs.infer.loops.tag", { tag, n: claim?.value[tag].length }),
        )
        .join(t("cmp.list.comma"))
    : t("runs.infer.loops.one");
}

/**
 * @param {RunInfo} run
 * @param {(set: Record<string, unknown>) => Promise<void>} save
 */
function trainerControl(run, save) {
  const select = h(
    "select",
    { attrs: { "aria-label": t("runs.infer.trainerOf", { run: run.run }) } },
    h("option", { text: t("runs.infer.correct"), attrs: { value: "" } }),
    TRAINER_CHOICES.map((choice) =>
      h("option", {
        text:
          choice === "none" ? t("runs.infer.noTrainer") : trainerLabel(choice),
        attrs: { value: choice },
      }),
    ),
    h("option", { text: t("runs.infer.asDetected"), attrs: { value: "__clear" } }),
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
      placeholder: t("runs.infer.spe.placeholder"),
      "aria-label": t("runs.infer.spe"),
    },
    className: "tbmf-infer__number",
  });
  const base = h(
    "select",
    { attrs: { "aria-label": t("runs.infer.base") } },
    h("option", { text: t("runs.infer.base.evidence"), attrs: { value: "" } }),
    h("option", { text: t("runs.infer.base.zero"), attrs: { value: "0" } }),
    h("option", { text: t("runs.infer.base.one"), attrs: { value: "1" } }),
  );
  const apply = h("button", {
    text: t("runs.infer.set"),
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
    text:
      claim?.status === "set by you"
        ? t("runs.infer.asInferred")
        : t("runs.infer.noEpochAxis"),
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
      text: t("runs.infer.asInferred"),
      attrs: { type: "button" },
      on: { click: () => void save({ notResumed: null }) },
    });
  }
  if (!claim.value) return null;
  return h("button", {
    text: t("runs.infer.notResume"),
    title: t("runs.infer.notResume.help"),
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
  const tags = run.scalarTags.filter((name) => !name.includes(" \u27e8loop "));
  if (!tags.length) return null;
  const tag = h(
    "select",
    { attrs: { "aria-label": t("runs.infer.tag") } },
    tags.map((name) => h("option", { text: name, attrs: { value: name } })),
  );
  const split = h(
    "select",
    { attrs: { "aria-label": t("runs.infer.split") } },
    ["train", "val", "test", "none"].map((s) =>
      h("option", { text: t(`runs.infer.split.${s}`), attrs: { value: s } }),
    ),
    h("option", { text: t("runs.infer.split.asInferred"), attrs: { value: "__clear" } }),
  );
  const apply = h("button", {
    text: t("runs.infer.setSplit"),
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
    h("span", { className: "tbmf-muted", text: t("runs.infer.tagSplit") }),

    tag,
    split,
    apply,
  );
}
