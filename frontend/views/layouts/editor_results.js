// What a layout editor preview says, shown on the chart cards: per regex
// the match count, the matched (run, tag) pairs or Python's error with a
// caret; per margin series the runs drawn and those lacking a tag; per
// chart the summary and, on "Show chart", the chart itself.

import { runColor } from "../../colors.js";
import { h, setChildren } from "../../dom.js";
import { t } from "../../i18n.js";
import { mountLayoutChart } from "./chart_adapter.js";
import { icon } from "./icons.js";
import { describeProblem } from "./messages.js";
import { pairList, regexErrorBox } from "./preview.js";

/**
 * @typedef {import("../../app.js").ViewContext} ViewContext
 * @typedef {import("./schema.js").Draft} Draft
 * @typedef {import("./schema.js").DraftChart} DraftChart
 * @typedef {import("./preview.js").DraftPreview} DraftPreview
 * @typedef {import("./editor_cards.js").ChartRefs} ChartRefs
 */

/** Plot height of a chart previewed in the editor, CSS pixels. */
const PREVIEW_CHART_HEIGHT = 200;

/** The preview's results on the cards, and the charts drawn under them. */
export class PreviewResults {
  /**
   * @param {ViewContext} ctx
   * @param {() => import("./api.js").MetricIndex | null} metricIndex how
   *     chart previews group their requests (null: by tag)
   */
  constructor(ctx, metricIndex) {
    this.ctx = ctx;
    this._metricIndex = metricIndex;
    /** Charts whose drawing is shown under their card ("category:chart"). */
    /** @type {Set<string>} */
    this._shownCharts = new Set();
    /** @type {Map<string, import("./chart_adapter.js").LayoutChartPanel>} */
    this._panels = new Map();
  }

  /**
   * Shows a preview's answer on the chart cards: match counts and pairs per
   * regex, regex errors, the validation problem on its chart, the summary
   * and the chart when shown.
   * @param {DraftPreview} preview
   * @param {Draft} draft the draft the cards show
   * @param {Map<string, ChartRefs>} cards "category:chart" → its elements
   */
  apply(preview, draft, cards) {
    const { catalog, state } = this.ctx;
    const problem = preview.error
      ? describeProblem(preview.error, draft)
      : null;
    for (const [key, refs] of cards) {
      const [ci, hi] = key.split(":").map(Number);
      const chart = draft.categories[ci]?.charts[hi];
      if (!chart) continue;
      const chartPreview = preview.charts.get(key);
      const here = problem?.chart === key;
      refs.element.classList.toggle("has-problem", here);
      // The problem in the user's words, on the chart it is about.
      refs.problem.hidden = !here;
      refs.problem.textContent = here && problem ? problem.fix : "";
      // Run regex.
      const runError = chartPreview?.regexErrors.find((e) =>
        e.path.endsWith(".runs"),
      );
      setChildren(refs.runsResult, runError ? regexErrorBox(runError) : null);
      refs.runsInput?.classList.toggle("is-invalid", Boolean(runError));
      // Regex rows.
      refs.rows.forEach((row, k) => {
        if (!row) return;
        const result = preview.patterns.get(`${key}:${k}`);
        row.input.classList.toggle("is-invalid", Boolean(result?.error));
        if (!chart.patterns[k] || !result) {
          row.count.textContent = "";
          row.count.dataset.count = "";
          setChildren(row.result);
          return;
        }
        if (runError && !result.error) {
          // An invalid run filter matches nothing: say so, not "0 matches".
          row.count.textContent = "";
          row.count.dataset.count = "";
          setChildren(
            row.result,
            h("div", {
              className: "tbmf-lay-nomatch",
              text: t("layouts.results.fixRunRegex"),
            }),
          );
          return;
        }
        row.count.textContent = result.error
          ? t("layouts.results.invalid")
          : t("layouts.results.matches", { n: result.total });
        row.count.dataset.count = result.error ? "" : String(result.total);
        row.count.classList.toggle(
          "is-zero",
          !result.error && result.total === 0,
        );
        row.count.classList.toggle("is-error", Boolean(result.error));
        setChildren(
          row.result,
          result.error
            ? regexErrorBox(result.error)
            : result.total
              ? pairList(catalog, result.matches, result.total, state)
              : h("div", {
                  className: "tbmf-lay-nomatch",
                  text:
                    chart.mode === "metrics"
                      ? t("layouts.results.noMetric")
                      : t("layouts.results.noTag"),
                }),
        );
      });
      // Margin rows.
      refs.series.forEach((row, k) => {
        if (!row) return;
        const series = chart.series[k];
        const matches = (chartPreview?.matches ?? []).filter(
          (m) =>
            m.tag === series.value &&
            m.lower === series.lower &&
            m.upper === series.upper,
        );
        const filled = series.value && series.lower && series.upper;
        row.count.textContent = filled
          ? t("layouts.results.runs", { n: matches.length })
          : "";
        row.count.dataset.count = filled ? String(matches.length) : "";
        row.count.classList.toggle(
          "is-zero",
          Boolean(filled) && !matches.length,
        );
        const wanted = new Set([series.value, series.lower, series.upper]);
        const missing = (chartPreview?.missing ?? []).filter((m) =>
          m.tags.some((tag) => wanted.has(tag)),
        );
        setChildren(
          row.result,
          matches.length
            ? pairList(catalog, matches, matches.length, state)
            : null,
          missing.map((m) =>
            h(
              "div",
              {
                className: "tbmf-lay-missing",
                dataset: { run: m.run },
              },
              icon("info", { size: 14 }),
              h("span", {
                text: t("layouts.results.lacks", {
                  run: m.run,
                  tags: m.tags.join(", "),
                }),
              }),
            ),
          ),
        );
      });
      // Chart summary, and the chart itself when asked for.
      this._renderSummary(refs, chart, chartPreview, key);
      this._renderChart(refs, chart, chartPreview, key);
    }
  }

