// A run's detail row in the Runs table: why this framework, its timeline,
// attempts, hyper-parameters, tags, files and warnings.

import { frameworkBadge, h } from "../../dom.js";
import {
  formatDuration,
  formatInt,
  formatSteps,
  formatTimestamp,
  plural,
} from "../../format.js";
import { duration, trainerLabel } from "./columns.js";
import { hparamText } from "./experiment.js";
import { inferenceSection } from "./inferences.js";

/** @typedef {import("../../model.js").RunInfo} RunInfo */

/**
 * The expanded detail of a run: why this framework, tags, files, warnings.
 * @param {RunInfo} run
 * @param {number} span columns the row spans
 * @param {() => void} [onSaved] after a correction of an inference is saved
 * @returns {HTMLTableRowElement}
 */
export function detailRow(run, span, onSaved) {
  const otherTags = Object.entries(run.otherTags ?? {}).filter(
    ([, tags]) => tags.length > 0,
  );
  const sections = [
    section("Why this framework", [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact("Framework", frameworkBadge(run.framework, "tbmf-badge")),
        fact("Writer", run.writer || "—"),
        fact("Trainer", run.trainer ? trainerLabel(run.trainer) : "—"),
        fact("Format", run.format || "—"),
        fact("Epochs from", run.epochSource || "not known"),
        fact("Logged layout", run.hasLayout ? "yes" : "no"),
      ),
      list(
        [...(run.evidence ?? []), ...(run.trainerEvidence ?? [])],
        "No evidence recorded.",
      ),
    ]),
    inferenceSection(run, onSaved),
    section("Timeline", [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact("First event", formatTimestamp(run.startTime)),
        fact("Last event", formatTimestamp(run.endTime)),
        fact("Duration", formatDuration(duration(run))),
        fact("Steps", formatSteps(run.firstStep, run.lastStep)),
        fact("Scalar points", formatInt(run.numPoints)),
        fact("Histograms", formatInt(run.numHistograms)),
      ),
    ]),
    attemptsSection(run),
    hparamsSection(run),
    section(
      `Scalar tags (${formatInt(run.scalarTagCount ?? run.scalarTags.length)})`,
      [tagList(run.scalarTags), ...notListed(run.scalarTagCount, run.scalarTags)],
    ),
    section(
      `Histogram tags (${formatInt(
        run.histogramTagCount ?? run.histogramTags.length,
      )})`,
      [
        tagList(run.histogramTags),
        ...notListed(run.histogramTagCount, run.histogramTags),
      ],
    ),
    section("Other tags (not charted here)", [
      otherTags.length
        ? h(
            "dl",
            { className: "tbmf-detail__other" },
            otherTags.flatMap(([plugin, tags]) => [
              h("dt", { text: plugin }),
              h("dd", {}, tagList(tags)),
            ]),
          )
        : h("p", { className: "tbmf-muted", text: "None." }),
    ]),
    section(`Files (${formatInt((run.files ?? []).length)})`, [
      list(run.files ?? [], "No files.", "tbmf-mono"),
    ]),
  ];
  if (run.warnings.length) {
    sections.push(
      section(
        `Warnings (${formatInt(run.warnings.length)})`,
        [list(run.warnings, "", "tbmf-warnings")],
        "tbmf-detail__section--warn",
      ),
    );
  }
  return h(
    "tr",
    { className: "tbmf-detail-row", dataset: { run: run.run } },
    h(
      "td",
      { attrs: { colspan: span } },
      h("div", { className: "tbmf-detail" }, sections),
    ),
  );
}

/**
 * The run's attempts when it was resumed, or steps were logged again.
 * @param {RunInfo} run
 * @returns {HTMLElement | null}
 */
