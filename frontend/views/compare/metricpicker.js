// The metric picker of the Compare view: the cross-framework metric index
// (`GET metrics`) grouped by canonical name, one chip a level, each with the
// (run, raw tag) pairs behind it and how each was matched; or every raw
// scalar tag. Metrics of the selected runs come first; the others are
// greyed.

import { h, icon } from "../../dom.js";
import { formatInt } from "../../format.js";
import { serverTexts, t } from "../../i18n.js";
import { countText } from "../../intl.js";
import { fetchJson, fetchMetricPage, LatestRequest } from "../../model.js";
import { runColor } from "./colors.js";
import { textMatcher } from "../../filter.js";

/** @typedef {import("../../app.js").ViewContext} ViewContext */

/**
 * @typedef {Object} MetricMember
 * @property {string} run
 * @property {string} tag
 * @property {string | null} level
 * @property {string} derivation how the tag was matched to the metric
 *
 * @typedef {Object} MetricEntry One entry of `GET metrics`.
 * @property {string} key e.g. `loss/train@batch`
 * @property {string} name e.g. `loss/train`
 * @property {string | null} level `batch`, `epoch` or null
 * @property {MetricMember[]} members
 *
 * @typedef {{metric: string | null, tag: string | null}} Choice
 */

/** Longest search text accepted, in characters. */
const MAX_SEARCH_LENGTH = 200;
/** Metrics or tags fetched at once: the server searches and pages the
 * lists (a run may log 200,000 tags), the tab fetches what it shows. */
export const PAGE_SIZE = 500;
/** Milliseconds of typing pause before the search goes to the server. */
const SEARCH_DELAY_MS = 200;
/** Order of levels within a name. */
const LEVEL_ORDER = ["batch", "epoch", null];

export class MetricPicker {
  /**
   * @param {ViewContext} ctx
   * @param {{current: () => Choice, onPick: (choice: Choice) => void,
   *     onLoad: (metrics: MetricEntry[]) => void}} hooks
   */
  constructor(ctx, hooks) {
    this.ctx = ctx;
    this.hooks = hooks;
    /** The page of the metric index for the search (plus the current
     * metric's entry, wherever it is). */
    /** @type {MetricEntry[] | null} */
    this.metrics = null;
    /** Metrics matching the search on the server (the page may hold fewer). */
    this.total = 0;
    /** @type {{tag: string, runs: number, selected: number}[] | null} */
    this.tags = null;
    this.tagTotal = 0;
    /** @type {string | null} */
    this.error = null;
    this._request = new LatestRequest();
    this._tagRequest = new LatestRequest();
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._searchTimer = null;
    /** The last choice `followChoice` followed. */
    this._followed = "";
    /** 'metrics' or 'tags'; follows the choice until the user switches. */
    /** @type {'metrics' | 'tags'} */
    this.mode = hooks.current().tag ? "tags" : "metrics";
    this._query = "";
    /** Names whose member list the user opened or closed. */
    /** @type {Map<string, boolean>} */
    this._open = new Map();

    this._modeButtons = /** @type {const} */ (["metrics", "tags"]).map((mode) =>
      h("button", {
        className: "tbmf-cmp-seg__item",
        text: mode === "metrics" ? t("cmp.metrics.mode") : t("cmp.tags.mode"),
        title:
          mode === "metrics"
            ? t("cmp.metrics.mode.help")
            : t("cmp.tags.mode.help"),
        attrs: { type: "button", "aria-pressed": "false" },
        dataset: { mode },
        on: {
          click: () => {
            this.mode = mode;
            if (mode === "tags" && this.tags === null) void this.loadTags();
            this.render();
          },
        },
      }),
    );
    this._search = h("input", {
      className: "tbmf-cmp-search__input",
      attrs: {
        type: "search",
        placeholder: t("cmp.metrics.search"),
        "aria-label": t("cmp.metrics.search"),
        spellcheck: "false",
        autocomplete: "off",
        maxlength: MAX_SEARCH_LENGTH,
      },
      dataset: { control: "metric-search" },
      on: {
        input: () => {
          this._query = this._search.value.trim();
          if (this._searchTimer !== null) clearTimeout(this._searchTimer);
          this._searchTimer = setTimeout(() => {
            this._searchTimer = null;
            void this.load();
          }, SEARCH_DELAY_MS);
        },
      },
    });
    this._list = h("ul", {
      className: "tbmf-cmp-metrics",
      attrs: { "aria-label": t("cmp.metrics.mode") },
    });
    this.element = h(
      "section",
      { className: "tbmf-cmp-card tbmf-cmp-card--metrics" },
      h(
        "header",
        { className: "tbmf-cmp-card__head" },
        h("h2", { className: "tbmf-cmp-card__title", text: t("cmp.metric") }),
        h(
          "span",
          {
            className: "tbmf-cmp-seg tbmf-cmp-seg--small",
            attrs: { role: "group", "aria-label": t("cmp.metrics.list") },
          },
          this._modeButtons,
        ),
      ),
      h(
        "label",
        { className: "tbmf-cmp-search" },
        icon("search", { size: 16 }),
        this._search,
      ),
      this._list,
    );
  }