  /**
   * "The chart draws N series from M runs", and the Show chart toggle.
   * @param {ChartRefs} refs
   * @param {DraftChart} chart
   * @param {import("./api.js").ChartPreview | undefined} preview
   * @param {string} key "category:chart"
   */
  _renderSummary(refs, chart, preview, key) {
    if (!preview) {
      setChildren(refs.summary);
      return;
    }
    const runs = [...new Set(preview.matches.map((m) => m.run))];
    const selected = runs.filter((run) => this.ctx.state.isSelected(run));
    const shown = this._shownCharts.has(key);
    refs.summary.dataset.total = String(preview.totalMatches);
    setChildren(
      refs.summary,
      icon("dashboard", { size: 15 }),
      h("span", {
        text:
          preview.skipped
            ? t("layouts.results.notPreviewed", { reason: preview.skipped })
            : preview.totalMatches === 0
            ? t("layouts.results.drawsNothing")
            : selected.length < runs.length
            ? t("layouts.results.drawsSome", {
                n: preview.totalMatches,
                runs: runs.length,
                selected: selected.length,
              })
            : t("layouts.results.draws", {
                n: preview.totalMatches,
                runs: runs.length,
              }),
      }),
      h(
        "span",
        { className: "tbmf-lay-echart__runs" },
        runs.slice(0, 10).map((run) =>
          h("span", {
            className: "tbmf-dot",
            title: run,
            style: { "--dot": runColor(this.ctx.catalog, run) },
          }),
        ),
      ),
      h(
        "button",
        {
          className: "tbmf-button tbmf-button--text tbmf-lay-echart__toggle",
          attrs: { type: "button", "aria-expanded": String(shown) },
          dataset: { action: "toggle-chart" },
          title: shown
            ? t("layouts.results.hide.title")
            : t("layouts.results.show.title"),
          on: {
            click: () => {
              if (shown) this._shownCharts.delete(key);
              else this._shownCharts.add(key);
              this._renderSummary(refs, chart, preview, key);
              this._renderChart(refs, chart, preview, key);
            },
          },
        },
        icon(shown ? "fold" : "unfold", { size: 15 }),
        shown ? t("layouts.results.hide") : t("layouts.results.show"),
      ),
    );
  }

  /**
   * Draws (or updates, or removes) a chart's preview under its card.
   * @param {ChartRefs} refs
   * @param {DraftChart} chart
   * @param {import("./api.js").ChartPreview | undefined} preview
   * @param {string} key
   */
  _renderChart(refs, chart, preview, key) {
    let panel = this._panels.get(key);
    if (!this._shownCharts.has(key) || !preview) {
      panel?.destroy();
      this._panels.delete(key);
      refs.chartHost.hidden = true;
      return;
    }
    refs.chartHost.hidden = false;
    const { state } = this.ctx;
    const pairs = preview.matches.filter((m) => state.isSelected(m.run));
    const margin = chart.kind === "margin";
    /** @type {import("./chart_adapter.js").LayoutChartOptions} */
    const options = {
      runs: [...new Set(pairs.map((p) => p.run))],
      kind: chart.kind,
      pairs,
      metricIndex: this._metricIndex(),
      title: chart.title || t("layouts.untitledChart"),
      subtitle: t("layouts.results.preview"),
      x: chart.x,
      smoothing: margin ? 0 : chart.smoothing,
      logY: chart.logY,
      baseline: null,
      height: PREVIEW_CHART_HEIGHT,
      showExport: false,
      emptyText: preview.totalMatches
        ? t("layouts.results.noSelected")
        : t("layouts.results.nothingYet"),
    };
    if (panel) {
      panel.update(options);
    } else {
      panel = mountLayoutChart(refs.chartHost, this.ctx, options);
      this._panels.set(key, panel);
    }
  }

  destroyPanels() {
    for (const panel of this._panels.values()) panel.destroy();
    this._panels.clear();
  }
}
