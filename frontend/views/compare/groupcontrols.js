// The Compare toolbar's "Groups" controls: group by (none, group,
// framework, writer, trainer, any hyper-parameter), center (mean / median),
// band (± std, 95% CI, min–max, none), members on/off and a baseline group.
// State lives in the URL: `cg` group by, `cgc` center, `cbd` band, `cmb`
// "1" to draw members, `cbg` the baseline group. (The center was `ca`,
// which also meant "all attempts": an old link's `ca=median` still reads
// as the median, until a control writes the state.)

import { h, setChildren } from "../../dom.js";
import { t } from "../../i18n.js";
import { AGGREGATES, BANDS, GROUP_BY } from "./groups.js";

/** State keys of the group controls. */
export const GROUP_KEYS = Object.freeze({
  groupBy: "cg",
  aggregate: "cgc",
  band: "cbd",
  members: "cmb",
  baselineGroup: "cbg",
});
const HPARAM = "hparam:";
const SEARCH_FROM_KEYS = 12; // hyper-parameter keys before a search box shows

/** The center's key in older links (shared with Compare's attempts). */
const LEGACY_AGGREGATE = "ca";

/**
 * The state update that carries an old link's center (`ca=median`) over to
 * its own key, so writing `ca` (attempts) or the center keeps the choice.
 * @param {import("../../state.js").AppState} state
 * @returns {Record<string, string | null>}
 */
export function movedLegacyCenter(state) {
  if (state.get(LEGACY_AGGREGATE) !== "median") return {};
  return {
    [LEGACY_AGGREGATE]: null,
    [GROUP_KEYS.aggregate]: state.get(GROUP_KEYS.aggregate) || "median",
  };
}

/**
 * @typedef {Object} GroupState
 * @property {string | null} groupBy
 * @property {'mean' | 'median'} aggregate
 * @property {'std' | 'ci95' | 'minmax' | 'none'} band
 * @property {boolean} showMembers
 * @property {string | null} baselineGroup
 */

/**
 * @param {import("../../state.js").AppState} state
 * @returns {GroupState}
 */
export function readGroupState(state) {
  const groupBy = state.get(GROUP_KEYS.groupBy) || null;
  const band = state.get(GROUP_KEYS.band, "std");
  return {
    groupBy,
    aggregate:
      (state.get(GROUP_KEYS.aggregate) ||
        state.get(LEGACY_AGGREGATE, "")) === "median"
        ? "median"
        : "mean",
    band: /** @type {any} */ (
      BANDS.some(([value]) => value === band) ? band : "std"
    ),
    showMembers: state.get(GROUP_KEYS.members) === "1",
    baselineGroup: groupBy ? state.get(GROUP_KEYS.baselineGroup) || null : null,
  };
}

/**
 * Hyper-parameter keys of the runs, for "group by hparam:<key>": those
 * whose values differ between the runs first (a key some runs lack
 * differs), each part with the keys most runs have first, so lr and seed
 * come before the hundred `accelerator_config.*` keys of one HF run.
 * @param {{hparams?: Record<string, unknown>}[]} runs
 * @returns {{differing: string[], same: string[]}}
 */
export function hparamKeys(runs) {
  /** @type {Map<string, {runs: number, values: Set<string>}>} */
  const seen = new Map();
  const text = (/** @type {unknown} */ v) =>
    typeof v === "bigint" ? `${v}n` : JSON.stringify(v);
  for (const run of runs) {
    for (const [key, value] of Object.entries(run.hparams ?? {})) {
      const entry = seen.get(key) ?? { runs: 0, values: new Set() };
      entry.runs++;
      entry.values.add(text(value));
      seen.set(key, entry);
    }
  }
  const order = (/** @type {string} */ a, /** @type {string} */ b) =>
    /** @type {any} */ (seen.get(b)).runs -
      /** @type {any} */ (seen.get(a)).runs || (a < b ? -1 : a > b ? 1 : 0);
  const differing = [];
  const same = [];
  for (const [key, entry] of seen) {
    if (entry.values.size > 1 || entry.runs < runs.length) differing.push(key);
    else same.push(key);
  }
  return { differing: differing.sort(order), same: same.sort(order) };
}