  /** Fetches the page of the metric index for the search (again), and
   * the raw tags' page when that list is open. */
  async load() {
    if (this.mode === "tags" || this.tags !== null) void this.loadTags();
    const current = this.hooks.current().metric;
    const runs = [...this._selectedRuns()];
    const outcome = await this._request.run((signal) =>
      // The chosen metric may be beyond this page: its entry comes too.
      fetchMetricPage(
        {
          search: this._query,
          runs,
          limit: PAGE_SIZE,
          wanted: current ? [current] : [],
        },
        signal,
      ),
    );
    if (outcome.stale) return;
    if (outcome.error) {
      this.error = outcome.error.message;
    } else {
      this.error = null;
      this.metrics = outcome.value.entries;
      this.total = outcome.value.total;
      this.hooks.onLoad(this.metrics);
    }
    this.render();
  }

  /** Fetches the page of raw tags for the search. */
  async loadTags() {
    const runs = [...this._selectedRuns()];
    const outcome = await this._tagRequest.run((signal) =>
      fetchJson(
        "tags",
        { search: this._query, run: runs, limit: PAGE_SIZE },
        { signal },
      ),
    );
    if (outcome.stale) return;
    if (outcome.error) {
      this.error = outcome.error.message;
    } else {
      this.tags = Array.isArray(outcome.value?.tags) ? outcome.value.tags : [];
      this.tagTotal = Number(outcome.value?.total ?? this.tags.length);
    }
    if (this.mode === "tags") this.render();
  }

  destroy() {
    this._request.cancel();
    this._tagRequest.cancel();
    if (this._searchTimer !== null) clearTimeout(this._searchTimer);
  }

  /** @param {Choice} choice */
  followChoice(choice) {
    // Only a new choice moves the list: a re-render after a search must
    // not switch away from the list the user opened.
    const followed = `${choice.metric ?? ""}\u0000${choice.tag ?? ""}`;
    if (followed === this._followed) return;
    this._followed = followed;
    if (choice.tag && this.mode !== "tags") {
      this.mode = "tags";
      if (this.tags === null) void this.loadTags();
    }
    if (choice.metric && this.mode !== "metrics") this.mode = "metrics";
  }

  render() {
    for (const button of this._modeButtons) {
      const on = button.dataset.mode === this.mode;
      button.classList.toggle("is-on", on);
      button.setAttribute("aria-pressed", String(on));
    }
    if (this.mode === "tags") this._renderTags();
    else this._renderMetrics();
  }

  /** @returns {Set<string>} */
  _selectedRuns() {
    const all = this.ctx.catalog.runs.map((r) => r.run);
    return new Set(this.ctx.state.selectedRuns(all));
  }

