// A run's detail row in the Runs table: why this framework, its timeline,
// attempts, hyper-parameters, tags, files and warnings.

import { frameworkBadge, h } from "../../dom.js";
import { formatInt, formatSteps } from "../../format.js";
import { serverText, serverTexts, t } from "../../i18n.js";
import { countText, durationText, timestampText } from "../../intl.js";
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
  const info = /** @type {any} */ (run);
  const otherTags = Object.entries(run.otherTags ?? {}).filter(
    ([, tags]) => tags.length > 0,
  );
  const sections = [
    section(t("runs.detail.why"), [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact(t("runs.col.framework"), frameworkBadge(run.framework, "tbmf-badge")),
        fact(t("runs.col.writer"), run.writer || "—"),
        fact(
          t("runs.detail.trainer"),
          run.trainer ? trainerLabel(run.trainer) : "—",
        ),
        fact(t("runs.detail.format"), run.format || "—"),
        fact(
          t("runs.detail.epochsFrom"),
          run.epochSource
            ? serverText(info.epochSourceMessage, run.epochSource)
            : t("runs.detail.notKnown"),
        ),
        fact(
          t("runs.detail.loggedLayout"),
          run.hasLayout ? t("runs.detail.yes") : t("runs.detail.no"),
        ),
      ),
      list(
        [
          ...serverTexts(run.evidence, info.evidenceMessages),
          ...serverTexts(run.trainerEvidence, info.trainerEvidenceMessages),
        ],
        t("runs.detail.noEvidence"),
      ),
    ]),
    inferenceSection(run, onSaved),
    section(t("runs.detail.timeline"), [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact(t("runs.detail.firstEvent"), timestampText(run.startTime)),
        fact(t("runs.detail.lastEvent"), timestampText(run.endTime)),
        fact(t("runs.col.duration"), durationText(duration(run))),
        fact(t("runs.col.steps"), formatSteps(run.firstStep, run.lastStep)),
        fact(t("runs.detail.scalarPoints"), formatInt(run.numPoints)),
        fact(t("runs.col.histograms"), formatInt(run.numHistograms)),
      ),
    ]),
    attemptsSection(run),
    hparamsSection(run),
    section(
      t("runs.detail.scalarTags", {
        n: formatInt(run.scalarTagCount ?? run.scalarTags.length),
      }),
      [tagList(run.scalarTags), ...notListed(run.scalarTagCount, run.scalarTags)],
    ),
    section(
      t("runs.detail.histogramTags", {
        n: formatInt(run.histogramTagCount ?? run.histogramTags.length),
      }),
      [
        tagList(run.histogramTags),
        ...notListed(run.histogramTagCount, run.histogramTags),
      ],
    ),
    section(t("runs.detail.otherTags"), [
      otherTags.length
        ? h(
            "dl",
            { className: "tbmf-detail__other" },
            otherTags.flatMap(([plugin, tags]) => [
              h("dt", { text: plugin }),
              h("dd", {}, tagList(tags)),
            ]),
          )
        : h("p", { className: "tbmf-muted", text: t("runs.detail.none") }),
    ]),
    section(t("runs.detail.files", { n: formatInt((run.files ?? []).length) }), [
      list(run.files ?? [], t("runs.detail.noFiles"), "tbmf-mono"),
    ]),
  ];
  if (run.warnings.length) {
    sections.push(
      section(
        t("runs.detail.warnings", { n: formatInt(run.warnings.length) }),
        [
          list(
            serverTexts(run.warnings, info.warningMessages),
            "",
            "tbmf-warnings",
          ),
        ],
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
    session_log: "runs.attempt.cause.session_log",
    step_decrease: "runs.attempt.cause.step_decrease",
    step_relogged: "runs.attempt.cause.step_relogged",
  };
  return section(t("runs.detail.attempts", { n: formatInt(attempts.length) }), [
    h("p", { className: "tbmf-muted", text: t("runs.attempt.help") }),
    list(
      attempts.map((a) => {
        const cause = causes[/** @type {keyof typeof causes} */ (a.cause)];
        const start =
          a.attempt === 0
            ? t("runs.attempt.from", { step: a.startStep ?? "—" })
            : t("runs.attempt.resumed", {
                step: a.startStep,
                cause: cause ? t(cause) : a.cause,
              });
        const extra = [
          a.superseded
            ? t("cmp.hidden.superseded", { n: formatInt(a.superseded) })
            : "",
          a.repeated
            ? t("cmp.hidden.repeated", { n: formatInt(a.repeated) })
            : "",
        ]
          .filter(Boolean)
          .join(t("cmp.list.comma"));
        return (
          t("runs.attempt.line", {
            attempt: a.attempt,
            start,
            points: countText(a.points, "count.point."),
          }) + (extra ? ` · ${extra}` : "")
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
    t("runs.detail.hparams", { n: formatInt(hparams.length) }),
    [
      h(
        "div",
        { className: "tbmf-detail__facts" },
        fact(
          t("runs.col.group"),
          `${run.group} (${groupSourceText(info.groupSource ?? "run")})`,
        ),
        fact(t("runs.detail.configHash"), info.configHash || "—"),
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
            text: t("runs.detail.noHparams"),
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
    return h("p", { className: "tbmf-muted", text: t("runs.detail.none") });
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
      text: t("runs.detail.notListed", {
        n: formatInt(count - listed.length),
        listed: formatInt(listed.length),
      }),

    }),
  ];
}

/** Where a run's group came from (`groupSource` of `GET runs`). */
const GROUP_SOURCES = Object.freeze({
  config: "runs.groupSource.config",
  "config rule": "runs.groupSource.configRule",
  "ddp ranks": "runs.groupSource.ddpRanks",
  "seed repeats": "runs.groupSource.seedRepeats",
  "sub-runs": "runs.groupSource.subRuns",
  run: "runs.groupSource.run",
});

/**
 * @param {string} source
 * @returns {string} in the tab's language (an unknown one as sent)
 */
function groupSourceText(source) {
  const key = GROUP_SOURCES[/** @type {keyof typeof GROUP_SOURCES} */ (source)];
  return key ? t(key) : source;
}