function attemptsSection(run) {
  const attempts = run.attempts ?? [];
  const hidden = attempts.some((a) => a.superseded || a.repeated);
  if (attempts.length < 2 && !hidden) return null;
  const causes = {
    session_log: "SessionLog.START (e.g. torch purge_step)",
    step_decrease: "a tag went back to this step",
    step_relogged: "a new file logged this step again",
  };
  return section(`Attempts (${formatInt(attempts.length)})`, [
    h("p", {
      className: "tbmf-muted",
      text:
        "Each step shows its latest point; earlier ones are kept and " +
        "counted (Compare › Attempts draws them).",
    }),
    list(
      attempts.map((a) => {
        const start =
          a.attempt === 0
            ? `from step ${a.startStep ?? "—"}`
            : `resumed at step ${a.startStep} (${
                causes[/** @type {keyof typeof causes} */ (a.cause)] ?? a.cause
              })`;
        const extra = [
          a.superseded ? `${formatInt(a.superseded)} superseded` : "",
          a.repeated
            ? `${formatInt(a.repeated)} re-logged at the same step`
            : "",
        ]
          .filter(Boolean)
          .join(", ");
        return (
          `attempt ${a.attempt}: ${start} · ${plural(a.points, "point")}` +
          (extra ? ` · ${extra}` : "")
        );
      }),
      "",
      "tbmf-attempts",
    ),
  ]);
}

/**
 * A run's hyper-parameters with where each came from, and its group.
 * @param {RunInfo} run
 * @returns {HTMLElement}
 */
function hparamsSection(run) {
  const info = /** @type {any} */ (run);
  const hparams = Object.entries(info.hparams ?? {});
  const sources = info.hparamsSources ?? {};
  return section(
    `Hyper-parameters (${formatInt(hparams.length)})`,
    [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact("Group", `${run.group} (${info.groupSource ?? "run"})`),
        fact("Config hash", info.configHash || "—"),
      ),
      hparams.length
        ? h(
            "dl",
            { className: "tbmf-detail__hparams" },
            hparams.flatMap(([key, value]) => [
              h("dt", { text: key }),
              h(
                "dd",
                {},
                h("span", { text: hparamText(value) }),
                h("span", {
                  className: "tbmf-muted tbmf-detail__source",
                  text: sources[key] ? ` (${sources[key]})` : "",
                }),
              ),
            ]),
          )
        : h("p", {
            className: "tbmf-muted",
            text:
              "None found: no add_hparams / hparams summary, hparams.yaml, " +
              "config.json|yaml, hparams.json or args text, and none set in " +
              "the config file.",
          }),
    ],
    "tbmf-detail__section--hparams",
  );
}

/**
 * @param {string} title
 * @param {(HTMLElement | null)[]} children
 * @param {string} [className] extra class
 * @returns {HTMLElement}
 */
function section(title, children, className = "") {
  return h(
    "section",
    { className: `tbmf-detail__section ${className}`.trim() },
    h("h3", { text: title }),
    children,
  );
}

/**
 * @param {string} label
 * @param {string | HTMLElement} value
 * @returns {HTMLElement}
 */
function fact(label, value) {
  return h(
    "div",
    { className: "tbmf-fact" },
    h("span", { className: "tbmf-fact__label", text: label }),
    h("span", { className: "tbmf-fact__value" }, value),
  );
}

/**
 * @param {string[]} items
 * @param {string} emptyText
 * @param {string} [className]
 * @returns {HTMLElement}
 */
function list(items, emptyText, className = "") {
  if (items.length === 0) {
    return h("p", { className: "tbmf-muted", text: emptyText });
  }
  return h(
    "ul",
    { className: `tbmf-list ${className}`.trim() },
    items.map((item) => h("li", { text: item })),
  );
}

/**
 * @param {string[]} tags
 * @returns {HTMLElement}
 */
function tagList(tags) {
  if (tags.length === 0)
    return h("p", { className: "tbmf-muted", text: "None." });
  return h(
    "ul",
    { className: "tbmf-tags" },
    tags.map((tag) => h("li", { className: "tbmf-tag", text: tag })),
  );
}

/**
 * A note for tags `GET runs` did not list (it lists the first 1,000).
 * @param {number | undefined} count the run's tags
 * @param {string[]} listed
 * @returns {HTMLElement[]}
 */
function notListed(count, listed) {
  if (count === undefined || count <= listed.length) return [];
  return [
    h("p", {
      className: "tbmf-detail__more",
      text: `and ${formatInt(count - listed.length)} more (the first ${formatInt(
        listed.length,
      )} are listed; search the Compare tab's raw tags for any of them)`,
    }),
  ];
}