  _renderMetrics() {
    if (this.error) {
      this._list.replaceChildren(
        h("li", {
          className: "tbmf-cmp-metrics__empty is-error",
          text: t("cmp.metrics.error", { error: this.error }),
        }),
      );
      return;
    }
    if (this.metrics === null) {
      this._list.replaceChildren(emptyItem(t("common.loading")));
      return;
    }
    const selected = this._selectedRuns();
    const current = this.hooks.current().metric;
    const matches = textMatcher(this._query);
    /** @type {Map<string, MetricEntry[]>} */
    const byName = new Map();
    for (const entry of this.metrics) {
      const hit =
        matches(entry.name) ||
        matches(entry.key) ||
        entry.members.some((m) => matches(m.tag));
      if (!hit) continue;
      const list = byName.get(entry.name);
      if (list) list.push(entry);
      else byName.set(entry.name, [entry]);
    }
    const rows = [...byName].map(([name, entries]) => {
      entries.sort(
        (a, b) => LEVEL_ORDER.indexOf(a.level) - LEVEL_ORDER.indexOf(b.level),
      );
      const counts = entries.map((e) => selectedRunCount(e, selected));
      return { name, entries, counts, best: Math.max(...counts) };
    });
    // Metrics of the selected runs first, then the rest (greyed).
    rows.sort(
      (a, b) =>
        Number(b.best > 0) - Number(a.best > 0) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    if (rows.length === 0) {
      this._list.replaceChildren(
        emptyItem(
          this.metrics.length ? t("cmp.metrics.noMatch") : t("cmp.metrics.none"),
        ),
      );
      return;
    }
    this._list.replaceChildren(
      ...rows.map((row) => this._metricRow(row, current, selected)),
      ...moreNote(this.total, this.metrics.length, "cmp.metrics.more."),
    );
  }

  /**
   * @param {{name: string, entries: MetricEntry[], counts: number[],
   *     best: number}} row
   * @param {string | null} current
   * @param {Set<string>} selected
   * @returns {HTMLElement}
   */
  _metricRow(row, current, selected) {
    const isCurrent = row.entries.some((e) => e.key === current);
    const open = this._open.get(row.name) ?? isCurrent;
    const pickBest = () => {
      const index = row.entries.findIndex((e) => e.key === current);
      const best =
        index >= 0 ? index : row.counts.indexOf(Math.max(...row.counts));
      this.hooks.onPick({ metric: row.entries[best].key, tag: null });
    };
    return h(
      "li",
      {
        className: `tbmf-cmp-metric${isCurrent ? " is-current" : ""}${
          row.best === 0 ? " is-inactive" : ""
        }`,
        dataset: { name: row.name },
      },
      h(
        "div",
        { className: "tbmf-cmp-metric__row" },
        h(
          "button",
          {
            className: `tbmf-cmp-metric__toggle${open ? " is-open" : ""}`,
            title: open ? t("cmp.metrics.hideTags") : t("cmp.metrics.showTags"),
            // One name per metric: a screen reader lists 22 of these.
            attrs: {
              type: "button",
              "aria-expanded": String(open),
              "aria-label": t("cmp.metrics.tagsBehind", { name: row.name }),
            },
            on: {
              click: () => {
                this._open.set(row.name, !open);
                this.render();
              },
            },
          },
          icon("chevronRight", { size: 16 }),
        ),
        h("button", {
          className: "tbmf-cmp-metric__name",
          text: row.name,
          title: t("cmp.metrics.compare", { name: row.name }),
          attrs: { type: "button" },
          on: { click: pickBest },
        }),
        row.entries.some((e) => e.members.some((m) => isDerived(m.tag)))
          ? h("span", {
              className: "tbmf-cmp-metric__derived",
              text: t("cmp.metrics.derived"),
              title: t("cmp.metrics.derived.help"),
            })
          : null,
        h(
          "span",
          { className: "tbmf-cmp-metric__levels" },
          row.entries.map((entry, i) =>
            h(
              "button",
              {
                className: `tbmf-cmp-level${
                  entry.key === current ? " is-on" : ""
                }${row.counts[i] === 0 ? " is-inactive" : ""}`,
                title: t("cmp.metrics.levelTitle", {
                  key: entry.key,
                  runs: countText(row.counts[i], "count.selectedRun."),
                  tags: countText(entry.members.length, "count.tag."),
                }),
                attrs: {
                  type: "button",
                  "aria-pressed": String(entry.key === current),
                },
                dataset: { metricKey: entry.key },
                on: {
                  click: () =>
                    this.hooks.onPick({ metric: entry.key, tag: null }),
                },
              },
              h("span", {
                text: t(`cmp.levelShort.${entry.level ?? "any"}`),
              }),
              h("span", {
                className: "tbmf-cmp-level__count",
                text: formatInt(row.counts[i]),
              }),
            ),
          ),
        ),
      ),
      open
        ? membersList(
            // Opened because it is the current metric: its level only.
            this._open.has(row.name)
              ? row.entries
              : row.entries.filter((e) => e.key === current),
            selected,
            (run) => runColor(this.ctx.catalog, run),
          )
        : null,
    );
  }

  _renderTags() {
    const current = this.hooks.current().tag;
    if (this.tags === null) {
      this._list.replaceChildren(emptyItem(t("common.loading")));
      return;
    }
    // The server searched, counted and ordered them (selected runs' first).
    const rows = this.tags.map(
      (entry) => /** @type {[string, {runs: number, selected: number}]} */ ([
        entry.tag,
        { runs: entry.runs, selected: entry.selected },
      ]),
    );
    if (rows.length === 0) {
      this._list.replaceChildren(
        emptyItem(this._query ? t("cmp.tags.noMatch") : t("cmp.tags.none")),
      );
      return;
    }
    this._list.replaceChildren(
      ...rows.map(([tag, counts]) =>
        h(
          "li",
          {
            className: `tbmf-cmp-metric tbmf-cmp-metric--tag${
              tag === current ? " is-current" : ""
            }${counts.selected === 0 ? " is-inactive" : ""}`,
          },
          h(
            "button",
            {
              className: "tbmf-cmp-tag",
              title: t("cmp.tags.title", {
                tag,
                runs: countText(counts.runs, "count.run."),
                n: formatInt(counts.selected),
              }),
              attrs: {
                type: "button",
                "aria-pressed": String(tag === current),
              },
              dataset: { tag },
              on: { click: () => this.hooks.onPick({ metric: null, tag }) },
            },
            h("span", { className: "tbmf-cmp-tag__name", text: tag }),
            h("span", {
              className: "tbmf-cmp-level__count",
              text: formatInt(counts.selected),
            }),
          ),
        ),
      ),
      ...moreNote(this.tagTotal, rows.length, "cmp.tags.more."),
    );
  }
}

/**
 * "1,234 more metrics match: refine the search" when the page holds fewer
 * than the server found (nothing is hidden without saying so).
 * @param {number} total
 * @param {number} shown
 * @param {string} prefix the message's key prefix (`cmp.tags.more.`)
 * @returns {HTMLElement[]}
 */
function moreNote(total, shown, prefix) {
  if (total <= shown) return [];
  return [
    h("li", {
      className: "tbmf-cmp-metrics__empty tbmf-cmp-metrics__more",
      text: countText(total - shown, prefix),
      dataset: { more: String(total - shown) },
    }),
  ];
}

/**
 * @param {string} text
 * @returns {HTMLElement} the list's one line when it has no entries
 */
function emptyItem(text) {
  return h("li", { className: "tbmf-cmp-metrics__empty", text });
}

/**
 * @param {MetricEntry} entry
 * @param {Set<string>} selected
 * @returns {number} distinct selected runs among the members
 */
export function selectedRunCount(entry, selected) {
  return new Set(
    entry.members.map((m) => m.run).filter((run) => selected.has(run)),
  ).size;
}

/**
 * The (run, tag) pairs behind each level of a name.
 * @param {MetricEntry[]} entries
 * @param {Set<string>} selected
 * @param {(run: string) => string} colorOf
 * @returns {HTMLElement}
 */
function membersList(entries, selected, colorOf) {
  return h(
    "div",
    { className: "tbmf-cmp-members" },
    entries.map((entry) =>
      h(
        "div",
        { className: "tbmf-cmp-members__level" },
        entries.length > 1 || entry.level
          ? h("div", {
              className: "tbmf-cmp-members__head",
              text: t(`cmp.level.${entry.level ?? "unknown"}`),
            })
          : null,
        h(
          "ul",
          { className: "tbmf-cmp-members__list" },
          [...entry.members]
            .sort(
              (a, b) =>
                Number(selected.has(b.run)) - Number(selected.has(a.run)) ||
                (a.run < b.run ? -1 : a.run > b.run ? 1 : 0),
            )
            .map((member) =>
              h(
                "li",
                {
                  className: `tbmf-cmp-member${
                    selected.has(member.run) ? "" : " is-inactive"
                  }`,
                  title: `${member.run} · ${member.tag}\n${serverTexts(
                    member.derivation ? member.derivation.split("; ") : [],
                    member.derivationMessages,
                  ).join(t("common.listSeparator"))}`,

                  dataset: { run: member.run, tag: member.tag },
                },
                h("span", {
                  className: "tbmf-dot",
                  style: { "--dot": colorOf(member.run) },
                }),
                h("span", {
                  className: "tbmf-cmp-member__run",
                  text: member.run,
                }),
                h("span", {
                  className: "tbmf-cmp-member__tag",
                  text: member.tag,
                }),
              ),
            ),
        ),
      ),
    ),
  );
}

/**
 * The metric a fresh Compare view opens with: the one most selected runs
 * share, `loss/train` at batch level winning ties (the curve people open
 * TensorBoard for).
 * @param {MetricEntry[]} metrics
 * @param {Set<string>} selected
 * @returns {string | null} a metric key
 */
export function defaultMetric(metrics, selected) {
  let best = null;
  let bestScore = -1;
  for (const entry of metrics) {
    const runs = selectedRunCount(entry, selected);
    if (runs === 0) continue;
    const [quantity, split] = entry.name.split("/");
    const score =
      runs * 100 +
      (quantity === "loss" ? 20 : 0) +
      (split === "train" ? 10 : 0) +
      (entry.level === "batch" ? 5 : entry.level === null ? 2 : 0);
    if (score > bestScore) {
      best = entry.key;
      bestScore = score;
    }
  }
  return best;
}

/**
 * A series derived from wall time (`[derived] time/step`), not logged.
 * @param {string} tag
 * @returns {boolean}
 */
export function isDerived(tag) {
  return tag.startsWith("[derived] ");
}
