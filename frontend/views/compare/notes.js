// What a comparison does not draw, and why, in a few lines however many
// runs are involved: one summary line a cause ("50 runs have no epoch
// information — set stepsPerEpoch"), the runs and the fix behind a
// disclosure. Used by the Compare and the Layouts views (panel.js).

import { h, icon } from "../../dom.js";
import { t } from "../../i18n.js";
import { countText } from "../../intl.js";
import { colorFor } from "./colors.js";
import { responseNotes } from "./series.js";

/** Runs listed inline (as chips) before a line is folded into a summary. */
const INLINE_RUNS = 4;
/** Where the user's corrections go (a path, not translated). */
const CONFIG_FILE = "<logdir>/.tb_multiframework/config.json";
/** Characters fnmatch reads as wildcards: a prefix with them is no glob. */

const GLOB_CHARS = /[*?[\]]/;

/**
 * @typedef {import("./series.js").Note} Note
 * @typedef {import("./series.js").ScalarsResponse} ScalarsResponse
 */

/**
 * Renders the notes of an answer into `container` (hidden when none).
 * @param {HTMLElement} container
 * @param {ScalarsResponse} response
 * @param {string[]} allRuns every run of the logdir (for a config glob that
 *     matches the runs concerned and no other)
 */
export function renderNotes(container, response, allRuns) {
  const notes = responseNotes(response);
  container.hidden = notes.length === 0;
  /** @type {Map<string, Note[]>} */
  const groups = new Map();
  for (const note of notes) {
    const key = `${note.kind}\n${causeOf(note)}`;
    const members = groups.get(key);
    if (members) members.push(note);
    else groups.set(key, [note]);
  }
  container.replaceChildren(
    ...[...groups.values()].map((group) =>
      noteGroup(group, response, allRuns),
    ),
  );
}

/**
 * The cause a note shares with others: the text before the first `:` of an
 * axis exclusion ("no epoch information"), else the whole reason.
 * @param {Note} note
 * @returns {string}
 */
function causeOf(note) {
  if (note.configHint) return "\u0000noEpochs";
  return note.kind === "excluded" ? note.reason.split(":")[0] : note.reason;
}

/**
 * @param {Note[]} group notes with one kind and cause
 * @param {ScalarsResponse} response
 * @param {string[]} allRuns
 * @returns {HTMLElement}
 */
function noteGroup(group, response, allRuns) {
  const first = group[0];
  const runs = [...new Set(group.map((n) => n.run))];
  const n = runs.length;
  let summary;
  if (first.configHint) {
    summary = countText(n, "cmp.notes.noEpochs.");
  } else if (first.kind === "excluded") {
    // The cause as shown: the text before the reason's first colon.
    summary = countText(n, "cmp.notes.excluded.", {
      axis: t(`axis.${response.x}`),
      cause: first.text.split(/[:：]/)[0],
    });
  } else if (first.kind === "diff") {
    summary = countText(n, "cmp.notes.noDiff.", { reason: first.text });
  } else {
    summary = countText(n, "cmp.notes.notDrawn.", { reason: first.text });
  }
  const warn = first.kind !== "missing";
  const items = h(
    "ul",
    { className: "tbmf-cmp-notes__runs" },
    group.map((note) => noteItem(note)),
  );
  const reasons = [...new Set(group.map((n) => n.reason))];
  /** The reason in the tab's language. */
  const textOf = (/** @type {string} */ reason) =>
    group.find((n) => n.reason === reason)?.text ?? reason;
  const body = [
    first.configHint ? configHint(runs, allRuns) : null,
    // The full reasons once each, not once a run.
    reasons.length && (first.kind !== "missing" || reasons.length > 1)
      ? h(
          "ul",
          { className: "tbmf-cmp-notes__reasons" },
          reasons.map((reason) =>
            h("li", {
              className: "tbmf-cmp-notes__reason",
              text:
                reasons.length > 1
                  ? t("cmp.notes.reasonSeries", {
                      reason: textOf(reason),
                      n: group.filter((n) => n.reason === reason).length,
                    })
                  : textOf(reason),
            }),
          ),
        )
      : null,
    items,
  ];
  const head = [
    icon(warn ? "warning" : "info", { size: 16 }),
    h("span", { className: "tbmf-cmp-notes__summary-text", text: summary }),
  ];
  const className = `tbmf-cmp-notes__group${warn ? " is-warning" : ""}`;
  const dataset = { kind: first.kind, count: String(runs.length) };
  if (!first.configHint && runs.length <= INLINE_RUNS && reasons.length < 2) {
    // A few runs: the chips themselves are the details.
    return h(
      "div",
      { className: `${className} is-inline`, dataset, attrs: { role: "status" } },
      h("div", { className: "tbmf-cmp-notes__summary" }, head),
      items,
    );
  }
  return h(
    "details",
    { className, dataset, attrs: { role: "status" } },
    h(
      "summary",
      { className: "tbmf-cmp-notes__summary" },
      head,
      h("span", {
        className: "tbmf-cmp-notes__more",
        text: t("cmp.notes.details"),
      }),
    ),
    h("div", { className: "tbmf-cmp-notes__body" }, body),
  );
}

/**
 * @param {Note} note
 * @returns {HTMLElement}
 */
function noteItem(note) {
  return h(
    "li",
    {
      className: "tbmf-cmp-note",
      dataset: { run: note.run, kind: note.kind, reason: note.reason },
      title: note.tag ? `${note.tag}: ${note.text}` : note.text,

    },
    h("span", {
      className: "tbmf-dot",
      style: { "--dot": colorFor(note.run) },
    }),
    h("span", {
      className: "tbmf-cmp-note__run",
      text: note.tag && note.kind !== "missing" ? `${note.run} · ${note.tag}` : note.run,
    }),
  );
}

/**
 * The fix for runs without epochs: one config entry that sets their steps
 * per epoch. A glob when the runs share a prefix no other run has.
 * @param {string[]} runs
 * @param {string[]} allRuns
 * @returns {HTMLElement}
 */
export function configHint(runs, allRuns) {
  const glob = prefixGlob(runs, allRuns);
  /** @type {Record<string, {stepsPerEpoch: string}>} */
  const entries = {};
  for (const key of glob ? [glob] : runs) {
    entries[key] = { stepsPerEpoch: t("cmp.notes.batchesPerEpoch") };
  }
  return h(
    "div",
    { className: "tbmf-cmp-note__hint" },
    h("span", { text: t("cmp.notes.fix") }),
    h("code", { text: CONFIG_FILE }),
    h("span", { text: t("cmp.notes.fixOr") }),

    h("code", {
      className: "tbmf-cmp-note__snippet",
      text: JSON.stringify({ runs: entries }),
    }),
  );
}

/**
 * `run_*` when the runs are two or more, share a prefix free of glob
 * characters, and no other run of the logdir starts with it.
 * @param {string[]} runs
 * @param {string[]} allRuns
 * @returns {string | null}
 */
export function prefixGlob(runs, allRuns) {
  if (runs.length < 2) return null;
  let prefix = runs[0];
  for (const run of runs) {
    let i = 0;
    while (i < prefix.length && i < run.length && prefix[i] === run[i]) i++;
    prefix = prefix.slice(0, i);
  }
  if (!prefix || GLOB_CHARS.test(prefix)) return null;
  const concerned = new Set(runs);
  const others = allRuns.some(
    (run) => run.startsWith(prefix) && !concerned.has(run),
  );
  return others ? null : `${prefix}*`;
}
