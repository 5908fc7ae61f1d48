// What a comparison does not draw, and why, in a few lines however many
// runs are involved: one summary line a cause ("50 runs have no epoch
// information — set stepsPerEpoch"), the runs and the fix behind a
// disclosure. Used by the Compare and the Layouts views (panel.js).

import { h, icon } from "../../dom.js";
import { plural } from "../../format.js";
import { colorFor } from "./colors.js";
import { responseNotes } from "./series.js";

/** Runs listed inline (as chips) before a line is folded into a summary. */
const INLINE_RUNS = 4;
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
  if (note.configHint) return "no epoch information";
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
  const count = plural(runs.length, "run");
  const have = runs.length === 1 ? "has" : "have";
  let summary;
  if (first.configHint) {
    summary = `${count} ${have} no epoch information — set stepsPerEpoch`;
  } else if (first.kind === "excluded") {
    summary = `${count} cannot be placed on the ${response.x} axis: ${causeOf(first)}`;
  } else if (first.kind === "diff") {
    summary = `${count} ${have} no difference curve: ${first.reason}`;
  } else {
    summary = `${count} not drawn: ${first.reason}`;
  }
  const warn = first.kind !== "missing";
  const items = h(
    "ul",
    { className: "tbmf-cmp-notes__runs" },
    group.map((note) => noteItem(note)),
  );
  const reasons = [...new Set(group.map((n) => n.reason))];
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
                  ? `${reason} (${plural(
                      group.filter((n) => n.reason === reason).length,
                      "series",
                      "series",
                    )})`
                  : reason,
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
      h("span", { className: "tbmf-cmp-notes__more", text: "details" }),
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
      title: note.tag ? `${note.tag}: ${note.reason}` : note.reason,
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
    entries[key] = { stepsPerEpoch: "<batches per epoch>" };
  }
  return h(
    "div",
    { className: "tbmf-cmp-note__hint" },
    h("span", { text: "Fix: add to the config file " }),
    h("code", { text: "<logdir>/.tb_multiframework/config.json" }),
    h("span", { text: " (or --tbmf_config): " }),
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
