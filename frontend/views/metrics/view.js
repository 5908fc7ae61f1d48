// The Metrics view: a grid of cards, one per metric the selected runs log
// (GET metrics, paged: the cards shown are fetched), each drawing that
// metric for the selected runs on Compare's axis. Cards mount their chart
// when they come near the viewport, so 40 metrics x 50 runs stay quick.

import { h, setChildren } from "../../dom.js";
import { runsOnScreen } from "../../filter.js";
import { formatInt } from "../../format.js";
import { t } from "../../i18n.js";
import { fetchMetricPage, LatestRequest } from "../../model.js";
import { markInput } from "../../perf.js";
import { KEYS as SHELL_KEYS } from "../../state.js";
import { AXES } from "../compare/axes.js";
import { comparableAxis } from "../compare/firstcontact.js";
import { RunPicker } from "../compare/runpicker.js";
import { setBaselineOptions } from "../compare/baselineselect.js";
import { COMPARE_KEYS, readCompareState } from "../compare/viewstate.js";
import { MetricCard } from "./card.js";
import {
  CARD_HEIGHTS,
  CARD_WIDTHS,
  ENLARGED_HEIGHT,
  METRICS_KEYS,
  readMetricsState,
} from "./viewstate.js";

/** @typedef {import("../../app.js").ViewContext} ViewContext */
/** @typedef {import("../compare/metricpicker.js").MetricEntry} MetricEntry */

/** Metrics fetched a page (the grid shows more on request). */
export const PAGE_SIZE = 48;
/** Milliseconds of typing quiet before the filter applies. */
const FILTER_DEBOUNCE_MS = 250;
/** Cards this far below the viewport already mount their chart, px. */
const LAZY_MARGIN = "300px";