export class GroupControls {
  /**
   * @param {import("../../app.js").ViewContext} ctx
   */
  constructor(ctx) {
    this.ctx = ctx;
    const update = (/** @type {Record<string, string | null>} */ patch) =>
      ctx.state.update(patch);
    this.groupBy = h("select", {
      className: "tbmf-cmp-select",
      title: t("cmp.groupBy.help"),
      attrs: { "aria-label": t("cmp.groupBy") },
      dataset: { control: "group-by" },
      on: {
        change: () =>
          update({
            [GROUP_KEYS.groupBy]: this.groupBy.value || null,
            [GROUP_KEYS.baselineGroup]: null,
          }),
      },
    });
    this.aggregate = select(t("cmp.aggregate"), "aggregate", AGGREGATES, () =>
      update({
        ...movedLegacyCenter(ctx.state),
        [GROUP_KEYS.aggregate]:
          this.aggregate.value === "median" ? "median" : null,
      }),
    );
    this.band = select(t("cmp.band"), "band", BANDS, () =>
      update({
        [GROUP_KEYS.band]: this.band.value === "std" ? null : this.band.value,
      }),
    );
    this.members = h("button", {
      className: "tbmf-cmp-toggle",
      text: t("cmp.members"),
      title: t("cmp.members.help"),
      attrs: { type: "button", "aria-pressed": "false" },
      dataset: { control: "members" },
      on: {
        click: () =>
          update({
            [GROUP_KEYS.members]: readGroupState(ctx.state).showMembers
              ? null
              : "1",
          }),
      },
    });
    this.baselineGroup = h("select", {
      className: "tbmf-cmp-select",
      title: t("cmp.baselineGroup.help"),
      attrs: { "aria-label": t("cmp.baselineGroup") },
      dataset: { control: "baseline-group" },
      on: {
        change: () =>
          update({
            [GROUP_KEYS.baselineGroup]: this.baselineGroup.value || null,
          }),
      },
    });
    /** Finds keys among the hyper-parameters (not kept in the URL). */
    this.groupSearch = h("input", {
      className: "tbmf-cmp-select tbmf-cmp-groups__search",
      attrs: {
        type: "search",
        placeholder: t("cmp.groupSearch.placeholder"),
        "aria-label": t("cmp.groupSearch"),
      },
      dataset: { control: "group-search" },
      on: { input: () => this.render(this._groups) },
    });
    /** @type {string[]} */
    this._groups = [];
    this.element = h(
      "span",
      { className: "tbmf-cmp-groups" },
      this.groupSearch,
      this.groupBy,
      this.aggregate,
      this.band,
      this.members,
      this.baselineGroup,
    );
  }

  /**
   * @param {string[]} groups the groups of the last answer (baseline choices)
   */
  render(groups = []) {
    this._groups = groups;
    const s = readGroupState(this.ctx.state);
    const { catalog, state } = this.ctx;
    const shown = new Set(state.selectedRuns(catalog.runs.map((r) => r.run)));
    const keys = hparamKeys(catalog.runs.filter((r) => shown.has(r.run)));
    // The search box appears once there are keys enough to need it.
    const many = keys.differing.length + keys.same.length > SEARCH_FROM_KEYS;
    this.groupSearch.hidden = !many;
    const needle = many ? this.groupSearch.value.trim().toLowerCase() : "";
    const found = (/** @type {string} */ key) =>
      !needle || key.toLowerCase().includes(needle);
    const option = (/** @type {string} */ value, /** @type {string} */ label) =>
      h("option", { text: label, attrs: { value } });
    const part = (/** @type {string} */ label, /** @type {string[]} */ list) => {
      const matching = list.filter(found);
      return matching.length
        ? h(
            "optgroup",
            { attrs: { label: `${label} (${matching.length})` } },
            matching.map((key) =>
              option(`${HPARAM}${key}`, t("cmp.groupBy.hparam", { key })),
            ),
          )
        : null;
    };
    const known = [...GROUP_BY.map(([v]) => v), ...keys.differing, ...keys.same]
      .map((v, i) => (i < GROUP_BY.length ? v : `${HPARAM}${v}`));
    const chosen =
      s.groupBy &&
      (!known.includes(s.groupBy) ||
        (s.groupBy.startsWith(HPARAM) && !found(s.groupBy.slice(HPARAM.length))))
        ? option(
            s.groupBy,
            s.groupBy.startsWith(HPARAM)
              ? t("cmp.groupBy.hparam", { key: s.groupBy.slice(HPARAM.length) })
              : s.groupBy,
          )
        : null;
    setChildren(this.groupBy, [
      ...GROUP_BY.map(([value, key]) => option(value, t(key))),
      chosen,
      part(t("cmp.groupBy.differ"), keys.differing),
      part(t("cmp.groupBy.same"), keys.same),
    ]);
    this.groupBy.value = s.groupBy ?? "";
    this.aggregate.value = s.aggregate;
    this.band.value = s.band;
    const on = Boolean(s.groupBy);
    for (const control of [
      this.aggregate,
      this.band,
      this.members,
      this.baselineGroup,
    ]) {
      control.disabled = !on;
    }
    this.members.classList.toggle("is-on", s.showMembers);
    this.members.setAttribute("aria-pressed", String(s.showMembers));
    const options = [
      ["", t("cmp.baselineGroup.none")],
      ...groups.map((g) => [g, g]),
    ];
    if (s.baselineGroup && !groups.includes(s.baselineGroup)) {
      options.push([
        s.baselineGroup,
        t("cmp.baselineGroup.notShown", { group: s.baselineGroup }),
      ]);
    }
    setChildren(
      this.baselineGroup,
      options.map(([value, label]) =>
        h("option", { text: label, attrs: { value } }),
      ),
    );
    this.baselineGroup.value = s.baselineGroup ?? "";
  }
}

/**
 * @param {string} label
 * @param {string} control
 * @param {readonly (readonly string[])[]} choices
 * @param {() => void} onChange
 * @returns {HTMLSelectElement}
 */
function select(label, control, choices, onChange) {
  return h(
    "select",
    {
      className: "tbmf-cmp-select",
      attrs: { "aria-label": label },
      dataset: { control },
      on: { change: onChange },
    },
    choices.map(([value, key]) =>
      h("option", { text: t(key), attrs: { value } }),
    ),

  );
}