export class MetricsView {
  /**
   * @param {HTMLElement} root
   * @param {ViewContext} ctx
   */
  constructor(root, ctx) {
    this.ctx = ctx;
    /** @type {MetricEntry[] | null} the pages loaded, in the server's order */
    this.metrics = null;
    this.total = 0;
    /** @type {string | null} */
    this.error = null;
    this._pages = 1;
    this._request = new LatestRequest();
    /** @type {Map<string, MetricCard>} */
    this.cards = new Map();
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._filterTimer = null;
    /** The selection and baseline the baseline list was built for. */
    this._baselineKey = "";

    this.runPicker = new RunPicker(ctx);
    this._filter = /** @type {HTMLInputElement} */ (
      h("input", {
        className: "tbmf-met-filter",
        attrs: {
          type: "search",
          placeholder: t("metrics.filter.placeholder"),
          "aria-label": t("metrics.filter.label"),
          spellcheck: "false",
          autocomplete: "off",
          maxlength: 200,
        },
        on: { input: () => this._onFilterInput() },
      })
    );
    this._filter.value = readMetricsState(ctx.state).filter;
    this._axisButtons = AXES.map((axis) =>
      h("button", {
        className: "tbmf-cmp-seg__item",
        text: t(`axis.${axis.id}`),
        title: t(`axis.${axis.id}.help`),
        attrs: { type: "button", "aria-pressed": "false" },
        dataset: { axis: axis.id },
        on: {
          click: () => {
            markInput("axis");
            ctx.state.update({
              [COMPARE_KEYS.axis]: axis.id,
              [COMPARE_KEYS.zoom]: null,
            });
          },
        },
      }),
    );
    this._widthButtons = /** @type {const} */ (["s", "m", "l"]).map((id) =>
      h("button", {
        className: "tbmf-cmp-seg__item",
        text: t(`metrics.width.${id}`),
        attrs: {
          type: "button",
          "aria-pressed": "false",
          "aria-label": t(`metrics.width.${id}.label`),
        },
        dataset: { width: id },
        on: {
          click: () =>
            ctx.state.update({ [METRICS_KEYS.width]: id === "m" ? null : id }),
        },
      }),
    );
    this._baseline = /** @type {HTMLSelectElement} */ (
      h("select", {
        className: "tbmf-cmp-select tbmf-met-baseline",
        attrs: { "aria-label": t("metrics.baseline") },
        on: {
          change: () => {
            markInput("baseline");
            ctx.state.update({
              [COMPARE_KEYS.baseline]: this._baseline.value || null,
            });
          },
        },
      })
    );
    this._count = h("span", {
      className: "tbmf-met-count tbmf-muted",
      attrs: { "aria-live": "polite" },
    });
    this._guide = h("p", {
      className: "tbmf-cmp__guide tbmf-muted tbmf-met-guide",
      attrs: { hidden: true },
    });
    this._grid = h("div", {
      className: "tbmf-met-grid",
      attrs: { tabindex: "-1" },
    });
    this._more = h("button", {
      className: "tbmf-button tbmf-met-more",
      text: t("metrics.more"),
      attrs: { type: "button", hidden: true },
      on: {
        click: () => {
          this._pages += 1;
          void this.load();
        },
      },
    });
    root.append(
      h(
        "div",
        { className: "tbmf-cmp tbmf-met" },
        h("aside", { className: "tbmf-cmp__side" }, this.runPicker.element),
        h(
          "div",
          { className: "tbmf-cmp__main tbmf-met__main" },
          h(
            "div",
            {
              className: "tbmf-met-toolbar",
              attrs: { role: "toolbar", "aria-label": t("metrics.toolbar") },
            },
            this._filter,
            h(
              "div",
              {
                className: "tbmf-cmp-seg",
                attrs: { role: "group", "aria-label": t("metrics.axis") },
              },
              this._axisButtons,
            ),
            h(
              "div",
              {
                className: "tbmf-cmp-seg",
                attrs: { role: "group", "aria-label": t("metrics.width") },
              },
              this._widthButtons,
            ),
            h(
              "label",
              { className: "tbmf-met-baseline-label" },
              h("span", { text: t("metrics.baseline") }),
              this._baseline,
            ),
            this._count,
          ),
          this._guide,
          this._grid,
          this._more,
        ),
      ),
    );

    this._observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          const key = /** @type {HTMLElement} */ (entry.target).dataset.metric;
          const card = key ? this.cards.get(key) : undefined;
          if (card) {
            card.activate();
            this._observer.unobserve(entry.target);
          }
        }
      },
      { rootMargin: LAZY_MARGIN },
    );
    this._onKey = (/** @type {KeyboardEvent} */ event) => {
      if (event.key !== "Escape") return;
      const key = readMetricsState(ctx.state).enlarged;
      if (!key) return;
      event.preventDefault();
      this._enlarge(null);
      // Back where the user was: the card's Enlarge button.
      this.cards.get(key)?.enlargeButton.focus();
    };
    document.addEventListener("keydown", this._onKey);

    this._unsubscribe = [
      ctx.catalog.subscribe((_catalog, change) => {
        if (change.dataChanged) void this.load();
        this.render();
      }),
      ctx.state.subscribe((changed) => {
        if (changed.has(SHELL_KEYS.view)) return;
        if (
          changed.has(METRICS_KEYS.filter) ||
          changed.has(SHELL_KEYS.selection) ||
          changed.has(METRICS_KEYS.pins)
        ) {
          void this.load();
        }
        this.render();
      }),
    ];
    if (ctx.catalog.pending || ctx.catalog.payload) void this.load();
    this.render();
  }

  destroy() {
    for (const unsubscribe of this._unsubscribe) unsubscribe();
    document.removeEventListener("keydown", this._onKey);
    this._observer.disconnect();
    this._request.cancel();
    if (this._filterTimer !== null) clearTimeout(this._filterTimer);
    for (const card of this.cards.values()) card.destroy();
    this.cards.clear();
  }

  _onFilterInput() {
    if (this._filterTimer !== null) clearTimeout(this._filterTimer);
    this._filterTimer = setTimeout(() => {
      this._filterTimer = null;
      this._pages = 1;
      this.ctx.state.update({
        [METRICS_KEYS.filter]: this._filter.value.trim() || null,
      });
    }, FILTER_DEBOUNCE_MS);
  }

  /** @param {string | null} key */
  _enlarge(key) {
    this.ctx.state.update({ [METRICS_KEYS.enlarged]: key });
  }

  /** @param {string} key */
  _openInCompare(key) {
    markInput("metric");
    this.ctx.state.update({
      [SHELL_KEYS.view]: "compare",
      [COMPARE_KEYS.metric]: key,
      [COMPARE_KEYS.tag]: null,
      [COMPARE_KEYS.zoom]: null,
    });
  }

  /** @returns {string[]} the selected runs on screen, in catalog order */
  _selectedRuns() {
    return runsOnScreen(this.ctx.state, this.ctx.catalog.runs);
  }

  /** Fetches the metric pages shown (and pinned metrics beyond them). */
  async load() {
    const s = readMetricsState(this.ctx.state);
    const runs = this._selectedRuns();
    const limit = PAGE_SIZE * this._pages;
    const outcome = await this._request.run((signal) =>
      fetchMetricPage(
        { search: s.filter, runs, limit, wanted: s.pins },
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
    }
    this.render();
  }

  render() {
    const { catalog, state } = this.ctx;
    const s = readMetricsState(state);
    const c = readCompareState(state);
    const selected = this._selectedRuns();
    this.runPicker.render();

    const infos = selected
      .map((run) => catalog.run(run))
      .filter((r) => r !== undefined && r !== null);
    const chosen = state.has(COMPARE_KEYS.axis);
    const reason =
      chosen || catalog.pending ? "" : comparableAxis(infos).reason;
    if (!chosen && !catalog.pending) c.axis = comparableAxis(infos).axis;
    for (const button of this._axisButtons) {
      button.setAttribute(
        "aria-pressed",
        String(button.dataset.axis === c.axis),
      );
    }
    for (const button of this._widthButtons) {
      button.setAttribute(
        "aria-pressed",
        String(button.dataset.width === s.width),
      );
    }
    if (document.activeElement !== this._filter) this._filter.value = s.filter;
    const baselineKey = JSON.stringify([selected, c.baseline]);
    if (baselineKey !== this._baselineKey) {
      this._baselineKey = baselineKey;
      setBaselineOptions(
        this._baseline,
        selected,
        c.baseline,
        t("metrics.baselineNotSelected"),
      );
    }
    this._grid.style.setProperty(
      "--tbmf-met-card-width",
      `${CARD_WIDTHS[s.width]}px`,
    );
    this._grid.dataset.width = s.width;

    const guide = this._guideText(selected, reason, catalog.runs.length);
    this._guide.textContent = guide;
    this._guide.hidden = guide === "";

    if (catalog.pending || this.metrics === null) {
      this._count.textContent = this.error ?? t("common.loading");
      return;
    }
    if (this.error) {
      this._count.textContent = "";
      setChildren(
        this._grid,
        h("p", { className: "tbmf-empty tbmf-empty--error", text: this.error }),
      );
      return;
    }
    const chosenRuns = new Set(selected);
    const shown = this._ordered(this.metrics, s.pins).filter((entry) =>
      entry.members.some((m) => chosenRuns.has(m.run)),
    );
    this._count.textContent = t("metrics.count", {
      shown: formatInt(shown.length),
      total: formatInt(this.total),
    });
    this._count.dataset.shown = String(shown.length);
    this._count.dataset.total = String(this.total);
    this._more.hidden = this.metrics.length >= this.total;
    this._renderCards(shown, s, c, chosenRuns);
  }

  /**
   * The enlarged card first (in the DOM too, so focus order follows), then
   * pinned metrics (in pinning order), then the server's order.
   * @param {MetricEntry[]} entries
   * @param {string[]} pins
   * @returns {MetricEntry[]}
   */
  _ordered(entries, pins) {
    const byKey = new Map(entries.map((e) => [e.key, e]));
    const pinned = pins.map((k) => byKey.get(k)).filter((e) => e !== undefined);
    const rest = entries.filter((e) => !pins.includes(e.key));
    const ordered = [.../** @type {MetricEntry[]} */ (pinned), ...rest];
    const enlarged = readMetricsState(this.ctx.state).enlarged;
    const at = ordered.findIndex((e) => e.key === enlarged);
    if (at > 0) ordered.unshift(...ordered.splice(at, 1));
    return ordered;
  }

  /**
   * @param {string[]} selected
   * @param {string} reason why the axis (empty: nothing to say)
   * @param {number} totalRuns
   * @returns {string}
   */
  _guideText(selected, reason, totalRuns) {
    if (this.ctx.catalog.pending) return "";
    if (totalRuns === 0) return t("metrics.guide.noRuns");
    if (selected.length === 0) return t("metrics.guide.selectRuns");
    if (this.metrics !== null && this.metrics.length === 0) {
      return readMetricsState(this.ctx.state).filter
        ? t("metrics.guide.noMatch")
        : t("metrics.guide.noMetrics");
    }
    return reason;
  }

  /**
   * @param {MetricEntry[]} shown
   * @param {import("./viewstate.js").MetricsState} s
   * @param {import("../compare/viewstate.js").CompareState} c
   * @param {Set<string>} chosenRuns
   */
  _renderCards(shown, s, c, chosenRuns) {
    const keep = new Set(shown.map((e) => e.key));
    for (const [key, card] of this.cards) {
      if (keep.has(key)) continue;
      this._observer.unobserve(card.element);
      card.destroy();
      this.cards.delete(key);
    }
    const elements = [];
    for (const entry of shown) {
      const members = new Set(entry.members.map((m) => m.run));
      const runs = [...chosenRuns].filter((run) => members.has(run));
      const enlarged = s.enlarged === entry.key;
      /** @type {import("./card.js").CardModel} */
      const model = {
        entry,
        runs,
        axis: c.axis,
        smoothing: c.smoothing,
        smoothingMode: c.smoothingMode,
        logY: c.logY,
        baseline: c.baseline && runs.includes(c.baseline) ? c.baseline : null,
        diffMode: c.diffMode,
        pinned: s.pins.includes(entry.key),
        enlarged,
        height: enlarged ? ENLARGED_HEIGHT : CARD_HEIGHTS[s.width],
        settings: s.cards[entry.key] ?? {},
      };
      let card = this.cards.get(entry.key);
      if (card) {
        card.update(model);
      } else {
        card = new MetricCard(this.ctx, model, {
          enlarge: (key) => this._enlarge(key),
          openInCompare: (key) => this._openInCompare(key),
        });
        this.cards.set(entry.key, card);
        this._observer.observe(card.element);
      }
      elements.push(card.element);
    }
    // Reorder only when the order changed (moving a card re-lays it out).
    const current = [...this._grid.children];
    if (
      current.length !== elements.length ||
      current.some((el, i) => el !== elements[i])
    ) {
      setChildren(this._grid, ...elements);
    }
    this._grid.classList.toggle(
      "has-enlarged",
      s.enlarged !== null && keep.has(s.enlarged),
    );
  }
}
